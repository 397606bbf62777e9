"""Several GPUs (the article's §6.2): run on the active backend when it has two or more GPUs
(a 2-GPU machine on cuda/hip), and always on sim with gpus=2."""
import numpy as np
import pytest

import umkit


def _backends():
    out = ["sim"]
    try:
        umkit.use(None, quiet=True)
        if umkit.backend_name() != "sim" and umkit.device_count() >= 2:
            out.append(umkit.backend_name())
    except umkit.UmkitError:
        pass
    return out


@pytest.fixture(params=_backends())
def two(request):
    if request.param == "sim":
        umkit.use("sim", gpus=2, quiet=True)
    else:
        umkit.use(request.param, quiet=True)
    yield request.param
    umkit.use("sim", quiet=True)


def test_managed_array_moves_between_gpus_and_keeps_data(two):
    a = umkit.managed(1 << 20)
    a.host[:] = 1.0
    a.prefetch("gpu0")
    umkit.increment(a)
    umkit.synchronize()
    a.prefetch("gpu1")
    umkit.synchronize()
    assert umkit.attributes(a)["last_prefetch_location"] == umkit.gpu(1)
    assert float(umkit.read_back(a).sum()) == 2.0 * (1 << 20)
    if two == "sim":
        assert umkit.counters()["bytes_peer"] == a.nbytes
    a.free()


def test_kernel_on_second_gpu(two):
    a = umkit.managed(1 << 16, device=1)
    a.host[:] = 5.0
    a.prefetch("gpu1")
    s = umkit.Stream(device=1)
    umkit.increment(a, stream=s)
    s.synchronize()
    assert np.all(np.asarray(a.host) == 6.0)
    a.free()


def test_peer_prefetch_is_timed(two):
    a = umkit.managed(16 << 20)
    a.host[:] = 1.0
    s = umkit.Stream()
    a.prefetch("gpu0", stream=s)
    s.synchronize()
    with umkit.timer(s) as t:
        a.prefetch("gpu1", stream=s)
    assert t.ms > 0
    a.free()


def test_events_time_work_on_the_second_gpu(two):
    """Events are created on the current device; recording one on GPU 1's stream must work
    (a CUDA event belongs to one device: umkit re-creates it on the stream's device)."""
    a = umkit.managed(1 << 20, device=1)
    a.host[:] = 1.0
    s1 = umkit.Stream(device=1)
    a.prefetch("gpu1", stream=s1)
    with umkit.timer(s1) as t:
        umkit.increment(a, stream=s1)
    assert t.ms >= 0
    assert float(umkit.read_back(a).sum()) == 2.0 * (1 << 20)
    a.free()


def test_work_on_gpu1_does_not_move_gpu0_kernels(two):
    # 2x H200 (GPU CI, 2026-12-01): allocating on GPU 1 left GPU 1 current, and the next
    # stream-less kernel on GPU 0 arrays ran on GPU 1 -> cudaErrorIllegalAddress
    a = umkit.managed(1 << 16, device=0)
    a.host[:] = 1.0
    d1 = umkit.device_array(1 << 10, device=1)
    s1 = umkit.Stream(device=1)
    sink = umkit.device_array(1, device=0)
    umkit.fill(sink, 0.0)
    umkit.touch(a, 4, sink=sink)                 # GPU 0's array, GPU 0's sink, no stream
    umkit.increment(a)
    umkit.synchronize()
    assert float(umkit.read_back(sink)[0]) == float(1 << 16)
    assert np.all(np.asarray(a.host) == 2.0)
    s1.synchronize()
    for x in (a, d1, sink):
        x.free()
