"""umkit: GPU unified (managed) memory -- hipMallocManaged / cudaMallocManaged -- taught and made
usable, over three backends: ``hip``, ``cuda`` and ``sim`` (a calibrated CPU model).

    import umkit
    a = umkit.managed(1 << 20)          # one pointer, both sides (§3.1)
    a.host[:] = 1                       # CPU writes
    a.prefetch("gpu")                   # inhale (§2.3)
    umkit.increment(a); umkit.synchronize()
    print(a.host[:4], umkit.counters())
"""
__version__ = "0.1.0"

from .backends.contract import CPU, Location  # noqa: E402
from .memory.locations import gpu  # noqa: E402
from .errors import (BackendError, BackendUnavailable, InvalidArgument, InvalidType,  # noqa: E402
                     NotManaged, OutOfMemory, RaceDetected, UmkitError, UseAfterFree)
from .memory.array import Array  # noqa: E402
from .sim.engine import RaceWarning  # noqa: E402  (a warning class, so learners can filter it)
from .memory.pool import MemoryPool  # noqa: E402
from .runtime import backend, backend_name, use, using, why  # noqa: E402
from .api import (Event, Residency, Stream, add, advise, allow_oversubscription,  # noqa: E402
                  array_module, attributes, capabilities, counters, counters_off,
                  counters_on, device_array, device_count,
                  empty, fill, increment, managed, mem_info, now, pinned, prefetch, read_back,
                  reset_counters, residency, sim_profile, synchronize, timer, touch, trace, copy)
from .backends import names  # noqa: E402  (the HIP<->CUDA table: data, not a backend)
from .api import kernel_device, pageable  # noqa: E402
from .custom import Kernel, kernel  # noqa: E402
from . import workloads, ecg, plots, recorder  # noqa: E402


def explain(error_or_code, **kwargs):
    """What an error means and what to do (the article's §5.1 table)."""
    from .explaining import explain as _explain
    return _explain(error_or_code, **kwargs)

from .doctor import doctor  # noqa: E402  (bound after the submodule, so umkit.doctor is the function)


__all__ = [
    # memory
    "Array", "MemoryPool", "empty", "managed", "device_array", "pinned", "pageable", "copy",
    "read_back", "fill", "increment", "add", "touch", "kernel", "Kernel", "kernel_device",
    # migration
    "prefetch", "advise", "attributes", "residency", "Residency", "CPU", "gpu", "Location",
    # streams, events, time
    "Stream", "Event", "synchronize", "timer", "now",
    # devices and backends
    "use", "using", "backend", "backend_name", "why", "capabilities", "mem_info",
    "device_count", "array_module", "allow_oversubscription", "sim_profile", "doctor",
    # the driver's view
    "counters", "counters_on", "counters_off", "reset_counters", "trace", "explain",
    # errors and warnings
    "UmkitError", "InvalidArgument", "InvalidType", "BackendUnavailable", "BackendError",
    "OutOfMemory", "UseAfterFree", "NotManaged", "RaceDetected", "RaceWarning",
    # modules
    "names", "workloads", "ecg", "plots", "recorder", "widgets", "examples", "torch",
]


def __getattr__(name):
    if name in ("widgets", "examples", "torch"):  # imported on first use (ipywidgets and
        import importlib               # PyTorch are heavy; examples also runs as
        return importlib.import_module("." + name, __name__)   # `python -m umkit.examples`)
    raise AttributeError(f"module 'umkit' has no attribute {name!r}")
