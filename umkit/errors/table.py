"""The article's §5.1 troubleshooting table as data: HIP, CUDA and HSA error codes side by side
(:data:`ERRORS`), the symptoms that come with no code (:data:`SYMPTOMS`), and the look-ups
(:func:`lookup`, :func:`hint_for`, :func:`error_from_code`).  The renderer behind
``umkit.explain`` is :mod:`umkit.diagnostics.explain`; the exception classes are :mod:`umkit.errors`.
"""
from __future__ import annotations

import enum
import operator
import re
from dataclasses import dataclass

from .kinds import BackendError, BackendOutOfMemory, InvalidArgument, InvalidType

# ==========================================================================================
# The error table: HIP and CUDA runtime codes that matter for memory work, side by side.
# ==========================================================================================
#
# Where the numbers come from (checked, not remembered):
#   CUDA  cudaError_t in cuda-bindings 13.5 (``cuda.bindings.runtime.cudaError_t``), the same
#         values as the hipfort ``hipfort_cuda_errors`` reference on rocm.docs.amd.com.
#   HIP   hipError_t in hip_runtime_api.h (ROCm/HIP), as wrapped by hip-python / rocm-bindings
#         (``hip.hip.hipError_t``) and listed on rocm.docs.amd.com "HIP error codes".
#   HSA   hsa_status_t in ROCR-Runtime's hsa.h and the AMD additions in hsa_ext_amd.h.
# HIP deliberately reuses CUDA's numbers, but many *names* differ (hipErrorOutOfMemory vs
# cudaErrorMemoryAllocation, hipErrorInvalidHandle vs cudaErrorInvalidResourceHandle, ...), some
# codes exist on one runtime only, and HSA statuses (what ROCm prints underneath HIP) are a third,
# unrelated numbering.  tests/diagnostics/test_errors.py checks the table against the installed bindings.

@dataclass(frozen=True)
class ErrorInfo:
    """One row of :data:`ERRORS`: the same failure under its CUDA, HIP and (where it has one)
    HSA name.  A ``None`` name means that runtime has no such code; ``note`` then says what it
    reports instead."""
    key: str
    cuda: str | None
    cuda_code: int | None
    hip: str | None
    hip_code: int | None
    message: str
    hint: str
    section: str = ""
    hsa: str | None = None
    hsa_code: int | None = None
    aliases: tuple[str, ...] = ()     # deprecated names, driver-API names
    phrases: tuple[str, ...] = ()     # lower-case text other libraries print for this error
    oom: bool = False
    note: str = ""
    claims: tuple[str, ...] = ()      # the vendor-claim ledger entries the row rests on
    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for n in (self.hip, self.cuda, self.hsa) if n) + self.aliases


@dataclass(frozen=True)
class Symptom:
    """One row of :data:`SYMPTOMS`: the article's §5.1 rows that come with no error code."""
    key: str
    title: str
    keywords: tuple[str, ...]
    cause: str
    hint: str
    section: str
    tools: str = ""
    see_also: str = ""
    claims: tuple[str, ...] = ()      # the vendor-claim ledger entries the row rests on


_HINT_OOM = (
    "The article's §5.1: your device allocations (hipMalloc / cudaMalloc) exceed the VRAM left "
    "on the GPU, or managed allocations exceed what the host can back: on ROCm hipMallocManaged "
    "reserves no VRAM, and with XNACK off amdkfd (since about Linux 6.0, 2022) charges it to a "
    "system-memory limit. Check free "
    "memory with umkit.doctor() (rocm-smi / nvidia-smi also show other processes holding VRAM, "
    "which limits device allocations), allocate in smaller blocks, split the hot data "
    "into device memory and let cold data breathe out to the host with managed memory (§2.1, "
    "§4.3). umkit's guard against oversubscribing managed memory applies on the cuda backend "
    "(umkit.allow_oversubscription(True) lifts it); sim models a smaller card with "
    "umkit.use('sim', vram=...) so you can watch pages breathe out.")
_HINT_IPC = (
    "Managed pointers don't cross processes (§4.3, §5.1): an address from hipMallocManaged in "
    "one process means nothing in another. Share memory with IPC (hipIpcGetMemHandle / "
    "hipIpcOpenMemHandle, cudaIpcGetMemHandle on NVIDIA) or a file mapping, or copy explicitly.")
_HINT_KMD = (
    "The article's §4.1: HSA errors at start-up usually mean the kernel driver (KMD: amdgpu / "
    "ROCk) isn't loaded or /dev/kfd isn't accessible. Run umkit.doctor(), then `rocminfo` "
    "(a gfx… GPU agent must be listed), `lsmod | grep amdgpu`, `ls -l /dev/kfd /dev/dri`; add "
    "your user to the render and video groups; in a container pass --device=/dev/kfd "
    "--device=/dev/dri.")
_HINT_STICKY = (
    " This error is sticky: the context is broken, so every later call fails too; fix the cause "
    "and restart the process (or the notebook kernel).")
_HINT_LOCATE = (
    " To find the kernel: rerun with CUDA_LAUNCH_BLOCKING=1 (NVIDIA) or AMD_SERIALIZE_KERNEL=3 "
    "AMD_LOG_LEVEL=3 (AMD), or run compute-sanitizer; the cheapest check is the article's §5.2: "
    "hipGetLastError + hipDeviceSynchronize with a timestamp around each step.")
_HINT_CAPTURE = (
    "A stream that is being captured into a graph can't synchronize, allocate, or prefetch "
    "managed memory in a way the graph can't record. Do allocations and prefetches before "
    "BeginCapture, synchronize only after EndCapture, and keep other streams out of the capture "
    "(or use the relaxed capture mode).")
_HINT_PEER = (
    "The article's §6.2: migrating one managed pointer between GPUs is a double-edged sword. "
    "Check the topology (nvidia-smi topo -m / rocm-smi --showtopo), enable peer access once per "
    "device pair, and keep managed memory for start-up broadcast and rare checkpoints, not the "
    "hot loop.")

