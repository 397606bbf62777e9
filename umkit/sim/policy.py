"""Vendor semantics of managed memory, one policy per vendor and mode.

The simulator's parts (``address_space.py``, ``faults.py``, ``host.py``) ask the profile's
policy what the driver does; they have no vendor branches of their own.  Each rule is a :class:`Rule`: a value plus the source it follows (driver or
runtime file and function, or the measurement it was fitted to).  ``docs/amd-sources.md`` gives the
quoted lines behind every AMD rule.

=================  ===================================================================
policy             profiles
=================  ===================================================================
NvidiaPolicy       ``vendor: nvidia`` (h200-pcie5, teaching) -- fitted to H200 measurements
AmdXnackOn         ``vendor: amd, mode: migrate`` (mi250x-xnack1, mi300x)
AmdCoherent        ``vendor: amd, mode: migrate, platform: cpu-coherent`` (mi250x-coherent)
AmdXnackOff        ``vendor: amd, mode: zero_copy`` (mi250x-xnack0)
AmdApu             ``vendor: amd, mode: apu`` (mi300a-apu)
=================  ===================================================================

A profile's ``platform`` (``pcie``: device-private VRAM; ``cpu-coherent``: amdkfd's
device-coherent VRAM, the CPU reaches GPU-resident pages in place; ``cpu-coherent-olcf-observed``:
a CPU-coherent Frontier node modelled as OLCF's table observes it, migrate on touch; ``apu``)
chooses between policies only where the driver does something different on it.  Rules that
follow an entry of the vendor-claim ledger (``umkit/ledger.json``) name it: ``(ledger: id)``.

Driver generation: the AMD policies follow upstream amdkfd of Linux 6.8 or later (partial
migration: a GPU fault moves the granule around it, not the whole range, as 6.7 and older did;
ledger: amd.fault.granule, whose version scopes give the commits).

Sources (commits in docs/amd-sources.md): amdkfd ``drivers/gpu/drm/amd/amdkfd/kfd_svm.c`` and
``kfd_migrate.c`` (Linux), ``include/uapi/linux/kfd_ioctl.h``; ROCm/clr
``rocclr/device/rocm/rocdevice.cpp``, ``rocmemory.cpp``, ``hipamd/src/hip_hmm.cpp``; the OLCF
Frontier User Guide; NVIDIA open-gpu-kernel-modules ``kernel-open/nvidia-uvm``.
"""
from __future__ import annotations

from ..errors import InvalidArgument


class Rule:
    """One semantic rule: its value and the source it follows (read through the class:
    ``AmdXnackOn.read_mostly_duplicates.source``; through an instance it is just the value)."""

    def __init__(self, value, source: str):
        self.value, self.source = value, source
        self.__doc__ = source

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        return self if obj is None else self.value

    def __repr__(self):
        return f"Rule({self.name}={self.value!r})"


class Policy:
    """What the driver does with managed memory.  Subclasses set every rule."""

    name = "?"

    managed_alloc_layer: Rule
    gpu_faults: Rule
    one_memory: Rule
    fault_migrates_granule: Rule
    density_prefetcher: Rule
    pack_small_managed: Rule
    prefetch_migrates: Rule
    preferred_cpu_new_pages_on_cpu: Rule
    accessed_by: Rule
    read_mostly_duplicates: Rule
    coarse_grain_changes_residency: Rule
    cpu_touch_of_gpu_pages: Rule
    device_memory_cpu_access: Rule
    eviction: Rule
    managed_alloc_populates: Rule
    migration_stops_queues: Rule
    gpu_to_gpu_migration: Rule
    peer_access_in_place: Rule
    thrashing_throttle: Rule

    @classmethod
    def rules(cls) -> dict[str, Rule]:
        """Every rule of this policy, by name (for lessons: value and source side by side)."""
        out = {}
        for klass in reversed(cls.__mro__):
            for k, v in vars(klass).items():
                if isinstance(v, Rule):
                    out[k] = v
        return out

    def system_alloc_gpu_touch(self, heap_or_stack: bool) -> str:
        """What a GPU access to plain ``malloc`` memory does: ``migrate`` | ``map_in_place`` |
        ``fatal`` | ``unsupported``."""
        return "unsupported"

    def __repr__(self):
        return f"<{type(self).__name__}>"


