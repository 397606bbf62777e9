"""Timing the workloads of the fit and validation sets (a leaf of :mod:`umkit.measure`): both
sets time alike, with these.  Device work is timed with events; host work with ``umkit.now()``
around a synchronized region (model time on sim, a wall clock on GPUs)."""
from __future__ import annotations

import contextlib

from .. import api

MiB = 1 << 20


def cpu_written(n_bytes, device=0):
    """A managed array of ``n_bytes`` (at least one float) the CPU has written: its pages on
    the host, ``device`` its GPU."""
    a = api.managed(max(1, n_bytes // 4), device=device)
    a.host[:] = 1.0
    api.synchronize()
    return a


def warm_up(gpus: int = 1):
    """Build and load the kit's kernels, create a sink, touch the allocator on each of the
    first ``gpus`` GPUs -- untimed, before any workload is timed."""
    for g in range(gpus):
        w = api.device_array(1 << 20, device=g)
        api.fill(w, 1.0)
        api.touch(w, 4)
        api.touch(w, 4096)
        api.increment(w)
        api.synchronize()
        w.free()


def gpu_ms(fn, stream=None) -> float:
    """Milliseconds of the device work ``fn()`` queues (events on ``stream``)."""
    with api.timer(stream) as t:
        fn()
    return t.ms


def host_ms(fn) -> float:
    """Milliseconds of ``fn()`` between two synchronizes (``umkit.now()``)."""
    api.synchronize()
    t0 = api.now()
    fn()
    api.synchronize()
    return (api.now() - t0) * 1e3


def round_trips(a, n: int, back: str = "fault") -> dict:
    """``n`` round trips back to back on the managed array ``a``: the CPU writes it, the GPU
    increments it (and synchronizes), the CPU sums it -- ``back="prefetch"``: after a prefetch
    of it to the CPU.  Returns each piece's milliseconds per trip, ``{"write": [...],
    "increment": [...], "sum": [...]}``, on ``umkit.now()``'s clock (no synchronize between
    trips: a trip starts when the last one's sum returns)."""
    out: dict = {"write": [], "increment": [], "sum": []}
    for _ in range(n):
        t0 = api.now()
        a.host[:] = 2.0
        t1 = api.now()
        api.increment(a)
        api.synchronize()
        t2 = api.now()
        if back == "prefetch":
            a.prefetch("cpu")
            api.synchronize()
        float(a.host.sum())
        t3 = api.now()
        for k, (x, y) in zip(out, ((t0, t1), (t1, t2), (t2, t3))):
            out[k].append((y - x) * 1e3)
    return out


@contextlib.contextmanager
def written(n_bytes, device=0):
    """``with written(n) as a:`` a :func:`cpu_written` array, freed at the end of the block."""
    a = cpu_written(n_bytes, device)
    try:
        yield a
    finally:
        a.free()


class Sink:
    """``with Sink() as s:`` a one-float device array that ``umkit.touch(..., sink=s)`` writes
    to (so the read is not optimised away), freed at the end of the block."""

    def __init__(self, device=0):
        self.d = api.device_array(1, device=device)

    def __enter__(self):
        return self.d

    def __exit__(self, *exc):
        self.d.free()


def free_all(*arrays):
    """Free each array not freed yet (``None`` entries are skipped)."""
    for x in arrays:
        if x is not None and not x.freed:
            x.free()