_R = ErrorInfo
#: Every HIP/CUDA/HSA error umkit can explain; see :func:`explain`.
ERRORS: tuple[ErrorInfo, ...] = (
    _R("success", "cudaSuccess", 0, "hipSuccess", 0,
       "No error: the call completed.",
       "Nothing to fix. If the numbers are still wrong, there is no error code for that: see "
       "umkit.explain('wrong result').",
       "§5.1", hsa="HSA_STATUS_SUCCESS", hsa_code=0, aliases=("CUDA_SUCCESS",)),
    _R("invalid_value", "cudaErrorInvalidValue", 1, "hipErrorInvalidValue", 1,
       "One or more arguments are out of range (a NULL pointer, a zero or too-large size, an "
       "unknown flag or advice value).",
       "Check sizes and pointers: the range must lie inside one allocation; prefetch/advise "
       "need managed memory and a valid device id (the CPU is hipCpuDeviceId / cudaCpuDeviceId, "
       "-1) (§3.2). umkit checks these before calling and raises InvalidArgument or NotManaged "
       "with the argument's name.",
       "§3.2", hsa="HSA_STATUS_ERROR_INVALID_ARGUMENT", hsa_code=0x1001,
       aliases=("CUDA_ERROR_INVALID_VALUE",), phrases=("invalid argument",)),
    _R("out_of_memory", "cudaErrorMemoryAllocation", 2, "hipErrorOutOfMemory", 2,
       "The runtime could not allocate enough memory (device memory, or the managed mapping "
       "behind hipMallocManaged / cudaMallocManaged).",
       _HINT_OOM, "§5.1",
       aliases=("hipErrorMemoryAllocation", "CUDA_ERROR_OUT_OF_MEMORY"),
       phrases=("out of memory",), oom=True,
       note="hipErrorMemoryAllocation is HIP's deprecated alias of hipErrorOutOfMemory (both 2).",
       claims=("amd.managed.no_vram_reserve",)),
    _R("not_initialized", "cudaErrorInitializationError", 3, "hipErrorNotInitialized", 3,
       "The driver and runtime could not be initialized.",
       "The driver isn't usable from this process. " + _HINT_KMD + " On NVIDIA run nvidia-smi; "
       "in a container use --gpus all. umkit falls back to the sim backend and umkit.doctor() "
       "says why.",
       "§4.1", hsa="HSA_STATUS_ERROR_NOT_INITIALIZED", hsa_code=0x100B,
       aliases=("hipErrorInitializationError", "CUDA_ERROR_NOT_INITIALIZED"),
       phrases=("initialization error",),
       note="hipErrorInitializationError is HIP's deprecated alias of hipErrorNotInitialized."),
    _R("deinitialized", "cudaErrorCudartUnloading", 4, "hipErrorDeinitialized", 4,
       "The call came while the runtime was shutting down (after the driver was unloaded).",
       "Usually a destructor freeing GPU memory at interpreter exit. Free memory explicitly "
       "(or with a `with` block) before the program ends; at exit itself it is harmless.",
       "", aliases=("CUDA_ERROR_DEINITIALIZED",), phrases=("driver shutting down",)),
    _R("invalid_configuration", "cudaErrorInvalidConfiguration", 9,
       "hipErrorInvalidConfiguration", 9,
       "The kernel launch asked for a grid/block shape or shared memory the device can't give.",
       "Keep the block at most 1024 threads (256 is the article's choice) and the grid at "
       "(n + threads - 1) // threads blocks (§4.2).",
       "§4.2"),
    _R("invalid_device_pointer", "cudaErrorInvalidDevicePointer", 17,
       "hipErrorInvalidDevicePointer", 17,
       "A pointer is not a valid device (or managed) pointer for this runtime.",
       "The pointer was freed already, came from another process or another runtime, or is a "
       "plain host pointer where device memory was expected. " + _HINT_IPC,
       "§4.3"),
    _R("invalid_memcpy_direction", "cudaErrorInvalidMemcpyDirection", 21,
       "hipErrorInvalidMemcpyDirection", 21,
       "The copy direction (HostToDevice, DeviceToHost, ...) doesn't match the pointers.",
       "With managed memory one pointer lives on both sides, so pass the Default kind "
       "(hipMemcpyDefault / cudaMemcpyDefault) and let the runtime infer the direction; umkit's "
       "memcpy always does (§3.1).",
       "§3.1"),
    _R("stub_library", "cudaErrorStubLibrary", 34, None, None,
       "The CUDA driver library loaded is a stub (libcuda.so from the toolkit), not a real driver.",
       "No NVIDIA driver is installed on this machine, or the stub shadows it on "
       "LD_LIBRARY_PATH; run nvidia-smi and umkit.doctor().",
       "§4.1", aliases=("CUDA_ERROR_STUB_LIBRARY",),
       note="HIP has no such code; a missing AMD driver shows up as hipErrorNoDevice or an HSA "
            "error."),
    _R("insufficient_driver", "cudaErrorInsufficientDriver", 35, "hipErrorInsufficientDriver", 35,
       "The installed driver is older than the runtime this program uses.",
       "Upgrade the driver, or install runtime packages that match it: the CUDA version in "
       "nvidia-smi's header must be at least cuda-bindings'/CuPy's CUDA major; on AMD the ROCm "
       "user space, the installed one and the copy inside a PyTorch ROCm wheel alike, must be one "
       "the amdgpu kernel driver supports: AMD supports them up to two releases apart (§4.1). "
       "umkit.doctor() prints both sides.",
       "§4.1", phrases=("driver version is insufficient",)),
    _R("devices_unavailable", "cudaErrorDevicesUnavailable", 46, None, None,
       "All devices are busy or unavailable right now.",
       "The GPU is in an exclusive compute mode and another process holds it (nvidia-smi shows "
       "the compute mode and the processes); wait for it, or ask for a different GPU with "
       "CUDA_VISIBLE_DEVICES.",
       "§4.1", aliases=("CUDA_ERROR_DEVICE_UNAVAILABLE",),
       phrases=("busy or unavailable",),
       note="HIP has no such code; an AMD GPU that can't be opened shows up as hipErrorNoDevice "
            "or an HSA error."),
    _R("no_device", "cudaErrorNoDevice", 100, "hipErrorNoDevice", 100,
       "No GPU is visible to this process.",
       "Check that CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES aren't "
       "empty or -1, that nvidia-smi or rocminfo lists the GPU, and that a container was given "
       "the devices (--gpus all, or --device=/dev/kfd --device=/dev/dri) (§4.1). umkit then "
       "uses the sim backend; umkit.doctor() says why.",
       "§4.1", aliases=("CUDA_ERROR_NO_DEVICE",),
       phrases=("no cuda-capable device", "no hip-capable device", "no rocm-capable device")),
    _R("invalid_device", "cudaErrorInvalidDevice", 101, "hipErrorInvalidDevice", 101,
       "The device number doesn't name a visible GPU.",
       "Device ids run from 0 to device_count - 1 after *_VISIBLE_DEVICES renumbering. To "
       "prefetch to the host, pass the CPU location (hipCpuDeviceId / cudaCpuDeviceId), not a "
       "GPU number (§3.2).",
       "§3.2", aliases=("CUDA_ERROR_INVALID_DEVICE",), phrases=("invalid device ordinal",)),
    _R("invalid_context", "cudaErrorDeviceUninitialized", 201, "hipErrorInvalidContext", 201,
       "No valid context is current on this thread (or it belongs to another device).",
       "Often a process that forked after the GPU was initialized: start worker processes with "
       "the 'spawn' method and initialize the GPU inside each one.",
       "", aliases=("CUDA_ERROR_INVALID_CONTEXT",), phrases=("invalid device context",)),
    _R("map_failed", "cudaErrorMapBufferObjectFailed", 205, "hipErrorMapFailed", 205,
       "Mapping a buffer failed (HIP's header documents it for hipIpcGetMemHandle and "
       "hipIpcCloseMemHandle).",
       _HINT_IPC + " Open an IPC handle once per process, on the same node. ROCm's runtime "
       "returns other codes in practice: a failed attach (hipIpcOpenMemHandle) gives "
       "hipErrorInvalidDevicePointer, and a failed hipIpcGetMemHandle hipErrorInvalidValue -- "
       "which is what we expect for managed memory, whose SVM ranges ROCR's IPC export does not "
       "know (inferred from the source, not run).",
       "§4.3", aliases=("hipErrorMapBufferObjectFailed", "CUDA_ERROR_MAP_FAILED"),
       note="hipErrorMapBufferObjectFailed is HIP's deprecated alias of hipErrorMapFailed.",
       claims=("amd.ipc.open_fail", "amd.ipc.managed")),
    _R("no_kernel_image", "cudaErrorNoKernelImageForDevice", 209, "hipErrorNoBinaryForGpu", 209,
       "The program has no kernel code built for this GPU's architecture.",
       "Rebuild for this GPU (--offload-arch=gfx… on AMD, -arch=sm_… on NVIDIA); `rocminfo | "
       "grep -i gfx` shows the target. On AMD a binary built only for gfx90a (MI200) won't load "
       "on gfx942 (MI300), and the xnack± feature is part of the target: a binary built for "
       "xnack- won't load with HSA_XNACK=1 and the other way round (no suffix loads in both).",
       "§4.1", aliases=("CUDA_ERROR_NO_BINARY_FOR_GPU",),
       phrases=("no kernel image is available",), claims=("amd.codeobj.target",)),
    _R("ecc_uncorrectable", "cudaErrorECCUncorrectable", 214, "hipErrorECCNotCorrectable", 214,
       "The GPU memory reported an uncorrectable ECC error.",
       "A hardware fault, not your code: note the GPU (nvidia-smi -q -d ECC / rocm-smi "
       "--showrasinfo), reset or drain it, and move the job elsewhere." + _HINT_STICKY,
       "", aliases=("CUDA_ERROR_ECC_UNCORRECTABLE",)),
    _R("peer_access_unsupported", "cudaErrorPeerAccessUnsupported", 217,
       "hipErrorPeerAccessUnsupported", 217,
       "These two GPUs can't access each other's memory directly.",
       _HINT_PEER + " Without peer access, data goes through host memory.",
       "§6.2", aliases=("CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",)),
    _R("invalid_resource_handle", "cudaErrorInvalidResourceHandle", 400, "hipErrorInvalidHandle",
       400,
       "A stream, event or other handle is invalid (destroyed, or from another device).",
       "Don't use a stream or event after destroying it, and create it on the device you use "
       "it with.",
       "§3.3", aliases=("hipErrorInvalidResourceHandle", "cudaErrorInvalidHandle",
                         "CUDA_ERROR_INVALID_HANDLE"),
       phrases=("invalid resource handle",),
       note="hipErrorInvalidResourceHandle is HIP's deprecated alias of hipErrorInvalidHandle."),
    _R("not_ready", "cudaErrorNotReady", 600, "hipErrorNotReady", 600,
       "Not an error: work queued earlier hasn't finished yet (event or stream query).",
       "Synchronize on the stream or event before reading results or timings (§3.3): the GPU "
       "runs asynchronously, and the CPU must wait before it touches the data.",
       "§3.3", aliases=("CUDA_ERROR_NOT_READY",)),
    _R("illegal_address", "cudaErrorIllegalAddress", 700, "hipErrorIllegalAddress", 700,
       "A kernel read or wrote memory at an address it doesn't own.",
       "A kernel touched memory it doesn't own: an index past the end (guard with `if (idx < "
       "n)`, §4.2), a pointer from another process, "
       "or freed managed memory (use after free; umkit raises UseAfterFree before the kernel "
       "on every backend, and sim shows which pages)." + _HINT_STICKY + _HINT_LOCATE,
       "§4.2", aliases=("CUDA_ERROR_ILLEGAL_ADDRESS",),
       phrases=("illegal memory access",),
       note="On AMD a GPU page fault usually does not come back as this code: ROCm prints "
            "'Memory access fault by GPU node-N' and aborts the process "
            "(umkit.explain('HSA_STATUS_ERROR_MEMORY_FAULT')).",
       claims=("amd.malloc.xnack0_fault",)),
    _R("launch_out_of_resources", "cudaErrorLaunchOutOfResources", 701,
       "hipErrorLaunchOutOfResources", 701,
       "The kernel launch needs more registers, shared memory or threads than the device has.",
       "Use a smaller block (256 threads) or fewer registers per thread.",
       "§4.2", aliases=("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",),
       phrases=("too many resources requested for launch",)),
    _R("launch_timeout", "cudaErrorLaunchTimeout", 702, "hipErrorLaunchTimeOut", 702,
       "A kernel ran longer than the watchdog allows.",
       "On a GPU that also drives a display the watchdog kills long kernels. A kernel that "
       "page-faults through a large managed array can be slowed far past that: prefetch the "
       "data before launching (§3.2), or split the work." + _HINT_STICKY,
       "§3.2", aliases=("CUDA_ERROR_LAUNCH_TIMEOUT",), phrases=("launch timed out",)),
    _R("peer_access_already_enabled", "cudaErrorPeerAccessAlreadyEnabled", 704,
       "hipErrorPeerAccessAlreadyEnabled", 704,
       "Peer access from this device was already enabled.",
       "Harmless: enable peer access once per device pair and ignore this code (§6.2).",
       "§6.2", aliases=("CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",)),
    _R("peer_access_not_enabled", "cudaErrorPeerAccessNotEnabled", 705,
       "hipErrorPeerAccessNotEnabled", 705,
       "Peer access between these devices was never enabled.",
       "Enable it first (hipDeviceEnablePeerAccess / cudaDeviceEnablePeerAccess). " + _HINT_PEER,
       "§6.2", aliases=("CUDA_ERROR_PEER_ACCESS_NOT_ENABLED",)),
    _R("context_destroyed", "cudaErrorContextIsDestroyed", 709, "hipErrorContextIsDestroyed", 709,
       "The context this call needs was already destroyed (device reset).",
       "Something reset the device (hipDeviceReset / cudaDeviceReset) while memory or streams "
       "were still in use; reset only at the very end.",
       "", aliases=("CUDA_ERROR_CONTEXT_IS_DESTROYED",)),
    _R("assert", "cudaErrorAssert", 710, "hipErrorAssert", 710,
       "A device-side assert() failed inside a kernel.",
       "Read the assert's message printed on stderr and fix the kernel's input." + _HINT_STICKY,
       "", aliases=("CUDA_ERROR_ASSERT",), phrases=("device-side assert",)),
    _R("host_memory_already_registered", "cudaErrorHostMemoryAlreadyRegistered", 712,
       "hipErrorHostMemoryAlreadyRegistered", 712,
       "This host memory range is already page-locked (registered).",
       "Register each host buffer once; pinned memory from hipHostMalloc / cudaMallocHost is "
       "already page-locked (§4.4).",
       "§4.4", aliases=("CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",)),
    _R("host_memory_not_registered", "cudaErrorHostMemoryNotRegistered", 713,
       "hipErrorHostMemoryNotRegistered", 713,
       "This host memory range was never page-locked (registered).",
       "Only unregister what you registered; free pinned memory with its own free call "
       "(hipHostFree / cudaFreeHost) (§4.4).",
       "§4.4", aliases=("CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",)),
    _R("illegal_instruction", "cudaErrorIllegalInstruction", 715, None, None,
       "The GPU hit an illegal instruction while running a kernel.",
       "Usually code built for a different GPU architecture or a corrupted binary: rebuild for "
       "this GPU." + _HINT_STICKY,
       "", hsa="HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION", hsa_code=42,
       aliases=("CUDA_ERROR_ILLEGAL_INSTRUCTION",), phrases=("illegal instruction",),
       note="HIP has no such code: ROCm reports HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION (42) and "
            "the HIP call fails with hipErrorLaunchFailure (719) or the process aborts."),
    _R("launch_failure", "cudaErrorLaunchFailure", 719, "hipErrorLaunchFailure", 719,
       "An exception occurred on the device while a kernel was running.",
       "Most often a bad memory access, as with illegal address: an index past the end, a "
       "freed or foreign pointer. On AMD look for 'Memory access fault by GPU node' on stderr "
       "(see umkit.explain('HSA_STATUS_ERROR_MEMORY_FAULT'))." + _HINT_STICKY + _HINT_LOCATE,
       "§4.2", aliases=("CUDA_ERROR_LAUNCH_FAILED",), phrases=("unspecified launch failure",)),
    _R("not_supported", "cudaErrorNotSupported", 801, "hipErrorNotSupported", 801,
       "The operation is not supported on this system or device.",
       "For memory work on NVIDIA: prefetch or advice on a device without concurrent managed "
       "access (Windows, pre-Pascal GPUs). On AMD: hipMemPrefetchAsync of memory HIP did not "
       "allocate (malloc'd) on a GPU without XNACK; prefetch and advice on hipMallocManaged "
       "memory work with XNACK off, and a failed hipMemAdvise returns hipErrorInvalidValue. "
       "Some advice (coarse_grain) exists on AMD only. umkit.doctor() lists the device's "
       "capabilities; the sim backend shows what would happen (§3.2, §4.4, §5.3).",
       "§5.3", hsa="HSA_STATUS_ERROR_NOT_SUPPORTED", hsa_code=47,   # ROCm 7's hsa_ext_amd.h
       aliases=("CUDA_ERROR_NOT_SUPPORTED",), phrases=("operation not supported",),
       claims=("amd.prefetch.not_supported", "amd.xnack0.hints_work",
               "amd.advise.invalid_value")),
    _R("system_driver_mismatch", "cudaErrorSystemDriverMismatch", 803, None, None,
       "The driver's user-space library and kernel module have different versions.",
       "Typically after a driver upgrade without a reboot: reboot, or reload the nvidia kernel "
       "module; nvidia-smi then works again.",
       "§4.1", aliases=("CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",),
       phrases=("driver/library version mismatch",),
       note="HIP has no such code; on AMD a mismatched ROCm and amdgpu driver shows up as HSA "
            "errors at start-up (§4.1)."),
    _R("stream_capture_unsupported", "cudaErrorStreamCaptureUnsupported", 900,
       "hipErrorStreamCaptureUnsupported", 900,
       "This operation is not permitted while the stream is being captured.",
       _HINT_CAPTURE, "§3.3", aliases=("CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",)),
    _R("stream_capture_invalidated", "cudaErrorStreamCaptureInvalidated", 901,
       "hipErrorStreamCaptureInvalidated", 901,
       "The capture on this stream was invalidated by an earlier error.",
       "Find the first failing call inside the capture (it returned its own error), fix it, "
       "and capture again. " + _HINT_CAPTURE,
       "§3.3", aliases=("CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",)),
    _R("stream_capture_merge", "cudaErrorStreamCaptureMerge", 902, "hipErrorStreamCaptureMerge",
       902,
       "The operation would merge two independent capture sequences.",
       _HINT_CAPTURE, "§3.3", aliases=("CUDA_ERROR_STREAM_CAPTURE_MERGE",)),
    _R("stream_capture_unmatched", "cudaErrorStreamCaptureUnmatched", 903,
       "hipErrorStreamCaptureUnmatched", 903,
       "The capture was not started on this stream.",
       "End the capture on the stream that began it. " + _HINT_CAPTURE,
       "§3.3", aliases=("CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",)),
    _R("stream_capture_unjoined", "cudaErrorStreamCaptureUnjoined", 904,
       "hipErrorStreamCaptureUnjoined", 904,
       "The captured work forked onto another stream that was never joined back.",
       "Record an event on the forked stream and make the origin stream wait on it before "
       "EndCapture. " + _HINT_CAPTURE,
       "§3.3", aliases=("CUDA_ERROR_STREAM_CAPTURE_UNJOINED",)),
    _R("stream_capture_isolation", "cudaErrorStreamCaptureIsolation", 905,
       "hipErrorStreamCaptureIsolation", 905,
       "A dependency would cross the boundary of the capture.",
       _HINT_CAPTURE, "§3.3", aliases=("CUDA_ERROR_STREAM_CAPTURE_ISOLATION",)),
    _R("stream_capture_implicit", "cudaErrorStreamCaptureImplicit", 906,
       "hipErrorStreamCaptureImplicit", 906,
       "The operation would add an implicit dependency on the legacy default stream while "
       "capturing.",
       "Capture on a stream created non-blocking, and don't use the legacy default stream "
       "(stream 0) during the capture. " + _HINT_CAPTURE,
       "§3.3", aliases=("CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",)),
    _R("captured_event", "cudaErrorCapturedEvent", 907, "hipErrorCapturedEvent", 907,
       "The operation is not allowed on an event last recorded in a capturing stream.",
       "Query or synchronize on that event only after EndCapture. " + _HINT_CAPTURE,
       "§3.3", aliases=("CUDA_ERROR_CAPTURED_EVENT",)),
    _R("stream_capture_wrong_thread", "cudaErrorStreamCaptureWrongThread", 908,
       "hipErrorStreamCaptureWrongThread", 908,
       "The capture was ended from a different thread than the one that started it.",
       "End the capture on the thread that began it, or begin it in the relaxed mode.",
       "§3.3", aliases=("CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD",)),
    _R("unknown", "cudaErrorUnknown", 999, "hipErrorUnknown", 999,
       "The runtime hit an error it has no code for.",
       "Run umkit.doctor(), check the kernel log (`dmesg | grep -i -e amdgpu -e xid`) for "
       "driver faults, and narrow it down with the article's §5.2: hipGetLastError + "
       "hipDeviceSynchronize with a timestamp around each step.",
       "§5.2", aliases=("CUDA_ERROR_UNKNOWN",)),
    _R("hip_runtime_memory", None, None, "hipErrorRuntimeMemory", 1052,
       "A memory call in the HSA runtime underneath HIP failed.",
       "The real cause is in ROCm's HSA layer: look for an HSA_STATUS_… message on stderr and "
       "explain that name; for multi-process sharing see umkit.explain("
       "'HSA_STATUS_ERROR_INVALID_MEMORY'). Check dmesg for amdgpu messages.",
       "§5.1",
       note="CUDA has no such code; HIP adds 1052/1053 for failures in the HSA runtime."),
    _R("hip_runtime_other", None, None, "hipErrorRuntimeOther", 1053,
       "A non-memory call in the HSA runtime underneath HIP failed.",
       "Look for the HSA_STATUS_… message on stderr and explain that name. " + _HINT_KMD,
       "§4.1", note="CUDA has no such code; HIP adds 1052/1053 for failures in the HSA runtime."),
    # -- ROCm's HSA layer (what you see underneath HIP on AMD) ---------------------------------
    _R("hsa_invalid_memory", None, None, None, None,
       "The driver's page tables and this pointer disagree: the memory isn't valid here. "
       "The article's §5.1 sees it most often when processes share a managed pointer.",
       _HINT_IPC, "§5.1", hsa="HSA_STATUS_ERROR_INVALID_MEMORY",
       note="The name the article uses. ROCm's hsa_status_t has no value with exactly this "
            "name; a GPU access to a foreign address is a memory fault: ROCr raises a memory-fault "
            "event and, unless the program handles it, prints 'Memory access fault by GPU node-N' "
            "and aborts (the status HSA_STATUS_ERROR_MEMORY_FAULT (43) is not passed to the "
            "queue's error callback), "
            "or HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION (41), each explained on its own "
            "(hsa_ext_amd.h). A CPU dereference gives SIGSEGV or silently reads whatever is "
            "mapped there, and with XNACK on a GPU access to an address that is valid in the "
            "receiving process succeeds silently (amdkfd creates a range for it).",
       claims=("amd.system_alloc.fault_range",)),
    _R("hsa_error", None, None, None, None,
       "A generic failure in ROCm's HSA runtime, most often while starting up.",
       _HINT_KMD + " If the ROCm user space (the installed one, or the copy inside a PyTorch "
                   "ROCm wheel) is more than two releases away from the kernel driver, align them.",
       "§4.1", hsa="HSA_STATUS_ERROR", hsa_code=0x1000, aliases=("HSA_ERROR",),
       phrases=("hsa_status_error", "hsa api call failure")),
    _R("hsa_invalid_allocation", None, None, None, None,
       "The HSA runtime refused an allocation request as invalid.",
       "Check the size and flags: a zero or huge size, or a pool that can't serve this agent. "
       "If memory is simply short, see the out-of-memory row: " + _HINT_OOM,
       "§5.1", hsa="HSA_STATUS_ERROR_INVALID_ALLOCATION", hsa_code=0x1003,
       claims=("amd.managed.no_vram_reserve",)),
    _R("hsa_out_of_resources", None, None, None, None,
       "The HSA runtime could not get the memory (or threads, queues, events) it needed.",
       _HINT_OOM, "§5.1", hsa="HSA_STATUS_ERROR_OUT_OF_RESOURCES", hsa_code=0x1008, oom=True,
       claims=("amd.managed.no_vram_reserve",)),
    _R("hsa_resource_busy", None, None, None, None,
       "The HSA runtime found the device or resource busy.",
       "Another process or queue holds it: see who with rocm-smi --showpids, wait for it, or "
       "pick another GPU with HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES.",
       "§4.1", hsa="HSA_STATUS_ERROR_RESOURCE_BUSY", hsa_code=46),
    _R("hsa_invalid_memory_pool", None, None, None, None,
       "The memory pool (region of memory an agent allocates from) is invalid.",
       "An argument error of ROCr's memory-pool calls (hsa_amd_memory_pool_allocate, "
       "hsa_amd_memory_pool_get_info, hsa_amd_memory_pool_can_migrate, ...): the pool handle "
       "passed is not a pool ROCr knows. It has nothing to do with sharing a pointer: take the "
       "pool from hsa_amd_agent_iterate_memory_pools for the agent you allocate on.",
       "§5.1", hsa="HSA_STATUS_ERROR_INVALID_MEMORY_POOL", hsa_code=40,
       note="hsa_ext_amd.h: 'The memory pool is invalid.' ROCr returns it when "
            "MemoryRegion::Convert of the handle fails or the region is not valid "
            "(hsa_ext_amd.cpp)."),
    _R("hsa_aperture_violation", None, None, None, None,
       "A GPU agent accessed memory beyond the largest legal address.",
       "A kernel used a garbage pointer: foreign (another process's address), freed, or "
       "computed past the end of an allocation. " + _HINT_IPC + _HINT_STICKY,
       "§5.1", hsa="HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION", hsa_code=41),
    _R("hsa_memory_fault", None, None, None, None,
       "A GPU agent touched an address it can't access. ROCm prints 'Memory access fault by GPU "
       "node-N ... Reason:' and the reason: page not present, a write to a read-only page, "
       "host access only, ...",
       "The AMD form of an illegal address: an index past the end, freed or foreign memory. "
       "With XNACK off it is also what a kernel touching malloc'd (system) memory gets: "
       "register that memory with hipHostRegister, run with HSA_XNACK=1 (set before the "
       "first HIP call, on a GPU that supports it; umkit.doctor() shows both), or use "
       "hipMalloc + hipMemcpy. hipMallocManaged memory does not fault this way: with XNACK "
       "off it is mapped for the GPU when it is allocated (§2.2, §5.1)." + _HINT_STICKY,
       "§5.1", hsa="HSA_STATUS_ERROR_MEMORY_FAULT", hsa_code=43,
       phrases=("memory access fault by gpu", "page not present or supervisor privilege"),
       claims=("amd.malloc.xnack0_fault", "amd.xnack0.alloc_maps", "amd.xnack1.unrecoverable")),
)
del _R

