"""NVIDIA UVM's thrashing detection and throttling: pages the CPU and a GPU take from each other
over and over, a few hundred microseconds apart.

What the driver does (``kernel-open/nvidia-uvm/uvm_perf_thrashing.c``, open-gpu-kernel-modules
``df1c9a3``; the profile's ``thrashing_*`` parameters hold its defaults):

- *Events* (``thrashing_event_cb``).  A page that migrates by a fault or by the density
  prefetcher again within ``thrashing_lapse`` (500 us) of its last migration counts one
  thrashing event; ``thrashing_threshold`` (3) events make it a thrashing page.  A migration
  after a longer pause clears a thrashing page (``thrashing_reset_page``: events and time stamp
  to zero).  Other migrations -- an explicit prefetch, read duplication -- clear the thrashing
  pages they move (``thrashing_reset_pages_in_region``); an eviction is skipped (no event, no
  reset).  The per-page records of a 2 MiB VA block are only created once two different
  processors migrated in it within the lapse (before that, migrations stamp the block alone),
  and they are dropped again when none of its pages thrashed for an epoch of 2000 lapses (at
  most 4 times per block).
- *Throttling* (``uvm_perf_thrashing_get_hint``, ``thrashing_throttle_update``,
  ``get_hint_for_migration_thrashing``).  The first processor to fault on a thrashing page in a
  new *throttling period* opens it: the period ends ``thrashing_nap`` (one lapse) later, and
  that processor is remembered as the one not to throttle (the choice alternates between
  periods).  Any other processor that faults on the page before the period ends is throttled
  until its end: the CPU sleeps in its fault handler (``uvm_va_space.c``, ``usleep_range(nap,
  nap + nap / 2)``), a GPU's faults on the page are left unserviced and replayed until then
  (``uvm_gpu_replayable_faults.c``, ``mark_fault_throttled``).  Its retry after the period
  finds the page's last migration more than a lapse ago: no longer thrashing, so the page
  migrates and is cleared, and counting starts again.

So a tight round trip on one buffer -- CPU writes, GPU kernel, CPU reads, again -- pays a nap
every few trips, on the CPU and the GPU in turn (measured on the H200: ``class_probe.py``
'tripparts' and 'small', and ``fit_probe.py`` 'loop', whose tight 256 KiB rounds took +0.8-1.8
ms every third round while the prefetched and the spaced-out rounds did not; see
docs/model-history.md).

Not modelled (ledger ``nv.thrashing``):

- the lapse's adaptation.  The 580 driver the lent H200s ran keeps the lapse fixed: this file is
  the same in every 580 release in the public repository (580.65.06 to 580.142, ``1a5075f``),
  and differs from ``df1c9a3`` only in that adaptation, which came in 590.44.01.  There
  ``adjust_thrashing_lapse`` compares a signed 8-bit vote count with an unsigned threshold, so
  any vote of a page whose last migration is closer than the lapse lengthens the lapse by an
  eighth, up to 500 ms, and below that cap nothing shortens it.  On such a driver a page
  would stay thrashing after its nap and a tight loop would nap on nearly every trip;
- pinning: a page's throttling count survives the resets (``thrashing_reset_page`` leaves it;
  only the epoch reset below drops it), so after ``uvm_perf_thrashing_pin_threshold`` (10)
  throttling periods on it the driver pins it for 300 lapses and maps it for the other
  processors: a long tight loop on the card stops napping for a while where sim keeps
  throttling (``umkit measure run classes --sections pinning`` is to show it on a card);
- the prefetcher and fault growth leaving thrashing pages out (``compute_prefetch_mask``,
  ``grow_fault_granularity_if_no_thrashing``): the driver then faults them page by page;
- the times: sim stamps all pages of one fault service at its start (a kernel's, or a CPU
  access's), the driver each migration when it happens; records are kept per allocation, where
  the driver keeps them per 2 MiB VA block that small allocations may share; revocations (they
  count too) and pages with a GPU preferred location (throttled here; the driver pins
  CPU-preferred pages, which sim leaves alone);
- AMD: no source was read for a counterpart in amdkfd.
"""
from __future__ import annotations

