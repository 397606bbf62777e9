"""Threads reading back into ``out=`` arrays of every layout, checked against NumPy (issue 10:
``read_back(a, out=F-order array)`` once returned ``out`` unchanged, and threads once got each
other's staging buffers)."""
from __future__ import annotations

import sys
import threading
import warnings

import numpy as np
import pytest

import umkit


def _layouts(shape, dtype):
    """Writable NumPy arrays of ``shape``'s size in every layout read_back must fill."""
    r, c = shape
    n = r * c
    return {
        "C": np.empty(shape, dtype),
        "F": np.empty(shape, dtype, order="F"),
        "transposed": np.empty((c, r), dtype).T,
        "strided-2d": np.empty((r, 2 * c), dtype)[:, ::2],
        "strided-1d": np.empty(2 * n, dtype)[::2],
        "reversed": np.empty(n, dtype)[::-1],
        "flat": np.empty(n, dtype),
        "fortran-3d": np.empty((1, r, c), dtype, order="F"),
    }


@pytest.fixture
def sim(monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    umkit.use("sim", quiet=True)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(old)


def test_layouts_cover_what_read_back_must_handle():
    lay = _layouts((6, 5), np.float32)
    assert not lay["F"].flags.c_contiguous and lay["F"].flags.f_contiguous
    assert not lay["strided-2d"].flags.c_contiguous and not lay["strided-2d"].flags.f_contiguous
    assert lay["reversed"].strides[0] < 0
    assert all(x.size == 30 and x.flags.writeable for x in lay.values())


def test_threads_read_back_into_every_layout_against_numpy(sim):
    nthreads, rounds = 4, 30
    failures: list = []
    barrier = threading.Barrier(nthreads)

    def worker(tid):
        rng = np.random.default_rng(tid)
        barrier.wait()
        for r in range(rounds):
            shape = (int(rng.integers(1, 40)), int(rng.integers(1, 40)))
            dtype = (np.float32, np.uint8, np.float64)[r % 3]
            kind = ("managed", "pinned")[int(rng.integers(0, 2))]
            a = umkit.empty(shape, dtype, kind)
            ref = (rng.standard_normal(shape) * 50).astype(dtype)
            a.host[:] = ref
            if dtype is np.float32 and rng.integers(0, 2):
                umkit.increment(a)               # the GPU changes it; read_back must see it
                umkit.synchronize()
                ref = ref + np.float32(1)
            for name, out in _layouts(shape, dtype).items():
                out[...] = 0
                got = umkit.read_back(a, out=out)
                if got is not out:
                    failures.append((tid, r, name, "did not return out"))
                elif not np.array_equal(out.reshape(-1) if out.ndim == 1 else
                                        out.reshape(shape), ref.reshape(-1) if out.ndim == 1
                                        else ref):
                    failures.append((tid, r, name, "wrong data"))
            pinned_out = umkit.pinned(shape, dtype)
            got = umkit.read_back(a, out=pinned_out)
            if not np.array_equal(got, ref):
                failures.append((tid, r, "pinned umkit.Array", "wrong data"))
            pinned_out.free()
            a.free()

    def guarded(tid):
        try:
            worker(tid)
        except Exception as e:  # noqa: BLE001 - a thread's error must fail the test
            failures.append((tid, repr(e)))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ts = [threading.Thread(target=guarded, args=(i,)) for i in range(nthreads)]
        [t.start() for t in ts]
        [t.join(120) for t in ts]
    assert not any(t.is_alive() for t in ts), "a thread hangs"
    assert failures == []


@pytest.mark.parametrize("name", sorted(_layouts((3, 4), np.float32)))
def test_read_back_layout_single_thread(sim, name):
    a = umkit.managed((3, 4))
    ref = np.arange(12, dtype=np.float32).reshape(3, 4)
    a.host[:] = ref
    out = _layouts((3, 4), np.float32)[name]
    out[...] = -1
    assert umkit.read_back(a, out=out) is out
    flat = out.reshape(-1) if out.ndim == 1 else out.reshape(3, 4)
    assert np.array_equal(flat, ref.reshape(-1) if out.ndim == 1 else ref)
