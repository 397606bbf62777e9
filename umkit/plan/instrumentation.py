"""The recording's own cost, measured and taken out of the predicted step times.

On an H100 the PyTorch loop of ``benchmarks/plan_validate.py`` was ranked right but sized
wrong: the recommended plan predicted at 32.2 ms/step against 13.2 ms measured, because the
recording ran with CUPTI's unified-memory counters on (+725 % per step there) and that cost sat
in the *rest* of each step (``measured - replay(as recorded)``, :mod:`.advice`), which every
plan's prediction carries (issue 43, item 5).

**The design: alternate steps.**  After ``warmup`` steps (default 2, instrumented: the first
faults are the loop's own start) the recorder instruments every other step: on the
*instrumented* steps the counters are on (cuda: CUPTI's unified-memory activity enabled), on
the others they are off (``cuptiActivityDisable``), and the recorder only marks the step's end
event, as ``umkit.ecg.recorder`` does in every measured run.  Then

* the access table comes from the instrumented steps' records; an uninstrumented step is taken
  to do what the loop's commonest instrumented step did (on sim the engine's accounting costs
  no model time, so sim sees every step whole);
* the instrumentation's cost per step is ``mean(rest of the instrumented steps) - mean(rest
  of the uninstrumented ones)`` (steady steps only), and it is taken out of the instrumented
  steps' rest; the uninstrumented steps' rest is used as it is.  With means (not medians) the
  predicted loop's rest is, on the average, the uninstrumented steps' own: a median of each
  group would leave the difference of two skewed distributions in it (the replay's step times
  do not follow the loop's step by step, so the rest of a step scatters).

Why this and not the alternatives: a user's loop cannot be run again (a training run, a data
loader that moves on), so a second, uninstrumented run to compare with is not available; a
calibration of the cost per record at the start measures a microbenchmark's faults, not the
loop's (CUPTI's cost depends on how the driver batches *these* faults), and would need a
kernel of umkit's own on the user's GPU.  Alternating measures the cost on the loop itself,
step by step, with nothing but the switch the counters already have.  Its price: a pattern
that happens only in uninstrumented steps is not seen on cuda (a CPU touch every 2nd step
that falls on them, say), and the table then shows the touches of the instrumented steps
only; ``instrument="always"`` records every step (and the prediction is then *order only*).
And what an instrumented step's cost leaves behind in the next step (a driver gone cold while
the counters held the host up: sim's cold fault path shows it, ``benchmarks/plan_validate.py
--sim-instrumentation-ms``) is in that uninstrumented step's rest, and so in the predictions;
the spread of the uninstrumented rest, which the plan reports, is where it shows.

How sure the plan is (:func:`confidence`): the number of instrumented and uninstrumented
steady steps, the instrumentation's cost per step, the median rest of the uninstrumented steps
and its spread (max - min); **sized** when at least :data:`MIN_OFF` uninstrumented steady
steps were measured, **order only** otherwise (every step instrumented: the cost cannot be told
from the loop's own work, and the predicted times carry it; the ranking of the plans still
holds, since every plan carries the same rest).
"""
from __future__ import annotations

import statistics

#: the fewest uninstrumented steady steps from which the rest is sized
MIN_OFF = 2
#: instrumented steps at the start, before the alternation
WARMUP = 2
MODES = ("alternate", "always")


def schedule(step: int, warmup: int = WARMUP, mode: str = "alternate") -> bool:
    """Whether step ``step`` is instrumented: every step before ``warmup`` and, after it,
    every other one (``warmup``, ``warmup + 2``, ... are not); every step for ``always``."""
    if mode == "always" or step < warmup:
        return True
    return (step - warmup) % 2 == 1


class Switch:
    """Turns the recording's instrumentation on and off at step boundaries (``set(on)`` is
    called at the start of every step).  This one does nothing: sim's accounting costs no model
    time, and a backend without counters has nothing to switch."""

    what = "none (nothing costs the loop time)"

    def set(self, on: bool):
        """Returns whether the step is instrumented (None: as asked)."""
        return None

    def close(self) -> None:
        """The instrumentation as it was before the recording (on)."""


class SimSwitch(Switch):
    what = "sim's own accounting (costs no model time)"


