"""``Array``: one allocation, two views of the same pointer (the article's §3.1).

``a.host`` is a NumPy array over the bytes (the CPU side); ``a.device`` is a CuPy array over the
*same* bytes on GPU backends (on sim, a NumPy twin whose use is charged to the GPU).

Freed memory cannot be reached by another allocation through old views: every view an array
hands out keeps one *export token* alive (NumPy views through their base, CuPy views through
the memory's owner).
When the array is freed -- ``free()``, garbage collection, its pool closing -- while a view is
still held somewhere, the block is quarantined: it goes back to its pool or backend only when
the last view is gone, so no later allocation can get those bytes while an old view can still
write them.  After ``free()`` the backend is told at once (``Backend.retire``): sim then refuses
every read or write through the old views with ``UseAfterFree``; on a GPU a write through one
reaches only the held-back block.  (A view of an array that was only garbage-collected stays
valid, as a NumPy view keeps its base.)
"""
from __future__ import annotations

import math
import threading
import weakref

import numpy as np

from .. import validate as V
from ..backends.contract import KINDS, MAX_PTR, Backend
from ..errors import InvalidArgument, InvalidType, UseAfterFree
from ..runtime import RUNTIME
from ..runtime.streams import stream_handle


class _Export:
    """The object every view of one array keeps alive (see the module docstring)."""
    __slots__ = ("raw", "__weakref__")

    def __init__(self, raw=None):
        self.raw = raw

    @property
    def __array_interface__(self):
        # the ndarray's own interface: a host view may answer ``.__array_interface__`` with a
        # check of its own (the simulator's views refuse raw pointers while work is in flight)
        return np.ndarray.__array_interface__.__get__(self.raw)


def _as_exported(raw, token: _Export):
    """A NumPy view equal to ``raw`` whose base chain ends at ``token`` (so every view derived
    from it keeps ``token`` alive)."""
    if not isinstance(raw, np.ndarray):
        return raw                     # CuPy: the backend made ``token`` the memory's owner
    token.raw = raw                    # keeps raw's memory alive as long as any view lives
    v = np.asarray(token)
    if type(raw) is not np.ndarray:
        v = v.view(type(raw))
        v.__array_finalize__(raw)      # the subclass's own state (sim: what to charge)
    return v


class _Block:
    """What freeing an array needs: where to give the block back, whom to tell that its views
    are stale (``retire``), and the views' token."""
    __slots__ = ("release", "retire", "ptr", "kind", "token")

    def __init__(self, release, ptr, kind, retire=None):
        self.release, self.retire, self.ptr, self.kind = release, retire, ptr, kind
        self.token = None

    def live_token(self):
        """The views' token while any view is alive, else None."""
        return self.token() if self.token is not None else None


def _release_block(block: _Block):
    """Give the block back now, or -- while a view of it is alive -- when the last one dies."""
    tok, block.token = block.live_token(), None
    if tok is not None:
        weakref.finalize(tok, _free_quietly, block.release, block.ptr, block.kind)
    else:
        _free_quietly(block.release, block.ptr, block.kind)


def weak_release(backend):
    """A release function for an Array that ``backend`` itself keeps (a per-backend resource
    such as the touch sink): it frees through the backend while the backend lives, and does
    nothing after (the backend's memory went with it).  With ``backend.free`` itself, the
    finalizer's registry would keep the backend alive for as long as the Array, which the
    backend keeps: forever."""
    ref = weakref.WeakMethod(backend.free)

    def release(ptr, kind):
        free = ref()
        if free is not None:
            free(ptr, kind)
    return release


def _free_quietly(release, ptr, kind):
    try:
        release(ptr, kind)
    except Exception:  # noqa: BLE001 - never raise from a finalizer
        pass


_MAKE = ("make an array with umkit.managed(shape, dtype), umkit.empty(...), "
         "umkit.device_array(...) or umkit.pinned(...)")