class NvidiaPolicy(Policy):
    """NVIDIA UVM as measured on the H200 (the numbers and rules the H200 profile was fitted to)."""

    name = "nvidia"
    managed_alloc_layer = Rule("umd", "umkit model for cudaMallocManaged: a virtual reservation "
                               "recorded by the user-mode driver; pages appear on first touch")
    gpu_faults = Rule(True, "NVIDIA UVM replayable faults (uvm_gpu_replayable_faults.c)")
    one_memory = Rule(False, "H200 on PCIe: separate host and device memory")
    fault_migrates_granule = Rule(False, "UVM migrates 64 KiB big pages per fault "
                                  "(uvm_va_block_types.h UVM_MIN_BIG_PAGE_SIZE; "
                                  "uvm_perf_prefetch.c grow_fault_granularity)")
    density_prefetcher = Rule(True, "uvm_perf_prefetch.c uvm_perf_prefetch_prenotify_fault_"
                              "migrations: a bitmap tree per 2 MiB VA block of the pages "
                              "resident on the faulting GPU plus the faulted ones, grown to 64 "
                              "KiB big pages; compute_prefetch_region keeps the largest "
                              "subregion > 51% full (UVM_PREFETCH_THRESHOLD_DEFAULT 51)")
    pack_small_managed = Rule(True, "measured on the H200 (benchmarks/results, small_bench "
                              "address_delta): consecutive cudaMallocManaged allocations of 4 KiB "
                              "- 2 MiB lie exactly their size apart, so small allocations share "
                              "2 MiB VA blocks; which ones the prefetcher then brings along was "
                              "measured too (fit_probe 'packing', fit data)")
    prefetch_migrates = Rule(True, "cudaMemPrefetchAsync migrates in bulk (measured on the H200)")
    preferred_cpu_new_pages_on_cpu = Rule(False, "umkit H200 model: CPU-preferred pages that are "
                                          "populated fault once and are mapped remotely; "
                                          "never-touched pages populate on the GPU")
    accessed_by = Rule("mapped", "cudaMemAdviseSetAccessedBy: the mapping is kept for that "
                       "processor, so it reads populated pages remotely without faulting")
    read_mostly_duplicates = Rule(True, "cudaMemAdviseSetReadMostly: read duplication; a write "
                                  "invalidates the other copies")
    coarse_grain_changes_residency = Rule(False, "no CUDA equivalent; recorded only")
    cpu_touch_of_gpu_pages = Rule("migrate_block", "measured on the H200 "
                                  "(DirectManagedMemAccessFromHost = 0): a CPU touch of a "
                                  "GPU-resident page migrates its 64 KiB block back, whatever "
                                  "the advice")
    device_memory_cpu_access = Rule(None, "CUDA: cudaMalloc memory is not accessible on the host "
                                    "(HIP docs 'Unified memory management', CUDA table)")
    eviction = Rule("least_recently_migrated_region", "uvm_pmm_gpu.c: root chunks move to the LRU "
                    "tail when allocated by a VA block (migration), not on GPU access; "
                    "evict_root_chunk() moves the 2 MiB chunk to the CPU")
    managed_alloc_populates = Rule(False, "umkit model for cudaMallocManaged: no physical page "
                                   "at allocation; the first touch populates (measured on the "
                                   "H200: first-touch costs grow with the pages touched)")
    migration_stops_queues = Rule(False, "NVIDIA UVM migrates a VA block under its lock; other "
                                  "work on the GPU keeps running (umkit H200 model)")
    gpu_to_gpu_migration = Rule("direct", "NVIDIA UVM copies between GPUs over the peer link "
                                "(uvm_va_block.c block_copy_resident_pages_between: peer copies "
                                "when the GPUs can access each other); charged at peer_bw")
    peer_access_in_place = Rule(None, "2x H200 (issue 11): accessed-by advice toward a peer "
                                "GPU did not stop the faults: pages on another GPU fault across")
    thrashing_throttle = Rule(True, "uvm_perf_thrashing.c (open-gpu-kernel-modules df1c9a3): a "
                              "page migrated by faults again within 500 us, 3 times, is "
                              "thrashing; while it is, the processors that fault on it take "
                              "turns and the others are throttled for a nap (the CPU sleeps in "
                              "its fault handler, a GPU's faults are replayed); umkit/sim/"
                              "thrashing.py")


