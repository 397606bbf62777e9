"""``MemoryPool``: reuse allocations, keep a registry of what is live, count bytes.

Composed like RMM's resources (see :mod:`umkit.memory.resources`)::

    MemoryPool = TrackingResource(PoolingResource(UpstreamResource(backend, kind, device)))

and usable like CuPy's ``MemoryPool(allocator)``: :meth:`MemoryPool.malloc` is an allocator
callable returning a ``cupy.cuda.MemoryPointer`` (``cupy.cuda.set_allocator(pool.malloc)``, or
``with pool.as_cupy_allocator():`` which uses CuPy's per-thread ``using_allocator``).  ``with
pool:`` makes umkit's own allocations of the pool's kind and device come from it, in this
thread.  Thread-safe: each resource takes its own lock.
"""
from __future__ import annotations

import contextlib
import threading
import weakref
from dataclasses import dataclass, field

from .. import validators as V
from ..backends.contract import Backend
from ..context import RUNTIME
from ..errors import BackendUnavailable, InvalidType, UseAfterFree
from .resources import ROUND, PoolingResource, TrackingResource, UpstreamResource, round_up

__all__ = ["MemoryPool", "BlockInfo", "ROUND"]


@dataclass
class BlockInfo:
    ptr: int
    size: int                      # bytes handed out (rounded up)
    requested: int
    owner: str = ""
    advice: set = field(default_factory=set)
    last_prefetch: str | None = None


class _Owner:
    """Keeps a CuPy allocation's block alive; returns it to the pool when CuPy drops it."""
    __slots__ = ("free", "ptr")

    def __init__(self, free, ptr):
        self.free, self.ptr = free, ptr

    def __del__(self):
        try:
            self.free(self.ptr)
        except Exception:  # noqa: BLE001 - the pool was closed first: nothing to give back
            pass


class MemoryPool:
    """A pool of one kind of memory on one device of a backend (the active one by default)."""

    def __init__(self, backend=None, kind: str = "managed", device: int = 0):
        kind = V.kind(kind)
        if backend is None:
            from ..runtime import backend as current
            backend = current()
        elif not isinstance(backend, Backend):
            raise InvalidType(f"backend={backend!r} is not a umkit backend", argument="backend",
                              hint="leave it out (the active backend) or pass umkit.backend()")
        device = V.device(device, backend)
        self.backend, self.kind, self.device = backend, kind, device
        self.upstream = UpstreamResource(backend, kind, device)
        self.pooling = PoolingResource(self.upstream)
        self.tracking = TrackingResource(self.pooling)
        self._arrays: dict[int, weakref.ref] = {}      # ptr -> the umkit.Array on the block
        self._arrays_lock = threading.Lock()
        self._closed = False
        self._tokens = threading.local()          # this thread's `with pool:` tokens

    @property
    def stats(self) -> dict:
        t, p = self.tracking, self.pooling
        return dict(current_bytes=t.current, peak_bytes=t.peak, cached_bytes=p.cached,
                    allocs=t.allocs, frees=t.frees, upstream_allocs=p.upstream_allocs,
                    upstream_frees=p.upstream_frees)

    # -- the allocator ------------------------------------------------------------------------------
    def allocate(self, nbytes: int, owner: str = "") -> int:
        nbytes = V.nbytes(nbytes)
        if owner.__class__ is not str and not isinstance(owner, str):
            raise InvalidType(f"owner={owner!r} must be a string", argument="owner",
                              hint="a label for the registry, e.g. owner='weights'")
        return self.tracking.allocate(nbytes, owner)

    def free(self, ptr: int, kind: str | None = None) -> None:
        if ptr.__class__ is not int and not V._is_int(ptr):
            raise InvalidType(f"ptr={ptr!r} must be an int (a pointer this pool handed out)",
                              argument="ptr", hint="pass what pool.allocate() returned")
        self.tracking.deallocate(int(ptr))
        if self._arrays:
            with self._arrays_lock:
                self._arrays.pop(int(ptr), None)

    def attach(self, ptr: int, array) -> None:
        """Remember the umkit.Array on block ``ptr`` (close() marks it freed)."""
        with self._arrays_lock:
            self._arrays[ptr] = weakref.ref(array)

    def release(self) -> int:
        """Give every cached (free) block back to the backend; returns bytes released."""
        return self.pooling.release()

    def close(self) -> None:
        """Free everything, live blocks included: arrays from this pool become freed
        (``a.freed`` is True, using them raises UseAfterFree).  A block an old view still
        points at goes back to the backend when that view is gone."""
        with self._arrays_lock:
            arrays = [(p, r()) for p, r in self._arrays.items()]
            self._arrays.clear()
        deferred = set()
        for p, a in arrays:
            if a is not None and not a.freed:
                tok = a._block.token() if a._block.token is not None else None
                a._invalidate()
                if tok is not None:      # a view is alive: free when it dies
                    deferred.add(p)
                    weakref.finalize(tok, self._free_late, p)
        for p in list(self.tracking.live):
            if p not in deferred:
                self.free(p)
        self.release()
        self._closed = True

    def _free_late(self, ptr):
        try:
            self.free(ptr)
        except UseAfterFree:
            return
        self.release()

    # -- the registry ----------------------------------------------------------------------------------
    def info(self, ptr: int) -> BlockInfo | None:
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
        return ptr in self.tracking.live

    # -- CuPy's allocator convention ---------------------------------------------------------------------
    _MemoryPointer = _Unowned = None        # CuPy's classes, bound on first use

    def malloc(self, nbytes: int):
        """``cupy.cuda.set_allocator(pool.malloc)``: hand CuPy memory with an explicit device id
        (hipPointerGetAttributes does not describe managed memory on ROCm).  The hot path:
        one tracked, pooled allocation and CuPy's two wrapper objects."""
        mp = self._MemoryPointer
        if mp is None:
            mp = self._bind_cupy()
        size = round_up(nbytes) if nbytes > 0 else ROUND
        ptr = self.tracking.allocate(size)
        return mp(self._Unowned(ptr, size, _Owner(self.tracking.deallocate, ptr), self.device), 0)

    def _bind_cupy(self):
        try:
            import cupy
        except ImportError:
            raise BackendUnavailable("the CuPy allocator needs CuPy and a GPU backend",
                                     hint="on sim, allocate umkit arrays inside `with pool:`") from None
        if self.backend.name == "sim":
            raise BackendUnavailable("the CuPy allocator needs a GPU backend, not sim",
                                     hint="on sim, allocate umkit arrays inside `with pool:`")
        self._Unowned, self._MemoryPointer = cupy.cuda.UnownedMemory, cupy.cuda.MemoryPointer
        return self._MemoryPointer

    def as_cupy_allocator(self):
        """Context manager: CuPy allocates from this pool inside the ``with`` block, in this
        thread (CuPy's ``using_allocator``)."""
        self._MemoryPointer or self._bind_cupy()
        import cupy
        return cupy.cuda.using_allocator(self.malloc)

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
