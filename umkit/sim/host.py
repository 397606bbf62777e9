"""The host side: what the CPU's touches of allocations cost.

A CPU touch of a page nobody has touched yet populates it (first touch); of a GPU-resident
managed page, a CPU fault per ``gpu_page`` block brings the block back (the density prefetcher
answers each fault) -- or, where the policy says the CPU reaches device-coherent VRAM in place
(``cpu_touch_of_gpu_pages == "in_place"``), the access goes over the link and nothing moves; of
a read-mostly duplicate, a write drops the GPU's copy.  What is
resident streams at the host's rate, from the CPU's cache where the access's working set fits
in it (:class:`CpuCache`).
"""
from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from ..errors import InvalidArgument
from .address_space import AddressSpace
from .costs import Profile
from .faults import DensityPrefetcher
from .pages import CPU_BIT, CPU_ID, Access, Allocation, gpu_bit, uniq, uniq_div
from .policy import Policy

class CpuCache:
    """The CPU's cache as a working set: allocation address -> bytes of its last CPU access,
    least recently touched first.

    Only what was touched within the last ``host_cache_bytes`` is kept (anything older is out
    of the cache whatever happens next, and allocation addresses are never reused), and the
    bytes touched since an allocation's last access come from a Fenwick tree over the accesses'
    order: each access costs O(log n) in the allocations inside that window, however many were
    ever allocated or freed."""

    def __init__(self, profile: Profile):
        self.profile = profile
        self._lru: OrderedDict = OrderedDict()      # address -> span, oldest first
        self._slot: dict = {}                       # address -> its place in the tree
        self._tree: list = [0] * 1025               # Fenwick tree of spans by place (1-based)
        self._next = 1                              # the next access's place
        self._total = 0                             # the spans of everything in _lru

    def __len__(self) -> int:
        """How many allocations the bookkeeping holds."""
        return len(self._lru)

    def _add(self, i: int, v: int) -> None:
        tree, n = self._tree, len(self._tree)
        while i < n:
            tree[i] += v
            i += i & -i

    def _prefix(self, i: int) -> int:
        tree, s = self._tree, 0
        while i > 0:
            s += tree[i]
            i -= i & -i
        return s

    def _renumber(self) -> None:
        """Give the kept accesses places 1..n again in a tree twice their number (at least
        1024): amortised O(log n) per access."""
        n = max(1024, 2 * len(self._lru))
        self._tree = [0] * (n + 1)
        self._slot.clear()
        for i, (ptr, span) in enumerate(self._lru.items(), start=1):
            self._slot[ptr] = i
            self._add(i, span)
        self._next = len(self._lru) + 1

    def span(self, a: Allocation, span: int) -> float:
        """The working set a CPU access of ``span`` bytes of ``a`` runs in, for the cache test
        of :meth:`Profile.host_rate`: its own bytes plus the bytes of the other allocations
        the CPU has touched since it last touched ``a`` (an LRU cache of ``host_cache_bytes``:
        data stays cached until that much other data has been touched).  The first access to
        an allocation counts its own span only; one whose last access has aged out of the
        bookkeeping is out of the cache.  Records this access.

        Fit data behind it (umkit team, NVIDIA H200, 2026-12-01): the host sweep's single
        buffers run at cache rates up to 16 MiB and fill at DRAM rate at 32 MiB (small_bench,
        fit_probe 'host', run 14), while fit_probe 'cycles' (run 23) summed a 6 MiB pinned
        buffer at cache rate after two other 6 MiB buffers were written: 18 MiB touched
        between two uses.  Bytes the GPU or a DMA engine writes to host memory are not
        counted."""
        lru, cache = self._lru, self.profile.p.get("host_cache_bytes")
        ptr = a.ptr
        old = self._slot.get(ptr)
        if cache is None:
            dist = span
        elif old is not None:
            # the bytes of everything touched after a's last access, a's own last span aside
            dist = span + (self._total - self._prefix(old))
        else:
            dist = math.inf if a.host_seen else span
        a.host_seen = True
        if cache is None:
            return dist
        if old is not None:
            self._add(old, -lru[ptr])
            self._total -= lru[ptr]
            del lru[ptr]
        if self._next >= len(self._tree):
            self._renumber()
        i = self._next
        self._next += 1
        lru[ptr] = span
        self._slot[ptr] = i
        self._add(i, span)
        self._total += span
        # forget what lies more than a cache's worth of bytes back: it is out of the cache
        while lru:
            first = next(iter(lru))
            if self._total - lru[first] <= cache:
                break
            self._add(self._slot.pop(first), -lru[first])
            self._total -= lru.pop(first)
        return dist