class AmdXnackOn(Policy):
    """amdkfd SVM with XNACK on (HSA_XNACK=1) on a discrete GPU: MI250X, MI300X."""

    name = "amd-xnack-on"
    managed_alloc_layer = Rule("kmd", "ROCm/clr rocmemory.cpp: with hmmSupported_ the buffer is "
                               "Os::reserveMemory + Device::SvmAllocInit (rocdevice.cpp), which "
                               "calls hsa_amd_svm_attributes_set(AGENT_ACCESSIBLE) -> one KFD SVM "
                               "ioctl -> kfd_svm.c svm_range_set_attr/svm_range_add")
    gpu_faults = Rule(True, "kfd_svm.c svm_range_restore_pages: GPU retry faults are recovered "
                      "when p->xnack_enabled")
    one_memory = Rule(False, "discrete GPU: VRAM is separate (ZONE_DEVICE pages, kfd_migrate.c "
                      "kgd2kfd_init_zone_device)")
    fault_migrates_granule = Rule(True, "kfd_svm.c svm_range_restore_pages: 'Align migration "
                                  "range start and size to granularity size' (1 << "
                                  "prange->granularity pages; default 9 = 2 MiB, "
                                  "svm_range_set_default_attributes), Linux 6.8 and later "
                                  "(partial migration); up to 6.7 a fault moved the whole range. "
                                  "sim models 6.8+ (ledger: amd.fault.granule)")
    density_prefetcher = Rule(False, "amdkfd has no access-density prefetcher: the unit is the "
                              "fixed granule (kfd_svm.c svm_range_restore_pages)")
    pack_small_managed = Rule(False, "ROCm/clr rocmemory.cpp: each hipMallocManaged is its own "
                              "SVM range (one KFD SVM ioctl per allocation); the fault unit is "
                              "the range's granule, so packing would not change the model")
    prefetch_migrates = Rule(True, "kfd_svm.c svm_range_trigger_migration: PREFETCH_LOC migrates "
                             "the range to svm_range_best_prefetch_location; "
                             "svm_range_is_same_attrs: 'Prefetch should always trigger a "
                             "migration'")
    preferred_cpu_new_pages_on_cpu = Rule(True, "kfd_svm.c svm_range_best_restore_location: a "
                                          "SYSMEM preferred location is the restore location, "
                                          "so a GPU fault maps system memory (new pages are "
                                          "created there) instead of migrating")
    accessed_by = Rule("in_place_on_fault", "rocdevice.cpp SetSvmAttributesInt: SetAccessedBy -> "
                       "HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE -> KFD_IOCTL_SVM_ATTR_"
                       "ACCESS_IN_PLACE; kfd_svm.c svm_range_best_restore_location: an "
                       "ACCESS_IN_PLACE GPU faulting on a CPU-resident range gets best_loc = CPU "
                       "-> one fault per granule maps the pages where they are, no migration")
    read_mostly_duplicates = Rule(False, "rocdevice.cpp: SetReadMostly -> HSA_AMD_SVM_ATTRIB_READ_"
                                  "MOSTLY -> KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY (kfd_ioctl.h); "
                                  "kfd_svm.c and kfd_migrate.c never read the flag: no "
                                  "duplication")
    coarse_grain_changes_residency = Rule(False, "rocdevice.cpp: SetCoarseGrain -> "
                                          "HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED (clears "
                                          "KFD_IOCTL_SVM_FLAG_COHERENT); kfd_svm.c "
                                          "svm_range_get_pte_flags changes only the MTYPE")
    cpu_touch_of_gpu_pages = Rule("migrate_block", "kfd_migrate.c svm_migrate_to_ram (CPU fault on "
                                  "a MEMORY_DEVICE_PRIVATE VRAM page) migrates the granule-aligned "
                                  "range back; it reads neither preferred_loc nor ACCESS_IN_PLACE "
                                  "(ledger: amd.vram.private: PCIe parts such as MI300X). "
                                  "OLCF Frontier guide, XNACK=1 table: 'Migrate to CPU DDR4 on "
                                  "touch' (ledger: amd.olcf.migrate_on_touch: what mi250x-xnack1 "
                                  "models; mi250x-coherent models device-coherent VRAM instead)")
    device_memory_cpu_access = Rule("link", "HIP docs 'Unified memory management' (ROCm table: "
                                    "hipMalloc, access outside the origin = zero copy); OLCF: "
                                    "'Zero copy read/write over Infinity Fabric'. Speed: estimate "
                                    "(link zero-copy rate; no published CPU-reads-VRAM figure)")
    eviction = Rule("least_recently_migrated_region", "kfd_svm.c svm_range_vram_node_new (one "
                    "DISCARDABLE TTM BO per range) and svm_range_evict_svm_bo_worker (TTM eviction "
                    "migrates the range's VRAM pages to RAM); TTM's LRU order is creation/"
                    "validation, i.e. migration time. umkit evicts 2 MiB regions (simplification)")
    managed_alloc_populates = Rule(False, "with XNACK on, svm_range_apply_attrs sets "
                                   "update_mapping only when !p->xnack_enabled (kfd_svm.c): "
                                   "hipMallocManaged maps nothing, pages appear on first touch "
                                   "(the XNACK-off contrast: ledger: amd.xnack0.alloc_maps)")
    migration_stops_queues = Rule(False, "kfd_svm.c svm_range_evict with XNACK on only unmaps the "
                                  "affected part of the range from the GPUs; the next GPU access "
                                  "retry-faults it back; no queue stops "
                                  "(ledger: amd.xnack0.quiesce)")
    gpu_to_gpu_migration = Rule("via_sysmem", "kfd_migrate.c svm_migrate_to_vram -> "
                                "svm_migrate_vram_to_vram: the range's VRAM pages go to system "
                                "memory and from there to the target GPU ('TODO: ... skip system "
                                "memory as migration bridge'): two SDMA copies over the host "
                                "link, counted d2h and h2d, charged at the profile's VRAM->RAM "
                                "rate (prefetch_d2h_bw: svm_migrate_vram_to_ram, the routine of "
                                "the first hop) plus the RAM->VRAM rate of the path "
                                "(prefetch_h2d_bw or fault_bw); on MI250X this predicts "
                                "Pearson's GCD0->GCD1 1 GiB prefetch "
                                "('prefetch_managed_GPUToGPU' /0/1) at 317 ms "
                                "(measured 289-294 ms, two runs) and a GCD0 kernel writing 1 GiB "
                                "of managed memory resident on GCD1 ('implicit_managed_GPUWrGPU_"
                                "coarse' /0/1) at 324 ms (measured 316-319 ms) "
                                "(ledger: amd.peer.via_sysmem)")
    peer_access_in_place = Rule("same_hive", "kfd_svm.c svm_range_best_restore_location: for a "
                                "GPU in the range's ACCESS_IN_PLACE bitmap "
                                "(hipMemAdviseSetAccessedBy, rocdevice.cpp SetSvmAttributesInt) "
                                "a range in a peer's VRAM is restored where it is when the peer "
                                "is in the same xGMI hive "
                                "(svm_nodes_in_same_hive): mapped, read over the GPU-GPU link at "
                                "peer_link_bw; outside the hive best_loc = 0: the range is "
                                "migrated to system memory and mapped there "
                                "(ledger: amd.peer.accessed_by)")
    thrashing_throttle = Rule(False, "not modelled for AMD: umkit has not read amdkfd's SVM fault "
                              "path (kfd_svm.c) for a throttle of pages that thrash between the "
                              "CPU and a GPU; NVIDIA's (uvm_perf_thrashing.c) is modelled")

    def system_alloc_gpu_touch(self, heap_or_stack: bool) -> str:
        """kfd_svm.c svm_range_restore_pages -> svm_range_create_unregistered_range: a range of
        at most 2 MiB (svm_range_get_range_boundaries) is created on the fault; only a range in
        the initial brk heap or the initial stack (vma_is_initial_heap / vma_is_initial_stack)
        gets preferred_loc = SYSMEM (mapped in place); everything else, mmap-backed malloc
        included, migrates like managed memory (ledger: amd.system_alloc.fault_range).
        ``heap_or_stack`` means that initial heap or stack, not any heap allocation."""
        return "map_in_place" if heap_or_stack else "migrate"


