"""The backend contract: small protocols, on one screen.

A backend is four small protocols -- :class:`DeviceQueries`, :class:`Memory`,
:class:`Migration`, :class:`Execution` -- plus, optionally, the *instrumented* capabilities it
declares in :attr:`Backend.features` (:data:`FEATURES`: counters, counters_log, trace, snapshot,
model_time)
and implements from :class:`Instrumented`.  Callers ask ``backend.supports("counters")``, never
``hasattr``.  ``interface_version`` says which version of this contract a backend implements
(as numba-cuda's ``BaseCUDAMemoryManager.interface_version`` does for memory managers).

Three backends implement it: ``cuda`` and ``hip`` (one :class:`~umkit.backends.gpu.GPUBackend`
over two runtime adapters) and ``sim`` (the CPU model in :mod:`umkit.sim`).  Everything else in
umkit -- arrays, the pool, strategies, the memory ECG, calibration, widgets -- is written once,
above this line.

Arguments arrive validated: the public API checks what users pass (:mod:`umkit.validate`).
A backend object is reachable too (``umkit.backend()``), so each backend class is decorated
with :func:`umkit.backends.checked.checked`, which checks the plain arguments of these methods
before they run; beyond that a backend only asserts.  Pointers are plain ``int`` addresses.  Locations are
:class:`Location` values (``CPU`` or ``gpu(i)``).  Streams and events are opaque handles the
backend creates (``None`` is the default stream); the public ``umkit.Stream``/``umkit.Event``
wrap them.  Sizes are bytes.  Thread safety: a backend must allow its operations from several
threads at once (the sim engine takes a lock; the GPU runtimes are thread-safe).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, NamedTuple

#: the version of this contract (bump when a method's meaning or signature changes)
INTERFACE_VERSION = 1
#: the largest address a pointer (a plain ``int``) may hold: 64 bits
MAX_PTR = (1 << 64) - 1

ADVICE = ("read_mostly", "preferred_location", "accessed_by", "coarse_grain")
KINDS = ("managed", "device", "pinned")
#: optional capabilities a backend may declare (see :class:`Instrumented`); ``counters_log``:
#: counters kept as timestamped records, binned per interval afterwards (CUPTI), so a per-step
#: reading needs no flush at every step
FEATURES = ("counters", "counters_log", "trace", "snapshot", "model_time")

#: umkit's kernels (``kernels/umkit_kernels.cu``, launched by name with :meth:`Execution.launch`)
#: and their parameters' kinds: ``ptr`` (an address: a plain ``int``), ``i32``, ``i64``, ``f32``
PARAM_KINDS = ("ptr", "i32", "i64", "f32")

SPECS: dict[str, tuple[str, ...]] = {
    # out[i] = a[i] + b[i] for i < n
    "add_kernel": ("ptr", "ptr", "ptr", "i32"),          # (out, a, b, n)
    # sink[0] += sum of a[i] for i in range(0, n, stride)   (n counts floats)
    "touch_kernel": ("ptr", "i64", "i64", "ptr"),        # (a, n, stride, sink)
    # sink[0] += sum of a[i] for i < n, read as float4 (n counts floats; a 16-byte aligned)
    "read_kernel": ("ptr", "i64", "ptr"),                # (a, n, sink)
    # a[i] += 1 for i < n
    "increment_kernel": ("ptr", "i32"),                  # (a, n)
    # a[i] = v for i < n
    "fill_kernel": ("ptr", "f32", "i64"),                # (a, v, n)
}
#: the argument that counts each kernel's floats (n): a pointer argument covers n 4-byte floats
#: from its address, except a sink, which covers one
KERNEL_COUNT = {"add_kernel": 3, "touch_kernel": 1, "read_kernel": 1, "increment_kernel": 1,
                "fill_kernel": 2}
KERNEL_SINKS = {"touch_kernel": (3,), "read_kernel": (2,)}
#: the kernels that do one element per thread (not grid-stride): a launch of fewer threads
#: than n leaves the elements past grid * block as they were
ONE_PER_THREAD = ("add_kernel", "increment_kernel")


def launch_dims(d) -> tuple[int, ...]:
    """A launch's grid or block as a tuple of ints: ``64`` -> ``(64,)``, ``(8, 8)`` as it is."""
    return tuple(int(x) for x in d) if isinstance(d, (tuple, list)) else (int(d),)


def kernel_spans(kernel: str, args) -> list[tuple[int, int, int]]:
    """``(argument index, address, bytes)`` of each pointer argument of ``kernel`` launched with
    ``args``: the memory the kernel reads or writes, which must lie inside one allocation."""
    n = max(0, int(args[KERNEL_COUNT[kernel]]))
    sinks = KERNEL_SINKS.get(kernel, ())
    return [(i, int(a), 4 if i in sinks else 4 * n)
            for i, (k, a) in enumerate(zip(SPECS[kernel], args)) if k == "ptr"]


