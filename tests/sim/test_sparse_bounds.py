"""Model-only sim on huge buffers: a touch that skips pages costs time linear in the pages it
touches (the density prefetcher looked at the whole access once per 2 MiB block it met), a touch
naming more separate pages than the page tables can follow is refused before any work (it ran
out of memory), and so is a residency map of more pages than one map may list -- typed errors
that say what to do, never MemoryError.  The model's numbers are not changed by any of it
(test_frozen_predictions, test_extents_differential)."""
import time

import numpy as np
import pytest

import umkit
from umkit.errors import InvalidArgument
from umkit.sim.backend import MAX_SNAPSHOT_PAGES
from umkit.sim.extents import union_sorted
from umkit.sim.kernels import MAX_SPARSE_PAGES

pytestmark = pytest.mark.usefixtures("fresh_sim")
GIB = 1 << 30


def model_only():
    umkit.use("sim", quiet=True, compute=False)


def sparse_touch_seconds(nbytes: int, stride: int = 65536) -> float:
    """Processor time of one touch every ``stride`` bytes of a fresh ``nbytes`` buffer."""
    model_only()
    a = umkit.managed(nbytes // 4)
    t0 = time.process_time()
    umkit.touch(a, stride)
    umkit.synchronize()
    t = time.process_time() - t0
    a.free()
    return t


def test_a_sparse_touch_costs_time_linear_in_the_pages_it_touches():
    sparse_touch_seconds(GIB)                               # warm up
    small = min(sparse_touch_seconds(4 * GIB) for _ in range(2))
    big = min(sparse_touch_seconds(16 * GIB) for _ in range(2))
    # 4x the pages: linear is 4x; before, each partly faulted 2 MiB block intersected the
    # whole access (16x: 1.2 s -> 19.5 s on the 2-core machine)
    assert big / small < 8, (small, big)


def test_a_sparse_touch_still_faults_every_page_it_touches():
    model_only()
    a = umkit.managed((256 << 20) // 4)
    before = umkit.counters()
    umkit.touch(a, 65536)
    umkit.synchronize()
    after = umkit.counters()
    assert after["gpu_faults"] > before["gpu_faults"]
    codes = umkit.residency(a).codes
    assert codes.size == (256 << 20) // 4096
    # every 16th page was touched: each is on the GPU now (its whole 64 KiB big page with it)
    assert (codes[::16] == 2).all()


def test_a_touch_naming_too_many_separate_pages_is_refused_before_any_work():
    model_only()
    a = umkit.managed((1 << 40) // 4)                      # 1 TiB
    t0 = time.process_time()
    with pytest.raises(InvalidArgument, match="separate pages") as e:
        umkit.touch(a, 8192)                                # 134 million pages apart
    assert time.process_time() - t0 < 2
    assert e.value.argument == "stride_bytes" and "stride_bytes <= 4096" in e.value.hint
    # nothing half-done: the simulator goes on, and a touch of every page is one range
    umkit.touch(a, 4096)
    umkit.synchronize()
    assert MAX_SPARSE_PAGES == 1 << 24


def test_a_residency_map_of_too_many_pages_is_refused():
    model_only()
    a = umkit.managed((64 << 40) // 4)                     # 64 TiB: 16 Gi pages of 4 KiB
    with pytest.raises(InvalidArgument, match="residency map lists every page") as e:
        umkit.residency(a)
    assert e.value.argument == "x" and "umkit.attributes" in e.value.hint
    assert (64 << 40) // 4096 > MAX_SNAPSHOT_PAGES
    small = umkit.managed((64 << 20) // 4)
    assert umkit.residency(small).codes.size == (64 << 20) // 4096


def test_union_sorted_is_np_unique_of_the_concatenation():
    rng = np.random.default_rng(46)
    for _ in range(200):
        parts = [np.sort(rng.integers(0, 50, rng.integers(0, 20))).astype(np.int64)
                 for _ in range(rng.integers(1, 4))]
        want = np.unique(np.concatenate(parts))
        got = union_sorted(parts)
        assert got.dtype == want.dtype and np.array_equal(got, want)