class AmdCoherent(AmdXnackOn):
    """amdkfd SVM with XNACK on, on a node whose GPU is connected to the CPU by a coherent xGMI
    link (Frontier-class MI250X with amdgpu's device-coherent VRAM): the CPU reads and writes
    GPU-resident pages in place."""

    name = "amd-xnack-on-coherent"
    cpu_touch_of_gpu_pages = Rule("in_place", "kfd_migrate.c kgd2kfd_init_zone_device: with "
                                  "adev->gmc.xgmi.connected_to_cpu VRAM is MEMORY_DEVICE_COHERENT, "
                                  "whose pages 'can be mapped into CPU page tables': a CPU touch "
                                  "of GPU-resident managed pages is an access over the link, no "
                                  "CPU fault, no migration "
                                  "(ledger: amd.vram.coherent, amd.vram.private). Cost: the "
                                  "profile's CPU write to GPU-resident managed memory "
                                  "(cpu_fault_latency + bytes / cpu_fault_bw, "
                                  "Pearson 'implicit_managed_HostWrGPU_coarse' on Frontier); "
                                  "hipDeviceAttributeDirectManagedMemAccessFromHost = 1 "
                                  "(ledger: amd.attr.direct_host). OLCF's table still observes "
                                  "migrate-on-touch on Frontier "
                                  "(ledger: amd.olcf.migrate_on_touch): mi250x-xnack1 keeps that")


