"""umkit.sim.sealed: while the block runs (in this thread's context), the prefetch cost methods
refuse to answer with a typed error; everything else answers, and the seal lifts on the way out,
after an exception too, and never reaches another thread."""
import threading

import pytest

import umkit
from umkit.sim import load_profile, sealed


def test_the_seal_refuses_the_prefetch_cost_and_lifts_after():
    p = load_profile("mi250x-xnack1")
    before = p.prefetch_cost(1 << 20, True)
    with sealed("write the formula"):
        for call in (lambda: p.prefetch_cost(1 << 20, True), lambda: p.prefetch_fixed(False)):
            with pytest.raises(umkit.errors.UmkitError) as e:
                call()
            assert "does not answer" in str(e.value) and e.value.hint == "write the formula"
        assert p.prefetch_h2d_bw > 0                         # the parameters stay readable
    assert p.prefetch_cost(1 << 20, True) == before
    with pytest.raises(ZeroDivisionError):
        with sealed("x"):
            1 / 0
    assert p.prefetch_cost(1 << 20, True) == before


def test_the_seal_stays_in_its_thread():
    p = load_profile("h200-pcie5")
    got = []
    with sealed("here only"):
        t = threading.Thread(target=lambda: got.append(p.prefetch_cost(4096, False)))
        t.start()
        t.join()
    assert got and got[0] > 0


@pytest.mark.parametrize("why", [None, "", "  ", 3, b"x"])
def test_a_seal_needs_a_reason(why):
    with pytest.raises(umkit.errors.InvalidType) as e:
        with sealed(why):
            pass
    assert e.value.argument == "why"
