"""The conformance suite: what every backend must do, through the public API only.

Each test runs once per backend of ``UMKIT_TEST_BACKENDS`` (see conftest.py): ``sim`` here, and
the same file on an H200 (``cuda``) or an AMD GPU (``hip``).  Nothing here reads a backend's
internals, and nothing depends on model time: every check must hold on real hardware too.
Buffers stay small (at most 64 MiB) so the suite is safe on a shared GPU.
"""
from __future__ import annotations

import numpy as np
import pytest

import umkit

MiB = 1 << 20


def to_numpy(x) -> np.ndarray:
    """A NumPy copy of a host view, a device view (CuPy on GPUs, a NumPy twin on sim) or a
    plain array."""
    if hasattr(x, "get"):                      # CuPy
        return x.get()
    return np.array(x, copy=True)


def pattern(n: int, seed: int = 0) -> np.ndarray:
    """float32 values that survive +1 exactly (small integers) and differ element to element."""
    return ((np.arange(n, dtype=np.int64) * 7 + seed) % 1000).astype(np.float32)


# -- one pointer, both sides (§3.1) ------------------------------------------------------------------
def test_host_write_gpu_increment_host_read(backend):
    n = 1 << 18                                           # 1 MiB of float32
    a = umkit.managed(n)
    want = pattern(n)
    a.host[:] = want
    umkit.increment(a)
    umkit.synchronize()
    np.testing.assert_array_equal(to_numpy(a.host), want + 1)
    a.free()


def test_device_view_writes_are_seen_by_the_host(backend):
    a = umkit.managed(4096)
    a.host[:] = 0
    a.device[:] = 7                                       # a GPU-side write through the twin
    umkit.synchronize()
    np.testing.assert_array_equal(to_numpy(a.host), np.full(4096, 7, np.float32))


def test_host_writes_are_seen_by_the_device_view(backend):
    a = umkit.managed((64, 64))
    want = pattern(64 * 64, seed=3).reshape(64, 64)
    a.host[:] = want
    umkit.synchronize()
    np.testing.assert_array_equal(to_numpy(a.device), want)
    assert a.device.shape == a.host.shape == (64, 64)


@pytest.mark.parametrize("n", [1, 255, 256, 1000, 1 << 20])
def test_add_kernel(backend, n):
    out, a, b = umkit.managed(n), umkit.managed(n), umkit.managed(n)
    a.host[:] = pattern(n, 1)
    b.host[:] = pattern(n, 2) * 2
    out.host[:] = -1
    umkit.add(out, a, b)
    umkit.synchronize()
    np.testing.assert_array_equal(to_numpy(out.host), pattern(n, 1) + pattern(n, 2) * 2)
    np.testing.assert_array_equal(to_numpy(a.host), pattern(n, 1))      # inputs untouched


def test_add_mixes_memory_kinds(backend):
    n = 5000
    a, b, out = umkit.managed(n), umkit.pinned(n), umkit.device_array(n)
    a.host[:] = pattern(n, 4)
    b.host[:] = 3
    umkit.add(out, a, b)
    np.testing.assert_array_equal(umkit.read_back(out), pattern(n, 4) + 3)


def test_fill_then_read_back(backend):
    a = umkit.managed(10_000)
    umkit.fill(a, 2.5)
    np.testing.assert_array_equal(umkit.read_back(a), np.full(10_000, 2.5, np.float32))