class AmdXnackOff(AmdXnackOn):
    """amdkfd SVM with XNACK off (HSA_XNACK=0): no recoverable GPU faults."""

    name = "amd-xnack-off"
    managed_alloc_layer = Rule("kmd", "as AmdXnackOn, and kfd_svm.c svm_range_apply_attrs sets "
                               "update_mapping when !p->xnack_enabled: svm_range_validate_and_map "
                               "maps the range for the GPUs at once")
    gpu_faults = Rule(False, "kfd_svm.c svm_range_restore_pages: 'XNACK not enabled' -> -EFAULT; "
                      "the range is mapped up front, so the GPU reads host pages over the link "
                      "(OLCF XNACK=0 table: 'Zero copy read/write over Infinity Fabric')")
    prefetch_migrates = Rule(True, "kfd_svm.c svm_range_trigger_migration runs with XNACK off too "
                             "(svm_range_evict stops the queues, svm_range_restore_work remaps); "
                             "OLCF: explicit hipMemPrefetchAsync/hipMemAdvise still migrate "
                             "(ledger: amd.xnack0.hints_work)")
    managed_alloc_populates = Rule(True, "kfd_svm.c svm_range_apply_attrs sets update_mapping "
                                   "when !p->xnack_enabled, so svm_range_set_attr calls "
                                   "svm_range_validate_and_map -> amdgpu_hmm_range_get_pages with "
                                   "HMM_PFN_REQ_FAULT: every page is faulted in on the CPU side "
                                   "and mapped for the GPUs inside hipMallocManaged. umkit "
                                   "charges each 4 KiB page the profile's CPU first-touch cost "
                                   "(first_touch_latency + host_page / host_mem_bw) in the "
                                   "allocation call, and the CPU's first touch then takes no fault "
                                   "(ledger: amd.xnack0.alloc_maps)")
    migration_stops_queues = Rule(True, "kfd_svm.c svm_range_evict: with XNACK off a CPU-side "
                                  "invalidation or migration of a GPU-mapped range (a prefetch, a "
                                  "CPU fault migrating pages back) calls kgd2kfd_quiesce_mm on the "
                                  "first evicted range: every user queue of the process stops, on "
                                  "every GPU, until svm_range_restore_work (scheduled "
                                  "AMDGPU_SVM_RANGE_RESTORE_DELAY_MS = 1 ms later) has remapped "
                                  "the ranges and called kgd2kfd_resume_mm. umkit: no stream of "
                                  "any GPU runs work from the migration's start to its end plus "
                                  "queue_restore_latency (ledger: amd.xnack0.quiesce)")

    def system_alloc_gpu_touch(self, heap_or_stack: bool) -> str:
        """OLCF Frontier guide, XNACK=0 table: malloc memory -> 'Fatal Unhandled Page Fault'
        unless registered with hipHostRegister."""
        return "fatal"


