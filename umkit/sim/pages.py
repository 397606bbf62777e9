"""Pages and residency: where each host page of an allocation lives.

``where`` is a bitmask per 4 KiB host page: bit 0 = CPU, bit 1+g = GPU g.  0 means *not yet
populated* (fresh managed memory has no physical page until first touch).  Two bits set = a
duplicated page (read-mostly advice).  Advice is stored per page too, because it is set on ranges.

Two page-state representations answer the same operations (:data:`PAGE_STATES`): ``dense``
keeps every table as a NumPy array with one entry per page and page lists as sorted NumPy arrays
of page indices (``compute=True``); ``extents`` keeps the tables as runs of pages in the same
state and page sets as ranges (:mod:`.extents`; model-only, ``compute=False``), so memory and
time grow with the number of extents an access pattern makes, not with bytes.  The helpers
below take either kind of page list.  An :class:`Access` is what one kernel or host operation
touches in one allocation.

An allocation's bytes (``Allocation.data``) are real NumPy memory.  With ``compute=True`` they
are allocated with it; model-only, they are allocated only when a view or a copy needs them
(until then every byte reads as zero, as fresh memory does).  Either way, more bytes than this
machine can hold are refused with :class:`~umkit.errors.OutOfMemory` naming the limit.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..errors import OutOfMemory
from .extents import PageSet, Runs

CPU_BIT = np.uint8(1)
NO_LOC = -2          # "no location" (as cudaMemRangeGetAttribute reports it)
CPU_ID = -1          # the CPU as a device id (hipCpuDeviceId / cudaCpuDeviceId)
PAGE_STATES = ("dense", "extents")
GiB = 1 << 30


def gpu_bit(g: int) -> np.uint8:
    return np.uint8(1 << (1 + g))


def loc_bit(dev: int) -> np.uint8:
    return CPU_BIT if dev == CPU_ID else gpu_bit(dev)


def _meminfo_available() -> int:
    """Bytes of RAM the machine can still give (Linux: MemAvailable; else the physical RAM)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 1 << 62


def _address_space_left() -> int | None:
    """Bytes of address space this process may still map under its limit (``ulimit -v``,
    RLIMIT_AS); None without a limit or where it cannot be read."""
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft == resource.RLIM_INFINITY or soft < 0:
            return None
        with open("/proc/self/statm") as f:
            used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        return max(soft - used, 0)
    except (ImportError, OSError, ValueError, IndexError, AttributeError):
        return None


def _cgroup_left() -> int | None:
    """Bytes this container's memory limit still allows (cgroup v2 memory.max less
    memory.current at the root the process sees); None without a limit."""
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = f.read().strip()
        if limit == "max":
            return None
        with open("/sys/fs/cgroup/memory.current") as f:
            current = int(f.read().strip())
        return max(int(limit) - current, 0)
    except (OSError, ValueError):
        return None


def machine_memory() -> int:
    """Bytes of RAM this process can still be given: the machine's MemAvailable (else its physical
    RAM), lowered to what the process's address-space limit (``ulimit -v``) and its container's
    memory limit (cgroup v2) still allow."""
    return min([_meminfo_available()]
               + [v for v in (_address_space_left(), _cgroup_left()) if v is not None])


def backing_bytes(nbytes: int, kind: str, device: int, model_only: bool) -> np.ndarray:
    """``nbytes`` of zeroed host memory for an allocation's data; OutOfMemory naming the limit
    (and, with ``compute=True``, the model-only switch) where this machine cannot hold them."""
    avail = machine_memory()
    refused = False
    if nbytes <= avail:
        try:
            return np.zeros(nbytes, dtype=np.uint8)
        except (MemoryError, ValueError):
            refused = True      # the figure above was not what the process could get
    if model_only:
        msg = (f"the bytes of a {kind} allocation of {nbytes} B ({nbytes / GiB:.2f} GiB): "
               "model-only sim keeps no bytes until a host or device view (or a copy) needs "
               f"them, and this machine can give {avail / GiB:.2f} GiB")
        hint = ("model-only runs at this size charge kernels, prefetches and advice without "
                "data: use umkit.touch / umkit.increment and prefetch, not views of the array; "
                "or view a smaller array")
    else:
        msg = (f"{kind} allocation of {nbytes} B ({nbytes / GiB:.2f} GiB): with compute=True "
               "the simulator keeps every byte in this machine's RAM, and this machine can "
               f"give {avail / GiB:.2f} GiB")
        hint = ('switch to model-only, umkit.use("sim", compute=False): costs and counters '
                "without the bytes, page state as extents (sizes up to TiBs); or lower vram= "
                "to show oversubscription with small buffers")
    if refused:
        msg = (f"{kind} allocation of {nbytes} B ({nbytes / GiB:.2f} GiB): the simulator keeps "
               "the bytes in this machine's RAM, and the system refused them (MemoryError) "
               f"though {avail / GiB:.2f} GiB looked free: a limit on this process may be lower")
    raise OutOfMemory(msg, hint=hint, requested=nbytes, free=avail, kind=kind, device=device)


