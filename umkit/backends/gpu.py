"""The GPU backend, written once.

:class:`GPUBackend` implements :class:`~umkit.backends.contract.Backend` against a small
*runtime adapter*: :class:`umkit.backends.cuda.CudaRuntime` (cuda-bindings + CuPy) or
:class:`umkit.backends.hip.HipRuntime` (hip-python + CuPy for ROCm).  Every runtime call goes
through :meth:`RuntimeAdapter.call` under its **CUDA name**; the adapter translates the name with
the table in :mod:`umkit.backends.names`.  So this file reads like CUDA, runs on both, and the
whole port is that table plus the few methods in which the two adapters differ:

* where pages go (``location``: a ``cudaMemLocation`` on CUDA 13, an ``int`` device on HIP),
  and so the call forms of ``prefetch`` and ``advise``;
* how a range attribute is read (``range_attribute``: CUDA returns it, HIP fills your buffer);
* the error-name lookup, the device-architecture extras (XNACK on AMD), the version numbers,
  and how CuPy is told which device a pointer belongs to.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
from dataclasses import dataclass
from typing import Any

from ..errors.table import hint_for
from ..errors import (BackendError, BackendUnavailable, InvalidArgument, InvalidType, NotManaged,
                      OutOfMemory, UseAfterFree)
from . import kernels
from .checked import checked
from . import names
from .contract import (ADVICE, CPU, KINDS, Allocation, Backend, Buffer, Location, UserKernel, gpu,
                       kernel_spans, launch_dims)

# -- the oversubscription guard -------------------------------------------------------------------
#: ``UMKIT_ALLOW_OVERSUBSCRIPTION=1`` lets managed allocations exceed free GPU memory on NVIDIA,
#: as ``umkit.allow_oversubscription(True)`` does (the runtime context sets
#: :attr:`GPUBackend.allow_oversubscription` on the backend).
ENV_ALLOW_OVERSUBSCRIPTION = "UMKIT_ALLOW_OVERSUBSCRIPTION"
_TRUE = ("1", "true", "yes", "on")


from ..errors import BackendOutOfMemory as RuntimeOutOfMemory  # noqa: E402


#: error names (either runtime) that mean "out of memory"
OOM_ERRORS = frozenset({"cudaErrorMemoryAllocation", "hipErrorOutOfMemory"})

#: umkit advice -> the CUDA-spelled (or HIP-only) enum member, set and unset
ADVICE_NAMES = {
    ("read_mostly", False): "cudaMemAdviseSetReadMostly",
    ("read_mostly", True): "cudaMemAdviseUnsetReadMostly",
    ("preferred_location", False): "cudaMemAdviseSetPreferredLocation",
    ("preferred_location", True): "cudaMemAdviseUnsetPreferredLocation",
    ("accessed_by", False): "cudaMemAdviseSetAccessedBy",
    ("accessed_by", True): "cudaMemAdviseUnsetAccessedBy",
    ("coarse_grain", False): "hipMemAdviseSetCoarseGrain",
    ("coarse_grain", True): "hipMemAdviseUnsetCoarseGrain",
}

CPU_DEVICE_ID = -1       # cudaCpuDeviceId == hipCpuDeviceId
INVALID_DEVICE_ID = -2   # cudaInvalidDeviceId == hipInvalidDeviceId


# -- handles --------------------------------------------------------------------------------------
@dataclass(eq=False)
class GpuStream:
    """A stream this backend created: the runtime's handle and the device it belongs to."""
    handle: Any
    device: int = 0
    #: False once destroyed (the runtime's handle may be reused: never passed again)
    alive: bool = True

    def __int__(self) -> int:
        return int(self.handle)

    def __repr__(self) -> str:
        return f"GpuStream({int(self):#x}, device={self.device})"


@dataclass(eq=False)
class GpuEvent:
    """An event this backend created, and the device it was created on (CUDA/HIP events
    belong to a device: recording one on another device's stream is an invalid handle)."""
    handle: Any
    device: int = 0
    alive: bool = True

    def __int__(self) -> int:
        return int(self.handle)

    def __repr__(self) -> str:
        return f"GpuEvent({int(self):#x})"


