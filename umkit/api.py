"""The public API: everything a notebook, widget or CLI calls (re-exported by ``umkit``)."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .backends.contract import CPU, Location
from .errors import InvalidArgument, InvalidType
from .memory.array import (MAX_BYTES, Array, check_advice, check_dtype, check_shape,
                           require_array, require_managed)
from .memory.locations import as_location
from .runtime import _state, backend

BLOCK = 256
READ_GRID = 2112          # 16 blocks per SM on a 132-SM H200: enough to saturate any current GPU


# -- allocation ------------------------------------------------------------------------------------
def empty(shape, dtype="float32", kind: str = "managed", device: int = 0) -> Array:
    """Allocate ``kind`` memory: 'managed' (hipMallocManaged), 'device' (hipMalloc) or
    'pinned' (hipHostMalloc, read by the GPU zero-copy)."""
    if kind not in ("managed", "device", "pinned"):
        raise InvalidArgument(f"kind={kind!r} is unknown", hint="use 'managed', 'device' or 'pinned'")
    shape, dt = check_shape(shape), check_dtype(dtype)
    nbytes = math.prod(shape) * dt.itemsize
    if nbytes > MAX_BYTES:
        raise InvalidArgument(f"{nbytes} B is larger than any machine's memory",
                              hint="sizes count elements, not bytes: check the shape")
    b = backend()
    if isinstance(device, bool) or not isinstance(device, (int, np.integer)):
        raise InvalidType(f"device={device!r} must be an int", hint="use 0 for the first GPU")
    if not 0 <= device < b.device_count():
        raise InvalidArgument(f"device={device} does not exist ({b.device_count()} GPU(s) here)",
                              hint=f"use 0..{b.device_count() - 1}")
    pool = _state.get("pool")
    if pool is not None and pool.kind == kind and pool.device == device and pool.backend is b:
        ptr = pool.allocate(nbytes, owner=f"{kind}{shape}")
        return Array(b, ptr, nbytes, shape, dt, kind, device, release=pool.free)
    ptr = b.malloc(nbytes, kind, int(device))
    return Array(b, ptr, nbytes, shape, dt, kind, int(device))


def managed(shape, dtype="float32", device: int = 0) -> Array:
    """Managed memory (hipMallocManaged / cudaMallocManaged): one pointer for CPU and GPU."""
    return empty(shape, dtype, "managed", device)


def device_array(shape, dtype="float32", device: int = 0) -> Array:
    """Device memory (hipMalloc / cudaMalloc): never migrates, the CPU can't touch it."""
    return empty(shape, dtype, "device", device)


def pinned(shape, dtype="float32", device: int = 0) -> Array:
    """Pinned host memory (hipHostMalloc): stays on the host; the GPU reads it over the link."""
    return empty(shape, dtype, "pinned", device)


def pageable(shape, dtype="float32") -> np.ndarray:
    """Ordinary host memory (malloc / a NumPy array): the GPU cannot read it, copies from it are
    staged by the driver (``umkit.copy(dev, host_array)``).  A NumPy array on every backend; on
    sim its CPU reads and writes cost model time like any host memory."""
    shape, dt = check_shape(shape), check_dtype(dtype)
    nbytes = math.prod(shape) * dt.itemsize
    if nbytes > MAX_BYTES:
        raise InvalidArgument(f"{nbytes} B is larger than any machine's memory",
                              hint="sizes count elements, not bytes: check the shape")
    b = backend()
    if hasattr(b, "pageable"):
        return b.pageable(nbytes)[:nbytes].view(dt).reshape(shape)
    return np.zeros(shape, dt)


# -- migration --------------------------------------------------------------------------------------
def _stream_handle(stream, b=None):
    if stream is None:
        return None
    if isinstance(stream, Stream):
        if b is not None and stream.backend is not b:
            raise InvalidArgument(f"stream={stream!r} belongs to another backend than the memory "
                                  "it is used with (created before a umkit.use(...) call?)",
                                  hint="create the stream after umkit.use(...), with the arrays")
        return stream.handle
    raise InvalidType(f"stream={stream!r} is not a umkit.Stream", hint="create one with umkit.Stream()")


def _same_backend(first: Array, **others: Array) -> None:
    """Arrays passed to one call must come from one backend (a umkit.use(...) call in between
    makes a new backend whose pointers can alias the old one's)."""
    for name, x in others.items():
        if x.backend is not first.backend:
            raise InvalidArgument(f"{name} was allocated on another backend instance "
                                  f"({x.backend.name}) than the other arrays "
                                  f"({first.backend.name}); each umkit.use(...) call starts a "
                                  "new backend",
                                  hint="allocate all arrays of one computation after the last "
                                       "umkit.use(...)")


