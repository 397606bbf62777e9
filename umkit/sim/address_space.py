"""The address space: where allocations lie, their page tables, advice, and moving pages.

Allocations get GPU-visible addresses from ``BASE`` up: one 2 MiB-aligned range each, or -- small
managed allocations, where the policy packs them (``Policy.pack_small_managed``) -- back to back
in one arena.  Moving pages between the CPU and the GPUs (:meth:`AddressSpace.move`) and making
room in a GPU's VRAM by evicting the least recently migrated 2 MiB regions
(:meth:`AddressSpace.make_room`) are done here for every mechanism that moves pages: faults,
prefetches, the prefetcher, CPU faults.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidArgument, OutOfMemory, UseAfterFree
from .costs import Profile
from .extents import PageSet, Runs, union_sorted
from .pages import (CPU_BIT, CPU_ID, NO_LOC, Allocation, as_index, gpu_bit, loc_bit, minus,
                    true_pages, uniq_div, window_counts)
from .policy import Policy
from .thrashing import Thrashing

BASE = 0x7F00_0000_0000     # the first address handed out
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


@dataclass(frozen=True)
class Room:
    """What :meth:`AddressSpace.make_room` did: the ``seconds`` its evictions took, and the
    ``shortfall``: bytes that still don't fit (VRAM held by device memory, which nothing
    evicts)."""
    seconds: float
    shortfall: int

    def fit(self, a: Allocation, pages):
        """The leading part of ``pages`` of ``a`` that fits."""
        if not self.shortfall:
            return pages
        return pages[:max(0, pages.size - -(-self.shortfall // a.host_page))]


def stamp_pieces(a: Allocation, regions):
    """The regions ``regions`` of ``a`` (sorted distinct) as pieces of consecutive regions with
    one LRU stamp: [(stamp, first region, end region)]."""
    ps = regions if isinstance(regions, PageSet) else PageSet.from_sorted(regions)
    if ps.size == 0:
        return []
    st = a.region_stamp if isinstance(a.region_stamp, Runs) else Runs.from_dense(a.region_stamp)
    g = st[ps]
    u = union_sorted((g.s, ps.cum))
    i = np.searchsorted(ps.cum, u, "right") - 1
    first = ps.lo[i] + u - ps.cum[i]
    ends = first + np.diff(np.append(u, ps.size))
    return list(zip(g.at(u).tolist(), first.tolist(), ends.tolist()))


class AddressSpace:
    """The live allocations (by address) and their pages, kept in ``pages`` representation
    (``pages.PAGE_STATES``); ``eager``: allocations get their bytes at once (else when a view
    or a copy needs them)."""

    def __init__(self, profile: Profile, policy: Policy, gpus: int, clock, record,
                 pages: str = "dense", eager: bool = True, thrashing: Thrashing | None = None):
        self.profile, self.policy, self.gpus = profile, policy, gpus
        self.clock, self.record = clock, record
        #: the driver's thrashing module (thrashing.py): every migration reports to it
        self.thrashing = thrashing if thrashing is not None else Thrashing(profile, False,
                                                                           record)
        self.pages, self.eager = pages, eager
        self.allocs: dict[int, Allocation] = {}
        self._starts: list[int] = []         # the live allocations' addresses, sorted
        self._next = BASE
        self._arena: Range | None = None     # the open arena for small managed allocations

    @property
    def starts(self) -> list[int]:
        """The live allocations' addresses in ascending order (a copy)."""
        return list(self._starts)

    def find(self, ptr: int) -> tuple[Allocation, int]:
        """The live allocation holding ``ptr`` and the offset of ``ptr`` in it."""
        i = bisect.bisect_right(self._starts, ptr) - 1
        if i >= 0:
            a = self.allocs[self._starts[i]]
            if ptr < a.ptr + max(a.nbytes, 1):
                return a, ptr - a.ptr
        raise UseAfterFree(f"pointer {ptr:#x} is not a live umkit allocation",
                           hint="it was freed already, or never allocated by this backend")

    # -- allocation ------------------------------------------------------------------------------
    def new(self, nbytes: int, kind: str, device: int) -> Allocation:
        """A new allocation, not placed yet (:meth:`place`).  With ``eager`` bytes the model
        keeps every byte in host RAM, and what this machine can't hold is refused
        (OutOfMemory naming the limit and the model-only switch)."""
        p = self.profile
        return Allocation(self._next, nbytes, kind, device, p.host_page, p.region,
                          self.clock.now, pages=self.pages, eager=self.eager)

    def admit_device_memory(self, a: Allocation) -> int:
        """The VRAM device allocation ``a`` needs on its GPU; OutOfMemory where the device
        memory already there leaves too little (device memory can't be evicted; managed pages
        can: the caller makes room for it)."""
        p = self.profile
        need = a.npages * a.host_page
        held = self.device_bytes(a.device)
        if held + need > p.vram:
            raise OutOfMemory(          # "in use": device memory, which can't be evicted
                f"device allocation of {a.nbytes} B exceeds the simulated VRAM "
                f"({held} of {int(p.vram)} B in use) -- hipErrorOutOfMemory",
                hint="device memory never breathes out: use managed memory for cold data",
                requested=need, free=int(p.vram) - held, total=int(p.vram), device=a.device,
                kind="device")
        return need

    def place(self, a: Allocation) -> int:
        """Give ``a`` its address and range and make it live; returns the address."""
        p, nbytes = self.profile, a.nbytes
        if a.kind == "managed" and self.policy.pack_small_managed and nbytes <= p.region:
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
        a.region_stamp[:] = self.clock.now
        self.allocs[ptr] = a
        bisect.insort(self._starts, ptr)
        return ptr

    def remove(self, ptr: int) -> Allocation:
        """Take the live allocation at ``ptr`` out of the address space (UseAfterFree if there
        is none); an emptied arena is released: the next small allocation opens a new one."""
        a = self.allocs.pop(ptr, None)
        if a is None:
            try:
                inner, _ = self.find(ptr)
            except UseAfterFree:
                inner = None
            if inner is not None:
                raise InvalidArgument(f"free of {ptr:#x}: inside an allocation, not its start "
                                      f"({inner.ptr:#x})", argument="ptr",
                                      hint="free the address malloc returned")
            raise UseAfterFree(f"free of {ptr:#x}: not a live allocation (double free?)",
                               hint="free each buffer once; umkit arrays free themselves")
        del self._starts[bisect.bisect_left(self._starts, ptr)]
        a.freed = True
        ar = a.range
        if ar is not None:
            ar.live -= 1
            if ar.live == 0 and ar is self._arena:
                self._arena = None
        return a

    def mapped_on(self, a: Allocation) -> list[int]:
        """The GPUs whose page tables map ``a`` (freeing it leaves unmapping work for them)."""
        if a.kind == "device":
            return [a.device]
        if a.kind == "pinned":
            return list(range(self.gpus))
        if a.kind == "managed":
            return [g for g in range(self.gpus)
                    if ((a.where & gpu_bit(g)) != 0).any() or ((a.mapped & gpu_bit(g)) != 0).any()]
        return []

    def device_bytes(self, g: int) -> int:
        """VRAM of GPU ``g`` held by device allocations (the part nothing can evict)."""
        return sum(a.npages * a.host_page for a in self.allocs.values()
                   if a.kind == "device" and a.device == g)

    def resident_by_allocation(self, g: int) -> list:
        """[(allocation, its bytes resident on GPU ``g``)] for every live allocation."""
        bit = gpu_bit(g)
        return [(a, a.resident_bytes(bit)) for a in self.allocs.values()]

    def gpu_resident_bytes(self, g: int) -> int:
        return sum(rb for _, rb in self.resident_by_allocation(g))

    def block_segments(self, blk: int):
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

    # -- advice ------------------------------------------------------------------------------------
    def advise(self, a: Allocation, pages: np.ndarray, advice: str, dev: int, unset: bool) -> None:
        """Record ``advice`` for ``pages`` (``dev``: the device it names, CPU_ID for the host);
        no page moves."""
        if advice == "read_mostly":
            a.read_mostly[pages] = not unset
            if unset:   # collapse duplicates: keep the GPU copy when there is one
                w = a.where[pages]
                gpu_part = w & np.uint8(0xFE)
                keep = np.where(gpu_part != 0, gpu_part & (-gpu_part.astype(np.int16)).astype(np.uint8), w)
                a.where[pages] = np.where(w != 0, keep, 0)
        elif advice == "preferred_location":
            a.preferred[pages] = NO_LOC if unset else dev
        elif advice == "accessed_by":
            bit = loc_bit(dev)
            if unset:
                a.accessed_by[pages] &= ~bit
                a.mapped[pages] &= ~bit
            else:
                a.accessed_by[pages] |= bit
        else:  # coarse_grain (HIP only): recorded, no effect on costs
            a.coarse_grain[pages] = not unset

    def attributes(self, a: Allocation, pages: np.ndarray) -> dict:
        """The advice ``pages`` share: ``read_mostly`` (bool), ``preferred_location`` and
        ``last_prefetch_location`` (a device id, CPU_ID, or None where the pages differ or have
        none), ``accessed_by`` (device ids, CPU_ID first)."""
        def one(arr):
            u = np.unique(arr[pages])
            if u.size != 1 or u[0] == NO_LOC:
                return None
            return int(u[0])
        acc = np.bitwise_and.reduce(a.accessed_by[pages]) if pages.size else 0
        by = ([CPU_ID] if acc & CPU_BIT else []) + [g for g in range(self.gpus) if acc & gpu_bit(g)]
        return dict(read_mostly=bool(pages.size and a.read_mostly[pages].all()),
                    preferred_location=one(a.preferred),
                    last_prefetch_location=one(a.last_prefetch), accessed_by=by)

    # -- moving pages ----------------------------------------------------------------------------
    def duplicates(self, a: Allocation, pages, write: bool):
        """Which of ``pages`` a read would duplicate (read-mostly advice) instead of moving."""
        if not self.policy.read_mostly_duplicates or write:
            if isinstance(pages, PageSet):
                return Runs.full(pages.size, False, bool)
            return np.zeros(pages.size, dtype=bool)
        r = a.read_mostly[as_index(pages)]
        if isinstance(r, Runs) and not isinstance(pages, PageSet):
            return np.asarray(r)        # a NumPy page list gets a NumPy mask
        return r.copy()

    def move(self, a: Allocation, pages: np.ndarray, dest: int, dup: bool,
             clean: bool = False, at: float | None = None) -> tuple[int, int, int]:
        """Make ``pages`` resident at ``dest`` (device id or CPU_ID); ``clean``: toward the CPU,
        the pages arrive mapped clean, so the CPU's first write to each costs
        ``cpu_map_latency`` (host.py; a prefetch back, or a CPU read fault).  ``at``: a fault or
        the density prefetcher moves them, at that model time (the driver's thrashing module
        counts it); None: an explicit move (a prefetch), which clears their thrashing records
        (an eviction, which does not come here, leaves them: thrashing_event_cb skips it).
        Returns bytes moved (h2d, d2h, peer); unpopulated pages are populated in place (no
        bytes).  Where the policy moves pages between GPUs through system memory
        (``gpu_to_gpu_migration == "via_sysmem"``, AMD: ledger amd.peer.via_sysmem) a page from
        another GPU counts once each way, d2h and h2d, and no peer bytes."""
        if pages.size == 0:
            return 0, 0, 0
        c = self.record.counters
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
            if peer and self.policy.gpu_to_gpu_migration == "via_sysmem":
                # VRAM -> system memory -> VRAM (kfd_migrate.c svm_migrate_vram_to_vram)
                h2d, d2h, peer = h2d + peer, peer, 0
                self.record.log("migrate_via_sysmem", "kmd", f"{d2h} B from another GPU's VRAM "
                                f"to system memory, then to GPU{dest}", bytes=d2h)
        a.where[ix] = (w | bit) if dup else bit
        a.cpu_unmapped[ix] = clean and dest == CPU_ID
        if dup:
            c["duplicates"] += n_pop
        if dest != CPU_ID:
            a.cpu_dirty[ix] = False
            regions = uniq_div(pages, a.pages_per_region)
            a.region_stamp[regions] = self.clock.now
        if self.thrashing.enabled:
            self.thrashing.migrated(a, pages, dest, self.clock.now if at is None else at,
                                    counted=at is not None and not dup)
        c["bytes_h2d"] += h2d
        c["bytes_d2h"] += d2h
        c["bytes_peer"] += peer
        return h2d, d2h, peer

    def populate(self, a: Allocation, pages: np.ndarray, bit) -> None:
        """Pages of ``pages`` not populated yet come to exist at ``bit`` (a copy wrote them)."""
        a.where[pages] = np.where(a.where[pages] == 0, bit, a.where[pages])

    def make_room(self, g: int, incoming: int, protect: dict) -> Room:
        """Evict least-recently-migrated 2 MiB regions of GPU ``g`` to the CPU until
        ``incoming`` bytes fit in VRAM; ``protect``: allocation address -> the regions of it
        that stay (sorted distinct region indices).

        The candidates are taken in LRU order (stamp, address, region); consecutive regions of
        one allocation with one stamp are one piece, evicted together: counts and times are
        those of evicting them one by one (the times summed in that order)."""
        p, bit, c = self.profile, gpu_bit(g), self.record.counters
        held = self.resident_by_allocation(g)         # asked once: the sum and the candidates
        over = sum(rb for _, rb in held) + incoming - p.vram
        if over <= 0:
            return Room(0.0, 0)
        pieces = []
        for a, rb in held:
            if a.kind != "managed" or not rb:
                continue
            on = (a.where & bit) != 0
            reg = uniq_div(true_pages(on), a.pages_per_region)
            keep = protect.get(a.ptr)
            if keep is not None and keep.size:
                reg = minus(reg, keep)
            pieces.extend((st, a.ptr, r0, r1) for st, r0, r1 in stamp_pieces(a, reg))
        pieces.sort()
        t = 0.0
        done = []           # (address, first region, bytes moved per region) of each eviction
        for _, ptr, r0, r1 in pieces:
            if over <= 0:
                break
            a = self.allocs[ptr]
            ppr, hp = a.pages_per_region, a.host_page
            r, m = r0, 64
            while r < r1 and over > 0:
                # the next window of regions: how many pages of each are on the GPU, and
                # how many of those on the GPU alone
                r2 = min(r1, r + m)
                m *= 2
                lo, hi = r * ppr, min(r2 * ppr, a.npages)
                w = a.where[lo:hi]
                on = (w & bit) != 0
                edges = np.minimum(np.arange(r, r2 + 1, dtype=np.int64) * ppr, a.npages) - lo
                n_on = window_counts(on, edges)
                n_only = window_counts(on & ((w & ~bit) == 0), edges)
                before = over - np.concatenate(([0], np.cumsum(n_on[:-1]))) * hp
                k = int(np.count_nonzero(before > 0))   # each region holds >= 1 page here
                moved = n_only[:k] * hp
                e = min((r + k) * ppr, a.npages)
                if e < hi:
                    w = w[:e - lo]
                a.where[lo:e] = np.where((w & bit) != 0,
                                         np.where((w & ~bit) == 0, CPU_BIT, w & ~bit), w)
                over -= int(n_on[:k].sum()) * hp
                nbytes = int(moved.sum())
                c["evictions"] += k
                c["evicted_bytes"] += nbytes
                c["bytes_d2h"] += nbytes
                t = float(np.add.accumulate(np.concatenate(([t], moved / p.prefetch_d2h_bw)))[-1])
                done.append((ptr, r, moved))
                r += k
        if done:
            regions = [r + i for _, r, m in done for i in range(m.size)]
            ptrs = [ptr for ptr, _, m in done for _ in range(m.size)]
            moved = np.concatenate([m for _, _, m in done]).tolist()

            def entry(i):
                return f"region {regions[i]} of {ptrs[i]:#x} -> cpu", dict(bytes=moved[i])
            self.record.log_many("evict", "kmd", len(moved), entry)
        return Room(t, max(0, int(over)))
