"""Races: host and GPU accesses to the same bytes with nothing ordering them.

A race is decided by *ordering*, as on a real GPU, never by the model's clock: GPU work stays
*in flight* (:class:`InFlight`) from its submission until the host has waited for it -- a
synchronize of its stream, of an event recorded on its stream after it, or of the device.
However much model time has passed, work nobody waited for may still be running.  A host access
that overlaps work in flight, where either side writes, is a race; so is GPU work on one stream
overlapping work of another stream that was not ordered before it (the legacy default stream of
a device orders itself against that device's other streams).  Each race is counted
(``race_flags``: once per operation in flight and allocation), the first
:data:`RACE_EXAMPLES` are kept, and it is reported: a :class:`RaceWarning`, or
:class:`RaceDetected` in strict mode.

Ordering is kept as vector clocks: every submission gets a sequence number, and each stream
(and each recorded event) knows the latest work of every stream it is ordered after.

NumPy's C paths read and write a host view with no hook (``np.array(v)``, ``rng.random(out=v)``,
a memoryview), so while work is in flight the bytes such a path may write are *watched*: a
CRC-32 of the range, one per allocation, however many operations are in flight (:class:`Watch`).
A changed checksum is a host write race, found when that work is waited for, before GPU work
writes those bytes, or when the allocation is freed.
"""
from __future__ import annotations

import sys
import warnings
import weakref
import zlib
from dataclasses import dataclass, field

import numpy as np

from ..errors import RaceDetected, RaceWarning
from .extents import PageSet
from .pages import Access, Allocation

RACE_EXAMPLES = 100         # races kept as examples (warn mode may flag one every step)
#: operations of one stream kept apart while in flight; more are merged, oldest first (a stream
#: nobody waits for must not grow the detector without bound)
STREAM_INFLIGHT = 64

HOST_HINT = ("synchronize first: stream.synchronize() or event.synchronize() "
             "(article §3.3); without it the result may be wrong, with no error (§5.1)")

#: the engine and its parts: a RaceWarning is reported at the first frame outside them (the
#: backend adapter's or a view's call into the engine)
ENGINE_MODULES = frozenset({"umkit.sim.engine", "umkit.sim.races", "umkit.sim.clock",
                            "umkit.sim.address_space", "umkit.sim.faults", "umkit.sim.host",
                            "umkit.sim.record", "umkit.sim.copies"})


@dataclass(eq=False)
class InFlight:
    """GPU work between its submission and the host's wait for it: what it touches
    (``accesses``); ``end``: when it ends in model time (for messages only)."""
    end: float
    name: str
    stream: int
    accesses: list = field(default_factory=list)
    start: float = 0.0
    default: bool = False                       # enqueued on a device's default stream
    flagged: set = field(default_factory=set)   # allocations already counted as raced
    seq: int = 0                                # its place in submission order
    device: int = 0


class Watch:
    """The bytes [lo, hi) of ``alloc`` that C code may write with no hook while ``ops`` are in
    flight: their CRC-32 when last seen."""
    __slots__ = ("alloc", "lo", "hi", "crc", "ops")

    def __init__(self, alloc: Allocation, lo: int, hi: int, ops: list):
        self.alloc, self.lo, self.hi, self.ops = alloc, lo, hi, ops
        self.crc = self.checksum()

    def checksum(self) -> int:
        return zlib.crc32(self.alloc.data[self.lo:self.hi])


def _as_pageset(p) -> PageSet:
    return p if isinstance(p, PageSet) else PageSet.from_sorted(p)


def overlap(x: Access, y: Access):
    """Pages both accesses touch (sorted, non-empty), or None."""
    if x.alloc is not y.alloc or len(x.pages) == 0 or len(y.pages) == 0:
        return None
    if x.pages[-1] < y.pages[0] or y.pages[-1] < x.pages[0]:
        return None
    if isinstance(x.pages, PageSet) or isinstance(y.pages, PageSet):
        both = _as_pageset(x.pages).intersect(_as_pageset(y.pages))
    else:
        both = np.intersect1d(x.pages, y.pages, assume_unique=True)
    return both if len(both) else None


