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

    def __init__(self, pool_ref, ptr):
        self.pool, self.ptr = pool_ref, ptr

    def __del__(self):
        pool = self.pool()
        if pool is not None and pool.owns(self.ptr):
            pool.free(self.ptr)


class MemoryPool:
    """A pool of one kind of memory on one device of a backend."""

    def __init__(self, backend=None, kind: str = "managed", device: int = 0):
        if kind not in KINDS:
            raise InvalidArgument(f"kind={kind!r} is unknown", hint=f"use one of {KINDS}")
        if backend is None:
            from ..runtime import backend as current
            backend = current()
        self.backend, self.kind, self.device = backend, kind, device
        self._free: dict[int, list[int]] = defaultdict(list)
        self._live: dict[int, BlockInfo] = {}
        self._sizes: dict[int, int] = {}          # every block the pool owns -> size
        self.stats = dict(current_bytes=0, peak_bytes=0, cached_bytes=0, allocs=0, frees=0,
                          upstream_allocs=0, upstream_frees=0)

    # -- the allocator ------------------------------------------------------------------------------
    def allocate(self, nbytes: int, owner: str = "") -> int:
        if isinstance(nbytes, bool) or not isinstance(nbytes, int):
            raise InvalidType(f"nbytes={nbytes!r} must be an int", hint="sizes are in bytes")
        if nbytes <= 0:
            raise InvalidArgument(f"nbytes={nbytes} must be > 0", hint="allocate at least 1 byte")
        if nbytes > MAX_BYTES:
            raise InvalidArgument(f"nbytes={nbytes} is larger than any machine's memory",
                                  hint="sizes are in bytes: check the arithmetic")
        size = -(-nbytes // ROUND) * ROUND
        bucket = self._free.get(size)
        if bucket:
            ptr = bucket.pop()
            self.stats["cached_bytes"] -= size
        else:
            ptr = self.backend.malloc(size, self.kind, self.device)
            self._sizes[ptr] = size
            self.stats["upstream_allocs"] += 1
        self._live[ptr] = BlockInfo(ptr, size, nbytes, owner)
        s = self.stats
        s["allocs"] += 1
        s["current_bytes"] += size
        s["peak_bytes"] = max(s["peak_bytes"], s["current_bytes"])
        return ptr

    def free(self, ptr: int, kind: str | None = None) -> None:
        info = self._live.pop(ptr, None)
        if info is None:
            raise UseAfterFree(f"pool free of {ptr:#x}: not a live block of this pool",
                               hint="double free, or memory from another allocator")
        self._free[info.size].append(ptr)
        self.stats["frees"] += 1
        self.stats["current_bytes"] -= info.size
        self.stats["cached_bytes"] += info.size

    def release(self) -> int:
        """Give every cached (free) block back to the backend; returns bytes released."""
        n = 0
        for size, ptrs in self._free.items():
            for p in ptrs:
                self.backend.free(p, self.kind)
                del self._sizes[p]
                n += size
                self.stats["upstream_frees"] += 1
        self._free.clear()
        self.stats["cached_bytes"] = 0
        return n

    def close(self) -> None:
        """Free everything, live blocks included (arrays from this pool become unusable)."""
        for p in list(self._live):
            self.free(p)
        self.release()

    # -- the registry ----------------------------------------------------------------------------------
    def live(self) -> list[BlockInfo]:
        return sorted(self._live.values(), key=lambda b: b.ptr)

    def info(self, ptr: int) -> BlockInfo | None:
        return self._live.get(ptr)

    def owns(self, ptr: int) -> bool:
        return ptr in self._live

    # -- CuPy's allocator convention ---------------------------------------------------------------------
    def malloc(self, nbytes: int):
        """``cupy.cuda.set_allocator(pool.malloc)``: hand CuPy memory with an explicit device id."""
        try:
            import cupy
        except ImportError:
            raise BackendUnavailable("the CuPy allocator needs CuPy and a GPU backend",
                                     hint="on sim, allocate umkit arrays inside `with pool:`") from None
        if self.backend.name == "sim":
            raise BackendUnavailable("the CuPy allocator needs a GPU backend, not sim")
        nbytes = max(int(nbytes), 1)
        ptr = self.allocate(nbytes, owner="cupy")
        mem = cupy.cuda.UnownedMemory(ptr, nbytes, _Owner(weakref.ref(self), ptr),
                                      device_id=self.device)
        return cupy.cuda.MemoryPointer(mem, 0)

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