#: The article's §5.1 rows that have no error code, plus the slow paths of §1.3, §4.3 and §5.3.
SYMPTOMS: tuple[Symptom, ...] = (
    Symptom(
        "managed_hangs", "A managed-memory example hangs or dies with a memory access fault",
        ("managed example hangs", "managed memory hangs", "example hangs", "kernel hangs",
         "program hangs", "it hangs", "memory access fault", "xnack has no effect"),
        "The GPU is not taking recoverable page faults. ROCm supports XNACK on Instinct (MI) "
        "GPUs only, so Radeon cards and consumer APUs run with it off; on MI200 and MI300 it is "
        "off by default; under SR-IOV an MI200 refuses it; and a kernel without the amdgpu SVM "
        "(HMM) API cannot migrate at all. With XNACK off a GPU page fault is not recoverable: "
        "the driver maps nothing and the kernel dies ('Memory access fault by GPU'); users "
        "report examples that hang instead.",
        "Run umkit.doctor() (or `rocminfo | grep xnack`): it reads whether XNACK is on, whether "
        "the kernel has the SVM API and whether the node is virtualised. On an Instinct GPU set "
        "HSA_XNACK=1 before the process starts. Where XNACK cannot be on, keep managed memory "
        "prefetched to the GPU before each kernel, or use hipMalloc with explicit copies.",
        "§5.1, §2.2", "umkit doctor; rocminfo (xnack+ / xnack- in the ISA name); "
                      "/sys/class/kfd/kfd/topology/nodes/*/properties",
        claims=("amd.xnack.mi_only", "amd.xnack.default_off", "amd.xnack.sriov_mi200",
                "amd.kfd.svm_capability", "amd.xnack0.no_retry_fault")),
    Symptom(
        "apu_small_memory", "Only part of the memory is visible (e.g. 15.5 GiB of a 128 GB APU)",
        ("15.5 gib", "15.5 gb", "only 15", "gib visible", "gb visible", "carve-out", "carveout",
         "gtt", "vram too small", "memory visible"),
        "On consumer APUs (Strix Halo gfx1151, Strix Point gfx1150) what ROCm and PyTorch "
        "report as the device's memory depends on the kernel: up to Linux 6.9 amdkfd reports "
        "the BIOS VRAM carve-out, not the system memory the GPU can also map (GTT); since Linux "
        "6.10 (and 6.9.9) it reports a share of system memory and places device allocations in "
        "GTT. Users still report seeing only part of the memory on newer kernels (on Strix "
        "Halo, fixed by Linux 6.16.9 by their account).",
        "On Linux 6.9 or older, raise the carve-out (UMA frame buffer size) in the BIOS if the "
        "job needs device memory, or allocate host-visible memory the GPU maps from system RAM; "
        "Linux 6.10 and later put device allocations in GTT (bounded by ttm.pages_limit). A "
        "user's report credits ROCm 6.4 with a hipMalloc fallback to GTT (not found in AMD's "
        "source). On gfx1150, hipMallocManaged returned hipErrorNotSupported with "
        "ROCm 7.2 (a user's report). umkit.doctor() shows the carve-out and GTT sizes.",
        "§4.1", "umkit doctor; rocminfo; /sys/class/drm/card*/device/mem_info_vram_total and "
                "mem_info_gtt_total",
        claims=("amd.apu.carveout_visible", "amd.apu.gtt_fallback_64", "amd.apu.gfx1150_managed")),
    Symptom(
        "wrong_results", "Wrong results, no error",
        ("wrong result", "wrong", "no error", "garbage", "race", "corrupt", "inconsistent",
         "stale", "previous step's value"),
        "The CPU and the GPU wrote the same managed pages at the same time, or the CPU read "
        "before the kernel finished: a missing synchronization (§3.3). Usually nothing fails (on "
        "ROCm, and on NVIDIA GPUs with concurrentManagedAccess; where that attribute is 0 the CPU "
        "access segfaults): the data is whatever won the race.",
        "Synchronize before the CPU touches data a kernel may still use: hipStreamSynchronize / "
        "hipEventSynchronize on the stream that ran it (hipDeviceSynchronize is the safe, slow "
        "hammer) (§3.3, §5.1). Check that no CPU access lags behind a launch. Run the same code "
        "on the sim backend in strict mode: it raises RaceDetected naming the pages and the "
        "kernel in flight.",
        "§5.1, §3.3", "sim strict mode (RaceDetected); hipDeviceSynchronize after each launch "
                      "as a quick test"),
    Symptom(
        "erratic", "Erratic step time (fast, then slow, then fast)",
        ("erratic", "jitter", "spike", "spiky", "unstable", "fluctuat", "thrash", "ping-pong",
         "ping pong", "sometimes slow", "later epochs", "20x", "忽快忽慢", "alternates",
         "times longer", "x longer", "vary", "varies", "both directions", "slow step",
         "every other step"),
        "Pages thrash: the CPU and the GPU take turns on one big managed array, so the driver "
        "migrates the same pages back and forth (§2.3, §4.3: an optimizer doing CPU statistics "
        "every ten steps made later epochs 20x slower).",
        "Split buffers by access frequency: hot training data in device memory, low-frequency "
        "helper data managed (§4.3); give advice first, then prefetch before each epoch (§4.4); "
        "consider pinned memory for small CPU-heavy data (§4.4). Run the memory ECG (§7): 50 "
        "steps each with device, managed and mixed strategies; a smooth curve wins.",
        "§5.1, §4.3, §4.4, §7",
        "on ROCm rocprofv3's KFD page-migrate and page-fault records (implicit migrations are "
        "the driver's own SDMA copies, never memcpy rows), nsys on NVIDIA; timestamps with "
        "hipGetLastError + hipDeviceSynchronize (§5.2)",
        "umkit.explain('slow') (managed memory slow everywhere, old cards)",
        claims=("amd.profiling.migrations",)),
    Symptom(
        "slow_old_cards", "Managed memory very slow on old cards",
        ("slow", "old card", "old gpu", "gcn", "xnack", "very slow", "老卡"),
        "The GPU cannot take recoverable page faults: gfx906 (MI50) and gfx908 (MI100) can't "
        "turn XNACK on per process, and on MI200/MI300 it is off unless HSA_XNACK=1. Then "
        "managed memory stays in system memory, which a discrete GPU reads over the link, and "
        "pages move only when you prefetch them; a kernel without amdgpu's SVM support makes "
        "hipMallocManaged plain pinned host memory. On AMD page migration is always run by the "
        "driver (amdkfd decides and remaps, the SDMA engine copies), never a hardware "
        "page-migration feature: the column's 'weak hardware page "
        "migration' is the wrong cause (§2.2, §5.1; docs/article.md, Errata E7).",
        "Turn XNACK on where the GPU supports it (CDNA2 and later: HSA_XNACK=1 before the first "
        "HIP call, target xnack+; umkit.doctor() reads it from pageable_memory_access), "
        "prefetch the hot data before each epoch, or use explicit hipMalloc + hipMemcpy for it "
        "(§5.1, §6.3); upgrading ROCm helps only where the kernel driver lacked SVM.",
        "§5.1, §2.2", "umkit.doctor() (XNACK: pageable_memory_access), "
                      "HSA_XNACK=1 rocminfo | grep -i gfx (xnack+ when it is on)",
        "other slow-downs: umkit.explain('erratic') (step time jumps), "
        "umkit.explain('slow after porting'), umkit.explain('slow host access')",
        claims=("amd.xnack0.no_retry_fault", "amd.attr.pageable_xnack", "amd.xnack.isa_name",
                "amd.xnack.gfx908", "amd.xnack.default_off", "amd.no_hmm.host_fallback",
                "amd.migration.sdma")),
    Symptom(
        "slow_after_port", "Slower after porting CUDA to HIP",
        ("slow after port", "slower after port", "port", "porting", "cuda to hip", "throughput",
         "hipify", "移植"),
        "NVIDIA's UVM prefetches more aggressively on some architectures; AMD relies more on "
        "explicit hints, so code that leaned on automatic migration loses speed (§5.3: a "
        "missing hipMemPrefetchAsync cost one team a third of its throughput).",
        "Renaming cudaMallocManaged is only step one: add hipMemPrefetchAsync and hipMemAdvise "
        "where the CUDA code relied on the driver, and on day one draw a table of every "
        "buffer's memory budget, lifetime and access owner (§5.3).",
        "§5.3", "the porting notebook's HIP<->CUDA table; the memory ECG (§7)"),
    Symptom(
        "slow_host_access", "Host (CPU) access to managed memory is slow",
        ("slow host", "host slow", "cpu slow", "slow cpu", "numa", "iommu", "host access",
         "cpu access"),
        "The pages live on the GPU and every CPU touch faults them back, or the slowness is in "
        "the platform: IOMMU page granularity or NUMA affinity, not your code (§1.3, §3.1).",
        "Prefetch to the CPU before a CPU-heavy phase (hipMemPrefetchAsync to hipCpuDeviceId), "
        "keep CPU-heavy small data in pinned memory (§4.4), and check IOMMU mode and NUMA "
        "placement (numactl --hardware) before rewriting code (§1.3).",
        "§1.3, §4.4", "umkit.doctor(); numactl --hardware; the residency map on sim"),
)

