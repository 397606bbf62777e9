"""The CUDA adapter: cuda-bindings 13 or 12 (``cuda.bindings.runtime``) + CuPy (``cupy-cuda13x``
or ``cupy-cuda12x``: the extras ``cu13`` and ``cu12``).

Same methods, same order as :mod:`umkit.backends.hip`; read the two side by side to see
exactly where CUDA and HIP differ.  Everything else is in :mod:`umkit.backends.gpu`.
"""
from __future__ import annotations

from importlib import metadata

from ..errors import BackendUnavailable
from .install import install_hint as detect_hint
from .contract import Location
from .gpu import GPUBackend, RuntimeAdapter


#: CUDA 12.2-12.x's spelling of the location forms of prefetch and advise (the names table's
#: notes on cudaMemPrefetchAsync / cudaMemAdvise): CUDA 12's plain calls take a device number
V2 = "_v2"


def location_suffix(runtime) -> str:
    """The suffix of the prefetch and advise calls that take a ``cudaMemLocation``: "" in
    cuda-bindings 13, :data:`V2` in 12.x."""
    return V2 if hasattr(runtime, "cudaMemPrefetchAsync" + V2) else ""


class CudaRuntime(RuntimeAdapter):
    name = "cuda"
    # Asking for more managed memory than the GPU has free: NVIDIA documents it as supported;
    # its own benchmark finds performance varies up to 100x (NVIDIA Technical Blog, Oct 2021).
    oversubscription_guard = True

    def __init__(self):
        try:
            from cuda.bindings import runtime
        except ImportError as e:
            raise BackendUnavailable(
                f"cuda-bindings not installed ({detect_hint('cuda')}): {e}") from None
        self.rt = runtime
        self._cupy = None
        self.v2 = location_suffix(runtime)

    def location(self, where: Location):
        # CUDA 13: a cudaMemLocation struct, (type=Device, id=i) or (type=Host, id ignored)
        loc = self.rt.cudaMemLocation()
        if where.kind == "host":
            loc.type = self.value("cudaMemLocationTypeHost")
            loc.id = 0
        else:
            loc.type = self.value("cudaMemLocationTypeDevice")
            loc.id = int(where.id)
        return loc

    def prefetch(self, ptr: int, nbytes: int, to: Location, stream) -> None:
        # cudaMemPrefetchAsync(ptr, count, location, flags, stream)
        self.call_spelled("cudaMemPrefetchAsync" + self.v2, ptr, nbytes, self.location(to), 0,
                          stream)

    def advise(self, ptr: int, nbytes: int, advice, where: Location) -> None:
        # cudaMemAdvise(ptr, count, advice, location)
        self.call_spelled("cudaMemAdvise" + self.v2, ptr, nbytes, advice, self.location(where))

    def range_attribute(self, ptr: int, nbytes: int, attribute: str, slots: int) -> list[int]:
        # cuda-bindings allocates the output itself: (dataSize, attribute, ptr, count) -> value
        value = self.call("cudaMemRangeGetAttribute", 4 * slots, self.value(attribute), ptr,
                          nbytes)
        return [int(v) for v in value] if isinstance(value, (list, tuple)) else [int(value)]

    def holds(self, ptr: int) -> bool | None:
        # cudaPointerGetAttributes(ptr) -> (err, attributes): an address nobody holds is
        # cudaMemoryTypeUnregistered (0) since CUDA 11.  (The HIP adapter answers None:
        # hip-python's form takes the struct to fill, and what ROCm reports for managed
        # memory there was not checked on an AMD GPU.)
        try:
            err, attrs = self.rt.cudaPointerGetAttributes(int(ptr))
        except Exception:  # noqa: BLE001 - no answer is "don't know", never a crash
            return None
        if int(err) != 0:
            return False
        kind = getattr(attrs, "type", None)
        return None if kind is None else int(kind) != 0

    def arch_capabilities(self, device: int, caps: dict) -> dict:
        pageable = caps["pageable_memory_access"]
        host_tables = caps["pageable_memory_access_uses_host_page_tables"]
        return {
            # HMM: the Linux kernel mirrors CPU page tables for the GPU (x86 + open modules)
            "hmm": bool(pageable and not host_tables),
            # ATS: the GPU walks the CPU's page tables itself (Grace Hopper, Power9)
            "ats": bool(pageable and host_tables),
        }

    def versions(self) -> dict:
        drv = int(self.call("cudaDriverGetVersion"))
        run = int(self.call("cudaRuntimeGetVersion"))
        try:
            bindings = metadata.version("cuda-bindings")
        except metadata.PackageNotFoundError:
            bindings = None
        return {
            "driver": f"{drv // 1000}.{drv % 1000 // 10}", "driver_raw": drv,
            "runtime": f"{run // 1000}.{run % 1000 // 10}", "runtime_raw": run,
            "bindings": f"cuda-bindings {bindings}" if bindings else None,
        }

    def cupy_device_id(self, ptr: int, device: int) -> int:
        # CuPy could ask cudaPointerGetAttributes, but umkit always knows the device: say it.
        return int(device)

    def counter_source(self):
        # CUPTI's unified-memory counters (process-global: one collector)
        from .counters.cupti import COLLECTOR
        return COLLECTOR

    def cupy(self):
        if self._cupy is None:
            try:
                import cupy
            except ImportError as e:
                raise BackendUnavailable(
                    f"CuPy not installed (pip install 'umkit[cu13]' or 'umkit[cu12]'): {e}") from None
            self._cupy = cupy
        return self._cupy


class CudaBackend(GPUBackend):
    """umkit on NVIDIA GPUs."""

    def __init__(self):
        super().__init__(CudaRuntime())