def _span(x: Array, offset: int, nbytes):
    for name, v in (("offset", offset), ("nbytes", nbytes)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer))):
            raise InvalidType(f"{name}={v!r} must be an int (bytes)",
                              hint="byte ranges are whole numbers of bytes, e.g. offset=0, "
                                   "nbytes=arr.nbytes // 2")
    nbytes = x.nbytes - offset if nbytes is None else int(nbytes)
    if offset < 0 or nbytes <= 0 or offset + nbytes > x.nbytes:
        raise InvalidArgument(f"byte range offset={offset}, nbytes={nbytes} is outside the "
                              f"array's {x.nbytes} B", hint="0 <= offset < offset+nbytes <= arr.nbytes")
    return x.ptr + int(offset), nbytes


def prefetch(x: Array, to="gpu", *, stream=None, offset: int = 0, nbytes: int | None = None):
    """Migrate pages ahead of use (hipMemPrefetchAsync): to 'gpu', 'gpu1', or 'cpu'."""
    x = require_managed(x, "prefetch")
    loc = as_location(to, "to")
    if loc.kind == "device" and loc.id >= x.backend.device_count():
        raise InvalidArgument(f"to={to!r}: device {loc.id} does not exist "
                              f"({x.backend.device_count()} GPU(s))", hint="use a valid device number")
    ptr, n = _span(x, offset, nbytes)
    x.backend.prefetch(ptr, n, loc, _stream_handle(stream, x.backend))
    x.last_prefetch = loc
    _registry_note(x, last_prefetch=str(loc))


def advise(x: Array, advice: str, where="gpu", *, unset: bool = False, offset: int = 0,
           nbytes: int | None = None):
    """Declare intent (hipMemAdvise): 'read_mostly', 'preferred_location', 'accessed_by',
    'coarse_grain' (HIP only); ``unset=True`` removes it.  Advice first, then prefetch (§4.4)."""
    x = require_managed(x, "advise")
    a = check_advice(advice)
    loc = as_location(where, "where")
    if loc.kind == "device" and loc.id >= x.backend.device_count():
        raise InvalidArgument(f"where={where!r}: device {loc.id} does not exist", hint="use a valid device")
    ptr, n = _span(x, offset, nbytes)
    x.backend.advise(ptr, n, a, loc, bool(unset))
    (x.advice.discard if unset else x.advice.add)(a if a == "read_mostly" else f"{a}:{loc}")
    _registry_note(x)


def _registry_note(x: Array, last_prefetch=None):
    pool = _state.get("pool")
    if pool is not None:
        pool.note(x.ptr, advice=x.advice, last_prefetch=last_prefetch)


def attributes(x: Array) -> dict:
    """Range attributes: read_mostly, preferred_location, last_prefetch_location, accessed_by."""
    x = require_managed(x, "attributes")
    return x.backend.range_attributes(x.ptr, x.nbytes)


@dataclass
class Residency:
    """Where an array's pages live.  ``codes``: one per host page, 0 unpopulated, 1 CPU,
    2 GPU, 3 both (read-mostly copies); None where the hardware can't tell."""
    codes: np.ndarray | None
    page_bytes: int
    source: str

    def summary(self) -> dict:
        if self.codes is None:
            return {}
        n = max(1, self.codes.size)
        return {k: round(float(np.count_nonzero(self.codes == v)) / n, 4)
                for k, v in (("unpopulated", 0), ("cpu", 1), ("gpu", 2), ("both", 3))}


def residency(x: Array) -> Residency:
    x = require_array(x, "residency")
    b = x.backend
    if hasattr(b, "snapshot"):
        return Residency(b.snapshot(x.ptr), b.profile.host_page, "sim page table")
    return Residency(None, 4096, "the hardware does not report per-page residency; "
                     "see attributes(x)['last_prefetch_location']")


# -- devices ------------------------------------------------------------------------------------------
def capabilities(device: int = 0) -> dict:
    return backend().capabilities(device)


def mem_info(device: int = 0) -> tuple[int, int]:
    return backend().mem_info(device)


def device_count() -> int:
    return backend().device_count()


