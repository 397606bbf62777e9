"""Model time and the streams' queues.

Model time only (:attr:`Clock.now`, seconds): the same program gives the same numbers anywhere.
The host's time is ``now``; each stream's queued work ends at its ``ready``.  Work put on a
stream starts when both the host and the stream are there, after the fixed waits the driver
adds (a fresh stream's set-up, the hand-over from a copy or a prefetch, deferred page-table
work of its GPU), and a transfer waits for its link direction.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

from .costs import Profile


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


@dataclass(frozen=True)
class Slot:
    """Where :meth:`Clock.schedule` put one operation: it runs from ``start`` to ``end``;
    ``flush``: the deferred page-table work of its GPU that started with it (seconds, 0 if
    none)."""
    start: float
    end: float
    flush: float


class Clock:
    """The host's time, the streams, the transfer links and each GPU's deferred page-table work."""

    def __init__(self, profile: Profile):
        self.profile = profile
        self.now = 0.0
        #: live streams only: a stream nobody holds any more is dropped (its queued work still
        #: counts through the horizon, so a device synchronize still waits for it)
        self.streams: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        #: each device's default stream (device 0's exists from the start; others on first use)
        self._defaults = {0: SimStream(0, 0, default=True)}
        self.streams[0] = self._defaults[0]
        self._next_stream = 1
        self._horizon = 0.0          # the latest end of any work ever enqueued
        self._links: dict = {}       # transfer direction -> when the link is free again
        #: per GPU: the deferred page-table work an allocation or a free left for it
        #: (kind -> seconds); its next operation does it first, a device synchronize does it
        self._flush: dict = {}
        self._flush_ready: dict = {}         # per GPU: when the deferred work started is done
        #: (start, end) windows in which every queue of the process is stopped (AMD with XNACK
        #: off: a migration of a GPU-mapped range, until KFD remaps it; see :meth:`stop_queues`)
        self._stopped: list = []
        #: recorded events whose time is still ahead of the host (a stop of the queues delays
        #: them with the work they mark)
        self._pending: weakref.WeakSet = weakref.WeakSet()

    # -- the host's time -----------------------------------------------------------------------
    def advance(self, seconds: float) -> None:
        """The host spends ``seconds``."""
        self.now += seconds

    def wait_for(self, t: float) -> None:
        """The host waits until ``t`` (no time passes if that is behind it)."""
        self.now = max(self.now, t)

    # -- streams and events ----------------------------------------------------------------------
    def stream(self, device: int = 0, default: bool = False) -> SimStream:
        s = SimStream(self._next_stream, device, default=default)
        self._next_stream += 1
        self.streams[s.id] = s
        return s

    def default_stream(self, device: int = 0) -> SimStream:
        if device not in self._defaults:
            self._defaults[device] = self.stream(device, default=True)
        return self._defaults[device]

    def drop_stream(self, s: SimStream) -> None:
        self.streams.pop(s.id, None)

    def record(self, event: SimEvent, s: SimStream) -> None:
        """``event`` happens when the host and the work queued on ``s`` so far are both done."""
        event.time = max(self.now, s.ready)
        if event.time > self.now:
            if len(self._pending) > 256:
                for ev in [e for e in self._pending if e.time is None or e.time <= self.now]:
                    self._pending.discard(ev)
            self._pending.add(event)

    def schedule(self, s: SimStream, duration: float, kind: str = "kernel",
                 link: str | None = None) -> Slot:
        """Queue ``duration`` of work of ``kind`` ("kernel", "copy", "prefetch", ...) on
        ``s``; ``link``: the transfer direction it occupies (``"h2d"``, ``"d2h"``, ``"peer"``):
        the link has one bandwidth per direction, so transfers in the same direction on
        different streams run one after the other, not side by side."""
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
        if kind == "kernel" and self._flush_ready:
            start = max(start, self._flush_ready.get(s.device, 0.0))
        if kind == "kernel" and after in ("copy", "prefetch"):
            # the hand-over from the copy engine comes after the deferred mapping work too
            # (fit_probe fresh_pinned, 2x H200: copy + read from a fresh pinned buffer ~25 us
            # slower than a zero-copy read at 8-512 KiB, faster at 4 MiB)
            start += self.profile.host_op(after + "_handoff_latency")
        if link is not None:
            start = max(start, self._links.get(link, 0.0))
        if self._stopped and kind not in ("prefetch", "prefetch_noop"):
            start, duration = self._around_stops(start, duration)
        if link is not None:
            self._links[link] = start + duration
        s.ready = start + duration
        if s.ready > self._horizon:
            self._horizon = s.ready
        return Slot(start, s.ready, flush)

    def synchronize(self, what=None) -> None:
        """The host waits for ``what``: everything (None; a device synchronize also does the
        deferred page-table work), a :class:`SimStream` or a :class:`SimEvent`."""
        p = self.profile
        if what is None:
            # every stream's work ends by the horizon, live streams and dropped ones alike:
            # O(1); a device synchronize also waits for deferred page-table work
            flush = max((self._take_flush(g) for g in list(self._flush)), default=0.0)
            self.now = max(self.now, self._horizon) + flush + p.sync_device
        elif isinstance(what, SimStream):
            self.now = max(self.now, what.ready) + p.sync_stream
        elif isinstance(what, SimEvent):
            self.now = max(self.now, what.time or 0.0) + p.sync_event

    # -- stopped queues ----------------------------------------------------------------------------
    def stop_queues(self, t0: float, t1: float, own: SimStream | None = None,
                    own_link: str | None = None) -> None:
        """Every queue of the process -- every stream of every GPU -- runs no work from ``t0``
        to ``t1`` (amdkfd with XNACK off: kgd2kfd_quiesce_mm until the restore work's
        kgd2kfd_resume_mm; ledger: amd.xnack0.quiesce).  Work running at ``t0`` resumes at
        ``t1``; work queued later starts after it.  ``own``: the stream of the migration that
        stopped them (its next work waits for ``t1``); ``own_link``: the link that migration
        holds.  A prefetch (a KFD ioctl from the host, not a queue) is not held up."""
        if t1 <= t0:
            return
        shift = t1 - t0
        live = [st for st in self.streams.values() if st is not own]
        # the latest work of a stream nobody holds any more still counts through the horizon
        dropped_later = self._horizon > max([st.ready for st in live] + [
            own.ready if own is not None else 0.0])
        for st in live:
            if st.ready > t0:
                st.ready += shift
        if own is not None:
            own.ready = max(own.ready, t1)
        for k, free in list(self._links.items()):
            if k != own_link and free > t0:
                self._links[k] = free + shift
        for ev in list(self._pending):
            if ev.time is None or ev.time <= self.now:
                self._pending.discard(ev)
            elif ev.time > t0:
                ev.time += shift
        ends = [st.ready for st in live] + [t1] + ([own.ready] if own is not None else [])
        if dropped_later and self._horizon > t0:
            ends.append(self._horizon + shift)
        self._horizon = max(ends + [self._horizon])
        self._stopped = [(a, b) for a, b in self._stopped if b > self.now]
        self._stopped.append((t0, t1))
        self._stopped.sort()

    def _around_stops(self, start: float, duration: float) -> tuple[float, float]:
        """Work of ``duration`` that would start at ``start``, moved out of the stopped windows:
        it starts after a window it would start in, and one that opens while it runs holds it
        for the window's length."""
        for t0, t1 in self._stopped:
            if t0 <= start < t1:
                start = t1
            elif start < t0 < start + duration:
                duration += t1 - t0
        return start, duration

    # -- deferred page-table work ----------------------------------------------------------------
    def defer(self, g: int, key: str) -> None:
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
