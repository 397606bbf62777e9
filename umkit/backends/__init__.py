"""The GPU backends behind one API: the contract every backend meets, the GPU backend over its
two runtime adapters (HIP, CUDA), the registry that picks one, the CUDA<->HIP names table."""
from ..doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "Location": "contract",
    "CPU": "contract",
    "ADVICE": "contract",
    "FEATURES": "contract",
    "INTERFACE_VERSION": "contract",
    "GPUBackend": "gpu",
    "GpuEvent": "gpu",
    "GpuStream": "gpu",
    "RuntimeAdapter": "gpu",
    "RuntimeOutOfMemory": "gpu",
    "ADVICE_NAMES": "gpu",
    "CudaBackend": "cuda",
    "CudaRuntime": "cuda",
    "HipBackend": "hip",
    "HipRuntime": "hip",
    "probe": "registry",
    "choose": "registry",
    "create": "registry",
    "check_interface": "registry",
    "cuda_driver_present": "registry",
    "install_hint": "install",
    "names": ".",
    "counters": ".",
    "kernels": ".",
    "NAMES": "registry",
    "GPU_NAMES": "registry",
    "registry": ".",
})