# -- streams, events, timing -----------------------------------------------------------------------
class Stream:
    """A stream (hipStream_t): work on one stream runs in order, streams run concurrently."""

    def __init__(self, device: int = 0):
        self.backend = backend()
        self.device = device
        self.handle = self.backend.stream_create(device)

    def synchronize(self):
        """hipStreamSynchronize: wait for this stream only."""
        self.backend.synchronize(self.handle)

    def __repr__(self):
        return f"umkit.Stream(device={self.device})"


class Event:
    """An event (hipEvent_t): a mark on a stream to time or wait on."""

    def __init__(self):
        self.backend = backend()
        self.handle = self.backend.event_create()

    def record(self, stream: Stream | None = None):
        self.backend.event_record(self.handle, _stream_handle(stream, self.backend))
        return self

    def synchronize(self):
        """hipEventSynchronize: wait until the work before this event is done."""
        self.backend.synchronize(self.handle)

    def elapsed_ms(self, end: "Event") -> float:
        if not isinstance(end, Event):
            raise InvalidType(f"end={end!r} is not a umkit.Event",
                              hint="start.elapsed_ms(end) with two recorded umkit.Event()s")
        if end.backend is not self.backend:
            raise InvalidArgument("end belongs to another backend than this event",
                                  hint="create both events after the last umkit.use(...)")
        return self.backend.event_elapsed_ms(self.handle, end.handle)


def synchronize(what=None):
    """No argument: hipDeviceSynchronize (waits for everything); or a Stream or an Event."""
    if what is None:
        backend().synchronize(None)
    elif isinstance(what, (Stream, Event)):
        what.synchronize()
    else:
        raise InvalidType(f"cannot synchronize on {what!r}", hint="pass nothing, a Stream or an Event")


class timer:
    """``with umkit.timer() as t: ...`` then ``t.ms``: device events around the block
    (model time on sim); synchronizes the stream at the end."""

    def __init__(self, stream: Stream | None = None):
        self.stream, self.ms = stream, None

    def __enter__(self):
        self.start = Event().record(self.stream)
        return self

    def __exit__(self, *exc):
        end = Event().record(self.stream)
        end.synchronize()
        self.ms = self.start.elapsed_ms(end)


def now() -> float:
    """Seconds: model time on sim, a wall clock elsewhere."""
    b = backend()
    return b.now() if hasattr(b, "now") else time.perf_counter()


def counters() -> dict:
    """sim: faults, batches, bytes each way, evictions, races...  cuda: the same keys from the
    driver through CUPTI once ``counters_on()`` was called (else {}).  hip: {} (use rocprofv3
    --page-migration, see notebook 09)."""
    b = backend()
    return b.counters() if hasattr(b, "counters") else {}


def counters_on(device: int = 0) -> dict:
    """Start the hardware counters where they cost time to keep (cuda: CUPTI's unified-memory
    counters).  sim counts always.  Raises BackendUnavailable, saying why, where the backend
    has none.  Returns :func:`counters` (the totals so far)."""
    b = backend()
    if getattr(b, "model_time", False):
        return counters()
    start = getattr(b, "counters_start", None)
    if start is None:
        from .errors import BackendUnavailable
        raise BackendUnavailable(f"the {b.name} backend has no hardware counters",
                                 hint="use the sim backend to see every counter")
    start(device)
    return counters()


def counters_off() -> None:
    """Stop the hardware counters (cuda); sim keeps counting (it costs nothing)."""
    stop = getattr(backend(), "counters_stop", None)
    if stop is not None:
        stop()


def reset_counters():
    b = backend()
    if hasattr(b, "reset_counters"):
        b.reset_counters()


# -- kernels from kernels/ -----------------------------------------------------------------------------
def _f32(x: Array, name: str) -> Array:
    x = require_array(x, name)
    if x.dtype != np.float32:
        raise InvalidType(f"{name} must be float32 (got {x.dtype})",
                          hint="allocate with dtype='float32' (the kernels in kernels/ are float32)")
    return x


def _kernel_stream(stream, x: Array):
    """Where a kernel runs -- the multi-GPU rule: on the device of its (first) array, unless a
    stream says otherwise.  No stream: the default stream of the array's device."""
    if stream is not None:
        return _stream_handle(stream, x.backend)
    if x.device_id == 0:
        return None
    return x.backend.default_stream(x.device_id)


def kernel_device(x: Array, stream: "Stream | None" = None) -> int:
    """The GPU a kernel on ``x`` runs on: ``stream``'s device if given, else ``x``'s device."""
    x = require_array(x, "kernel_device")
    return stream.device if isinstance(stream, Stream) else x.device_id


