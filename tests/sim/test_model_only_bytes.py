"""Bytes and the machine's memory: with compute=True every byte is real and more than this
machine can give is refused with an error that names the limit and the model-only switch;
model-only, an allocation has no bytes until a view or a copy needs them, so a 64 GiB array is
modelled without them, and a view the machine cannot back is refused -- never wrong data."""
from __future__ import annotations

import numpy as np
import pytest

import umkit
from umkit.errors import OutOfMemory
from umkit.sim import pages

GiB = 1 << 30


@pytest.fixture
def small_machine(monkeypatch):
    """A machine that can give 2 GiB (whatever this one has)."""
    monkeypatch.setattr(pages, "machine_memory", lambda: 2 * GiB)
    yield
    umkit.use("sim", quiet=True)


def test_compute_true_refuses_what_the_machine_cannot_hold_and_names_the_switch(small_machine):
    umkit.use("sim", quiet=True)
    with pytest.raises(OutOfMemory) as e:
        umkit.managed(4 * GiB // 4)
    err = e.value
    assert "compute=True" in str(err) and "2.00 GiB" in str(err)
    assert 'umkit.use("sim", compute=False)' in err.hint
    assert err.requested == 4 * GiB and err.free == 2 * GiB and err.kind == "managed"
    umkit.managed(GiB // 4).free()                       # what fits is allocated


def test_model_only_models_64_gib_without_bytes(small_machine):
    b = umkit.use("sim", quiet=True, compute=False)
    a = umkit.managed(64 * GiB // 4)
    a.prefetch("gpu")
    umkit.touch(a, 65536)
    umkit.synchronize()
    al, _ = b.engine.find(a.ptr)
    assert not al.has_data
    assert umkit.counters()["prefetch_bytes_h2d"] == 0          # never populated: nothing moved
    assert umkit.residency(a).summary()["gpu"] == 1.0
    with pytest.raises(OutOfMemory) as e:                       # a view would need 64 GiB
        a.host[:4]
    assert "model-only" in str(e.value) and "2.00 GiB" in str(e.value)
    assert "umkit.touch" in e.value.hint
    assert not al.has_data
    a.free()


def test_model_only_bytes_appear_when_needed_and_read_true(small_machine):
    b = umkit.use("sim", quiet=True, compute=False)
    x, y = umkit.managed(1024), umkit.managed(1024)
    ax, _ = b.engine.find(x.ptr)
    ay, _ = b.engine.find(y.ptr)
    assert not ax.has_data and not ay.has_data
    umkit.copy(y, x)                                 # both still zero: no bytes are needed
    umkit.synchronize()
    assert not ax.has_data and not ay.has_data
    np.testing.assert_array_equal(y.host[:], 0.0)    # a fresh array reads as zeros
    x.host[:] = 3.0
    umkit.copy(y, x)
    umkit.synchronize()
    np.testing.assert_array_equal(y.host[:], 3.0)
    x.free(), y.free()