class FaultPathCache:
    """How much of what the driver's GPU fault path uses on the host has left the CPU's caches.

    The CPU touching X bytes pushes a part ``1 - exp(-X / fault_cold_bytes)`` of what is still
    cached out (a sweep through a cache that keeps no order: the more it touches, the less of
    the path stays); the next kernel that wakes the fault service (its first fault on an idle
    GPU) pays that part of ``fault_cold_latency`` for bringing it back, and each kernel that
    wakes it after that ``fault_cold_decay`` of what the one before paid (the path warms over
    a few faults, not at once; kernels queued behind a faulting one find it warm).  What counts
    is what the CPU touches through the kit (host views of its arrays: plain NumPy arrays it
    never sees do not count, nor bytes a DMA engine or a GPU moves, as in :class:`CpuCache`,
    nor device memory the CPU reads over the link).

    Fit data behind it (umkit team, lent NVIDIA H200, 2026-12-04 and 2026-12-05,
    ``umkit measure run classes`` sections ``context`` and ``context2``;
    ``umkit measure fit``'s cold_path stage): five fresh 32 / 128 KiB fault reads in a row after the
    host wrote or read 512 MiB -- NumPy or managed memory alike -- paid about 0.2-0.4 ms more
    than after nothing on the first read and about half as much more on each next one; after
    64 MiB about half that, after 8 MiB next to nothing.  The host's caches are the reading
    that fits (a NumPy sweep, which the driver never sees, slows it as much as a managed one);
    which of the path's data they hold is not measured."""

    def __init__(self, profile: Profile):
        self.profile = profile
        self.swept = 0          # bytes the CPU touched since the last fault service
        self.cold = 0.0         # seconds the next fault service pays

    def touched(self, nbytes: int) -> None:
        """The CPU touched ``nbytes``."""
        self.swept += int(nbytes)

    def service(self) -> float:
        """The fault service wakes for a kernel's faults now: what refilling the caches costs."""
        p = self.profile.p
        first, size = p.get("fault_cold_latency", 0.0), p.get("fault_cold_bytes", 0.0)
        if first and size and self.swept:
            self.cold += (first - self.cold) * -math.expm1(-self.swept / size)
        self.swept = 0
        t, self.cold = self.cold, self.cold * p.get("fault_cold_decay", 0.0)
        return t


