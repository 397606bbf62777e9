"""NVIDIA UVM's thrashing throttle (umkit/sim/thrashing.py): pages the CPU and the GPU take from
each other within 500 us, three times, are thrashing; then the processor that faults second in
a throttling period waits the period out -- the CPU asleep in its fault handler, the GPU
replaying -- and the page starts over."""
import numpy as np
import pytest

import umkit
from umkit.measure.timing import cpu_written, round_trips
from umkit.sim.clock import Clock
from umkit.sim.costs import load_profile
from umkit.sim.pages import CPU_ID, Allocation
from umkit.sim.record import Record
from umkit.sim.thrashing import CPU_SLEEP_RANGE, NOBODY, Thrashing

KiB, MiB = 1 << 10, 1 << 20
US = 1e-6


@pytest.fixture(autouse=True)
def _no_env_backend(monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    yield
    umkit.use("sim", quiet=True)            # leave the default sim behind, whatever a test set


def trips(nbytes: int, n: int = 10, back: str = "fault", **options) -> dict:
    """``n`` round trips on one managed buffer -- the CPU writes it, the GPU increments it, the
    CPU sums it (``back="prefetch"``: a prefetch brings it back first) -- each piece in model
    ms, and the engine's counters after."""
    sim = umkit.use("sim", quiet=True, **options)
    a = cpu_written(nbytes)
    try:
        out = round_trips(a, n, back)
    finally:
        a.free()
    out["counters"] = dict(sim.engine.counters)
    return out


def test_tight_round_trips_take_naps_in_turns():
    r = trips(128 * KiB)
    nap_ms = load_profile("h200-pcie5").p["thrashing_nap"] * 1e3
    inc, add = np.array(r["increment"]), np.array(r["sum"])
    base_inc, base_sum = np.median(inc), np.median(add)
    slow_gpu = np.flatnonzero(inc > base_inc + 0.2 * nap_ms)
    slow_cpu = np.flatnonzero(add > base_sum + 0.2 * nap_ms)
    # three events come first (GPU, CPU, GPU migrations within the lapse): trips 0-2 run free
    assert slow_gpu.size and slow_cpu.size and min(slow_gpu.min(), slow_cpu.min()) >= 3, r
    # the processors take turns: a GPU wait, then a CPU one
    assert slow_gpu.min() < slow_cpu.min()
    assert r["counters"]["throttles"] == slow_gpu.size + slow_cpu.size
    # nobody waits longer than one period (the CPU's sleep: up to 1.5 of what was left)
    assert (inc - base_inc).max() <= nap_ms * 1.05
    assert (add - base_sum).max() <= nap_ms * CPU_SLEEP_RANGE * 1.05
    # and not every trip: most trips are free
    assert slow_gpu.size + slow_cpu.size <= len(inc) // 2


def test_trips_longer_than_the_lapse_are_not_throttled():
    r = trips(4 * MiB)
    assert min(r["increment"]) + min(r["sum"]) > 0.5      # each trip longer than 500 us
    assert r["counters"]["throttles"] == 0


def test_an_explicit_prefetch_clears_the_records():
    """UVM resets a page's thrashing state on any migration that is not a fault or the density
    prefetcher's (thrashing_event_cb -> thrashing_reset_pages_in_region)."""
    r = trips(128 * KiB, back="prefetch")
    assert r["counters"]["throttles"] == 0
    assert r["counters"]["prefetch_bytes_d2h"] > 0


def test_without_the_throttle_the_trips_are_flat():
    """A lapse of 0 turns the module off: the same loop takes no nap, and every trip after the
    first few costs the same."""
    r = trips(128 * KiB, thrashing_lapse=0.0)
    assert r["counters"]["throttles"] == 0
    assert np.ptp(r["increment"][2:]) < 0.01 and np.ptp(r["sum"][2:]) < 0.01


@pytest.mark.parametrize("profile", ["mi250x-xnack1", "mi300x", "teaching"])
def test_profiles_without_the_throttle(profile):
    assert trips(128 * KiB, profile=profile)["counters"]["throttles"] == 0


def test_extents_and_dense_pages_throttle_alike():
    dense = trips(128 * KiB, compute=True)
    ext = trips(128 * KiB, compute=False)
    assert dense == ext
    assert dense["counters"]["throttles"] > 0


def test_records_stay_bounded_in_a_long_loop():
    """Per-page records exist only for the 2 MiB blocks that thrash, however many trips run."""
    sim = umkit.use("sim", quiet=True)
    a = cpu_written(128 * KiB)
    try:
        for _ in range(200):
            a.host[:] = 1.0
            umkit.increment(a)
            umkit.synchronize()
            float(a.host.sum())
        st = sim.engine.allocs[a.ptr].thrash
        assert len(st.blocks) == 1 and st.block_ts.size == 1
        assert st.blocks[0].ts.size == 32 and len(st.thrashed) == 1
        # (the driver would pin the pages after 10 throttling periods each: not modelled)
        assert sim.engine.counters["throttles"] > 0
    finally:
        a.free()


# -- the state machine against the driver's rules, step by step --------------------------------
def _thrashing(enabled: bool) -> Thrashing:
    """The H200 profile's thrashing module, on a record of its own."""
    p = load_profile("h200-pcie5")
    return Thrashing(p, enabled, Record(Clock(p)))


def _alloc(npages=32):
    return Allocation(0x1000, npages * 4096, "managed", 0, 4096, 2 * MiB, 0.0)


def test_state_machine_follows_uvm_perf_thrashing():
    thr = _thrashing(True)
    a, pages, G, C = _alloc(), np.arange(32), 0, CPU_ID
    lapse, nap = thr.lapse, thr.nap
    assert (lapse, nap, thr.threshold) == (500 * US, 500 * US, 3)
    thr.migrated(a, pages, G, 0.0, counted=True)         # the block's first event: no records
    assert not a.thrash.blocks
    thr.migrated(a, pages, C, 100 * US, counted=True)    # another processor within the lapse
    P = a.thrash.blocks[0]
    assert (P.events == 0).all() and np.allclose(P.ts, 100 * US)
    for k, (who, t) in enumerate(((G, 200 * US), (C, 300 * US), (G, 400 * US)), start=1):
        assert thr.hint(a, pages, who, t) is None       # not thrashing yet: nobody waits
        thr.migrated(a, pages, who, t, counted=True)
        assert (P.events == k).all()
    # the CPU faults first in the new period: it opens it and is the one not throttled
    assert thr.hint(a, pages, C, 450 * US) is None
    assert np.allclose(P.end, 950 * US) and (P.spare == C).all()
    thr.migrated(a, pages, C, 450 * US, counted=True)
    # the GPU comes next within the period: throttled until its end, then it retries
    assert thr.hint(a, pages, G, 550 * US) == pytest.approx(950 * US)
    assert thr.wait(a, pages, G, 600 * US, cpu=False) == pytest.approx(350 * US + thr.replay)
    # its retry found the last migration more than a lapse ago: no longer thrashing; its
    # migration now clears the pages, and counting starts over
    assert (P.throttled == 0).all() and (P.end == 0).all() and (P.throttles == 1).all()
    thr.migrated(a, pages, G, 950 * US + thr.replay, counted=True)
    assert (P.events == 0).all() and np.isnan(P.ts).all()


def test_the_processor_spared_alternates_between_periods():
    thr = _thrashing(True)
    a, pages = _alloc(4), np.arange(4)
    thr.migrated(a, pages, 0, 0.0, counted=True)
    t = 0.0
    for who in (CPU_ID, 0, CPU_ID, 0):
        t += 100 * US
        thr.migrated(a, pages, who, t, counted=True)
    P = a.thrash.blocks[0]
    assert (P.events >= 3).all()
    t0 = t + 50 * US
    assert thr.hint(a, pages, CPU_ID, t0) is None           # opens a period, the CPU spared
    assert (P.spare == CPU_ID).all() and np.allclose(P.end, t0 + thr.nap)
    thr.migrated(a, pages, CPU_ID, t0, counted=True)
    thr.migrated(a, pages, 0, t0 + 400 * US, counted=True)  # (the density prefetcher's move)
    # the CPU opens the next period too: it is not spared twice in a row
    # (thrashing_throttle_update), so it is throttled in its own period
    t1 = t0 + thr.nap + 10 * US
    assert thr.hint(a, pages, CPU_ID, t1) == pytest.approx(t1 + thr.nap)
    assert (P.spare == NOBODY).all() and (P.throttled != 0).all()


def test_other_migrations_clear_thrashing_pages():
    thr = _thrashing(True)
    a, pages = _alloc(8), np.arange(8)
    t = 0.0
    for who in (0, CPU_ID, 0, CPU_ID, 0):
        thr.migrated(a, pages, who, t, counted=True)
        t += 100 * US
    P = a.thrash.blocks[0]
    assert (P.events == 3).all()
    thr.migrated(a, pages[:4], CPU_ID, t, counted=False)   # an explicit prefetch of half
    assert (P.events[:4] == 0).all() and (P.events[4:] == 3).all()
    # a long pause clears the rest at their next migration
    thr.migrated(a, pages[4:], CPU_ID, t + 2e-3, counted=True)
    assert (P.events == 0).all()


def test_a_disabled_module_records_nothing():
    thr = _thrashing(False)
    a = _alloc()
    thr.migrated(a, np.arange(32), 0, 0.0, counted=True)
    assert a.thrash is None and thr.hint(a, np.arange(32), 0, 1.0) is None


def test_an_epoch_without_thrashing_drops_the_records():
    thr = _thrashing(True)
    a, pages, t = _alloc(4), np.arange(4), 0.0
    for who in (0, CPU_ID, 0, CPU_ID, 0):
        thr.migrated(a, pages, who, t, counted=True)
        t += 100 * US
    assert (a.thrash.blocks[0].events == 3).all()
    later = t + thr.epoch + 1e-3                  # 2000 lapses (1 s) on: the block starts over
    assert thr.hint(a, pages, CPU_ID, later) is None
    assert not a.thrash.blocks and a.thrash.resets == {0: 1}


def test_cpu_preferred_pages_are_not_throttled():
    """The driver pins thrashing pages to a preferred location every processor can reach (the
    CPU's memory): nobody naps on them."""
    thr = _thrashing(True)
    a, pages, t = _alloc(4), np.arange(4), 0.0
    for who in (0, CPU_ID, 0, CPU_ID, 0):
        thr.migrated(a, pages, who, t, counted=True)
        t += 100 * US
    a.preferred[:2] = CPU_ID
    thr.hint(a, pages, CPU_ID, t)                 # opens a period on the two pages left
    assert thr.hint(a, pages[:2], 0, t + 10 * US) is None
    assert thr.hint(a, pages[2:], 0, t + 10 * US) == pytest.approx(t + thr.nap)


@pytest.mark.parametrize("bad, argument", [({"thrashing_nap": 100e-6}, "thrashing_nap"),
                                           ({"thrashing_threshold": 9}, "thrashing_threshold"),
                                           ({"thrashing_threshold": 2.5}, "thrashing_threshold")])
def test_a_nap_or_threshold_the_driver_cannot_have_is_refused(bad, argument):
    from umkit.errors import InvalidArgument
    with pytest.raises(InvalidArgument) as e:
        umkit.use("sim", quiet=True, **bad)
    assert e.value.argument == argument and e.value.hint
