"""``MemoryPool``: reuse allocations, keep a registry of what is live, count bytes.

Composed like RMM's resources (see :mod:`umkit.memory.resources`)::

    MemoryPool = TrackingResource(PoolingResource(UpstreamResource(backend, kind, device)))

and usable like CuPy's ``MemoryPool(allocator)``: :attr:`MemoryPool.malloc` is an allocator
callable returning a ``cupy.cuda.MemoryPointer`` (``cupy.cuda.set_allocator(pool.malloc)``, or
``with pool.as_cupy_allocator():`` which uses CuPy's per-thread ``using_allocator``).  It is the
``malloc`` of a ``cupy.cuda.MemoryPool`` whose upstream allocator is this pool -- CuPy's own
design, one layer up: CuPy's compiled pool hands out and takes back its cached blocks, and this
pool's Python runs only when CuPy's pool needs a new chunk (a miss).  Each chunk is a block in
the registry (owner ``"cupy"``), so the stats count what CuPy holds from this pool; the CuPy
pool's own split of used and cached bytes is in ``stats["cupy_used_bytes"]`` and
``stats["cupy_cached_bytes"]``.  ``with pool:`` makes umkit's own allocations of the pool's kind
and device come from it, in this thread.  Thread-safe: each resource takes its own lock, and
CuPy's pool takes its own.
"""
from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field

from .. import validate as V
from ..backends.contract import MAX_PTR, Backend
from ..runtime import RUNTIME
from ..errors import BackendUnavailable, InvalidType, OutOfMemory, UseAfterFree
from .resources import ROUND, PoolingResource, TrackingResource, UpstreamResource

__all__ = ["MemoryPool", "BlockInfo", "ROUND", "CUPY_OWNER"]

#: the registry's owner label of the chunks CuPy's pool holds from a umkit pool
CUPY_OWNER = "cupy"


@dataclass
class BlockInfo:
    ptr: int
    size: int                      # bytes handed out (rounded up)
    requested: int
    owner: str = ""
    advice: set = field(default_factory=set)
    last_prefetch: str | None = None


def _ptr(ptr) -> int:
    if ptr.__class__ is int and 0 <= ptr <= MAX_PTR:
        return ptr
    return V.integer(ptr, "ptr", lo=0, hi=MAX_PTR,
                     hint="a pointer this pool handed out (pool.allocate())")


class _Owner:
    """Keeps a chunk handed to CuPy alive; gives it back (``give_back(ptr)``) when CuPy drops it."""
    __slots__ = ("give_back", "ptr")

    def __init__(self, give_back, ptr):
        self.give_back, self.ptr = give_back, ptr

    def __del__(self):
        try:
            self.give_back(self.ptr)
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass


def _chunk_returner(tracking, pooling, closed: threading.Event):
    """What a CuPy chunk calls when CuPy lets it go: back into the pool, and on to the backend
    if the pool was closed meanwhile.  Holds no reference to the MemoryPool (no cycle)."""
    def give_back(ptr):
        tracking.deallocate(ptr)
        if closed.is_set():
            pooling.release()
    return give_back


def _dropped(pooling, closed: threading.Event) -> None:
    closed.set()
    try:
        pooling.release()
    except Exception:  # noqa: BLE001 - a finalizer must not raise (the backend may be gone)
        pass


