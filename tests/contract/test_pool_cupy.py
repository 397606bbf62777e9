"""``MemoryPool.malloc`` -- CuPy's allocator convention -- over the fake low layer (the CUDA
backend with canned driver answers, cuda_fake.py) and a small model of CuPy's memory module.

What is checked is umkit's side of the design: the pool hands CuPy a ``cupy.cuda.MemoryPool``
whose upstream allocator is the umkit pool, so CuPy's (compiled) pool serves its cached blocks
and umkit's Python runs only when CuPy's pool needs a new chunk; every chunk is a block in the
registry; release/close give the chunks back; out of memory, CuPy code sees umkit's
:class:`~umkit.OutOfMemory` with its fields.  The model follows CuPy's ``memory.pyx``
(``MemoryPool``: one sub-pool per current device, ``_round_size`` to 512 B, ``malloc`` calls
the allocator only on a miss, ``PooledMemory`` returns its chunk when dropped,
``free_all_blocks`` gives cached chunks back, ``used_bytes``/``free_bytes``).  The real CuPy
on a GPU is the benchmark's part (``umkit measure run pool``, ``STEPS=poolbench .ci/gpu``).
"""
from __future__ import annotations

import contextlib
import gc
import random
import sys
import threading
import types
import weakref
from collections import defaultdict
from pathlib import Path

import pytest

import umkit
from umkit.errors import BackendUnavailable, OutOfMemory
from umkit.memory.pool import CUPY_OWNER, MemoryPool

from cuda_fake import CheckedCuda, cuda_canned, rt

UMKIT_DIR = str(Path(umkit.__file__).resolve().parent)


# -- a small model of cupy.cuda's memory module ---------------------------------------------------
class UnownedMemory:
    def __init__(self, ptr, size, owner, device_id=-1):
        assert device_id >= 0, "umkit always names the device"
        self.ptr, self.size, self._owner, self.device_id = ptr, size, owner, device_id


class MemoryPointer:
    def __init__(self, mem, offset):
        self.mem, self.ptr, self.device_id = mem, mem.ptr + offset, mem.device_id


class PooledMemory:
    """Returns its chunk to the pool when dropped (CuPy: ``PooledMemory.free`` in __dealloc__)."""

    def __init__(self, chunk, pool):
        self.chunk, self.pool = chunk, weakref.ref(pool)
        self.ptr, self.size, self.device_id = chunk.ptr, chunk.size, chunk.mem.device_id

    def __del__(self):
        pool = self.pool()
        if pool is not None:                     # a pool that is gone takes nothing back
            pool._free(self.chunk)


class _Chunk:
    def __init__(self, mem, size):
        self.mem, self.ptr, self.size = mem, mem.ptr, size