class Allocation:
    """One allocation: its bytes (NumPy, so results are real) and its page table, kept in
    ``pages`` representation (:data:`PAGE_STATES`); ``eager``: allocate the bytes now (else
    when a view or a copy first needs them)."""

    def __init__(self, ptr: int, nbytes: int, kind: str, device: int, host_page: int,
                 region: int, t: float, pages: str = "dense", eager: bool = True):
        assert pages in PAGE_STATES, pages
        self.ptr, self.nbytes, self.kind, self.device = ptr, nbytes, kind, device
        self.host_page, self.region = host_page, region
        self.extents = pages == "extents"
        self._data = backing_bytes(nbytes, kind, device, False) if eager else None
        self.npages = -(-nbytes // host_page)
        full = self.table
        self.where = full(0, np.uint8)
        if kind == "device":
            self.where[:] = gpu_bit(device)
        elif kind == "pinned":
            self.where[:] = CPU_BIT
        self.read_mostly = full(False, bool)
        self.preferred = full(NO_LOC, np.int8)
        self.accessed_by = full(0, np.uint8)
        self.coarse_grain = full(False, bool)
        self.last_prefetch = full(NO_LOC, np.int8)
        #: read-mostly pages whose GPU copy a CPU write invalidated (re-duplicated page by page)
        self.dup_lost = full(False, bool)
        #: pages a prefetch brought to the CPU: the CPU maps each on its first touch
        self.cpu_unmapped = full(False, bool)
        #: pages a CPU fault took back from a GPU and the CPU then wrote: a GPU fault returns
        #: each one at dirty_refault_latency (a prefetch moves them at no extra cost)
        self.cpu_dirty = full(False, bool)
        self.pages_per_region = max(1, region // host_page)
        self.nregions = -(-self.npages // self.pages_per_region)
        #: LRU: last allocation/migration time per 2 MiB region
        self.region_stamp = full(t, float, self.nregions)
        #: remote mappings a GPU fault established (the GPU reads those pages where they are)
        self.mapped = full(0, np.uint8)
        self.freed = False
        #: its owner freed it while views of it live (Engine.retire): views may no longer use it
        self.retired = False
        #: the driver's address range it lies in (``AddressSpace.place`` sets it; small managed
        #: allocations may share one arena)
        self.range = None
        #: NVIDIA UVM's thrashing records of its pages (thrashing.py; None until a fault moves one)
        self.thrash = None
        self.kept = False          # a host view was stored (h = a.host): see RaceDetector.start
        self.host_seen = False     # the CPU has touched it (host.CpuCache.span)

    @property
    def stale(self) -> bool:
        """Freed, or retired by its owner while views live: no view may use its bytes."""
        return self.freed or self.retired

    def table(self, value, dtype, n: int | None = None):
        """A new per-page table (``n`` entries, default one per page) holding ``value``."""
        n = self.npages if n is None else n
        return Runs.full(n, value, dtype) if self.extents else np.full(n, value, dtype=dtype)

    @property
    def data(self) -> np.ndarray:
        """The allocation's bytes (allocated here when model-only and not needed before)."""
        if self._data is None:
            self._data = backing_bytes(self.nbytes, self.kind, self.device, True)
        return self._data

    @property
    def has_data(self) -> bool:
        """Whether its bytes exist (model-only: a view or a copy needed them)."""
        return self._data is not None

    def page_range(self, start: int, stop: int):
        """Host pages covering bytes [start, stop)."""
        if stop <= start:
            return PageSet.span(0, 0) if self.extents else np.zeros(0, dtype=np.intp)
        lo, hi = start // self.host_page, (stop - 1) // self.host_page + 1
        return PageSet.span(lo, hi) if self.extents else np.arange(lo, hi, dtype=np.intp)

    def page_list(self, pages):
        """``pages`` (sorted distinct indices, a NumPy array) in this allocation's
        representation."""
        return PageSet.from_sorted(pages) if self.extents else pages

    def resident_bytes(self, bit: np.uint8) -> int:
        w = self.where
        if isinstance(w, Runs):
            return w.count_with(bit) * self.host_page
        return int(np.count_nonzero(w & bit)) * self.host_page

    def snapshot(self) -> np.ndarray:
        """Per-page state codes for pictures: 0 unpopulated, 1 CPU, 2 GPU, 3 both."""
        w = self.where
        on_cpu = (w & CPU_BIT) != 0
        on_gpu = (w & np.uint8(0xFE)) != 0
        return np.asarray(on_cpu.astype(np.uint8) + 2 * on_gpu.astype(np.uint8))


@dataclass
class Access:
    """What one kernel or host operation touches in one allocation."""
    alloc: Allocation
    pages: np.ndarray          # sorted unique host-page indices (a PageSet for extents)
    write: bool
    nbytes: int                # bytes actually read/written (for streaming cost)
    atomic: bool = False       # atomicAdd-style updates: two of them never race each other
    #: how many times the kernel walks over it (a learner's kernel declares its re-reads): its
    #: GPU faults come in that many waves, each serviced and replayed before the next
    passes: float = 1.0
    #: of ``nbytes``, the bytes written (None: all of them when ``write``, else none) -- an
    #: increment reads and writes each element; over the link the two go opposite ways
    written: int | None = None

    def __post_init__(self):
        # an allocation kept as extents takes its page lists as ranges
        if self.alloc.extents and not isinstance(self.pages, PageSet):
            self.pages = PageSet.from_sorted(self.pages)

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


def uniq_div(sorted_unique, k: int):
    """uniq(x // k) for sorted distinct x (a NumPy array or a PageSet: the same kind back), with
    a fast path for a contiguous run."""
    x = sorted_unique
    if isinstance(x, PageSet):
        return x.div(k)
    if x.size and int(x[-1] - x[0]) + 1 == x.size:
        return np.arange(int(x[0]) // k, int(x[-1]) // k + 1)
    return uniq(x // k)


def nuniq_div(sorted_unique, k: int) -> int:
    """len(uniq_div(x, k)), without building it."""
    x = sorted_unique
    if isinstance(x, PageSet):
        return x.div(k).size
    if x.size and int(x[-1] - x[0]) + 1 == x.size:
        return int(x[-1]) // k - int(x[0]) // k + 1
    return nuniq(x // k)


def contiguous(sorted_unique) -> bool:
    if isinstance(sorted_unique, PageSet):
        return sorted_unique.ranges == 1
    return sorted_unique.size > 0 and int(sorted_unique[-1] - sorted_unique[0]) + 1 == sorted_unique.size


def as_index(sorted_unique):
    """``sorted_unique`` as an index into a page table: a slice (a view, no gather) where it is
    one contiguous run, else the array itself (a PageSet indexes as it is).  Reads through it
    are views: copy before the table changes if the old values are still wanted."""
    if isinstance(sorted_unique, PageSet):
        return sorted_unique
    if contiguous(sorted_unique):
        lo = int(sorted_unique[0])
        return slice(lo, lo + sorted_unique.size)
    return sorted_unique


def expand(blocks, k: int, limit: int):
    """Every page of the blocks of ``k`` pages that ``blocks`` (sorted distinct block indices)
    names, below page ``limit``."""
    if isinstance(blocks, PageSet):
        return blocks.times(k, limit)
    if contiguous(blocks):
        return np.arange(int(blocks[0]) * k, min((int(blocks[-1]) + 1) * k, limit))
    pages = (blocks[:, None] * k + np.arange(k)[None, :]).ravel()
    return pages[pages < limit]


def true_pages(mask):
    """The positions where the per-page ``mask`` is true: a PageSet for a table of extents,
    a sorted NumPy array for a dense one."""
    if isinstance(mask, Runs):
        return mask.true_set()
    return np.flatnonzero(mask)


def minus(pages, drop):
    """The pages of ``pages`` not in ``drop`` (both sorted distinct, of one kind)."""
    if isinstance(pages, PageSet):
        return pages.minus(drop if isinstance(drop, PageSet) else PageSet.from_sorted(drop))
    return np.setdiff1d(pages, np.asarray(drop), assume_unique=True)


def intersect(a, b):
    """The pages in both ``a`` and ``b`` (sorted distinct, of one kind)."""
    if isinstance(a, PageSet):
        return a.intersect(b if isinstance(b, PageSet) else PageSet.from_sorted(b))
    return np.intersect1d(a, np.asarray(b), assume_unique=True)


def window_counts(mask, edges: np.ndarray) -> np.ndarray:
    """How many entries of ``mask`` are true in each window [edges[i], edges[i + 1])."""
    if isinstance(mask, Runs):
        return mask.window_counts(edges)
    c = np.concatenate(([0], np.cumsum(np.asarray(mask, dtype=bool), dtype=np.int64)))
    return np.diff(c[np.asarray(edges, dtype=np.int64)])
