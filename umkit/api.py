"""The public API: everything a notebook, widget or CLI calls (re-exported by ``umkit``).

Arguments are validated here, once, with :mod:`umkit.validate`; the memory layer and the
backends below only assert.  Optional backend features (counters, trace, residency snapshots,
model time) are asked for by name -- ``backend.supports("counters")`` -- never probed.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from . import validate as V
from .backends.contract import CPU, Location  # noqa: F401  (re-exported)
from .runtime.context import RUNTIME
from .errors import InvalidArgument, InvalidType
from .memory.array import Array, require_array, require_managed, weak_release  # noqa: F401
from .memory.migration import advise, attributes, prefetch  # noqa: F401  (the public functions)
from .memory.resources import BackendPool, PoolingResource, UpstreamResource, power_of_two
from .runtime import backend
from .runtime.streams import Event, Stream, kernel_stream, stream_handle

BLOCK = 256
READ_GRID = 2112          # 16 blocks per SM on a 132-SM H200: enough to saturate any current GPU
STAGING_CACHE = 64 << 20  # pinned read-back buffers kept for reuse, per backend and device


# -- allocation ------------------------------------------------------------------------------------
def empty(shape, dtype="float32", kind: str = "managed", device: int = 0) -> Array:
    """Allocate ``kind`` memory: 'managed' (hipMallocManaged), 'device' (hipMalloc) or
    'pinned' (hipHostMalloc, read by the GPU zero-copy)."""
    kind = V.kind(kind)
    shape, dt = V.shape(shape), V.dtype(dtype)
    nbytes = V.nbytes_of(shape, dt)
    b = backend()
    device = V.device(device, b)
    pool = RUNTIME.current_pool()
    if pool is not None and pool.kind == kind and pool.device == device and pool.backend is b:
        ptr = pool.tracking.allocate(nbytes, f"{kind}{shape}")
        a = Array(b, ptr, nbytes, shape, dt, kind, device, release=pool.free)
        pool.attach(ptr, a)
        return a
    ptr = b.malloc(nbytes, kind, device)
    return Array(b, ptr, nbytes, shape, dt, kind, device)


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
    shape, dt = V.shape(shape), V.dtype(dtype)
    nbytes = V.nbytes_of(shape, dt)
    return backend().pageable(nbytes)[:nbytes].view(dt).reshape(shape)


def _same_backend(first: Array, **others: Array) -> None:
    """Arrays passed to one call must come from one backend (a umkit.use(...) call in between
    makes a new backend whose pointers can alias the old one's)."""
    for name, x in others.items():
        if x.backend is not first.backend and x.backend.name == first.backend.name:
            raise InvalidArgument(f"{name} was allocated on another instance of the "
                                  f"{x.backend.name} backend than the other arrays: each "
                                  "umkit.use(...) call, and each check's sandbox, starts a new one",
                                  argument=name,
                                  hint="allocate the arrays of one computation after the last "
                                       "umkit.use(...) -- for a check, inside the function you "
                                       "give it")
        if x.backend is not first.backend:
            raise InvalidArgument(f"{name} was allocated on another backend instance "
                                  f"({x.backend.name}) than the other arrays "
                                  f"({first.backend.name}); each umkit.use(...) call starts a "
                                  "new backend", argument=name,
                                  hint="allocate all arrays of one computation after the last "
                                       "umkit.use(...)")


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
    if b.supports("snapshot"):
        codes, page = b.snapshot(x.ptr)
        return Residency(codes, page, "sim page table")
    return Residency(None, 4096, "the hardware does not report per-page residency; "
                     "see attributes(x)['last_prefetch_location']")


# -- devices ------------------------------------------------------------------------------------------
def capabilities(device: int = 0) -> dict:
    b = backend()
    return b.capabilities(V.device(device, b))


def mem_info(device: int = 0) -> tuple[int, int]:
    b = backend()
    return b.mem_info(V.device(device, b))


def device_count() -> int:
    return backend().device_count()


# -- streams, events, timing -----------------------------------------------------------------------
def synchronize(what=None):
    """No argument: hipDeviceSynchronize (waits for everything); or a Stream or an Event."""
    if what is None:
        backend().synchronize(None)
    elif isinstance(what, (Stream, Event)):
        what.synchronize()
    else:
        raise InvalidType(f"cannot synchronize on {V.shown(what)}", argument="what",
                          hint="pass nothing, a Stream or an Event")


class timer:
    """``with umkit.timer() as t: ...`` then ``t.ms``: device events around the block
    (model time on sim); synchronizes the stream at the end.  With no stream: events on every
    GPU's default stream, ``t.ms`` the longest of them."""

    def __init__(self, stream: Stream | None = None):
        if stream is not None and not isinstance(stream, Stream):
            raise InvalidType(f"stream={V.shown(stream)} is not a umkit.Stream", argument="stream",
                              hint="umkit.timer() or umkit.timer(umkit.Stream())")
        self.stream, self.ms = stream, None

    def __enter__(self):
        # the events live on the stream's backend (a umkit.use(...) in another thread must
        # not move them); with no stream, on the default stream of every device of the active
        # backend, so the block's work on any GPU is timed and waited for
        if self.stream is not None:
            b, devices = self.stream.backend, [self.stream.device]
        else:
            b = backend()
            devices = range(b.device_count())
        self.starts = [Event(d, backend=b).record(self.stream) for d in devices]
        self.start = self.starts[0]
        # the start event is stamped; the host then finishes the call and returns into the
        # block, and an idle GPU waits for that (a backend that models time charges it)
        charge = getattr(self.start.backend, "charge_host", None)
        if charge is not None:
            charge("event_overhead")
        return self

    def __exit__(self, *exc):
        ends = [Event(s.device, backend=s.backend).record(self.stream) for s in self.starts]
        for end in ends:
            end.synchronize()
        self.ms = max(s.elapsed_ms(e) for s, e in zip(self.starts, ends))


def now() -> float:
    """Seconds: model time on sim, a wall clock elsewhere."""
    b = backend()
    return b.now() if b.supports("model_time") else time.perf_counter()


def counters() -> dict:
    """sim: faults, batches, bytes each way, evictions, races... Backends that don't count:
    {} (the hardware keeps these in the driver; use nsys/rocprof, see notebook 09)."""
    b = backend()
    return b.counters() if b.supports("counters") else {}


def counters_on(device: int = 0) -> dict:
    """Start the hardware counters where they cost time to keep (cuda: CUPTI's unified-memory
    counters).  sim counts always.  Raises BackendUnavailable, saying why, where the backend
    has none.  Returns :func:`counters` (the totals so far)."""
    b = backend()
    b.counters_start(V.device(device, b))
    return counters()


def counters_off() -> None:
    """Stop the hardware counters (cuda); sim keeps counting (it costs nothing)."""
    backend().counters_stop()


def reset_counters():
    b = backend()
    if b.supports("counters"):
        b.reset_counters()


# -- kernels from kernels/ -----------------------------------------------------------------------------
def _f32(x: Array, name: str) -> Array:
    x = require_array(x, name, name)
    if x.dtype != np.float32:
        raise InvalidType(f"{name} must be float32 (got {x.dtype})", argument=name,
                          hint="allocate with dtype='float32' (the kernels in kernels/ are float32)")
    return x


def kernel_device(x: Array, stream: "Stream | None" = None) -> int:
    """The GPU a kernel on ``x`` runs on: ``stream``'s device if given, else ``x``'s device."""
    x = require_array(x, "kernel_device")
    stream_handle(stream, x.backend)
    return stream.device if isinstance(stream, Stream) else x.device_id


def _grid(n: int) -> int:
    return max(1, -(-n // BLOCK))


def add(out: Array, a: Array, b: Array, *, stream: Stream | None = None):
    """out = a + b on the GPU (the article's add_kernel)."""
    out, a, b = _f32(out, "out"), _f32(a, "a"), _f32(b, "b")
    n = out.size
    if a.size != n or b.size != n:
        raise InvalidArgument(f"sizes differ: out {n}, a {a.size}, b {b.size}", argument="a",
                              hint="use equal sizes")
    _same_backend(out, a=a, b=b)
    if n >= 2**31:
        raise InvalidArgument("add_kernel takes an int count: at most 2**31-1 elements",
                              argument="out", hint="split the work into chunks")
    out.backend.launch("add_kernel", _grid(n), BLOCK, (out.ptr, a.ptr, b.ptr, n),
                       kernel_stream(stream, out))


def increment(a: Array, *, stream: Stream | None = None):
    """a += 1 on the GPU (reads and writes every element)."""
    a = _f32(a, "a")
    if a.size >= 2**31:
        raise InvalidArgument("increment_kernel takes an int count: at most 2**31-1 elements",
                              argument="a", hint="split the work into chunks")
    a.backend.launch("increment_kernel", _grid(a.size), BLOCK, (a.ptr, a.size),
                     kernel_stream(stream, a))


def fill(a: Array, value: float, *, stream: Stream | None = None):
    """Write ``value`` (as float32) everywhere in ``a`` on the GPU."""
    a = _f32(a, "a")
    v = V.real(value, "value", finite=False,
               hint="fill(a, 1.0): the kernel writes one float32 value everywhere")
    if abs(v) > float(np.finfo(np.float32).max) and np.isfinite(v):
        raise InvalidArgument(f"value={V.shown(value)} does not fit a float32", argument="value",
                              hint=f"use a value within ±{float(np.finfo(np.float32).max):.3e}")
    a.backend.launch("fill_kernel", min(_grid(a.size), 65535), BLOCK,
                     (a.ptr, v, a.size), kernel_stream(stream, a))


def _sink(b, device: int) -> Array:
    """One small device array per backend and device that touch() adds into (reused)."""
    sinks = RUNTIME.resource(b, "touch_sinks", lambda _b: {})
    s = sinks.get(device)
    if s is None or s.freed:
        s = Array(b, b.malloc(4, "device", device), 4, (1,), np.float32, "device", device,
                  release=weak_release(b))
        sinks[device] = s
    return s


def touch(a: Array, stride_bytes: int = 4096, *, sink: Array | None = None,
          stream: Stream | None = None) -> Array:
    """Read one float every ``stride_bytes`` on the GPU (the page-toucher); returns the sink, a
    1-element device array the sum of what was read is *added* to.  Without ``sink=`` one shared
    sink per device is reused (it accumulates); pass your own zeroed sink to read one sum."""
    a = _f32(a, "a")
    stride_bytes = V.touch_stride(V.integer(stride_bytes, "stride_bytes", lo=4,
                                            hint="a whole number of bytes, a multiple of 4, "
                                                 "e.g. 4096"))
    if stride_bytes % 4:
        raise InvalidArgument(f"stride_bytes={stride_bytes} must be a positive multiple of 4",
                              argument="stride_bytes", hint="e.g. 4096 (one float per host "
                                                            "page) or 65536")
    if sink is None:
        sink = _sink(a.backend, a.device_id)
    else:
        sink = _f32(sink, "sink")
        _same_backend(a, sink=sink)
    stride = stride_bytes // 4
    count = -(-a.size // stride)
    if stride == 1:       # read everything: float4 loads, grid-stride, ~16 blocks per SM
        a.backend.launch("read_kernel", min(_grid(a.size // 4 or 1), READ_GRID), BLOCK,
                         (a.ptr, a.size, sink.ptr), kernel_stream(stream, a))
    else:                 # one thread per touched element, so faults arrive in address order
        a.backend.launch("touch_kernel", min(_grid(count), 2**31 - 1), BLOCK,
                         (a.ptr, a.size, stride, sink.ptr), kernel_stream(stream, a))
    return sink


def staging_buffers(b, device: int) -> PoolingResource:
    """The pinned read-back buffers of one backend and device: power-of-two size classes, at
    most STAGING_CACHE bytes kept, each lent to one read_back at a time."""
    per = RUNTIME.resource(b, "staging", lambda _b: {})
    st = per.get(device)
    if st is None:
        st = per.setdefault(device, BackendPool(UpstreamResource(b, "pinned", device),
                                                size_class=power_of_two,
                                                max_cached=STAGING_CACHE))
    return st


def read_back(x: Array, *, out=None, stream: Stream | None = None) -> np.ndarray:
    """Copy to the host into pinned memory (``hipMemcpyAsync``), rather than letting CPU faults
    migrate managed pages back (§3.4).  On the H200 a pinned copy moved ~55 GB/s (device memory to
    pinned), a prefetch of managed pages back ~11 GB/s (the kit's run of 2026-11-29); on an H100
    a managed array stayed in VRAM through the copy (run 52, ``umkit measure run read_back``).
    The simulator models the copy as a copy-engine read of the pages where they lie.  For managed
    ``x`` on a discrete AMD GPU, ROCm/clr's ``DmaBlitManager::copyBuffer`` does a copy between
    two host-accessible allocations as a CPU ``memcpy`` (read from clr's source, not run): it
    faults GPU-resident pages back where amdkfd keeps VRAM device-private (a GPU on PCIe) and
    reads them in place where VRAM is CPU-coherent; there, copy into device memory first.

    ``out``: a pinned ``umkit.Array`` of x's dtype (fastest: the copy lands there, its ``.host``
    is returned), a writable NumPy array of x's dtype and size (any layout: strided, Fortran
    order, transposed), or None (a new NumPy array)."""
    x = require_array(x, "read_back")
    b = x.backend
    h = stream_handle(stream, b)
    if isinstance(out, Array):
        out = require_array(out, "read_back out", "out")
        if out.kind != "pinned" or out.nbytes < x.nbytes or out.dtype != x.dtype:
            raise InvalidArgument("out must be a pinned umkit.Array of x's dtype, at least as "
                                  "large as x", argument="out",
                                  hint="out = umkit.pinned(x.shape, x.dtype)")
        _same_backend(x, out=out)
        b.memcpy(out.ptr, x.ptr, x.nbytes, h)
        b.synchronize(h)
        return out.host
    if out is not None:
        if not isinstance(out, np.ndarray):
            raise InvalidType(f"out={type(out).__name__} must be a pinned umkit.Array or a NumPy "
                              "array", argument="out", hint="or leave it out to get a new NumPy array")
        if out.dtype != x.dtype or out.size != x.size:
            raise InvalidArgument(f"out is {out.dtype}{list(out.shape)}, x is "
                                  f"{x.dtype}{list(x.shape)}: read_back copies, it does not "
                                  "convert", argument="out",
                                  hint="out = np.empty(x.shape, x.dtype)")
        if not out.flags.writeable:
            raise InvalidArgument("out is read-only", argument="out",
                                  hint="pass a writable array (out.flags.writeable)")
    st = staging_buffers(b, x.device_id)
    ptr = st.allocate(x.nbytes)                 # lent to this call alone
    try:
        b.memcpy(ptr, x.ptr, x.nbytes, h)
        b.synchronize(h)
        # the CPU copies the staging buffer into the result: through the backend's host view,
        # so a backend that models time (sim) charges that copy as the card's CPU pays it
        data = b.host_view(ptr, x.nbytes).view(x.dtype).reshape(x.shape)
        if out is None:
            out = np.empty(x.shape, x.dtype)
        np.copyto(out, data.reshape(out.shape))
        return out
    finally:
        st.deallocate(ptr)


def array_module():
    """``xp``: CuPy on GPU backends, NumPy on sim."""
    if backend().name == "sim":
        return np
    import cupy
    return cupy


def allow_oversubscription(flag: bool = True):
    """Let managed allocations exceed free device memory on NVIDIA (off by default: NVIDIA
    documents oversubscription as supported, and its own benchmark finds that performance can
    vary up to 100x with the platform, the oversubscription factor and the memory hints -- NVIDIA
    Technical Blog, October 2021). sim always allows it -- that is where to learn about it."""
    RUNTIME.allow_oversubscription(V.flag(flag, "flag"))


def trace(last: int | None = None) -> list[dict]:
    """sim: the recent driver events, each tagged with the layer that did it -- 'umd' (user-mode
    driver: bookkeeping, batching, enqueueing) or 'kmd' (kernel-mode driver: page tables,
    migration).  Backends without a trace: [] (use rocprof / nsys)."""
    last = V.optional_integer(last, "last", lo=0, hint="the number of recent events, e.g. last=20")
    b = backend()
    return b.trace(last) if b.supports("trace") else []


def sim_profile():
    """The active sim hardware profile (values in SI units, ``.sources`` per parameter), or None."""
    b = backend()
    return b.model_profile() if b.supports("model_time") else None


def copy(dst, src, *, nbytes: int | None = None, stream: Stream | None = None):
    """Explicit copy (hipMemcpyAsync, direction inferred): the hand-written way to move data.
    One side may be a NumPy array: ordinary *pageable* host memory (malloc), which the driver
    stages through its own pinned buffers; the host waits for such a copy.  Without ``nbytes``
    it copies the smaller side's bytes -- ``min(dst.nbytes, src.nbytes)``, from the start, as a
    staging buffer larger than the array it fills is used -- and returns nothing; ``nbytes``
    copies exactly that many (at most the smaller side)."""
    pageable = isinstance(src, np.ndarray) or isinstance(dst, np.ndarray)
    if pageable:
        if isinstance(dst, np.ndarray) and isinstance(src, np.ndarray):
            raise InvalidArgument("copy between two NumPy arrays: that is host work",
                                  argument="src", hint="use numpy.copyto(dst, src)")
        arr = dst if isinstance(src, np.ndarray) else src
        host = src if isinstance(src, np.ndarray) else dst
        arr = require_array(arr, "copy dst" if arr is dst else "copy src",
                            "dst" if arr is dst else "src")
        if not host.flags.c_contiguous or (host is dst and not host.flags.writeable):
            raise InvalidArgument("the NumPy side of a copy must be C-contiguous (and writeable "
                                  "when it is the destination)",
                                  argument="dst" if host is dst else "src",
                                  hint="np.ascontiguousarray(x)")
        limit = min(arr.nbytes, host.nbytes)
        if nbytes is None and host.dtype != np.dtype(arr.dtype):
            # a copy moves bytes: float32 bits read as int64 are no numbers the learner meant
            raise InvalidArgument(
                f"copy between a NumPy {host.dtype} array and a umkit {np.dtype(arr.dtype)} "
                "array: a copy moves bytes and does not convert", argument="dst" if host is dst
                else "src", hint=f"use a NumPy array of {np.dtype(arr.dtype)} (or pass nbytes= to "
                "copy raw bytes)")
    else:
        dst, src = require_array(dst, "copy dst", "dst"), require_array(src, "copy src", "src")
        _same_backend(dst, src=src)
        limit = min(dst.nbytes, src.nbytes)
    n = limit if nbytes is None else V.integer(nbytes, "nbytes", lo=1, hi=limit,
                                               hint=f"copy 1..{limit} bytes")
    if pageable:
        arr.backend.memcpy_pageable(arr.ptr, host, n, to_array=host is src,
                                    stream=stream_handle(stream, arr.backend))
        return
    dst.backend.memcpy(dst.ptr, src.ptr, n, stream_handle(stream, dst.backend))