class SingleDeviceMemoryPool:
    def __init__(self, allocator):
        self._alloc, self._lock = allocator, threading.RLock()
        self._free_chunks: dict[int, list] = defaultdict(list)
        self._in_use: dict[int, _Chunk] = {}
        self.misses = 0

    def malloc(self, size):
        size = -(-size // 512) * 512
        with self._lock:
            bucket = self._free_chunks.get(size)
            chunk = bucket.pop() if bucket else None
        if chunk is None:
            self.misses += 1
            chunk = _Chunk(self._alloc(size).mem, size)     # outside the lock, as CuPy does
        with self._lock:
            self._in_use[chunk.ptr] = chunk
        return MemoryPointer(PooledMemory(chunk, self), 0)

    def _free(self, chunk):
        with self._lock:
            del self._in_use[chunk.ptr]
            self._free_chunks[chunk.size].append(chunk)

    def free_all_blocks(self):
        with self._lock:
            self._free_chunks.clear()

    def used_bytes(self):
        return sum(c.size for c in list(self._in_use.values()))

    def free_bytes(self):
        return sum(c.size for b in list(self._free_chunks.values()) for c in b)


class FakeCupy(types.ModuleType):
    def __init__(self):
        super().__init__("cupy")
        self.current = 0
        self.pools = weakref.WeakSet()
        cuda = types.SimpleNamespace(UnownedMemory=UnownedMemory, MemoryPointer=MemoryPointer,
                                     MemoryPool=self.MemoryPool, Device=self.Device,
                                     using_allocator=self.using_allocator)
        self.cuda = cuda
        self.allocator = None

    def MemoryPool(self, allocator):
        fake = self

        class Pool:                                          # one sub-pool per current device
            def __init__(self):
                self.subs = defaultdict(lambda: SingleDeviceMemoryPool(allocator))

            def malloc(self, size):
                return self.subs[fake.current].malloc(size)

            def free_all_blocks(self):
                self.subs[fake.current].free_all_blocks()

            def used_bytes(self):
                return self.subs[fake.current].used_bytes()

            def free_bytes(self):
                return self.subs[fake.current].free_bytes()

        p = Pool()
        self.pools.add(p)
        return p

    @contextlib.contextmanager
    def Device(self, d):
        old, self.current = self.current, d
        try:
            yield
        finally:
            self.current = old

    @contextlib.contextmanager
    def using_allocator(self, fn):
        old, self.allocator = self.allocator, fn
        try:
            yield
        finally:
            self.allocator = old


@pytest.fixture
def cupy(monkeypatch):
    fake = FakeCupy()
    monkeypatch.setitem(sys.modules, "cupy", fake)
    return fake


def budget(limit: int):
    """Canned answers of a GPU with ``limit`` bytes: cudaMalloc/cudaMallocManaged fail past it."""
    held: dict[int, int] = {}

    def canned(name, args):
        if name in ("cudaMalloc", "cudaMallocManaged"):
            if sum(held.values()) + args[0] > limit:
                return (rt.cudaError_t.cudaErrorMemoryAllocation, None)
            res = cuda_canned(name, args)
            held[int(res[1])] = args[0]
            return res
        if name == "cudaFree":
            held.pop(int(args[0]), None)
        if name == "cudaMemGetInfo":
            return (rt.cudaError_t.cudaSuccess, limit - sum(held.values()), limit)
        return cuda_canned(name, args)
    return canned, held


def umkit_frames_during(fn) -> list[str]:
    """Names of umkit's Python functions that ran during ``fn()``."""
    seen = []

    def prof(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(UMKIT_DIR):
            seen.append(frame.f_code.co_name)
    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return seen


# -- the tests --------------------------------------------------------------------------------------
def test_malloc_is_cupys_pool_over_umkit_and_hits_run_no_umkit_python(cuda_backend, cupy):
    pool = MemoryPool(cuda_backend, kind="managed", device=1)
    malloc = pool.malloc                          # what set_allocator / using_allocator get
    cp = pool.cupy_pool
    assert malloc.__self__ is cp and cp in cupy.pools and malloc.__func__ is type(cp).malloc

    m = malloc(1000)                              # a miss: one 1024 B chunk from the umkit pool
    blk = pool.info(m.ptr)
    assert (blk.size, blk.owner) == (1024, CUPY_OWNER)
    assert m.device_id == 1 and m.mem.device_id == 1            # umkit names the device
    s = pool.stats
    assert (s["current_bytes"], s["cupy_used_bytes"], s["cupy_cached_bytes"]) == (1024, 1024, 0)
    assert (s["allocs"], s["upstream_allocs"]) == (1, 1)
    del m
    s = pool.stats
    assert (s["current_bytes"], s["cupy_used_bytes"], s["cupy_cached_bytes"]) == (1024, 0, 1024)

    def hits():
        for _ in range(200):
            x = malloc(700)                       # same 512 B class as 1000 -> 1024: cached
            del x
    assert umkit_frames_during(hits) == []        # CuPy's pool alone served them
    assert pool.stats["allocs"] == 1 and len(cuda_backend.rt.rt.called("cudaMallocManaged")) == 1
    assert "_cupy_chunk" in umkit_frames_during(lambda: malloc(5000))   # a miss runs umkit's
    pool.close()


def test_release_and_close_give_cupys_chunks_back(cuda_backend, cupy):
    b, log = cuda_backend, cuda_backend.rt.rt
    pool = MemoryPool(b, kind="managed")
    cached = pool.malloc(4096)
    cached_ptr = cached.ptr
    del cached                                    # cached by CuPy's pool
    assert pool.release() == 4096                 # CuPy's cached chunk, then umkit's cache
    assert [a[0] for a in log.called("cudaFree")] == [cached_ptr]
    assert pool.stats["current_bytes"] == 0 and pool.stats["cupy_cached_bytes"] == 0

    live = pool.malloc(8192)                      # still used by a CuPy array at close()
    spare = pool.malloc(2048)
    spare_ptr = spare.ptr
    del spare
    pool.close()
    freed = [a[0] for a in log.called("cudaFree")]
    assert spare_ptr in freed and live.ptr not in freed      # no CuPy array points at freed memory
    assert pool.stats["current_bytes"] == 8192 and pool.owns(live.ptr)
    live_ptr = live.ptr
    del live
    pool.release()
    assert live_ptr in [a[0] for a in log.called("cudaFree")]
    assert pool.stats["current_bytes"] == 0 and b.allocations() == []


def test_chunk_dropped_after_close_goes_back_to_the_backend(cuda_backend, cupy):
    b = cuda_backend
    pool = MemoryPool(b, kind="device")
    m = pool.malloc(1 << 20)
    pool.close()                                   # a CuPy array still uses the chunk
    assert len(b.allocations()) == 1
    del m                                          # CuPy lets it go later: back to the backend
    gc.collect()
    assert b.allocations() == [] and pool.stats["current_bytes"] == 0
    again = pool.malloc(4096)                      # a closed pool still serves CuPy afresh
    assert pool.info(again.ptr).owner == CUPY_OWNER
    del again
    pool.release()
    assert b.allocations() == []


def test_a_pool_dropped_without_close_gives_the_memory_back(cuda_backend, cupy):
    b = cuda_backend
    pool = MemoryPool(b, kind="managed")
    live = pool.malloc(8192)                      # a CuPy array outlives the pool object
    cached = pool.malloc(4096)
    del cached
    del pool
    gc.collect()                                  # the pool <-> CuPy pool cycle goes
    assert [a.nbytes for a in b.allocations()] == [8192]
    del live
    gc.collect()
    assert b.allocations() == []


def test_out_of_memory_reaches_cupy_code_as_umkit_error_with_fields(cuda_backend, cupy):
    b = cuda_backend
    canned, held = budget(64 << 20)
    b.rt.rt = CheckedCuda(canned)
    pool = MemoryPool(b, kind="device")
    x = pool.malloc(40 << 20)
    del x                                          # 40 MiB cached by CuPy's pool
    y = pool.malloc(48 << 20)                      # a miss: as CuPy does, cached blocks go back
    assert sum(held.values()) == 48 << 20 and pool.stats["cupy_cached_bytes"] == 0
    with pytest.raises(OutOfMemory) as ei:
        pool.malloc(32 << 20)                     # 48 + 32 > 64 even with nothing cached
    e = ei.value
    assert isinstance(e, MemoryError) and not isinstance(e, ImportError)
    assert (e.requested, e.free, e.total, e.kind, e.device) == \
        (32 << 20, 16 << 20, 64 << 20, "device", 0)
    assert (e.call, e.name) == ("cudaMalloc", "cudaErrorMemoryAllocation")
    assert pool.stats["current_bytes"] == 48 << 20          # nothing half-registered
    del y
    pool.close()
    assert held == {}


def test_managed_guard_refusal_retries_after_release(cuda_backend, cupy):
    b = cuda_backend
    canned, held = budget(64 << 20)
    b.rt.rt = CheckedCuda(canned)
    pool = MemoryPool(b, kind="managed")
    x = pool.malloc(40 << 20)
    del x
    y = pool.malloc(48 << 20)                     # the guard refused at first, then it fit
    assert sum(held.values()) == 48 << 20
    with pytest.raises(OutOfMemory, match="(?i)oversubscrib") as ei:
        pool.malloc(32 << 20)
    assert (ei.value.requested, ei.value.kind, ei.value.free) == (32 << 20, "managed", 16 << 20)
    del y
    pool.close()


def test_threads_share_the_cupy_allocator_and_the_stats_add_up(cuda_backend, cupy):
    pool = MemoryPool(cuda_backend, kind="managed")
    malloc = pool.malloc
    errors = []
    barrier = threading.Barrier(4)

    def worker(seed):
        rng = random.Random(seed)
        keep = []
        try:
            barrier.wait()
            for _ in range(400):
                keep.append(malloc(rng.choice((512, 4096, 65536, 1 << 20)) - rng.randrange(100)))
                if len(keep) > 6:
                    keep.pop(rng.randrange(len(keep)))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        ts = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
        [t.start() for t in ts]
        [t.join() for t in ts]
    finally:
        sys.setswitchinterval(old)
    assert errors == []
    s = pool.stats
    t = pool.tracking
    assert s["cupy_used_bytes"] == 0
    assert s["current_bytes"] == sum(t.live.values()) == s["cupy_cached_bytes"]
    assert s["allocs"] - s["frees"] == len(t.live)
    assert all(t.owner[p] == CUPY_OWNER for p in t.live)
    pool.close()
    assert pool.stats["current_bytes"] == 0 and cuda_backend.allocations() == []


def test_as_cupy_allocator_uses_the_pools_malloc(cuda_backend, cupy):
    pool = MemoryPool(cuda_backend, kind="managed")
    with pool.as_cupy_allocator():
        m = cupy.allocator(256)
    assert pool.info(m.ptr).owner == CUPY_OWNER
    del m
    pool.close()


def test_on_sim_malloc_says_why_it_cannot(cupy):
    from umkit.sim.backend import SimBackend
    pool = MemoryPool(SimBackend(), kind="managed")      # not umkit.use: leave the process's backend
    malloc = pool.malloc                          # CuPy's convention still reads fine ...
    with pytest.raises(BackendUnavailable, match="GPU backend"):
        malloc(1024)                              # ... but sim has no CuPy memory to give
    with pytest.raises(BackendUnavailable):
        pool.cupy_pool
    with pytest.raises(BackendUnavailable):
        pool.as_cupy_allocator()
    assert pool.stats["cupy_used_bytes"] == 0
