"""The HIP adapter: hip-python 10 (``from hip import hip``) + CuPy for ROCm (``cupy-rocm-7-0``).

Same methods, same order as :mod:`umkit.backends.cuda`; read the two side by side to see
exactly where CUDA and HIP differ.  Everything else is in :mod:`umkit.backends.gpu`.
"""
from __future__ import annotations

import os
from importlib import metadata

from ..errors import BackendUnavailable
from .install import install_hint as detect_hint
from .contract import Location
from .gpu import GPUBackend, RuntimeAdapter


class HipRuntime(RuntimeAdapter):
    name = "hip"
    # umkit's guard is for NVIDIA, where an oversubscribed card can stall; on AMD with XNACK
    # on, VRAM pressure evicts managed ranges to system memory, and with XNACK off an
    # allocation beyond the system-memory limit fails (ledger: amd.xnack0.alloc_maps).
    oversubscription_guard = False

    def __init__(self):
        try:
            from hip import hip
        except ImportError as e:
            raise BackendUnavailable(
                f"hip-python not installed ({detect_hint('rocm')}): {e}") from None
        self.rt = hip
        self._cupy = None

    def location(self, where: Location):
        # HIP's classic calls take an int device: the ordinal, or hipCpuDeviceId (-1)
        if where.kind == "host":
            return int(self.value("cudaCpuDeviceId"))
        return int(where.id)

    def prefetch(self, ptr: int, nbytes: int, to: Location, stream) -> None:
        # hipMemPrefetchAsync(ptr, count, device, stream)
        self.call("cudaMemPrefetchAsync", ptr, nbytes, self.location(to), stream)

    def advise(self, ptr: int, nbytes: int, advice, where: Location) -> None:
        # hipMemAdvise(ptr, count, advice, device)
        self.call("cudaMemAdvise", ptr, nbytes, advice, self.location(where))

    def range_attribute(self, ptr: int, nbytes: int, attribute: str, slots: int) -> list[int]:
        # hip-python fills a buffer you pass: (data, data_size, attribute, ptr, count) -> (err,)
        import numpy as np
        buf = np.full(slots, -2, dtype=np.int32)
        self.call("cudaMemRangeGetAttribute", int(buf.ctypes.data), 4 * slots,
                  self.value(attribute), ptr, nbytes)
        return [int(v) for v in buf]

    def arch_capabilities(self, device: int, caps: dict) -> dict:
        arch = str(self.call("cudaGetDeviceProperties", int(device)).gcnArchName)
        target = True if "xnack+" in arch else False if "xnack-" in arch else None
        return {
            # XNACK lets the GPU retry a faulting access after the page moved: on-demand
            # migration of managed memory needs it.  ROCm reports it as pageable memory
            # access (ledger: amd.attr.pageable_xnack); the ISA name carries xnack+ when the
            # process started with HSA_XNACK=1 (ledger: amd.xnack.isa_name).
            "xnack": {"env": os.environ.get("HSA_XNACK"), "target": target, "arch": arch},
            # concurrent managed access is the kernel driver's SVM (HMM) support, whatever
            # XNACK is (ledger: amd.attr.concurrent_managed)
            "hmm": bool(caps["managed_memory"] and caps["concurrent_managed_access"]),
        }

    def versions(self) -> dict:
        drv = int(self.call("cudaDriverGetVersion"))
        run = int(self.call("cudaRuntimeGetVersion"))
        try:
            bindings = metadata.version("hip-python")
        except metadata.PackageNotFoundError:
            bindings = None

        def hipver(v: int) -> str:
            return f"{v // 10_000_000}.{v // 100_000 % 100}.{v % 100_000}"

        return {
            "driver": hipver(drv), "driver_raw": drv,
            "runtime": hipver(run), "runtime_raw": run,
            "bindings": f"hip-python {bindings}" if bindings else None,
        }

    def cupy_device_id(self, ptr: int, device: int) -> int:
        # umkit knows each allocation's device: it passes it to CuPy rather than have CuPy
        # ask the runtime about every pointer (hipPointerGetAttributes would answer for managed
        # memory too; ledger: amd.pointer_attributes.managed).
        return int(device)

    def counter_source(self):
        # rocprofiler-sdk page-migration records (a documented adapter: see rocprof.py)
        from .counters.rocprof import COLLECTOR
        return COLLECTOR

    def cupy(self):
        if self._cupy is None:
            try:
                import cupy
            except ImportError as e:
                raise BackendUnavailable(
                    f"CuPy for ROCm not installed (pip install cupy-rocm-7-0): {e}") from None
            if not getattr(cupy.cuda.runtime, "is_hip", False):
                raise BackendUnavailable("the installed CuPy is the CUDA build; the hip backend "
                                         "needs CuPy for ROCm (pip install cupy-rocm-7-0)")
            self._cupy = cupy
        return self._cupy


class HipBackend(GPUBackend):
    """umkit on AMD GPUs."""

    def __init__(self):
        super().__init__(HipRuntime())
