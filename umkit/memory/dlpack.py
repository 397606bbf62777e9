"""DLPack export of umkit memory, without copies (the DLPack 1.x protocol, with ctypes).

Why umkit writes its own exporter instead of forwarding to CuPy's: CuPy labels managed memory
``kDLCUDAManaged`` (13), which is accurate, but PyTorch (``torch.from_dlpack``) refuses that
device type (``BufferError: Unsupported device_type: 13``).  A managed pointer is a valid
*device* pointer on the GPU it was allocated for (that is the point of unified memory), so
umkit exports managed memory as ``kDLCUDA`` by default, which every CUDA consumer accepts, and
honours an explicit request: ``__dlpack__(dl_device=(13, id))`` gets ``kDLCUDAManaged``,
``dl_device=(1, 0)`` (the CPU) gets the host view of managed or pinned memory.  On AMD the
same holds with ``kDLROCM`` (10) / ``kDLROCMHost`` (11).

The tensor keeps the :class:`~umkit.memory.array.Array` alive until the consumer calls the
deleter (or the capsule is dropped unused).  Freeing the array explicitly while a consumer
still uses the memory is a use-after-free, as with any DLPack producer.
"""
from __future__ import annotations

import ctypes
import threading

import numpy as np

from ..errors import DLPackUnsupported

kDLCPU, kDLCUDA, kDLCUDAHost, kDLROCM, kDLROCMHost, kDLCUDAManaged = 1, 2, 3, 10, 11, 13
DEVICE_NAMES = {kDLCPU: "kDLCPU", kDLCUDA: "kDLCUDA", kDLCUDAHost: "kDLCUDAHost",
                kDLROCM: "kDLROCM", kDLROCMHost: "kDLROCMHost", kDLCUDAManaged: "kDLCUDAManaged"}
VERSION = (1, 0)
_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}      # kDLInt, kDLUInt, kDLFloat, kDLComplex, kDLBool


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


# -- keeping things alive until the consumer is done -------------------------------------------------
_LIVE: dict[int, tuple] = {}          # address of the managed tensor -> (owner, structs, ...)
_LOCK = threading.Lock()


def _release(addr) -> None:
    with _LOCK:
        _LIVE.pop(int(addr or 0), None)


@DELETER
def _deleter(addr):                  # called by the consumer when it is done with the tensor
    _release(addr)


_NAME = ctypes.create_string_buffer(b"dltensor")
_NAME_V = ctypes.create_string_buffer(b"dltensor_versioned")
_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@CAPSULE_DESTRUCTOR
def _capsule_destructor(capsule):
    # A consumer that took the tensor renames the capsule ("used_dltensor") and owns it; a
    # capsule still named "dltensor" was never consumed: release what it holds.
    for name in (_NAME, _NAME_V):
        if _api.PyCapsule_IsValid(capsule, ctypes.addressof(name)):
            _release(_api.PyCapsule_GetPointer(capsule, ctypes.addressof(name)))
            return


def dtype_code(dtype) -> DLDataType:
    dt = np.dtype(dtype)
    if dt.kind not in _CODES:
        raise DLPackUnsupported(f"dtype {dt} has no DLPack type", hint="use a numeric dtype")
    return DLDataType(_CODES[dt.kind], dt.itemsize * 8, 1)


def capsule(owner, ptr: int, shape, dtype, device: tuple[int, int], *, versioned: bool,
            read_only: bool = False):
    """A DLPack capsule over ``ptr`` (C-contiguous ``shape`` of ``dtype``) on ``device``
    (device_type, device_id); ``owner`` is kept alive until the consumer deletes the tensor."""
    shape = tuple(int(n) for n in shape)
    c_shape = (ctypes.c_int64 * max(1, len(shape)))(*shape)
    t = DLTensor()
    t.data = ctypes.c_void_p(int(ptr))
    t.device = DLDevice(int(device[0]), int(device[1]))
    t.ndim = len(shape)
    t.dtype = dtype_code(dtype)
    t.shape = ctypes.cast(c_shape, ctypes.POINTER(ctypes.c_int64))
    t.strides = None                          # C-contiguous (allowed since DLPack 1.0)
    t.byte_offset = 0
    if versioned:
        m = DLManagedTensorVersioned()
        m.version = DLPackVersion(*VERSION)
        m.flags = 1 if read_only else 0        # DLPACK_FLAG_BITMASK_READ_ONLY
        m.dl_tensor = t
        name = _NAME_V
    else:
        m = DLManagedTensor()
        m.dl_tensor = t
        name = _NAME
    m.manager_ctx = None
    m.deleter = _deleter
    addr = ctypes.addressof(m)
    with _LOCK:
        _LIVE[addr] = (owner, m, c_shape)
    return _api.PyCapsule_New(addr, ctypes.addressof(name),
                              ctypes.cast(_capsule_destructor, ctypes.c_void_p))


def live_count() -> int:
    """How many exported tensors are still held by consumers (or unconsumed capsules)."""
    return len(_LIVE)


def choose_device(kind: str, vendor: str, device: int, dl_device=None) -> tuple[int, int]:
    """The DLPack device to export ``kind`` memory as: the default (managed -> kDLCUDA/kDLROCM,
    device -> same, pinned -> kDLCUDAHost/kDLROCMHost) or the consumer's ``dl_device`` request
    when the same bytes can be handed over as that device without a copy."""
    gpu_t, host_t = (kDLROCM, kDLROCMHost) if vendor == "hip" else (kDLCUDA, kDLCUDAHost)
    default = (host_t, 0) if kind == "pinned" else (gpu_t, int(device))
    if dl_device is None:
        return default
    try:
        req = (int(dl_device[0]), int(dl_device[1]))
    except (TypeError, ValueError, IndexError):
        raise DLPackUnsupported(f"dl_device={dl_device!r} is not a (device_type, device_id) pair",
                                hint="e.g. dl_device=(2, 0) for kDLCUDA device 0") from None
    ok = {default}
    if kind == "managed":
        ok |= {(gpu_t, int(device)), (kDLCPU, 0)}
        if vendor != "hip":
            ok.add((kDLCUDAManaged, int(device)))
    elif kind == "pinned":
        ok |= {(kDLCPU, 0)}
    if req not in ok:
        names = ", ".join(f"({DEVICE_NAMES.get(a, a)}, {b})" for a, b in sorted(ok))
        raise DLPackUnsupported(
            f"{kind} memory on gpu{device} cannot be exported as "
            f"({DEVICE_NAMES.get(req[0], req[0])}, {req[1]}) without a copy",
            hint=f"ask for one of {names}, or copy it (umkit.read_back(arr) for the host)")
    return req