class AmdApu(AmdXnackOn):
    """MI300A: CPU and GPU share one physical memory (unified physical memory)."""

    name = "amd-apu"
    one_memory = Rule(True, "kfd_svm.c svm_range_best_restore_location: 'if "
                      "(node->adev->gmc.is_app_apu) return 0;' (restore in system memory = the "
                      "one HBM); kfd_migrate.c kgd2kfd_init_zone_device returns early when "
                      "apu_prefer_gtt (no device-private pages)")
    prefetch_migrates = Rule(False, "kfd_svm.c svm_range_best_prefetch_location: is_app_apu -> "
                             "best_loc = 0, so a prefetch migrates nothing")
    cpu_touch_of_gpu_pages = Rule("local", "one physical memory: nothing was migrated, so a CPU "
                                  "touch is an ordinary access (Wahlgren et al., IISWC 2025)")
    device_memory_cpu_access = Rule("local", "MI300A: hipMalloc memory is the same HBM the CPU "
                                    "cores use (Wahlgren et al., IISWC 2025)")

    def system_alloc_gpu_touch(self, heap_or_stack: bool) -> str:
        """MI300A: the fault only maps the page (is_app_apu); nothing migrates."""
        return "map_in_place"


_BY_VENDOR_MODE = {
    ("nvidia", "migrate"): NvidiaPolicy,
    ("amd", "migrate"): AmdXnackOn,
    ("amd", "zero_copy"): AmdXnackOff,
    ("amd", "apu"): AmdApu,
}


#: a profile of another vendor (or none) gets the rules of its mode
_BY_MODE = {"migrate": NvidiaPolicy, "zero_copy": AmdXnackOff, "apu": AmdApu}


#: where the platform changes what the driver does (ledger: amd.vram.coherent)
_BY_PLATFORM = {("amd", "migrate", "cpu-coherent"): AmdCoherent}


def policy_for(vendor: str, mode: str, platform: str = "") -> Policy:
    """The policy a profile's ``vendor``, ``mode`` and ``platform`` fields select."""
    cls = _BY_PLATFORM.get((vendor, mode, platform)) or _BY_VENDOR_MODE.get((vendor, mode)) \
        or _BY_MODE.get(mode)
    if cls is None:
        raise InvalidArgument(f"no simulator policy for vendor={vendor!r}, mode={mode!r}",
                              hint=f"profile mode must be one of {sorted(_BY_MODE)}")
    return cls()


__all__ = ["Rule", "Policy", "NvidiaPolicy", "AmdXnackOn", "AmdCoherent", "AmdXnackOff", "AmdApu",
           "policy_for"]
