"""The memory ECG (显存心电图, the article's §7): the same training-style step, 50 times, under
each strategy; step time per step, one curve per strategy.  A flat line is a strategy to keep;
spikes are pages ping-ponging between CPU and GPU."""
from __future__ import annotations

import sys

from .. import validate as V
from .. import workloads
from ..errors import InvalidType
from ..runtime import backend
from .model import verdict
from .recording import Recorder

ECG_STRATEGIES = ("device", "managed", "managed+prefetch", "managed+advice", "mixed", "pinned")
MAX_STEPS = 100_000   # a bound on one ECG run (the CLI and the panel bound it too)
#: the largest job, in MiB, a step of umkit.workloads can run: its kernel (umkit.increment) counts
#: float32 elements in a 32-bit int (at most 2**31-1) and a job's parameters are 3/4 of its bytes
#: (workloads.TrainingStep), so 10922 MiB; the ECG, ``umkit ecg --size`` and the strategy panel
#: refuse more with this number instead of the kernel's own message
MAX_JOB_MIB = ((2**31 - 1) * 4 * 4 // 3) >> 20


def job_too_large(nbytes: int, argument: str, how: str):
    """The plain error for a job above :data:`MAX_JOB_MIB` (``how``: how to ask for less)."""
    from ..errors import InvalidArgument
    return InvalidArgument(
        f"a job of {nbytes / (1 << 20):,.0f} MiB is more than one training step can use: at most "
        f"{MAX_JOB_MIB:,} MiB ({argument})", argument=argument,
        hint=f"{how}; each step's kernel counts its float32 elements in a 32-bit int")


def record(steps: int = 50, nbytes: int = 64 << 20, strategies=ECG_STRATEGIES,
           pattern: str = "cpu_stats", every: int = 10, progress=None, on_step=None,
           should_stop=None) -> dict:
    """Run the ECG.  ``progress(done, total, strategy)`` is called after each step (the CLI
    prints a bar; widgets move a progress bar); ``on_step(strategy, record)`` gets each step."""
    steps, nbytes, strategies, pattern, every = check_args(steps, nbytes, strategies, pattern,
                                                           every)
    for name, fn in (("progress", progress), ("on_step", on_step), ("should_stop", should_stop)):
        V.callback(fn, name)
    b = backend()
    total, done = steps * len(strategies), 0
    out = dict(backend=b.name, device=b.device_name(0),
               profile=b.model_profile().name if b.supports("model_time") else None, pattern=pattern,
               every=every, nbytes=nbytes, steps=steps, curves={}, counters={}, notes={},
               summary=[])
    for name in strategies:
        def step_cb(rec, name=name):
            nonlocal done
            done += 1
            if on_step:
                on_step(name, rec)
            if progress:
                progress(done, total, name)
        r = workloads.run(name, workloads.Pattern(pattern, every), steps, nbytes,
                          on_step=step_cb, should_stop=should_stop)
        out["curves"][name] = r.step_ms
        out["counters"][name] = r.counters
        out["notes"][name] = {s.step: s.note for s in r.steps if s.note}
        row = r.summary()
        row["verdict"] = verdict(r.step_ms, row)
        out["summary"].append(row)
        if r.stopped:
            out["stopped"] = True
            break
    return out


def check_args(steps, nbytes, strategies, pattern, every):
    """:func:`record`'s job arguments, checked (the ECG widget checks them the same way)."""
    steps = V.integer(steps, "steps", lo=1, hi=MAX_STEPS, hint=f"e.g. steps=50 (1..{MAX_STEPS})")
    nbytes = V.integer(nbytes, "nbytes", lo=1 << 20, hi=V.MAX_BYTES,
                       hint="e.g. nbytes=64 << 20 (at least 1 MiB)")
    if nbytes > MAX_JOB_MIB << 20:
        raise job_too_large(nbytes, "nbytes", f"use nbytes={MAX_JOB_MIB} << 20 or less "
                                              f"(umkit ecg --size {MAX_JOB_MIB} or less)")
    strategies = V.names(strategies, "strategies", tuple(workloads.STRATEGIES),
                         hint=f"a tuple of strategy names, e.g. {ECG_STRATEGIES[:2]}")
    V.choice(pattern, "pattern", workloads.PATTERNS)
    every = V.integer(every, "every", lo=1, hi=MAX_STEPS, hint="e.g. every=10")
    return steps, nbytes, strategies, pattern, every


def recorder(name: str = "your loop", *, stream=None, counters: bool = True, on_step=None):
    """A recorder for *your own* loop: ``with umkit.ecg.recorder() as rec: ... rec.step()``,
    then ``rec.result()`` (see :mod:`umkit.recorder`)."""
    return Recorder(name, stream=stream, counters=counters, on_step=on_step)


def text_progress(stream=sys.stderr, width: int = 30):
    """A ``progress(done, total, strategy)`` callback drawing a text bar on ``stream``."""
    width = V.integer(width, "width", lo=1, hi=1000, hint="characters, e.g. width=30")
    if not callable(getattr(stream, "write", None)) or not callable(getattr(stream, "flush", None)):
        raise InvalidType(f"stream={V.shown(stream)} is not a text stream", argument="stream",
                          hint="e.g. sys.stderr, or an io.StringIO()")
    last = [-1]

    def cb(done, total, name):
        fill = int(width * done / total)
        if fill == last[0] and done != total:
            return
        last[0] = fill
        stream.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{total} {name:<18}")
        if done == total:
            stream.write("\n")
        stream.flush()
    return cb
