"""Each simulator mechanism on its own, on small buffers, with exact expected counters.

Every expected number is computed from the active profile's sizes (host page, GPU migration
block ``gpu_page``, fault granularity, 2 MiB ``region``, fault batch size), as the model in
``umkit/sim/engine.py`` and ``umkit/sim/costs.py`` defines them -- never pasted from a run:

* a GPU touch of non-resident managed memory takes one fault per ``fault_granularity`` bytes,
  serviced ``fault_batch_max`` at a time, and migrates whole ``gpu_page`` blocks;
* a CPU touch of GPU-resident managed memory takes one fault per ``gpu_page`` block;
* the density prefetcher pulls in the rest of a region once more than ``PREFETCH_THRESHOLD`` of it
  is resident on the GPU;
* eviction moves the least recently *migrated* region first (the GPU doesn't tell the driver
  about accesses to resident pages, so recency is migration time, as in NVIDIA's UVM).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import umkit
from umkit.errors import RaceWarning
from umkit.sim import faults as sim_faults
from umkit.sim.costs import available_profiles

KiB, MiB = 1 << 10, 1 << 20
F32 = 4


@pytest.fixture(autouse=True)
def _no_env_backend(monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)


def sim(**options):
    """A fresh sim backend (default profile h200-pcie5 unless ``profile=`` says otherwise)."""
    return umkit.use("sim", **options)


def counters() -> dict:
    return umkit.counters()


def cpu_populated(nbytes: int, value: float = 1.0, kind: str = "managed") -> umkit.Array:
    """A float32 array of ``nbytes`` the CPU has written (so its pages live on the CPU)."""
    a = umkit.empty(nbytes // F32, "float32", kind)
    a.host[:] = value
    umkit.synchronize()
    return a


def gpu_resident(nbytes: int) -> tuple:
    """(profile, array): a fresh sim, ``nbytes`` the CPU wrote and then prefetched to the GPU."""
    p = sim().profile
    a = cpu_populated(nbytes)
    a.prefetch("gpu")
    umkit.synchronize()
    return p, a


def codes(a: umkit.Array) -> np.ndarray:
    return umkit.residency(a).codes


UNPOP, ON_CPU, ON_GPU, BOTH = 0, 1, 2, 3


def need_profile(name: str):
    if name not in available_profiles():
        pytest.skip(f"profile {name!r} is not in umkit/sim/profiles yet (available: "
                    f"{available_profiles()})")


# -- GPU faults ------------------------------------------------------------------------------------
def test_fault_driven_gpu_read_of_cpu_populated_buffer():
    b = sim()
    p = b.profile
    nbytes = 4 * MiB
    a = cpu_populated(nbytes, 3.0)
    umkit.reset_counters()
    sink = umkit.touch(a, 4)                              # the GPU reads every float
    umkit.synchronize()
    c = counters()                                        # (before read_back's own copy)
    got = umkit.read_back(sink)[0]
    faults = nbytes // p.fault_granularity
    assert c["gpu_faults"] == faults
    assert c["fault_batches"] == math.ceil(faults / p.fault_batch_max)
    assert c["bytes_h2d"] == nbytes                       # every byte crossed once
    assert c["prefetcher_bytes"] == 0                     # nothing left for it: all resident
    assert c["cpu_faults"] == 0 and c["bytes_peer"] == 0
    assert got == pytest.approx(3.0 * nbytes / F32)
    assert (codes(a) == ON_GPU).all()


def test_gpu_first_touch_of_fresh_memory_faults_but_moves_nothing():
    b = sim()
    p = b.profile
    a = umkit.managed(2 * MiB // F32)                     # never touched: no physical pages
    umkit.fill(a, 5.0)
    umkit.synchronize()
    c = counters()
    assert c["gpu_faults"] == a.nbytes // p.fault_granularity
    assert c["bytes_h2d"] == 0 and c["bytes_d2h"] == 0    # populated in place on the GPU
    assert (codes(a) == ON_GPU).all()
    np.testing.assert_array_equal(umkit.read_back(a), 5.0)


def test_strided_touch_faults_one_block_per_region():
    b = sim()
    p = b.profile
    nbytes = 8 * MiB
    a = cpu_populated(nbytes)
    umkit.reset_counters()
    umkit.touch(a, p.region)                              # one float every 2 MiB
    umkit.synchronize()
    c = counters()
    regions = nbytes // p.region
    assert c["gpu_faults"] == regions                     # one fault unit per region touched
    assert c["fault_batches"] == math.ceil(regions / p.fault_batch_max)
    assert c["bytes_h2d"] == regions * p.gpu_page         # one migration block per region
    assert c["prefetcher_bytes"] == 0                     # 1 block of a region: far below 51%
    per_region = codes(a).reshape(regions, -1)
    pages_per_block = p.gpu_page // p.host_page
    assert (per_region[:, :pages_per_block] == ON_GPU).all()
    assert (per_region[:, pages_per_block:] == ON_CPU).all()


# -- the density prefetcher ----------------------------------------------------------------------------
def _read_first_blocks(b, k: int, prefetcher: bool):
    """One region, CPU-populated; the GPU reads its first ``k`` gpu_page blocks."""
    p = b.profile
    a = cpu_populated(p.region)
    umkit.reset_counters()
    float(a.device[: k * p.gpu_page // F32].sum())        # a GPU-side read through the twin
    umkit.synchronize()
    return a, counters()


@pytest.mark.parametrize("prefetcher", [True, False])
def test_density_prefetcher_above_threshold(prefetcher):
    b = sim(prefetcher=prefetcher)
    p = b.profile
    blocks = p.region // p.gpu_page
    k = math.floor(sim_faults.PREFETCH_THRESHOLD / 100 * blocks) + 1   # just over the threshold
    assert k < blocks, "the profile's region must hold more than one migration block"
    a, c = _read_first_blocks(b, k, prefetcher)
    assert c["gpu_faults"] == k * p.gpu_page // p.fault_granularity
    rest = (blocks - k) * p.gpu_page
    if prefetcher:
        assert c["prefetcher_bytes"] == rest
        assert c["bytes_h2d"] == p.region                 # the whole region came over
        assert (codes(a) == ON_GPU).all()
    else:
        assert c["prefetcher_bytes"] == 0
        assert c["bytes_h2d"] == k * p.gpu_page
        assert (codes(a)[k * p.gpu_page // p.host_page:] == ON_CPU).all()


def test_density_prefetcher_below_threshold_does_nothing():
    b = sim(prefetcher=True)
    p = b.profile
    blocks = p.region // p.gpu_page
    k = math.floor(sim_faults.PREFETCH_THRESHOLD / 100 * blocks)
    if k * p.gpu_page / p.region > sim_faults.PREFETCH_THRESHOLD / 100:
        k -= 1
    _, c = _read_first_blocks(b, k, True)
    assert c["prefetcher_bytes"] == 0
    assert c["bytes_h2d"] == k * p.gpu_page


# -- explicit prefetch --------------------------------------------------------------------------------------
def test_prefetch_h2d_then_d2h_moves_nbytes_each_way_without_faults():
    sim()
    nbytes = 4 * MiB
    a = cpu_populated(nbytes, 7.0)
    umkit.reset_counters()
    a.prefetch("gpu")
    umkit.synchronize()
    assert (codes(a) == ON_GPU).all()
    umkit.increment(a)                                    # resident: no faults
    a.prefetch("cpu")
    umkit.synchronize()
    c = counters()
    assert c["prefetch_bytes_h2d"] == nbytes and c["bytes_h2d"] == nbytes
    assert c["prefetch_bytes_d2h"] == nbytes and c["bytes_d2h"] == nbytes
    assert c["gpu_faults"] == 0 and c["cpu_faults"] == 0
    assert (codes(a) == ON_CPU).all()
    np.testing.assert_array_equal(a.host, 8.0)
    assert counters()["cpu_faults"] == 0                  # the read above found pages home


def test_prefetch_takes_the_profiles_time():
    b = sim()
    p = b.profile
    nbytes = 8 * MiB
    a = cpu_populated(nbytes)
    with umkit.timer() as t_h2d:
        a.prefetch("gpu")
    with umkit.timer() as t_d2h:
        a.prefetch("cpu")
    timer = p.p.get("event_overhead", 0.0)     # umkit.timer's own host time before the block
    call = p.p.get("prefetch_submit", 0.0)      # the host's time in the prefetch call
    setup = p.p.get("fault_range_latency", 0.0)  # the range's first GPU operation sets it up
    assert t_h2d.ms == pytest.approx((timer + call + setup + p.prefetch_cost(nbytes, True)) * 1e3,
                                     rel=1e-9)
    assert t_d2h.ms == pytest.approx((timer + call + p.prefetch_cost(nbytes, False)) * 1e3, rel=1e-9)


def took(fn) -> float:
    """Model seconds the host spends in ``fn()``."""
    t0 = umkit.now()
    fn()
    return umkit.now() - t0


def test_pages_prefetched_back_read_as_resident_but_the_first_write_costs_per_page():
    """fit_probe 'cycles' on the H200 (run 23): the CPU reads pages a prefetch brought back as
    fast as pages that never left; its first write to each 4 KiB page costs more
    (``cpu_map_latency``), later writes do not."""
    b = sim()
    p = b.profile
    nbytes = 2 * MiB
    home, back = cpu_populated(nbytes), cpu_populated(nbytes)
    back.prefetch("gpu")
    back.prefetch("cpu")
    umkit.synchronize()
    assert took(lambda: float(back.host.sum())) == pytest.approx(took(lambda: float(home.host.sum())))
    resident_write = took(lambda: home.host.__setitem__(slice(None), 2.0))
    first = took(lambda: back.host.__setitem__(slice(None), 2.0))
    again = took(lambda: back.host.__setitem__(slice(None), 3.0))
    assert p.host_op("cpu_map_latency") > 0
    assert first == pytest.approx(resident_write + (nbytes // p.host_page) * p.host_op("cpu_map_latency"))
    assert again == pytest.approx(resident_write)
    assert counters()["cpu_faults"] == 0


@pytest.mark.parametrize("read_first", [True, False])
def test_pages_a_cpu_read_faulted_back_cost_the_same_first_write(read_first):
    """class_probe 'tripparts' on the H200 (2026-12-05): after a CPU sum faulted a GPU-resident
    buffer back, the CPU's first write to it took about 0.35 us per 4 KiB page more than the
    write after it -- as after a prefetch back.  A CPU *write* fault leaves nothing to pay."""
    b = sim(fault_cold_latency=0.0)
    p = b.profile
    nbytes = 4 * MiB
    home, a = cpu_populated(nbytes), cpu_populated(nbytes)
    a.prefetch("gpu")
    umkit.synchronize()
    if read_first:
        float(a.host.sum())                               # CPU faults bring every page back
    else:
        a.host[:] = 5.0                                   # CPU write faults bring them back
    assert counters()["cpu_faults"] > 0 and (codes(a) == ON_CPU).all()
    resident_write = took(lambda: home.host.__setitem__(slice(None), 2.0))
    first = took(lambda: a.host.__setitem__(slice(None), 2.0))
    again = took(lambda: a.host.__setitem__(slice(None), 3.0))
    extra = (nbytes // p.host_page) * p.host_op("cpu_map_latency") if read_first else 0.0
    assert first == pytest.approx(resident_write + extra)
    assert again == pytest.approx(resident_write)


def test_zero_copy_reads_and_writes_cross_the_link_in_its_two_directions():
    """fit_probe 'duplex' on the H200 (run 24): a zero-copy increment of pinned memory (each
    element read and written) takes the write alone (a fill) plus (1 - link_duplex) of the read;
    link_duplex=0 sends them one after the other."""
    def kernel_time(**opts):
        sim(**opts)
        a = cpu_populated(8 * MiB, kind="pinned")
        out = {}
        for name, fn in (("write", lambda: umkit.fill(a, 2.0)),
                         ("read_write", lambda: umkit.increment(a))):
            with umkit.timer() as t:
                fn()
            out[name] = t.ms
        assert umkit.counters()["gpu_faults"] == 0        # pinned: nothing faults, nothing moves
        return out
    d = umkit.sim.costs.load_profile().p["link_duplex"]
    assert 0.5 < d < 1
    full = kernel_time()
    serial = kernel_time(link_duplex=0.0)
    wire = 8 * MiB / umkit.sim.costs.load_profile().zero_copy_bw * 1e3      # ms, one direction
    assert serial["read_write"] - serial["write"] == pytest.approx(wire, rel=1e-3)
    assert full["read_write"] - full["write"] == pytest.approx((1 - d) * wire, rel=1e-3)
    assert full["write"] == pytest.approx(serial["write"])     # one direction: no change
    umkit.use("sim", quiet=True)


def test_prefetch_of_resident_pages_moves_nothing():
    sim()
    a = cpu_populated(2 * MiB)
    a.prefetch("gpu")
    umkit.synchronize()
    umkit.reset_counters()
    a.prefetch("gpu")
    umkit.synchronize()
    assert counters()["prefetch_bytes_h2d"] == 0 and counters()["bytes_h2d"] == 0


def test_a_prefetch_with_nothing_to_move_costs_its_host_call_alone():
    # no copy is pushed (uvm_va_block_make_resident_copy copies only non-resident pages): the
    # device-side fixed cost is not charged; one page left on the CPU brings it back
    p, a = gpu_resident(2 * MiB)
    timer, call = p.p.get("event_overhead", 0.0), p.p.get("prefetch_submit", 0.0)
    with umkit.timer() as noop:
        a.prefetch("gpu")
    assert noop.ms == pytest.approx((timer + call) * 1e3, rel=1e-9)
    a.host[:1] = 3.0                                      # one page back on the CPU
    umkit.synchronize()
    with umkit.timer() as one:
        a.prefetch("gpu")
    assert one.ms > noop.ms + 0.9 * p.prefetch_fixed(True) * 1e3


def _back_on_cpu(part: int, write: bool, **options):
    """An 8 MiB buffer resident on the GPU whose first ``part`` bytes the CPU then wrote (or
    only read): its pages came back by CPU faults.  Returns (profile, array)."""
    p = sim(**options).profile
    a = cpu_populated(8 * MiB)
    a.prefetch("gpu")
    umkit.synchronize()
    if write:
        a.host[:part // F32] = 2.0
    else:
        float(a.host[:part // F32].sum())
    return p, a


@pytest.mark.parametrize("how", ["faults", "prefetch"])
def test_pages_the_cpu_wrote_after_a_cpu_fault_cost_more_to_fault_back_not_to_prefetch(how):
    """fit_probe 'edits' and 'loop' on the H200 (run 29): the GPU fault-back of pages the CPU
    wrote after a CPU fault took them back costs dirty_refault_latency per 4 KiB page on top of
    pages the CPU only read (fit_probe 'pingpong'); a prefetch of them costs the same either way."""
    part = 256 * KiB

    def gpu_read(write: bool, **options) -> tuple[float, dict]:
        p, a = _back_on_cpu(part, write, **options)
        umkit.reset_counters()
        t0 = umkit.now()
        if how == "prefetch":
            a.prefetch("gpu")
        umkit.touch(a, 4)
        umkit.synchronize()
        return umkit.now() - t0, counters()
    p = sim().profile
    cost = p.host_op("dirty_refault_latency")
    assert cost > 0
    (t_w, c_w), (t_r, c_r) = gpu_read(True), gpu_read(False)
    assert c_w["bytes_h2d"] == c_r["bytes_h2d"] > 0             # the same pages come back
    extra = (part // p.host_page) * cost if how == "faults" else 0.0
    assert t_w - t_r == pytest.approx(extra, abs=1e-12)
    t0_w, _ = gpu_read(True, dirty_refault_latency=0.0)
    assert t0_w == pytest.approx(t_r, abs=1e-12)
    umkit.use("sim", quiet=True)


# -- read-mostly ---------------------------------------------------------------------------------------------
def test_read_mostly_duplicates_once_then_cpu_reads_are_free():
    b = sim()
    p = b.profile
    nbytes = 4 * MiB
    npages = nbytes // p.host_page
    a = umkit.managed(nbytes // F32)
    a.advise("read_mostly")
    a.host[:] = 2.0
    umkit.synchronize()
    umkit.reset_counters()
    umkit.touch(a, 4)                                     # GPU read: one duplication
    umkit.synchronize()
    c = counters()
    assert c["bytes_h2d"] == nbytes and c["duplicates"] == npages
    assert (codes(a) == BOTH).all()
    umkit.reset_counters()
    assert float(a.host.sum()) == 2.0 * nbytes / F32      # CPU read: its copy is still there
    umkit.touch(a, 4)                                     # GPU read again: its copy too
    umkit.synchronize()
    c = counters()
    assert c["cpu_faults"] == 0 and c["gpu_faults"] == 0
    assert c["bytes_h2d"] == 0 and c["bytes_d2h"] == 0
    assert (codes(a) == BOTH).all()


def test_read_mostly_gpu_write_invalidates_the_copies():
    b = sim()
    p = b.profile
    nbytes = 2 * MiB
    npages = nbytes // p.host_page
    a = umkit.managed(nbytes // F32)
    a.advise("read_mostly")
    a.host[:] = 1.0
    umkit.touch(a, 4)
    umkit.synchronize()
    assert (codes(a) == BOTH).all()
    umkit.reset_counters()
    umkit.increment(a)                                    # a GPU write
    umkit.synchronize()
    c = counters()
    assert c["invalidations"] == npages
    assert c["gpu_faults"] == nbytes // p.fault_granularity
    assert c["bytes_h2d"] == 0                            # the GPU had its copy already
    assert (codes(a) == ON_GPU).all()                     # the CPU copies are gone
    umkit.reset_counters()
    np.testing.assert_array_equal(a.host, 2.0)            # so the CPU faults them back
    # one CPU fault per 64 KiB block until the prefetcher takes in the rest of each 2 MiB block:
    # blocks 0, 1, 2, 4, 8 and 16 (the 192 faults the H200's driver counted for 64 MiB)
    assert counters()["cpu_faults"] == 6 * (nbytes // p.region)
    assert counters()["bytes_d2h"] == nbytes


def test_read_mostly_cpu_write_invalidates_the_gpu_copies():
    b = sim()
    p = b.profile
    a = umkit.managed(MiB // F32)
    a.advise("read_mostly")
    a.host[:] = 1.0
    umkit.touch(a, 4)
    umkit.synchronize()
    umkit.reset_counters()
    a.host[:] = 4.0
    assert counters()["invalidations"] == a.nbytes // p.host_page
    assert (codes(a) == ON_CPU).all()


# -- remote access: accessed-by, preferred location, pinned, device memory ---------------------------------------
def test_accessed_by_gpu_with_preferred_cpu_reads_remotely():
    sim()
    nbytes = 4 * MiB
    a = umkit.managed(nbytes // F32)
    a.advise("preferred_location", "cpu")
    a.advise("accessed_by", "gpu")
    a.host[:] = 1.0
    umkit.synchronize()
    umkit.reset_counters()
    sink = umkit.touch(a, 4)                              # reads every byte once
    umkit.synchronize()
    c = counters()
    assert umkit.read_back(sink)[0] == pytest.approx(nbytes / F32)
    assert c["remote_bytes"] == nbytes
    assert c["gpu_faults"] == 0
    assert c["bytes_h2d"] == 0 and c["bytes_d2h"] == 0    # zero migrations
    assert (codes(a) == ON_CPU).all()


def test_preferred_cpu_alone_faults_once_then_maps_remotely():
    b = sim()
    p = b.profile
    nbytes = 2 * MiB
    a = umkit.managed(nbytes // F32)
    a.advise("preferred_location", "cpu")
    a.host[:] = 1.0
    umkit.synchronize()
    umkit.reset_counters()
    umkit.touch(a, 4)
    umkit.synchronize()
    c = counters()
    assert c["gpu_faults"] == nbytes // p.fault_granularity    # faults, but no migration
    assert c["bytes_h2d"] == 0 and c["remote_bytes"] == nbytes
    umkit.reset_counters()
    umkit.touch(a, 4)                                     # the mapping stays: no new faults
    umkit.synchronize()
    c = counters()
    assert c["gpu_faults"] == 0 and c["remote_bytes"] == nbytes
    assert (codes(a) == ON_CPU).all()


def test_pinned_memory_is_read_remotely_only():
    sim()
    nbytes = 4 * MiB
    a = cpu_populated(nbytes, 1.0, kind="pinned")
    umkit.reset_counters()
    umkit.touch(a, 4)
    umkit.increment(a)
    umkit.synchronize()
    c = counters()
    assert c["remote_bytes"] == nbytes + 2 * nbytes       # touch reads; increment reads+writes
    assert c["gpu_faults"] == 0 and c["cpu_faults"] == 0
    assert c["bytes_h2d"] == 0 and c["bytes_d2h"] == 0
    assert (codes(a) == ON_CPU).all()
    np.testing.assert_array_equal(a.host, 2.0)


def test_device_memory_never_moves_even_under_pressure():
    b = sim(vram=8 * MiB)
    d = umkit.device_array(2 * MiB // F32)
    umkit.fill(d, 1.0)
    m = cpu_populated(8 * MiB)                            # more managed memory than VRAM left
    umkit.reset_counters()
    umkit.increment(m)
    umkit.increment(d)
    umkit.synchronize()
    c = counters()
    assert c["evictions"] > 0                             # managed pages breathed out ...
    assert (codes(d) == ON_GPU).all()                     # ... device memory did not
    with pytest.raises(umkit.NotManaged):
        d.prefetch("cpu")
    np.testing.assert_array_equal(umkit.read_back(d), 2.0)
    assert b.mem_info(0)[0] >= 0


def test_cpu_read_of_gpu_resident_pages_faults_them_back():
    b = sim()
    p = b.profile
    nbytes = 4 * MiB
    a = cpu_populated(nbytes, 6.0)
    a.prefetch("gpu")
    umkit.synchronize()
    umkit.reset_counters()
    assert float(a.host.sum()) == 6.0 * nbytes / F32
    c = counters()
    # a CPU fault per 64 KiB block until the prefetcher takes the rest of the 2 MiB block
    assert c["cpu_faults"] == 6 * (nbytes // p.region)
    assert c["prefetcher_bytes"] == nbytes - c["cpu_faults"] * p.gpu_page
    assert c["bytes_d2h"] == nbytes
    assert c["gpu_faults"] == 0 and c["bytes_h2d"] == 0
    assert (codes(a) == ON_CPU).all()


def test_cpu_read_of_one_page_brings_back_its_block():
    p, a = gpu_resident(4 * MiB)
    umkit.reset_counters()
    float(a.host[0])                                      # one float
    c = counters()
    assert c["cpu_faults"] == 1
    assert c["bytes_d2h"] == p.gpu_page
    pages_per_block = p.gpu_page // p.host_page
    assert (codes(a)[:pages_per_block] == ON_CPU).all()
    assert (codes(a)[pages_per_block:] == ON_GPU).all()


# -- eviction -----------------------------------------------------------------------------------------------------
def test_oversubscription_evicts_and_thrashes():
    vram = 8 * MiB
    b = sim(vram=vram)
    p = b.profile
    nbytes = 16 * MiB
    regions = nbytes // p.region
    a = cpu_populated(nbytes)
    sink = umkit.device_array(1)                          # its page is VRAM too
    free_vram = umkit.mem_info()[0]
    fit = free_vram // p.region                           # whole regions that fit
    assert 0 < fit < regions
    umkit.reset_counters()
    umkit.touch(a, 4, sink=sink)                          # pass 1
    umkit.synchronize()
    c1 = counters()
    assert c1["gpu_faults"] == nbytes // p.fault_granularity
    assert c1["bytes_h2d"] == nbytes
    assert c1["evictions"] == regions - fit
    assert c1["evicted_bytes"] == (regions - fit) * p.region
    assert c1["bytes_d2h"] == c1["evicted_bytes"]
    per_region = codes(a).reshape(regions, -1)
    assert (per_region[:regions - fit] == ON_CPU).all()   # the first regions went back ...
    assert (per_region[regions - fit:] == ON_GPU).all()   # ... the last ones stayed
    evicted = [e["detail"] for e in b.engine.trace if e["op"] == "evict"]
    assert evicted == [f"region {r} of {a.ptr:#x} -> cpu" for r in range(regions - fit)]
    assert umkit.mem_info()[0] >= 0

    umkit.reset_counters()
    umkit.touch(a, 4, sink=sink)                          # pass 2: the same sweep again
    umkit.synchronize()
    c2 = counters()
    # everything evicted in pass 1 faults again and pushes the survivors out: thrash
    assert c2["gpu_faults"] >= (regions - fit) * p.region // p.fault_granularity
    assert c2["bytes_h2d"] >= (regions - fit) * p.region
    assert c2["evictions"] >= regions - fit
    evicted = [e["detail"] for e in b.engine.trace if e["op"] == "evict"]
    # least recently migrated first: pass 1's survivors, oldest first
    assert evicted[:fit] == [f"region {r} of {a.ptr:#x} -> cpu"
                             for r in range(regions - fit, regions)]


def test_eviction_takes_the_least_recently_migrated_region():
    b = sim(vram=8 * MiB)
    p = b.profile
    assert 8 * MiB // p.region == 4
    x, y = cpu_populated(2 * p.region), cpu_populated(2 * p.region)
    umkit.increment(x)                                    # x migrates first
    umkit.synchronize()
    umkit.increment(y)                                    # then y: VRAM is now full
    umkit.synchronize()
    umkit.increment(x)                                    # x used again (no migration)
    umkit.synchronize()
    umkit.reset_counters()
    z = cpu_populated(p.region)
    umkit.increment(z)                                    # needs one region
    umkit.synchronize()
    assert counters()["evictions"] == 1
    per_x = codes(x).reshape(2, -1)
    assert (per_x[0] == ON_CPU).all() and (per_x[1] == ON_GPU).all()
    assert (codes(y) == ON_GPU).all() and (codes(z) == ON_GPU).all()
    np.testing.assert_array_equal(x.host, 3.0)            # evicted data survives


# -- AMD profiles ---------------------------------------------------------------------------------------------------
def test_xnack_off_never_migrates():
    need_profile("mi250x-xnack0")
    sim(profile="mi250x-xnack0")
    nbytes = 4 * MiB
    a = cpu_populated(nbytes, 1.0)
    umkit.reset_counters()
    umkit.touch(a, 4)
    umkit.increment(a)
    umkit.synchronize()
    c = counters()
    assert c["gpu_faults"] == 0 and c["fault_batches"] == 0
    assert c["bytes_h2d"] == 0 and c["bytes_d2h"] == 0 and c["prefetcher_bytes"] == 0
    assert c["remote_bytes"] == nbytes + 2 * nbytes       # read over the link instead
    assert (codes(a) == ON_CPU).all()
    np.testing.assert_array_equal(a.host, 2.0)
    assert umkit.capabilities()["xnack"]["target"] == "xnack-"


def test_xnack_off_explicit_prefetch_still_migrates():
    """OLCF's Frontier guide: with XNACK off there is no fault-driven migration, but an explicit
    hipMemPrefetchAsync moves the pages; the GPU then reads them locally."""
    need_profile("mi250x-xnack0")
    sim(profile="mi250x-xnack0")
    nbytes = 4 * MiB
    a = cpu_populated(nbytes, 1.0)
    umkit.reset_counters()
    a.prefetch("gpu")
    umkit.touch(a, 4)
    umkit.synchronize()
    c = counters()
    assert c["prefetch_bytes_h2d"] == nbytes and c["gpu_faults"] == 0
    assert c["remote_bytes"] == 0
    assert umkit.attributes(a)["last_prefetch_location"] == umkit.gpu(0)
    assert (codes(a) == ON_GPU).all()


def test_apu_moves_no_bytes():
    need_profile("mi300a-apu")
    sim(profile="mi300a-apu")
    nbytes = 4 * MiB
    a = cpu_populated(nbytes, 1.0)
    fresh = umkit.managed(nbytes // F32)
    umkit.reset_counters()
    umkit.touch(a, 4)
    umkit.increment(a)
    umkit.fill(fresh, 3.0)
    a.prefetch("gpu")
    a.prefetch("cpu")
    umkit.synchronize()
    np.testing.assert_array_equal(a.host, 2.0)
    np.testing.assert_array_equal(fresh.host, 3.0)
    c = counters()
    for key in ("bytes_h2d", "bytes_d2h", "bytes_peer", "prefetch_bytes_h2d", "prefetch_bytes_d2h",
                "prefetcher_bytes", "evicted_bytes", "gpu_faults", "cpu_faults"):
        assert c[key] == 0, key
    assert (codes(a) == BOTH).all() and (codes(fresh) == BOTH).all()


# -- multi-GPU ------------------------------------------------------------------------------------------------------
def test_prefetch_between_gpus_moves_peer_bytes():
    sim(gpus=2)
    nbytes = 2 * MiB
    a = cpu_populated(nbytes)
    a.prefetch("gpu0")
    umkit.synchronize()
    umkit.reset_counters()
    a.prefetch("gpu1")
    umkit.synchronize()
    c = counters()
    assert c["bytes_peer"] == nbytes and c["bytes_h2d"] == 0 and c["bytes_d2h"] == 0
    assert umkit.attributes(a)["last_prefetch_location"] == umkit.gpu(1)


# -- races ----------------------------------------------------------------------------------------------------------
def _kernel_in_flight(strict=False):
    b = sim(strict=strict)
    a = cpu_populated(MiB, 0.0)
    s = umkit.Stream()
    umkit.increment(a, stream=s)                          # still running: nobody waited
    return b, a, s


def test_host_write_during_kernel_warns_naming_kernel_and_stream():
    b, a, s = _kernel_in_flight()
    with pytest.warns(RaceWarning) as record:
        a.host[:10] = 5.0
    msg = str(record[0].message)
    race = b.engine.races[-1]
    assert race["stream"] == s.handle.id and race["kernel"] == "increment_kernel"
    assert "'increment_kernel'" in msg and f"stream {s.handle.id}" in msg
    assert "synchronize" in msg                           # says what to do
    assert counters()["race_flags"] == 1
    assert race["host_write"] and race["kernel_write"]
    assert race["bytes"] == (0, b.profile.host_page)      # the first page, where it wrote


def test_host_read_of_kernel_output_is_a_race():
    b, a, s = _kernel_in_flight()
    with pytest.warns(RaceWarning, match="reads"):
        float(a.host[0])


def test_strict_mode_raises_before_the_write():
    b, a, s = _kernel_in_flight(strict=True)
    with pytest.raises(umkit.RaceDetected, match="increment_kernel") as info:
        a.host[:10] = 5.0
    assert "synchronize" in info.value.hint
    s.synchronize()
    np.testing.assert_array_equal(a.host[:10], 1.0)       # the write never happened


@pytest.mark.parametrize("how", ["stream", "event", "device"])
def test_no_race_after_synchronizing(how):
    b, a, s = _kernel_in_flight()
    if how == "stream":
        s.synchronize()
    elif how == "event":
        umkit.Event().record(s).synchronize()
    else:
        umkit.synchronize()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RaceWarning)
        a.host[:10] = 5.0
    assert counters()["race_flags"] == 0


def test_reads_on_both_sides_are_not_a_race():
    sim()
    a = cpu_populated(MiB)
    s = umkit.Stream()
    umkit.touch(a, 4, stream=s)                           # the kernel only reads a
    with warnings.catch_warnings():
        warnings.simplefilter("error", RaceWarning)
        float(a.host.sum())
    assert counters()["race_flags"] == 0


def test_host_write_to_other_memory_is_not_a_race():
    b, a, s = _kernel_in_flight()
    other = umkit.managed(MiB // F32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RaceWarning)
        other.host[:] = 1.0
    assert counters()["race_flags"] == 0


# -- determinism -------------------------------------------------------------------------------------------------------
def _program():
    b = sim(vram=8 * MiB)
    a = cpu_populated(6 * MiB, 1.0)
    w = umkit.managed(2 * MiB // F32)
    w.advise("read_mostly")
    w.host[:] = 2.0
    s = umkit.Stream()
    a.prefetch("gpu", stream=s)
    umkit.increment(a, stream=s)
    umkit.touch(w, 4096, stream=s)
    s.synchronize()
    umkit.add(a, a, a)
    umkit.synchronize()
    float(a.host[::1024].sum())
    with umkit.timer() as t:
        umkit.touch(a, 65536)
    umkit.synchronize()
    return (b.counters(), b.now(), t.ms, codes(a).tobytes(), codes(w).tobytes(),
            [(e["op"], e["layer"], e["t"]) for e in b.engine.trace], umkit.read_back(a).tobytes())


def test_identical_programs_give_identical_counters_and_times():
    first, second = _program(), _program()
    assert first[0] == second[0]                          # every counter
    assert first[1] == second[1] and first[2] == second[2]   # model times, to the bit
    assert first[3:] == second[3:]                        # residency, trace, data
    assert first[0]["gpu_faults"] > 0 and first[1] > 0    # the program did something


# -- driver layers --------------------------------------------------------------------------------------------------------
def test_layer_tags_malloc_is_umd_first_gpu_touch_is_kmd():
    b = sim()
    a = umkit.managed(MiB // F32)
    last = b.engine.trace[-1]
    assert (last["op"], last["layer"]) == ("malloc_managed", "umd")
    n = len(b.engine.trace)
    umkit.increment(a)                                    # the first GPU touch
    umkit.synchronize()
    new = list(b.engine.trace)[n:]
    kmd = [e for e in new if e["layer"] == "kmd"]
    assert kmd and kmd[0]["op"] == "fault_batch"
    assert any(e["layer"] == "umd" and e["op"] == "increment_kernel" for e in new)
    n = len(b.engine.trace)
    umkit.increment(a)                                    # resident now: no kmd work
    umkit.synchronize()
    assert [e["layer"] for e in list(b.engine.trace)[n:]] == ["umd"]
    d = umkit.device_array(16)
    assert d.kind == "device"
    assert (b.engine.trace[-1]["op"], b.engine.trace[-1]["layer"]) == ("malloc_device", "kmd")


# -- small managed allocations share VA blocks: which of them the prefetcher brings along ----------------
@pytest.mark.parametrize("count,nbytes,faulting", [
    # measured on the H200 (benchmarks/results/2026-12-01-h200-fitdata-run14/fit_probe*.json,
    # "packing"): each buffer's event-timed first GPU read; these took a fault, the rest ran at
    # the speed of a resident read.  The 128 KiB pattern repeats per 2 MiB VA block.
    (32, 8 * KiB, [0, 8, 16]),
    (32, 128 * KiB, [0, 1, 2, 4, 8, 16, 17, 18, 20, 24]),
    (16, MiB, list(range(16))),
])
def test_packed_small_buffers_fault_as_the_tree_prefetcher_decides(count, nbytes, faulting):
    b = sim()
    sink = umkit.device_array(1)
    bufs = [umkit.managed(nbytes // F32) for _ in range(count)]
    assert all(y.ptr - x.ptr == nbytes for x, y in zip(bufs, bufs[1:])), "packed back to back"
    for x in bufs:
        x.host[:] = 1.0
    umkit.synchronize()
    got = []
    for i, x in enumerate(bufs):
        before = b.counters()["gpu_faults"]
        umkit.touch(x, 4, sink=sink)
        umkit.synchronize()
        if b.counters()["gpu_faults"] > before:
            got.append(i)
    assert got == faulting
    assert all((codes(x) == ON_GPU).all() for x in bufs)    # every buffer ended up on the GPU
    assert all(float(x.host[:4].sum()) == 4.0 for x in bufs)  # data intact


def test_arena_first_fault_pays_the_range_cost_once():
    b = sim(fault_cold_latency=0.0)        # (the CPU's writes below would leave x's read cold)
    p = b.profile
    sink = umkit.device_array(1)
    x, y = umkit.managed(64 * KiB // F32), umkit.managed(4 * MiB // F32)   # y: its own range
    z = umkit.managed(64 * KiB // F32)                                     # x's arena
    for a in (x, y, z):
        a.host[:] = 1.0
    umkit.synchronize()

    def ms(a):
        with umkit.timer() as t:
            umkit.touch(a, 4, sink=sink)
        return t.ms
    tx, tz = ms(x), ms(z)
    assert tx - tz == pytest.approx(p.fault_range_latency * 1e3, rel=1e-6)


# -- the CPU's cache as a working set ----------------------------------------------------------------------
def _cpu_sum_ms(x) -> float:
    umkit.synchronize()
    t0 = umkit.now()
    float(x.host.sum())
    return (umkit.now() - t0) * 1e3


@pytest.mark.parametrize("each_mib, cached", [(6, True), (16, False)])
def test_cpu_cache_holds_a_working_set_not_one_buffer(each_mib, cached):
    """fit_probe 'cycles' (H200, run 23): a 6 MiB pinned buffer summed after two other 6 MiB
    buffers were written ran at the cache rate (18 MiB between two uses); three 16 MiB buffers
    in turn (UnifiedMemoryPerf's 16 MB loop, 48 MiB) do not fit, though each alone would."""
    b = sim()
    p = b.profile
    cache = p.p["host_cache_bytes"]
    assert 16 * MiB <= cache < 3 * 16 * MiB and 3 * 6 * MiB <= cache
    n = each_mib * MiB // F32
    bufs = [umkit.pinned(n) for _ in range(3)]
    for x in bufs[::-1]:
        x.host[:] = 1.0
    alone = _cpu_sum_ms(bufs[0])              # just touched: its own span only
    bufs[1].host[:] = 2.0
    bufs[2].host[:] = 3.0
    after = _cpu_sum_ms(bufs[0])              # two other buffers touched in between
    call = p.host_op("host_call_latency") * 1e3
    nbytes = each_mib * MiB
    assert alone == pytest.approx(call + nbytes / p.host_rate(False, nbytes) * 1e3, rel=1e-9)
    rate = p.host_rate(False, nbytes) if cached else p.host_mem_bw
    assert after == pytest.approx(call + nbytes / rate * 1e3, rel=1e-9)
    if cached:
        assert after == pytest.approx(alone, rel=1e-9)
    else:
        assert after > alone * 1.3            # DRAM rate, not the cache's
    for x in bufs:
        x.free()
    umkit.use("sim", quiet=True)


def test_cpu_cache_forgets_what_aged_out():
    """Touching more than a cache's worth of other buffers pushes a buffer out, however often
    it was used before; the bookkeeping stays bounded."""
    b = sim()
    p = b.profile
    n = 4 * MiB // F32
    keep = umkit.pinned(n)
    keep.host[:] = 1.0
    warm = _cpu_sum_ms(keep)
    others = [umkit.pinned(n) for _ in range(int(p.p["host_cache_bytes"]) // (4 * MiB) + 40)]
    for x in others:
        x.host[:] = 1.0
    cold = _cpu_sum_ms(keep)
    assert cold == pytest.approx(p.host_op("host_call_latency") * 1e3
                                 + 4 * MiB / p.host_mem_bw * 1e3, rel=1e-9)
    assert cold > warm
    assert len(b.engine.host.cache) <= 33
    for x in others + [keep]:
        x.free()
    umkit.use("sim", quiet=True)


def test_a_device_allocation_and_its_free_cost_more_with_the_size_up_to_8_mib():
    """On the H200 profile cudaMalloc / cudaFree take a fixed part plus one that grows with the
    square root of the size, held to 16 KiB - 8 MiB (small_bench measured that range; 64 and
    256 MiB cost about what 8 MiB does); a profile without the part by size charges one cost."""
    from umkit.sim.costs import DEVICE_SIZES
    umkit.use("sim", profile="h200-pcie5", quiet=True)
    p = umkit.backend().engine.profile
    assert p.host_op("alloc_device_per_sqrt_mib") > 0 and p.host_op("free_device_per_sqrt_mib") > 0

    def took(nbytes):
        t0 = umkit.now()
        a = umkit.empty(nbytes // F32, "float32", "device")
        t1 = umkit.now()
        a.free()
        return t1 - t0, umkit.now() - t1

    for nbytes in (4 * KiB, 16 * KiB, 512 * KiB, MiB, 8 * MiB, 64 * MiB):
        s = math.sqrt(min(max(nbytes, DEVICE_SIZES[0]), DEVICE_SIZES[1]) / MiB)
        alloc, free = took(nbytes)
        assert alloc == pytest.approx(p.host_op("alloc_device")
                                      + p.host_op("alloc_device_per_sqrt_mib") * s, rel=1e-9)
        assert free == pytest.approx(p.host_op("free_device")
                                     + p.host_op("free_device_per_sqrt_mib") * s, rel=1e-9)
    assert took(16 * KiB)[0] < took(MiB)[0] < took(8 * MiB)[0] == took(64 * MiB)[0]
    try:
        umkit.use("sim", profile="mi300x", quiet=True)
        q = umkit.backend().engine.profile
        assert took(16 * KiB)[0] == pytest.approx(took(64 * MiB)[0]) == pytest.approx(
            q.alloc_device)
    finally:
        umkit.use("sim", quiet=True)
