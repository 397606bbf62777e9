"""Memory resources that compose, RMM style: an upstream allocator, a pooling resource over
it, a tracking adaptor for the registry.  :class:`~umkit.memory.pool.MemoryPool` stacks them
(``Tracking(Pooling(Upstream(backend, kind, device)))``); the read-back staging buffers are a
bounded ``Pooling(Upstream(backend, "pinned", device))``.

Every resource has ``allocate(nbytes) -> ptr`` and ``deallocate(ptr, nbytes)``.  Arguments
arrive validated (the public API checks them); these only assert.  Each resource takes its own
lock, so one resource may be shared by several threads.  The hot paths take their lock with
``acquire()``/``release()`` in ``try``/``finally``: about a third faster per tracked
allocate+free than ``with lock:`` in CPython 3.11 (2.5 vs 3.5 us on a loaded 2-core CI box).
"""
from __future__ import annotations

import threading
from collections import defaultdict

from ..errors import UseAfterFree

ROUND = 512


def round_up(nbytes: int) -> int:
    """The pool's size classes: multiples of 512 B."""
    return -(-nbytes // ROUND) * ROUND


def power_of_two(nbytes: int) -> int:
    """Staging size classes: powers of two from 4 KiB (few classes, so few cached buffers)."""
    return max(4096, 1 << (nbytes - 1).bit_length())


class UpstreamResource:
    """The backend's own allocator for one kind of memory on one device."""

    def __init__(self, backend, kind: str, device: int = 0):
        self.backend, self.kind, self.device = backend, kind, device

    def allocate(self, nbytes: int) -> int:
        return self.backend.malloc(nbytes, self.kind, self.device)

    def allocate_block(self, nbytes: int) -> tuple[int, int]:
        return self.backend.malloc(nbytes, self.kind, self.device), nbytes

    def deallocate(self, ptr: int, nbytes: int) -> None:
        self.backend.free(ptr, self.kind)


class PoolingResource:
    """Caches freed blocks by size class over an ``upstream`` resource and never splits them,
    so live blocks never overlap.  ``max_cached``: bytes of free blocks kept at most (more is
    given back upstream at once); None keeps everything until :meth:`release`."""

    def __init__(self, upstream, *, size_class=round_up, max_cached: int | None = None):
        self.upstream, self.size_class, self.max_cached = upstream, size_class, max_cached
        self.lock = threading.Lock()
        self.free_blocks: dict[int, list[int]] = defaultdict(list)
        self.sizes: dict[int, int] = {}             # every block this resource owns -> size
        self.cached = 0
        self.upstream_allocs = self.upstream_frees = 0

    def allocate(self, nbytes: int) -> int:
        return self.allocate_block(nbytes)[0]

    def allocate_block(self, nbytes: int) -> tuple[int, int]:
        """(pointer, size of the block): the hot path of the pool."""
        size = self.size_class(nbytes)
        lock = self.lock
        lock.acquire()
        try:
            bucket = self.free_blocks.get(size)
            if bucket:
                self.cached -= size
                return bucket.pop(), size
        finally:
            lock.release()
        ptr = self.upstream.allocate(size)
        with self.lock:
            self.sizes[ptr] = size
            self.upstream_allocs += 1
        return ptr, size

    def deallocate(self, ptr: int, nbytes: int | None = None) -> None:
        lock = self.lock
        lock.acquire()
        try:
            size = self.sizes[ptr]
            if self.max_cached is None or self.cached + size <= self.max_cached:
                self.free_blocks[size].append(ptr)
                self.cached += size
                return
            del self.sizes[ptr]
            self.upstream_frees += 1
        finally:
            lock.release()
        self.upstream.deallocate(ptr, size)

    def release(self) -> int:
        """Give every cached block back upstream; returns the bytes released."""
        with self.lock:
            blocks = [(p, size) for size, ptrs in self.free_blocks.items() for p in ptrs]
            self.free_blocks.clear()
            self.cached = 0
            for p, _ in blocks:
                del self.sizes[p]
            self.upstream_frees += len(blocks)
        for p, size in blocks:
            self.upstream.deallocate(p, size)
        return sum(size for _, size in blocks)

    def size_of(self, ptr: int) -> int:
        return self.sizes[ptr]


class BackendPool(PoolingResource):
    """A pooling resource its backend keeps (the read-back staging buffers): when backend and
    pool are garbage together, the pool gives its cached blocks back first (``__del__`` runs
    while the cycle is still whole), so a backend dropped after ``umkit.use(...)`` takes its
    pinned buffers with it."""

    def __del__(self):
        try:
            self.release()
        except Exception:  # noqa: BLE001 - never raise from a finalizer (the runtime may be gone)
            pass


class TrackingResource:
    """An adaptor that keeps the registry of live blocks (size, requested size, owner, advice,
    last prefetch) and the byte counts (current, peak) over an ``upstream`` resource."""

    def __init__(self, upstream):
        self.upstream = upstream
        self.lock = threading.Lock()
        self.live: dict[int, int] = {}              # live block -> size handed out
        self.requested: dict[int, int] = {}
        self.owner: dict[int, str] = {}
        self.advice: dict[int, set] = {}
        self.prefetch: dict[int, str] = {}
        self.current = self.peak = self.allocs = self.frees = 0

    def allocate(self, nbytes: int, owner: str = "") -> int:
        ptr, size = self.upstream.allocate_block(nbytes)
        lock = self.lock
        lock.acquire()
        try:
            self.live[ptr] = size
            self.allocs += 1
            self.current += size
            if self.current > self.peak:
                self.peak = self.current
            if owner or nbytes != size:
                self.requested[ptr] = nbytes
                self.owner[ptr] = owner
        finally:
            lock.release()
        return ptr

    def deallocate(self, ptr: int, nbytes: int | None = None) -> None:
        lock = self.lock
        lock.acquire()
        try:
            size = self.live.pop(ptr, None)
            if size is None:
                raise UseAfterFree(f"pool free of {ptr:#x}: not a live block of this pool",
                                   hint="double free, or memory from another allocator")
            self.frees += 1
            self.current -= size
            if self.requested:          # side facts exist only for labelled/odd-sized blocks
                for side in (self.requested, self.owner, self.advice, self.prefetch):
                    side.pop(ptr, None)
        finally:
            lock.release()
        self.upstream.deallocate(ptr, size)

    def size_of(self, ptr: int) -> int:
        return self.live[ptr]
