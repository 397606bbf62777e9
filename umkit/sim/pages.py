"""Pages and residency: where each host page of an allocation lives.

``where`` is a bitmask per 4 KiB host page: bit 0 = CPU, bit 1+g = GPU g.  0 means *not yet
populated* (fresh managed memory has no physical page until first touch).  Two bits set = a
duplicated page (read-mostly advice).  Advice is stored per page too, because it is set on ranges.

Page lists are sorted NumPy arrays of host-page indices; the helpers below work on them without
hashing.  An :class:`Access` is what one kernel or host operation touches in one allocation.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CPU_BIT = np.uint8(1)
NO_LOC = -2          # "no location" (as cudaMemRangeGetAttribute reports it)
CPU_ID = -1          # the CPU as a device id (hipCpuDeviceId / cudaCpuDeviceId)


def gpu_bit(g: int) -> np.uint8:
    return np.uint8(1 << (1 + g))


def loc_bit(dev: int) -> np.uint8:
    return CPU_BIT if dev == CPU_ID else gpu_bit(dev)


class Allocation:
    """One allocation: its bytes (NumPy, so results are real) and its page table."""

    def __init__(self, ptr: int, nbytes: int, kind: str, device: int, host_page: int,
                 region: int, t: float):
        self.ptr, self.nbytes, self.kind, self.device = ptr, nbytes, kind, device
        self.host_page, self.region = host_page, region
        self.data = np.zeros(nbytes, dtype=np.uint8)
        self.npages = -(-nbytes // host_page)
        self.where = np.zeros(self.npages, dtype=np.uint8)
        if kind == "device":
            self.where[:] = gpu_bit(device)
        elif kind == "pinned":
            self.where[:] = CPU_BIT
        self.read_mostly = np.zeros(self.npages, dtype=bool)
        self.preferred = np.full(self.npages, NO_LOC, dtype=np.int8)
        self.accessed_by = np.zeros(self.npages, dtype=np.uint8)
        self.coarse_grain = np.zeros(self.npages, dtype=bool)
        self.last_prefetch = np.full(self.npages, NO_LOC, dtype=np.int8)
        #: read-mostly pages whose GPU copy a CPU write invalidated (re-duplicated page by page)
        self.dup_lost = np.zeros(self.npages, dtype=bool)
        #: pages a prefetch brought to the CPU: the CPU maps each on its first touch
        self.cpu_unmapped = np.zeros(self.npages, dtype=bool)
        #: pages a CPU fault took back from a GPU and the CPU then wrote: a GPU fault returns
        #: each one at dirty_refault_latency (a prefetch moves them at no extra cost)
        self.cpu_dirty = np.zeros(self.npages, dtype=bool)
        self.pages_per_region = max(1, region // host_page)
        self.nregions = -(-self.npages // self.pages_per_region)
        self.region_stamp = np.full(self.nregions, t)   # LRU: last allocation/migration time
        #: remote mappings a GPU fault established (the GPU reads those pages where they are)
        self.mapped = np.zeros(self.npages, dtype=np.uint8)
        self.freed = False
        #: the driver's address range it lies in (``AddressSpace.place`` sets it; small managed
        #: allocations may share one arena)
        self.range = None
        self.kept = False          # a host view was stored (h = a.host): see RaceDetector.start
        self.host_seen = False     # the CPU has touched it (host.CpuCache.span)

    def page_range(self, start: int, stop: int) -> np.ndarray:
        """Host pages covering bytes [start, stop)."""
        if stop <= start:
            return np.zeros(0, dtype=np.intp)
        return np.arange(start // self.host_page, (stop - 1) // self.host_page + 1, dtype=np.intp)

    def resident_bytes(self, bit: np.uint8) -> int:
        return int(np.count_nonzero(self.where & bit)) * self.host_page

    def snapshot(self) -> np.ndarray:
        """Per-page state codes for pictures: 0 unpopulated, 1 CPU, 2 GPU, 3 both."""
        w = self.where
        on_cpu = (w & CPU_BIT) != 0
        on_gpu = (w & np.uint8(0xFE)) != 0
        return (on_cpu.astype(np.uint8) + 2 * on_gpu.astype(np.uint8))


@dataclass
class Access:
    """What one kernel or host operation touches in one allocation."""
    alloc: Allocation
    pages: np.ndarray          # sorted unique host-page indices
    write: bool
    nbytes: int                # bytes actually read/written (for streaming cost)
    atomic: bool = False       # atomicAdd-style updates: two of them never race each other
    #: how many times the kernel walks over it (a learner's kernel declares its re-reads): its
    #: GPU faults come in that many waves, each serviced and replayed before the next
    passes: float = 1.0
    #: of ``nbytes``, the bytes written (None: all of them when ``write``, else none) -- an
    #: increment reads and writes each element; over the link the two go opposite ways
    written: int | None = None

    @property
    def written_bytes(self) -> int:
        if self.written is not None:
            return self.written
        return self.nbytes if self.write else 0


# -- sorted page lists ------------------------------------------------------------------------------
def uniq(sorted_ints: np.ndarray) -> np.ndarray:
    """np.unique for an already sorted array (page lists are kept sorted), without hashing."""
    x = sorted_ints
    if x.size < 2:
        return x
    keep = np.empty(x.size, dtype=bool)
    keep[0] = True
    np.not_equal(x[1:], x[:-1], out=keep[1:])
    return x[keep]


def nuniq(sorted_ints: np.ndarray) -> int:
    """How many distinct values a sorted array holds."""
    if sorted_ints.size < 2:
        return int(sorted_ints.size)
    return int(np.count_nonzero(sorted_ints[1:] != sorted_ints[:-1])) + 1


def uniq_div(sorted_unique: np.ndarray, k: int) -> np.ndarray:
    """uniq(x // k) for sorted distinct x, with a fast path for a contiguous run."""
    x = sorted_unique
    if x.size and int(x[-1] - x[0]) + 1 == x.size:
        return np.arange(int(x[0]) // k, int(x[-1]) // k + 1)
    return uniq(x // k)


def nuniq_div(sorted_unique: np.ndarray, k: int) -> int:
    """len(uniq_div(x, k)), without building it."""
    x = sorted_unique
    if x.size and int(x[-1] - x[0]) + 1 == x.size:
        return int(x[-1]) // k - int(x[0]) // k + 1
    return nuniq(x // k)


def contiguous(sorted_unique: np.ndarray) -> bool:
    return sorted_unique.size > 0 and int(sorted_unique[-1] - sorted_unique[0]) + 1 == sorted_unique.size


def as_index(sorted_unique: np.ndarray):
    """``sorted_unique`` as an index into a page table: a slice (a view, no gather) where it is
    one contiguous run, else the array itself.  Reads through it are views: copy before the
    table changes if the old values are still wanted."""
    if contiguous(sorted_unique):
        lo = int(sorted_unique[0])
        return slice(lo, lo + sorted_unique.size)
    return sorted_unique