class Host:
    """The CPU's accesses to allocations."""

    def __init__(self, profile: Profile, policy: Policy, space: AddressSpace, record,
                 prefetcher: DensityPrefetcher, fault_path: FaultPathCache):
        self.profile, self.policy, self.space, self.record = profile, policy, space, record
        self.prefetcher = prefetcher
        self.cache = CpuCache(profile)
        #: the fault path's host data in the CPU's caches (shared with the GPU side: faults.py)
        self.fault_path = fault_path
        #: the last access's migrating CPU faults, (start, end) in seconds into it (or None)
        self.migrated = None

    def check_view(self, a: Allocation) -> None:
        """A host view of ``a`` may be handed out -- unless it is device memory the vendor does
        not let the CPU reach (policy rule ``device_memory_cpu_access``)."""
        if a.kind == "device" and self.policy.device_memory_cpu_access is None:
            raise InvalidArgument("device memory (cudaMalloc) has no host view on this profile "
                                  f"({self.profile.name})",
                                  hint="copy it with umkit.read_back(arr) or umkit.copy(...)")

    def access(self, accesses: list[Access], streaming: bool | str = False) -> float:
        """The time the CPU takes to touch ``accesses``; charges CPU faults and first touches
        and updates residency (the caller advances the clock).  ``streaming``: memset/memcpy-like
        work (fills, copies), not arithmetic over the data."""
        p, c, pol, space = self.profile, self.record.counters, self.policy, self.space
        #: (start, end) of this access's CPU faults that migrated pages, in seconds from its
        #: start (None: none did) -- AMD with XNACK off stops the GPUs' queues meanwhile
        self.migrated = None
        # the host's own time for one NumPy call on a view (dispatch, not bytes)
        t = p.host_op("host_call_latency") if any(acc.pages.size for acc in accesses) else 0.0
        for acc in accesses:
            a, pages = acc.alloc, acc.pages
            if pages.size == 0:
                continue
            if a.kind == "device":
                # (read over the link, uncached: nothing it pushes out of the CPU's caches)
                t += self._reads_device_memory(acc)
                continue
            # the bytes it pulls through the CPU's caches: a strided view's nbytes counts a
            # cache line per element, never more than the pages it spans
            self.fault_path.touched(min(acc.nbytes, pages.size * a.host_page))
            w = a.where[pages]
            fresh = pages[w == 0]
            if fresh.size:
                # APU: one memory, so a CPU-touched page is also visible to GPU 0
                a.where[fresh] = (CPU_BIT | gpu_bit(0)) if pol.one_memory else CPU_BIT
                c["first_touch_pages"] += fresh.size
                t += fresh.size * (p.first_touch_latency + a.host_page / p.host_mem_bw)
                self.record.log("first_touch", "kmd", f"{fresh.size} fresh pages zero-filled on CPU")
            if a.kind == "managed" and acc.write and a.cpu_unmapped.any():
                # pages a prefetch or a CPU read fault brought back (space.move's clean): the CPU
                # reads them at the resident rate, but its first write to each 4 KiB page costs
                # cpu_map_latency (measured, fit_probe 'cycles': writes ~2x a resident page's,
                # reads the same)
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
                    # a read brings them back mapped but clean: the first write to each 4 KiB
                    # page costs cpu_map_latency, as after a prefetch (measured, class_probe
                    # 'tripparts': the write after a faulting sum); a write fault leaves none
                    clean = not acc.write and bool(p.p.get("cpu_map_latency"))
                    thr, waited = space.thrashing, [0.0]

                    def at() -> float:          # the model time of the CPU's next fault
                        return space.clock.now + t + waited[0]

                    def back(blocks):
                        if blocks.size == 1:
                            lo = int(blocks[0]) * ppb
                            blk = np.arange(lo, min(lo + ppb, a.npages))
                        else:
                            blk = (blocks[:, None] * ppb + np.arange(ppb)[None, :]).ravel()
                            blk = blk[blk < a.npages]
                        wb = a.where[blk]
                        blk = blk[(wb != 0) & ((wb & CPU_BIT) == 0)]
                        if thr.enabled and a.thrash is not None and blk.size:
                            # pages this CPU and a GPU keep taking from each other: the CPU
                            # may sleep in its fault handler until the throttling period
                            # ends (thrashing.py)
                            waited[0] += thr.wait(a, blk, CPU_ID, at(), cpu=True)
                        dup = space.duplicates(a, blk, acc.write)
                        _, d1, _ = space.move(a, blk[dup], CPU_ID, dup=True, at=at())
                        _, d2, _ = space.move(a, blk[~dup], CPU_ID, dup=False, clean=clean,
                                              at=at())
                        return d1 + d2
                    t_pf, moved = 0.0, 0
                    if self.prefetcher.enabled:
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
                            t_pf += self.prefetcher.run(
                                a, np.arange(lo, min(lo + ppb, a.npages)), CPU_ID, clean=clean,
                                at=at())
                        blocks = np.array(faulted, dtype=np.intp)
                    else:
                        moved = back(blocks)
                    nr = uniq(blocks * ppb // a.pages_per_region).size
                    c["cpu_faults"] += blocks.size
                    t0 = t
                    t += p.cpu_fault_cost(blocks.size, nr, moved) + t_pf + waited[0]
                    self.migrated = (t0 if self.migrated is None else self.migrated[0], t)
                    self.record.log("cpu_fault", "kmd", f"{blocks.size} CPU faults, {moved} B "
                                    "migrated to CPU", faults=int(blocks.size))
                if acc.write and need.size:
                    # written right after a CPU fault took them back: a GPU fault brings them
                    # back at dirty_refault_latency each (faults.py)
                    a.cpu_dirty[need] = True
                if acc.write:
                    both = pages[((a.where[pages] & CPU_BIT) != 0) & ((a.where[pages] & ~CPU_BIT) != 0)]
                    if both.size:
                        a.where[both] = CPU_BIT
                        # the GPU's copies of exactly these host pages are gone: a later GPU
                        # read duplicates them again page by page (faults.py)
                        a.dup_lost[both] = True
                        c["invalidations"] += both.size
                        t += both.size * p.cpu_fault_latency
            elif a.kind == "managed" and pol.cpu_touch_of_gpu_pages == "in_place":
                # device-coherent VRAM (ledger: amd.vram.coherent): the CPU reads and writes
                # GPU-only pages where they are, over the link -- no fault, nothing migrates --
                # at the measured CPU-write-to-GPU-resident cost: its fixed part once per
                # access, then its rate (Pearson's implicit_managed_HostWrGPU, in the profile
                # as cpu_fault_latency and cpu_fault_bw)
                n = int(np.count_nonzero((w != 0) & ((w & CPU_BIT) == 0)))
                if n:
                    in_place = acc.nbytes * n / pages.size
                    c["remote_bytes"] += int(in_place)
                    t += p.cpu_fault_latency + in_place / p.cpu_fault_bw
                    t += (acc.nbytes - in_place) / p.host_rate(
                        streaming, self.cache.span(a, pages.size * a.host_page))
                    continue
            # pages that just arrived were copied in one gpu_page block at a time, right before
            # the CPU's access resumed: they are in the CPU's cache (span of one block); the
            # rest streams at the host's rate for an access of this working set (cache or DRAM)
            arrived = acc.nbytes * fetched / pages.size
            t += arrived / p.host_rate(streaming, p.gpu_page) + (acc.nbytes - arrived) / \
                p.host_rate(streaming, self.cache.span(a, pages.size * a.host_page))
        return t

    def _reads_device_memory(self, acc: Access) -> float:
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
        self.record.counters["remote_bytes"] += acc.nbytes
        return self.profile.remote_cost(acc.nbytes)