def _grid(n: int) -> int:
    return max(1, -(-n // BLOCK))


def add(out: Array, a: Array, b: Array, *, stream: Stream | None = None):
    """out = a + b on the GPU (the article's add_kernel)."""
    out, a, b = _f32(out, "out"), _f32(a, "a"), _f32(b, "b")
    n = out.size
    if a.size != n or b.size != n:
        raise InvalidArgument(f"sizes differ: out {n}, a {a.size}, b {b.size}", hint="use equal sizes")
    _same_backend(out, a=a, b=b)
    if n >= 2**31:
        raise InvalidArgument("add_kernel takes an int count: at most 2**31-1 elements")
    out.backend.launch("add_kernel", _grid(n), BLOCK, (out.ptr, a.ptr, b.ptr, n),
                       _kernel_stream(stream, out))


def increment(a: Array, *, stream: Stream | None = None):
    """a += 1 on the GPU (reads and writes every element)."""
    a = _f32(a, "a")
    if a.size >= 2**31:
        raise InvalidArgument("increment_kernel takes an int count: at most 2**31-1 elements")
    a.backend.launch("increment_kernel", _grid(a.size), BLOCK, (a.ptr, a.size),
                     _kernel_stream(stream, a))


def fill(a: Array, value: float, *, stream: Stream | None = None):
    a = _f32(a, "a")
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidType(f"value={value!r} must be a real number",
                          hint="fill(a, 1.0): the kernel writes one float32 value everywhere")
    a.backend.launch("fill_kernel", min(_grid(a.size), 65535), BLOCK,
                     (a.ptr, float(value), a.size), _kernel_stream(stream, a))


def touch(a: Array, stride_bytes: int = 4096, *, sink: Array | None = None,
          stream: Stream | None = None) -> Array:
    """Read one float every ``stride_bytes`` on the GPU (the page-toucher); returns the sink, a
    1-element device array the sum of what was read is *added* to.  Without ``sink=`` one shared
    sink per device is reused (it accumulates); pass your own zeroed sink to read one sum."""
    a = _f32(a, "a")
    if isinstance(stride_bytes, bool) or not isinstance(stride_bytes, (int, np.integer)):
        raise InvalidType(f"stride_bytes={stride_bytes!r} must be an int",
                          hint="a whole number of bytes, a multiple of 4, e.g. 4096")
    if stride_bytes < 4 or stride_bytes % 4:
        raise InvalidArgument(f"stride_bytes={stride_bytes} must be a positive multiple of 4",
                              hint="e.g. 4096 (one float per host page) or 65536")
    if sink is None:                  # one small sink per backend and device, reused
        b = a.backend
        key = (id(b), a.device_id)
        sink = _state.setdefault("sinks", {}).get(key)
        if sink is None or sink.freed or sink.backend is not b:
            sink = Array(b, b.malloc(4, "device", a.device_id), 4, (1,), np.float32, "device",
                         a.device_id)
            _state["sinks"][key] = sink
    else:
        sink = _f32(sink, "sink")
        _same_backend(a, sink=sink)
    stride = int(stride_bytes) // 4
    count = -(-a.size // stride)
    if stride == 1:       # read everything: float4 loads, grid-stride, ~16 blocks per SM
        a.backend.launch("read_kernel", min(_grid(a.size // 4 or 1), READ_GRID), BLOCK,
                         (a.ptr, a.size, sink.ptr), _kernel_stream(stream, a))
    else:                 # one thread per touched element, so faults arrive in address order
        a.backend.launch("touch_kernel", min(_grid(count), 2**31 - 1), BLOCK,
                         (a.ptr, a.size, stride, sink.ptr), _kernel_stream(stream, a))
    return sink


def read_back(x: Array, *, out=None, stream: Stream | None = None) -> np.ndarray:
    """Copy to the host the fast way: a copy-engine copy into pinned memory (no page migration),
    rather than letting CPU faults migrate managed pages back (§3.4).  On the H200 the pinned path
    moved ~55 GB/s, migrating managed pages back ~11 GB/s.

    ``out``: a pinned ``umkit.Array`` (fastest: the copy lands there, its ``.host`` is returned),
    a NumPy array (staged through a reused pinned buffer), or None (a new NumPy array)."""
    x = require_array(x, "read_back")
    if isinstance(out, Array):
        out = require_array(out, "read_back out")
        if out.kind != "pinned" or out.nbytes < x.nbytes:
            raise InvalidArgument("out must be a pinned umkit.Array at least as large as x",
                                  hint="out = umkit.pinned(x.shape, x.dtype)")
        _same_backend(x, out=out)
        x.backend.memcpy(out.ptr, x.ptr, x.nbytes, _stream_handle(stream, x.backend))
        x.backend.synchronize(stream.handle if stream is not None else None)
        return out.host
    if out is not None and (not isinstance(out, np.ndarray) or out.nbytes != x.nbytes):
        raise InvalidType("out must be a pinned umkit.Array or a NumPy array of x's size",
                          hint="or leave it out to get a new NumPy array")
    key = (id(x.backend), x.nbytes)
    stage = _state.setdefault("staging", {}).get(key)
    if stage is None or stage.freed or stage.backend is not x.backend:
        b = x.backend                  # x's backend, which need not be the current one
        stage = Array(b, b.malloc(x.nbytes, "pinned", x.device_id), x.nbytes, (x.nbytes,),
                      np.uint8, "pinned", x.device_id)
        _state["staging"][key] = stage
    x.backend.memcpy(stage.ptr, x.ptr, x.nbytes, _stream_handle(stream, x.backend))
    x.backend.synchronize(stream.handle if stream is not None else None)
    raw = stage.backend.host_view(stage.ptr, stage.nbytes)
    raw = raw.view(np.ndarray) if isinstance(raw, np.ndarray) else raw
    if out is None:
        return raw.copy().view(x.dtype).reshape(x.shape)
    out.reshape(-1).view(np.uint8)[:] = raw
    return out


def array_module():
    """``xp``: CuPy on GPU backends, NumPy on sim."""
    if backend().name == "sim":
        return np
    import cupy
    return cupy


def allow_oversubscription(flag: bool = True):
    """Let managed allocations exceed free device memory on NVIDIA (off by default: it can hang
    the GPU).  sim always allows it -- that is where to learn about it."""
    try:
        from .backends import gpu as _gpu
        _gpu.ALLOW_OVERSUBSCRIPTION = bool(flag)
    except ImportError:
        pass
    _state["oversubscribe"] = bool(flag)


def trace(last: int | None = None) -> list[dict]:
    """sim: the recent driver events, each tagged with the layer that did it -- 'umd' (user-mode
    driver: bookkeeping, batching, enqueueing) or 'kmd' (kernel-mode driver: page tables,
    migration).  Real GPUs: [] (use rocprof / nsys)."""
    b = backend()
    ev = list(b.engine.trace) if hasattr(b, "engine") else []
    return ev[-last:] if last else ev


def sim_profile():
    """The active sim hardware profile (values in SI units, ``.sources`` per parameter), or None."""
    return getattr(backend(), "profile", None)


def copy(dst, src, *, nbytes: int | None = None, stream: Stream | None = None):
    """Explicit copy (hipMemcpyAsync, direction inferred): the hand-written way to move data.
    One side may be a NumPy array: ordinary *pageable* host memory (malloc), which the driver
    stages through its own pinned buffers; the host waits for such a copy."""
    pageable = isinstance(src, np.ndarray) or isinstance(dst, np.ndarray)
    if pageable:
        arr = dst if isinstance(src, np.ndarray) else src
        host = src if isinstance(src, np.ndarray) else dst
        if isinstance(dst, np.ndarray) and isinstance(src, np.ndarray):
            raise InvalidArgument("copy between two NumPy arrays: that is host work",
                                  hint="use numpy.copyto(dst, src)")
        arr = require_array(arr, "copy dst" if arr is dst else "copy src")
        if not host.flags.c_contiguous or (host is dst and not host.flags.writeable):
            raise InvalidArgument("the NumPy side of a copy must be C-contiguous (and writeable "
                                  "when it is the destination)", hint="np.ascontiguousarray(x)")
        limit = min(arr.nbytes, host.nbytes)
    else:
        dst, src = require_array(dst, "copy dst"), require_array(src, "copy src")
        _same_backend(dst, src=src)
        limit = min(dst.nbytes, src.nbytes)
    n = limit if nbytes is None else nbytes
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n <= 0 or n > limit:
        raise InvalidArgument(f"nbytes={nbytes!r} must be an int in 1..{limit}")
    if pageable:
        arr.backend.memcpy_pageable(arr.ptr, host, int(n), to_array=host is src,
                                    stream=_stream_handle(stream, arr.backend))
        return
    dst.backend.memcpy(dst.ptr, src.ptr, int(n), _stream_handle(stream, dst.backend))
