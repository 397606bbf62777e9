"""Races: host and GPU accesses to the same bytes with nothing ordering them.

GPU work stays *in flight* (:class:`InFlight`) from its submission until its end in model time.
A host access that overlaps work in flight, where either side writes, is a race; so is GPU work
on one stream overlapping work on another stream that was not ordered before it.  Each race is
counted (``race_flags``: once per operation in flight and allocation), the first
:data:`RACE_EXAMPLES` are kept, and it is reported: a :class:`RaceWarning`, or
:class:`RaceDetected` in strict mode.

NumPy's C paths read and write a host view with no hook (``np.array(v)``, ``rng.random(out=v)``,
a memoryview), so the bytes such a path may write are remembered (*watched*) and compared at the
next engine call.
"""
from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..errors import RaceDetected, RaceWarning
from .pages import Access, Allocation

RACE_EXAMPLES = 100         # races kept as examples (warn mode may flag one every step)

HOST_HINT = ("synchronize first: stream.synchronize() or event.synchronize() "
             "(article §3.3); without it the result is wrong with no error (§5.1)")

#: the engine and its parts: a RaceWarning is reported at the first frame outside them (the
#: backend adapter's or a view's call into the engine)
ENGINE_MODULES = frozenset({"umkit.sim.engine", "umkit.sim.races", "umkit.sim.clock",
                            "umkit.sim.address_space", "umkit.sim.faults", "umkit.sim.host",
                            "umkit.sim.record", "umkit.sim.copies"})


@dataclass(eq=False)
class InFlight:
    """GPU work between its submission and its ``end``: what it touches (``accesses``)."""
    end: float
    name: str
    stream: int
    accesses: list = field(default_factory=list)
    start: float = 0.0
    default: bool = False                       # enqueued on a device's default stream
    flagged: set = field(default_factory=set)   # allocations already counted as raced


def overlap(x: Access, y: Access):
    """Pages both accesses touch, or None."""
    if x.alloc is not y.alloc or x.pages.size == 0 or y.pages.size == 0:
        return None
    if x.pages[-1] < y.pages[0] or y.pages[-1] < x.pages[0]:
        return None
    both = np.intersect1d(x.pages, y.pages, assume_unique=True)
    return both if both.size else None


def _outside_engine() -> int:
    """The ``stacklevel`` of the first frame outside :data:`ENGINE_MODULES`, seen from the
    function that calls this one."""
    f, level = sys._getframe(2), 2
    while f is not None and f.f_globals.get("__name__") in ENGINE_MODULES:
        f, level = f.f_back, level + 1
    return level