import numpy as np

from ..errors import InvalidArgument
from .pages import CPU_ID, Allocation, as_index, loc_bit, uniq_div

#: no processor (``UVM_ID_INVALID``)
NOBODY = -2
#: the event counter's width (3 bits: ``PAGE_THRASHING_NUM_EVENTS_BITS``) and the throttling
#: counter's (8 bits)
EVENTS_MAX, THROTTLES_MAX = 7, 255
#: ``usleep_range(nap, nap + nap / 2)``: an idle CPU's timer fires at the end of the range
#: (the range only lets the kernel wake it earlier, together with another wake-up)
CPU_SLEEP_RANGE = 1.5
#: a block whose pages last thrashed this many lapses ago loses its per-page records, at most
#: MAX_RESETS times (``UVM_PERF_THRASHING_EPOCH_DEFAULT`` 2000, ``..._MAX_RESETS_DEFAULT`` 4)
EPOCH_LAPSES, MAX_RESETS = 2000, 4


class _Pages:
    """One 2 MiB VA block's per-page records (``page_thrashing_info_t``)."""

    __slots__ = ("ts", "events", "end", "spare", "throttled", "throttles")

    def __init__(self, n: int):
        self.ts = np.full(n, np.nan)                 # last migration (nan: none)
        self.events = np.zeros(n, dtype=np.int8)     # thrashing events
        self.end = np.zeros(n)                       # the throttling period's end (0: none)
        self.spare = np.full(n, NOBODY, np.int16)    # do_not_throttle_processor_id
        self.throttled = np.zeros(n, dtype=np.uint8)  # throttled processors (bits)
        self.throttles = np.zeros(n, dtype=np.uint8)  # throttling_count

    def clear(self, i: np.ndarray) -> None:
        """``thrashing_reset_page`` (a page not pinned): the throttled processors end their
        throttling, the events and the time stamp go back to zero; the throttling count and the
        processor not to throttle stay."""
        self.throttled[i] = 0
        self.end[i] = 0.0
        self.ts[i] = np.nan
        self.events[i] = 0


class _State:
    """One allocation's thrashing records: per VA block, the last migration's time and
    processor, and the per-page records of the blocks that have them."""

    __slots__ = ("block_ts", "block_proc", "blocks", "thrashed", "resets")

    def __init__(self, nregions: int):
        self.block_ts = np.full(nregions, np.nan)
        self.block_proc = np.full(nregions, NOBODY, np.int16)
        self.blocks: dict[int, _Pages] = {}
        #: per tracked block: when a page of it last counted an event as a thrashing page, and
        #: how often its records were dropped for an epoch without that
        self.thrashed: dict[int, float] = {}
        self.resets: dict[int, int] = {}


