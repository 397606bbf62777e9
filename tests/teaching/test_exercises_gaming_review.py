"""The fixes of the independent "game every exercise" review (issue 42, item 4): each test here
failed before its fix.  A right answer is not refused for how it was written; feedback does not
name the item to change; a nearby cell's output is not the answer; hint=3 is recorded however it
is asked for; a search loop meets the attempts budget."""
from __future__ import annotations

import pytest

import umkit
from umkit.teaching.exercises import nb06


@pytest.fixture(autouse=True)
def sim():
    umkit.use("sim", quiet=True)
    yield
    umkit.use("sim", quiet=True)


# -- 1. a right answer is not refused for how add was imported (06) -------------------------------
def _epoch_loop(add, read):
    def loop(n, epochs):
        a, b, out = umkit.managed(n), umkit.managed(n), umkit.managed(n)
        a.host[:] = 1.0
        b.host[:] = 2.0
        s = umkit.Stream()
        sums = []
        for _ in range(epochs):
            for x in (a, b, out):
                x.prefetch("gpu", stream=s)
            add(out, a, b, stream=s)
            s.synchronize()
            sums.append(read(out, s, n))
        for x in (a, b, out):
            x.free()
        return sums
    return loop


def test_06_loop_with_from_umkit_import_add_passes():
    from umkit import add, read_back
    by_host = _epoch_loop(add, lambda out, s, n: float(out.host.sum(dtype="float64")))
    by_copy = _epoch_loop(add, lambda out, s, n: float(read_back(out, stream=s).sum()))
    v = nb06.check_epoch_loop(by_host, profile=nb06.PROFILE)
    assert v.ok, v
    v = nb06.check_epoch_loop(by_copy, profile=nb06.PROFILE)
    assert v.ok, v


def test_06_formula_with_a_bare_host_access_is_refused():
    def bare(out, s, n):
        out.host                            # noqa: B018 - takes the view, reads nothing
        return 3.0 * n
    v = nb06.check_epoch_loop(_epoch_loop(umkit.add, bare), profile=nb06.PROFILE)
    assert not v.ok
    assert "did not come from `out`" in v.message


def test_06_reading_part_of_out_is_not_reading_it():
    def part(out, s, n):
        float(out.host[:16].sum())
        return 3.0 * n
    v = nb06.check_epoch_loop(_epoch_loop(umkit.add, part), profile=nb06.PROFILE)
    assert not v.ok and "did not come from `out`" in v.message
