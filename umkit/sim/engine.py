"""The migration engine: faults and batches, the prefetcher, advice, eviction, streams, races.

Model time only (``Engine.now``, seconds): the same program gives the same numbers anywhere.
Every operation is tagged with the driver layer that does it -- ``umd`` (user-mode driver:
bookkeeping, batching, enqueueing) or ``kmd`` (kernel-mode driver: page-table updates,
migration) -- for the article's §1.
"""
from __future__ import annotations

import bisect
import math
import functools
import threading
import warnings
import weakref
from collections import OrderedDict, deque
from dataclasses import dataclass, field

import numpy as np

from ..errors import InvalidArgument, OutOfMemory, RaceDetected, RaceWarning, UseAfterFree
from .costs import Profile
from .pages import CPU_BIT, CPU_ID, Allocation, gpu_bit, loc_bit
from .policy import policy_for

COUNTERS = (
    "kernels", "gpu_faults", "fault_batches", "cpu_faults", "first_touch_pages",
    "bytes_h2d", "bytes_d2h", "bytes_peer", "prefetch_bytes_h2d", "prefetch_bytes_d2h",
    "prefetcher_bytes", "evictions", "evicted_bytes", "remote_bytes", "duplicates",
    "invalidations", "race_flags", "umd_ops", "kmd_ops",
)
RACE_EXAMPLES = 100         # races kept as examples (warn mode may flag one every step)
PREFETCH_THRESHOLD = 51     # NVIDIA's prefetcher: a subregion is >51% resident (see profiles)
BIG_PAGE = 65536            # the tree's fault-granularity growth unit (uvm_perf_prefetch.c)
ARENA_SPAN = 1 << 40        # address space an arena of small managed allocations may grow into


class Range:
    """A GPU-visible address range as the driver sees it: one large managed allocation, or one
    arena that small managed allocations are packed into (``Policy.pack_small_managed``).
    ``next``: where an arena's next allocation goes; ``live``: its allocations not yet freed;
    ``faulted``: the GPUs that have taken a fault in it since it was created (the first one pays
    ``fault_range_latency``)."""

    __slots__ = ("next", "live", "faulted")

    def __init__(self, base: int):
        self.next, self.live = base, 0
        self.faulted: set = set()


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


def locked(fn):
    """Run an :class:`Engine` method under the engine's lock (one re-entrant lock guards all of
    the engine's shared state: the allocation table, page tables, counters, streams, work in
    flight).  Threads take turns inside the model; NumPy arithmetic on the data runs outside."""
    @functools.wraps(fn)
    def run_locked(self, *args, **kwargs):
        with self.lock:
            return fn(self, *args, **kwargs)
    return run_locked


@dataclass(eq=False)
class SimStream:
    """The model's state of one stream: when its queued work ends (``ready``)."""
    id: int
    device: int
    ready: float = 0.0
    #: a device's default stream: the *legacy* default stream of CUDA/HIP, which waits for
    #: the other (blocking) streams of its device and they for it -- so it never races them
    default: bool = False
    #: no work was submitted to it yet (its first operation pays ``stream_first_latency``)
    fresh: bool = True
    #: the kind of its last operation ("kernel", "copy", "prefetch"): a kernel queued behind a
    #: copy or a prefetch waits for that engine's completion (``*_handoff_latency``)
    after: str | None = None


@dataclass(eq=False)
class SimEvent:
    """A recorded point in model time (None until recorded)."""
    time: float | None = None


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


@dataclass(eq=False)
class InFlight:
    end: float
    name: str
    stream: int
    accesses: list = field(default_factory=list)
    start: float = 0.0
    default: bool = False                       # enqueued on a device's default stream
    flagged: set = field(default_factory=set)   # allocations already counted as raced