# ------------------------------------------------------------------------------------------
# Look-ups
# ------------------------------------------------------------------------------------------
BY_NAME: dict[str, ErrorInfo] = {}
for _row in ERRORS:
    for _n in _row.names:
        BY_NAME.setdefault(_n.lower(), _row)
del _row, _n
_NAME_RE = re.compile(
    "|".join(r"(?<![A-Za-z0-9_])" + re.escape(n) + r"(?![A-Za-z0-9_])"
             for n in sorted({n for r in ERRORS for n in r.names}, key=len, reverse=True)),
    re.IGNORECASE)
COLUMNS = (("hip", "HIP"), ("cuda", "CUDA"), ("hsa", "HSA"))
_BACKEND_COLUMN = {"cuda": "cuda", "hip": "hip", "sim": "hip", "hsa": "hsa"}


def lookup(name: str) -> ErrorInfo | None:
    """The row for an error name on any runtime (case-insensitive), or ``None``."""
    return BY_NAME.get(str(name).strip().lower())


def lookup_code(code: int, runtime: str | None = None) -> list[tuple[str, ErrorInfo]]:
    """``[(runtime, row), ...]`` for every runtime whose code ``code`` is in the table
    (``runtime`` 'cuda' | 'hip' | 'hsa' narrows it to one)."""
    code = operator.index(code)
    out = []
    for col, _label in COLUMNS:
        if runtime is not None and col != runtime:
            continue
        for row in ERRORS:
            if getattr(row, col + "_code") == code and getattr(row, col):
                out.append((col, row))
    return out


