"""The fake low layer of the contract tests: the whole GPU backend over the real cuda-bindings
with the driver's answers canned (the ``cuda_backend`` fixture in conftest.py), so the CUDA
adapter's call forms and the backend's error handling are tested on a machine without a GPU."""
from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest

try:
    from cuda.bindings import runtime as rt
except ImportError:
    rt = None


def _driver_present() -> bool:
    err, _ = rt.cudaGetDeviceCount()
    return int(err) != int(rt.cudaError_t.cudaErrorInsufficientDriver)


class CheckedCuda:
    """``cuda.bindings.runtime`` whose functions are really called (so cuda-bindings converts and
    type-checks every argument), then answered from ``canned`` because no driver is here."""

    PASS_THROUGH = {"cudaGetErrorName", "cudaGetErrorString"}

    def __init__(self, canned):
        self.calls: list[tuple[str, tuple]] = []
        self.canned = canned

    def __getattr__(self, name):
        obj = getattr(rt, name)
        if not name.startswith("cuda") or isinstance(obj, type) or not callable(obj) \
                or name in self.PASS_THROUGH:
            return obj

        def checked(*args):
            self.calls.append((name, args))
            res = obj(*args)  # TypeError here = the adapter's call form is wrong
            # no driver: the call fails after converting its arguments (a few, such as
            # cudaDriverGetVersion, succeed and report 0)
            assert int(res[0]) in (int(rt.cudaError_t.cudaErrorInsufficientDriver), 0), \
                (name, res)
            return self.canned(name, args)
        return checked

    def called(self, name):
        return [a for n, a in self.calls if n == name]


_addresses = itertools.count(1)
#: addresses another allocator (not umkit) holds now: cudaPointerGetAttributes says managed
FOREIGN: set[int] = set()
_current = [0]


def cuda_canned(name, args):
    ok = rt.cudaError_t.cudaSuccess
    A = rt.cudaMemRangeAttribute
    table = {
        "cudaGetDeviceCount": (ok, 2),
        "cudaMemGetInfo": (ok, 8 << 30, 16 << 30),
        "cudaDriverGetVersion": (ok, 13000),
        "cudaRuntimeGetVersion": (ok, 13000),
        "cudaGetDeviceProperties": (ok, SimpleNamespace(name=b"NVIDIA Test GPU\0\0")),
        "cudaStreamCreate": (ok, rt.cudaStream_t(0x5000)),
        "cudaEventCreate": (ok, rt.cudaEvent_t(0x6000)),
        "cudaGetDevice": (ok, _current[0]),
        "cudaEventElapsedTime": (ok, 2.5),
    }
    if name in ("cudaMallocManaged", "cudaMalloc", "cudaHostAlloc"):
        if args[0] == 3 << 30:
            return (rt.cudaError_t.cudaErrorMemoryAllocation, None)
        return (ok, 0x10000000 + (next(_addresses) << 32))
    if name == "cudaDeviceGetAttribute":
        on = {"cudaDevAttrManagedMemory", "cudaDevAttrConcurrentManagedAccess",
              "cudaDevAttrPageableMemoryAccess"}
        return (ok, 1 if args[0].name in on else 0)
    if name == "cudaMemRangeGetAttribute":
        size, attr = args[0], args[1]
        if attr == A.cudaMemRangeAttributeReadMostly:
            return (ok, 1)
        if attr == A.cudaMemRangeAttributePreferredLocation:
            return (ok, 0)
        if attr == A.cudaMemRangeAttributeLastPrefetchLocation:
            return (ok, -1)
        if attr == A.cudaMemRangeAttributeAccessedBy:
            return (ok, ([0, -1] + [-2] * 8)[: size // 4])
        raise AssertionError(attr)
    if name == "cudaSetDevice":             # the thread's current device, as the runtime keeps it
        _current[0] = int(args[0])
        return (ok,)
    if name == "cudaPointerGetAttributes":
        return (ok, SimpleNamespace(type=3 if int(args[0]) in FOREIGN else 0))
    if name == "cudaMemPrefetchAsync" and args[1] == 12345:
        return (rt.cudaError_t.cudaErrorInvalidValue,)
    return table.get(name, (ok,))


def make_cuda_backend(monkeypatch):
    if rt is None:
        pytest.skip("cuda-bindings not installed (pip install 'cuda-bindings==13.*')")
    if _driver_present():
        pytest.skip("a CUDA driver is present: these tests answer for a missing one")
    from umkit.backends import gpu
    from umkit.backends.cuda import CudaBackend
    monkeypatch.delenv(gpu.ENV_ALLOW_OVERSUBSCRIPTION, raising=False)
    b = CudaBackend()
    _current[0] = 0
    b.rt.rt = CheckedCuda(cuda_canned)
    return b