def _check_made_by_umkit(backend, ptr, nbytes, shape, dtype, kind, device, release=None):
    """The constructor is the memory layer's (the allocation functions call it with what a
    backend returned): plain values typed at it are refused, saying how to make an array."""
    if not isinstance(backend, Backend):
        raise InvalidType(f"umkit.Array(backend={V.shown(backend)}, ...): an Array is made by "
                          "umkit's allocation functions, not by calling the class",
                          argument="backend", hint=_MAKE)
    for name, v in (("ptr", ptr), ("nbytes", nbytes), ("device", device)):
        if not V.is_int(v) or v < 0 or v > (1 << 64):
            raise InvalidType(f"umkit.Array({name}={V.shown(v)}): not an allocation umkit made",
                              argument=name, hint=_MAKE)
    if kind not in KINDS if isinstance(kind, str) else True:
        raise InvalidType(f"umkit.Array(kind={V.shown(kind)}): not one of {KINDS}",
                          argument="kind", hint=_MAKE)
    if not isinstance(shape, tuple) or not all(V.is_int(n) and n >= 0 for n in shape):
        raise InvalidType(f"umkit.Array(shape={V.shown(shape)}): not a tuple of sizes",
                          argument="shape", hint=_MAKE)
    dt = V.dtype(dtype)
    need = V.nbytes_of(tuple(int(n) for n in shape), dt)
    if nbytes != need or ptr + nbytes > MAX_PTR + 1:
        raise InvalidArgument(f"umkit.Array(nbytes={V.shown(nbytes)}): shape {V.shown(shape)} of "
                              f"{dt} needs {need} B at {V.shown(ptr)}", argument="nbytes",
                              hint=_MAKE)
    V.callback(release, "release")


def _dlpack_arguments(stream, max_version, dl_device, copy) -> None:
    """The DLPack protocol's arguments, typed: ``stream`` an int (or None), ``max_version`` and
    ``dl_device`` pairs of ints, ``copy`` a bool."""
    if stream is not None:
        V.integer(stream, "stream", lo=-1, hi=(1 << 64) - 1,
                  hint="the consumer's stream as an int (DLPack), or None")
    for name, v in (("max_version", max_version), ("dl_device", dl_device)):
        if v is not None and not (isinstance(v, tuple) and len(v) == 2 and
                                  all(V.is_int(x) and 0 <= x < (1 << 31) for x in v)):
            raise InvalidType(f"{name}={V.shown(v)} must be a pair of small ints", argument=name,
                              hint=f"e.g. {name}=(1, 0)" if name == "max_version" else
                                   "e.g. dl_device=(1, 0) (the CPU)")
    if copy is not None:
        V.flag(copy, "copy")


