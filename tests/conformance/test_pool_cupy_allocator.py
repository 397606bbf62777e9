"""The pool as CuPy's allocator on a real GPU (``pool.malloc`` = CuPy's MemoryPool over umkit).

sim has no CuPy memory to give: there ``pool.malloc`` raises BackendUnavailable when called.
The fake-CuPy tests of the same design run everywhere (tests/contract/test_pool_cupy.py).
"""
from __future__ import annotations

import numpy as np
import pytest

import umkit
from umkit.memory.pool import CUPY_OWNER


def test_sim_says_the_cupy_allocator_needs_a_gpu(backend):
    if backend != "sim":
        pytest.skip("a GPU backend has CuPy memory to give")
    pool = umkit.MemoryPool()
    with pytest.raises(umkit.BackendUnavailable):
        pool.malloc(1024)


def _cupy(backend):
    if backend == "sim":
        pytest.skip("sim: the CuPy allocator is a GPU-backend feature")
    return umkit.array_module()


def test_cupy_computes_in_the_pools_managed_memory(backend):
    cp = _cupy(backend)
    pool = umkit.MemoryPool(kind="managed")
    with pool.as_cupy_allocator():
        x = cp.arange(4096, dtype=cp.float32)
        y = (x * 2.0 + 1.0).sum()
        assert float(y) == float(np.arange(4096, dtype=np.float32).sum() * 2 + 4096)
        s = pool.stats
        assert s["cupy_used_bytes"] >= 4096 * 4
        assert s["current_bytes"] == s["cupy_used_bytes"] + s["cupy_cached_bytes"]
        assert all(b.owner == CUPY_OWNER for b in pool.live())
        allocs = pool.stats["allocs"]
        for _ in range(100):                       # hits: CuPy's pool alone, no new chunk
            z = x + 1.0
            del z
        assert pool.stats["allocs"] == allocs
    del x, y
    assert pool.release() > 0
    assert pool.stats["current_bytes"] == 0
    pool.close()


def test_out_of_memory_inside_cupy_is_umkits_error_with_fields(backend):
    cp = _cupy(backend)
    pool = umkit.MemoryPool(kind="device")      # plain device memory: refused, never oversubscribed
    free, total = umkit.mem_info()
    with pool.as_cupy_allocator():
        with pytest.raises(umkit.OutOfMemory) as ei:
            cp.empty(4 * total, dtype=cp.uint8)
    e = ei.value
    assert e.kind == "device" and e.device == 0 and e.requested >= 4 * total
    assert isinstance(e.free, int) and isinstance(e.total, int) and e.total == total
    assert str(e).startswith("Out of memory allocating")
    assert pool.stats["current_bytes"] == 0
    pool.close()