def test_touch_returns_the_sum_it_read(backend):
    a = umkit.managed(1 << 16)                            # 256 KiB
    a.host[:] = 1
    sink = umkit.touch(a, 4096)                           # one float per 4 KiB: 64 reads
    got = umkit.read_back(sink)
    assert got.shape == (1,)
    assert got[0] == pytest.approx(a.nbytes // 4096)


# -- migration keeps the data -----------------------------------------------------------------------------
def test_prefetch_to_gpu_then_cpu_keeps_data(backend):
    n = 4 * MiB // 4
    a = umkit.managed(n)
    want = pattern(n, 5)
    a.host[:] = want
    umkit.prefetch(a, "gpu")
    umkit.synchronize()
    umkit.prefetch(a, "cpu")
    umkit.synchronize()
    np.testing.assert_array_equal(to_numpy(a.host), want)


def test_prefetch_kernel_prefetch_back(backend):
    n = 2 * MiB // 4
    a = umkit.managed(n)
    s = umkit.Stream()
    a.host[:] = pattern(n, 6)
    a.prefetch("gpu", stream=s)
    umkit.increment(a, stream=s)
    a.prefetch("cpu", stream=s)
    s.synchronize()
    np.testing.assert_array_equal(to_numpy(a.host), pattern(n, 6) + 1)


def test_partial_prefetch_keeps_data(backend):
    n = 1 << 18
    a = umkit.managed(n)
    a.host[:] = pattern(n, 7)
    umkit.prefetch(a, "gpu", offset=a.nbytes // 2, nbytes=a.nbytes // 4)
    umkit.synchronize()
    umkit.increment(a)
    umkit.synchronize()
    np.testing.assert_array_equal(to_numpy(a.host), pattern(n, 7) + 1)


def test_advice_does_not_change_results(backend):
    n = 1 << 18
    a = umkit.managed(n)
    a.advise("read_mostly")
    a.advise("preferred_location", "cpu")
    a.advise("accessed_by", "gpu")
    a.host[:] = pattern(n, 8)
    out = umkit.managed(n)
    umkit.add(out, a, a)
    umkit.synchronize()
    np.testing.assert_array_equal(to_numpy(out.host), pattern(n, 8) * 2)


# -- attributes reflect advice and prefetch ------------------------------------------------------------------
def test_fresh_range_has_no_advice(backend):
    a = umkit.managed(1 << 16)
    at = umkit.attributes(a)
    assert set(at) >= {"read_mostly", "preferred_location", "last_prefetch_location",
                       "accessed_by"}
    assert at["read_mostly"] is False
    assert at["preferred_location"] is None
    assert at["last_prefetch_location"] is None
    assert list(at["accessed_by"]) == []


def test_read_mostly_set_and_unset(backend):
    a = umkit.managed(1 << 16)
    a.advise("read_mostly")
    assert umkit.attributes(a)["read_mostly"] is True
    a.advise("read_mostly", unset=True)
    assert umkit.attributes(a)["read_mostly"] is False


def test_preferred_location_gpu_cpu_unset(backend):
    a = umkit.managed(1 << 16)
    a.advise("preferred_location", "gpu0")
    assert umkit.attributes(a)["preferred_location"] == umkit.gpu(0)
    a.advise("preferred_location", "cpu")
    assert umkit.attributes(a)["preferred_location"] == umkit.CPU
    a.advise("preferred_location", "cpu", unset=True)
    assert umkit.attributes(a)["preferred_location"] is None


def test_accessed_by_set_and_unset(backend):
    a = umkit.managed(1 << 16)
    a.advise("accessed_by", "gpu")
    assert umkit.gpu(0) in umkit.attributes(a)["accessed_by"]
    a.advise("accessed_by", "gpu", unset=True)
    assert umkit.gpu(0) not in umkit.attributes(a)["accessed_by"]


def test_last_prefetch_location_follows_prefetch(backend):
    a = umkit.managed(1 << 18)
    a.host[:] = 1
    a.prefetch("gpu")
    umkit.synchronize()
    assert umkit.attributes(a)["last_prefetch_location"] == umkit.gpu(0)
    a.prefetch("cpu")
    umkit.synchronize()
    assert umkit.attributes(a)["last_prefetch_location"] == umkit.CPU


def test_advice_on_half_a_range(backend):
    """Advice set on part of a range: the part reports it, the whole range does not."""
    a = umkit.managed(4 * MiB // 4)
    half = a.nbytes // 2
    umkit.advise(a, "read_mostly", nbytes=half)
    assert umkit.attributes(a)["read_mostly"] is False       # not all of it
    umkit.advise(a, "read_mostly", offset=half)
    assert umkit.attributes(a)["read_mostly"] is True


# -- the three kinds of memory ---------------------------------------------------------------------------------
def test_device_memory_has_no_host_view(backend):
    d = umkit.device_array(1024)
    with pytest.raises(umkit.InvalidArgument, match="no host view"):
        d.host
    umkit.fill(d, 4.0)
    np.testing.assert_array_equal(umkit.read_back(d), np.full(1024, 4, np.float32))


def test_device_memory_is_not_managed(backend):
    d = umkit.device_array(1024)
    with pytest.raises(umkit.NotManaged):
        umkit.prefetch(d, "gpu")
    with pytest.raises(umkit.NotManaged):
        umkit.advise(d, "read_mostly")


def test_pinned_memory_is_visible_both_sides(backend):
    n = 1 << 16
    p = umkit.pinned(n)
    p.host[:] = pattern(n, 9)
    umkit.increment(p)
    umkit.synchronize()
    np.testing.assert_array_equal(to_numpy(p.host), pattern(n, 9) + 1)
    with pytest.raises(umkit.NotManaged):
        umkit.prefetch(p, "gpu")


def test_freed_memory_cannot_be_used(backend):
    a = umkit.managed(1024)
    a.free()
    assert a.freed
    with pytest.raises(umkit.UseAfterFree):
        a.host
    with pytest.raises(umkit.UseAfterFree):
        umkit.increment(a)
    with pytest.raises(umkit.UseAfterFree):
        a.free()


def test_with_block_frees(backend):
    with umkit.managed(1024) as a:
        a.host[:] = 1
    assert a.freed


# -- read_back -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "complex64"])
def test_read_back_equals_host_data(backend, dtype):
    a = umkit.managed((32, 48), dtype)
    want = (np.arange(32 * 48) % 251).astype(dtype).reshape(32, 48)
    a.host[:] = want
    got = umkit.read_back(a)
    assert got.dtype == np.dtype(dtype) and got.shape == (32, 48)
    np.testing.assert_array_equal(got, want)
    got[:] = 0                                              # a copy, not a view
    np.testing.assert_array_equal(to_numpy(a.host), want)


def test_read_back_sees_gpu_writes(backend):
    a = umkit.managed(1 << 16)
    a.host[:] = pattern(1 << 16, 10)
    umkit.increment(a)
    np.testing.assert_array_equal(umkit.read_back(a), pattern(1 << 16, 10) + 1)


def test_read_back_on_a_stream(backend):
    s = umkit.Stream()
    a = umkit.managed(4096)
    umkit.fill(a, 3.0, stream=s)
    umkit.increment(a, stream=s)
    np.testing.assert_array_equal(umkit.read_back(a, stream=s), np.full(4096, 4, np.float32))


# -- streams and events ----------------------------------------------------------------------------------------------
def test_two_kernels_on_one_stream_run_in_order(backend):
    s = umkit.Stream()
    n = 4 * MiB // 4
    a = umkit.managed(n)
    a.host[:] = 0
    umkit.synchronize()
    umkit.fill(a, 1.0, stream=s)        # if the increment ran first, the fill would win: 1
    umkit.increment(a, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(to_numpy(a.host), np.full(n, 2, np.float32))


def test_many_kernels_on_one_stream_in_order(backend):
    s = umkit.Stream()
    a, b, out = umkit.managed(4096), umkit.managed(4096), umkit.managed(4096)
    umkit.fill(a, 1.0, stream=s)
    umkit.fill(b, 10.0, stream=s)
    for _ in range(5):
        umkit.increment(a, stream=s)                     # a = 6
    umkit.add(out, a, b, stream=s)                       # 16
    umkit.increment(out, stream=s)                       # 17
    e = umkit.Event().record(s)
    e.synchronize()
    np.testing.assert_array_equal(to_numpy(out.host), np.full(4096, 17, np.float32))


def test_streams_are_independent_objects(backend):
    s1, s2 = umkit.Stream(), umkit.Stream()
    a, b = umkit.managed(4096), umkit.managed(4096)
    umkit.fill(a, 1.0, stream=s1)
    umkit.fill(b, 2.0, stream=s2)
    s1.synchronize()
    s2.synchronize()
    np.testing.assert_array_equal(to_numpy(a.host), np.ones(4096, np.float32))
    np.testing.assert_array_equal(to_numpy(b.host), np.full(4096, 2, np.float32))


def test_event_elapsed_is_non_negative(backend):
    e0, e1 = umkit.Event(), umkit.Event()
    e0.record()
    e1.record()
    e1.synchronize()
    assert e0.elapsed_ms(e1) >= 0.0


def test_event_elapsed_is_monotonic(backend):
    """Three events around growing work on one stream: later events are later."""
    s = umkit.Stream()
    a = umkit.managed(16 * MiB // 4)
    a.host[:] = 0
    umkit.synchronize()
    e0, e1, e2 = umkit.Event(), umkit.Event(), umkit.Event()
    e0.record(s)
    umkit.increment(a, stream=s)
    e1.record(s)
    for _ in range(10):
        umkit.increment(a, stream=s)
    e2.record(s)
    e2.synchronize()
    t01, t02, t12 = e0.elapsed_ms(e1), e0.elapsed_ms(e2), e1.elapsed_ms(e2)
    assert 0.0 <= t01 <= t02
    assert t12 >= 0.0
    assert t02 == pytest.approx(t01 + t12, rel=1e-3, abs=5e-3)   # event resolution ~0.5 us


def test_timer_grows_with_work(backend):
    small, big = umkit.managed(1024), umkit.managed(64 * MiB // 4)
    for x in (small, big):
        umkit.prefetch(x, "gpu")
    umkit.synchronize()
    with umkit.timer() as t_small:
        umkit.increment(small)
    with umkit.timer() as t_big:
        for _ in range(20):
            umkit.increment(big)
    assert t_small.ms >= 0.0
    assert t_big.ms > t_small.ms


def test_synchronize_accepts_stream_and_event(backend):
    s = umkit.Stream()
    a = umkit.managed(4096)
    umkit.fill(a, 5.0, stream=s)
    e = umkit.Event().record(s)
    umkit.synchronize(e)
    umkit.synchronize(s)
    umkit.synchronize()
    np.testing.assert_array_equal(to_numpy(a.host), np.full(4096, 5, np.float32))


# -- the pool ------------------------------------------------------------------------------------------------------------
def test_pool_reuses_a_freed_block(backend):
    with umkit.MemoryPool() as pool:
        a = umkit.managed(1024)                              # 4096 B
        p = a.ptr
        assert pool.owns(p)
        a.free()
        assert not pool.owns(p)
        b = umkit.managed(1024)
        assert b.ptr == p                                    # same size: the cached block
        c = umkit.managed(1024)
        assert c.ptr != p                                    # b still holds it
        b.host[:] = 3
        umkit.increment(b)
        umkit.synchronize()
        np.testing.assert_array_equal(to_numpy(b.host), np.full(1024, 4, np.float32))
    pool.close()


def test_pool_stats_current_and_peak(backend):
    pool = umkit.MemoryPool()
    with pool:
        a = umkit.managed(1024)                              # 4096 B each
        b = umkit.managed(2048)                              # 8192 B
        assert pool.stats["current_bytes"] == 4096 + 8192
        assert pool.stats["peak_bytes"] == 4096 + 8192
        a.free()
        assert pool.stats["current_bytes"] == 8192
        assert pool.stats["peak_bytes"] == 4096 + 8192
        assert pool.stats["cached_bytes"] == 4096
        c = umkit.managed(1024)                              # from the cache
        assert pool.stats["upstream_allocs"] == 2
        assert pool.stats["current_bytes"] == 4096 + 8192
        assert [blk.ptr for blk in pool.live()] == sorted([b.ptr, c.ptr])
    pool.close()
    assert pool.stats["current_bytes"] == 0 and pool.stats["cached_bytes"] == 0
    assert pool.stats["upstream_frees"] == pool.stats["upstream_allocs"] == 2


def test_pool_of_device_memory(backend):
    with umkit.MemoryPool(kind="device") as pool:
        d = umkit.device_array(4096)
        m = umkit.managed(4096)                              # other kinds bypass the pool
        assert pool.owns(d.ptr) and not pool.owns(m.ptr)
        umkit.fill(d, 9.0)
        np.testing.assert_array_equal(umkit.read_back(d), np.full(4096, 9, np.float32))
    pool.close()


# -- interop: hand the device view to other libraries ------------------------------------------------------------------------
def _require_gpu_interop(backend: str, what: str):
    if backend == "sim":
        pytest.skip(f"sim: {what} is a GPU-backend feature; sim's device view is a NumPy twin "
                    "in host memory")


def test_cuda_array_interface(backend):
    _require_gpu_interop(backend, "__cuda_array_interface__")
    a = umkit.managed((16, 8))
    if backend == "hip" and not hasattr(a.device, "__cuda_array_interface__"):
        pytest.skip("hip: this CuPy build does not export __cuda_array_interface__")
    cai = a.__cuda_array_interface__
    assert cai["data"][0] == a.ptr
    assert tuple(cai["shape"]) == (16, 8)
    assert np.dtype(cai["typestr"]) == np.float32


def test_dlpack_shares_memory(backend):
    _require_gpu_interop(backend, "DLPack")
    xp = umkit.array_module()
    a = umkit.managed(4096)
    a.host[:] = 1
    umkit.synchronize()
    t = xp.from_dlpack(a)
    assert t.shape == (4096,)
    t += 1                                                   # through the other library
    umkit.synchronize()
    np.testing.assert_array_equal(to_numpy(a.host), np.full(4096, 2, np.float32))


# -- the device ---------------------------------------------------------------------------------------------------------------
def test_capabilities_keys(backend):
    caps = umkit.capabilities()
    for key in ("managed_memory", "concurrent_managed_access", "pageable_memory_access"):
        assert key in caps, key
        assert isinstance(caps[key], bool), (key, caps[key])
    assert caps["managed_memory"] is True
    if backend == "hip":
        assert "xnack" in caps


def test_mem_info(backend):
    free, total = umkit.mem_info()
    assert isinstance(free, int) and isinstance(total, int)
    assert 0 <= free <= total
    assert total > 64 * MiB


def test_device_count_and_capabilities_per_device(backend):
    n = umkit.device_count()
    assert n >= 1
    for i in range(n):
        assert umkit.capabilities(i)["managed_memory"] is True
    with pytest.raises(umkit.InvalidArgument):
        umkit.managed(16, device=n)


def test_backend_name(backend):
    assert umkit.backend_name() == backend
    assert umkit.backend().name == backend
    xp = umkit.array_module()
    assert (xp is np) if backend == "sim" else (xp.__name__ == "cupy")
