"""One test per AMD semantic rule of the simulator (umkit/sim/policy.py), through the public API.

Each docstring names the driver/runtime source the rule follows; docs/amd-sources.md quotes the
lines.  Expected numbers are computed from the active profile (page sizes, granule), never pasted
from a run.  The NVIDIA contrast runs on ``h200-pcie5`` where the rule differs.
"""
from __future__ import annotations

import numpy as np
import pytest

import umkit
from umkit.sim.costs import load_profile
from umkit.sim.policy import (AmdApu, AmdCoherent, AmdXnackOff, AmdXnackOn, NvidiaPolicy, Rule,
                              policy_for)
from umkit.workloads import Pattern, Strategy, run

MiB = 1 << 20
F32 = 4
UNPOP, ON_CPU, ON_GPU, BOTH = 0, 1, 2, 3
XNACK1, XNACK0, APU, MI300X, H200 = "mi250x-xnack1", "mi250x-xnack0", "mi300a-apu", "mi300x", "h200-pcie5"


@pytest.fixture(autouse=True)
def _no_env_backend(monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)


def sim(profile=XNACK1, **kw):
    return umkit.use("sim", profile=profile, **kw)


def cpu_populated(nbytes: int, value: float = 1.0) -> umkit.Array:
    a = umkit.managed(nbytes // F32)
    a.host[:] = value
    umkit.synchronize()
    return a


def codes(a) -> np.ndarray:
    return umkit.residency(a).codes


def c():
    return umkit.counters()


# -- which policy a profile gets -----------------------------------------------------------------------
@pytest.mark.parametrize("profile, policy", [(H200, NvidiaPolicy), ("teaching", NvidiaPolicy),
                                             (XNACK1, AmdXnackOn), (MI300X, AmdXnackOn),
                                             ("mi250x-coherent", AmdCoherent),
                                             (XNACK0, AmdXnackOff), (APU, AmdApu)])
def test_profiles_select_their_policy_by_vendor_and_mode(profile, policy):
    """Profile JSON fields ``vendor``, ``mode`` and (where the driver differs by it)
    ``platform`` select the policy (umkit/sim/policy.py policy_for); every rule carries a
    source."""
    b = sim(profile)
    assert type(b.engine.policy) is policy
    assert umkit.capabilities()["policy"] == policy.name
    p = load_profile(profile)
    assert type(policy_for(p.vendor, p.mode, p.platform)) is policy
    for name, rule in policy.rules().items():
        assert isinstance(rule, Rule) and len(rule.source) > 20, name


def test_unknown_mode_is_a_typed_error():
    with pytest.raises(umkit.InvalidArgument, match="mode"):
        policy_for("amd", "teleport")


# -- fault granularity ----------------------------------------------------------------------------------
def test_one_gpu_fault_migrates_the_whole_2mib_granule():
    """amdkfd kfd_svm.c svm_range_restore_pages: the migration range is aligned to
    1 << prange->granularity pages (default 9 -> 2 MiB, svm_range_set_default_attributes);
    no density prefetcher.  NVIDIA contrast: a 64 KiB block per fault."""
    b = sim(XNACK1)
    p = b.profile
    granule = 2 * MiB
    assert p.gpu_page == granule and p.fault_granularity == granule
    nbytes = 8 * MiB
    a = cpu_populated(nbytes)
    umkit.reset_counters()
    umkit.touch(a, nbytes // 4)                        # one float every 2 MiB
    umkit.synchronize()
    k = c()
    touched = nbytes // (nbytes // 4)                  # 4 floats, one per 2 MiB
    assert k["gpu_faults"] == touched
    assert k["bytes_h2d"] == touched * granule == nbytes
    assert k["prefetcher_bytes"] == 0
    assert (codes(a) == ON_GPU).all()

    sim(H200)
    a = cpu_populated(nbytes)
    umkit.reset_counters()
    umkit.touch(a, nbytes // 4)
    umkit.synchronize()
    assert c()["bytes_h2d"] == 4 * umkit.backend().profile.gpu_page  # 4 x 64 KiB
    assert (codes(a) == ON_GPU).sum() == 4 * (64 << 10) // 4096


# -- prefetch ---------------------------------------------------------------------------------------------
def test_prefetch_migrates_the_range_without_faults():
    """kfd_svm.c svm_range_trigger_migration (KFD_IOCTL_SVM_ATTR_PREFETCH_LOC): the range moves
    to svm_range_best_prefetch_location; svm_range_is_same_attrs: 'Prefetch should always
    trigger a migration'."""
    sim(XNACK1)
    nbytes = 6 * MiB
    a = cpu_populated(nbytes)
    umkit.reset_counters()
    a.prefetch("gpu")
    umkit.touch(a, 4)
    umkit.synchronize()
    k = c()
    assert k["prefetch_bytes_h2d"] == nbytes and k["gpu_faults"] == 0
    assert (codes(a) == ON_GPU).all()
    a.prefetch("cpu")
    umkit.synchronize()
    assert c()["prefetch_bytes_d2h"] == nbytes and (codes(a) == ON_CPU).all()


# -- preferred location ---------------------------------------------------------------------------------------
def test_preferred_cpu_maps_system_memory_and_creates_new_pages_there():
    """kfd_svm.c svm_range_best_restore_location: a SYSMEM preferred location is the restore
    location, so a GPU fault maps system memory instead of migrating -- also for pages nobody
    touched yet.  NVIDIA contrast (H200 model): never-touched pages populate on the GPU."""
    b = sim(XNACK1)
    nbytes = 4 * MiB
    a = umkit.managed(nbytes // F32)
    a.advise("preferred_location", "cpu")
    umkit.reset_counters()
    umkit.fill(a, 7.0)                                  # the GPU's first touch
    umkit.synchronize()
    k = c()
    assert k["bytes_h2d"] == 0 and k["bytes_d2h"] == 0
    assert k["gpu_faults"] == nbytes // b.profile.fault_granularity   # one per granule
    assert (codes(a) == ON_CPU).all()
    np.testing.assert_array_equal(a.host, 7.0)

    sim(H200)
    a = umkit.managed(nbytes // F32)
    a.advise("preferred_location", "cpu")
    umkit.fill(a, 7.0)
    umkit.synchronize()
    assert (codes(a) == ON_GPU).all()


# -- accessed-by -----------------------------------------------------------------------------------------------
def test_accessed_by_gpu_is_access_in_place_after_one_fault_per_granule():
    """ROCm/clr rocdevice.cpp SetSvmAttributesInt: hipMemAdviseSetAccessedBy ->
    HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE -> KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE;
    kfd_svm.c svm_range_best_restore_location: best_loc = CPU for a CPU-resident range, so the
    fault maps the pages in place.  NVIDIA contrast: the mapping exists, no fault at all."""
    b = sim(XNACK1)
    nbytes = 4 * MiB
    a = cpu_populated(nbytes)
    a.advise("accessed_by", "gpu")
    umkit.reset_counters()
    umkit.touch(a, 4)
    umkit.synchronize()
    k = c()
    assert k["gpu_faults"] == nbytes // b.profile.gpu_page
    assert k["bytes_h2d"] == 0 and k["remote_bytes"] == nbytes
    assert (codes(a) == ON_CPU).all()
    umkit.reset_counters()
    umkit.touch(a, 4)                                   # mapped now: no new fault
    umkit.synchronize()
    assert c()["gpu_faults"] == 0 and c()["remote_bytes"] == nbytes

    sim(H200)
    a = cpu_populated(nbytes)
    a.advise("accessed_by", "gpu")
    umkit.reset_counters()
    umkit.touch(a, 4)
    umkit.synchronize()
    assert c()["gpu_faults"] == 0 and c()["remote_bytes"] == nbytes


# -- read-mostly --------------------------------------------------------------------------------------------------
def test_read_mostly_is_a_flag_without_duplication():
    """kfd_ioctl.h KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY (set by ROCr for hipMemAdviseSetReadMostly,
    rocdevice.cpp SetSvmAttributesInt): amdkfd (kfd_svm.c, kfd_migrate.c) never reads it, so
    pages migrate as without advice.  NVIDIA contrast: read duplication."""
    b = sim(XNACK1)
    nbytes = 4 * MiB
    a = umkit.managed(nbytes // F32)
    a.advise("read_mostly")
    a.host[:] = 2.0
    umkit.synchronize()
    umkit.reset_counters()
    umkit.touch(a, 4)
    umkit.synchronize()
    assert c()["duplicates"] == 0 and (codes(a) == ON_GPU).all()
    assert umkit.attributes(a)["read_mostly"] is True       # the flag is recorded
    umkit.reset_counters()
    assert float(a.host.sum()) == 2.0 * nbytes / F32         # the CPU read migrates back
    assert c()["bytes_d2h"] == nbytes and c()["cpu_faults"] == nbytes // b.profile.gpu_page

    sim(H200)
    a = umkit.managed(nbytes // F32)
    a.advise("read_mostly")
    a.host[:] = 2.0
    umkit.touch(a, 4)
    umkit.synchronize()
    assert c()["duplicates"] > 0 and (codes(a) == BOTH).all()


# -- coarse vs fine grain -----------------------------------------------------------------------------------------
def _coarse_run(coarse: bool):
    sim(XNACK1)
    a = cpu_populated(4 * MiB)
    if coarse:
        a.advise("coarse_grain")
    umkit.reset_counters()
    t0 = umkit.backend().now()
    umkit.touch(a, 4)
    umkit.increment(a)
    umkit.synchronize()
    float(a.host[::1024].sum())
    k = c()
    k.pop("umd_ops"), k.pop("kmd_ops")
    return k, codes(a).copy(), umkit.backend().now() - t0


def test_coarse_grain_changes_no_residency_or_migration():
    """rocdevice.cpp: hipMemAdviseSetCoarseGrain -> HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED, which
    clears KFD_IOCTL_SVM_FLAG_COHERENT; kfd_svm.c svm_range_get_pte_flags only changes the MTYPE
    (caching), not where pages live.  No published cost difference, so no cost either."""
    fine, coarse = _coarse_run(False), _coarse_run(True)
    assert fine[0] == coarse[0]
    np.testing.assert_array_equal(fine[1], coarse[1])
    assert fine[2] == coarse[2]
    assert not AmdXnackOn.coarse_grain_changes_residency.value


# -- XNACK off ----------------------------------------------------------------------------------------------------
def test_xnack_off_no_gpu_faults_zero_copy_prefetch_still_moves_cpu_touch_moves_back():
    """kfd_svm.c svm_range_restore_pages returns -EFAULT without XNACK; svm_range_apply_attrs
    maps the range up front (update_mapping), so the GPU reads host memory over the link (OLCF
    Frontier guide, XNACK=0 table); svm_range_trigger_migration still migrates on an explicit
    prefetch; kfd_migrate.c svm_migrate_to_ram brings pages back on a CPU touch."""
    b = sim(XNACK0)
    nbytes = 4 * MiB
    a = cpu_populated(nbytes)
    umkit.reset_counters()
    umkit.touch(a, 4)
    umkit.synchronize()
    assert c()["gpu_faults"] == 0 and c()["remote_bytes"] == nbytes and c()["bytes_h2d"] == 0
    a.prefetch("gpu")
    umkit.synchronize()
    assert c()["prefetch_bytes_h2d"] == nbytes and (codes(a) == ON_GPU).all()
    umkit.reset_counters()
    float(a.host[0])                                   # one CPU read brings its granule back
    assert c()["cpu_faults"] == 1 and c()["bytes_d2h"] == b.profile.gpu_page


# -- the HMM system allocator --------------------------------------------------------------------------------------
def test_system_allocator_rule():
    """kfd_svm.c svm_range_create_unregistered_range (XNACK on): a GPU fault on malloc memory
    creates a 2 MiB range; heap/stack ranges get preferred_loc = SYSMEM (mapped in place), others
    migrate.  XNACK off: 'Fatal Unhandled Page Fault' (OLCF XNACK=0 table).  MI300A: only maps.
    (umkit has no public system-allocator array yet, so the rule is checked on the policy.)"""
    assert AmdXnackOn().system_alloc_gpu_touch(heap_or_stack=False) == "migrate"
    assert AmdXnackOn().system_alloc_gpu_touch(heap_or_stack=True) == "map_in_place"
    assert AmdXnackOff().system_alloc_gpu_touch(heap_or_stack=False) == "fatal"
    assert AmdApu().system_alloc_gpu_touch(heap_or_stack=False) == "map_in_place"
    assert NvidiaPolicy().system_alloc_gpu_touch(heap_or_stack=False) == "unsupported"


# -- MI300A unified physical memory ---------------------------------------------------------------------------------
def test_apu_nothing_migrates_prefetch_is_a_no_op_cpu_touch_is_local():
    """kfd_svm.c svm_range_best_restore_location and svm_range_best_prefetch_location return
    system memory when gmc.is_app_apu; kfd_migrate.c kgd2kfd_init_zone_device registers no
    device-private pages (apu_prefer_gtt).  One memory: no bytes move, whatever the program."""
    sim(APU)
    nbytes = 4 * MiB
    a = cpu_populated(nbytes)
    a.advise("preferred_location", "gpu")
    umkit.reset_counters()
    a.prefetch("gpu")
    umkit.increment(a)
    umkit.synchronize()
    float(a.host.sum())
    k = c()
    for key in ("bytes_h2d", "bytes_d2h", "prefetch_bytes_h2d", "cpu_faults", "evicted_bytes"):
        assert k[key] == 0, key
    assert (codes(a) == BOTH).all()


# -- eviction ----------------------------------------------------------------------------------------------------
def test_eviction_moves_least_recently_migrated_granules_back():
    """kfd_svm.c svm_range_evict_svm_bo_worker: TTM evicts SVM BOs in LRU (creation/migration)
    order and the worker migrates their VRAM pages to system memory
    (KFD_MIGRATE_TRIGGER_TTM_EVICTION).  Modelled per 2 MiB region."""
    b = sim(XNACK1, vram=8 * MiB)
    g = b.profile.gpu_page
    x, y = cpu_populated(2 * g), cpu_populated(2 * g)
    umkit.increment(x)                                 # x migrates first
    umkit.increment(y)                                 # VRAM full
    umkit.increment(x)                                 # x used again: no migration
    umkit.synchronize()
    umkit.reset_counters()
    z = cpu_populated(g)
    umkit.increment(z)
    umkit.synchronize()
    assert c()["evictions"] == 1 and c()["evicted_bytes"] == g
    per_x = codes(x).reshape(2, -1)
    assert (per_x[0] == ON_CPU).all() and (per_x[1] == ON_GPU).all()
    np.testing.assert_array_equal(x.host, 3.0)


# -- CPU access to GPU-resident pages (issue 9 §1 item 6) ---------------------------------------------------------------
def test_cpu_touch_migrates_the_granule_back_whatever_the_advice():
    """kfd_migrate.c svm_migrate_to_ram (CPU fault on a device-private VRAM page): migrates the
    granule-aligned range back; it reads neither preferred_loc nor ACCESS_IN_PLACE (OLCF
    Frontier guide, XNACK=1: 'Migrate to CPU DDR4 on touch')."""
    b = sim(XNACK1)
    g = b.profile.gpu_page
    nbytes = 4 * MiB
    a = cpu_populated(nbytes)
    a.advise("preferred_location", "gpu")
    a.advise("accessed_by", "cpu")
    a.prefetch("gpu")
    umkit.synchronize()
    umkit.reset_counters()
    float(a.host[:: nbytes // F32 // 2].sum())          # 2 floats, one per granule
    assert c()["cpu_faults"] == nbytes // g and c()["bytes_d2h"] == nbytes
    assert (codes(a) == ON_CPU).all()


def test_ecg_advice_equals_prefetch_with_cpu_reads_and_cpu_home_advice_stays_flat():
    """Issue 9 §1.6 made concrete, from kfd_migrate.c svm_migrate_to_ram and kfd_svm.c
    svm_range_best_restore_location: with CPU statistics between steps, preferred-GPU advice
    does not stop the migrations (managed+advice == managed+prefetch); preferred CPU +
    accessed-by GPU (ACCESS_IN_PLACE) keeps the data in system memory: no migrations at all."""
    sim(XNACK1)
    kw = dict(patt=Pattern("cpu_stats", every=2), steps=6, nbytes=8 * MiB)
    adv = run("managed+advice", **kw)
    pre = run("managed+prefetch", **kw)
    assert adv.step_ms == pre.step_ms
    assert adv.counters.get("cpu_faults", 0) > 0
    home = run(Strategy("home", "managed", advice="preferred_cpu_accessed_by"), **kw)
    assert home.counters.get("bytes_h2d", 0) == 0 and home.counters.get("bytes_d2h", 0) == 0
    assert home.counters.get("prefetch_bytes_h2d", 0) == 0
    assert home.summary()["max_over_median"] <= 1.05     # flat: no migration spikes ...
    assert adv.summary()["max_over_median"] >= 1.5      # ... which advice-to-GPU does show


# -- hipMalloc memory seen from the CPU ---------------------------------------------------------------------------------
def test_cpu_can_read_hipmalloc_memory_on_amd_not_on_cuda():
    """HIP docs 'Unified memory management' (ROCm table: hipMalloc, access outside the origin =
    zero copy; CUDA table: cudaMalloc not accessible on host); OLCF: 'Zero copy read/write over
    Infinity Fabric'.  MI300A: the same HBM, local speed."""
    sim(XNACK1)
    d = umkit.device_array(1024)
    umkit.fill(d, 3.0)
    umkit.synchronize()
    umkit.reset_counters()
    assert float(d.host.sum()) == 3.0 * 1024            # one CPU read of all of it
    assert c()["remote_bytes"] == d.nbytes and c()["bytes_d2h"] == 0
    assert umkit.capabilities()["device_memory_host_access"] is True

    sim(APU)
    d = umkit.device_array(1024)
    umkit.fill(d, 4.0)
    umkit.synchronize()
    umkit.reset_counters()
    assert float(d.host.sum()) == 4.0 * 1024
    assert c()["remote_bytes"] == 0

    sim(H200)
    d = umkit.device_array(16)
    with pytest.raises(umkit.InvalidArgument, match="no host view"):
        d.host


# -- the layer of a managed allocation (issue 9 §1 item 1) ------------------------------------------------------------
def test_hipmallocmanaged_reaches_the_kmd_on_amd():
    """ROCm/clr rocmemory.cpp + rocdevice.cpp Device::SvmAllocInit: hipMallocManaged registers
    the range with one hsa_amd_svm_attributes_set -> KFD SVM ioctl (kfd_svm.c svm_range_set_attr).
    The H200 model keeps cudaMallocManaged a user-mode reservation."""
    for profile, layer in ((XNACK1, "kmd"), (XNACK0, "kmd"), (APU, "kmd"), (H200, "umd")):
        b = sim(profile)
        a = umkit.managed(1024)
        last = b.engine.trace[-1]
        assert (last["op"], last["layer"]) == ("malloc_managed", layer), profile
        a.free()


# -- estimates are labelled (issue 9 §1 item 10, §2) ----------------------------------------------------------------------
def test_mi300x_is_labelled_an_estimate_and_says_which_numbers():
    """umkit/sim/profiles/SOURCES.md: no MI300X managed-memory measurement exists; the profile's
    provenance says so and every parameter copied or scaled from MI250X is an estimate."""
    p = load_profile(MI300X)
    assert p.provenance.startswith("estimate")
    for key in ("fault_batch_latency", "fault_bw", "prefetch_h2d_bw", "prefetch_d2h_bw",
                "cpu_fault_latency", "zero_copy_bw", "pinned_h2d_bw", "hbm_bw"):
        assert p.is_estimate(key), key
    assert not p.is_estimate("vram")                   # 192 GB is a published spec
    assert load_profile(H200).provenance == "measured" and load_profile(H200).estimates == []
    x1 = load_profile(XNACK1)
    assert not x1.is_estimate("fault_batch_latency")   # measured by Pearson on Frontier
    assert set(x1.estimates) < set(p.estimates)
