"""The multi-GPU rule, on every backend with two GPUs (sim: ``gpus=2``):

    a kernel runs on the device of its array unless a stream says otherwise.

So a default-stream kernel on an array allocated with ``device=1`` runs on GPU 1, even when the
array's pages sit on GPU 0: it pulls them across by faults (2x H200, issue 11: a 256 MiB array
took tens of ms), and the next kernel there finds them local.  A kernel given a stream of GPU 0
runs on GPU 0 and pulls them back.  The checks compare times that differ by well over 5x
on the card and on sim, and check the data.
"""
from __future__ import annotations

import numpy as np
import pytest

import umkit

MiB = 1 << 20


@pytest.fixture
def two_gpus(backend):
    if backend == "sim":
        umkit.use("sim", gpus=2, quiet=True)
    elif umkit.device_count() < 2:
        pytest.skip(f"{backend}: one GPU here; the rule needs two")
    # build and load the kernels on both GPUs first (untimed)
    for g in (0, 1):
        w = umkit.device_array(1024, device=g)
        umkit.fill(w, 0.0)
        umkit.increment(w)
        umkit.synchronize()
        w.free()
    yield backend


def _host_ms(fn):
    umkit.synchronize()
    t0 = umkit.now()
    fn()
    umkit.synchronize()
    return (umkit.now() - t0) * 1e3


def test_kernel_runs_on_its_arrays_device_unless_a_stream_says_otherwise(two_gpus):
    n = 64 * MiB // 4
    a = umkit.managed(n, device=1)
    want = (np.arange(n) % 1000).astype(np.float32)
    a.host[:] = want
    a.prefetch("gpu0")                     # the pages sit on GPU 0
    umkit.synchronize()
    s0 = umkit.Stream(0)
    assert umkit.kernel_device(a) == 1 and umkit.kernel_device(a, s0) == 0
    pull = _host_ms(lambda: umkit.increment(a))              # GPU 1: faults the pages across
    local = _host_ms(lambda: umkit.increment(a))             # GPU 1: pages are local now
    back = _host_ms(lambda: umkit.increment(a, stream=s0))   # the stream says GPU 0
    local0 = _host_ms(lambda: umkit.increment(a, stream=s0))
    assert pull > 5 * local, (pull, local)
    assert back > 5 * local0, (back, local0)
    np.testing.assert_array_equal(umkit.read_back(a), want + 4)
    a.free()


def test_kernel_on_a_device_1_array_with_its_pages_on_the_host(two_gpus):
    """The same rule when the pages are in host memory: the default-stream kernel on GPU 1
    migrates them there; a second kernel on GPU 1 is fast, one on GPU 0 is slow."""
    n = 64 * MiB // 4
    a = umkit.managed(n, device=1)
    a.host[:] = 1.0
    umkit.synchronize()
    pull = _host_ms(lambda: umkit.increment(a))
    local = _host_ms(lambda: umkit.increment(a))
    assert pull > 5 * local, (pull, local)
    s1 = umkit.Stream(1)
    with umkit.timer(s1) as t:             # the same kernel on an explicit GPU 1 stream
        umkit.increment(a, stream=s1)
    assert t.ms < pull / 5
    assert float(umkit.read_back(a)[:8].sum()) == 8 * 4.0
    a.free()
