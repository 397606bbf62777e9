"""``Array``: one allocation, two views of the same pointer (the article's §3.1).

``a.host`` is a NumPy array over the bytes (the CPU side); ``a.device`` is a CuPy array over the
*same* bytes on GPU backends (on sim, a NumPy twin whose use is charged to the GPU).
"""
from __future__ import annotations

import math
import weakref
from numbers import Integral

import numpy as np

from ..backends.contract import ADVICE, KINDS, Location
from ..errors import InvalidArgument, InvalidType, NotManaged, UseAfterFree
from .locations import as_location

MAX_BYTES = 1 << 48          # 256 TiB: beyond any machine; catches unit mistakes early
ADVICE_ALIASES = {"readmostly": "read_mostly", "read-mostly": "read_mostly",
                  "preferred": "preferred_location", "preferredlocation": "preferred_location",
                  "preferred-location": "preferred_location", "accessedby": "accessed_by",
                  "accessed-by": "accessed_by", "coarsegrain": "coarse_grain",
                  "coarse-grain": "coarse_grain"}


def check_dtype(dtype) -> np.dtype:
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        raise InvalidType(f"dtype={dtype!r} is not a NumPy dtype ({e})",
                          hint="use e.g. 'float32', np.float16, 'int64'") from None
    if dt.kind not in "biufc" or dt.hasobject or dt.fields:
        raise InvalidType(f"dtype={dt} is not supported in GPU memory",
                          hint="use a numeric dtype: bool, int*, uint*, float*, complex*")
    return dt


def check_shape(shape) -> tuple[int, ...]:
    if isinstance(shape, bool):
        raise InvalidType(f"shape={shape!r} is not a size", hint="pass an int or a tuple of ints")
    if isinstance(shape, Integral):
        shape = (int(shape),)
    try:
        shape = tuple(shape)
    except TypeError:
        raise InvalidType(f"shape={shape!r} is not a size",
                          hint="pass an int (elements) or a tuple of ints, e.g. (1024, 1024)") from None
    if not shape:
        raise InvalidArgument("shape=() would hold a single scalar", hint="use shape=1")
    for n in shape:
        if isinstance(n, bool) or not isinstance(n, Integral):
            raise InvalidType(f"shape={shape!r}: {n!r} is not an integer",
                              hint="sizes count elements: use ints, e.g. umkit.managed(2**20)")
        if n <= 0:
            raise InvalidArgument(f"shape={shape!r}: every dimension must be > 0 (got {n})",
                                  hint="allocate at least one element")
    return tuple(int(n) for n in shape)


def check_advice(advice: str) -> str:
    if not isinstance(advice, str):
        raise InvalidType(f"advice={advice!r} must be a string", hint=f"one of {ADVICE}")
    a = advice.strip().lower().replace(" ", "_")
    for prefix in ("hipmemadviseset", "cudamemadviseset", "set"):
        if a.startswith(prefix):
            a = a[len(prefix):]
    a = ADVICE_ALIASES.get(a, a)
    if a not in ADVICE:
        raise InvalidArgument(f"advice={advice!r} is unknown", hint=f"use one of {ADVICE}")
    return a


