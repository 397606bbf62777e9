"""Interop with frameworks: PyTorch's allocator over managed memory (CUDA and ROCm builds) and the
shim it builds."""
from ..doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "torch": ".",
    "torch_rocm": ".",
    "shim": ".",
})
