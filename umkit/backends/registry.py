"""Which backend can run here, and why (or why not).

``probe(name)`` answers for one backend with a reason a person can act on; ``choose()`` picks
one (argument, else ``UMKIT_BACKEND``, else cuda -> hip -> sim); ``create(name)`` builds it.
Nothing here imports a GPU package at module import time.
"""
from __future__ import annotations

import ctypes
import os

from .. import validate as V
from ..errors import BackendUnavailable, InvalidArgument
from .contract import INTERFACE_VERSION
from .install import install_hint

NAMES = ("cuda", "hip", "sim")      #: every backend, in the order auto-detection tries them
GPU_NAMES = NAMES[:2]
ENV = "UMKIT_BACKEND"


#: why the cuda backend can't run where no NVIDIA driver is installed (before anything else:
#: installing Python packages would not help)
NO_CUDA_DRIVER = "CUDA driver missing (libcuda.so not found)"


def cuda_driver_present() -> bool:
    for lib in ("libcuda.so.1", "libcuda.so"):
        try:
            ctypes.CDLL(lib)
            return True
        except OSError:
            continue
    return False


def _probe_cuda() -> tuple[bool, str]:
    try:
        from cuda.bindings import runtime as rt
    except ImportError:
        if not cuda_driver_present():     # no NVIDIA driver: installing bindings won't help
            return False, NO_CUDA_DRIVER
        return False, f"cuda-bindings not installed ({install_hint('cuda')})"
    except (OSError, RuntimeError) as e:
        return False, f"cuda-bindings could not load: {e}"
    try:
        err, count = rt.cudaGetDeviceCount()
    except (OSError, RuntimeError) as e:
        if not cuda_driver_present():
            return False, NO_CUDA_DRIVER
        return False, f"CUDA runtime failed to start: {e}"
    code = int(err)
    if code != 0:
        name = getattr(err, "name", str(code))
        if name in ("cudaErrorInsufficientDriver", "cudaErrorStubLibrary"):
            if not cuda_driver_present():
                return False, NO_CUDA_DRIVER
            return False, (f"CUDA driver too old for cuda-bindings 13 ({name}): "
                           "update the NVIDIA driver to 580 or newer")
        if name == "cudaErrorNoDevice":
            return False, "no CUDA device visible (cudaErrorNoDevice)"
        return False, f"cudaGetDeviceCount failed: {name} ({code})"
    if count <= 0:
        return False, "no CUDA device visible"
    try:
        import cupy  # noqa: F401
    except ImportError:
        return False, f"CuPy not installed ({install_hint('cuda')})"
    except Exception as e:  # noqa: BLE001 - a broken CuPy install says many things
        return False, f"CuPy could not load: {e}"
    if getattr(cupy.cuda.runtime, "is_hip", False):
        return False, "the installed CuPy is the ROCm build; the cuda backend needs cupy-cuda13x"
    return True, f"{count} CUDA device(s) visible"


def _probe_hip() -> tuple[bool, str]:
    try:
        from hip import hip
    except ImportError:
        if not os.path.exists("/dev/kfd"):   # no ROCm kernel driver: hip-python won't help
            return False, "no AMD GPU driver on this machine (/dev/kfd not found)"
        return False, f"hip-python not installed ({install_hint('rocm')})"
    except (OSError, RuntimeError) as e:
        return False, f"hip-python could not load: {e}"
    try:
        result = hip.hipGetDeviceCount()
    except (OSError, RuntimeError) as e:
        text = str(e)
        if "amdhip64" in text or "dlopen" in text:
            return False, "hip-python installed but could not load libamdhip64.so (ROCm not installed, or its lib folder not on the loader path)"
        return False, f"HIP runtime failed to start: {text}"
    err, count = result[0], (result[1] if len(result) > 1 else 0)
    code = int(err)
    if code != 0:
        name = getattr(err, "name", str(code))
        if name == "hipErrorNoDevice":
            return False, "no AMD GPU visible (hipErrorNoDevice)"
        return False, f"hipGetDeviceCount failed: {name} ({code})"
    if count <= 0:
        return False, "no AMD GPU visible"
    try:
        import cupy
    except ImportError:
        return False, f"CuPy for ROCm not installed ({install_hint('rocm')})"
    except Exception as e:  # noqa: BLE001
        return False, f"CuPy could not load: {e}"
    if not getattr(cupy.cuda.runtime, "is_hip", False):
        return False, "the installed CuPy is the CUDA build; the hip backend needs cupy-rocm-7-0"
    return True, f"{count} AMD GPU(s) visible"


def probe(name: str) -> tuple[bool, str]:
    """``(usable, reason)`` for backend ``name`` ('cuda', 'hip' or 'sim')."""
    if name == "cuda":
        return _probe_cuda()
    if name == "hip":
        return _probe_hip()
    if name == "sim":
        return True, "the CPU model always runs"
    raise InvalidArgument(f"backend must be one of {', '.join(NAMES)}, not {name!r}")


def choose(requested: str | None = None) -> tuple[str, str]:
    """``(name, reason)``: ``requested``, else ``$UMKIT_BACKEND``, else the first usable of
    cuda, hip, sim.  A backend asked for by name that cannot run raises BackendUnavailable."""
    source = "requested"
    if requested is None:
        requested = os.environ.get(ENV) or None
        source = f"{ENV}"
    if requested is not None:
        want = str(requested).strip().lower()
        if want in ("", "auto"):
            requested = None
        elif want not in NAMES:
            arg = "name" if source == "requested" else source      # use(name=...)'s argument
            raise InvalidArgument(f"{arg}={V.shown(requested)} is not a backend; valid: "
                                  f"{', '.join(NAMES)} (or auto)", argument=arg)
        else:
            ok, reason = probe(want)
            if not ok:
                raise BackendUnavailable(f"backend {want!r} ({source}) cannot run here: {reason}")
            return want, f"{source}: {reason}"
    why = []
    for name in GPU_NAMES:
        ok, reason = probe(name)
        if ok:
            return name, reason
        why.append(f"{name}: {reason}")
    return "sim", "no GPU backend usable (" + "; ".join(why) + "): using the CPU model"


def create(name: str, **options):
    """A backend instance by name -- the one place a backend is built (the GPU ones import their
    packages only now; ``options`` are the simulator's, checked by the runtime context).  The
    backend's ``interface_version`` is checked against the contract's."""
    if name == "cuda":
        from .cuda import CudaBackend
        return check_interface(CudaBackend())
    if name == "hip":
        from .hip import HipBackend
        return check_interface(HipBackend())
    if name == "sim":
        from ..sim import SimBackend
        return check_interface(SimBackend(**options))
    raise InvalidArgument(f"backend must be one of {', '.join(NAMES)}, not {name!r}")


def check_interface(backend):
    """``backend`` if it implements this contract's version (:data:`INTERFACE_VERSION`), else a
    BackendUnavailable naming both versions (as numba-cuda checks a memory manager's)."""
    got = getattr(backend, "interface_version", None)
    if got != INTERFACE_VERSION:
        raise BackendUnavailable(
            f"backend {type(backend).__name__} implements contract version {got!r}; this umkit "
            f"needs version {INTERFACE_VERSION}",
            hint="update the backend to umkit.backends.contract's INTERFACE_VERSION")
    return backend
