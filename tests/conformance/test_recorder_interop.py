"""The recorder and the interop protocols on every backend (sim here; cuda/hip on a GPU)."""
from __future__ import annotations

import numpy as np

import umkit


class _HostView:
    """Asks umkit for the CPU's view of managed memory (dl_device=(kDLCPU, 0))."""

    def __init__(self, arr):
        self.arr = arr

    def __dlpack__(self, **kw):
        kw.pop("dl_device", None)
        kw.pop("copy", None)
        return self.arr.__dlpack__(dl_device=(1, 0), **kw)

    def __dlpack_device__(self):
        return (1, 0)


def test_recorder_times_each_step(backend):
    a = umkit.managed(1 << 20)
    a.host[:] = 1.0
    with umkit.ecg.recorder("conformance") as rec:
        for _ in range(5):
            umkit.increment(a)
            rec.step()
    r = rec.result()
    assert len(r.step_ms) == 5 and all(ms > 0 for ms in r.step_ms), r.step_ms
    assert r.backend == backend and r.summary()["verdict"] in ("flat", "spiky")
    umkit.synchronize()
    assert float(a.host[:4].sum()) == 4 * 6.0
    a.free()


def test_interop_protocols_describe_the_same_pointer(backend):
    a = umkit.managed((4, 8), "float32")
    d = umkit.device_array(16, "float32")
    if backend == "sim":
        assert np.from_dlpack(a).shape == (4, 8)
        return
    gpu_t = 10 if backend == "hip" else 2                  # kDLROCM / kDLCUDA
    assert a.__dlpack_device__() == (gpu_t, 0)
    assert d.__dlpack_device__() == (gpu_t, 0)
    cai = a.__cuda_array_interface__
    assert cai == {"shape": (4, 8), "typestr": "<f4", "data": (a.ptr, False), "strides": None,
                   "version": 3, "stream": 1}
    import cupy
    c = cupy.from_dlpack(a)
    assert int(c.data.ptr) == a.ptr and c.shape == (4, 8)
    h = np.from_dlpack(_HostView(a))                      # managed memory, the CPU's view
    assert h.ctypes.data == a.ptr
    del c, h
    a.free()
    d.free()
