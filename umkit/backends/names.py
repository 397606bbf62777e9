"""The CUDA <-> HIP name mapping, as data.

One table serves four readers:

* the two GPU backends (:mod:`umkit.backends.cuda`, :mod:`umkit.backends.hip`) look up every
  runtime call, enum value and constant they use here (``for_backend('hip', 'cudaMemAdvise')``),
  so the port from CUDA to HIP is this table and nothing hidden;
* the porting notebook shows it (:func:`as_markdown`);
* the contract tests check every name against the installed ``cuda.bindings.runtime`` and
  ``hip.hip`` modules;
* :func:`cuda_header` turns it into a ``hip/hip_runtime.h`` for nvcc, so that the HIP C++ programs
  in ``kernels/hip/`` (:mod:`umkit.examples`) compile and run unchanged on NVIDIA GPUs:
  ``python -m umkit.examples header build/hip_on_cuda`` (or :func:`write_cuda_header`) writes
  ``build/hip_on_cuda/hip/hip_runtime.h``; then ``nvcc -x cu -I build/hip_on_cuda prog.hip``.

Each :class:`Row` is ``(concept, cuda, hip, kind, note, enum)``:

``kind``
    ``function`` (a runtime call), ``enum`` (a value of an enum type), ``attribute`` (a device or
    memory-range attribute: also an enum value, listed apart because the numbers differ between
    the runtimes), ``constant`` (a module-level flag or number), ``type`` (an enum or struct
    type: the ``enum`` column of other rows names one of these), or ``macro`` (a name that exists
    only in the C/C++ headers, not in the Python runtime modules, such as ``hipLaunchKernelGGL``).
``cuda`` / ``hip``
    The name in ``cuda.bindings.runtime`` / ``hip.hip``; ``None`` where that runtime has no
    counterpart (the note says what to do instead).
``enum``
    For ``enum`` and ``attribute`` rows: the CUDA name of the enum type that holds the value
    (its HIP name is ``cuda_to_hip(enum)``).  ``None`` otherwise.

Where a note says ``CUDA n, HIP m`` those are the numeric values of the two enum members: they
differ, so never pass a number from one runtime to the other (the contract tests check them).
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple, Optional

from ..errors import InvalidArgument, InvalidType, NoCounterpart, NotInTable, UmkitError

__all__ = ["KINDS", "BACKENDS", "Row", "BY_CUDA", "BY_HIP", "row", "cuda_to_hip", "hip_to_cuda",
           "for_backend", "rows", "resolve", "as_markdown", "header_names", "cuda_header",
           "write_cuda_header"]

KINDS = ("function", "enum", "attribute", "constant", "type", "macro")
BACKENDS = ("cuda", "hip")


class Row(NamedTuple):
    concept: str
    cuda: Optional[str]
    hip: Optional[str]
    kind: str
    note: str = ""
    enum: Optional[str] = None


def _f(concept, cuda, hip, note=""):
    return Row(concept, cuda, hip, "function", note)


def _e(concept, cuda, hip, enum, note=""):
    return Row(concept, cuda, hip, "enum", note, enum)


def _a(concept, cuda, hip, enum, note=""):
    return Row(concept, cuda, hip, "attribute", note, enum)


def _c(concept, cuda, hip, note=""):
    return Row(concept, cuda, hip, "constant", note)


def _t(concept, cuda, hip, note=""):
    return Row(concept, cuda, hip, "type", note)


def _m(concept, cuda, hip, note=""):
    return Row(concept, cuda, hip, "macro", note)


TABLE: tuple[Row, ...] = (
    # -- devices and versions -------------------------------------------------------------------
    _f("count visible GPUs", "cudaGetDeviceCount", "hipGetDeviceCount"),
    _f("select the current GPU", "cudaSetDevice", "hipSetDevice"),
    _f("which GPU is current", "cudaGetDevice", "hipGetDevice"),
    _f("device properties struct", "cudaGetDeviceProperties", "hipGetDeviceProperties",
       "HIP's struct also has gcnArchName (e.g. 'gfx90a:sramecc+:xnack+'): it tells whether "
       "the GPU was set up with XNACK, which on-demand page migration needs."),
    _t("device properties type", "cudaDeviceProp", "hipDeviceProp_t"),
    _f("query one device attribute", "cudaDeviceGetAttribute", "hipDeviceGetAttribute",
       "Same shape (attr, device) -> (err, int), but the attribute enum numbers differ: "
       "always pass the enum member, never a number."),
    _t("device attribute enum", "cudaDeviceAttr", "hipDeviceAttribute_t"),
    _a("GPU can allocate managed memory", "cudaDevAttrManagedMemory",
       "hipDeviceAttributeManagedMemory", "cudaDeviceAttr", "CUDA 83, HIP 24."),
    _a("GPU and CPU may touch managed memory at the same time (on-demand page faults)",
       "cudaDevAttrConcurrentManagedAccess", "hipDeviceAttributeConcurrentManagedAccess",
       "cudaDeviceAttr",
       "CUDA 89, HIP 9. NVIDIA: 1 means full unified memory support, 0 the limited kind "
       "(Windows, WSL, some Tegra) (ledger: nv.attr.concurrent_managed). On AMD it reports the kernel "
       "driver's SVM (HMM) support and is 1 with XNACK off too: read XNACK from "
       "PageableMemoryAccess (ledger: amd.attr.concurrent_managed)."),
    _a("GPU can read plain malloc() memory", "cudaDevAttrPageableMemoryAccess",
       "hipDeviceAttributePageableMemoryAccess", "cudaDeviceAttr",
       "CUDA 88, HIP 65. NVIDIA: HMM (Linux 6.1+, open kernel modules) or ATS (Grace Hopper); "
       "AMD: 1 only when XNACK is on for every GPU (HSA_XNACK=1 on an xnack-capable GPU): the "
       "XNACK test on ROCm (ledger: amd.attr.pageable_xnack)."),
    _a("pageable access goes through the CPU's page tables (ATS) rather than HMM",
       "cudaDevAttrPageableMemoryAccessUsesHostPageTables",
       "hipDeviceAttributePageableMemoryAccessUsesHostPageTables", "cudaDeviceAttr",
       "CUDA 100, HIP 66."),
    _a("CPU can touch managed memory without migrating it", "cudaDevAttrDirectManagedMemAccessFromHost",
       "hipDeviceAttributeDirectManagedMemAccessFromHost", "cudaDeviceAttr",
       "CUDA 101, HIP 13. AMD: 1 on a CPU-coherent node (MI250X on Frontier-class nodes) or an "
       "APU (MI300A), where the CPU reads GPU-resident pages in place; 0 on PCIe GPUs, where a "
       "CPU touch migrates them back (ledger: amd.attr.direct_host, amd.vram.coherent, "
       "amd.vram.private)."),
    _f("free and total GPU memory", "cudaMemGetInfo", "hipMemGetInfo"),
    _f("driver version", "cudaDriverGetVersion", "hipDriverGetVersion",
       "CUDA: 1000*major + 10*minor (13000 = 13.0); HIP: major*10^7 + minor*10^5 + patch."),
    _f("runtime version", "cudaRuntimeGetVersion", "hipRuntimeGetVersion"),

    # -- errors -----------------------------------------------------------------------------------
    _f("name of an error code", "cudaGetErrorName", "hipGetErrorName",
       "cuda-bindings returns (cudaSuccess, bytes). HIP's C function returns only the name (const char*, "
       "no status: hip_runtime_api.h); what hip-python returns for it is not confirmed here: the "
       "kit has not run on an AMD GPU."),
    _f("description of an error code", "cudaGetErrorString", "hipGetErrorString"),
    _f("last error (and clear it)", "cudaGetLastError", "hipGetLastError"),
    _f("last error (keep it)", "cudaPeekAtLastError", "hipPeekAtLastError"),
    _t("error code enum", "cudaError_t", "hipError_t",
       "Every call returns a tuple whose first item is this enum; 0 is success in both."),
    _e("success", "cudaSuccess", "hipSuccess", "cudaError_t"),
    _e("bad argument", "cudaErrorInvalidValue", "hipErrorInvalidValue", "cudaError_t"),
    _e("allocation failed: out of memory", "cudaErrorMemoryAllocation", "hipErrorOutOfMemory",
       "cudaError_t",
       "Same number (2). HIP also spells it hipErrorMemoryAllocation (an alias), and "
       "hipGetErrorName reports 'hipErrorOutOfMemory'."),
    _e("runtime could not initialise", "cudaErrorInitializationError", "hipErrorNotInitialized",
       "cudaError_t", "HIP's hipErrorInitializationError is an alias of hipErrorNotInitialized."),
    _e("driver missing or older than the runtime", "cudaErrorInsufficientDriver",
       "hipErrorInsufficientDriver", "cudaError_t"),
    _e("no GPU visible", "cudaErrorNoDevice", "hipErrorNoDevice", "cudaError_t"),
    _e("no such device ordinal", "cudaErrorInvalidDevice", "hipErrorInvalidDevice", "cudaError_t"),
    _e("pointer is not a device pointer", "cudaErrorInvalidDevicePointer",
       "hipErrorInvalidDevicePointer", "cudaError_t"),
    _e("bad stream or event handle", "cudaErrorInvalidResourceHandle", "hipErrorInvalidHandle",
       "cudaError_t", "HIP's hipErrorInvalidResourceHandle is an alias."),
    _e("work still in flight (event/stream query)", "cudaErrorNotReady", "hipErrorNotReady",
       "cudaError_t"),
    _e("kernel launch configuration invalid", "cudaErrorInvalidConfiguration",
       "hipErrorInvalidConfiguration", "cudaError_t"),
    _e("kernel read or wrote a bad address", "cudaErrorIllegalAddress", "hipErrorIllegalAddress",
       "cudaError_t", "Sticky: the context is unusable afterwards; restart the process."),
    _e("kernel failed", "cudaErrorLaunchFailure", "hipErrorLaunchFailure", "cudaError_t"),
    _e("no code for this GPU in the binary", "cudaErrorNoKernelImageForDevice",
       "hipErrorNoBinaryForGpu", "cudaError_t"),
    _e("operation not supported here", "cudaErrorNotSupported", "hipErrorNotSupported",
       "cudaError_t",
       "NVIDIA: managed-memory hints on a GPU without concurrent managed access. AMD: "
       "prefetching malloc'd memory on a GPU without XNACK; hints on hipMallocManaged memory "
       "work with XNACK off (ledger: amd.prefetch.not_supported, amd.xnack0.hints_work)."),

    # -- allocation -------------------------------------------------------------------------------
    _f("allocate managed (unified) memory", "cudaMallocManaged", "hipMallocManaged"),
    _c("managed memory visible to every stream", "cudaMemAttachGlobal", "hipMemAttachGlobal"),
    _c("managed memory attached to the host", "cudaMemAttachHost", "hipMemAttachHost",
       "ROCm accepts it and ignores it (ledger: amd.malloc_managed.attach_flags)."),
    _c("managed memory attached to one stream", "cudaMemAttachSingle", "hipMemAttachSingle"),
    _f("allocate device memory", "cudaMalloc", "hipMalloc"),
    _f("free device or managed memory", "cudaFree", "hipFree"),
    _f("allocate pinned host memory", "cudaMallocHost", "hipHostMalloc",
       "hipHostMalloc(size, 0) is the port: coherent (fine-grained) pinned memory; "
       "hipHostMallocNonCoherent gives the coarse-grained kind (ledger: amd.host_malloc.coherent). "
       "hipMallocHost is deprecated; some HIP headers also mark hipHostMalloc deprecated in "
       "favour of hipExtHostAlloc (ledger: amd.host_malloc.deprecated)."),
    _f("allocate pinned host memory with flags", "cudaHostAlloc", "hipHostMalloc",
       "hipHostMalloc takes cudaHostAlloc's flags under hip names. Recent HIPIFY maps cudaHostAlloc "
       "to hipHostAlloc (older HIPIFY, while hipHostAlloc was deprecated up to ROCm 6.2, to "
       "hipHostMalloc; HIP 6.3 un-deprecated it), an equivalent port: its own function, not an alias, that accepts "
       "cudaHostAlloc's flags (Portable, Mapped, WriteCombined, and hipHostAllocUncached since "
       "HIP 7.0; anything else is hipErrorInvalidValue) and allocates through the same "
       "ihipHostMalloc (ROCm/clr hipamd/src/hip_memory.cpp, hipHostAlloc, f9f995c6). clr's "
       "development CHANGELOG of late 2024 marked hipHostMalloc deprecated in favour of "
       "hipExtHostAlloc; the released HIP 6.3 notes and HIP 6.4's deprecated-API list do not."),
    _c("pinned memory mapped into the GPU address space (zero-copy)", "cudaHostAllocMapped",
       "hipHostMallocMapped"),
    _c("pinned memory usable from every GPU context", "cudaHostAllocPortable",
       "hipHostMallocPortable"),
    _c("pinned memory, no flags", "cudaHostAllocDefault", "hipHostMallocDefault"),
    _c("pinned memory, write-combined", "cudaHostAllocWriteCombined",
       "hipHostMallocWriteCombined",
       "ROCm accepts it and does not write-combine (ledger: amd.host_malloc.write_combined)."),
    _f("free pinned host memory", "cudaFreeHost", "hipHostFree"),
    _f("pin existing host memory", "cudaHostRegister", "hipHostRegister"),
    _f("unpin host memory", "cudaHostUnregister", "hipHostUnregister"),

    # -- migration: prefetch, advice, range attributes --------------------------------------------
    _f("move managed pages ahead of use", "cudaMemPrefetchAsync", "hipMemPrefetchAsync",
       "CUDA 13: (ptr, count, cudaMemLocation, flags, stream). HIP: (ptr, count, device:int, "
       "stream) with hipCpuDeviceId for the CPU (hipMemPrefetchAsync_v2 takes a hipMemLocation)."),
    _f("move managed pages ahead of use, to a location", "cudaMemPrefetchAsync",
       "hipMemPrefetchAsync_v2",
       "HIP 7.1 (HIP CHANGELOG, 'HIP 7.1 for ROCm 7.1'; ROCm/clr hipamd/src/hip_hmm.cpp: "
       "hipMemPrefetchAsync_v2(ptr, count, "
       "hipMemLocation, flags, stream); flags must be 0): the arguments of CUDA 13's "
       "cudaMemPrefetchAsync, so the direct port of CUDA 13 code. CUDA 12.2-12.x spelled it "
       "cudaMemPrefetchAsync_v2."),
    _t("a place pages can live: (type, id)", "cudaMemLocation", "hipMemLocation",
       "since CUDA 11.2 (memory pools); prefetch/advise overloads taking it since CUDA 12.2; CUDA 13 "
       "prefetch/advise take only this. HIP's classic calls take an int device (hipCpuDeviceId = "
       "CPU); the *_v2 calls (HIP 7.1) take hipMemLocation."),
    _t("memory location type enum", "cudaMemLocationType", "hipMemLocationType",
       "Used by the *_v2 calls (HIP 7.1); the classic HIP calls take an int device instead."),
    _e("location is a GPU", "cudaMemLocationTypeDevice", "hipMemLocationTypeDevice",
       "cudaMemLocationType", "id = the device ordinal. Classic HIP calls: pass the ordinal."),
    _e("location is the CPU", "cudaMemLocationTypeHost", "hipMemLocationTypeHost",
       "cudaMemLocationType", "id is ignored (ROCm/clr hip_hmm.cpp, ihipMemPrefetchAsync: the "
       "target is hipCpuDeviceId). Classic HIP calls: pass hipCpuDeviceId."),
    _c("device id meaning 'the CPU'", "cudaCpuDeviceId", "hipCpuDeviceId", "-1 in both."),
    _c("device id meaning 'no device / mixed'", "cudaInvalidDeviceId", "hipInvalidDeviceId",
       "-2 in both; range attributes return it when pages disagree or nothing was set."),
    _f("give the driver a hint about a range", "cudaMemAdvise", "hipMemAdvise",
       "CUDA 13: (ptr, count, advice, cudaMemLocation). HIP: (ptr, count, advice, device:int). "
       "hip-python raises TypeError unless advice is a hip.hipMemoryAdvise member (ROCm/hip-python "
       "hip/hip.pyx, hipMemAdvise; release/rocm-rel-6.2.0, 55ae539d)."),
    _f("give the driver a hint about a range, for a location", "cudaMemAdvise", "hipMemAdvise_v2",
       "HIP 7.1 (HIP CHANGELOG, 'HIP 7.1 for ROCm 7.1'; ROCm/clr hipamd/src/hip_hmm.cpp: "
       "hipMemAdvise_v2(ptr, count, advice, "
       "hipMemLocation)): the arguments of CUDA 13's cudaMemAdvise, so the direct port of CUDA 13 "
       "code. CUDA 12.2-12.x spelled it cudaMemAdvise_v2."),
    _t("advice enum", "cudaMemoryAdvise", "hipMemoryAdvise"),
    _e("read mostly: duplicate read-only copies", "cudaMemAdviseSetReadMostly",
       "hipMemAdviseSetReadMostly", "cudaMemoryAdvise", "The location argument is ignored."),
    _e("undo read mostly", "cudaMemAdviseUnsetReadMostly", "hipMemAdviseUnsetReadMostly",
       "cudaMemoryAdvise"),
    _e("preferred location: where pages like to live", "cudaMemAdviseSetPreferredLocation",
       "hipMemAdviseSetPreferredLocation", "cudaMemoryAdvise"),
    _e("undo preferred location", "cudaMemAdviseUnsetPreferredLocation",
       "hipMemAdviseUnsetPreferredLocation", "cudaMemoryAdvise"),
    _e("accessed by: map pages for this processor, no migration", "cudaMemAdviseSetAccessedBy",
       "hipMemAdviseSetAccessedBy", "cudaMemoryAdvise"),
    _e("undo accessed by", "cudaMemAdviseUnsetAccessedBy", "hipMemAdviseUnsetAccessedBy",
       "cudaMemoryAdvise"),
    _e("coarse-grained coherence (AMD only)", None, "hipMemAdviseSetCoarseGrain", "cudaMemoryAdvise",
       "HIP-only: coherence only at kernel boundaries and synchronisation. It changes the "
       "GPU's cache policy (MTYPE) only on MI100/MI200 (local VRAM CC -> RW, system and peer "
       "memory UC -> NC); on MI300 it changes no page-table entry, and it never moves pages "
       "(ledger: amd.coarse_grain.mtype, amd.managed.fine_grain). "
       "CUDA has no counterpart: umkit raises InvalidArgument for coarse_grain on CUDA."),
    _e("undo coarse grain (AMD only)", None, "hipMemAdviseUnsetCoarseGrain", "cudaMemoryAdvise",
       "HIP-only."),
    _f("read one attribute of a managed range", "cudaMemRangeGetAttribute",
       "hipMemRangeGetAttribute",
       "cuda-bindings: (dataSize, attribute, ptr, count) -> (err, value). hip-python: "
       "(data, data_size, attribute, ptr, count) -> (err,): you pass the output buffer (ROCm/hip-python "
       "hip/hip.pyx, hipMemRangeGetAttribute; release/rocm-rel-6.2.0, 55ae539d)."),
    _f("read several attributes of a managed range", "cudaMemRangeGetAttributes",
       "hipMemRangeGetAttributes"),
    _f("what memory an address is (unregistered, host, device, managed)",
       "cudaPointerGetAttributes", "hipPointerGetAttributes",
       "-> (err, attributes) with .type; an address nobody holds is 'unregistered' (CUDA 11+). "
       "umkit asks it before calling a once-freed address a use after free: another allocator "
       "(PyTorch's, a shim) may have been handed the same address since."),
    _t("range attribute enum", "cudaMemRangeAttribute", "hipMemRangeAttribute"),
    _a("is the range read-mostly (int 0/1)", "cudaMemRangeAttributeReadMostly",
       "hipMemRangeAttributeReadMostly", "cudaMemRangeAttribute", "CUDA 1, HIP 1."),
    _a("preferred location of the range (device id, -1 CPU, -2 none/mixed)",
       "cudaMemRangeAttributePreferredLocation", "hipMemRangeAttributePreferredLocation",
       "cudaMemRangeAttribute", "CUDA 2, HIP 2."),
    _a("devices with accessed-by advice (int array, -2 pads)", "cudaMemRangeAttributeAccessedBy",
       "hipMemRangeAttributeAccessedBy", "cudaMemRangeAttribute", "CUDA 3, HIP 3."),
    _a("where the range was last prefetched to (device id, -1 CPU, -2 none)",
       "cudaMemRangeAttributeLastPrefetchLocation", "hipMemRangeAttributeLastPrefetchLocation",
       "cudaMemRangeAttribute",
       "CUDA 4, HIP 4. Says what was asked for, not whether the copy is done."),
    _a("coherence mode of the range (AMD only)", None, "hipMemRangeAttributeCoherencyMode",
       "cudaMemRangeAttribute", "HIP-only: fine-grained, coarse-grained or indeterminate."),

    # -- streams, events, synchronisation ---------------------------------------------------------
    _t("stream handle", "cudaStream_t", "hipStream_t"),
    _f("create a stream", "cudaStreamCreate", "hipStreamCreate"),
    _f("create a stream with flags", "cudaStreamCreateWithFlags", "hipStreamCreateWithFlags"),
    _c("stream that does not wait for the legacy default stream", "cudaStreamNonBlocking",
       "hipStreamNonBlocking"),
    _f("destroy a stream", "cudaStreamDestroy", "hipStreamDestroy"),
    _f("wait for a stream", "cudaStreamSynchronize", "hipStreamSynchronize"),
    _f("is a stream idle", "cudaStreamQuery", "hipStreamQuery"),
    _f("wait for the whole device", "cudaDeviceSynchronize", "hipDeviceSynchronize"),
    _f("attach managed memory to one stream", "cudaStreamAttachMemAsync",
       "hipStreamAttachMemAsync",
       "ROCm validates the arguments and does nothing else (ledger: amd.stream_attach.noop)."),
    _f("export device memory to another process", "cudaIpcGetMemHandle", "hipIpcGetMemHandle",
       "hipMallocManaged memory cannot be exported (ledger: amd.ipc.managed): export hipMalloc "
       "memory."),
    _t("event handle", "cudaEvent_t", "hipEvent_t"),
    _f("create an event", "cudaEventCreate", "hipEventCreate"),
    _f("record an event on a stream", "cudaEventRecord", "hipEventRecord"),
    _f("wait for an event", "cudaEventSynchronize", "hipEventSynchronize"),
    _f("has an event happened", "cudaEventQuery", "hipEventQuery"),
    _f("milliseconds between two events", "cudaEventElapsedTime", "hipEventElapsedTime"),
    _f("destroy an event", "cudaEventDestroy", "hipEventDestroy"),

    # -- copies -----------------------------------------------------------------------------------
    _f("copy bytes (blocking)", "cudaMemcpy", "hipMemcpy"),
    _f("copy bytes on a stream", "cudaMemcpyAsync", "hipMemcpyAsync"),
    _t("copy direction enum", "cudaMemcpyKind", "hipMemcpyKind"),
    _e("copy direction: let the runtime infer it", "cudaMemcpyDefault", "hipMemcpyDefault",
       "cudaMemcpyKind", "Needs unified addressing (every 64-bit Linux system)."),
    _e("copy direction: host to device", "cudaMemcpyHostToDevice", "hipMemcpyHostToDevice",
       "cudaMemcpyKind"),
    _e("copy direction: device to host", "cudaMemcpyDeviceToHost", "hipMemcpyDeviceToHost",
       "cudaMemcpyKind"),
    _f("fill bytes", "cudaMemset", "hipMemset"),
    _f("fill bytes on a stream", "cudaMemsetAsync", "hipMemsetAsync"),

    # -- C++ only (headers, not the Python runtime modules) ---------------------------------------
    _m("launch a kernel", None, "hipLaunchKernelGGL",
       "A macro in HIP's C++ headers: hipLaunchKernelGGL(kernel, grid, block, sharedBytes, "
       "stream, args...). CUDA has no such name: its form is the launch syntax "
       "kernel<<<grid, block, sharedBytes, stream>>>(args...), which hipcc accepts too."),
)


# -- lookups --------------------------------------------------------------------------------------
def _index(col: str) -> dict[str, Row]:
    out: dict[str, Row] = {}
    for r in TABLE:
        name = getattr(r, col)
        if name is not None and name not in out:  # first row wins (hipHostMalloc serves two
            # CUDA calls; cudaMemPrefetchAsync and cudaMemAdvise have two HIP forms each)
            out[name] = r
    return out


BY_CUDA = _index("cuda")
BY_HIP = _index("hip")


def row(name: str) -> Row:
    """The row that has ``name`` in its CUDA or HIP column (:class:`~umkit.errors.NotInTable`,
    a KeyError, if none)."""
    _name(name)
    r = BY_CUDA.get(name) or BY_HIP.get(name)
    if r is None:
        raise NotInTable(f"name={_shown(name)} is not in umkit's CUDA<->HIP table (umkit.names)",
                         argument="name", hint="see umkit.names.as_markdown() for the table")
    return r


def _shown(value) -> str:
    """``value`` as a message shows it (:func:`umkit.validate.shown`: never raises)."""
    from ..validate import shown
    return shown(value)


def _name(name) -> str:
    if not isinstance(name, str):
        raise InvalidType(f"name={_shown(name)} must be a CUDA or HIP name (a string)", argument="name",
                          hint="e.g. 'cudaMallocManaged' or 'hipMemPrefetchAsync'")
    return name


def cuda_to_hip(name: str) -> Optional[str]:
    """The HIP spelling of a CUDA name; ``None`` when HIP has no counterpart (see the note)."""
    if _name(name) not in BY_CUDA:
        raise NotInTable(f"name={_shown(name)} is not a CUDA name in umkit's table", argument="name",
                         hint="CUDA names start with cuda/CU; see umkit.names.as_markdown()")
    return BY_CUDA[name].hip


def hip_to_cuda(name: str) -> Optional[str]:
    """The CUDA spelling of a HIP name; ``None`` when CUDA has no counterpart.

    One HIP call can stand for two CUDA calls (hipHostMalloc for cudaMallocHost and
    cudaHostAlloc); the first row in :data:`TABLE` wins."""
    if _name(name) not in BY_HIP:
        raise NotInTable(f"name={_shown(name)} is not a HIP name in umkit's table", argument="name",
                         hint="HIP names start with hip; see umkit.names.as_markdown()")
    return BY_HIP[name].cuda


def for_backend(backend: str, name: str) -> str:
    """The spelling of ``name`` (given in either runtime's spelling) in ``backend``.

    Raises :class:`LookupError` (with the table's note) when that runtime lacks it."""
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise (NotInTable if isinstance(backend, str) else InvalidType)(
            f"backend={_shown(backend)} must be one of {BACKENDS}", argument="backend",
            hint="'cuda' or 'hip'")
    r = row(name)
    out = getattr(r, backend)
    if out is None:
        raise NoCounterpart(f"{name} has no {backend.upper()} counterpart: {r.note}",
                            hint="see the row's note: umkit.names.row(name).note")
    return out


def rows(kind: Optional[str] = None) -> tuple[Row, ...]:
    """All rows, or those of one kind (one of :data:`KINDS`)."""
    if kind is None:
        return TABLE
    if not isinstance(kind, str) or kind not in KINDS:
        raise (InvalidArgument if isinstance(kind, str) else InvalidType)(
            f"kind={_shown(kind)} must be one of {KINDS}", argument="kind", hint=f"one of {KINDS}")
    return tuple(r for r in TABLE if r.kind == kind)


def resolve(module, backend: str, name: str):
    """The object that ``name`` names in a runtime module (``cuda.bindings.runtime`` or
    ``hip.hip``): a function, a constant, or an enum member found through the row's enum type."""
    r = row(name)
    own = for_backend(backend, name)
    try:
        if r.enum is None:
            return getattr(module, own)
        return getattr(getattr(module, for_backend(backend, r.enum)), own)
    except AttributeError:
        raise InvalidArgument(f"module={_shown(module)} has no {own}", argument="module",
                              hint="pass the runtime module: cuda.bindings.runtime or "
                                   "hip.hip") from None


def as_markdown(kind: Optional[str] = None) -> str:
    """The table as Markdown, for the porting notebook, in the learner's language (the names
    stay as they are; the header, concepts, kinds and notes go through ``lang.tr``)."""
    tr = UmkitError.localize             # runtime.lang's tr once umkit is imported (a later layer)
    lines = [f"| {tr('concept')} | CUDA | HIP | {tr('kind')} | {tr('note')} |",
             "| --- | --- | --- | --- | --- |"]
    for r in rows(kind):
        cells = [tr(r.concept), f"`{r.cuda}`" if r.cuda else "—", f"`{r.hip}`" if r.hip else "—",
                 tr(r.kind), tr(r.note) if r.note else ""]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


# -- the table as a C++ header: HIP sources on nvcc ---------------------------------------------
#: Where one HIP call stands for two CUDA calls, the one whose C signature it shares.
_HEADER_PICK = {"hipHostMalloc": "cudaHostAlloc"}  # (ptr, size, flags), like hipHostMalloc

#: HIP names whose CUDA counterpart takes other arguments: generated as code, not as a rename.
_HEADER_CODE = {
    "hipMemPrefetchAsync": """\
// hipMemPrefetchAsync(ptr, count, device, stream): HIP's classic call takes an int device, with
// hipCpuDeviceId (-1) for the CPU.  CUDA 13 removed that overload: cudaMemPrefetchAsync(ptr,
// count, cudaMemLocation, flags, stream).  Convert the int into a location.
static inline cudaError_t umkit_hipMemPrefetchAsync(const void* ptr, size_t count, int device,
                                                    cudaStream_t stream = 0)
{
#if CUDART_VERSION >= 13000
    return cudaMemPrefetchAsync(ptr, count, umkit_hip_location(device), 0, stream);
#else
    return cudaMemPrefetchAsync(ptr, count, device, stream);
#endif
}
#define hipMemPrefetchAsync umkit_hipMemPrefetchAsync""",
    "hipMemAdvise": """\
// hipMemAdvise(ptr, count, advice, device): HIP's classic call takes an int device (hipCpuDeviceId
// for the CPU).  CUDA 13: cudaMemAdvise(ptr, count, advice, cudaMemLocation).  Convert.
static inline cudaError_t umkit_hipMemAdvise(const void* ptr, size_t count, cudaMemoryAdvise advice,
                                             int device)
{
#if CUDART_VERSION >= 13000
    return cudaMemAdvise(ptr, count, advice, umkit_hip_location(device));
#else
    return cudaMemAdvise(ptr, count, advice, device);
#endif
}
#define hipMemAdvise umkit_hipMemAdvise""",
    "hipMemPrefetchAsync_v2": """\
// hipMemPrefetchAsync_v2(ptr, count, hipMemLocation, flags, stream): HIP 7.1's location form, the
// arguments of CUDA 13's cudaMemPrefetchAsync (CUDA 12.2-12.x: cudaMemPrefetchAsync_v2).
static inline cudaError_t umkit_hipMemPrefetchAsync_v2(const void* ptr, size_t count,
                                                       cudaMemLocation location, unsigned int flags,
                                                       cudaStream_t stream = 0)
{
#if CUDART_VERSION >= 13000
    return cudaMemPrefetchAsync(ptr, count, location, flags, stream);
#else
    return cudaMemPrefetchAsync_v2(ptr, count, location, flags, stream);
#endif
}
#define hipMemPrefetchAsync_v2 umkit_hipMemPrefetchAsync_v2""",
    "hipMemAdvise_v2": """\
// hipMemAdvise_v2(ptr, count, advice, hipMemLocation): HIP 7.1's location form, the arguments of
// CUDA 13's cudaMemAdvise (CUDA 12.2-12.x: cudaMemAdvise_v2).
static inline cudaError_t umkit_hipMemAdvise_v2(const void* ptr, size_t count,
                                                cudaMemoryAdvise advice, cudaMemLocation location)
{
#if CUDART_VERSION >= 13000
    return cudaMemAdvise(ptr, count, advice, location);
#else
    return cudaMemAdvise_v2(ptr, count, advice, location);
#endif
}
#define hipMemAdvise_v2 umkit_hipMemAdvise_v2""",
    "hipLaunchKernelGGL": """\
// hipLaunchKernelGGL(kernel, grid, block, sharedBytes, stream, args...): CUDA's launch syntax.
#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...) \\
    kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__)""",
}

_HEADER_TOP = """\
// hip/hip_runtime.h for nvcc -- GENERATED by umkit from its CUDA<->HIP names table
// (umkit.backends.names.cuda_header(); {rows} rows).  Do not edit: change the table.
//
// It lets HIP C++ sources compile unchanged with NVIDIA's compiler:
//     python -m umkit.examples header build/hip_on_cuda
//     nvcc -x cu -arch=sm_90 -I build/hip_on_cuda -o prog prog.hip
// Each HIP name the table knows becomes its CUDA name (types by typedef, the rest by #define);
// calls whose arguments differ in CUDA 13 (an int device where CUDA wants a cudaMemLocation)
// get small inline wrappers.  HIP's own CUDA back end (hipcc with HIP_PLATFORM=nvidia) does the
// same job, but the HIP 5.x headers predate CUDA 13's location API.
#ifndef UMKIT_HIP_ON_CUDA_H
#define UMKIT_HIP_ON_CUDA_H

#include <cuda_runtime.h>

#ifndef __HIP_PLATFORM_NVIDIA__
#define __HIP_PLATFORM_NVIDIA__ 1
#endif

#if CUDART_VERSION >= 13000
// An int device as HIP's classic calls take it -> CUDA's location (hipCpuDeviceId = the CPU).
static inline cudaMemLocation umkit_hip_location(int device)
{{
    cudaMemLocation loc = {{}};
    if (device == cudaCpuDeviceId) {{
        loc.type = cudaMemLocationTypeHost;
        loc.id = 0;
    }} else {{
        loc.type = cudaMemLocationTypeDevice;
        loc.id = device;
    }}
    return loc;
}}
#endif
"""


def header_names() -> dict[str, str]:
    """HIP name -> what :func:`cuda_header` makes of it: the CUDA name it is renamed to, or
    ``"wrapper"`` for generated code.  Names without a CUDA counterpart are left out."""
    out: dict[str, str] = {}
    for r in TABLE:
        if r.hip is None or r.hip in out:
            continue
        if r.hip in _HEADER_CODE:
            out[r.hip] = "wrapper"
        elif r.cuda is not None:
            out[r.hip] = _HEADER_PICK.get(r.hip, r.cuda)
    return out


def cuda_header() -> str:
    """The text of a ``hip/hip_runtime.h`` that maps every HIP name in :data:`TABLE` to CUDA, for
    compiling HIP C++ with nvcc (CUDA 12 or 13)."""
    parts = [_HEADER_TOP.format(rows=len(TABLE))]
    groups: dict[str, list[str]] = {k: [] for k in KINDS}
    hip_only: list[str] = []
    done: set[str] = set()
    for r in TABLE:
        if r.hip is None or r.hip in done:
            continue
        done.add(r.hip)
        if r.hip in _HEADER_CODE:
            groups[r.kind].append(_HEADER_CODE[r.hip])
        elif r.cuda is None:
            hip_only.append(r.hip)
        elif r.kind == "type":
            groups[r.kind].append(f"typedef {r.cuda} {r.hip};")
        else:
            groups[r.kind].append(f"#define {r.hip} {_HEADER_PICK.get(r.hip, r.cuda)}")
    titles = {"type": "types", "function": "functions", "enum": "enum values",
              "attribute": "attributes (enum values whose numbers differ: never pass numbers)",
              "constant": "constants and flags", "macro": "C++ macros"}
    for kind in ("type", "function", "enum", "attribute", "constant", "macro"):
        if groups[kind]:
            parts.append(f"\n// -- {titles[kind]} " + "-" * (90 - len(titles[kind])))
            parts.extend(groups[kind])
    if hip_only:
        parts.append("\n// HIP-only, no CUDA counterpart (using one is a compile error here): "
                     + ", ".join(hip_only))
    parts.append("\n#endif  // UMKIT_HIP_ON_CUDA_H\n")
    return "\n".join(parts)


def write_cuda_header(include_dir, *, force: bool = False) -> Path:
    """Write :func:`cuda_header` as ``<include_dir>/hip/hip_runtime.h`` (so that a source's own
    ``#include <hip/hip_runtime.h>`` finds it with ``-I include_dir``); returns the file's path.

    Beside it, ``hip/.hip_runtime.h.umkit`` holds the SHA-256 of what umkit wrote.  The header is
    replaced (when the table changed) only while it is still exactly what umkit wrote; a header
    someone edited, one umkit did not write (a real HIP install's, yours) and one whose record is
    missing are kept: :class:`umkit.results.files.AlreadyExists` (argument ``include_dir``)
    unless ``force=True``.  Written beside and renamed into place
    (:func:`umkit.results.files.write`), so a failed write (``WriteFailed``) leaves the old
    header whole."""
    import hashlib

    from ..errors import InvalidArgument
    from ..results import files
    from ..validate import flag as _flag, path as _path, shown as _shown
    _flag(force, "force")
    folder = _path(include_dir, "include_dir", hint="a folder, e.g. 'build/hip_on_cuda'")
    path = folder / "hip" / "hip_runtime.h"
    record = path.with_name(".hip_runtime.h.umkit")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:             # a regular file, a FIFO or /dev/full on the way
        raise InvalidArgument(f"include_dir={_shown(str(folder), 200)}: folder {_shown(str(path.parent), 200)} "
                              f"cannot be made ({e.strerror or type(e).__name__})",
                              argument="include_dir",
                              hint="name a folder you can write, e.g. 'build/hip_on_cuda'") from None
    text = cuda_header()
    data = text.encode("utf-8")

    def sha(b: bytes) -> str:
        return hashlib.sha256(b).hexdigest()

    def small(p, limit):             # a regular file's bytes (at most limit), else None
        try:
            if p.is_symlink() or not p.is_file() or p.stat().st_size > limit:
                return None
            with open(p, "rb") as f:
                return f.read(limit + 1)
        except OSError:
            return None
    if path.exists() or path.is_symlink():
        now = small(path, 4 * len(data) + (1 << 20))
        if now == data:
            if small(record, 100) != sha(data).encode():
                files.write(record, sha(data), argument="include_dir", exists="replace")
            return path
        written = small(record, 100)
        ours = now is not None and written is not None and sha(now).encode() == written.strip()
        if not ours and not force:
            why = ("umkit wrote it and it was edited since" if now is not None and
                   now.startswith(_HEADER_TOP.split("\n", 1)[0].encode()) else
                   "umkit did not write it")
            raise files.AlreadyExists(
                f"include_dir={_shown(str(folder), 200)}: {_shown(str(path), 200)} exists and {why}: it is kept",
                argument="include_dir", path=str(path),
                hint="pass another folder (e.g. 'build/hip_on_cuda'), move that file away, or "
                     "force=True to replace it")
    files.write(path, text, argument="include_dir", exists="replace")
    files.write(record, sha(data), argument="include_dir", exists="replace")
    return path
