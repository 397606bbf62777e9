"""Long loops stay flat: what a loop holds (resident memory) and what one iteration costs must
not grow with the number of iterations.  Each soak compares an early window of iterations with
a late one, in a few seconds; they check growth, not speed (speed targets live in
benchmarks/).

* a host view kept while launches queue up on the array (the race watch keeps one checksum per
  allocation, not a copy per launch, and lets go when the view dies);
* backends switched over and over after ``read_back`` and the default ``touch()`` (their staging
  pool and touch sink die with them);
* short-lived arrays allocated, written and freed (the CPU-cache model's bookkeeping holds what
  the cache can hold, not every allocation ever made).
"""
from __future__ import annotations

import gc
import time
import weakref

import numpy as np
import pytest

import umkit

MiB = 1 << 20


def rss_mib() -> float:
    """This process's resident memory (MiB), from /proc (Linux) or the peak elsewhere."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096 / MiB
    except OSError:
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def soak(step, n: int, window: int):
    """Run ``step(i)`` ``n`` times; the median seconds per step (or of the part of it whose
    seconds ``step`` returns) and the largest RSS, over an early window of ``window`` steps
    (after a warm-up window) and over the last one."""
    times, rss = [], []
    for i in range(n):
        t0 = time.perf_counter()
        timed = step(i)
        times.append(timed if isinstance(timed, float) else time.perf_counter() - t0)
        if i % max(1, window // 4) == 0:
            rss.append((i, rss_mib()))
    early = float(np.median(times[window:2 * window]))
    late = float(np.median(times[-window:]))
    rss_early = max(r for i, r in rss if window <= i < 2 * window)
    rss_late = max(r for i, r in rss if i >= n - window)
    return early, late, rss_early, rss_late


def assert_flat(early, late, rss_early, rss_late, *, slack_mib=24.0, ratio=3.0):
    assert late <= ratio * early + 20e-6, f"per step {early * 1e6:.0f} us -> {late * 1e6:.0f} us"
    assert rss_late - rss_early <= slack_mib, f"RSS {rss_early:.0f} -> {rss_late:.0f} MiB"


pytestmark = pytest.mark.usefixtures("fresh_sim")


def test_a_kept_view_does_not_make_every_launch_copy_the_array():
    """``h = a.host`` then launches that read ``a`` on a stream nobody waits for: the watch
    costs one checksum per allocation, not a copy per launch (32 MiB x 60 launches once took
    +868 MiB and 20 s)."""
    a = umkit.managed(16 * MiB // 4)
    a.host[:] = 1.0
    umkit.synchronize()
    h = a.host                                             # kept: launches are watched
    s = umkit.Stream()
    r0 = rss_mib()
    early, late, rss_early, rss_late = soak(lambda i: umkit.touch(a, 4096, stream=s), 1000, 60)
    assert rss_mib() - r0 < 64, "the watch copies the array"
    assert_flat(early, late, rss_early, rss_late)
    det = umkit.backend().engine.detector
    assert len(det.inflight) <= 64 + 1                     # merged, not one per launch
    np.random.default_rng(0).random(dtype=np.float32, out=h)    # a C write while they run
    with pytest.warns(umkit.RaceWarning):
        s.synchronize()
    del h
    gc.collect()
    umkit.touch(a, 4096, stream=s)                         # the view is gone: nothing watched
    assert not det.watching(umkit.backend().engine.find(a.ptr)[0])
    s.synchronize()



@pytest.mark.parametrize("view", ["kept", "dropped"])
def test_launches_over_a_whole_array_with_a_view_taken_hold_no_copies(view):
    """The issue's own case (§3, 32 MiB x 60 launches: +868 MiB and 20 s): launches that read
    the *whole* array while ``h = a.host`` is kept -- or after ``del h`` -- on a stream nobody
    waits for.  The soak above touches 4 KiB per launch, which a copy per launch also passes."""
    a = umkit.managed(32 * MiB // 4)
    a.host[:] = 1.0
    umkit.synchronize()
    h = a.host
    if view == "dropped":
        del h
        gc.collect()
    s = umkit.Stream()
    r0, t0 = rss_mib(), time.perf_counter()
    for _ in range(24):
        umkit.touch(a, stream=s)                           # reads every page of a
    grew, took = rss_mib() - r0, time.perf_counter() - t0
    s.synchronize()
    assert grew < 64, f"+{grew:.0f} MiB for 24 launches: the watch copies the array"
    assert took < 8.0, f"{took:.1f} s for 24 launches"

def test_switching_backends_lets_the_old_ones_go():
    """1,000 ``umkit.use()`` after read_back and the default touch() once kept every backend
    (+343 MiB): each one's staging pool and touch sink now die with it (the weak references
    say so directly; each switch costs a garbage collection, so the loop is short)."""
    refs = []

    def step(i):
        b = umkit.use("sim", quiet=True)
        x = umkit.managed(1024)
        x.host[:] = 1.0
        umkit.read_back(x)
        umkit.touch(x)
        refs.append(weakref.ref(b))
    early, late, rss_early, rss_late = soak(step, 48, 12)
    gc.collect()
    alive = sum(r() is not None for r in refs)
    assert alive <= 1, f"{alive} old backends still alive"
    assert_flat(early, late, rss_early, rss_late)


def test_short_lived_arrays_do_not_slow_the_cpu_cache_model():
    """Allocate, write and free small arrays in a loop: the cost of a host access does not grow
    with the number of arrays ever made (7,000 of them once took a host write from 133 us to
    1.1 ms; 100k, 152 s)."""
    b = umkit.backend()
    other = umkit.pinned(1024)
    other.host[:] = 0.0

    def step(i):
        x = umkit.pinned(1024)
        x.host[:] = float(i)
        x.free()
        t0 = time.perf_counter()
        other.host[:8] = 1.0                               # an unrelated array's host write
        return time.perf_counter() - t0
    early, late, rss_early, rss_late = soak(step, 10_000, 1000)     # 10^4 iterations
    assert_flat(early, late, rss_early, rss_late, ratio=2.0)
    cache = int(b.profile.p["host_cache_bytes"])
    assert len(b.engine.host.cache) <= cache // b.profile.host_page + 1
