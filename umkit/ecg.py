"""The memory ECG (显存心电图, the article's §7): the same training-style step, 50 times, under
each strategy; step time per step, one curve per strategy.  A flat line is a strategy to keep;
spikes are pages ping-ponging between CPU and GPU."""
from __future__ import annotations

import sys

from . import workloads
from .errors import InvalidArgument
from .runtime import backend

ECG_STRATEGIES = ("device", "managed", "managed+prefetch", "managed+advice", "mixed", "pinned")
MAX_STEPS = 100_000   # a bound on one ECG run (the CLI and the panel bound it too)
SPIKY = 3.0     # max/median above this ...
SPIKE_MS = 1.0  # ... and a spike at least this long (ms): the curve has spikes


def record(steps: int = 50, nbytes: int = 64 << 20, strategies=ECG_STRATEGIES,
           pattern: str = "cpu_stats", every: int = 10, progress=None, on_step=None,
           should_stop=None) -> dict:
    """Run the ECG.  ``progress(done, total, strategy)`` is called after each step (the CLI
    prints a bar; widgets move a progress bar); ``on_step(strategy, record)`` gets each step."""
    from . import validators as V
    steps, nbytes, strategies, pattern, every = _check_args(steps, nbytes, strategies, pattern,
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


def _check_args(steps, nbytes, strategies, pattern, every):
    """:func:`record`'s job arguments, checked (the ECG widget checks them the same way)."""
    from . import validators as V
    steps = V.integer(steps, "steps", lo=1, hi=MAX_STEPS, hint=f"e.g. steps=50 (1..{MAX_STEPS})")
    nbytes = V.integer(nbytes, "nbytes", lo=1 << 20, hi=V.MAX_BYTES,
                       hint="e.g. nbytes=64 << 20 (at least 1 MiB)")
    strategies = V.names(strategies, "strategies", tuple(workloads.STRATEGIES),
                         hint=f"a tuple of strategy names, e.g. {ECG_STRATEGIES[:2]}")
    V.choice(pattern, "pattern", workloads.PATTERNS)
    every = V.integer(every, "every", lo=1, hi=MAX_STEPS, hint="e.g. every=10")
    return steps, nbytes, strategies, pattern, every


def verdict(step_ms, row: dict) -> str:
    """'spiky' or 'flat' for one curve and its summary row (median_ms, max_over_median): spiky
    when the worst steady step is more than SPIKY x the median *and* at least SPIKE_MS longer.
    Step 0 (warm-up) is left out, as in the summary.  The one rule for the ECG and the recorder."""
    from . import validators as V
    step_ms = V.reals(step_ms, "step_ms", hint="the step times in ms, e.g. [1.2, 1.1, 9.8]")
    V.mapping(row, "row", ("median_ms", "max_over_median"),
              hint="a summary row: RunResult.summary() or an ECG's ecg['summary'][i]")
    V.real(row["median_ms"], "row['median_ms']")
    V.real(row["max_over_median"], "row['max_over_median']")
    steady = list(step_ms[1:]) if len(step_ms) > 1 else list(step_ms)
    spike = max(steady) - row["median_ms"] if steady else 0.0
    return "spiky" if row["max_over_median"] > SPIKY and spike > SPIKE_MS else "flat"


def title(ecg: dict) -> str:
    """The one-line heading of an ECG dict (the built-in workload's, or a recorded loop's)."""
    ecg = _check_ecg(ecg)
    if ecg.get("title"):
        return ecg["title"]
    return (f"memory ECG: {ecg['steps']} steps of {ecg['nbytes'] >> 20} MiB, pattern "
            f"{ecg['pattern']}, backend {ecg['backend']}"
            + (f" (profile {ecg['profile']})" if ecg.get("profile") else ""))


_ECG_KEYS = ("curves", "summary")
_ROW_KEYS = ("strategy", "median_ms", "p95_ms", "max_over_median", "verdict")


def _check_ecg(ecg, name: str = "ecg") -> dict:
    """``ecg`` as an ECG dict (what :func:`record`, ``RecordResult.to_ecg`` or
    ``recorder.combine`` return), or a typed error naming ``name``."""
    from . import validators as V
    hint = "pass what umkit.ecg.record(...) or rec.result().to_ecg() returned"
    V.mapping(ecg, name, _ECG_KEYS, hint=hint)
    if not ecg.get("title"):
        V.mapping(ecg, name, ("steps", "nbytes", "pattern", "backend"), hint=hint)
    curves = V.mapping(ecg["curves"], f"{name}['curves']", hint=hint)
    for k, v in curves.items():
        V.reals(v, f"{name}['curves'][{k!r}]", hint=hint)
    for row in V.sequence(ecg["summary"], f"{name}['summary']", hint=hint):
        V.mapping(row, f"{name}['summary'] row", _ROW_KEYS, hint=hint)
        for k in _ROW_KEYS[1:4]:
            V.real(row[k], f"{name}['summary'] row {k}", hint=hint)
    return ecg


def recorder(name: str = "your loop", *, stream=None, counters: bool = True, on_step=None):
    """A recorder for *your own* loop: ``with umkit.ecg.recorder() as rec: ... rec.step()``,
    then ``rec.result()`` (see :mod:`umkit.recorder`)."""
    from .recorder import Recorder
    return Recorder(name, stream=stream, counters=counters, on_step=on_step)


def table(ecg: dict) -> str:
    """The summary as a fixed-width text table."""
    ecg = _check_ecg(ecg)
    lines = [title(ecg),
             f"{'strategy':<18}{'median ms':>11}{'p95 ms':>11}{'max/median':>12}  verdict"]
    for r in ecg["summary"]:
        lines.append(f"{r['strategy']:<18}{r['median_ms']:>11.4f}{r['p95_ms']:>11.4f}"
                     f"{r['max_over_median']:>12.2f}  {r['verdict']}")
    return "\n".join(lines)


def text_progress(stream=sys.stderr, width: int = 30):
    """A ``progress(done, total, strategy)`` callback drawing a text bar on ``stream``."""
    from . import validators as V
    from .errors import InvalidType
    width = V.integer(width, "width", lo=1, hi=1000, hint="characters, e.g. width=30")
    if not callable(getattr(stream, "write", None)) or not callable(getattr(stream, "flush", None)):
        raise InvalidType(f"stream={stream!r} is not a text stream", argument="stream",
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
