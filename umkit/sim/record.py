"""What the model reports: its counters and its trace of driver operations.

Every operation is tagged with the driver layer that does it -- ``umd`` (user-mode driver:
bookkeeping, batching, enqueueing) or ``kmd`` (kernel-mode driver: page-table updates,
migration) -- for the article's §1.  Each trace entry is stamped with the model time it
happened at (:attr:`Clock.now`).
"""
from __future__ import annotations

from collections import deque

COUNTERS = (
    "kernels", "gpu_faults", "fault_batches", "cpu_faults", "first_touch_pages",
    "bytes_h2d", "bytes_d2h", "bytes_peer", "prefetch_bytes_h2d", "prefetch_bytes_d2h",
    "prefetcher_bytes", "evictions", "evicted_bytes", "remote_bytes", "duplicates",
    "invalidations", "race_flags", "umd_ops", "kmd_ops", "throttles",
)


class Record:
    """The counters (name -> count, every name of :data:`COUNTERS`) and the last ``trace``
    operations (a bounded deque of dicts: ``t``, ``op``, ``layer``, ``detail``, extras)."""

    def __init__(self, clock, trace: int = 2000):
        self.clock = clock
        self.counters = dict.fromkeys(COUNTERS, 0)
        self.trace: deque = deque(maxlen=trace)

    def log(self, op: str, layer: str, detail: str = "", **extra) -> None:
        """One driver operation, now: counted as a ``umd`` or ``kmd`` op and traced."""
        self.counters["umd_ops" if layer == "umd" else "kmd_ops"] += 1
        self.trace.append(dict(t=self.clock.now, op=op, layer=layer, detail=detail, **extra))

    def log_many(self, op: str, layer: str, count: int, entry) -> None:
        """``count`` driver operations, now, as :meth:`log` would record them one by one;
        ``entry(i)`` gives the ``i``-th one's (detail, extras), asked only for those the trace
        keeps."""
        self.counters["umd_ops" if layer == "umd" else "kmd_ops"] += count
        keep = count if self.trace.maxlen is None else min(count, self.trace.maxlen)
        t = self.clock.now
        for i in range(count - keep, count):
            detail, extra = entry(i)
            self.trace.append(dict(t=t, op=op, layer=layer, detail=detail, **extra))

    def reset(self) -> None:
        """Counters back to zero (a new dict: copies handed out keep their values), trace
        emptied."""
        self.counters = dict.fromkeys(COUNTERS, 0)
        self.trace.clear()