class Array:
    """Memory from one allocation with a host view and a device view of the same pointer."""

    def __init__(self, backend, ptr: int, nbytes: int, shape, dtype, kind: str, device: int,
                 release=None):
        self.backend, self.ptr, self.nbytes = backend, ptr, nbytes
        self.shape, self.dtype, self.kind, self.device_id = shape, np.dtype(dtype), kind, device
        self._release = release or (lambda p, k: backend.free(p, k))
        self._finalizer = weakref.finalize(self, _free_quietly, self._release, ptr, kind)
        self._host = self._device = None
        self.advice: set = set()
        self.last_prefetch: Location | None = None

    # -- the two views ---------------------------------------------------------------------
    def _alive(self, what: str):
        if not self._finalizer.alive:
            raise UseAfterFree(f"{what} on a freed array (ptr {self.ptr:#x})",
                               hint="allocate a new array; a freed one cannot be used again")

    @property
    def host(self):
        """NumPy view of the bytes, CPU side (touching it may fault pages back to the CPU)."""
        self._alive("host access")
        if self.kind == "device":
            raise InvalidArgument("device memory (hipMalloc) has no host view",
                                  hint="use umkit.read_back(arr) to copy it to the host")
        if self._host is None:
            self._host = self.backend.host_view(self.ptr, self.nbytes).view(self.dtype).reshape(self.shape)
        return self._host

    @property
    def device(self):
        """Array-module view of the same bytes, GPU side (CuPy on real GPUs)."""
        self._alive("device access")
        if self._device is None:
            self._device = self.backend.device_view(self.ptr, self.nbytes, self.device_id) \
                .view(self.dtype).reshape(self.shape)
        return self._device

    # -- migration ----------------------------------------------------------------------------
    def prefetch(self, to="gpu", stream=None):
        """Move the pages to ``to`` ahead of use (hipMemPrefetchAsync); asynchronous on ``stream``."""
        from .. import api
        api.prefetch(self, to, stream=stream)
        return self

    def advise(self, advice: str, where="gpu", unset: bool = False):
        """Declare intent (hipMemAdvise): read_mostly, preferred_location, accessed_by, coarse_grain."""
        from .. import api
        api.advise(self, advice, where, unset=unset)
        return self

    def attributes(self) -> dict:
        from .. import api
        return api.attributes(self)

    def free(self):
        """Free now (arrays also free themselves when garbage-collected). A second free raises."""
        if not self._finalizer.alive:
            raise UseAfterFree(f"double free of array at {self.ptr:#x}",
                               hint="free each array once (or let Python free it)")
        self._host = self._device = None
        self._finalizer()

    @property
    def freed(self) -> bool:
        return not self._finalizer.alive

    # -- interop: hand the device view to other libraries without copies -------------------------------
    # sim: the device view (a NumPy twin) speaks for the array.  GPUs: umkit describes the
    # pointer itself (memory/dlpack.py says why: PyTorch refuses CuPy's kDLCUDAManaged).
    def _simulated(self) -> bool:
        return bool(getattr(self.backend, "model_time", False))

    @property
    def __cuda_array_interface__(self):
        """Version 3 of the CUDA Array Interface: shape, typestr, data (pointer, read-only
        False), C-contiguous (strides None) and ``stream`` 1 -- the legacy default stream, which
        is ordered after all work umkit queued on its (blocking) streams, so a consumer that
        waits on it sees the finished data."""
        if self._simulated():
            return self.device.__cuda_array_interface__     # sim: AttributeError (no GPU)
        self._alive("__cuda_array_interface__")
        return {"shape": tuple(self.shape), "typestr": self.dtype.str,
                "data": (int(self.ptr), False), "strides": None, "version": 3, "stream": 1}

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """DLPack export without a copy.  Managed memory goes out as a device pointer
        (kDLCUDA / kDLROCM) unless ``dl_device`` asks for kDLCUDAManaged or the CPU."""
        if self._simulated():
            kw = {k: v for k, v in (("stream", stream), ("max_version", max_version),
                                    ("dl_device", dl_device), ("copy", copy)) if v is not None}
            return self.device.__dlpack__(**kw)
        from . import dlpack
        self._alive("__dlpack__")
        if copy is True:
            raise dlpack.DLPackUnsupported("umkit exports its memory without copies (copy=True)",
                                           hint="copy on the consumer's side, or use umkit.copy")
        dev = dlpack.choose_device(self.kind, self.backend.name, self.device_id, dl_device)
        if stream is not None and stream != -1 and dev[0] != dlpack.kDLCPU:
            # the consumer will use the data on `stream`: make it safe.  The legacy default
            # stream (1 on CUDA, 0 on HIP) is ordered after umkit's blocking streams already;
            # any other stream gets a device-wide synchronize (a one-off cost per export).
            if not (stream == 1 or (self.backend.name == "hip" and stream == 0)):
                self.backend.synchronize(None)
        elif dev[0] == dlpack.kDLCPU:
            self.backend.synchronize(None)       # the CPU reads it next: GPU work must be done
        versioned = max_version is not None and tuple(max_version)[:1] >= (1,)
        return dlpack.capsule(self, self.ptr, self.shape, self.dtype, dev, versioned=versioned)

    def __dlpack_device__(self):
        if self._simulated():
            return self.device.__dlpack_device__()
        from . import dlpack
        return dlpack.choose_device(self.kind, self.backend.name, self.device_id)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.freed:
            self.free()

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        state = "freed" if self.freed else f"{self.ptr:#x}"
        return (f"umkit.Array({self.kind}, shape={self.shape}, dtype={self.dtype}, "
                f"{self.nbytes} B, {self.backend.name}, {state})")


def _free_quietly(release, ptr, kind):
    try:
        release(ptr, kind)
    except Exception:  # noqa: BLE001 - never raise from a finalizer (it would kill nothing, but
        pass           # a warning at interpreter exit helps nobody)


def require_array(x, what: str) -> Array:
    if not isinstance(x, Array):
        raise InvalidType(f"{what} needs a umkit.Array, got {type(x).__name__}",
                          hint="allocate with umkit.managed(...), umkit.device_array(...) or umkit.pinned(...)")
    x._alive(what)
    return x


def require_managed(x, what: str) -> Array:
    x = require_array(x, what)
    if x.kind != "managed":
        raise NotManaged(f"{what} needs managed memory; this array is {x.kind} memory",
                         hint="only hipMallocManaged memory migrates: allocate with umkit.managed(...)")
    return x


__all__ = ["Array", "KINDS", "check_dtype", "check_shape", "check_advice", "as_location"]
