"""Solutions to notebook 08's exercises (porting CUDA to HIP, §5.3)."""

# Exercise 1: the HIP port of nb08.CUDA_SOURCE. The names come from umkit.names, except the one the
# table's note warns about: on ROCm ConcurrentManagedAccess is 1 with XNACK off too, so the question
# "can the GPU fault pages in on demand?" is asked of PageableMemoryAccess (1 only with XNACK on).
# The location structs become plain ints (0 for GPU 0, hipCpuDeviceId = -1 for the host); HIP's
# prefetch has no flags argument; both prefetches stay.
ON_DEMAND = """\
int on_demand = 0;      // XNACK on: the GPU can fault managed pages in on demand
hipDeviceGetAttribute(&on_demand, hipDeviceAttributePageableMemoryAccess, 0);
if (!on_demand) fprintf(stderr, "no concurrent managed access: a GPU prefetch is invalid here\\n");
"""
hip_source = ON_DEMAND + """\
float *w;
hipMallocManaged(&w, bytes, hipMemAttachGlobal);
hipMemAdvise(w, bytes, hipMemAdviseSetPreferredLocation, 0);
hipMemPrefetchAsync(w, bytes, 0, stream);                // inhale before the step
train_step<<<blocks, threads, 0, stream>>>(w, n);
hipMemPrefetchAsync(w, bytes, hipCpuDeviceId, stream);   // exhale for the checkpoint
hipStreamSynchronize(stream);
save_checkpoint(w, n);
hipFree(w);
"""

# Exercise 1, the other right answer: HIP 7's _v2 calls take a hipMemLocation, the most direct port
# of CUDA 13 (ROCm/clr hipamd/src/hip_hmm.cpp: hipMemPrefetchAsync_v2(ptr, n, location, flags = 0,
# stream), hipMemAdvise_v2(ptr, n, advice, location)).
hip_source_v2 = """\
hipMemLocation gpu0 = {};
gpu0.type = hipMemLocationTypeDevice;
gpu0.id = 0;
hipMemLocation host = {};
host.type = hipMemLocationTypeHost;

""" + ON_DEMAND + """\
float *w;
hipMallocManaged(&w, bytes, hipMemAttachGlobal);
hipMemAdvise_v2(w, bytes, hipMemAdviseSetPreferredLocation, gpu0);
hipMemPrefetchAsync_v2(w, bytes, gpu0, 0, stream);       // inhale before the step
train_step<<<blocks, threads, 0, stream>>>(w, n);
hipMemPrefetchAsync_v2(w, bytes, host, 0, stream);       // exhale for the checkpoint
hipStreamSynchronize(stream);
save_checkpoint(w, n);
hipFree(w);
"""

# Exercise 2: the access-owner table (GB = 10^9 bytes).
owner_table = {
    "weights":    dict(budget_gb=6.0,  lifetime="run",  owner="gpu",  allocator="device"),
    "grads":      dict(budget_gb=6.0,  lifetime="step", owner="gpu",  allocator="device"),
    "adam_state": dict(budget_gb=24.0, lifetime="run",  owner="gpu",  allocator="device"),
    "batch":      dict(budget_gb=0.5,  lifetime="step", owner="both", allocator="managed"),
    "metrics":    dict(budget_gb=4e-6, lifetime="step", owner="both", allocator="pinned"),
    "checkpoint": dict(budget_gb=6.0,  lifetime="rare", owner="cpu",  allocator="managed"),
}
# The checkpoint has one rule across the course: managed memory, prefetched to the host before the
# CPU reads it (the column's choice), is the answer; pinned host memory with an explicit async copy
# is also right; device-only memory is wrong (the CPU must read it).
owner_table_pinned_checkpoint = dict(
    owner_table, checkpoint=dict(budget_gb=6.0, lifetime="rare", owner="cpu", allocator="pinned"))

# Wrong answers the checks must refuse.
wrong_sources = [
    None,
    hip_source.replace("hipMemPrefetchAsync(w, bytes, 0, stream);", ""),            # a prefetch dropped
    hip_source.replace("hipFree", "cudaFree"),                                       # a name left behind
    hip_source.replace("(w, bytes, 0, stream)", "(w, bytes, 0, 0, stream)"),        # CUDA 13's flags
    hip_source.replace("hipCpuDeviceId", "0"),                                       # no host prefetch
    hip_source.replace("hipStreamSynchronize(stream);\nsave_checkpoint(w, n);",
                       "save_checkpoint(w, n);\nhipStreamSynchronize(stream);"),     # CPU reads too early
    hip_source_v2.replace("_v2", ""),                                       # structs into the int calls
    hip_source_v2.replace("host, 0, stream", "host, 1, stream"),            # _v2 flags must be 0
    hip_source_v2.replace("(w, bytes, host, 0, stream)", "(w, bytes, gpu0, 0, stream)"),  # no exhale
    hip_source.replace("hipDeviceAttributePageableMemoryAccess",                    # renamed, but the
                       "hipDeviceAttributeConcurrentManagedAccess"),                # wrong question on ROCm
]
wrong_tables = [
    dict(owner_table, adam_state=dict(budget_gb=24.0, lifetime="run", owner="both", allocator="managed")),
    dict(owner_table, weights=dict(budget_gb=3.0, lifetime="run", owner="gpu", allocator="device")),
    dict(owner_table, metrics=dict(budget_gb=4e-6, lifetime="step", owner="both", allocator="managed")),
    dict(owner_table, checkpoint=dict(budget_gb=6.0, lifetime="rare", owner="cpu", allocator="device")),
]