@dataclass(frozen=True)
class Location:
    """Where pages live: ``Location('host')`` (the CPU) or ``Location('device', i)``."""
    kind: str
    id: int = 0

    def __str__(self) -> str:
        return "cpu" if self.kind == "host" else f"gpu{self.id}"


CPU = Location("host", -1)


def gpu(i: int = 0) -> Location:
    return Location("device", int(i))


class Allocation(NamedTuple):
    """One live allocation, as a backend reports it (:meth:`Memory.allocations`)."""
    ptr: int
    nbytes: int
    kind: str
    device: int


class Buffer(NamedTuple):
    """An array argument of a user kernel, as a backend sees it: bytes at ``ptr``."""
    ptr: int
    nbytes: int
    dtype: Any
    shape: tuple


@dataclass(frozen=True)
class UserKernel:
    """A learner's kernel (``umkit.kernel``), ready to launch: ``source`` (CUDA/HIP C++) for a
    GPU backend, ``twin`` (a NumPy function) for a model backend; ``args`` hold :class:`Buffer`
    values and scalars; ``cost`` = [(Buffer, times read, written?)] and ``flops`` are what the
    kernel declares (a model charges them)."""
    name: str
    source: str | None
    twin: Any
    grid: Any
    block: Any
    args: tuple
    cost: tuple = ()
    flops: float = 0.0


# -- the four protocols --------------------------------------------------------------------------
class DeviceQueries(ABC):
    @abstractmethod
    def device_count(self) -> int: ...
    @abstractmethod
    def device_name(self, device: int) -> str: ...
    @abstractmethod
    def mem_info(self, device: int) -> tuple[int, int]:
        """(free, total) bytes of device memory."""
    @abstractmethod
    def capabilities(self, device: int) -> dict:
        """managed_memory, concurrent_managed_access, pageable_memory_access, xnack (AMD), ..."""
    @abstractmethod
    def versions(self) -> dict: ...


class Memory(ABC):
    @abstractmethod
    def malloc(self, nbytes: int, kind: str, device: int) -> int:
        """kind in KINDS: managed (hip/cudaMallocManaged), device (hip/cudaMalloc),
        pinned (hipHostMalloc / cudaMallocHost, mapped: GPU reads it zero-copy)."""
    @abstractmethod
    def free(self, ptr: int, kind: str) -> None: ...
    @abstractmethod
    def pageable(self, nbytes: int):
        """Ordinary (pageable, malloc'd) host memory: a writable NumPy uint8 array of
        ``nbytes``, freed with the array (a model backend charges its CPU accesses)."""
    @abstractmethod
    def allocations(self) -> list[Allocation]:
        """Every live allocation this backend made (leak checks, lessons)."""
    @abstractmethod
    def host_view(self, ptr: int, nbytes: int):
        """A writable NumPy uint8 array over the same bytes (CPU side)."""
    @abstractmethod
    def device_view(self, ptr: int, nbytes: int, device: int, owner=None):
        """An array-module uint8 array over the same bytes (GPU side): CuPy, or sim's twin.
        ``owner``: an object the view (and every view derived from it) must keep alive -- the
        memory layer watches it to know when no view of a freed block is left."""
    def retire(self, ptr: int, kind: str) -> None:
        """The array at ``ptr`` was freed while views of it are still alive: the memory layer
        holds the block back until they die (so no later allocation gets those bytes).  A
        backend that sees its views' uses refuses them from now on; the default does nothing
        (a GPU's NumPy and CuPy views cannot be intercepted)."""


class Migration(ABC):
    @abstractmethod
    def prefetch(self, ptr: int, nbytes: int, to: Location, stream) -> None: ...
    @abstractmethod
    def advise(self, ptr: int, nbytes: int, advice: str, where: Location, unset: bool) -> None: ...
    @abstractmethod
    def range_attributes(self, ptr: int, nbytes: int) -> dict:
        """read_mostly (bool), preferred_location, last_prefetch_location (Location|None),
        accessed_by (list[Location])."""