def find_in_text(text: str) -> ErrorInfo | None:
    m = _NAME_RE.search(text)
    if m:
        return lookup(m.group(0))
    low = text.lower()
    for row in ERRORS:
        if any(p in low for p in row.phrases):
            return row
    return None


def find_symptoms(text: str) -> list[Symptom]:
    """Symptoms whose keywords occur in ``text``, best first (the most keyword text matched: a
    report that names two signs of one symptom outranks one phrase of another); failing that,
    symptoms with a keyword that starts with ``text`` (so 'thra' finds thrash)."""
    low = " ".join(text.lower().replace("_", " ").replace("-", " ").split())
    if not low:
        return []
    scored = []
    for i, s in enumerate(SYMPTOMS):
        keys = [k.replace("-", " ") for k in s.keywords] + [s.key.replace("_", " ")]
        best = sum(len(k) for k in set(keys) if k in low)
        if best:
            scored.append((-best, i, s))
    if not scored and len(low) >= 3:
        scored = [(0, i, s) for i, s in enumerate(SYMPTOMS)
                  if any(k.startswith(low) for k in s.keywords)]
    return [s for _, _, s in sorted(scored)]


def hint_for(name: str) -> str:
    """What to do about the error called ``name`` (any runtime, case-insensitive).  Backends use
    it to fill :attr:`BackendError.hint`; an unknown name gets a pointer to explain()/doctor()."""
    row = lookup(name)
    if row is not None:
        return row.hint
    return (f"umkit has no notes on {name!r}; run umkit.doctor() to check the environment and "
            f"umkit.explain({name!r}) for how to look it up.")