def _text(x) -> str:
    """bytes / CStr / str -> str, cut at the first NUL."""
    if isinstance(x, (bytes, bytearray)):
        x = bytes(x).split(b"\0", 1)[0].decode("utf-8", "replace")
    elif not isinstance(x, str) and hasattr(x, "decode"):
        x = x.decode()
    return str(x).split("\0", 1)[0]


def location_from_id(i: int) -> Location | None:
    """A device id from a range attribute -> Location: -1 CPU, -2 (invalid/mixed) None."""
    i = int(i)
    if i == CPU_DEVICE_ID:
        return CPU
    if i < 0:
        return None
    return gpu(i)


# -- the adapter base -----------------------------------------------------------------------------
class RuntimeAdapter:
    """What both runtime adapters share: calling a runtime function by its CUDA name and
    turning a failed call into a :class:`BackendError`.  Subclasses set ``name`` and ``rt``."""

    name = "?"
    rt: Any = None
    #: refuse managed allocations larger than free device memory (NVIDIA documents
    #: oversubscription as supported; its own benchmark finds performance varies up to 100x with
    #: the platform, the oversubscription factor and the hints: NVIDIA Technical Blog, Oct 2021)
    oversubscription_guard = False

    def spelled(self, cuda_name: str) -> str:
        """The name in this runtime (from :mod:`umkit.backends.names`)."""
        return names.for_backend(self.name, cuda_name)

    def value(self, cuda_name: str):
        """A constant or enum member of this runtime, named in CUDA spelling."""
        return names.resolve(self.rt, self.name, cuda_name)

    def error_name(self, err) -> str:
        """``cudaGetErrorName`` / ``hipGetErrorName``: -> (success, bytes)."""
        try:
            _, name = getattr(self.rt, self.spelled("cudaGetErrorName"))(err)
            if name:
                return name.decode()
        except Exception:  # noqa: BLE001 - fall back to the enum's own name
            pass
        return getattr(err, "name", f"{self.name} error {int(err)}")

    def error_string(self, err) -> str:
        _, text = getattr(self.rt, self.spelled("cudaGetErrorString"))(err)
        return text.decode() if text else ""

    def call(self, cuda_name: str, *args):
        """Call runtime function ``cuda_name`` (translated), check its error code and return
        the rest of its result tuple: ``None``, the single value, or a tuple."""
        return self.call_spelled(self.spelled(cuda_name), *args)

    def call_spelled(self, fname: str, *args):
        """:meth:`call` for a function named as this runtime spells it (a variant the names
        table does not list, such as CUDA 12's ``cudaMemPrefetchAsync_v2``)."""
        try:
            result = getattr(self.rt, fname)(*args)
        except (OSError, RuntimeError) as e:
            # hip-python opens libamdhip64 at the first call and raises when ROCm is absent
            if isinstance(e, OSError) or "dlopen" in str(e):
                raise BackendUnavailable(
                    f"{fname}: the {self.name.upper()} runtime library could not be loaded "
                    f"({e})") from None
            raise
        if not isinstance(result, tuple):
            result = (result,)
        err, rest = result[0], result[1:]
        if int(err) != 0:
            raise self.error(fname, err)
        if not rest:
            return None
        return rest[0] if len(rest) == 1 else rest

    def holds(self, ptr: int) -> bool | None:
        """Does the runtime know ``ptr`` as live memory now?  None: it cannot say (the
        default; the CUDA adapter asks cudaPointerGetAttributes)."""
        return None

    def error(self, call: str, err) -> BackendError:
        """The exception for a failed call, with the article's hint from errors.py's table."""
        name = self.error_name(err)
        try:
            message = self.error_string(err)
        except Exception:  # noqa: BLE001 - a message is a nicety
            message = ""
        cls = RuntimeOutOfMemory if name in OOM_ERRORS else BackendError
        return cls(call, int(err), name, message, hint=hint_for(name))

    def counter_source(self):
        """The hardware-counter collector of this runtime (CUPTI on CUDA, rocprofiler-sdk on
        ROCm); raises BackendUnavailable (with why) where there is none."""
        raise BackendUnavailable(f"{self.name}: no hardware-counter source")

    # the methods each adapter provides (same names, same order in cuda.py and hip.py):
    # error_name, error_string, location, prefetch, advise, range_attribute,
    # arch_capabilities, versions, cupy_device_id, cupy