class Thrashing:
    """The driver's thrashing module for one engine (enabled where the policy has it and the
    profile gives ``thrashing_lapse``, ``thrashing_threshold`` and ``thrashing_nap``)."""

    def __init__(self, profile, enabled: bool, record):
        g = profile.p.get
        #: the engine's counters and trace: each wait counts one ``throttles`` and is traced
        self.record = record
        self.lapse = float(g("thrashing_lapse", 0.0))
        threshold = float(g("thrashing_threshold", 0))
        self.threshold = int(threshold)
        self.nap = float(g("thrashing_nap", 0.0))
        self.enabled = bool(enabled and self.lapse > 0 and self.threshold > 0 and self.nap > 0)
        if self.enabled:
            # the driver's own bounds: the event counter has 3 bits, and the nap is 1-100 lapses
            # (uvm_perf_thrashing_threshold, uvm_perf_thrashing_nap)
            if threshold != self.threshold or not 1 <= self.threshold <= EVENTS_MAX:
                raise InvalidArgument(f"thrashing_threshold={threshold:g} is not one of the "
                                      f"driver's 1..{EVENTS_MAX} events",
                                      argument="thrashing_threshold",
                                      hint="a whole number of events; the driver's default is 3")
            if not self.lapse * (1 - 1e-9) <= self.nap <= 100 * self.lapse * (1 + 1e-9):
                raise InvalidArgument(
                    f"thrashing_nap={self.nap * 1e6:g} us must be 1 to 100 lapses "
                    f"(thrashing_lapse={self.lapse * 1e6:g} us)", argument="thrashing_nap",
                    hint="the driver's nap is the lapse times uvm_perf_thrashing_nap (default 1)")
        self.epoch = EPOCH_LAPSES * self.lapse
        #: a throttled GPU retries the page on its next fault-service round
        self.replay = float(g("fault_wakeup_latency", 0.0))

    # -- the pages of an operation, block by block ----------------------------------------------
    def _blocks(self, a: Allocation, pages, regions=None):
        """(block index, _Pages, local page indices) of the 2 MiB blocks with per-page records
        that ``pages`` touch (``regions``: their blocks, where the caller has them already)."""
        st: _State = a.thrash
        ppr = a.pages_per_region
        if not st.blocks:
            return
        if regions is None:
            regions = np.asarray(uniq_div(pages, ppr))
        regions = regions[np.isin(regions, np.fromiter(st.blocks, dtype=np.int64))]
        for r in regions.tolist():
            lo, hi = r * ppr, min((r + 1) * ppr, a.npages)
            yield r, st.blocks[r], self._local(pages, lo, hi)

    @staticmethod
    def _local(pages, lo: int, hi: int) -> np.ndarray:
        """The pages of ``pages`` in [lo, hi), as indices from ``lo``."""
        ix = as_index(pages)
        if isinstance(ix, slice):
            return np.arange(max(ix.start, lo), min(ix.stop, hi)) - lo
        if not isinstance(pages, np.ndarray):          # a PageSet (model-only extents)
            from .extents import PageSet
            return np.asarray(pages.intersect(PageSet.span(lo, hi)), dtype=np.int64) - lo
        a, b = np.searchsorted(pages, [lo, hi])
        return np.asarray(pages[a:b], dtype=np.int64) - lo

    # -- a fault asks first ----------------------------------------------------------------------
    def hint(self, a: Allocation, pages, proc: int, now: float) -> float | None:
        """Processor ``proc`` (a GPU, or CPU_ID) faults on ``pages`` of ``a`` at ``now``: the
        driver's hint for each thrashing page.  Returns until when ``proc`` is throttled (the
        latest period end among them), or None where it may go on now."""
        if not self.enabled or a.thrash is None or not a.thrash.blocks or pages.size == 0:
            return None
        st: _State = a.thrash
        bit, until = loc_bit(proc), None
        for r, P, i in list(self._blocks(a, pages)):
            last = st.thrashed.get(r)
            if last is not None and now - last > self.epoch and st.resets.get(r, 0) < MAX_RESETS:
                # an epoch without thrashing: the block's per-page records go
                st.resets[r] = st.resets.get(r, 0) + 1
                del st.blocks[r], st.thrashed[r]
                st.block_ts[r], st.block_proc[r] = np.nan, NOBODY
                continue
            lo = r * a.pages_per_region
            i = i[P.events[i] >= self.threshold]
            if i.size:
                # a page whose preferred location is the CPU, which every processor can reach:
                # the driver pins it there (get_hint_for_migration_thrashing), no throttle
                i = i[np.asarray(a.preferred[as_index(i + lo)]) != CPU_ID]
            if i.size == 0:
                continue
            mine = (P.throttled[i] & bit) != 0
            waiting = mine & (now < P.end[i]) & (P.spare[i] != proc)
            if waiting.any():
                until = max(until or 0.0, float(P.end[i[waiting]].max()))
            i, mine = i[~waiting], mine[~waiting]
            ended = i[mine]                                     # thrashing_throttle_end_processor
            P.throttled[ended] &= ~bit
            P.end[ended[P.throttled[ended] == 0]] = 0.0
            i = i[now - P.ts[i] <= self.lapse]                  # still thrashing
            if i.size == 0:
                continue
            opens = now > P.end[i]                              # thrashing_throttle_update
            o = i[opens]
            P.end[o] = now + self.nap
            P.spare[o] = np.where(P.spare[o] == proc, NOBODY, proc)
            k = i[~opens]
            P.spare[k[P.spare[k] == NOBODY]] = proc
            t = i[P.spare[i] != proc]                           # THROTTLE
            if t.size:
                P.throttled[t] |= bit
                P.throttles[t] = np.minimum(P.throttles[t].astype(np.int16) + 1, THROTTLES_MAX)
                until = max(until or 0.0, float(P.end[t].max()))
        return until

    def wait(self, a: Allocation, pages, proc: int, now: float, cpu: bool) -> float:
        """How long ``proc`` waits before its fault on ``pages`` at ``now`` is serviced: 0, or
        until the throttling period ends (the CPU sleeping, a GPU replaying) -- after which its
        retry asks again (and goes on).  A wait counts one ``throttles`` and is traced."""
        until = self.hint(a, pages, proc, now)
        if until is None:
            return 0.0
        wake = now
        for _ in range(8):          # (each retry ends a period: a few at most)
            wake = wake + (until - wake) * CPU_SLEEP_RANGE if cpu else until + self.replay
            until = self.hint(a, pages, proc, wake)
            if until is None or until <= wake:
                break
        nap = wake - now
        self.record.counters["throttles"] += 1
        if cpu:
            self.record.log("throttle", "kmd", f"CPU slept {nap * 1e3:.3f} ms in its fault "
                            "handler on thrashing pages")
        else:
            self.record.log("throttle", "kmd", f"GPU{proc} throttled {nap * 1e3:.3f} ms on "
                            "thrashing pages (they migrate back and forth within 500 us)")
        return nap

    # -- then the pages move ---------------------------------------------------------------------
    def migrated(self, a: Allocation, pages, proc: int, now: float, counted: bool) -> None:
        """``pages`` of ``a`` became resident at ``proc`` at ``now``.  ``counted``: by a fault or
        the density prefetcher (a thrashing event where it comes within the lapse); otherwise
        (an explicit prefetch, an eviction, read duplication) the thrashing pages moved are
        cleared."""
        if not self.enabled or a.kind != "managed" or pages.size == 0:
            return
        if not counted:
            if a.thrash is not None:
                for _, P, i in self._blocks(a, pages):
                    P.clear(i[P.events[i] >= self.threshold])
            return
        if a.thrash is None:
            a.thrash = _State(a.nregions)
        st: _State = a.thrash
        regions = np.asarray(uniq_div(pages, a.pages_per_region))
        # a block whose last migration was another processor's within the lapse gets its
        # per-page records now (thrashing_event_cb: "potential thrashing within the block")
        bts, bproc = st.block_ts[regions], st.block_proc[regions]
        new = regions[(now - bts <= self.lapse) & (bproc != proc)]
        ppr = a.pages_per_region
        for r in new.tolist():
            if r not in st.blocks:
                st.blocks[r] = _Pages(min(ppr, a.npages - r * ppr))
        if st.blocks:
            for r, P, i in self._blocks(a, pages, regions):
                last = P.ts[i].copy()
                P.ts[i] = now
                seen = ~np.isnan(last)
                within = seen & (now - last <= self.lapse)
                w = i[within]
                P.events[w] = np.minimum(P.events[w] + 1, EVENTS_MAX)
                if (P.events[w] >= self.threshold).any():
                    st.thrashed[r] = now
                P.clear(i[seen & ~within & (P.events[i] >= self.threshold)])
        st.block_ts[regions] = now
        st.block_proc[regions] = proc