def error_from_code(call: str, code: int, backend_name: str) -> BackendError:
    """The exception to raise when runtime call ``call`` returned ``code`` on backend
    ``backend_name`` ('cuda' | 'hip' | 'sim'; sim uses HIP's names, as the article does).

    Out-of-memory codes give :class:`BackendOutOfMemory` (an :class:`OutOfMemory`, hence a
    ``MemoryError``); every other code gives :class:`BackendError`.  Both carry ``call``,
    ``code``, ``name`` and the hint from :data:`ERRORS`.
    """
    col = _BACKEND_COLUMN.get(str(backend_name).lower())
    if col is None:
        raise InvalidArgument(
            f"error_from_code(backend_name={backend_name!r}): unknown backend",
            hint="pass 'cuda', 'hip' or 'sim'")
    if isinstance(code, enum.Enum):
        code = code.value
    try:
        code = operator.index(code)
    except TypeError:
        raise InvalidType(f"error_from_code(code={code!r}): the error code must be an int",
                          hint="pass the integer the runtime returned") from None
    if code == 0:
        raise InvalidArgument(f"error_from_code(code=0) for {call}: 0 is success, not an error",
                              hint="only call error_from_code when the runtime call failed")
    rows = lookup_code(code, col)
    if rows:
        row = rows[0][1]
        name, message, hint = getattr(row, col), row.message, row.hint
    else:
        row = None
        prefix = {"cuda": "cudaError", "hip": "hipError", "hsa": "HSA_STATUS"}[col]
        name, message = f"{prefix}<{code}>", "an error code umkit's table doesn't list"
        hint = (f"Look up {code} in the runtime's own list (hipError_t in hip_runtime_api.h, "
                f"cudaError_t in driver_types.h) and run umkit.doctor() to check the "
                f"environment.")
    cls = BackendOutOfMemory if (row is not None and row.oom) else BackendError
    return cls(call, code, name, message, hint=hint)


def raise_for(call: str, code: int, backend_name: str) -> None:
    """Raise :func:`error_from_code`'s exception unless ``code`` is 0 (success)."""
    if isinstance(code, enum.Enum):
        code = code.value
    if operator.index(code) != 0:
        raise error_from_code(call, code, backend_name)