class Array:
    """Memory from one allocation with a host view and a device view of the same pointer."""

    def __init__(self, backend, ptr: int, nbytes: int, shape, dtype, kind: str, device: int,
                 release=None, keep=None):
        _check_made_by_umkit(backend, ptr, nbytes, shape, dtype, kind, device, release)
        self.backend, self.ptr, self.nbytes = backend, ptr, nbytes
        self.shape, self.dtype, self.kind, self.device_id = shape, np.dtype(dtype), kind, device
        self._block = _Block(release or backend.free, ptr, kind,
                             None if release is not None else backend.retire)
        self._finalizer = weakref.finalize(self, _release_block, self._block)
        self._host = self._device = None
        self._lock = threading.Lock()
        self.advice: set = set()
        self.last_prefetch = None
        self.keep = keep          # the memory's owner, kept alive with the array (a torch tensor)

    # -- the two views ---------------------------------------------------------------------
    def check_alive(self, what: str):
        """Raise UseAfterFree naming ``what`` (the operation) if this array was freed."""
        if what.__class__ is not str:
            raise InvalidType(f"what={V.shown(what)} must be a string", argument="what",
                              hint="the operation, e.g. a.check_alive('my kernel')")
        if not self._finalizer.alive:
            raise UseAfterFree(f"{what} on a freed array (ptr {self.ptr:#x})",
                               hint="allocate a new array; a freed one cannot be used again")

    def _token(self) -> _Export:
        tok = self._block.live_token()
        if tok is None:
            tok = _Export()
            self._block.token = weakref.ref(tok)
        return tok

    @property
    def host(self):
        """NumPy view of the bytes, CPU side (touching it may fault pages back to the CPU)."""
        self.check_alive("host access")
        if self.kind == "device" and not self.backend.capabilities(self.device_id).get(
                "device_memory_host_access", False):
            raise InvalidArgument("device memory (hipMalloc) has no host view",
                                  hint="use umkit.read_back(arr) to copy it to the host")
        # a fresh view each time, so the backend sees every hand-out (the simulator checks it
        # against GPU work in flight: NumPy's C paths such as np.array(a.host) have no hook)
        with self._lock:
            raw = self.backend.host_view(self.ptr, self.nbytes)
            return _as_exported(raw, self._token()).view(self.dtype).reshape(self.shape)

    @property
    def device(self):
        """Array-module view of the same bytes, GPU side (CuPy on real GPUs)."""
        d = self._device
        if d is not None and self._finalizer.alive:
            return d
        self.check_alive("device access")
        with self._lock:
            if self._device is None:
                tok = self._token()
                raw = self.backend.device_view(self.ptr, self.nbytes, self.device_id, owner=tok)
                self._device = _as_exported(raw, tok).view(self.dtype).reshape(self.shape)
            return self._device

    # -- migration: prefetch, advice, range attributes (validated here, once) -------------------
    def prefetch(self, to="gpu", stream=None, *, offset: int = 0, nbytes: int | None = None):
        """Move the pages to ``to`` ahead of use (hipMemPrefetchAsync): 'gpu', 'gpu1' or 'cpu';
        asynchronous on ``stream``.  ``offset`` / ``nbytes`` pick a byte range."""
        x = require_managed(self, "prefetch")
        b = x.backend
        loc = V.location(to, "to", b.device_count())
        off, n = V.byte_range(x.nbytes, offset, nbytes)
        b.prefetch(x.ptr + off, n, loc, stream_handle(stream, b))
        x.last_prefetch = loc
        x._note_pool(last_prefetch=str(loc))
        return self

    def advise(self, advice: str, where="gpu", unset: bool = False, *, offset: int = 0,
               nbytes: int | None = None):
        """Declare intent (hipMemAdvise): 'read_mostly', 'preferred_location', 'accessed_by',
        'coarse_grain' (HIP only); ``unset=True`` removes it.  Advice first, then prefetch (§4.4)."""
        x = require_managed(self, "advise")
        a = V.advice(advice)
        unset = V.flag(unset, "unset")
        loc = V.location(where, "where", x.backend.device_count())
        off, n = V.byte_range(x.nbytes, offset, nbytes)
        x.backend.advise(x.ptr + off, n, a, loc, unset)
        (x.advice.discard if unset else x.advice.add)(a if a == "read_mostly" else f"{a}:{loc}")
        x._note_pool()
        return self

    def attributes(self) -> dict:
        """Range attributes: read_mostly, preferred_location, last_prefetch_location, accessed_by."""
        x = require_managed(self, "attributes")
        return x.backend.range_attributes(x.ptr, x.nbytes)

    def _note_pool(self, last_prefetch=None):
        pool = RUNTIME.current_pool()
        if pool is not None:
            pool.note(self.ptr, advice=self.advice, last_prefetch=last_prefetch)

    def free(self):
        """Free now (arrays also free themselves when garbage-collected). A second free raises."""
        if not self._finalizer.alive:
            raise UseAfterFree(f"double free of array at {self.ptr:#x}",
                               hint="free each array once (or let Python free it)")
        self._host = self._device = None
        b = self._block
        if b.retire is not None and b.live_token() is not None:
            # freed on purpose while views live: they are stale (a view of an array that was
            # only garbage-collected stays valid, as a NumPy view keeps its base)
            _free_quietly(b.retire, b.ptr, b.kind)
        self._finalizer()

    def disown(self):
        """For the pool closing under this array: mark it freed without giving the block back
        (the pool does that).  Returns the object whose death ends the last view still out
        (free the block then), or None when no view is alive."""
        tok = self._block.live_token()
        self._finalizer.detach()
        self._host = self._device = None
        return tok

    @property
    def freed(self) -> bool:
        return not self._finalizer.alive

    # -- interop: hand the device view to other libraries without copies -------------------------------
    # sim: the device view (a NumPy twin) speaks for the array.  GPUs: umkit describes the
    # pointer itself (memory/dlpack.py says why: PyTorch refuses CuPy's kDLCUDAManaged).
    def _simulated(self) -> bool:
        return self.backend.supports("model_time")

    @property
    def __cuda_array_interface__(self):
        """Version 3 of the CUDA Array Interface: shape, typestr, data (pointer, read-only
        False), C-contiguous (strides None) and ``stream`` 1 -- the legacy default stream, which
        is ordered after all work umkit queued on its (blocking) streams, so a consumer that
        waits on it sees the finished data."""
        if self._simulated():
            return self.device.__cuda_array_interface__     # sim: AttributeError (no GPU)
        self.check_alive("__cuda_array_interface__")
        return {"shape": tuple(self.shape), "typestr": self.dtype.str,
                "data": (int(self.ptr), False), "strides": None, "version": 3, "stream": 1}

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """DLPack export without a copy.  Managed memory goes out as a device pointer
        (kDLCUDA / kDLROCM) unless ``dl_device`` asks for kDLCUDAManaged or the CPU."""
        from . import dlpack
        _dlpack_arguments(stream, max_version, dl_device, copy)
        if self._simulated():
            if stream is not None:
                raise InvalidArgument(f"stream={V.shown(stream)}: the simulator's arrays are "
                                      "NumPy memory, which has no stream to wait on",
                                      argument="stream", hint="pass stream=None on sim")
            kw = {k: v for k, v in (("max_version", max_version), ("dl_device", dl_device),
                                    ("copy", copy)) if v is not None}
            try:
                return self.device.__dlpack__(**kw)
            except (BufferError, ValueError, TypeError) as e:
                raise dlpack.DLPackUnsupported(f"the simulator's NumPy memory cannot be exported "
                                               f"so: {V.clean(e, 160)}",
                                               hint="call a.__dlpack__() with no arguments on sim") \
                    from None
        self.check_alive("__dlpack__")
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

    # -- not a NumPy array: say which view to use instead of failing quietly or vaguely --------
    def _not_an_ndarray(self, what: str):
        raise InvalidType(
            f"{what} on a umkit.Array: it is memory with two views, not an array of numbers",
            argument="a", hint="use a.host (the CPU's NumPy view: a.host[0], a.host + 1, "
                               "np.sum(a.host)) or a.device (the GPU's), or umkit.read_back(a) "
                               "for a copy on the host")

    def __array__(self, dtype=None, copy=None):
        self._not_an_ndarray("np.asarray / np.array")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        self._not_an_ndarray(f"np.{ufunc.__name__}")

    def __array_function__(self, func, types, args, kwargs):
        self._not_an_ndarray(f"np.{func.__name__}")

    def __getitem__(self, key):
        self._not_an_ndarray("indexing (a[...])")

    def __setitem__(self, key, value):
        self._not_an_ndarray("assigning through an index (a[...] = ...)")

    def __iter__(self):
        self._not_an_ndarray("iterating")

    def _arith(self, other):
        self._not_an_ndarray("arithmetic")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _arith
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _arith
    __pow__ = __rpow__ = __matmul__ = __rmatmul__ = _arith     # a += 1 falls back to __add__

    def __neg__(self):
        self._not_an_ndarray("arithmetic")

    def __repr__(self):
        state = "freed" if self.freed else f"{self.ptr:#x}"
        return (f"umkit.Array({self.kind}, shape={self.shape}, dtype={self.dtype}, "
                f"{self.nbytes} B, {self.backend.name}, {state})")


def require_array(x, what: str, argument: str = "x") -> Array:
    """``x`` as a live umkit.Array; ``what`` (the call) and ``argument`` (its parameter) name
    it in the error."""
    from ..errors import InvalidType
    if not isinstance(x, Array):
        raise InvalidType(f"{what} needs a umkit.Array, got {type(x).__name__}", argument=argument,
                          hint="allocate with umkit.managed(...), umkit.device_array(...) or umkit.pinned(...)")
    x.check_alive(what)
    return x


def require_managed(x, what: str, argument: str = "x") -> Array:
    from ..errors import NotManaged
    x = require_array(x, what, argument)
    if x.kind != "managed":
        raise NotManaged(f"{what} needs managed memory; this array is {x.kind} memory",
                         hint="only hipMallocManaged memory migrates: allocate with umkit.managed(...)")
    return x


__all__ = ["Array", "require_array", "require_managed"]
