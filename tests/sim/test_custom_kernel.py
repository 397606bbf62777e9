"""umkit.kernel: a learner's own kernel on sim declares what it costs beyond one pass over its
arrays (re-reads of inputs, arithmetic); sim charges max(memory time, flops / compute rate)."""
from __future__ import annotations

import numpy as np
import pytest

import umkit
from umkit.errors import InvalidArgument, InvalidType

MiB = 1 << 20


def _matmul(C, A, B, n):
    np.matmul(A.reshape(n, n), B.reshape(n, n), out=C.reshape(n, n))


@pytest.fixture
def sim():
    b = umkit.use("sim", quiet=True)
    yield b
    umkit.use("sim", quiet=True)


def _device_mats(n):
    A, B, C = (umkit.device_array(n * n) for _ in range(3))
    A.device[:] = 1.0
    B.device[:] = 2.0
    umkit.synchronize()
    return A, B, C


def _ms(fn):
    with umkit.timer() as t:
        fn()
    return t.ms


def test_result_is_computed_and_cost_follows_declared_rereads_and_flops(sim):
    p = umkit.sim_profile()
    sub = p.p.get("user_launch_overhead", p.p.get("launch_overhead", 0.0))  # the host submits it
    ev = p.p.get("event_overhead", 0.0)         # the host finishes the start event's record

    def timed(work):        # stamped start, the record's rest, the submit, then the kernel
        return (ev + sub + p.kernel_launch + work) * 1e3
    n = 256
    A, B, C = _device_mats(n)
    k = umkit.kernel("mm", sim=_matmul)
    one = _ms(lambda: k((8, 8), (32, 32), (C, A, B, np.uint32(n)), writes=[C]))
    assert np.all(umkit.read_back(C) == 2.0 * n)
    nb = n * n * 4
    assert one == pytest.approx(timed(3 * nb / p.hbm_bw), rel=1e-6)
    reread = _ms(lambda: k((8, 8), (32, 32), (C, A, B, np.uint32(n)), writes=[C],
                            reads={A: n / 32, B: n / 32}))
    # read_back's copy came last on the stream: the kernel waits for the copy engine's
    # completion first (copy_handoff_latency)
    assert reread == pytest.approx(timed((2 * n / 32 + 1) * nb / p.hbm_bw
                                         + p.p.get("copy_handoff_latency", 0.0)), rel=1e-6)
    flops = 2.0 * 4096 ** 3           # far more arithmetic than memory traffic: compute-bound
    heavy = _ms(lambda: k((8, 8), (32, 32), (C, A, B, np.uint32(n)), writes=[C], flops=flops))
    assert heavy == pytest.approx(timed(flops / p.fp32_flops), rel=1e-6)
    assert heavy > 10 * reread                  # the arithmetic, not the memory, bounds it
    # the rate is what the UnifiedMemoryPerf kernel achieved on device memory, not the datasheet peak
    assert "achieved" in p.sources["fp32_flops"] and p.fp32_flops < 67e12


def test_rereads_do_not_fault_twice_and_zero_copy_pays_every_reread(sim):
    p = umkit.sim_profile()
    n = 256
    nb = n * n * 4
    A = umkit.managed(n * n)
    A.host[:] = 1.0
    B, C = umkit.pinned(n * n), umkit.device_array(n * n)
    B.host[:] = 1.0
    umkit.synchronize()
    umkit.reset_counters()
    k = umkit.kernel("mm", sim=_matmul)
    k((8, 8), (32, 32), (C, A, B, np.uint32(n)), writes=[C], reads={A: 8, B: 8})
    umkit.synchronize()
    c = umkit.counters()
    assert c["gpu_faults"] == nb // p.fault_granularity      # A's pages fault once
    assert c["remote_bytes"] == 8 * nb                         # B read 8 times over the link


def test_runs_on_the_arrays_device(sim):
    umkit.use("sim", quiet=True, gpus=2)
    a = umkit.managed(MiB // 4, device=1)
    a.host[:] = 1.0
    umkit.synchronize()

    def inc(x):
        x += 1
    k = umkit.kernel("inc", sim=inc)
    k(1, 1, (a,), writes=[a], reads={a: 1})
    umkit.synchronize()
    assert umkit.residency(a).summary()["gpu"] == 1.0
    assert np.all(a.host == 2.0)
    assert umkit.kernel_device(a) == 1


@pytest.mark.parametrize("bad, exc", [
    (dict(flops=-1), InvalidArgument), (dict(flops=float("nan")), InvalidArgument),
    (dict(reads=[1]), InvalidType), (dict(reads={"x": 2}), InvalidArgument),
    (dict(writes=[np.zeros(3)]), InvalidArgument)])
def test_bad_declarations_are_typed_errors(sim, bad, exc):
    A, B, C = _device_mats(32)
    k = umkit.kernel("mm", sim=_matmul)
    with pytest.raises(exc):
        k(1, (32, 32), (C, A, B, np.uint32(32)), **bad)


def test_bad_kernels_are_typed_errors(sim):
    with pytest.raises(InvalidArgument):
        umkit.kernel("not an identifier", sim=_matmul)
    with pytest.raises(InvalidType):
        umkit.kernel("mm", sim=3)
    A, B, C = _device_mats(32)
    with pytest.raises(InvalidArgument, match="no sim twin"):
        umkit.kernel("mm", source="extern \"C\" __global__ void mm(){}")(1, 1, (C, A))
    with pytest.raises(InvalidType):
        umkit.kernel("mm", sim=_matmul)(1, 1, (C, "A"))
    with pytest.raises(InvalidArgument):
        umkit.kernel("mm", sim=_matmul)(1, 1, (3,))


def test_pageable_copies_are_staged_and_slower_than_pinned(sim):
    n = 4 * MiB // 4
    d, p = umkit.device_array(n), umkit.pinned(n)
    h = umkit.pageable(n)
    h[:] = 3.0
    p.host[:] = 3.0
    umkit.synchronize()
    t0 = umkit.now()
    umkit.copy(d, h)                        # the host waits for a pageable copy
    t_pageable = umkit.now() - t0
    with umkit.timer() as t:
        umkit.copy(d, p)
    assert t_pageable * 1e3 > t.ms
    back = umkit.pageable(n)
    umkit.copy(back, d)
    assert np.all(back == 3.0)
    with pytest.raises(InvalidArgument):
        umkit.copy(np.zeros(4), np.zeros(4))