class RaceDetector:
    """The GPU work in flight, the races found (``examples``, ``seen``) and the watched bytes."""

    def __init__(self, clock, record, strict: bool):
        self.clock, self.record, self.strict = clock, record, strict
        self.inflight: list[InFlight] = []
        self.examples: list[dict] = []  # the first RACE_EXAMPLES races; ``seen`` counts all
        self.seen = 0
        #: host views handed out while a GPU op reads their pages: (op, alloc, lo, copy of the
        #: bytes, the op's access) -- a host write through a path NumPy does not dispatch
        #: (``rng.random(out=)``, a memoryview) shows up as changed bytes at the next engine call
        self._watches: list = []

    def reset(self) -> None:
        self.examples.clear()
        self.seen = 0

    def forget_finished(self) -> None:
        """Forget work that has finished by now (O(work in flight))."""
        now = self.clock.now
        if self.inflight and min(k.end for k in self.inflight) <= now:
            self.inflight = [k for k in self.inflight if k.end > now]

    def delay(self, t0: float, t1: float) -> None:
        """Every queue stopped from ``t0`` to ``t1`` (``Clock.stop_queues``): work in flight then
        runs that much later."""
        for k in self.inflight:
            if k.end > t0:
                k.end += t1 - t0
                if k.start >= t0:
                    k.start += t1 - t0

    def forget(self, a: Allocation) -> None:
        """``a`` was freed: work in flight no longer needs its pages -- drop those references
        now, so the allocation's bytes go when the last view of them goes, not at the next
        synchronize."""
        for k in self.inflight:
            if any(acc.alloc is a for acc in k.accesses):
                k.accesses = [acc for acc in k.accesses if acc.alloc is not a]
        if self._watches:
            self._watches = [w for w in self._watches if w[1] is not a]

    # -- reporting ---------------------------------------------------------------------------------
    def flag(self, k: InFlight, ka: Access, alloc: Allocation, both: np.ndarray, write: bool,
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
               f"may still {'write' if ka.write else 'read'} them (it ends at "
               f"{k.end * 1e3:.3f} ms, now {now * 1e3:.3f} ms)")
        if self.strict:
            raise RaceDetected(msg, hint=hint)
        warnings.warn(f"{msg}. Fix: {hint}", RaceWarning, stacklevel=_outside_engine())

    # -- the checks ------------------------------------------------------------------------------
    def check_host(self, accesses: list[Access], where: str) -> None:
        """Host accesses now against GPU work in flight: a race when either side writes."""
        self.forget_finished()
        for k in self.inflight:
            for ka in k.accesses:
                for ha in accesses:
                    if not (ka.write or ha.write):
                        continue
                    both = overlap(ka, ha)
                    if both is not None:
                        self.flag(k, ka, ha.alloc, both, ha.write, where, HOST_HINT)

    def start(self, op: InFlight) -> None:
        """GPU work ``op`` was submitted: check it against the work of other streams, keep it
        in flight, and watch the allocations a host view was kept of that it reads."""
        self.forget_finished()
        if not op.default:
            self._check_gpu(op)
        self.inflight.append(op)
        self._watch_kept(op)

    def _check_gpu(self, op: InFlight) -> None:
        """GPU work on one stream against work on another stream that overlaps it in time, or
        that had not finished when this work was submitted: two streams are unordered (unless
        one is the legacy default stream, which orders itself against the others), so a write
        on either side is a race -- whatever the model's timing happened to be."""
        for k in self.inflight:
            if k.stream == op.stream or k.default or op.default:
                continue
            if (k.end <= op.start or op.end <= k.start) and k.end <= self.clock.now:
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

    def handout(self, alloc: Allocation, pages: np.ndarray, use=lambda: "unknown") -> None:
        """A host view of ``pages`` is being handed out.  NumPy's C paths (``np.array(v)``,
        ``bytes(v)``, ``memoryview(v)``, ``rng.random(out=v)``) read and write it without any
        hook, so check here: GPU work in flight that *writes* these pages races any host use of
        them; for work that only *reads* them, remember the bytes, and a change found at the
        next engine call (while that work is still in flight) is a host write race.

        ``use()`` says what the code does with the view (:func:`views.next_use`): indexed or
        a method called (``a.host[i] = v``, ``a.host.sum()``) -- those paths are checked
        precisely, nothing to do here; stored (``h = a.host``) -- not used yet."""
        self.check_watches()
        self.forget_finished()
        view = Access(alloc, pages, False, 0)
        how = None
        if not alloc.kept:
            how = use()
            if how == "kept":           # h = a.host: work launched later is watched for it
                alloc.kept = True
        for k in self.inflight:
            for ka in k.accesses:
                both = overlap(ka, view)
                if both is None:
                    continue
                how = how or use()
                if how == "tracked" or (how == "kept" and ka.write):
                    continue
                if ka.write:
                    self.flag(k, ka, alloc, both, False, "the host (a.host, handed out now)",
                              HOST_HINT + "; take a.host only after the wait")
                else:
                    hp = alloc.host_page
                    lo, hi = int(both[0]) * hp, min(int(both[-1] + 1) * hp, alloc.nbytes)
                    self._watches.append((k, alloc, lo, alloc.data[lo:hi].copy(), ka))

    def device_writes(self, accesses, apply) -> None:
        """Run ``apply``: a kernel's or a copy's effect on the bytes (the model's data is real).
        The watches must not take those bytes for the host's: they are compared before and
        remembered again after."""
        self.check_watches()
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
        engine call (:meth:`check_watches`)."""
        for ka in op.accesses:
            al = ka.alloc
            if ka.write or not al.kept or al.freed or not len(ka.pages):
                continue
            hp = al.host_page
            lo, hi = int(ka.pages[0]) * hp, min(int(ka.pages[-1] + 1) * hp, al.nbytes)
            self._watches.append((op, al, lo, al.data[lo:hi].copy(), ka))

    def check_watches(self) -> None:
        """Host writes nobody saw (see :meth:`handout`): compare the remembered bytes."""
        if not self._watches:
            return
        now = self.clock.now
        watches, self._watches = self._watches, []
        for k, alloc, lo, before, ka in watches:
            if alloc.freed:
                continue
            current = alloc.data[lo:lo + before.size]
            if k.end > now and not np.array_equal(current, before):
                hp = alloc.host_page
                changed = np.flatnonzero(current != before)
                both = np.arange((lo + int(changed[0])) // hp, (lo + int(changed[-1])) // hp + 1)
                self.flag(k, ka, alloc, both, True, "the host (through a view handed out "
                          "earlier, by a path NumPy does not dispatch)", HOST_HINT)
            elif k.end > now:
                self._watches.append((k, alloc, lo, before, ka))
