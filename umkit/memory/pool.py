"""``MemoryPool``: reuse allocations, keep a registry of what is live, count bytes.

Layered like CuPy's ``MemoryPool(allocator)`` / RMM's ``PoolMemoryResource(upstream)``: the
backend's raw ``malloc`` is the upstream; the pool caches freed blocks by size class and never
splits them, so live blocks can never overlap.
"""
from __future__ import annotations

import weakref
from collections import defaultdict
from dataclasses import dataclass, field

from ..backends.contract import KINDS
from .array import MAX_BYTES
from ..errors import BackendUnavailable, InvalidArgument, InvalidType, UseAfterFree
from .array import MAX_BYTES

ROUND = 512


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
    __slots__ = ("pool", "ptr")

    def __init__(self, pool, ptr):
        self.pool, self.ptr = pool, ptr

    def __del__(self):
        if self.ptr in self.pool._live:
            self.pool.free(self.ptr)


class MemoryPool:
    """A pool of one kind of memory on one device of a backend.

    The hot path (``allocate``/``free``/``malloc``) keeps only ``ptr -> size`` per live block
    and a few integer counters; the registry's other facts (owner, advice, last prefetch) are
    kept on the side and assembled by :meth:`info` / :meth:`live` when asked for."""

    def __init__(self, backend=None, kind: str = "managed", device: int = 0):
        if kind not in KINDS:
            raise InvalidArgument(f"kind={kind!r} is unknown", hint=f"use one of {KINDS}")
        if backend is None:
            from ..runtime import backend as current
            backend = current()
        self.backend, self.kind, self.device = backend, kind, device
        self._upstream = backend.malloc
        self._free: dict[int, list[int]] = defaultdict(list)
        self._live: dict[int, int] = {}          # live block -> size handed out
        self._sizes: dict[int, int] = {}         # every block the pool owns -> size
        self._requested: dict[int, int] = {}
        self._owner: dict[int, str] = {}
        self._advice: dict[int, set] = {}
        self._prefetch: dict[int, str] = {}
        self._current = self._peak = self._cached = 0
        self._allocs = self._frees = self._up_allocs = self._up_frees = 0

    @property
    def stats(self) -> dict:
        return dict(current_bytes=self._current, peak_bytes=self._peak,
                    cached_bytes=self._cached, allocs=self._allocs, frees=self._frees,
                    upstream_allocs=self._up_allocs, upstream_frees=self._up_frees)

    # -- the allocator ------------------------------------------------------------------------------
    def allocate(self, nbytes: int, owner: str = "") -> int:
        if nbytes.__class__ is not int:
            if isinstance(nbytes, bool) or not isinstance(nbytes, int):
                raise InvalidType(f"nbytes={nbytes!r} must be an int", hint="sizes are in bytes")
        if nbytes <= 0 or nbytes > MAX_BYTES:
            if nbytes > 0:
                raise InvalidArgument(f"nbytes={nbytes} is larger than any machine's memory",
                                      hint="sizes are in bytes: check the arithmetic")
            raise InvalidArgument(f"nbytes={nbytes} must be > 0", hint="allocate at least 1 byte")
        ptr = self._take(-(-nbytes // ROUND) * ROUND)
        if owner or nbytes % ROUND:
            self._requested[ptr] = nbytes
            self._owner[ptr] = owner
        return ptr

    def _take(self, size: int) -> int:
        bucket = self._free.get(size)
        if bucket:
            ptr = bucket.pop()
            self._cached -= size
        else:
            ptr = self._upstream(size, self.kind, self.device)
            self._sizes[ptr] = size
            self._up_allocs += 1
        self._live[ptr] = size
        self._allocs += 1
        self._current += size
        if self._current > self._peak:
            self._peak = self._current
        return ptr

    def free(self, ptr: int, kind: str | None = None) -> None:
        size = self._live.pop(ptr, None)
        if size is None:
            raise UseAfterFree(f"pool free of {ptr:#x}: not a live block of this pool",
                               hint="double free, or memory from another allocator")
        self._free[size].append(ptr)
        self._frees += 1
        self._current -= size
        self._cached += size
        if self._requested:
            for side in (self._requested, self._owner, self._advice, self._prefetch):
                side.pop(ptr, None)

    def release(self) -> int:
        """Give every cached (free) block back to the backend; returns bytes released."""
        n = 0
        for size, ptrs in self._free.items():
            for p in ptrs:
                self.backend.free(p, self.kind)
                del self._sizes[p]
                n += size
                self._up_frees += 1
        self._free.clear()
        self._cached = 0
        return n

    def close(self) -> None:
        """Free everything, live blocks included (arrays from this pool become unusable)."""
        for p in list(self._live):
            self.free(p)
        self.release()

    # -- the registry ----------------------------------------------------------------------------------
    def info(self, ptr: int) -> BlockInfo | None:
        size = self._live.get(ptr)
        if size is None:
            return None
        return BlockInfo(ptr, size, self._requested.get(ptr, size), self._owner.get(ptr, ""),
                         set(self._advice.get(ptr, ())), self._prefetch.get(ptr))

    def live(self) -> list[BlockInfo]:
        return [self.info(p) for p in sorted(self._live)]

    def note(self, ptr: int, *, advice=None, last_prefetch=None) -> None:
        """Record advice / the last prefetch target of a live block (the API calls this)."""
        if ptr not in self._live:
            return
        if advice is not None:
            self._advice[ptr] = set(advice)
            self._requested.setdefault(ptr, self._live[ptr])
        if last_prefetch is not None:
            self._prefetch[ptr] = last_prefetch
            self._requested.setdefault(ptr, self._live[ptr])

    def owns(self, ptr: int) -> bool:
        return ptr in self._live

    # -- CuPy's allocator convention ---------------------------------------------------------------------
    _MemoryPointer = _Unowned = None        # CuPy's classes, bound on first use

    def malloc(self, nbytes: int):
        """``cupy.cuda.set_allocator(pool.malloc)``: hand CuPy memory with an explicit device id
        (hipPointerGetAttributes does not describe managed memory on ROCm)."""
        mp = self._MemoryPointer
        if mp is None:
            mp = self._bind_cupy()
        size = -(-nbytes // ROUND) * ROUND if nbytes > 0 else ROUND
        ptr = self._take(size)
        return mp(self._Unowned(ptr, size, _Owner(self, ptr), self.device), 0)

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
        """Context manager: CuPy allocates from this pool inside the ``with`` block."""
        import contextlib

        @contextlib.contextmanager
        def cm():
            import cupy
            old = cupy.cuda.get_allocator()
            cupy.cuda.set_allocator(self.malloc)
            try:
                yield self
            finally:
                cupy.cuda.set_allocator(old)
        return cm()

    def __enter__(self):
        """``with pool:`` -- umkit arrays of this pool's kind are allocated from it."""
        from ..runtime import _state
        self._prev = _state.get("pool")
        _state["pool"] = self
        return self

    def __exit__(self, *exc):
        from ..runtime import _state
        _state["pool"] = self._prev

    def __repr__(self):
        s = self.stats
        return (f"MemoryPool({self.kind}, live={len(self._live)} blocks / {s['current_bytes']} B, "
                f"peak={s['peak_bytes']} B, cached={s['cached_bytes']} B)")