# -- the backend ----------------------------------------------------------------------------------
@checked
class GPUBackend(Backend):
    """The one GPU implementation of the backend contract, over a runtime adapter.
    No instrumented features by default; a subclass or adapter that can count (e.g. CUPTI on
    CUDA) adds them to ``features`` and implements :class:`~umkit.backends.contract.Instrumented`."""

    @property
    def features(self) -> frozenset:
        """'counters' (and 'counters_log', their timestamped records) while the hardware
        counters are on (umkit.counters_on())."""
        return frozenset({"counters", "counters_log"}) if self.counters_enabled() else frozenset()
    #: let managed allocations exceed free GPU memory (set through umkit.allow_oversubscription)
    allow_oversubscription = False
    stream_types = (GpuStream,)
    event_types = (GpuEvent,)

    def __init__(self, adapter: RuntimeAdapter):
        self.rt = adapter
        self.name = adapter.name
        self._allocs: dict[int, tuple[str, int, int]] = {}   # ptr -> (kind, nbytes, device)
        self._freed: set[int] = set()
        self._modules: dict[int, Any] = {}                   # device -> cupy.RawModule
        self._cupy_streams: dict[tuple[int, int], Any] = {}  # (handle, device) -> CuPy stream
        self._counter_source = None                          # hardware counters, when on

    def __repr__(self) -> str:
        return f"<umkit {self.name} backend>"

    # -- devices ---------------------------------------------------------------------------------
    def device_count(self) -> int:
        return int(self.rt.call("cudaGetDeviceCount"))

    @staticmethod
    def _ordinal(device) -> int:
        if not isinstance(device, int) or isinstance(device, bool):
            raise InvalidType(f"device must be an int (a GPU ordinal), not {type(device).__name__}")
        return device

    def _use(self, device: int) -> None:
        self.rt.call("cudaSetDevice", self._ordinal(device))

    @contextlib.contextmanager
    def _on(self, device: int):
        """Run a call on ``device`` and give the thread its current device back after it.
        (Allocating on GPU 1 used to leave GPU 1 current: a later stream-less call on a GPU 0
        array then ran on GPU 1 -- on 2x H200 a kernel wrote GPU 0 memory from GPU 1 without
        peer access, cudaErrorIllegalAddress.)"""
        cur = int(self.rt.call("cudaGetDevice"))
        if cur == self._ordinal(device):
            yield
            return
        self._use(device)
        try:
            yield
        finally:
            self._use(cur)

    def device_name(self, device: int = 0) -> str:
        props = self.rt.call("cudaGetDeviceProperties", int(device))
        return _text(props.name)

    def mem_info(self, device: int = 0) -> tuple[int, int]:
        with self._on(device):
            free, total = self.rt.call("cudaMemGetInfo")
        return int(free), int(total)

    def _attr(self, cuda_attr: str, device: int) -> int:
        return int(self.rt.call("cudaDeviceGetAttribute", self.rt.value(cuda_attr), int(device)))

    def capabilities(self, device: int = 0) -> dict:
        caps = {
            "managed_memory": bool(self._attr("cudaDevAttrManagedMemory", device)),
            "concurrent_managed_access":
                bool(self._attr("cudaDevAttrConcurrentManagedAccess", device)),
            "pageable_memory_access": bool(self._attr("cudaDevAttrPageableMemoryAccess", device)),
            "pageable_memory_access_uses_host_page_tables":
                bool(self._attr("cudaDevAttrPageableMemoryAccessUsesHostPageTables", device)),
            "direct_managed_access_from_host":
                bool(self._attr("cudaDevAttrDirectManagedMemAccessFromHost", device)),
        }
        caps.update(self.rt.arch_capabilities(device, caps))
        return caps

    def versions(self) -> dict:
        v = {"backend": self.name}
        v.update(self.rt.versions())
        try:
            v["cupy"] = self.rt.cupy().__version__
        except Exception:  # noqa: BLE001 - CuPy missing is reported, not fatal here
            v["cupy"] = None
        return v

    # -- hardware counters (off unless asked for: umkit.counters_on()) ------------------------------
    def counters_start(self, device: int = 0) -> None:
        src = self.rt.counter_source()
        src.start(device)
        self._counter_source = src

    def counters_stop(self) -> None:
        if self._counter_source is not None:
            self._counter_source.stop()
            self._counter_source = None

    def counters_enabled(self) -> bool:
        return self._counter_source is not None and bool(self._counter_source.on)

    def counters(self) -> dict:
        """The hardware counters' totals ({} while they are off)."""
        return self._counter_source.read() if self.counters_enabled() else {}

    def reset_counters(self) -> None:
        if self.counters_enabled():
            self._counter_source.reset()

    def counters_clock(self):
        """The counter source's clock (for per-step attribution), or None while counters are off."""
        return self._counter_source.clock() if self.counters_enabled() else None

    def counters_log(self, on: bool, stamps=None):
        """Start keeping the counter records (on=True); or stop (on=False) and return the
        counters of each interval ending at ``stamps`` (times of :meth:`counters_clock`)."""
        if not self.counters_enabled():
            return None if on else [{} for _ in (stamps or [])]
        src = self._counter_source
        if on:
            return src.log_start()
        return src.bin(src.log_stop(), list(stamps or []))

    # -- allocation ------------------------------------------------------------------------------
    def malloc(self, nbytes: int, kind: str = "managed", device: int = 0) -> int:
        if kind not in KINDS:
            raise InvalidArgument(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        if not isinstance(nbytes, int) or isinstance(nbytes, bool):
            raise InvalidType(f"nbytes must be an int, not {type(nbytes).__name__}")
        if nbytes <= 0:
            raise InvalidArgument(f"nbytes must be positive, not {nbytes}")
        try:
            with self._on(device):
                ptr = self._malloc_here(nbytes, kind, device)
        except RuntimeOutOfMemory as e:         # the one place a runtime allocation fails
            raise self._out_of_memory(e, nbytes, kind, device) from None
        p = int(ptr)
        self._allocs[p] = (kind, nbytes, device)
        self._freed.discard(p)
        return p

    def _malloc_here(self, nbytes: int, kind: str, device: int):
        """The runtime's allocation call on the current device (``device``)."""
        if kind == "managed":
            self._guard_oversubscription(nbytes, device)
            return self.rt.call("cudaMallocManaged", nbytes, self.rt.value("cudaMemAttachGlobal"))
        if kind == "device":
            return self.rt.call("cudaMalloc", nbytes)
        # pinned, mapped into every GPU's address space
        flags = int(self.rt.value("cudaHostAllocMapped")) | int(self.rt.value("cudaHostAllocPortable"))
        return self.rt.call("cudaHostAlloc", nbytes, flags)

    def _out_of_memory(self, e: RuntimeOutOfMemory, nbytes: int, kind: str,
                       device: int) -> RuntimeOutOfMemory:
        """The runtime's out-of-memory error with CuPy-style fields: ``requested``, ``free``
        and ``total`` (of the GPU; None for pinned host memory, or if the runtime cannot say),
        ``kind``, ``device``, besides the runtime's ``call``, ``code`` and ``name``."""
        free = total = None
        if kind != "pinned":
            try:
                free, total = self.mem_info(device)
            except Exception:  # noqa: BLE001 - the sizes are a courtesy; the error is the news
                pass
        return RuntimeOutOfMemory(e.call, e.code, e.name, e.detail, hint=e.hint,
                                  requested=nbytes, free=free, total=total, kind=kind,
                                  device=device)

    def _guard_oversubscription(self, nbytes: int, device: int) -> None:
        """Refuse, before any runtime allocation, managed memory beyond what the GPU has free."""
        if not self.rt.oversubscription_guard or self.allow_oversubscription or \
                os.environ.get(ENV_ALLOW_OVERSUBSCRIPTION, "").strip().lower() in _TRUE:
            return
        free, total = self.mem_info(device)
        if nbytes > free:
            gib = 1 << 30
            raise OutOfMemory(
                f"refusing to allocate {nbytes / gib:.2f} GiB of managed memory on gpu{device}: "
                f"only {free / gib:.2f} GiB of its {total / gib:.2f} GiB is free. "
                "Oversubscribing managed memory (asking for more than the GPU has free) makes "
                "the driver evict and re-fault pages, over and over when the data in use does "
                "not fit. NVIDIA documents oversubscription as supported; its own benchmark finds "
                "that performance can vary up to 100x with the platform, the oversubscription "
                "factor and the memory hints. If you mean it, opt in "
                f"with umkit.allow_oversubscription(True) or {ENV_ALLOW_OVERSUBSCRIPTION}=1.",
                requested=nbytes, free=free, total=total, kind="managed", device=device)

    def free(self, ptr: int, kind: str | None = None) -> None:
        ptr = int(ptr)
        known = self._allocs.get(ptr)
        if known is None and self._was_freed(ptr):
            raise UseAfterFree(f"{ptr:#x} was already freed (double free)")
        if kind is None:
            if known is None:
                raise InvalidArgument(f"{ptr:#x} is not a umkit allocation: pass kind=")
            kind = known[0]
        if kind not in KINDS:
            raise InvalidArgument(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        if known is not None and known[0] != kind:
            raise InvalidArgument(f"{ptr:#x} was allocated as {known[0]} memory, not {kind}")
        if kind == "pinned":
            self.rt.call("cudaFreeHost", ptr)
        else:
            self.rt.call("cudaFree", ptr)
        self._allocs.pop(ptr, None)
        self._freed.add(ptr)

    def pageable(self, nbytes: int):
        import numpy as np
        return np.zeros(nbytes, np.uint8)

    def allocations(self) -> list[Allocation]:
        return [Allocation(p, n, k, d) for p, (k, n, d) in list(self._allocs.items())]

    def allocation(self, ptr: int) -> tuple[str, int, int] | None:
        """(kind, nbytes, device) of the allocation holding ``ptr``, or None if unknown."""
        held = self._holding(ptr)
        return None if held is None else held[1]

    def _holding(self, ptr: int) -> tuple[int, tuple[str, int, int]] | None:
        """``(start, (kind, nbytes, device))`` of the allocation holding ``ptr``, or None."""
        ptr = int(ptr)
        hit = self._allocs.get(ptr)
        if hit is not None:
            return ptr, hit
        for base, info in self._allocs.items():
            if base <= ptr < base + info[1]:
                return base, info
        return None

    def _was_freed(self, ptr: int) -> bool:
        """``ptr`` is an address umkit freed and nobody holds since.  Another allocator (a
        PyTorch tensor through umkit.torch's shim, CuPy's pool) can be handed the same address
        later (seen on 2x H200): then the runtime knows it again and it is not a use after
        free; the stale record goes."""
        ptr = int(ptr)
        if ptr not in self._freed:
            return False
        if self.rt.holds(ptr):
            self._freed.discard(ptr)
            return False
        return True

    def _check_span(self, what: str, ptr: int, nbytes: int, argument: str = "ptr",
                    size_argument: str = "nbytes") -> None:
        """``[ptr, ptr + nbytes)`` is memory this process may touch: inside an allocation umkit
        made, or memory the runtime knows (a PyTorch tensor's, CuPy's).  An arbitrary address
        is refused before it is used: a CPU read of one is a segmentation fault, a GPU one a
        sticky illegal-address error.  (Where the runtime cannot say -- the HIP adapter -- an
        address outside umkit's allocations is passed on.)"""
        ptr, nbytes = int(ptr), int(nbytes)
        held = self._holding(ptr)
        if held is not None:
            base, (_, n, _) = held
            if ptr + nbytes > base + n:
                raise InvalidArgument(f"{what}: {nbytes} B at {ptr:#x} runs past the end of its "
                                      f"allocation ({n} B at {base:#x})", argument=size_argument,
                                      hint="pass nbytes within the array")
            return
        if self._was_freed(ptr):
            raise UseAfterFree(f"{what} of {ptr:#x}, which was freed")
        if self.rt.holds(ptr) is False:
            raise InvalidArgument(f"{what}: {ptr:#x} is no memory of this process (not an "
                                  "allocation umkit made, and the runtime does not know it)",
                                  argument=argument, hint="pass an address umkit gave (arr.ptr)")

    def _check_managed(self, what: str, ptr: int) -> None:
        a = self.allocation(ptr)
        if a is None:
            if self._was_freed(ptr):
                raise UseAfterFree(f"{what} of {int(ptr):#x}, which was freed")
            return  # not ours: let the runtime judge
        if a[0] != "managed":
            raise NotManaged(f"{what} needs managed memory; {int(ptr):#x} is {a[0]} memory "
                             f"(allocate it with kind='managed')")

    # -- migration -------------------------------------------------------------------------------
    @staticmethod
    def _stream_handle(stream):
        if stream is None:
            return 0
        if isinstance(stream, GpuStream):
            if not stream.alive:
                raise InvalidArgument("stream was destroyed (stream_destroy)", argument="stream",
                                      hint="create one: stream_create(device)")
            return stream.handle
        if isinstance(stream, GpuEvent):
            raise InvalidType("expected a stream, got an event")
        return stream

    @staticmethod
    def _location(where, what: str) -> Location:
        if not isinstance(where, Location):
            raise InvalidType(f"{what} must be a Location (umkit.CPU or umkit.gpu(i)), "
                              f"not {type(where).__name__}")
        return where

    def prefetch(self, ptr: int, nbytes: int, to: Location, stream=None) -> None:
        self._check_managed("prefetch", ptr)
        to = self._location(to, "to")
        self.rt.prefetch(int(ptr), int(nbytes), to, self._stream_handle(stream))

    def advise(self, ptr: int, nbytes: int, advice: str, where: Location | None = None,
               unset: bool = False) -> None:
        if advice not in ADVICE:
            raise InvalidArgument(f"advice must be one of {', '.join(ADVICE)}, not {advice!r}")
        self._check_managed("advise", ptr)
        member_name = ADVICE_NAMES[(advice, bool(unset))]
        try:
            member = self.rt.value(member_name)
        except LookupError:
            raise InvalidArgument(
                f"advice {advice!r} is HIP-only ({names.row(member_name).hip}): "
                f"{self.name.upper()} has no counterpart. {names.row(member_name).note}") from None
        if advice == "read_mostly" or advice == "coarse_grain":
            where = where if where is not None else CPU   # the location is ignored
        elif where is None:
            raise InvalidArgument(f"advice {advice!r} needs where= (umkit.CPU or umkit.gpu(i))")
        self.rt.advise(int(ptr), int(nbytes), member, self._location(where, "where"))

    def range_attributes(self, ptr: int, nbytes: int) -> dict:
        self._check_managed("range_attributes", ptr)
        ptr, nbytes = int(ptr), int(nbytes)

        def one(attr):
            return self.rt.range_attribute(ptr, nbytes, attr, 1)[0]

        slots = self.device_count() + 1  # every GPU and the CPU
        accessed = self.rt.range_attribute(ptr, nbytes, "cudaMemRangeAttributeAccessedBy", slots)
        return {
            "read_mostly": bool(one("cudaMemRangeAttributeReadMostly")),
            "preferred_location":
                location_from_id(one("cudaMemRangeAttributePreferredLocation")),
            "last_prefetch_location":
                location_from_id(one("cudaMemRangeAttributeLastPrefetchLocation")),
            "accessed_by": [loc for loc in map(location_from_id, accessed) if loc is not None],
        }

    # -- views -----------------------------------------------------------------------------------
    def host_view(self, ptr: int, nbytes: int):
        import numpy as np
        a = self.allocation(ptr)
        if a is not None and a[0] == "device":
            raise InvalidArgument(f"{int(ptr):#x} is device memory (cudaMalloc/hipMalloc): the "
                                  "CPU cannot read it. Use memcpy, or allocate managed memory.")
        self._check_span("host_view", ptr, nbytes)
        nbytes = int(nbytes)
        if nbytes == 0:
            return np.empty(0, dtype=np.uint8)
        buf = (ctypes.c_uint8 * nbytes).from_address(int(ptr))
        return np.ctypeslib.as_array(buf)

    def device_view(self, ptr: int, nbytes: int, device: int = 0, owner=None):
        self._check_span("device_view", ptr, nbytes)
        cp = self.rt.cupy()
        dev = self.rt.cupy_device_id(int(ptr), device)
        mem = cp.cuda.UnownedMemory(int(ptr), int(nbytes), self if owner is None else owner,
                                    device_id=dev)
        with cp.cuda.Device(dev):
            return cp.ndarray((int(nbytes),), dtype=cp.uint8, memptr=cp.cuda.MemoryPointer(mem, 0))

    # -- streams, events, copies ---------------------------------------------------------------
    def stream_create(self, device: int = 0) -> GpuStream:
        with self._on(device):
            return GpuStream(self.rt.call("cudaStreamCreate"), int(device))

    def stream_destroy(self, stream) -> None:
        if int(stream.handle) == 0:
            raise InvalidArgument("a device's default stream is never destroyed",
                                  argument="stream", hint="destroy only streams stream_create made")
        handle = self._stream_handle(stream)
        stream.alive = False
        self.rt.call("cudaStreamDestroy", handle)
        for key in [k for k in self._cupy_streams if k[0] == int(handle)]:
            del self._cupy_streams[key]

    def default_stream(self, device: int = 0) -> GpuStream:
        """The legacy default stream of ``device`` (a kernel on an array of that device runs
        there unless a stream says otherwise)."""
        return GpuStream(0, int(device))

    def synchronize(self, what=None) -> None:
        if what is None:            # every device: kernels run on their arrays' devices
            n = self.device_count()
            if n == 1:
                self.rt.call("cudaDeviceSynchronize")
                return
            cur = int(self.rt.call("cudaGetDevice"))
            try:
                for d in range(n):
                    self._use(d)
                    self.rt.call("cudaDeviceSynchronize")
            finally:
                self._use(cur)
        elif isinstance(what, GpuEvent):
            self.rt.call("cudaEventSynchronize", self._event(what, "what").handle)
        elif isinstance(what, GpuStream):
            # handle 0 is the current device's default stream: wait on the stream's own device
            with self._on(what.device):
                self.rt.call("cudaStreamSynchronize", self._stream_handle(what))
        else:
            self.rt.call("cudaStreamSynchronize", self._stream_handle(what))

    def event_create(self, device: int | None = None) -> GpuEvent:
        if device is None:
            return GpuEvent(self.rt.call("cudaEventCreate"), int(self.rt.call("cudaGetDevice")))
        with self._on(device):
            return GpuEvent(self.rt.call("cudaEventCreate"), int(device))

    @staticmethod
    def _event(event: GpuEvent, argument: str = "event") -> GpuEvent:
        if not event.alive:
            raise InvalidArgument(f"{argument} was destroyed (event_destroy)", argument=argument,
                                  hint="create one: event_create()")
        return event

    def event_record(self, event: GpuEvent, stream=None) -> None:
        """Record ``event`` on ``stream``; with no stream, on the default stream of the event's
        own device (handle 0 is the *current* device's default stream, so the call runs on the
        event's device).  On a stream of another device the event is re-created there first
        (the runtime answers an event of another device with an invalid handle)."""
        self._event(event)
        dev = stream.device if isinstance(stream, GpuStream) else event.device
        with self._on(dev):
            if dev != event.device:
                self.rt.call("cudaEventDestroy", event.handle)
                event.handle, event.device = self.rt.call("cudaEventCreate"), dev
            self.rt.call("cudaEventRecord", event.handle, self._stream_handle(stream))

    def event_elapsed_ms(self, start: GpuEvent, end: GpuEvent) -> float:
        self._event(start, "start")
        self._event(end, "end")
        self.rt.call("cudaEventSynchronize", end.handle)
        return float(self.rt.call("cudaEventElapsedTime", start.handle, end.handle))

    def event_destroy(self, event: GpuEvent) -> None:
        self._event(event)
        event.alive = False
        self.rt.call("cudaEventDestroy", event.handle)

    def memcpy(self, dst: int, src: int, nbytes: int, stream=None) -> None:
        self._check_span("memcpy", dst, nbytes, "dst")
        self._check_span("memcpy", src, nbytes, "src")
        self.rt.call("cudaMemcpyAsync", int(dst), int(src), int(nbytes),
                     self.rt.value("cudaMemcpyDefault"), self._stream_handle(stream))

    def memcpy_pageable(self, ptr: int, host, nbytes: int, to_array: bool, stream=None) -> None:
        """cudaMemcpyAsync between an allocation and pageable (malloc'd) host memory: the driver
        stages it through pinned buffers, so the host waits; this waits for the stream too."""
        self._check_span("memcpy_pageable", ptr, nbytes)
        hp = int(host.ctypes.data)
        dst, src = (ptr, hp) if to_array else (hp, ptr)
        self.rt.call("cudaMemcpyAsync", int(dst), int(src), int(nbytes),
                     self.rt.value("cudaMemcpyDefault"), self._stream_handle(stream))
        self.rt.call("cudaStreamSynchronize", self._stream_handle(stream))

    # -- kernels ---------------------------------------------------------------------------------
    def kernel_module(self, device: int):
        mod = self._modules.get(device)
        if mod is None:
            cp = self.rt.cupy()
            mod = cp.RawModule(code=kernels.source())
            self._modules[device] = mod
        return mod

    @staticmethod
    def convert_args(kernel: str, args: tuple) -> tuple:
        """Python arguments -> NumPy scalars of the kinds in :data:`kernels.SPECS`."""
        import numpy as np
        spec = kernels.SPECS.get(kernel)
        if spec is None:
            raise InvalidArgument(f"unknown kernel {kernel!r}; umkit's kernels are "
                                  f"{', '.join(sorted(kernels.SPECS))}")
        if len(args) != len(spec):
            raise InvalidArgument(f"{kernel} takes {len(spec)} arguments {spec}, got {len(args)}")
        out = []
        for i, (k, a) in enumerate(zip(spec, args)):
            try:
                if k == "ptr":
                    out.append(a if hasattr(a, "data") and hasattr(a.data, "ptr")
                               else np.uint64(int(a)))
                elif k == "i32":
                    out.append(np.int32(int(a)))
                elif k == "i64":
                    out.append(np.int64(int(a)))
                else:  # f32
                    out.append(np.float32(a))
            except (OverflowError, TypeError, ValueError) as e:
                raise InvalidArgument(f"{kernel} argument {i} must fit a {k}: {e}") from None
        return tuple(out)

    def launch(self, kernel: str, grid, block, args: tuple, stream=None) -> None:
        for _, ptr, nbytes in kernel_spans(kernel, args):   # no kernel writes past its array
            self._check_span(kernel, ptr, nbytes, "args", "args")
        cargs = self.convert_args(kernel, tuple(args))
        cp = self.rt.cupy()
        dev = stream.device if isinstance(stream, GpuStream) else int(cp.cuda.runtime.getDevice())
        handle = int(self._stream_handle(stream))
        with cp.cuda.Device(dev):
            fn = self.kernel_module(dev).get_function(kernel)
            # RawKernel launches on CuPy's current stream: make ours current for the call
            with self._cupy_stream(handle, dev):
                fn(launch_dims(grid), launch_dims(block), cargs)

    def launch_user(self, k: UserKernel, stream=None) -> None:
        """A learner's kernel (umkit.kernel): compiled once per device from ``k.source``."""
        import numpy as np
        assert k.source is not None, k.name
        source, name, grid, block = k.source, k.name, k.grid, k.block
        args = tuple(np.uint64(a.ptr) if isinstance(a, Buffer) else a for a in k.args)
        cp = self.rt.cupy()
        dev = stream.device if isinstance(stream, GpuStream) else int(cp.cuda.runtime.getDevice())
        handle = int(self._stream_handle(stream))
        cache = self.__dict__.setdefault("_custom", {})
        with cp.cuda.Device(dev):
            fn = cache.get((source, name, dev))
            if fn is None:
                try:
                    fn = cp.RawModule(code=source).get_function(name)
                except Exception as e:  # noqa: BLE001 - compile errors carry the log
                    raise InvalidArgument(f"kernel {name!r} did not compile or is not in the "
                                          f"source: {e}", hint="check the source text and the "
                                          "extern \"C\" __global__ name") from None
                cache[(source, name, dev)] = fn
            with self._cupy_stream(handle, dev):
                fn(launch_dims(grid), launch_dims(block), args)

    def _cupy_stream(self, handle: int, device: int):
        """CuPy's view of one of our streams (cached; 0 is the legacy default stream)."""
        cp = self.rt.cupy()
        if handle == 0:
            return cp.cuda.Stream.null
        s = self._cupy_streams.get((handle, device))
        if s is None:
            import warnings
            with warnings.catch_warnings():
                # CuPy 14 deprecates ExternalStream in favour of Stream.from_external, which
                # wants an object speaking the CUDA stream protocol; the raw handle is ours.
                warnings.simplefilter("ignore", DeprecationWarning)
                s = cp.cuda.ExternalStream(handle, device)
            self._cupy_streams[(handle, device)] = s
        return s
