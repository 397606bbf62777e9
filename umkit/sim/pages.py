"""Pages and residency: where each host page of an allocation lives.

``where`` is a bitmask per 4 KiB host page: bit 0 = CPU, bit 1+g = GPU g.  0 means *not yet
populated* (fresh managed memory has no physical page until first touch).  Two bits set = a
duplicated page (read-mostly advice).  Advice is stored per page too, because it is set on ranges.
"""
from __future__ import annotations

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
        self.freed = False
        #: the driver's address range it lies in (Engine.malloc sets it; small managed
        #: allocations may share one arena)
        self.range = None
        self.kept = False          # a host view was stored (h = a.host): see Engine._watch_kept
        self.host_seen = False     # the CPU has touched it (Engine._host_span)

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
