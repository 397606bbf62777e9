"""GPU faults and the prefetchers: what a kernel's accesses cost, and the pages they move.

:meth:`Faults.kernel` walks one kernel's accesses (the §3.2 paragraph of ``costs.py``): resident
pages stream at HBM speed, remotely mapped ones over the link, the rest fault in.  All of a
kernel's faults share the fault batches (the fault buffer is per GPU), so they are gathered in
a :class:`KernelCost` and charged once, at the end.  :class:`DensityPrefetcher` is NVIDIA UVM's
prefetcher, which answers GPU faults and CPU faults alike; :meth:`Faults.prefetch` is an explicit
prefetch (hipMemPrefetchAsync / cudaMemPrefetchAsync).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .address_space import AddressSpace
from .costs import Profile
from .extents import PageSet
from .pages import (CPU_BIT, CPU_ID, Access, Allocation, as_index, contiguous, expand, gpu_bit,
                    intersect, loc_bit, nuniq_div, true_pages, uniq, uniq_div)
from .policy import Policy

PREFETCH_THRESHOLD = 51     # NVIDIA's prefetcher: a subregion is >51% resident (see profiles)
BIG_PAGE = 65536            # the tree's fault-granularity growth unit (uvm_perf_prefetch.c)


@dataclass
class KernelCost:
    """What one kernel costs (:meth:`Faults.kernel`), its parts in seconds and its faults.

    The faults of all its accesses are summed here while the accesses are walked: ``faults``,
    the 2 MiB ``regions`` they fall in, the ``bytes`` they migrate, how many are ``moving``
    (taking a page away from the CPU; a read-mostly copy does not), the address ranges faulted
    in for the first time by this GPU (``new_ranges``) and the fault ``waves`` (a kernel that
    walks its inputs k times faults in k waves)."""
    faults: int = 0
    regions: int = 0
    bytes: int = 0
    moving: int = 0
    new_ranges: int = 0
    waves: int = 1
    #: fault handling: the fault batches, plus what the faults do beside them (mapping splits,
    #: refaults, evictions, the prefetcher, pages left in system memory)
    fault: float = 0.0
    stream: float = 0.0          # resident pages at HBM (or duplicate-read) speed
    remote: float = 0.0          # pages read over the link or from a peer GPU
    extra: float = 0.0           # pages mapped for the GPU on first touch (one memory)
    seconds: float = 0.0         # the whole kernel: launch, faults, then memory or arithmetic


def count_faults(profile: Profile, a: Allocation, pages: np.ndarray) -> tuple[int, int]:
    """(faults, regions) for a GPU touching ``pages``: one fault per fault_granularity."""
    fg = max(1, profile.fault_granularity // a.host_page)
    nf = pages.size if fg == 1 else nuniq_div(pages, fg)
    return nf, nuniq_div(pages, a.pages_per_region)


def split_link(link: list, acc: Access, rb: int) -> None:
    """Add ``rb`` remote bytes of ``acc`` to ``link`` (bytes the GPU reads, bytes it writes):
    the link's two directions."""
    wb = int(rb * acc.written_bytes / acc.nbytes) if acc.nbytes else 0
    link[0] += rb - wb
    link[1] += wb


@dataclass
class PrefetchCost:
    """An explicit prefetch: the ``seconds`` its device-side work takes, the ``bytes`` it moved
    (0: nothing to move -- the stream then needs no fence for it)."""
    seconds: float
    bytes: int


def _full_blocks(bigs: PageSet, per: int, blocks: np.ndarray) -> np.ndarray:
    """Which of ``blocks`` (each ``per`` big pages) have every big page in ``bigs``.  The
    prefetcher grows each faulted page to its whole big page, so in such a block every page is
    resident or faulted whatever else holds -- nothing to prefetch -- and it is passed over
    without building its tree (one bisection per block, not a pass over the access)."""
    if bigs.size == 0 or blocks.size == 0:
        return np.zeros(blocks.size, dtype=bool)
    # block k is whole inside range i when lo[i] <= k * per and (k + 1) * per <= hi[i]
    start = blocks.astype(np.int64) * per
    i = np.searchsorted(bigs.lo, start, "right") - 1
    ok = i >= 0
    i = np.maximum(i, 0)
    return ok & (start + per <= bigs.hi[i])