class Engine:
    BASE = 0x7F00_0000_0000

    def __init__(self, profile: Profile, gpus: int = 1, strict: bool = False,
                 prefetcher: bool = True, trace: int = 2000):
        # checked at the public API (umkit.use: context._sim_options); here only asserted
        assert not isinstance(gpus, bool) and isinstance(gpus, (int, np.integer)) \
            and 1 <= gpus <= 7, f"gpus={gpus!r}"
        assert isinstance(strict, (bool, np.bool_)) and isinstance(prefetcher, (bool, np.bool_))
        gpus, strict, prefetcher = int(gpus), bool(strict), bool(prefetcher)
        self.profile, self.gpus, self.strict, self.prefetcher = profile, gpus, strict, prefetcher
        #: the vendor semantics (umkit/sim/policy.py): the engine asks it, never the vendor name
        self.policy = policy_for(profile.vendor, profile.mode)
        self.now = 0.0
        self.allocs: dict[int, Allocation] = {}
        self._starts: list[int] = []
        self._next = self.BASE
        self.counters = dict.fromkeys(COUNTERS, 0)
        self.trace: deque = deque(maxlen=trace)
        self.inflight: list[InFlight] = []
        #: live streams only: a stream nobody holds any more is dropped (its queued work still
        #: counts through ``_horizon``, so a device synchronize still waits for it)
        self.streams: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        self._stream0 = SimStream(0, 0, default=True)
        self.streams[0] = self._stream0
        self._next_stream = 1
        self._horizon = 0.0          # the latest end of any work ever enqueued
        #: the CPU's cache as a working set: allocation ptr -> bytes of its last CPU access,
        #: least recently touched first (see _host_span)
        self._host_lru: OrderedDict = OrderedDict()
        self._links: dict = {}       # transfer direction -> when the link is free again
        self._arena: Range | None = None     # the open arena for small managed allocations
        #: per GPU: the deferred page-table work an allocation or a free left for it
        #: (kind -> seconds); its next operation does it first, a device synchronize does it
        self._flush: dict = {}
        self._flush_ready: dict = {}         # per GPU: when the deferred work started is done
        self._kfaults = None         # the faults of the kernel being costed (gpu_access)
        self._fault_gpu = 0          # the GPU whose faults are being costed
        self._passes = 1.0           # passes of the access whose faults are being costed
        self.last_prefetch_bytes = 0     # what the last prefetch moved (a no-op needs no fence)
        self._t = (0.0, 0.0, 0.0)
        self.races: list[dict] = []  # the first RACE_EXAMPLES races; races_seen counts all
        self.races_seen = 0
        self._shortfall = 0          # set by _make_room: bytes that did not fit in VRAM
        #: host views handed out while a GPU op reads their pages: (op, alloc, lo, copy of the
        #: bytes) -- a host write through a path NumPy does not dispatch (``rng.random(out=)``,
        #: a memoryview) shows up as changed bytes at the next engine call
        self._watches: list = []
        self.lock = threading.RLock()

    # -- bookkeeping ---------------------------------------------------------------------------
    def _log(self, op: str, layer: str, detail: str = "", **extra):
        self.counters["umd_ops" if layer == "umd" else "kmd_ops"] += 1
        self.trace.append(dict(t=self.now, op=op, layer=layer, detail=detail, **extra))

    @locked
    def reset_counters(self):
        self.counters = dict.fromkeys(COUNTERS, 0)
        self.trace.clear()
        self.races.clear()
        self.races_seen = 0

    @locked
    def find(self, ptr: int) -> tuple[Allocation, int]:
        """The live allocation holding ``ptr`` and the offset of ``ptr`` in it."""
        i = bisect.bisect_right(self._starts, ptr) - 1
        if i >= 0:
            a = self.allocs[self._starts[i]]
            if ptr < a.ptr + max(a.nbytes, 1):
                return a, ptr - a.ptr
        raise UseAfterFree(f"pointer {ptr:#x} is not a live umkit allocation",
                           hint="it was freed already, or never allocated by this backend")

    # -- allocation ----------------------------------------------------------------------------
    @locked
    def malloc(self, nbytes: int, kind: str, device: int) -> int:
        p = self.profile
        try:        # the model keeps every byte in host RAM: refuse what this machine can't hold
            a = Allocation(self._next, nbytes, kind, device, p.host_page, p.region, self.now)
        except (MemoryError, ValueError):
            raise OutOfMemory(f"{kind} allocation of {nbytes} B: the simulator keeps every byte "
                              "in this machine's RAM and could not get that much",
                              hint="the sim backend models small buffers: use MiB, not GiB, "
                                   "and lower vram= to show oversubscription",
                              requested=nbytes, kind=kind, device=device) from None
        if kind == "device":
            # VRAM is one budget.  Device memory (and nothing else) is unevictable; managed
            # pages on the GPU are evicted to make room for a device allocation, as both
            # drivers do: NVIDIA UVM registers eviction callbacks with the physical memory
            # allocator so that RM allocations (cudaMalloc) can take memory UVM holds
            # (kernel-open/nvidia-uvm/uvm_pmm_gpu.c: uvm_pmm_gpu_pma_evict_range/_pages);
            # amdgpu lets TTM evict SVM buffer objects even for the same process
            # (amdgpu_amdkfd_fence.c: amdkfd_fence_check_mm, "for svm bo, which support vram
            # overcommitment, always return FALSE"), and the eviction fence migrates those
            # ranges to system memory (kfd_svm.c: svm_range_evict_svm_bo_worker).
            need = a.npages * a.host_page
            held = self.device_bytes(device)
            if held + need > p.vram:
                raise OutOfMemory(          # "in use": device memory, which can't be evicted
                    f"device allocation of {nbytes} B exceeds the simulated VRAM "
                    f"({held} of {int(p.vram)} B in use) -- hipErrorOutOfMemory",
                    hint="device memory never breathes out: use managed memory for cold data",
                    requested=need, free=int(p.vram) - held, total=int(p.vram), device=device,
                    kind="device")
            t = self._make_room(device, need, set())    # managed pages move out first
            self.now += p.alloc_device + t
            self._log("malloc_device", "kmd", f"{nbytes} B of VRAM mapped"
                      + (f" after evicting managed pages ({t * 1e3:.3f} ms)" if t else ""))
        elif kind == "pageable":        # plain malloc'd host memory (umkit.pageable): no GPU
            self._log("malloc_pageable", "umd", f"{nbytes} B of ordinary host memory")
        elif kind == "pinned":
            self.now += p.alloc_pinned_per_mib * max(1.0, nbytes / 2**20)
            self._log("malloc_pinned", "kmd", f"{nbytes} B of host memory pinned")
        else:
            self.now += p.alloc_managed
            if self.policy.managed_alloc_layer == "kmd":     # AMD: one KFD SVM ioctl
                self._log("malloc_managed", "kmd", f"{nbytes} B of address range registered "
                          "with the KMD as an SVM range (one ioctl); no physical page yet")
            else:
                self._log("malloc_managed", "umd", f"{nbytes} B of address range recorded; "
                          "no physical page yet")
        if kind == "managed" and self.policy.pack_small_managed and nbytes <= p.region:
            # small managed allocations are carved out of one arena, back to back (measured on
            # the H200: consecutive allocations of 4 KiB - 2 MiB lie exactly their size apart),
            # so they share the driver's 2 MiB VA blocks and its prefetcher's decisions
            # (the arena grows while any allocation in it is live; when the last one is freed
            # the next small allocation opens a new one, at a fresh 2 MiB-aligned address)
            size = -(-max(nbytes, 1) // p.host_page) * p.host_page
            ar = self._arena
            if ar is None:
                # reserve address space for it: other allocations go elsewhere meanwhile
                ar = self._arena = Range(self._next)
                self._next += ARENA_SPAN
            ptr = ar.next
            ar.next += size
        else:
            ptr = self._next
            self._next += -(-max(nbytes, 1) // p.region) * p.region + p.region  # region-aligned
            ar = Range(ptr)
        ar.live += 1
        a.range = ar
        a.ptr = ptr
        if kind in ("device", "pinned"):
            # mapping new memory into the GPUs' page tables: deferred work for their next op
            for g in ([device] if kind == "device" else range(self.gpus)):
                self._defer(g, "map_flush_latency")
        a.region_stamp[:] = self.now
        a.mapped = np.zeros(a.npages, dtype=np.uint8)   # remote mappings established by faults
        self.allocs[ptr] = a
        bisect.insort(self._starts, ptr)
        return ptr

    @locked
    def free(self, ptr: int) -> Allocation:
        a = self.allocs.pop(ptr, None)
        if a is None:
            raise UseAfterFree(f"free of {ptr:#x}: not a live allocation (double free?)",
                               hint="free each buffer once; umkit arrays free themselves")
        del self._starts[bisect.bisect_left(self._starts, ptr)]
        a.freed = True
        ar = a.range
        if ar is not None:
            ar.live -= 1
            if ar.live == 0 and ar is self._arena:
                self._arena = None          # an emptied arena is released: the next one is new
        # unmapping from the GPUs' page tables: deferred work for their next op
        if a.kind == "device":
            self._defer(a.device, "unmap_flush_latency")
        elif a.kind == "pinned":
            for g in range(self.gpus):
                self._defer(g, "unmap_flush_latency")
        elif a.kind == "managed":
            for g in range(self.gpus):
                if ((a.where & gpu_bit(g)) != 0).any() or ((a.mapped & gpu_bit(g)) != 0).any():
                    self._defer(g, "unmap_flush_latency")
        # work in flight on it no longer needs its pages: drop those references now, so the
        # allocation's bytes go when the last view of them goes, not at the next synchronize
        for k in self.inflight:
            if any(acc.alloc is a for acc in k.accesses):
                k.accesses = [acc for acc in k.accesses if acc.alloc is not a]
        if self._watches:
            self._watches = [w for w in self._watches if w[1] is not a]
        # the host's time in the free call: unmapping and releasing the range (profile
        # free_managed / free_device / free_pinned_per_mib; 0 where the profile has none)
        self.now += self.profile.host_op("free_" + a.kind) if a.kind != "pinned" else \
            self.profile.host_op("free_pinned_per_mib") * max(1.0, a.nbytes / 2**20)
        self._log("free", "kmd" if a.kind != "managed" or a.where.any() else "umd")
        return a

    def _defer(self, g: int, key: str) -> None:
        """Leave ``key``'s deferred page-table work (profile seconds; none where absent) for
        GPU ``g``'s next operation."""
        t = self.profile.p.get(key, 0.0)
        if t > 0:
            f = self._flush.setdefault(g, {})
            f[key] = t

    def _take_flush(self, g: int) -> float:
        """The deferred work GPU ``g`` does before its next operation, now done: each pending
        kind once (any number of frees is one unmapping flush, any number of allocations one
        mapping flush)."""
        f = self._flush.pop(g, None)
        return sum(f.values()) if f else 0.0

    @locked
    def device_bytes(self, g: int) -> int:
        """VRAM of GPU ``g`` held by device allocations (the part nothing can evict)."""
        return sum(a.npages * a.host_page for a in self.allocs.values()
                   if a.kind == "device" and a.device == g)

    @locked
    def gpu_resident_bytes(self, g: int) -> int:
        bit = gpu_bit(g)
        return sum(a.resident_bytes(bit) for a in self.allocs.values())

    # -- moving pages ----------------------------------------------------------------------------
    def _move(self, a: Allocation, pages: np.ndarray, dest: int, dup: bool) -> tuple[int, int, int]:
        """Make ``pages`` resident at ``dest`` (device id or CPU_ID).  Returns bytes moved
        (h2d, d2h, peer); unpopulated pages are populated in place (no bytes)."""
        if pages.size == 0:
            return 0, 0, 0
        hp, bit = a.host_page, loc_bit(dest)
        ix = as_index(pages)
        w = a.where[ix]
        populated = w != 0
        from_cpu = populated & ((w & CPU_BIT) != 0)
        n_pop, n_cpu = int(populated.sum()), int(from_cpu.sum())
        h2d = d2h = peer = 0
        if dest == CPU_ID:
            d2h = n_pop * hp
        else:
            h2d, peer = n_cpu * hp, (n_pop - n_cpu) * hp
        a.where[ix] = (w | bit) if dup else bit
        a.cpu_unmapped[ix] = False          # (a prefetch to the CPU sets it again after this)
        if dup:
            self.counters["duplicates"] += n_pop
        if dest != CPU_ID:
            a.cpu_dirty[ix] = False
            regions = uniq_div(pages, a.pages_per_region)
            a.region_stamp[regions] = self.now
        self.counters["bytes_h2d"] += h2d
        self.counters["bytes_d2h"] += d2h
        self.counters["bytes_peer"] += peer
        return h2d, d2h, peer

    def _make_room(self, g: int, incoming: int, protect: set) -> float:
        """Evict least-recently-migrated 2 MiB regions of GPU ``g`` to the CPU until
        ``incoming`` bytes fit in VRAM.  Returns the time spent."""
        p, bit = self.profile, gpu_bit(g)
        over = self.gpu_resident_bytes(g) + incoming - p.vram
        self._shortfall = 0
        if over <= 0:
            return 0.0
        cands = []
        for a in self.allocs.values():
            if a.kind != "managed":
                continue
            on = (a.where & bit) != 0
            if not on.any():
                continue
            reg = uniq(np.nonzero(on)[0] // a.pages_per_region)
            cands.extend((a.region_stamp[r], a.ptr, int(r)) for r in reg
                         if (a.ptr, int(r)) not in protect)
        cands.sort()
        t = 0.0
        for _, ptr, r in cands:
            if over <= 0:
                break
            a = self.allocs[ptr]
            lo = r * a.pages_per_region
            pages = np.arange(lo, min(lo + a.pages_per_region, a.npages))
            pages = pages[(a.where[pages] & bit) != 0]
            w = a.where[pages]
            only_here = (w & ~bit) == 0
            moved = int(only_here.sum()) * a.host_page
            a.where[pages] = np.where(only_here, CPU_BIT, w & ~bit)
            over -= pages.size * a.host_page
            self.counters["evictions"] += 1
            self.counters["evicted_bytes"] += moved
            self.counters["bytes_d2h"] += moved
            t += moved / p.prefetch_d2h_bw
            self._log("evict", "kmd", f"region {r} of {ptr:#x} -> cpu", bytes=moved)
        self._shortfall = max(0, int(over))  # bytes that still don't fit (VRAM is device memory)
        return t

    def _fit(self, a: Allocation, pages: np.ndarray) -> np.ndarray:
        """The leading part of ``pages`` that fits after the last :meth:`_make_room`."""
        if not self._shortfall:
            return pages
        return pages[:max(0, pages.size - -(-self._shortfall // a.host_page))]

    # -- GPU access (a kernel) -----------------------------------------------------------------------
    def _count_faults(self, a: Allocation, pages: np.ndarray) -> tuple[int, int]:
        """(faults, regions) for a GPU touching ``pages``: one fault per fault_granularity."""
        fg = max(1, self.profile.fault_granularity // a.host_page)
        nf = pages.size if fg == 1 else nuniq_div(pages, fg)
        return nf, nuniq_div(pages, a.pages_per_region)

    def _charge_faults(self, a: Allocation, pages: np.ndarray, nbytes: int,
                       copying: np.ndarray | None = None) -> float:
        """Count and cost GPU faults on ``pages``; ``copying`` marks the ones that only copy
        (read-mostly duplicates), which don't unmap the page from the CPU."""
        nf, nr = self._count_faults(a, pages)
        moving = nf if copying is None else self._count_faults(a, pages[~copying])[0]
        self.counters["gpu_faults"] += nf
        # the first GPU fault in an address range (a large allocation, or an arena of small
        # ones) since it was created sets the range up for that GPU: fault_range_latency
        new_range = 0
        ar, g = a.range, self._fault_gpu
        if nf and ar is not None and g not in ar.faulted:
            ar.faulted.add(g)
            new_range = 1
        if self._kfaults is not None:
            # inside a kernel: its faults on every allocation share the fault batches (the
            # fault buffer is per GPU); gpu_access charges them once, at the end
            k = self._kfaults
            k[0] += nf
            k[1] += nr
            k[2] += nbytes
            k[3] += moving
            k[4] += new_range
            if nf:
                k[5] = max(k[5], min(nf, math.ceil(self._passes)))
            return 0.0
        self.counters["fault_batches"] += -(-nf // self.profile.fault_batch_max)
        return self.profile.fault_cost(nf, nr, nbytes, moving) \
            + new_range * self.profile.host_op("fault_range_latency")

    @locked
    def gpu_access(self, accesses: list[Access], g: int, flops: float = 0.0,
                   start: float | None = None) -> float:
        """Cost of one kernel on GPU ``g`` touching ``accesses``; updates residency.
        ``flops``: its declared arithmetic -- the kernel takes max(memory time, flops / the
        profile's compute rate) after its faults."""
        p, bit, c, pol = self.profile, gpu_bit(g), self.counters, self.policy
        t_fault = t_stream = t_remote = t_extra = 0.0
        # faults, regions, bytes, moving faults (all arrays), new ranges, fault waves
        self._kfaults = [0, 0, 0, 0, 0, 1]
        self._fault_gpu = g
        try:
            t_fault = self._gpu_touch(accesses, g, bit)
            t_stream, t_remote, t_extra = self._t
        finally:
            nf, nr, nbytes, moving, new_ranges, waves = self._kfaults
            self._kfaults = None
        if nf:
            # a kernel that walks its inputs several times (a tiled matrix multiply reaches
            # each new strip of B on its next pass) faults in that many waves: each wave is a
            # fault batch of its own, serviced and replayed before the warps go on
            batches = max(-(-nf // p.fault_batch_max), waves)
            c["fault_batches"] += batches
            t_fault += p.fault_cost(nf, nr, nbytes, moving, min_batches=waves) \
                + new_ranges * p.host_op("fault_range_latency")
            # a kernel that starts on an idle GPU wakes the driver's fault service with its
            # first fault (fault_wakeup_latency); kernels queued back to back behind it find
            # the service awake
            queued = start is not None and start > self.now
            if not queued:
                t_fault += p.p.get("fault_wakeup_latency", 0.0)
        t_mem = t_stream + t_remote
        rate = p.p.get("fp32_flops")
        if flops and rate:
            t_mem = max(t_mem, flops / rate)
        return p.kernel_launch + t_fault + t_mem + t_extra

    def _gpu_touch(self, accesses: list[Access], g: int, bit) -> float:
        """The accesses of one kernel: residency changes, fault counts (into ``_kfaults``),
        the time of what is not a fault batch; streaming times go to ``self._t``."""
        p, c, pol = self.profile, self.counters, self.policy
        t_fault = t_stream = t_remote = t_extra = 0.0
        link = [0, 0]           # bytes over the link to host memory: GPU reads, GPU writes
        for acc in accesses:
            a, pages = acc.alloc, acc.pages
            if pages.size == 0:
                continue
            self._passes = acc.passes
            per_page = acc.nbytes / pages.size
            if a.kind == "device":
                if a.device != g:
                    t_remote += acc.nbytes / p.peer_bw
                else:
                    t_stream += acc.nbytes / p.hbm_bw
                continue
            if a.kind == "pinned" or not pol.gpu_faults:
                # pinned memory, or managed memory with XNACK off: no GPU faults; pages stay
                # where they are and the GPU reads host pages over the link (an explicit
                # prefetch can still move pages to the GPU, which then reads them locally)
                fresh = pages[a.where[pages] == 0]
                if fresh.size:                      # first touch populates host memory
                    a.where[fresh] = CPU_BIT
                    c["first_touch_pages"] += fresh.size
                local = np.count_nonzero(a.where[pages] & bit) if a.kind == "managed" else 0
                rb = int(acc.nbytes * (pages.size - local) / pages.size)
                c["remote_bytes"] += rb
                self._link(link, acc, rb)
                t_stream += (acc.nbytes - rb) / p.hbm_bw
                continue
            if pol.one_memory:
                fresh = pages[a.where[pages] == 0]
                if fresh.size:
                    a.where[fresh] = CPU_BIT | bit
                    c["first_touch_pages"] += fresh.size
                    t_extra += p.map_cost_per_mib * fresh.size * a.host_page / 2**20
                    self._log("map", "kmd", f"{fresh.size} pages mapped for GPU{g}")
                t_stream += acc.nbytes / p.hbm_bw
                continue
            # -- migrate mode: the §3.2 paragraph -------------------------------------------
            ix = as_index(pages)                  # (a slice where the pages are one run)
            w = a.where[ix].copy()
            resident = (w & bit) != 0
            if pol.accessed_by == "mapped":       # NVIDIA: the mapping exists, no fault
                # accessed-by maps *host* pages for this GPU; pages on another GPU fault across
                # (2x H200, issue 11: accessed-by toward the peer GPU did not stop the faults)
                remote = ~resident & ((a.accessed_by[ix] & bit) != 0) & ((w & CPU_BIT) != 0) \
                    & ~a.read_mostly[ix]
                remote |= ~resident & ((a.mapped[ix] & bit) != 0)
                prefer_cpu = ~resident & ~remote & (a.preferred[ix] == CPU_ID) & (w != 0) \
                    & ~a.read_mostly[ix]
            else:                                 # AMD: the fault decides where to map
                remote = ~resident & ((a.mapped[ix] & bit) != 0)
                prefer_cpu = self._in_place_on_fault(a, pages, w, resident, remote, bit)
            if prefer_cpu.any():            # fault once, then map remotely (no migration)
                pc = pages[prefer_cpu]
                t_fault += self._charge_faults(a, pc, 0)
                a.mapped[pc] |= bit
                remote |= prefer_cpu
                fresh = pc[a.where[pc] == 0]     # (AMD) never-touched pages: created on the CPU
                if fresh.size:
                    a.where[fresh] = CPU_BIT
                    c["first_touch_pages"] += fresh.size
                self._log("fault_map_remote", "kmd", f"{pc.size} pages mapped to CPU memory")
            if remote.any():
                rb = int(per_page * remote.sum())
                c["remote_bytes"] += rb
                self._link(link, acc, rb)
            need = pages[~resident & ~remote]
            # writes to duplicated (read-mostly) pages invalidate the other copies
            if acc.write and pol.read_mostly_duplicates:
                dup = pages[resident & ((w & ~bit) != 0)]
                if dup.size:
                    a.where[dup] = bit
                    c["invalidations"] += dup.size
                    t_fault += self._charge_faults(a, dup, 0)
                    self._log("invalidate", "kmd", f"{dup.size} read-mostly copies dropped")
            if need.size:
                t_fault += self._fault_in(a, need, g, acc.write)
            dup_bw = p.p.get("dup_read_bw")
            if dup_bw and not acc.write and pol.read_mostly_duplicates and a.read_mostly[pages].any():
                # read-mostly duplicates are mapped page by page, not in the large pages device
                # memory gets: the GPU reads them at dup_read_bw
                w2 = a.where[pages]
                frac = np.count_nonzero(((w2 & bit) != 0) & ((w2 & ~bit) != 0)) / pages.size
                t_stream += acc.nbytes * (frac / dup_bw + (1 - frac) / p.hbm_bw)
            else:
                t_stream += acc.nbytes / p.hbm_bw
        t_remote += p.link_cost(*link)
        self._t = (t_stream, t_remote, t_extra)
        return t_fault

    @staticmethod
    def _link(link: list, acc: Access, rb: int):
        """Split ``rb`` remote bytes of ``acc`` into the link's two directions."""
        wb = int(rb * acc.written_bytes / acc.nbytes) if acc.nbytes else 0
        link[0] += rb - wb
        link[1] += wb

    def _in_place_on_fault(self, a: Allocation, pages, w, resident, remote, bit) -> np.ndarray:
        """AMD (amdkfd svm_range_best_restore_location): which non-resident pages a GPU fault
        maps where they are instead of migrating -- pages on a range whose preferred location is
        the CPU, or whose ACCESS_IN_PLACE bitmap holds this GPU and that sit in CPU memory (or
        are not populated yet: they are created in CPU memory).  Read-mostly changes nothing."""
        on_gpu_elsewhere = (w != 0) & ((w & CPU_BIT) == 0)
        aip = ((a.accessed_by[pages] & bit) != 0) & ~on_gpu_elsewhere
        pref = a.preferred[pages] == CPU_ID
        if not self.policy.preferred_cpu_new_pages_on_cpu:
            pref &= w != 0
        return ~resident & ~remote & (aip | pref)

    def _dup(self, a: Allocation, pages: np.ndarray, write: bool) -> np.ndarray:
        """Which of ``pages`` a read would duplicate (read-mostly advice) instead of moving."""
        if not self.policy.read_mostly_duplicates or write:
            return np.zeros(pages.size, dtype=bool)
        return a.read_mostly[as_index(pages)].copy()

    def _fault_in(self, a: Allocation, need: np.ndarray, g: int, write: bool) -> float:
        """GPU faults on ``need`` pages: batches, migration of gpu_page blocks, the density
        prefetcher, eviction when VRAM is full."""
        p, c = self.profile, self.counters
        ppb = max(1, p.gpu_page // a.host_page)
        blocks = uniq_div(need, ppb)
        t_split = 0.0
        split, dirty_cost = p.p.get("fault_split_latency"), p.p.get("dirty_refault_latency")
        dirty_cost = dirty_cost if dirty_cost and a.cpu_dirty[need].any() else 0.0
        if split or dirty_cost:
            # the 2 MiB regions the GPU already holds other pages of (the CPU took some back)
            ppr = a.pages_per_region
            on = np.zeros(a.nregions * ppr, dtype=bool)
            on[:a.npages] = (a.where & gpu_bit(g)) != 0
            held = on.reshape(a.nregions, ppr).any(axis=1)
            if split:
                # each such region's mapping is rebuilt around the returning pages
                t_split = int(np.count_nonzero(held[uniq_div(need, ppr)])) * p.fault_split_latency
            if dirty_cost:
                # pages a CPU fault took back from this GPU and the CPU then wrote, returning
                # into such a region, cost dirty_refault_latency each on the fault path
                # (measured, fit_probe 'edits' and 'loop' on the H200: the fault-back of such
                # pages grows by ~0.13 ms per MiB where a prefetch of the same pages does not,
                # and pages the CPU only read come back at the ordinary rate, fit_probe
                # 'pingpong'; which driver step costs this is not identified)
                dirty = need[a.cpu_dirty[need] & held[need // ppr] & ~self._dup(a, need, write)]
                t_split += dirty.size * dirty_cost
        # migrate whole gpu_page blocks (the GPU's migration granularity)
        if contiguous(blocks):
            pages = np.arange(int(blocks[0]) * ppb, min((int(blocks[-1]) + 1) * ppb, a.npages))
        else:
            pages = (blocks[:, None] * ppb + np.arange(ppb)[None, :]).ravel()
            pages = pages[pages < a.npages]
        pages = pages[(a.where[as_index(pages)] & gpu_bit(g)) == 0]
        dup = self._dup(a, pages, write)
        any_dup = bool(dup.any())
        t = 0.0
        chunk_pages = max(a.pages_per_region, int(p.vram // a.host_page // 4))
        moved = 0
        for lo in range(0, pages.size, chunk_pages):
            chunk, cdup = pages[lo:lo + chunk_pages], dup[lo:lo + chunk_pages]
            protect = {(a.ptr, int(r)) for r in uniq_div(chunk, a.pages_per_region)}
            t += self._make_room(g, chunk.size * a.host_page, protect)
            fit = self._fit(a, chunk)
            if fit.size < chunk.size:
                # VRAM is full of device memory: the pages that don't fit stay in system
                # memory and the GPU reads them over the link (amdkfd: svm_range_restore_pages
                # "falling back to system memory"; NVIDIA UVM likewise maps them remotely)
                rest = chunk[fit.size:]
                fresh = rest[a.where[rest] == 0]
                a.where[fresh] = CPU_BIT
                a.mapped[rest] |= gpu_bit(g)
                rb = rest.size * a.host_page
                c["remote_bytes"] += rb
                t += p.remote_cost(rb)
                self._log("vram_full", "kmd", f"{rest.size} pages left in system memory and "
                          f"mapped for GPU{g}: VRAM is held by device memory", bytes=rb)
                chunk, cdup = fit, cdup[:fit.size]
            if any_dup:
                h1, _, pe1 = self._move(a, chunk[cdup], g, dup=True)
                h2, _, pe2 = self._move(a, chunk[~cdup], g, dup=False)
            else:
                (h1, _, pe1), (h2, _, pe2) = (0, 0, 0), self._move(a, chunk, g, dup=False)
            moved += h1 + h2
            t += (pe1 + pe2) / p.peer_bw
        f0 = c["gpu_faults"]
        copying = self._dup(a, need, write)
        t += self._charge_faults(a, need, moved, copying if copying.any() else None)
        lost = need[a.dup_lost[need]] if a.dup_lost.any() else need[:0]
        if lost.size:
            # read-mostly pages whose GPU copy a CPU write invalidated come back one host page
            # per fault (the write split the GPU's big-page mapping), each at
            # dup_refault_latency on top of the fault batch
            t += lost.size * p.host_op("dup_refault_latency")
            a.dup_lost[lost] = False
        nf = c["gpu_faults"] - f0
        batches = -(-nf // p.fault_batch_max)
        self._log("fault_batch", "kmd", f"{nf} faults (~{batches} batches), "
                  f"{moved} B migrated to GPU{g}", faults=nf, batches=batches, bytes=moved)
        if self.prefetcher and self.policy.density_prefetcher:
            t += self._tree_prefetch(a, need, g)
        return t + t_split

    def _block_segments(self, blk: int):
        """The managed allocations overlapping absolute 2 MiB VA block ``blk``: (allocation,
        first page in it, first leaf, number of pages)."""
        p = self.profile
        lo_b, hi_b = blk * p.region, (blk + 1) * p.region
        i = max(0, bisect.bisect_right(self._starts, lo_b) - 1)
        out = []
        while i < len(self._starts) and self._starts[i] < hi_b:
            b = self.allocs[self._starts[i]]
            i += 1
            if b.kind != "managed" or b.ptr + b.npages * b.host_page <= lo_b:
                continue
            first = max(lo_b, b.ptr)
            last = min(hi_b, b.ptr + b.npages * b.host_page)
            out.append((b, (first - b.ptr) // b.host_page, (first - lo_b) // b.host_page,
                        (last - first) // b.host_page))
        return out

    def _tree_prefetch(self, a: Allocation, faulted: np.ndarray, g: int) -> float:
        """NVIDIA UVM's prefetcher (kernel-open/nvidia-uvm/uvm_perf_prefetch.c,
        uvm_perf_prefetch_prenotify_fault_migrations): per 2 MiB VA block, a bitmap tree over
        its 4 KiB pages holds the pages resident on the faulting GPU plus the faulted ones,
        grown to whole 64 KiB big pages (grow_fault_granularity); for each faulted page,
        compute_prefetch_region walks from the leaf up and keeps the largest subregion whose
        count is > 51% of its pages; those subregions are migrated too.  A VA block may hold
        several small allocations (packed in one arena): the prefetch then brings neighbours."""
        p, bit = self.profile, loc_bit(g)
        to_cpu = g == CPU_ID
        hp = a.host_page
        leaves = p.region // hp
        big = max(1, BIG_PAGE // hp)
        base = a.ptr // hp
        if faulted.size == 0:
            return 0.0
        if contiguous(faulted):
            # one run of pages (a whole-array access): its VA blocks by arithmetic
            first, last = base + int(faulted[0]), base + int(faulted[-1])
            spans = [(max(first, b * leaves), min(last, (b + 1) * leaves - 1))
                     for b in range(first // leaves, last // leaves + 1)]
            groups = [(lo - first, hi - first + 1, lo // leaves) for lo, hi in spans]
            abs_pages = None
        else:                       # (``faulted`` comes sorted: pages of a sorted access)
            abs_pages = base + faulted.astype(np.int64)
            blks = abs_pages // leaves
            if abs_pages[0] // leaves == abs_pages[-1] // leaves:
                groups = [(0, abs_pages.size, int(blks[0]))]
            else:
                cuts = (np.flatnonzero(np.diff(blks)) + 1).tolist()
                groups = [(lo, hi, int(blks[lo])) for lo, hi in
                          zip([0] + cuts, cuts + [int(blks.size)])]
        t = 0.0
        for lo_i, hi_i, blk in groups:
            if hi_i - lo_i == leaves:
                continue                    # the whole block faulted: nothing left to prefetch
            if abs_pages is None:
                f0 = first + lo_i - blk * leaves
                f = np.arange(f0, f0 + hi_i - lo_i, dtype=np.intp)
            else:
                f = (abs_pages[lo_i:hi_i] - blk * leaves).astype(np.intp)
            segs = self._block_segments(blk)
            tree = np.zeros(leaves, dtype=bool)
            for b, pg0, leaf0, n in segs:
                tree[leaf0:leaf0 + n] = (b.where[pg0:pg0 + n] & bit) != 0
            tree[f] = True
            grown = np.unique(f // big)
            tree.reshape(-1, big)[grown] = True
            if tree.all():
                continue                    # every page is resident or faulted: nothing more
            # compute_prefetch_region for each faulted page: its largest ancestor subregion
            # with more than 51% of its pages counted.  Every faulted page's 64 KiB big page is
            # full (grown), so only the levels from one big page up can widen the region: they
            # are walked over per-big-page counts (a 2 MiB block has 32), in plain Python
            bp = tree.reshape(-1, big).sum(axis=1).tolist()
            pre = [0]
            for c_ in bp:
                pre.append(pre[-1] + c_)
            nbp = len(bp)
            want = np.zeros(leaves, dtype=bool)
            for j in sorted(set((f // big).tolist())):
                best, k = None, 1
                while k <= nbp:
                    lo = (j // k) * k
                    if (pre[lo + k] - pre[lo]) * 100 > k * big * PREFETCH_THRESHOLD:
                        best = lo
                        best_k = k
                    k *= 2
                if best is not None:
                    want[best * big:(best + best_k) * big] = True
            want[f] = False
            if not want.any():
                continue
            for b, pg0, leaf0, n in segs:
                sel = np.nonzero(want[leaf0:leaf0 + n])[0] + pg0
                if to_cpu:
                    # toward the CPU: only pages that live on a GPU alone (populated, no CPU copy)
                    w = b.where[sel]
                    sel = sel[(w != 0) & ((w & CPU_BIT) == 0)]
                else:
                    sel = sel[((b.where[sel] & bit) == 0) & ((b.accessed_by[sel] & bit) == 0)]
                if sel.size == 0:
                    continue
                if to_cpu:
                    dup = self._dup(b, sel, False)
                    _, d1, _ = self._move(b, sel[dup], CPU_ID, dup=True)
                    _, d2, _ = self._move(b, sel[~dup], CPU_ID, dup=False)
                    self.counters["prefetcher_bytes"] += d1 + d2
                    t += (d1 + d2) / p.cpu_fault_bw
                    self._log("density_prefetch", "kmd", f"VA block {int(blk)}: +{sel.size} "
                              "pages to the CPU", bytes=d1 + d2)
                    continue
                t += self._make_room(g, sel.size * hp, {(b.ptr, int(r)) for r in
                                                         uniq_div(sel, b.pages_per_region)})
                sel = self._fit(b, sel)
                if sel.size == 0:
                    continue
                dup = self._dup(b, sel, False)
                h1, _, pe1 = self._move(b, sel[dup], g, dup=True)
                h2, _, pe2 = self._move(b, sel[~dup], g, dup=False)
                h, pe = h1 + h2, pe1 + pe2
                self.counters["prefetcher_bytes"] += h + pe
                t += h / p.fault_bw + pe / p.peer_bw
                self._log("density_prefetch", "kmd", f"VA block {int(blk)}: +{sel.size} pages",
                          bytes=h + pe)
        return t

    # -- host access ---------------------------------------------------------------------------------
    @locked
    def cpu_access(self, accesses: list[Access], where: str = "host", streaming: bool = False) -> float:
        """The CPU touches ``accesses`` now.  Flags races, charges CPU faults, advances time.
        ``streaming``: memset/memcpy-like work (fills, copies), not arithmetic over the data."""
        p, c, pol = self.profile, self.counters, self.policy
        if self._watches:
            self._check_watches()
        self._check_races(accesses, where)
        # the host's own time for one NumPy call on a view (dispatch, not bytes)
        t = p.host_op("host_call_latency") if any(acc.pages.size for acc in accesses) else 0.0
        for acc in accesses:
            a, pages = acc.alloc, acc.pages
            if pages.size == 0:
                continue
            if a.kind == "device":
                t += self._cpu_reads_device_memory(acc)
                continue
            w = a.where[pages]
            fresh = pages[w == 0]
            if fresh.size:
                # APU: one memory, so a CPU-touched page is also visible to GPU 0
                a.where[fresh] = (CPU_BIT | gpu_bit(0)) if pol.one_memory else CPU_BIT
                c["first_touch_pages"] += fresh.size
                t += fresh.size * (p.first_touch_latency + a.host_page / p.host_mem_bw)
                self._log("first_touch", "kmd", f"{fresh.size} fresh pages zero-filled on CPU")
            if a.kind == "managed" and acc.write and a.cpu_unmapped.any():
                # pages a prefetch brought back: the CPU reads them at the resident rate, but its
                # first write to each 4 KiB page costs cpu_map_latency (measured, fit_probe
                # 'cycles': writes ~2x a resident page's, reads the same)
                um = pages[a.cpu_unmapped[pages]]
                if um.size:
                    a.cpu_unmapped[um] = False
                    t += um.size * p.host_op("cpu_map_latency")
            fetched = 0                 # touched pages that arrive by migration just now
            if a.kind == "managed" and pol.cpu_touch_of_gpu_pages == "migrate_block":
                # The CPU cannot read GPU memory in place over PCIe (measured on the H200:
                # DirectManagedMemAccessFromHost = 0, and accessed-by-CPU advice did not stop
                # the migrations): GPU-only pages fault back, whatever the advice says.
                on_gpu_only = (w != 0) & ((w & CPU_BIT) == 0)
                need = pages[on_gpu_only]
                fetched = need.size
                if need.size:
                    # one CPU fault per gpu_page block; the whole block comes back
                    ppb = max(1, p.gpu_page // a.host_page)
                    blocks = uniq_div(need, ppb)
                    def back(blocks):
                        if blocks.size == 1:
                            lo = int(blocks[0]) * ppb
                            blk = np.arange(lo, min(lo + ppb, a.npages))
                        else:
                            blk = (blocks[:, None] * ppb + np.arange(ppb)[None, :]).ravel()
                            blk = blk[blk < a.npages]
                        wb = a.where[blk]
                        blk = blk[(wb != 0) & ((wb & CPU_BIT) == 0)]
                        dup = self._dup(a, blk, acc.write)
                        _, d1, _ = self._move(a, blk[dup], CPU_ID, dup=True)
                        _, d2, _ = self._move(a, blk[~dup], CPU_ID, dup=False)
                        return d1 + d2
                    t_pf, moved = 0.0, 0
                    if self.prefetcher and pol.density_prefetcher:
                        # the CPU faults one block at a time, and the prefetcher answers each
                        # fault before the next: blocks it brought along fault no more
                        faulted = []
                        for bk in blocks:
                            lo = int(bk) * ppb
                            wb = a.where[lo:min(lo + ppb, a.npages)]
                            if not ((wb != 0) & ((wb & CPU_BIT) == 0)).any():
                                continue
                            faulted.append(bk)
                            moved += back(np.array([bk], dtype=np.intp))
                            t_pf += self._tree_prefetch(a, np.arange(lo, min(lo + ppb, a.npages)),
                                                        CPU_ID)
                        blocks = np.array(faulted, dtype=np.intp)
                    else:
                        moved = back(blocks)
                    nr = uniq(blocks * ppb // a.pages_per_region).size
                    c["cpu_faults"] += blocks.size
                    t += p.cpu_fault_cost(blocks.size, nr, moved) + t_pf
                    self._log("cpu_fault", "kmd", f"{blocks.size} CPU faults, {moved} B "
                              "migrated to CPU", faults=int(blocks.size))
                if acc.write and need.size:
                    # written right after a CPU fault took them back: see _fault_in
                    a.cpu_dirty[need] = True
                if acc.write:
                    both = pages[((a.where[pages] & CPU_BIT) != 0) & ((a.where[pages] & ~CPU_BIT) != 0)]
                    if both.size:
                        a.where[both] = CPU_BIT
                        # the GPU's copies of exactly these host pages are gone: a later GPU
                        # read duplicates them again page by page (see _fault_in)
                        a.dup_lost[both] = True
                        c["invalidations"] += both.size
                        t += both.size * p.cpu_fault_latency
            # pages that just arrived were copied in one gpu_page block at a time, right before
            # the CPU's access resumed: they are in the CPU's cache (span of one block); the
            # rest streams at the host's rate for an access of this working set (cache or DRAM)
            arrived = acc.nbytes * fetched / pages.size
            t += arrived / p.host_rate(streaming, p.gpu_page) + (acc.nbytes - arrived) / \
                p.host_rate(streaming, self._host_span(a, pages.size * a.host_page))
        self.now += t
        return t

    def _host_span(self, a: Allocation, span: int) -> float:
        """The working set a CPU access of ``span`` bytes of ``a`` runs in, for the cache test
        of :meth:`Profile.host_rate`: its own bytes plus the bytes of the other allocations
        the CPU has touched since it last touched ``a`` (an LRU cache of ``host_cache_bytes``:
        data stays cached until that much other data has been touched).  The first access to
        an allocation counts its own span only; one whose last access has aged out of the
        bookkeeping is out of the cache.  Records this access.

        Fit data behind it (umkit team, lent NVIDIA H200, 2026-12-01): the host sweep's single
        buffers run at cache rates up to 16 MiB and fill at DRAM rate at 32 MiB (small_bench,
        fit_probe 'host', run 14), while fit_probe 'cycles' (run 23) summed a 6 MiB pinned
        buffer at cache rate after two other 6 MiB buffers were written: 18 MiB touched
        between two uses.  Bytes the GPU or a DMA engine writes to host memory are not
        counted."""
        lru, cache = self._host_lru, self.profile.p.get("host_cache_bytes")
        ptr = a.ptr
        if cache is None:
            dist = span
        elif ptr in lru:
            dist = span
            for other in reversed(lru):
                if other == ptr or dist > cache:
                    break
                dist += lru[other]
        else:
            dist = math.inf if a.host_seen else span
        a.host_seen = True
        lru[ptr] = span
        lru.move_to_end(ptr)
        if cache is not None and len(lru) > 32:
            # forget what lies more than a cache's worth of bytes back: it is out of the cache
            acc, drop = 0, []
            for other in reversed(lru):
                if acc > cache:
                    drop.append(other)
                acc += lru[other]
            for other in drop:
                del lru[other]
        return dist

    def _cpu_reads_device_memory(self, acc: Access) -> float:
        """The CPU dereferences device (hipMalloc) memory: refused where the vendor refuses it
        (CUDA), zero copy over the link on AMD discrete GPUs, local on the APU (policy rule
        ``device_memory_cpu_access``)."""
        how = self.policy.device_memory_cpu_access
        if how is None:
            raise InvalidArgument(
                "device memory (cudaMalloc/hipMalloc) is not accessible from the CPU on this "
                f"profile ({self.profile.name})",
                hint="copy it with umkit.read_back(arr), or allocate managed/pinned memory")
        if how == "local":
            return acc.nbytes / self.profile.host_mem_bw
        self.counters["remote_bytes"] += acc.nbytes
        return self.profile.remote_cost(acc.nbytes)

    @staticmethod
    def _overlap(x: Access, y: Access):
        """Pages both accesses touch, or None."""
        if x.alloc is not y.alloc or x.pages.size == 0 or y.pages.size == 0:
            return None
        if x.pages[-1] < y.pages[0] or y.pages[-1] < x.pages[0]:
            return None
        both = np.intersect1d(x.pages, y.pages, assume_unique=True)
        return both if both.size else None

    def _flag(self, k: InFlight, ka: Access, alloc: Allocation, both: np.ndarray, write: bool,
              who: str, hint: str, **extra):
        """Record and report one race between ``k`` (in flight) and an access by ``who``."""
        hp = alloc.host_page
        info = dict(kernel=k.name, stream=k.stream, ptr=alloc.ptr,
                    bytes=(int(both[0]) * hp, int(both[-1] + 1) * hp),
                    host_write=write, kernel_write=ka.write, kernel_end=k.end, t=self.now,
                    **extra)
        self.races_seen += 1
        if len(self.races) < RACE_EXAMPLES:     # the first examples; every race is counted
            self.races.append(info)
        if alloc.ptr not in k.flagged:      # one race per (op in flight, allocation)
            k.flagged.add(alloc.ptr)
            self.counters["race_flags"] += 1
        what = "" if who.startswith("'") else "kernel "     # GPU-GPU names both ops itself
        msg = (f"race: {who} {'writes' if write else 'reads'} bytes "
               f"[{info['bytes'][0]:#x}, {info['bytes'][1]:#x}) of allocation "
               f"{alloc.ptr:#x} while {what}'{k.name}' on stream {k.stream} "
               f"may still {'write' if ka.write else 'read'} them (it ends at "
               f"{k.end * 1e3:.3f} ms, now {self.now * 1e3:.3f} ms)")
        if self.strict:
            raise RaceDetected(msg, hint=hint)
        warnings.warn(f"{msg}. Fix: {hint}", RaceWarning, stacklevel=5)

    _HOST_HINT = ("synchronize first: stream.synchronize() or event.synchronize() "
                  "(article §3.3); without it the result is wrong with no error (§5.1)")

    def _check_races(self, accesses: list[Access], where: str):
        """Host accesses now against GPU work in flight: a race when either side writes."""
        self._live_work()
        for k in self.inflight:
            for ka in k.accesses:
                for ha in accesses:
                    if not (ka.write or ha.write):
                        continue
                    both = self._overlap(ka, ha)
                    if both is not None:
                        self._flag(k, ka, ha.alloc, both, ha.write, where, self._HOST_HINT)

    def _check_gpu_races(self, op: InFlight):
        """GPU work on one stream against work on another stream that overlaps it in time, or
        that had not finished when this work was submitted: two streams are unordered (unless
        one is the legacy default stream, which orders itself against the others), so a write
        on either side is a race -- whatever the model's timing happened to be."""
        for k in self.inflight:
            if k.stream == op.stream or k.default or op.default:
                continue
            if (k.end <= op.start or op.end <= k.start) and k.end <= self.now:
                continue
            for ka in k.accesses:
                for oa in op.accesses:
                    if not (ka.write or oa.write) or (ka.atomic and oa.atomic):
                        continue
                    both = self._overlap(ka, oa)
                    if both is not None:
                        self._flag(k, ka, oa.alloc, both, oa.write,
                                   f"'{op.name}' on stream {op.stream}",
                                   "order the two streams: put both on one stream, or wait "
                                   "for the first (stream.synchronize(), or an event recorded "
                                   "on it) before starting the second (article §3.3)",
                                   other=op.name, other_stream=op.stream)

    @locked
    def host_handout(self, alloc: Allocation, pages: np.ndarray, use=lambda: "unknown"):
        """A host view of ``pages`` is being handed out.  NumPy's C paths (``np.array(v)``,
        ``bytes(v)``, ``memoryview(v)``, ``rng.random(out=v)``) read and write it without any
        hook, so check here: GPU work in flight that *writes* these pages races any host use of
        them; for work that only *reads* them, remember the bytes, and a change found at the
        next engine call (while that work is still in flight) is a host write race.

        ``use()`` says what the code does with the view (:func:`views.next_use`): indexed or
        a method called (``a.host[i] = v``, ``a.host.sum()``) -- those paths are checked
        precisely, nothing to do here; stored (``h = a.host``) -- not used yet."""
        if self._watches:
            self._check_watches()
        self._live_work()
        view = Access(alloc, pages, False, 0)
        how = None
        if not alloc.kept:
            how = use()
            if how == "kept":           # h = a.host: work launched later is watched for it
                alloc.kept = True
        for k in self.inflight:
            for ka in k.accesses:
                both = self._overlap(ka, view)
                if both is None:
                    continue
                how = how or use()
                if how == "tracked" or (how == "kept" and ka.write):
                    continue
                if ka.write:
                    self._flag(k, ka, alloc, both, False, "the host (a.host, handed out now)",
                               self._HOST_HINT + "; take a.host only after the wait")
                else:
                    hp = alloc.host_page
                    lo, hi = int(both[0]) * hp, min(int(both[-1] + 1) * hp, alloc.nbytes)
                    self._watches.append((k, alloc, lo, alloc.data[lo:hi].copy(), ka))

    @locked
    def device_writes(self, accesses, apply) -> None:
        """Run ``apply``: a kernel's or a copy's effect on the bytes (the model's data is real).
        The host-write watches must not take those bytes for the host's: they are compared
        before and remembered again after."""
        if self._watches:
            self._check_watches()
        apply()
        if self._watches:
            written = {id(ac.alloc) for ac in accesses if ac.write}
            self._watches = [(k, al, lo, al.data[lo:lo + before.size].copy()
                              if id(al) in written else before, ka)
                             for k, al, lo, before, ka in self._watches]

    def _watch_kept(self, op: InFlight) -> None:
        """``op`` reads allocations a host view was kept of (``h = a.host`` before the launch):
        a write through ``h`` by a path with no hook (``rng.random(out=h)``, a memoryview)
        while ``op`` runs changes bytes nobody saw -- remember them, compare at the next
        engine call (:meth:`_check_watches`)."""
        for ka in op.accesses:
            al = ka.alloc
            if ka.write or not al.kept or al.freed or not len(ka.pages):
                continue
            hp = al.host_page
            lo, hi = int(ka.pages[0]) * hp, min(int(ka.pages[-1] + 1) * hp, al.nbytes)
            self._watches.append((op, al, lo, al.data[lo:hi].copy(), ka))

    def _check_watches(self):
        """Host writes nobody saw (see :meth:`host_handout`): compare the remembered bytes."""
        watches, self._watches = self._watches, []
        for k, alloc, lo, before, ka in watches:
            if alloc.freed:
                continue
            now = alloc.data[lo:lo + before.size]
            if k.end > self.now and not np.array_equal(now, before):
                hp = alloc.host_page
                changed = np.flatnonzero(now != before)
                both = np.arange((lo + int(changed[0])) // hp, (lo + int(changed[-1])) // hp + 1)
                self._flag(k, ka, alloc, both, True, "the host (through a view handed out "
                           "earlier, by a path NumPy does not dispatch)", self._HOST_HINT)
            elif k.end > self.now:
                self._watches.append((k, alloc, lo, before, ka))

    # -- prefetch and advice ---------------------------------------------------------------------------
    @locked
    def prefetch(self, a: Allocation, pages: np.ndarray, dest: int) -> float:
        p, c = self.profile, self.counters
        if a.kind != "managed":
            return 0.0
        self.last_prefetch_bytes = 0
        if not self.policy.prefetch_migrates:
            self._log("prefetch_ignored", "umd", "APU: one memory, nothing to move")
            return p.prefetch_latency
        bit = loc_bit(dest)
        a.last_prefetch[pages] = dest
        pages = pages[(a.where[pages] & bit) == 0]
        # the fixed device-side cost is the copy's: a prefetch whose pages all sit at the
        # destination pushes no copy (NVIDIA UVM, uvm_va_block.c: uvm_va_block_make_resident_copy
        # copies only the pages not resident there), and costs its host call alone (fit_probe
        # 'edits', H200: a prefetch of a resident 8 MiB buffer 0.04-0.08 ms, events)
        t = p.prefetch_fixed(dest != CPU_ID) if pages.size else 0.0
        ar = a.range
        if dest != CPU_ID and ar is not None and dest not in ar.faulted and pages.size:
            # the first GPU operation on a range -- a fault or this prefetch -- sets it up
            ar.faulted.add(dest)
            t += p.host_op("fault_range_latency")
        if dest != CPU_ID:
            t += self._make_room(dest, pages.size * a.host_page,
                                 {(a.ptr, int(r)) for r in uniq_div(pages, a.pages_per_region)})
            pages = self._fit(a, pages)     # what doesn't fit beside device memory stays
        dup = self._dup(a, pages, False)
        h1, d1, pe1 = self._move(a, pages[dup], dest, dup=True)
        h2, d2, pe2 = self._move(a, pages[~dup], dest, dup=False)
        h, d, pe = h1 + h2, d1 + d2, pe1 + pe2
        self.last_prefetch_bytes = h + d + pe
        if dest == CPU_ID and p.p.get("cpu_map_latency"):
            a.cpu_unmapped[pages] = True       # migrated: the CPU's first write costs more
        c["prefetch_bytes_h2d"] += h + pe
        c["prefetch_bytes_d2h"] += d
        t += h / p.prefetch_h2d_bw + d / p.prefetch_d2h_bw + pe / p.peer_bw
        self._log("prefetch", "kmd", f"{h + d + pe} B to {'cpu' if dest == CPU_ID else f'gpu{dest}'}",
                  bytes=h + d + pe)
        return t

    # -- streams and time ----------------------------------------------------------------------------
    @locked
    def stream(self, device: int = 0, default: bool = False) -> SimStream:
        s = SimStream(self._next_stream, device, default=default)
        self._next_stream += 1
        self.streams[s.id] = s
        return s

    def _live_work(self):
        """Forget work that has finished by now (O(work in flight))."""
        if self.inflight and min(k.end for k in self.inflight) <= self.now:
            self.inflight = [k for k in self.inflight if k.end > self.now]

    @locked
    def enqueue(self, s: SimStream, duration: float, name: str, accesses=(),
                link: str | None = None, kind: str = "kernel") -> float:
        """Put work of ``duration`` on stream ``s``; returns its end time (host does not wait).
        ``link``: the transfer direction it occupies (``"h2d"``, ``"d2h"``, ``"peer"``): the
        link has one bandwidth per direction, so transfers in the same direction on different
        streams run one after the other, not side by side."""
        if self._watches:
            self._check_watches()
        start = max(self.now, s.ready)
        if s.fresh:
            # a created stream is set up by the driver at its first operation
            s.fresh = False
            if not s.default:
                start += self.profile.host_op("stream_first_latency")
        after, s.after = s.after, kind
        flush = self._take_flush(s.device) if self._flush else 0.0
        if flush:
            # the deferred page-table work of earlier allocations / frees starts with the next
            # operation on that GPU (inside a timer whose start event was already stamped);
            # copies and prefetches run alongside it, a kernel waits for it to finish
            self._flush_ready[s.device] = max(self._flush_ready.get(s.device, 0.0), start) + flush
            self._log("mapping_flush", "kmd", f"{flush * 1e6:.0f} us of deferred page-table "
                      f"work on GPU{s.device}")
        if kind == "kernel" and self._flush_ready:
            start = max(start, self._flush_ready.get(s.device, 0.0))
        if kind == "kernel" and after in ("copy", "prefetch"):
            # the hand-over from the copy engine comes after the deferred mapping work too
            # (fit_probe fresh_pinned, 2x H200: copy + read from a fresh pinned buffer ~25 us
            # slower than a zero-copy read at 8-512 KiB, faster at 4 MiB)
            start += self.profile.host_op(after + "_handoff_latency")
        if link is not None:
            start = max(start, self._links.get(link, 0.0))
            self._links[link] = start + duration
        s.ready = start + duration
        if s.ready > self._horizon:
            self._horizon = s.ready
        if accesses:
            self._live_work()
            op = InFlight(s.ready, name, s.id, list(accesses), start, s.default)
            if not s.default:
                self._check_gpu_races(op)
            self.inflight.append(op)
            self._watch_kept(op)
        self._log(name, "umd", f"enqueued on stream {s.id}")
        return s.ready

    @locked
    def synchronize(self, what=None):
        p = self.profile
        if self._watches:
            self._check_watches()
        if what is None:
            # every stream's work ends by _horizon, live streams and dropped ones alike: O(1);
            # a device synchronize also waits for deferred page-table work
            flush = max((self._take_flush(g) for g in list(self._flush)), default=0.0)
            self.now = max(self.now, self._horizon) + flush + p.sync_device
        elif isinstance(what, SimStream):
            self.now = max(self.now, what.ready) + p.sync_stream
        elif isinstance(what, SimEvent):
            self.now = max(self.now, what.time or 0.0) + p.sync_event
        self._live_work()
        if self._watches:
            self._check_watches()