class MemoryPool:
    """A pool of one kind of memory on one device of a backend (the active one by default)."""

    def __init__(self, backend=None, kind: str = "managed", device: int = 0):
        kind = V.kind(kind)
        if backend is None:
            from ..runtime import backend as current
            backend = current()
        elif not isinstance(backend, Backend):
            raise InvalidType(f"backend={V.shown(backend)} is not a umkit backend", argument="backend",
                              hint="leave it out (the active backend) or pass umkit.backend()")
        device = V.device(device, backend)
        self.backend, self.kind, self.device = backend, kind, device
        self.upstream = UpstreamResource(backend, kind, device)
        self.pooling = PoolingResource(self.upstream)
        self.tracking = TrackingResource(self.pooling)
        self._arrays: dict[int, weakref.ref] = {}      # ptr -> the umkit.Array on the block
        self._arrays_lock = threading.Lock()
        self._closed = threading.Event()
        self._tokens = threading.local()          # this thread's `with pool:` tokens
        self._cupy_pool = None                    # cupy.cuda.MemoryPool over this pool (malloc)
        self._cupy_lock = threading.Lock()
        # a pool dropped without close() gives its cached blocks back, as CuPy's does (chunks
        # CuPy arrays still use follow when those die); not at interpreter exit
        weakref.finalize(self, _dropped, self.pooling, self._closed).atexit = False

    @property
    def stats(self) -> dict:
        """Byte counts and call counts.  ``current_bytes`` counts every live block, the chunks
        CuPy's pool holds included; of those, ``cupy_used_bytes`` are in CuPy arrays now and
        ``cupy_cached_bytes`` are cached by CuPy's pool (both 0 before the first ``malloc``)."""
        t, p = self.tracking, self.pooling
        used, cached = self._cupy_bytes()
        return dict(current_bytes=t.current, peak_bytes=t.peak, cached_bytes=p.cached,
                    allocs=t.allocs, frees=t.frees, upstream_allocs=p.upstream_allocs,
                    upstream_frees=p.upstream_frees, cupy_used_bytes=used,
                    cupy_cached_bytes=cached)

    # -- the allocator ------------------------------------------------------------------------------
    def allocate(self, nbytes: int, owner: str = "") -> int:
        nbytes = V.nbytes(nbytes)
        if owner.__class__ is not str and not isinstance(owner, str):
            raise InvalidType(f"owner={V.shown(owner)} must be a string", argument="owner",
                              hint="a label for the registry, e.g. owner='weights'")
        return self.tracking.allocate(nbytes, owner)

    def free(self, ptr: int, kind: str | None = None) -> None:
        if ptr.__class__ is not int and not V.is_int(ptr):
            raise InvalidType(f"ptr={V.shown(ptr)} must be an int (a pointer this pool handed out)",
                              argument="ptr", hint="pass what pool.allocate() returned")
        if kind is not None:
            V.kind(kind)
        self.tracking.deallocate(int(ptr))
        if self._arrays:
            with self._arrays_lock:
                self._arrays.pop(int(ptr), None)

    def attach(self, ptr: int, array) -> None:
        """Remember the umkit.Array on block ``ptr`` (close() marks it freed)."""
        ptr = _ptr(ptr)
        from .array import require_array
        require_array(array, "pool.attach", "array")
        with self._arrays_lock:
            self._arrays[ptr] = weakref.ref(array)

    def release(self) -> int:
        """Give every cached (free) block back to the backend -- the blocks CuPy's pool caches
        from this pool too; returns bytes released."""
        self._cupy_free_all_blocks()
        return self.pooling.release()

    def close(self) -> None:
        """Free everything, live blocks included: arrays from this pool become freed
        (``a.freed`` is True, using them raises UseAfterFree).  A block an old view still
        points at goes back to the backend when that view is gone; so does a chunk that a CuPy
        array still uses (CuPy's cached chunks go back at once)."""
        self._closed.set()
        self._cupy_free_all_blocks()
        # forget CuPy's pool: the chunks CuPy arrays still use come back when those die (a
        # CuPy pool that is gone takes nothing back); a later malloc makes a fresh one
        self._cupy_pool = None
        with self._arrays_lock:
            arrays = [(p, r()) for p, r in self._arrays.items()]
            self._arrays.clear()
        deferred = set()
        for p, a in arrays:
            if a is not None and not a.freed:
                tok = a.disown()
                if tok is not None:      # a view is alive: free when it dies
                    deferred.add(p)
                    weakref.finalize(tok, self._free_late, p)
        t = self.tracking
        for p in list(t.live):
            if p not in deferred and t.owner.get(p) != CUPY_OWNER:
                self.free(p)
        self.pooling.release()

    def _free_late(self, ptr):
        try:
            self.free(ptr)
        except UseAfterFree:
            return
        self.release()

    # -- the registry ----------------------------------------------------------------------------------
    def info(self, ptr: int) -> BlockInfo | None:
        """The registry's record of live block ``ptr`` (None if it is not one)."""
        ptr = _ptr(ptr)
        t = self.tracking
        size = t.live.get(ptr)
        if size is None:
            return None
        return BlockInfo(ptr, size, t.requested.get(ptr, size), t.owner.get(ptr, ""),
                         set(t.advice.get(ptr, ())), t.prefetch.get(ptr))

    def live(self) -> list[BlockInfo]:
        return [b for b in (self.info(p) for p in sorted(list(self.tracking.live))) if b]

    def note(self, ptr: int, *, advice=None, last_prefetch=None) -> None:
        """Record advice / the last prefetch target of a live block (the API calls this)."""
        ptr = _ptr(ptr)
        if advice is not None and (not isinstance(advice, (set, frozenset, list, tuple)) or
                                   not all(isinstance(a, str) for a in advice)):
            raise InvalidType(f"advice={V.shown(advice)} must be a set of advice names",
                              argument="advice", hint="e.g. advice={'read_mostly'}")
        if last_prefetch is not None:
            V.string(last_prefetch, "last_prefetch", hint="a location, e.g. 'gpu0'")
        t = self.tracking
        with t.lock:
            if ptr not in t.live:
                return
            if advice is not None:
                t.advice[ptr] = set(advice)
                t.requested.setdefault(ptr, t.live[ptr])
            if last_prefetch is not None:
                t.prefetch[ptr] = last_prefetch
                t.requested.setdefault(ptr, t.live[ptr])

    def owns(self, ptr: int) -> bool:
        return _ptr(ptr) in self.tracking.live

    # -- CuPy's allocator convention ---------------------------------------------------------------------
    @property
    def malloc(self):
        """CuPy's allocator convention: ``cupy.cuda.set_allocator(pool.malloc)`` or
        ``cupy.cuda.using_allocator(pool.malloc)``.  This is the ``malloc`` of a
        ``cupy.cuda.MemoryPool`` made once per pool over :meth:`_cupy_chunk`, so a CuPy
        allocation costs what it costs on CuPy's own pool; the pool's Python runs on a miss.
        On sim (no CuPy) calling it raises :class:`~umkit.BackendUnavailable`."""
        cp = self._cupy_pool
        if cp is None:
            try:
                cp = self._bind_cupy()
            except BackendUnavailable as e:
                message, hint = e.message, e.hint

                def unavailable(nbytes):
                    raise BackendUnavailable(message, hint=hint)
                return unavailable
        return cp.malloc

    @property
    def cupy_pool(self):
        """The ``cupy.cuda.MemoryPool`` behind :attr:`malloc` (made on first use; its
        ``used_bytes()``, ``free_bytes()``, ``free_all_blocks()`` work as in CuPy)."""
        return self._cupy_pool if self._cupy_pool is not None else self._bind_cupy()

    def _cupy_chunk(self, nbytes: int):
        """CuPy's pool missed: a new chunk of ``nbytes`` (CuPy rounds to 512 B) from this pool,
        as a ``MemoryPointer`` with an explicit device id (hipPointerGetAttributes does not
        describe managed memory on ROCm).  Out of memory, it does what CuPy's pool does on a
        failed cudaMalloc -- give the cached blocks back and try once more -- and then lets the
        backend's :class:`~umkit.OutOfMemory` (requested, free, kind, device) through."""
        try:
            ptr = self.tracking.allocate(nbytes, CUPY_OWNER)
        except OutOfMemory:
            self.release()
            ptr = self.tracking.allocate(nbytes, CUPY_OWNER)
        return self._MemoryPointer(self._Unowned(ptr, nbytes, _Owner(self._give_back, ptr),
                                                 self.device), 0)

    def _bind_cupy(self):
        """Make the CuPy pool behind :attr:`malloc` (once; thread-safe)."""
        with self._cupy_lock:
            if self._cupy_pool is not None:
                return self._cupy_pool
            if self.backend.name == "sim":
                raise BackendUnavailable("the CuPy allocator needs a GPU backend, not sim",
                                         hint="on sim, allocate umkit arrays inside `with pool:`")
            try:
                import cupy
            except ImportError:
                raise BackendUnavailable("the CuPy allocator needs CuPy and a GPU backend",
                                         hint="install CuPy for this backend (umkit doctor says "
                                              "which wheel)") from None
            cuda = cupy.cuda
            self._Unowned, self._MemoryPointer = cuda.UnownedMemory, cuda.MemoryPointer
            self._give_back = _chunk_returner(self.tracking, self.pooling, self._closed)
            self._cupy_device = cuda.Device
            self._cupy_pool = cuda.MemoryPool(self._cupy_chunk)
            return self._cupy_pool

    def _cupy_devices(self):
        """CuPy's MemoryPool keeps one sub-pool per *current* device: visit each."""
        n = self.backend.device_count()
        for d in range(n):
            with self._cupy_device(d):
                yield d

    def _cupy_free_all_blocks(self) -> None:
        cp = self._cupy_pool
        if cp is not None:
            for _ in self._cupy_devices():
                cp.free_all_blocks()

    def _cupy_bytes(self) -> tuple[int, int]:
        cp = self._cupy_pool
        if cp is None:
            return 0, 0
        used = cached = 0
        for _ in self._cupy_devices():
            used += int(cp.used_bytes())
            cached += int(cp.free_bytes())
        return used, cached

    def as_cupy_allocator(self):
        """Context manager: CuPy allocates from this pool inside the ``with`` block, in this
        thread (CuPy's ``using_allocator``)."""
        cp = self.cupy_pool
        import cupy
        return cupy.cuda.using_allocator(cp.malloc)

    def __enter__(self):
        """``with pool:`` -- umkit arrays of this pool's kind and device are allocated from it
        (in this thread)."""
        stack = self._tokens.__dict__.setdefault("stack", [])
        stack.append(RUNTIME.push_pool(self))
        return self

    def __exit__(self, *exc):
        RUNTIME.pop_pool(self._tokens.stack.pop())

    def __repr__(self):
        s = self.stats
        return (f"MemoryPool({self.kind}, live={len(self.tracking.live)} blocks / "
                f"{s['current_bytes']} B, peak={s['peak_bytes']} B, cached={s['cached_bytes']} B)")