def _same_pages(x, y) -> bool:
    if len(x) != len(y) or x[0] != y[0] or x[-1] != y[-1]:
        return False
    if isinstance(x, PageSet) and isinstance(y, PageSet):
        return np.array_equal(x.lo, y.lo) and np.array_equal(x.hi, y.hi)
    return np.array_equal(np.asarray(x), np.asarray(y))


def _union(x, y):
    if isinstance(x, PageSet) or isinstance(y, PageSet):
        return PageSet.from_sorted(np.union1d(np.asarray(x), np.asarray(y)))
    return np.union1d(x, y)


def _outside_engine() -> int:
    """The ``stacklevel`` of the first frame outside :data:`ENGINE_MODULES`, seen from the
    function that calls this one."""
    f, level = sys._getframe(2), 2
    while f is not None and f.f_globals.get("__name__") in ENGINE_MODULES:
        f, level = f.f_back, level + 1
    return level


def _merge(into: dict, other: dict) -> None:
    for k, v in other.items():
        if into.get(k, 0) < v:
            into[k] = v


class RaceDetector:
    """The GPU work in flight, its ordering, the races found (``examples``, ``seen``), the host
    views alive and the watched bytes."""

    def __init__(self, clock, record, strict: bool):
        self.clock, self.record, self.strict = clock, record, strict
        self.inflight: list[InFlight] = []
        self.examples: list[dict] = []  # the first RACE_EXAMPLES races; ``seen`` counts all
        self.seen = 0
        self._seq = 0
        #: stream id -> {stream id: the latest sequence number of that stream it is ordered
        #: after}; only streams with work in flight appear as keys inside
        self._vc: dict = {}
        self._defaults: dict = {}               # device -> the id of its default stream
        self._events: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        #: id(allocation) -> (allocation, the host views of it alive: their ViewInfo objects)
        self._views: dict = {}
        self._raw: set = set()      # ids of allocations a raw pointer of was handed out
        self._watches: dict = {}    # id(allocation) -> Watch

    def reset(self) -> None:
        self.examples.clear()
        self.seen = 0

    # -- ordering ----------------------------------------------------------------------------------
    def _ordered(self, k: InFlight, vc: dict) -> bool:
        return vc.get(k.stream, 0) >= k.seq

    def submitted(self, stream: int, device: int, default: bool) -> dict:
        """A new operation on ``stream``: its vector clock (what it is ordered after, itself
        included), now the stream's.  The legacy default stream waits for the device's other
        streams; they wait for it."""
        self._seq += 1
        vc = dict(self._vc.get(stream, ()))
        if default:
            self._defaults[device] = stream
            for k in self.inflight:
                if k.device == device and k.stream != stream:
                    _merge(vc, {k.stream: k.seq})
                    _merge(vc, self._vc.get(k.stream, {}))
        else:
            d = self._defaults.get(device)
            if d is not None:
                _merge(vc, self._vc.get(d, {}))
        vc[stream] = self._seq
        self._vc[stream] = vc
        return vc

    def recorded(self, event, stream) -> None:
        """``event`` was recorded on ``stream``: waiting for it waits for what the stream's work
        so far is ordered after."""
        self._events[event] = dict(self._vc.get(stream.id, ()))

    def waited(self, what=None) -> None:
        """The host waited for ``what``: everything (None), a stream, or an event.  The work
        that is ordered before it is no longer in flight; host writes found in the bytes it
        was watching are reported now."""
        if what is None:
            done = None
        elif hasattr(what, "ready"):            # a stream
            done = self._vc.get(what.id, {})
        else:
            done = self._events.get(what, {})
        if done is not None and not done:
            return
        retired = [k for k in self.inflight if done is None or self._ordered(k, done)]
        if not retired:
            return
        gone = set(map(id, retired))
        for key, w in list(self._watches.items()):
            if any(id(k) in gone for k in w.ops):
                self._verify(w)
                w.ops = [k for k in w.ops if id(k) not in gone]
                if not w.ops:
                    del self._watches[key]
        self.inflight = [k for k in self.inflight if id(k) not in gone]
        self._prune()

    def _prune(self) -> None:
        """Forget ordering facts about streams with nothing in flight (they decide nothing)."""
        live = {k.stream for k in self.inflight}
        if not live:
            self._vc.clear()
            return
        for s in list(self._vc):
            vc = {k: v for k, v in self._vc[s].items() if k in live}
            if vc:
                self._vc[s] = vc
            else:
                del self._vc[s]

    def forget_finished(self) -> None:
        """Nothing to do by the clock: work leaves the flight when it is waited for
        (:meth:`waited`), whatever the model's time."""

    def delay(self, t0: float, t1: float) -> None:
        """Every queue stopped from ``t0`` to ``t1`` (``Clock.stop_queues``): work in flight then
        runs that much later (the times in the messages)."""
        for k in self.inflight:
            if k.end > t0:
                k.end += t1 - t0
                if k.start >= t0:
                    k.start += t1 - t0

    def forget(self, a: Allocation) -> None:
        """``a`` was freed: host writes to its watched bytes are reported now; work in flight no
        longer needs its pages -- drop those references, so the allocation's bytes go when the
        last view of them goes, not at the next synchronize."""
        w = self._watches.pop(id(a), None)
        if w is not None:
            self._verify(w)
        self._views.pop(id(a), None)
        self._raw.discard(id(a))
        for k in self.inflight:
            if any(acc.alloc is a for acc in k.accesses):
                k.accesses = [acc for acc in k.accesses if acc.alloc is not a]

    # -- host views ----------------------------------------------------------------------------
    def view_made(self, alloc: Allocation, info) -> None:
        """A host view of ``alloc`` (its :class:`~umkit.sim.views.ViewInfo`) exists: while it
        (or any view derived from it) lives, work launched on ``alloc`` is watched."""
        ent = self._views.get(id(alloc))
        if ent is None or ent[0] is not alloc:
            ent = self._views[id(alloc)] = (alloc, weakref.WeakSet())
        ent[1].add(info)

    def raw_pointer(self, alloc: Allocation, pages, what: str) -> None:
        """A raw address of ``alloc``'s bytes is being handed out (``.ctypes``,
        ``__array_interface__``): what code does through it cannot be seen, so it is refused
        while work that touches these pages is in flight; afterwards, work launched on
        ``alloc`` is watched for as long as it lives (writes through the pointer are found)."""
        view = Access(alloc, pages, False, 0)
        for k in self.inflight:
            for ka in k.accesses:
                if overlap(ka, view) is not None:
                    raise RaceDetected(
                        f"race: {what} hands out a raw pointer to bytes of allocation "
                        f"{alloc.ptr:#x} while '{k.name}' on stream {k.stream} may still "
                        f"{'write' if ka.write else 'read'} them; what code does through a raw "
                        "pointer cannot be checked", hint=HOST_HINT + "; take the pointer "
                        "only after the wait")
        self._raw.add(id(alloc))

    def watching(self, alloc: Allocation) -> bool:
        """Whether bytes of ``alloc`` are watched now."""
        w = self._watches.get(id(alloc))
        return w is not None and w.alloc is alloc

    def _kept(self, alloc: Allocation) -> bool:
        if id(alloc) in self._raw:
            return True
        ent = self._views.get(id(alloc))
        return ent is not None and ent[0] is alloc and len(ent[1]) > 0

    # -- reporting ---------------------------------------------------------------------------------
    def flag(self, k: InFlight, ka: Access, alloc: Allocation, both, write: bool,
             who: str, hint: str, **extra) -> None:
        """Record and report one race between ``k`` (in flight) and an access by ``who``."""
        now = self.clock.now
        hp = alloc.host_page
        info = dict(kernel=k.name, stream=k.stream, ptr=alloc.ptr,
                    bytes=(int(both[0]) * hp, int(both[-1] + 1) * hp),
                    host_write=write, kernel_write=ka.write, kernel_end=k.end, t=now,
                    **extra)
        self.seen += 1
        if len(self.examples) < RACE_EXAMPLES:     # the first examples; every race is counted
            self.examples.append(info)
        if alloc.ptr not in k.flagged:      # one race per (op in flight, allocation)
            k.flagged.add(alloc.ptr)
            self.record.counters["race_flags"] += 1
        what = "" if who.startswith("'") else "kernel "     # GPU-GPU names both ops itself
        msg = (f"race: {who} {'writes' if write else 'reads'} bytes "
               f"[{info['bytes'][0]:#x}, {info['bytes'][1]:#x}) of allocation "
               f"{alloc.ptr:#x} while {what}'{k.name}' on stream {k.stream} "
               f"may still {'write' if ka.write else 'read'} them (nothing waited for it; "
               f"in model time it ends at {k.end * 1e3:.3f} ms, now {now * 1e3:.3f} ms)")
        if self.strict:
            raise RaceDetected(msg, hint=hint)
        warnings.warn(RaceWarning(f"{msg}. Fix: {hint}"), stacklevel=_outside_engine())

    # -- the checks ------------------------------------------------------------------------------
    def check_host(self, accesses: list[Access], where: str) -> None:
        """Host accesses now against GPU work in flight: a race when either side writes."""
        for k in self.inflight:
            for ka in k.accesses:
                for ha in accesses:
                    if not (ka.write or ha.write):
                        continue
                    both = overlap(ka, ha)
                    if both is not None:
                        self.flag(k, ka, ha.alloc, both, ha.write, where, HOST_HINT)

    def start(self, op: InFlight) -> None:
        """GPU work ``op`` was submitted: order it, check it against the work of other streams
        it is not ordered after, keep it in flight, and watch the allocations it touches that
        a host view of is alive."""
        st = self.clock.streams.get(op.stream)
        if st is not None:
            op.device = st.device
        vc = self.submitted(op.stream, op.device, op.default)
        op.seq = self._seq
        if not op.accesses:
            return
        self._check_gpu(op, vc)
        self.inflight.append(op)
        self._watch_kept(op)
        mine = [k for k in self.inflight if k.stream == op.stream]
        if len(mine) > STREAM_INFLIGHT:
            self._merge_oldest(mine[0], mine[1])

    def _merge_oldest(self, k: InFlight, k2: InFlight) -> None:
        """Two operations of one stream in flight become one (``k``): it leaves the flight when
        the later one would (a wait between the two is no longer seen: a race may be reported
        that the wait had ordered, never the other way round)."""
        acc: dict = {}
        for a in k.accesses + k2.accesses:
            key = (id(a.alloc), a.write, a.atomic)
            old = acc.get(key)
            if old is None:
                acc[key] = a
            elif not _same_pages(old.pages, a.pages):   # a relaunched kernel: nothing to add
                acc[key] = Access(a.alloc, _union(old.pages, a.pages), a.write,
                                  old.nbytes + a.nbytes, atomic=a.atomic)
        k.accesses = list(acc.values())
        k.seq, k.end = k2.seq, max(k.end, k2.end)
        k.name = k.name if k.name.endswith("...") else k.name + " ..."
        k.flagged |= k2.flagged
        self.inflight.remove(k2)
        for w in self._watches.values():
            if k2 in w.ops:
                w.ops = [x for x in w.ops if x is not k2] + ([] if k in w.ops else [k])

    def _check_gpu(self, op: InFlight, vc: dict) -> None:
        """GPU work on one stream against work in flight on another stream that it is not
        ordered after: two unordered streams touching the same bytes, one writing, race --
        whatever the model's timing happened to be."""
        for k in self.inflight:
            if k.stream == op.stream or self._ordered(k, vc):
                continue
            for ka in k.accesses:
                for oa in op.accesses:
                    if not (ka.write or oa.write) or (ka.atomic and oa.atomic):
                        continue
                    both = overlap(ka, oa)
                    if both is not None:
                        self.flag(k, ka, oa.alloc, both, oa.write,
                                  f"'{op.name}' on stream {op.stream}",
                                  "order the two streams: put both on one stream, or wait "
                                  "for the first (stream.synchronize(), or an event recorded "
                                  "on it) before starting the second (article §3.3)",
                                  other=op.name, other_stream=op.stream)

    def handout(self, alloc: Allocation, pages, use=lambda: "unknown") -> None:
        """A host view of ``pages`` is being handed out.  NumPy's C paths (``np.array(v)``,
        ``bytes(v)``, ``memoryview(v)``, ``rng.random(out=v)``) read and write it without any
        hook, so check here (:meth:`escape`).  ``use()`` says what the code does with the view
        (:func:`views.next_use`)."""
        if self.inflight:
            self.escape(alloc, pages, use, "the host (a.host, handed out now)")

    def escape(self, alloc: Allocation, pages, use, who: str) -> None:
        """Bytes of ``alloc`` (``pages``) reach code that may use them with no hook, where
        ``use()`` says how: indexed or a method called (``"tracked"``: those paths are
        checked precisely, nothing to do here); stored (``"kept"``: not used yet -- a write
        through it is watched for); anything else (``"unknown"``: passed to C code such as
        ``np.array`` or ``bytes``): GPU work in flight that *writes* these pages races it now,
        and writes to pages work in flight uses are watched for."""
        view = Access(alloc, pages, False, 0)
        how = None
        for k in self.inflight:
            for ka in k.accesses:
                both = overlap(ka, view)
                if both is None:
                    continue
                how = how or use()
                if how == "tracked":
                    return
                if ka.write and how != "kept":
                    self.flag(k, ka, alloc, both, False, who,
                              HOST_HINT + "; take the view only after the wait")
                hp = alloc.host_page
                self._watch(k, alloc, int(both[0]) * hp,
                            min(int(both[-1] + 1) * hp, alloc.nbytes))

    def _watch(self, k: InFlight, alloc: Allocation, lo: int, hi: int) -> None:
        """Watch bytes [lo, hi) of ``alloc`` while ``k`` is in flight: one checksum per
        allocation, widened (after a check of what it held) when a range outside it comes."""
        if not getattr(alloc, "has_data", True) or alloc.freed or hi <= lo:
            return
        w = self._watches.get(id(alloc))
        if w is None or w.alloc is not alloc:
            self._watches[id(alloc)] = Watch(alloc, lo, hi, [k])
            return
        if k not in w.ops:
            w.ops.append(k)
        if lo < w.lo or hi > w.hi:
            self._verify(w)
            w.lo, w.hi = min(lo, w.lo), max(hi, w.hi)
            w.crc = w.checksum()

    def _verify(self, w: Watch) -> None:
        """Report a host write nobody saw in ``w``'s bytes (then take them as they are)."""
        if w.alloc.freed or not w.ops:
            return
        crc = w.checksum()
        if crc == w.crc:
            return
        w.crc = crc
        k = w.ops[0]
        ka = next((a for a in k.accesses if a.alloc is w.alloc), None)
        if ka is None:
            return
        hp = w.alloc.host_page
        both = np.arange(w.lo // hp, (w.hi - 1) // hp + 1)
        self.flag(k, ka, w.alloc, both, True, "the host (through a view handed out earlier, "
                  "by a path NumPy does not dispatch)", HOST_HINT)

    def device_writes(self, accesses, apply) -> None:
        """Run ``apply``: a kernel's or a copy's effect on the bytes (the model's data is real).
        The watches must not take those bytes for the host's: they are checked before and
        taken again after."""
        written = [w for ac in accesses if ac.write
                   for w in [self._watches.get(id(ac.alloc))] if w is not None]
        for w in written:
            self._verify(w)
        apply()
        for w in written:
            w.crc = w.checksum()

    def _watch_kept(self, op: InFlight) -> None:
        """``op`` touches allocations a host view of is alive (``h = a.host`` before the
        launch) or a raw pointer of was handed out: a write through it by a path with no hook
        (``rng.random(out=h)``, a memoryview, ctypes) while ``op`` runs changes bytes nobody
        saw -- or overwrites what ``op`` wrote -- so those bytes are watched."""
        for ka in op.accesses:
            al = ka.alloc
            if al.freed or not len(ka.pages) or not self._kept(al):
                continue
            hp = al.host_page
            self._watch(op, al, int(ka.pages[0]) * hp, min(int(ka.pages[-1] + 1) * hp, al.nbytes))

    def check_watches(self) -> None:
        """An engine call between waits: nothing is compared here (a comparison reads every
        watched byte); host writes through paths with no hook are found at the wait, before a
        GPU write to the bytes, or at the free (:meth:`waited`, :meth:`device_writes`,
        :meth:`forget`)."""