class DensityPrefetcher:
    """NVIDIA UVM's prefetcher (kernel-open/nvidia-uvm/uvm_perf_prefetch.c,
    uvm_perf_prefetch_prenotify_fault_migrations).  ``enabled``: the engine runs with it
    (``prefetcher=``) and the policy has one (``density_prefetcher``)."""

    def __init__(self, profile: Profile, space: AddressSpace, record, enabled: bool):
        self.profile, self.space, self.record, self.enabled = profile, space, record, enabled

    def run(self, a: Allocation, faulted: np.ndarray, g: int, clean: bool = False,
            at: float | None = None) -> float:
        """Per 2 MiB VA block, a bitmap tree over its 4 KiB pages holds the pages resident on
        the faulting processor ``g`` (a GPU, or CPU_ID) plus the faulted ones, grown to whole 64
        KiB big pages (grow_fault_granularity); for each faulted page, compute_prefetch_region
        walks from the leaf up and keeps the largest subregion whose count is > 51% of its
        pages; those subregions are migrated too.  A VA block may hold several small
        allocations (packed in one arena): the prefetch then brings neighbours.  ``clean``
        (toward the CPU, for a read): the pages it brings are mapped clean, their first write
        costs ``cpu_map_latency`` (host.py).  Returns the time it takes."""
        p, bit, space = self.profile, loc_bit(g), self.space
        to_cpu = g == CPU_ID
        hp = a.host_page
        leaves = p.region // hp
        big = max(1, BIG_PAGE // hp)
        base = a.ptr // hp
        if faulted.size == 0:
            return 0.0
        if isinstance(faulted, PageSet) or contiguous(faulted):
            # ranges of pages (a whole-array access is one): only the VA blocks a range edge
            # falls inside are partly faulted -- the others are full, with nothing left to
            # prefetch
            ps = faulted if isinstance(faulted, PageSet) else \
                PageSet.span(int(faulted[0]), int(faulted[-1]) + 1)
            absolute = ps.shift(base)
            edges = np.concatenate((absolute.lo[absolute.lo % leaves != 0] // leaves,
                                    (absolute.hi[absolute.hi % leaves != 0] - 1) // leaves))
            groups = []
            blocks = np.unique(edges)
            if leaves % big == 0:           # every big page holds a faulted page (below)
                blocks = blocks[~_full_blocks(absolute.div(big), leaves // big, blocks)]
            for blk in blocks.tolist():
                # only the ranges that reach into this block (found by bisection): the whole
                # set's ranges, one block at a time, made a sparse access quadratic
                b0, b1 = blk * leaves, (blk + 1) * leaves
                i0 = int(np.searchsorted(absolute.hi, b0, "right"))
                i1 = int(np.searchsorted(absolute.lo, b1, "left"))
                near = PageSet(absolute.lo[i0:i1], absolute.hi[i0:i1])
                f = np.asarray(near.intersect(PageSet.span(b0, b1)))
                groups.append((0, f.size, blk, f - blk * leaves))
        else:                       # (``faulted`` comes sorted: pages of a sorted access)
            abs_pages = base + faulted.astype(np.int64)
            blks = abs_pages // leaves
            if abs_pages[0] // leaves == abs_pages[-1] // leaves:
                cuts = []
            else:
                cuts = (np.flatnonzero(np.diff(blks)) + 1).tolist()
            groups = [(lo, hi, int(blks[lo]), None) for lo, hi in
                      zip([0] + cuts, cuts + [int(blks.size)])]
            if leaves % big == 0 and len(groups) > 1:
                full = _full_blocks(PageSet.from_sorted(uniq(abs_pages // big)), leaves // big,
                                    np.array([gr[2] for gr in groups], dtype=np.int64))
                groups = [gr for gr, whole in zip(groups, full.tolist()) if not whole]
        t = 0.0
        for lo_i, hi_i, blk, f in groups:
            if hi_i - lo_i == leaves:
                continue                    # the whole block faulted: nothing left to prefetch
            if f is None:
                f = (abs_pages[lo_i:hi_i] - blk * leaves).astype(np.intp)
            else:
                f = f.astype(np.intp)
            segs = space.block_segments(blk)
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
                    dup = space.duplicates(b, sel, False)
                    _, d1, _ = space.move(b, sel[dup], CPU_ID, dup=True, at=at)
                    _, d2, _ = space.move(b, sel[~dup], CPU_ID, dup=False, clean=clean, at=at)
                    self.record.counters["prefetcher_bytes"] += d1 + d2
                    t += (d1 + d2) / p.cpu_fault_bw
                    self.record.log("density_prefetch", "kmd", f"VA block {int(blk)}: +{sel.size} "
                                    "pages to the CPU", bytes=d1 + d2)
                    continue
                room = space.make_room(g, sel.size * hp,
                                       {b.ptr: uniq_div(sel, b.pages_per_region)})
                t += room.seconds
                sel = room.fit(b, sel)
                if sel.size == 0:
                    continue
                dup = space.duplicates(b, sel, False)
                h1, _, pe1 = space.move(b, sel[dup], g, dup=True, at=at)
                h2, _, pe2 = space.move(b, sel[~dup], g, dup=False, at=at)
                h, pe = h1 + h2, pe1 + pe2
                self.record.counters["prefetcher_bytes"] += h + pe
                t += h / p.fault_bw + pe / p.peer_bw
                self.record.log("density_prefetch", "kmd", f"VA block {int(blk)}: +{sel.size} pages",
                                bytes=h + pe)
        return t


class Faults:
    """The GPU side of page movement: kernels' accesses and their faults, explicit prefetches."""

    def __init__(self, profile: Profile, policy: Policy, clock, space: AddressSpace, record,
                 prefetcher: DensityPrefetcher, fault_path):
        self.profile, self.policy, self.clock = profile, policy, clock
        self.space, self.record, self.prefetcher = space, record, prefetcher
        #: the fault path's host data in the CPU's caches (host.FaultPathCache, shared with
        #: the host side, which counts the CPU's touches)
        self.fault_path = fault_path
        #: the model time the kernel being costed faults at (its start, plus any throttling)
        self._at = 0.0

    # -- a kernel ----------------------------------------------------------------------------------
    def kernel(self, accesses: list[Access], g: int, flops: float = 0.0,
               start: float | None = None) -> KernelCost:
        """Cost of one kernel on GPU ``g`` touching ``accesses``; updates residency.
        ``flops``: its declared arithmetic -- the kernel takes max(memory time, flops / the
        profile's compute rate) after its faults.  ``start``: when it starts (after the host's
        ``now``: it was queued behind other work)."""
        p, c = self.profile, self.record.counters
        cost = KernelCost()
        self._at = max(self.clock.now, start if start is not None else 0.0) + p.kernel_launch
        t_fault = self._touch(cost, accesses, g, gpu_bit(g))
        nf, waves = cost.faults, cost.waves
        if nf:
            # a kernel that walks its inputs several times (a tiled matrix multiply reaches
            # each new strip of B on its next pass) faults in that many waves: each wave is a
            # fault batch of its own, serviced and replayed before the warps go on
            batches = max(-(-nf // p.fault_batch_max), waves)
            if p.vendor != "amd":
                # the counter reports NVIDIA's replay batches; amdkfd has none (it services one
                # faulting address per svm_range_restore_pages call, ledger: amd.no_prefetcher):
                # on AMD profiles fault_batch_max is a fitted grouping inside the cost model, so
                # the key stays (for compatibility) and reads 0
                c["fault_batches"] += batches
            t_fault += p.fault_cost(nf, cost.regions, cost.bytes, cost.moving, min_batches=waves) \
                + cost.new_ranges * p.host_op("fault_range_latency")
            # a kernel that starts on an idle GPU wakes the driver's fault service with its
            # first fault (fault_wakeup_latency); kernels queued back to back behind it find
            # the service awake -- and, after a large CPU sweep, the wake-up refills the CPU's
            # caches with what the fault path uses (host.FaultPathCache)
            queued = start is not None and start > self.clock.now
            if not queued:
                t_fault += p.p.get("fault_wakeup_latency", 0.0)
                t_fault += self.fault_path.service()
        cost.fault = t_fault
        t_mem = cost.stream + cost.remote
        rate = p.p.get("fp32_flops")
        if flops and rate:
            t_mem = max(t_mem, flops / rate)
        cost.seconds = p.kernel_launch + t_fault + t_mem + cost.extra
        return cost

    def _touch(self, cost: KernelCost, accesses: list[Access], g: int, bit) -> float:
        """The accesses of one kernel: residency changes, fault counts (into ``cost``), the
        streaming times (into ``cost``); returns the fault time that is not a fault batch."""
        p, c, pol = self.profile, self.record.counters, self.policy
        t_fault = t_stream = t_remote = t_extra = 0.0
        link = [0, 0]           # bytes over the link to host memory: GPU reads, GPU writes
        for acc in accesses:
            a, pages = acc.alloc, acc.pages
            if pages.size == 0:
                continue
            passes = acc.passes
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
                split_link(link, acc, rb)
                t_stream += (acc.nbytes - rb) / p.hbm_bw
                continue
            if pol.one_memory:
                fresh = pages[a.where[pages] == 0]
                if fresh.size:
                    a.where[fresh] = CPU_BIT | bit
                    c["first_touch_pages"] += fresh.size
                    t_extra += p.map_cost_per_mib * fresh.size * a.host_page / 2**20
                    self.record.log("map", "kmd", f"{fresh.size} pages mapped for GPU{g}")
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
                self._charge_faults(cost, a, pc, 0, g, passes)
                if pol.peer_access_in_place:
                    # accessed-by pages in the VRAM of a GPU outside this GPU's xGMI hive:
                    # best_loc = system memory, so they migrate there first (ledger:
                    # amd.peer.accessed_by)
                    wc = a.where[pc]
                    out = ((a.accessed_by[pc] & bit) != 0) & (wc != 0) & ((wc & CPU_BIT) == 0) \
                        & ((wc & bit) == 0) & ~self._in_hive(wc, g)
                    if out.any():
                        t_fault += self._to_sysmem_for_mapping(a, pc[out], g)
                a.mapped[pc] |= bit
                remote |= prefer_cpu
                fresh = pc[a.where[pc] == 0]     # (AMD) never-touched pages: created on the CPU
                if fresh.size:
                    a.where[fresh] = CPU_BIT
                    c["first_touch_pages"] += fresh.size
                self.record.log("fault_map_remote", "kmd", f"{pc.size} pages mapped where they "
                                "are" if pol.peer_access_in_place else
                                f"{pc.size} pages mapped to CPU memory")
            over_link = remote
            if remote.any() and pol.peer_access_in_place:
                # pages mapped in a same-hive peer's VRAM are read over the GPU-GPU link
                # (ledger: amd.peer.accessed_by), not over the host link
                on_peer = remote & ((a.accessed_by[ix] & bit) != 0) & self._in_hive(a.where[ix], g)
                if on_peer.any():
                    pb = int(per_page * on_peer.sum())
                    c["remote_bytes"] += pb
                    t_remote += pb / p.p.get("peer_link_bw", p.peer_bw)
                    over_link = remote & ~on_peer
            if over_link.any():
                rb = int(per_page * over_link.sum())
                c["remote_bytes"] += rb
                split_link(link, acc, rb)
            need = pages[~resident & ~remote]
            # writes to duplicated (read-mostly) pages invalidate the other copies
            if acc.write and pol.read_mostly_duplicates:
                dup = pages[resident & ((w & ~bit) != 0)]
                if dup.size:
                    a.where[dup] = bit
                    c["invalidations"] += dup.size
                    self._charge_faults(cost, a, dup, 0, g, passes)
                    self.record.log("invalidate", "kmd", f"{dup.size} read-mostly copies dropped")
            if need.size:
                t_fault += self._fault_in(cost, a, need, g, acc.write, passes)
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
        cost.stream, cost.remote, cost.extra = t_stream, t_remote, t_extra
        return t_fault

    def _charge_faults(self, cost: KernelCost, a: Allocation, pages: np.ndarray, nbytes: int,
                       g: int, passes: float, copying: np.ndarray | None = None) -> None:
        """Count GPU ``g``'s faults on ``pages`` into ``cost`` (charged once per kernel, by
        :meth:`kernel`); ``copying`` marks the ones that only copy (read-mostly duplicates),
        which don't unmap the page from the CPU; ``passes``: how often the access walks them."""
        nf, nr = count_faults(self.profile, a, pages)
        moving = nf if copying is None else count_faults(self.profile, a, pages[~copying])[0]
        self.record.counters["gpu_faults"] += nf
        # the first GPU fault in an address range (a large allocation, or an arena of small
        # ones) since it was created sets the range up for that GPU: fault_range_latency
        new_range = 0
        ar = a.range
        if nf and ar is not None and g not in ar.faulted:
            ar.faulted.add(g)
            new_range = 1
        cost.faults += nf
        cost.regions += nr
        cost.bytes += nbytes
        cost.moving += moving
        cost.new_ranges += new_range
        if nf:
            cost.waves = max(cost.waves, min(nf, math.ceil(passes)))

    def _in_place_on_fault(self, a: Allocation, pages, w, resident, remote, bit) -> np.ndarray:
        """AMD (amdkfd svm_range_best_restore_location): which non-resident pages a GPU fault
        maps where they are instead of migrating -- pages on a range whose preferred location is
        the CPU, or whose ACCESS_IN_PLACE bitmap holds this GPU and that sit in CPU memory (or
        are not populated yet: they are created in CPU memory).  Read-mostly changes nothing."""
        on_gpu_elsewhere = (w != 0) & ((w & CPU_BIT) == 0)
        # (with the peer rule, ACCESS_IN_PLACE pages on another GPU are mapped in place too:
        # in a same-hive peer's VRAM, else after a move to system memory; ledger:
        # amd.peer.accessed_by)
        aip = (a.accessed_by[pages] & bit) != 0
        if not self.policy.peer_access_in_place:
            aip &= ~on_gpu_elsewhere
        pref = a.preferred[pages] == CPU_ID
        if not self.policy.preferred_cpu_new_pages_on_cpu:
            pref &= w != 0
        return ~resident & ~remote & (aip | pref)

    def _in_hive(self, w, g: int):
        """Which pages of residency ``w`` live in the VRAM of another GPU of GPU ``g``'s xGMI
        hive (profile ``xgmi_hive_gpus``)."""
        out = w != w
        for h in range(self.space.gpus):
            if h != g and self.profile.same_hive(g, h):
                out = out | ((w & gpu_bit(h)) != 0)
        return out & ((w & gpu_bit(g)) == 0)

    def _to_sysmem_for_mapping(self, a: Allocation, out: np.ndarray, g: int) -> float:
        """AMD (kfd_svm.c svm_range_best_restore_location, ACCESS_IN_PLACE): pages ``out`` of
        ``a``, in the VRAM of a GPU outside GPU ``g``'s xGMI hive, migrate to system memory to
        be mapped there; returns the time it takes (svm_migrate_vram_to_ram: prefetch_d2h_bw)."""
        _, d, _ = self.space.move(a, out, CPU_ID, dup=False)
        self.record.log("migrate_to_sysmem", "kmd", f"{out.size} pages from a GPU outside "
                        f"GPU{g}'s xGMI hive to system memory, to be mapped there", bytes=d)
        return d / self.profile.prefetch_d2h_bw

    def _fault_in(self, cost: KernelCost, a: Allocation, need: np.ndarray, g: int, write: bool,
                  passes: float) -> float:
        """GPU faults on ``need`` pages: batches, migration of gpu_page blocks, the density
        prefetcher, eviction when VRAM is full."""
        p, c, space = self.profile, self.record.counters, self.space
        wait = 0.0
        if space.thrashing.enabled and a.thrash is not None:
            # pages the CPU and this GPU keep taking from each other: the driver may throttle
            # this GPU's faults on them until the current throttling period ends (thrashing.py)
            wait = space.thrashing.wait(a, need, g, self._at, cpu=False)
            self._at += wait
        at = self._at
        ppb = max(1, p.gpu_page // a.host_page)
        blocks = uniq_div(need, ppb)
        t_split = 0.0
        split, dirty_cost = p.p.get("fault_split_latency"), p.p.get("dirty_refault_latency")
        dirty_cost = dirty_cost if dirty_cost and a.cpu_dirty[need].any() else 0.0
        if split or dirty_cost:
            # the 2 MiB regions the GPU already holds other pages of (the CPU took some back)
            ppr = a.pages_per_region
            held = uniq_div(true_pages((a.where & gpu_bit(g)) != 0), ppr)
            if split:
                # each such region's mapping is rebuilt around the returning pages
                t_split = intersect(uniq_div(need, ppr), held).size * p.fault_split_latency
            if dirty_cost:
                # pages a CPU fault took back from this GPU and the CPU then wrote, returning
                # into such a region, cost dirty_refault_latency each on the fault path
                # (measured, fit_probe 'edits' and 'loop' on the H200: the fault-back of such
                # pages grows by ~0.13 ms per MiB where a prefetch of the same pages does not,
                # and pages the CPU only read come back at the ordinary rate, fit_probe
                # 'pingpong'; which driver step costs this is not identified)
                dirty = intersect(need[a.cpu_dirty[need] & ~space.duplicates(a, need, write)],
                                  expand(held, ppr, a.npages))
                t_split += dirty.size * dirty_cost
        # migrate whole gpu_page blocks (the GPU's migration granularity)
        pages = expand(blocks, ppb, a.npages)
        pages = pages[(a.where[as_index(pages)] & gpu_bit(g)) == 0]
        dup = space.duplicates(a, pages, write)
        any_dup = bool(dup.any())
        t = 0.0
        chunk_pages = max(a.pages_per_region, int(p.vram // a.host_page // 4))
        moved = 0
        for lo in range(0, pages.size, chunk_pages):
            chunk, cdup = pages[lo:lo + chunk_pages], dup[lo:lo + chunk_pages]
            protect = {a.ptr: uniq_div(chunk, a.pages_per_region)}
            room = space.make_room(g, chunk.size * a.host_page, protect)
            t += room.seconds
            fit = room.fit(a, chunk)
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
                self.record.log("vram_full", "kmd", f"{rest.size} pages left in system memory "
                                f"and mapped for GPU{g}: VRAM is held by device memory", bytes=rb)
                chunk, cdup = fit, cdup[:fit.size]
            if any_dup:
                h1, d1, pe1 = space.move(a, chunk[cdup], g, dup=True, at=at)
                h2, d2, pe2 = space.move(a, chunk[~cdup], g, dup=False, at=at)
            else:
                (h1, d1, pe1), (h2, d2, pe2) = (0, 0, 0), space.move(a, chunk, g, dup=False,
                                                                     at=at)
            moved += h1 + h2
            t += (pe1 + pe2) / p.peer_bw
            if d1 + d2:
                # from another GPU through system memory (AMD, ledger: amd.peer.via_sysmem):
                # the first hop, VRAM -> RAM, at the rate of KFD's svm_migrate_vram_to_ram;
                # the second is the ordinary fault-path migration (``moved``)
                t += (d1 + d2) / p.prefetch_d2h_bw
        f0 = c["gpu_faults"]
        copying = space.duplicates(a, need, write)
        self._charge_faults(cost, a, need, moved, g, passes, copying if copying.any() else None)
        lost = need[a.dup_lost[need]] if a.dup_lost.any() else need[:0]
        if lost.size:
            # read-mostly pages whose GPU copy a CPU write invalidated come back one host page
            # per fault (the write split the GPU's big-page mapping), each at
            # dup_refault_latency on top of the fault batch
            t += lost.size * p.host_op("dup_refault_latency")
            a.dup_lost[lost] = False
        nf = c["gpu_faults"] - f0
        if p.vendor == "amd":
            # no batch count on AMD: amdkfd has no replay batch (see kernel()'s fault_batches)
            self.record.log("fault_batch", "kmd", f"{nf} faults serviced, "
                            f"{moved} B migrated to GPU{g}", faults=nf, bytes=moved)
        else:
            batches = -(-nf // p.fault_batch_max)
            self.record.log("fault_batch", "kmd", f"{nf} faults (~{batches} batches), "
                            f"{moved} B migrated to GPU{g}", faults=nf, batches=batches, bytes=moved)
        if self.prefetcher.enabled:
            t += self.prefetcher.run(a, need, g, at=at)
        return t + t_split + wait

    # -- an explicit prefetch ------------------------------------------------------------------------
    def prefetch(self, a: Allocation, pages: np.ndarray, dest: int) -> PrefetchCost:
        """Move ``pages`` of ``a`` to ``dest`` (a GPU, or CPU_ID) in bulk: the device-side work
        of hipMemPrefetchAsync (its host call is the caller's)."""
        p, c, space = self.profile, self.record.counters, self.space
        if a.kind != "managed":
            return PrefetchCost(0.0, 0)
        if not self.policy.prefetch_migrates:
            self.record.log("prefetch_ignored", "umd", "APU: one memory, nothing to move")
            return PrefetchCost(p.prefetch_latency, 0)
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
            room = space.make_room(dest, pages.size * a.host_page,
                                   {a.ptr: uniq_div(pages, a.pages_per_region)})
            t += room.seconds
            pages = room.fit(a, pages)      # what doesn't fit beside device memory stays
        dup = space.duplicates(a, pages, False)
        # migrated to the CPU: its first write to each page costs more
        clean = bool(p.p.get("cpu_map_latency"))
        h1, d1, pe1 = space.move(a, pages[dup], dest, dup=True, clean=clean)
        h2, d2, pe2 = space.move(a, pages[~dup], dest, dup=False, clean=clean)
        h, d, pe = h1 + h2, d1 + d2, pe1 + pe2
        c["prefetch_bytes_h2d"] += h + pe
        c["prefetch_bytes_d2h"] += d
        t += h / p.prefetch_h2d_bw + d / p.prefetch_d2h_bw + pe / p.peer_bw
        self.record.log("prefetch", "kmd", f"{h + d + pe} B to "
                        f"{'cpu' if dest == CPU_ID else f'gpu{dest}'}", bytes=h + d + pe)
        return PrefetchCost(t, h + d + pe)