class CuptiSwitch(Switch):
    """cuda: CUPTI's unified-memory counter activity enabled on instrumented steps and disabled
    on the others (:meth:`umkit.backends.counters.cupti.CuptiCollector.pause` / ``resume``);
    only a change of state calls CUPTI.  Before the counters go off the GPU is waited for
    (``sync``), so that the instrumented step's own faults are all counted with it."""

    what = "CUPTI unified-memory counters"

    def __init__(self, collector, sync=None):
        self.c, self.sync, self.on = collector, sync, True
        self.failed: str | None = None

    def set(self, on: bool) -> bool:
        """Returns whether the counters are on now: if CUPTI refuses to turn them off mid-run
        (never seen; not every CUPTI documents the switch for this activity kind), they stay
        on, :attr:`failed` says why, and the rest of the recording is instrumented."""
        if on == self.on or (not on and self.failed):
            return self.on
        if not on and self.sync is not None:
            self.sync()
        try:
            (self.c.resume if on else self.c.pause)()
        except Exception as e:  # noqa: BLE001 - BackendUnavailable from CUPTI: keep recording
            self.failed = f"{type(e).__name__}: {e}"
            return self.on
        self.on = on
        return self.on

    def close(self) -> None:
        self.set(True)


def rests(measured: list, replayed: list) -> list:
    """Per step, the measured time minus the replay of the recorded plan (not clipped)."""
    return [m - q for m, q in zip(measured, replayed)]


def overhead(result, replayed: list) -> dict:
    """The instrumentation's cost per instrumented step and the uninstrumented steps' rest,
    from a recording and the replay of its recorded plan (see the module docstring)."""
    meta = result.meta or {}
    n = min(len(result.step_ms), len(replayed))
    flags = list(meta.get("instrumented") or [True] * n)[:n]
    flags += [True] * (n - len(flags))
    warm = max(1, int(meta.get("instrument_warmup", 1) or 1))
    r = rests(result.step_ms[:n], replayed[:n])
    on = [r[i] for i in range(warm, n) if flags[i]]
    off = [r[i] for i in range(warm, n) if not flags[i]]
    sized = len(off) >= MIN_OFF and bool(on)
    cost = max(0.0, statistics.fmean(on) - statistics.fmean(off)) if sized else None
    return dict(sized=sized, flags=flags, rest=r, cost_ms=cost,
                instrumented=sum(flags), uninstrumented=n - sum(flags),
                steady_instrumented=len(on), steady_uninstrumented=len(off),
                rest_ms=statistics.median(off) if off else None,
                rest_spread_ms=(max(off) - min(off)) if off else None,
                instrumentation=meta.get("instrumentation", "unknown"))


def uninstrumented_rest(result, replayed: list) -> tuple[list, dict]:
    """(per step, the rest without the instrumentation's cost, at least 0; :func:`overhead`)."""
    o = overhead(result, replayed)
    cost = o["cost_ms"] or 0.0
    out = [max(0.0, x - (cost if f else 0.0)) for x, f in zip(o["rest"], o["flags"])]
    return out, o


def confidence(o: dict, home: bool = True) -> dict:
    """How sure the predicted sizes are, as data and as one sentence (``statement``)."""
    n = o["instrumented"] + o["uninstrumented"]
    share = o["instrumented"] / n if n else 1.0
    out = dict(sized=o["sized"], instrumentation=o["instrumentation"],
               instrumented_steps=o["instrumented"], uninstrumented_steps=o["uninstrumented"],
               instrumented_share=round(share, 4),
               instrumentation_ms_per_step=None if o["cost_ms"] is None else round(o["cost_ms"], 6),
               rest_ms=None if o["rest_ms"] is None else round(o["rest_ms"], 6),
               rest_spread_ms=None if o["rest_spread_ms"] is None else round(o["rest_spread_ms"], 6))
    if o["sized"]:
        s = (f"sized: the rest of a step ({o['rest_ms']:.3f} ms, spread {o['rest_spread_ms']:.3f} "
             f"ms over {o['steady_uninstrumented']} steps without instrumentation) is measured "
             f"uninstrumented; the instrumentation ({o['instrumentation']}) cost "
             f"{o['cost_ms']:.3f} ms per instrumented step ({o['instrumented']} of {n} steps), "
             "taken out")
        if not home:
            s += "; on a profile other than the recorded one the rest is assumed the same"
    else:
        s = (f"order only: {o['steady_uninstrumented']} uninstrumented steady steps (at least "
             f"{MIN_OFF} needed), so the instrumentation's cost ({o['instrumentation']}) cannot be "
             "told from the loop's own work and is in every predicted time; the plans' ranking "
             "holds, their sizes may not")
    out["statement"] = s
    return out
