"""The backend contract: everything a backend must do, on one screen.

Three backends implement it: ``cuda`` (cuda-bindings + CuPy), ``hip`` (hip-python + CuPy ROCm)
and ``sim`` (the CPU model in :mod:`umkit.sim`).  Everything else in umkit -- arrays, the pool,
strategies, the memory ECG, calibration, widgets -- is written once, above this line.

Pointers are plain ``int`` addresses.  Locations are :class:`Location` values (``CPU`` or
``gpu(i)``).  Streams and events are opaque handles owned by the backend.  Sizes are bytes.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

ADVICE = ("read_mostly", "preferred_location", "accessed_by", "coarse_grain")
KINDS = ("managed", "device", "pinned")


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


class Backend(ABC):
    name: str = "?"
    #: True when timings come from the model clock rather than from real hardware.
    model_time: bool = False

    def __repr__(self) -> str:
        try:
            return f"<umkit {self.name} backend: {self.device_count()} x {self.device_name(0)}>"
        except Exception:  # noqa: BLE001 - a repr must not fail
            return f"<umkit {self.name} backend>"

    # -- devices -------------------------------------------------------------------------
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

    # -- allocation ----------------------------------------------------------------------
    @abstractmethod
    def malloc(self, nbytes: int, kind: str, device: int) -> int:
        """kind in KINDS: managed (hip/cudaMallocManaged), device (hip/cudaMalloc),
        pinned (hipHostMalloc / cudaMallocHost, mapped: GPU reads it zero-copy)."""
    @abstractmethod
    def free(self, ptr: int, kind: str) -> None: ...

    # -- migration -----------------------------------------------------------------------
    @abstractmethod
    def prefetch(self, ptr: int, nbytes: int, to: Location, stream) -> None: ...
    @abstractmethod
    def advise(self, ptr: int, nbytes: int, advice: str, where: Location, unset: bool) -> None: ...
    @abstractmethod
    def range_attributes(self, ptr: int, nbytes: int) -> dict:
        """read_mostly (bool), preferred_location, last_prefetch_location (Location|None),
        accessed_by (list[Location])."""

    # -- views of one pointer ---------------------------------------------------------------
    @abstractmethod
    def host_view(self, ptr: int, nbytes: int):
        """A writable NumPy uint8 array over the same bytes (CPU side)."""
    @abstractmethod
    def device_view(self, ptr: int, nbytes: int, device: int):
        """An array-module uint8 array over the same bytes (GPU side): CuPy, or sim's twin."""

    # -- streams, events, copies, kernels ------------------------------------------------------
    @abstractmethod
    def stream_create(self, device: int): ...
    @abstractmethod
    def stream_destroy(self, stream) -> None: ...
    @abstractmethod
    def synchronize(self, what=None) -> None:
        """None: the whole device (hipDeviceSynchronize); a stream; or an event."""
    @abstractmethod
    def event_create(self): ...
    @abstractmethod
    def event_record(self, event, stream) -> None: ...
    @abstractmethod
    def event_elapsed_ms(self, start, end) -> float: ...
    @abstractmethod
    def memcpy(self, dst: int, src: int, nbytes: int, stream) -> None:
        """Copy bytes (any direction; the runtime infers it from the pointers)."""
    @abstractmethod
    def launch(self, kernel: str, grid: int, block: int, args: tuple, stream) -> None:
        """Launch a kernel from ``kernels/`` by name (see umkit.kernels for the signatures)."""