class Execution(ABC):
    @abstractmethod
    def stream_create(self, device: int) -> Any: ...
    @abstractmethod
    def stream_destroy(self, stream) -> None: ...
    @abstractmethod
    def default_stream(self, device: int = 0) -> Any:
        """The default stream of ``device`` (a kernel on an array of that device runs there
        unless a stream says otherwise)."""
    @abstractmethod
    def synchronize(self, what=None) -> None:
        """None: the whole device (hipDeviceSynchronize); a stream handle; or an event handle."""
    @abstractmethod
    def event_create(self, device: int = 0) -> Any: ...
    @abstractmethod
    def event_record(self, event, stream) -> None: ...
    @abstractmethod
    def event_elapsed_ms(self, start, end) -> float: ...
    @abstractmethod
    def event_destroy(self, event) -> None: ...
    @abstractmethod
    def memcpy(self, dst: int, src: int, nbytes: int, stream) -> None:
        """Copy bytes (any direction; the runtime infers it from the pointers)."""
    @abstractmethod
    def memcpy_pageable(self, ptr: int, host, nbytes: int, to_array: bool, stream=None) -> None:
        """Copy between an allocation and a C-contiguous NumPy array (pageable host memory);
        the host waits for it."""
    @abstractmethod
    def launch(self, kernel: str, grid: int, block: int, args: tuple, stream) -> None:
        """Launch a kernel from ``kernels/`` by name (see umkit.kernels for the signatures)."""
    @abstractmethod
    def launch_user(self, kernel: UserKernel, stream) -> None:
        """Launch a learner's kernel (a model backend runs ``twin``, a GPU ``source``)."""


class Instrumented:
    """The optional capabilities.  A backend implements the methods of the features it lists
    in ``features``; the others raise.  sim has all four; a GPU backend may add ``counters``
    (e.g. from CUPTI) without the model's ``trace``/``snapshot``/``model_time``."""

    def counters(self) -> dict:
        """'counters': faults, batches, bytes each way, evictions, ... since the last reset."""
        raise NotImplementedError("counters")

    def reset_counters(self) -> None:
        """'counters': start counting from zero."""
        raise NotImplementedError("counters")

    def counters_start(self, device: int = 0) -> None:
        """Turn on counters that cost time to keep (CUPTI); afterwards ``supports("counters")``.
        Raises BackendUnavailable, saying why, where there are none."""
        from ..errors import BackendUnavailable
        raise BackendUnavailable(f"the {getattr(self, 'name', '?')} backend has no hardware "
                                 "counters", hint="use the sim backend to see every counter")

    def counters_stop(self) -> None:
        """Turn hardware counters off again (nothing to do where counting is free)."""

    def counters_clock(self):
        """'counters_log': the records' clock now (a step's end, for :meth:`counters_log`)."""
        raise NotImplementedError("counters_log")

    def counters_log(self, on: bool, stamps=None):
        """'counters_log': start keeping the records (``on=True``); or stop (``on=False``) and
        return the counters of each interval ending at ``stamps`` (times of
        :meth:`counters_clock`)."""
        raise NotImplementedError("counters_log")

    def trace(self, last: int | None = None) -> list[dict]:
        """'trace': the recent driver events (each tagged 'umd' or 'kmd'), oldest first."""
        raise NotImplementedError("trace")

    def snapshot(self, ptr: int):
        """'snapshot': ``(codes, page_bytes)`` -- one residency code per page of the
        allocation at ``ptr`` (0 unpopulated, 1 CPU, 2 GPU, 3 both)."""
        raise NotImplementedError("snapshot")

    def now(self) -> float:
        """'model_time': the model clock, seconds."""
        raise NotImplementedError("model_time")

    def model_profile(self):
        """'model_time': the hardware profile the model runs (values in SI units)."""
        raise NotImplementedError("model_time")


class Backend(DeviceQueries, Memory, Migration, Execution, Instrumented):
    """A backend: the four protocols, and the instrumented capabilities it declares."""

    name: str = "?"
    interface_version: int = INTERFACE_VERSION
    #: the optional capabilities this backend implements (a subset of FEATURES)
    features: frozenset = frozenset()
    #: set by the runtime context (umkit.allow_oversubscription); backends with a guard obey it
    allow_oversubscription: bool = False
    #: the classes of the stream and event handles this backend makes (its methods refuse
    #: anything else: :mod:`umkit.backends.checked`)
    stream_types: tuple = ()
    event_types: tuple = ()

    def supports(self, feature: str) -> bool:
        """Does this backend implement ``feature`` (one of :data:`FEATURES`)?"""
        assert feature in FEATURES, feature
        return feature in self.features

    @property
    def model_time(self) -> bool:
        """True when timings come from the model clock rather than from real hardware."""
        return self.supports("model_time")

    def __repr__(self) -> str:
        try:
            return f"<umkit {self.name} backend: {self.device_count()} x {self.device_name(0)}>"
        except Exception:  # noqa: BLE001 - a repr must not fail
            return f"<umkit {self.name} backend>"
