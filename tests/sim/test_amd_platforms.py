"""The AMD model where the driver says platforms differ: one test per rule, each naming its entry
of the vendor-claim ledger (umkit/ledger.json) in its docstring, ``ledger: <id>``.

XNACK off maps (and populates) a managed range at allocation and stops every queue of the
process while a GPU-mapped range migrates; a CPU-coherent node lets the CPU reach GPU-resident
pages in place where a PCIe card migrates them back; GPU-to-GPU moves go through system memory,
and accessed-by advice within one xGMI hive maps a peer's pages in place.  Expected numbers are
computed from the profile in use (umkit/sim/profiles/*.json), never pasted from a run.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import umkit
import umkit.ledger as L
from umkit.sim.costs import PROFILE_DIR, load_profile
from umkit.sim.policy import AmdCoherent, AmdXnackOff, AmdXnackOn, NvidiaPolicy

MiB = 1 << 20
F32 = 4
ON_CPU, ON_GPU = 1, 2
XNACK0, XNACK1, COHERENT = "mi250x-xnack0", "mi250x-xnack1", "mi250x-coherent"
MI300X, APU, H200 = "mi300x", "mi300a-apu", "h200-pcie5"


@pytest.fixture(autouse=True)
def _no_env_backend(monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)


def sim(profile, **kw):
    return umkit.use("sim", profile=profile, **kw)


def now() -> float:
    return umkit.backend().now()


def codes(a) -> np.ndarray:
    return umkit.residency(a).codes


def c() -> dict:
    return umkit.counters()


def on_gpu(nbytes: int, g: int = 0) -> umkit.Array:
    """A managed array written by the CPU, then prefetched to GPU ``g``."""
    a = umkit.managed(nbytes // F32)
    a.host[:] = 1.0
    a.prefetch(f"gpu:{g}")
    umkit.synchronize()
    return a


# -- rule 1: XNACK off maps the whole range at allocation ------------------------------------------
def test_xnack_off_allocation_faults_every_page_in_and_the_first_cpu_touch_takes_no_fault():
    """ledger: amd.xnack0.alloc_maps

    With XNACK off hipMallocManaged's SVM ioctl faults every page in on the CPU side and maps the
    range for the GPUs: the allocation costs the profile's CPU first-touch cost per 4 KiB page
    (so it grows with the size), and the CPU's first touch afterwards populates nothing.  XNACK
    on: a flat allocation, pages appear on first touch."""
    b = sim(XNACK0)
    p = b.profile
    per_page = p.first_touch_latency + p.host_page / p.host_mem_bw
    took = {}
    for mib in (4, 16):
        t0 = now()
        a = umkit.managed(mib * MiB // F32)
        took[mib] = now() - t0
        assert took[mib] == pytest.approx(p.alloc_managed + (mib * MiB // p.host_page) * per_page,
                                          rel=1e-12)
        assert (codes(a) == ON_CPU).all()                     # populated in host memory
    assert took[16] - took[4] == pytest.approx(12 * MiB // p.host_page * per_page, rel=1e-9)
    last = [e for e in b.engine.trace if e["op"] == "malloc_managed"][-1]
    assert last["layer"] == "kmd" and "faulted in" in last["detail"]

    umkit.reset_counters()
    t0 = now()
    a.host[:] = 2.0                                           # the CPU's first touch
    fill = now() - t0
    assert c()["first_touch_pages"] == 0 and c()["cpu_faults"] == 0
    assert fill == pytest.approx(16 * MiB / p.host_rate(True, 16 * MiB), rel=1e-12)
    np.testing.assert_array_equal(a.host, 2.0)

    b = sim(XNACK1)                                           # contrast: XNACK on
    p = b.profile
    for mib in (4, 16):
        t0 = now()
        a = umkit.managed(mib * MiB // F32)
        assert now() - t0 == pytest.approx(p.alloc_managed, rel=1e-12)   # flat
        assert (codes(a) == 0).all()                          # no page yet
    umkit.reset_counters()
    a.host[:] = 2.0
    assert c()["first_touch_pages"] == 16 * MiB // p.host_page


# -- rule 2: XNACK off, a migration stops every queue ----------------------------------------------
def _kernel_beside(profile, migrate, gpus=1):
    """How long a kernel on one stream takes, from its start event to its end event, while
    ``migrate(a)`` moves another array on another stream or from the CPU (None: nothing)."""
    sim(profile, gpus=gpus)
    a = on_gpu(8 * MiB) if migrate == "cpu_touch" else umkit.managed(8 * MiB // F32)
    if migrate != "cpu_touch":
        a.host[:] = 1.0
    bx = umkit.managed(16 * MiB // F32)
    bx.host[:] = 1.0
    umkit.synchronize()
    other = umkit.Stream(device=gpus - 1)
    mover = umkit.Stream(device=0)
    start, end = umkit.Event(), umkit.Event()
    start.record(other)
    umkit.increment(bx, stream=other)                         # runs while `a` moves
    end.record(other)
    later = umkit.Event()
    if migrate == "prefetch":
        a.prefetch("gpu:0", stream=mover)
    elif migrate == "cpu_touch":
        float(a.host[0])                                       # a CPU fault moves a granule back
    umkit.increment(bx, stream=other)                         # queued behind it
    later.record(other)
    umkit.synchronize()
    return start.elapsed_ms(end) / 1e3, start.elapsed_ms(later) / 1e3


def test_xnack_off_a_migration_stops_every_queue_until_kfd_remaps_it():
    """ledger: amd.xnack0.quiesce

    With XNACK off a prefetch of a GPU-mapped range, or a CPU fault that migrates its pages back,
    goes through svm_range_evict: kgd2kfd_quiesce_mm stops every queue of the process on every
    GPU until the restore work has remapped the range.  A kernel on another stream is held for
    the migration plus the profile's queue_restore_latency (an estimate, labelled so).  With
    XNACK on only the range is unmapped: the other stream runs on."""
    p = load_profile(XNACK0)
    assert p.is_estimate("queue_restore_latency") and p.queue_restore_latency > 0
    restore = p.queue_restore_latency
    alone, alone_later = _kernel_beside(XNACK0, None)

    moved, moved_later = _kernel_beside(XNACK0, "prefetch")
    migration = p.prefetch_fixed(True) + 8 * MiB / p.prefetch_h2d_bw
    assert moved - alone == pytest.approx(migration + restore, rel=1e-9)
    assert moved_later - alone_later == pytest.approx(migration + restore, rel=1e-9)
    assert any(e["op"] == "quiesce" for e in umkit.backend().trace())

    touched, _ = _kernel_beside(XNACK0, "cpu_touch")
    fault = p.cpu_fault_cost(1, 1, p.gpu_page)                # one granule comes back
    assert c()["cpu_faults"] == 1
    assert touched - alone == pytest.approx(fault + restore, rel=1e-9)

    two, _ = _kernel_beside(XNACK0, "prefetch", gpus=2)      # the other GPU's queues stop too
    assert two - _kernel_beside(XNACK0, None, gpus=2)[0] == pytest.approx(migration + restore,
                                                                          rel=1e-9)

    # the stopped kernel is still running when the migration's own stream is done: a host read
    # of what it writes then is a race
    sim(XNACK0, strict=True)
    a, bx = umkit.managed(8 * MiB // F32), umkit.managed(16 * MiB // F32)
    other, mover = umkit.Stream(), umkit.Stream()
    umkit.increment(bx, stream=other)
    a.prefetch("gpu", stream=mover)
    mover.synchronize()
    with pytest.raises(umkit.RaceDetected):
        float(bx.host[0])

    for how in ("prefetch", "cpu_touch"):                     # contrast: XNACK on
        assert _kernel_beside(XNACK1, how)[0] == pytest.approx(_kernel_beside(XNACK1, None)[0],
                                                               rel=1e-12)
    assert "queue_restore_latency" not in load_profile(XNACK1).p


# -- rule 3: CPU-coherent vs PCIe ------------------------------------------------------------------
def _cpu_read_of_gpu_pages(profile, nbytes=8 * MiB):
    sim(profile)
    a = on_gpu(nbytes)
    umkit.reset_counters()
    t0 = now()
    total = float(a.host.sum())
    return a, now() - t0, total


def test_coherent_vram_the_cpu_reads_and_writes_gpu_resident_pages_in_place():
    """ledger: amd.vram.coherent

    On a node whose GPU is connected to the CPU by xGMI amdkfd registers VRAM as
    MEMORY_DEVICE_COHERENT: a CPU touch of GPU-resident managed pages is an access over the link
    -- no CPU fault, no migration -- at the profile's measured CPU-write-to-GPU-resident cost
    (Pearson's implicit_managed_HostWrGPU: cpu_fault_latency once, then cpu_fault_bw)."""
    nbytes = 8 * MiB
    a, took, total = _cpu_read_of_gpu_pages(COHERENT, nbytes)
    p = umkit.backend().profile
    assert total == nbytes // F32
    k = c()
    assert k["cpu_faults"] == 0 and k["bytes_d2h"] == 0 and k["remote_bytes"] == nbytes
    assert (codes(a) == ON_GPU).all()                         # nothing moved
    assert took == pytest.approx(p.cpu_fault_latency + nbytes / p.cpu_fault_bw, rel=1e-12)
    a.host[:] = 5.0                                           # a write in place
    assert (codes(a) == ON_GPU).all() and c()["cpu_faults"] == 0
    umkit.increment(a)
    umkit.synchronize()
    assert c()["gpu_faults"] == 0
    np.testing.assert_array_equal(a.host, 6.0)
    assert type(umkit.backend().engine.policy) is AmdCoherent

    # the profile is mi250x-xnack1's numbers on another platform, and says what it models
    co = json.loads((PROFILE_DIR / f"{COHERENT}.json").read_text())
    x1 = json.loads((PROFILE_DIR / f"{XNACK1}.json").read_text())
    assert co["platform"] == "cpu-coherent" and co["mode"] == x1["mode"] == "migrate"
    assert {k: v["value"] for k, v in co["params"].items()} == \
        {k: v["value"] for k, v in x1["params"].items()}
    assert "device-coherent" in co["note"] and "amd.vram.coherent" in L.cited(co["note"])


def test_pcie_vram_is_device_private_a_cpu_touch_migrates():
    """ledger: amd.vram.private

    Without connected_to_cpu (PCIe parts such as MI300X) VRAM is MEMORY_DEVICE_PRIVATE: the CPU
    cannot map a GPU-resident page, so its touch faults and the granule migrates back."""
    nbytes = 8 * MiB
    a, took, total = _cpu_read_of_gpu_pages(MI300X, nbytes)
    p = umkit.backend().profile
    assert p.platform == "pcie" and total == nbytes // F32
    k = c()
    assert k["cpu_faults"] == nbytes // p.gpu_page and k["bytes_d2h"] == nbytes
    assert (codes(a) == ON_CPU).all()
    assert not umkit.capabilities()["direct_managed_access_from_host"]


def test_mi250x_xnack1_follows_olcfs_observed_migrate_on_touch_table():
    """ledger: amd.olcf.migrate_on_touch

    mi250x-xnack1 stays the profile of OLCF's observed table ('Migrate to CPU DDR4 on touch') on
    the same CPU-coherent node; it says so.  A CPU read of GPU-resident pages migrates them, and
    costs more than the in-place read of mi250x-coherent the first time, less once they are
    back."""
    nbytes = 8 * MiB
    a, took, _ = _cpu_read_of_gpu_pages(XNACK1, nbytes)
    p = umkit.backend().profile
    assert p.platform == "cpu-coherent-olcf-observed"
    doc = json.loads((PROFILE_DIR / f"{XNACK1}.json").read_text())
    assert "OLCF" in doc["note"] and "amd.olcf.migrate_on_touch" in L.cited(doc["note"])
    assert c()["cpu_faults"] == nbytes // p.gpu_page and (codes(a) == ON_CPU).all()
    t0 = now()
    float(a.host.sum())
    again = now() - t0

    b, took_co, _ = _cpu_read_of_gpu_pages(COHERENT, nbytes)
    t0 = now()
    float(b.host.sum())
    again_co = now() - t0
    assert took_co < took                                     # no migration first
    assert again_co == pytest.approx(took_co) and again < again_co   # local once migrated


@pytest.mark.parametrize("profile, in_place", [(COHERENT, True), (APU, True), (XNACK1, False),
                                               (XNACK0, False), (MI300X, False)])
def test_direct_managed_access_from_host_reports_the_platform(profile, in_place):
    """ledger: amd.attr.direct_host

    hipDeviceAttributeDirectManagedMemAccessFromHost is KFD's CoherentHostAccess bit: 1 on a
    CPU-coherent node (mi250x-coherent) and on the APU; the profiles that migrate on a CPU touch
    report 0."""
    with umkit.using("sim", profile=profile):
        caps = umkit.capabilities()
    assert caps["direct_managed_access_from_host"] is in_place
    assert caps["platform"] == load_profile(profile).platform
    assert caps["concurrent_managed_access"] is True


# -- rule 4: GPU to GPU ----------------------------------------------------------------------------
def test_gpu_to_gpu_moves_go_through_system_memory():
    """ledger: amd.peer.via_sysmem

    amdkfd moves a managed range from one GPU's VRAM to another through system memory
    (svm_migrate_vram_to_vram): two copies over the host link, counted d2h and h2d, no peer
    bytes -- for a prefetch (prefetch_d2h_bw, then prefetch_h2d_bw) and for a GPU fault with a
    new best location (the first hop at prefetch_d2h_bw, the second on the fault path).  NVIDIA
    contrast: a peer copy."""
    nbytes = 64 * MiB
    b = sim(XNACK1, gpus=2)
    p = b.profile
    a = on_gpu(nbytes, 0)
    umkit.reset_counters()
    s = umkit.Stream(device=1)
    start, end = umkit.Event(), umkit.Event()
    start.record(s)
    a.prefetch("gpu:1", stream=s)
    end.record(s)
    umkit.synchronize()
    k = c()
    assert k["bytes_d2h"] == k["bytes_h2d"] == nbytes and k["bytes_peer"] == 0
    assert k["prefetch_bytes_d2h"] == k["prefetch_bytes_h2d"] == nbytes
    assert (codes(a) == ON_GPU).all()
    assert start.elapsed_ms(end) / 1e3 == pytest.approx(
        p.prefetch_fixed(True) + nbytes / p.prefetch_d2h_bw + nbytes / p.prefetch_h2d_bw,
        rel=1e-9)
    assert any(e["op"] == "migrate_via_sysmem" for e in b.engine.trace)

    umkit.reset_counters()                                    # a fault on GPU 0 brings it back
    umkit.increment(a, stream=umkit.Stream(device=0))
    umkit.synchronize()
    k = c()
    assert k["gpu_faults"] == nbytes // p.fault_granularity
    assert k["bytes_d2h"] == k["bytes_h2d"] == nbytes and k["bytes_peer"] == 0
    np.testing.assert_array_equal(a.host, 2.0)

    sim(H200, gpus=2)                                         # contrast: NVIDIA, peer to peer
    a = on_gpu(nbytes, 0)
    umkit.reset_counters()
    a.prefetch("gpu:1")
    umkit.synchronize()
    k = c()
    assert k["bytes_peer"] == nbytes and k["bytes_d2h"] == 0 and k["bytes_h2d"] == 0


def test_accessed_by_a_peer_in_the_same_xgmi_hive_maps_its_pages_in_place():
    """ledger: amd.peer.accessed_by

    hipMemAdviseSetAccessedBy(gpu) sets ACCESS_IN_PLACE; on that GPU's fault
    svm_range_best_restore_location keeps a range in a peer's VRAM where it is when the peer is
    in the same xGMI hive (the two GCDs of one MI250X: xgmi_hive_gpus): one fault per granule
    maps it, nothing migrates, and the GPU reads it over the GPU-GPU link at peer_link_bw.
    Outside the hive the range goes to system memory and is mapped there."""
    nbytes = 16 * MiB
    b = sim(XNACK1, gpus=4)
    p = b.profile
    assert p.xgmi_hive_gpus == 2 and p.same_hive(0, 1) and not p.same_hive(0, 2)
    assert p.peer_link_bw > p.zero_copy_bw

    a = on_gpu(nbytes, 1)                                     # on GCD 1, GCD 0's package mate
    a.advise("accessed_by", "gpu:0")
    umkit.reset_counters()
    s0 = umkit.Stream(device=0)
    umkit.touch(a, F32, stream=s0)
    umkit.synchronize()
    k = c()
    assert k["gpu_faults"] == nbytes // p.fault_granularity
    assert k["bytes_h2d"] == k["bytes_d2h"] == k["bytes_peer"] == 0
    assert k["remote_bytes"] == nbytes
    assert (codes(a) == ON_GPU).all() and umkit.residency(a).codes.size
    umkit.reset_counters()
    start, end = umkit.Event(), umkit.Event()
    start.record(s0)
    umkit.touch(a, F32, stream=s0)                            # mapped now: no fault
    end.record(s0)
    umkit.synchronize()
    assert c()["gpu_faults"] == 0 and c()["remote_bytes"] == nbytes
    # (the model's migrate-mode kernel streams every byte it touches at hbm_bw, and the remote
    # ones cross their link on top: here the GPU-GPU link, not the host link)
    assert start.elapsed_ms(end) / 1e3 == pytest.approx(
        p.kernel_launch + nbytes / p.hbm_bw + nbytes / p.peer_link_bw, rel=1e-6)

    x = on_gpu(nbytes, 2)                                     # another package: outside the hive
    x.advise("accessed_by", "gpu:0")
    umkit.reset_counters()
    umkit.touch(x, F32, stream=s0)
    umkit.synchronize()
    k = c()
    assert k["gpu_faults"] == nbytes // p.fault_granularity
    assert k["bytes_d2h"] == nbytes and k["bytes_h2d"] == 0 and k["bytes_peer"] == 0
    assert (codes(x) == ON_CPU).all() and k["remote_bytes"] == nbytes

    y = on_gpu(nbytes, 1)                                     # no advice: it migrates
    umkit.reset_counters()
    umkit.touch(y, F32, stream=s0)
    umkit.synchronize()
    assert c()["bytes_d2h"] == c()["bytes_h2d"] == nbytes


# -- the rules cite their ledger entries -----------------------------------------------------------
@pytest.mark.parametrize("policy, rule, entry", [
    (AmdXnackOff, "managed_alloc_populates", "amd.xnack0.alloc_maps"),
    (AmdXnackOff, "migration_stops_queues", "amd.xnack0.quiesce"),
    (AmdXnackOn, "migration_stops_queues", "amd.xnack0.quiesce"),
    (AmdCoherent, "cpu_touch_of_gpu_pages", "amd.vram.coherent"),
    (AmdCoherent, "cpu_touch_of_gpu_pages", "amd.attr.direct_host"),
    (AmdXnackOn, "cpu_touch_of_gpu_pages", "amd.vram.private"),
    (AmdXnackOn, "cpu_touch_of_gpu_pages", "amd.olcf.migrate_on_touch"),
    (AmdXnackOn, "gpu_to_gpu_migration", "amd.peer.via_sysmem"),
    (AmdXnackOn, "peer_access_in_place", "amd.peer.accessed_by"),
])
def test_each_platform_rule_cites_its_ledger_entry(policy, rule, entry):
    """ledger: amd.xnack0.alloc_maps, amd.xnack0.quiesce, amd.vram.coherent, amd.vram.private,
    amd.olcf.migrate_on_touch, amd.attr.direct_host, amd.peer.via_sysmem, amd.peer.accessed_by"""
    r = policy.rules()[rule]
    assert entry in L.entries() and entry in L.cited(r.source), (rule, r.source)
    assert NvidiaPolicy.rules()[rule].value in (False, None, "direct", "migrate_block")
