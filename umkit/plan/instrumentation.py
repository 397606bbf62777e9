"""The recording's own cost, and what of a recorded step carries over to another plan.

A plan's predicted step is the replay of the plan on sim plus the *rest* of the step: what the
replay does not model (the loop's compute, the host's own work), taken from the recording as
``measured - replay(as recorded)`` (:mod:`.advice`).  That rest also holds three things that
belong to the recording, not to the loop, and that a plan must not inherit:

* **the instrumentation**: the counters (cuda: CUPTI's unified-memory activity), and switching
  them on and off;
* **the recorded plan's own memory cost that the model does not see**: on a step where the
  recorded plan faults or migrates, the card's cost minus the replay's (more or less than the
  replay says); a plan that does not do that memory work must not pay it;
* **the host's disturbances**: a step the host or the driver held up.

**The recording: alternate steps.**  After ``warmup`` steps (default 2, instrumented: the first
faults are the loop's own start) the recorder instruments every other step: on the
*instrumented* steps the counters are on (cuda: CUPTI's unified-memory activity enabled), on
the others they are off (``cuptiActivityDisable``), and the recorder only marks the step's end
event, as ``umkit.ecg.recorder`` does in every measured run.  The access table comes from the
instrumented steps' records; an uninstrumented step is taken to do what the loop's commonest
instrumented step did (on sim the engine's accounting costs no model time, so sim sees every
step whole).  ``instrument="always"`` records every step.

**The estimate (:func:`estimate`), step by step.**  The replay of the recorded plan and the
replay of the loop's GPU work alone (its kernels, every buffer in device memory, no CPU access:
no memory work at all) tell, per step, how much memory work the recorded plan does there (the
difference, its *memory time*): a step without any is *quiet*, any other is *active*, and
active steps that do the same memory work (memory times within :data:`SAME_WORK`) form a
class.

1. The counters' own cost is measured where the same work ran both ways: on the quiet steps,
   the median rest of the instrumented ones minus that of the uninstrumented ones (reported);
   in each class of active steps likewise, and taken out of the class's instrumented steps'
   rest.  A class whose steps were all instrumented keeps its cost: its rest is then an upper
   bound.
2. The loop's own work per step is the **floor** of the quiet steps' rest as measured (of every
   steady step's when none is quiet): the least of them, at least 0 (a rest with an estimated
   cost taken out could fall below the loop's work; a measured one cannot). A step's time on the
   GPU's clock cannot be shorter than the GPU's work in it; the host, the driver and the
   instrumentation can only add to it, so the disturbances are one-sided and the least rest is
   the closest to the loop's own work (the reasoning of Python's ``timeit``, which reports the
   fastest repeat). The quiet steps' rest above the floor is left out, whichever kind of step it
   came in: switching the counters at a step boundary waits for the GPU and calls CUPTI, and
   such a cost can land in the steps on both sides of the switch, where an instrumented-minus-
   uninstrumented difference cannot see it. On the H100 of the kit's GPU CI (run 46 of
   ``benchmarks/results/INDEX.md``) the alternating recording's quiet steps ran about 13 ms
   above the 13.0 ms of its two fastest ones, instrumented or not, while the same loop without
   the plan recorder ran its steady steps at 13.0 ms (``torch_training/torch_training.md`` of
   that run).
3. An active step's rest above the floor (its *excess*: the card's memory cost beyond the
   replay's) goes to a plan in the share of the recorded plan's memory work that the plan still
   does on that step (its replayed memory time over the recorded plan's, between 0 and 1): all
   of it to the recorded plan, none to a plan without migration.

How sure the plan is (:func:`confidence`): **sized** when the floor was reached in at least
:data:`MIN_FLOOR` steps (a repeat, not a fluke), the counters' cost was measured (at least
:data:`MIN_OFF` uninstrumented steady steps doing the work of instrumented ones) and the part
of the plan's prediction that is an upper bound (the excess of classes measured only with the
counters on) leaves it within x/÷ :data:`SIZE`; **order only** otherwise, with the reason.
Either way the floor, the same for every plan, does not change their ranking.

Why alternate steps and not a second run: a user's loop cannot be run again (a training run, a
data loader that moves on); a calibration of the cost per record at the start would measure a
microbenchmark's faults, not the loop's.  What alternation cannot do: a pattern that happens
only in uninstrumented steps is not seen on cuda, and a periodic memory event that always falls
on instrumented steps has no uninstrumented twin (its class keeps the counters' cost).
"""
from __future__ import annotations

import math
import statistics
import time

#: the fewest uninstrumented steady steps (with instrumented twins doing the same work) from
#: which the counters' own cost is measured
MIN_OFF = 2
#: the fewest steps at the floor of the rest (within FLOOR_TOL of it) for a sized prediction
MIN_FLOOR = 2
#: a rest within this share of the fastest step's time (and QUIET_MS) of the floor is "at the floor"
FLOOR_TOL = 0.05
#: active steps whose replayed memory time is within this share do the same memory work
SAME_WORK = 0.05
#: a step is active when the recorded plan's replay exceeds the GPU-work replay by more than
#: this share of it and QUIET_MS (ms)
QUIET_SHARE = 0.02
QUIET_MS = 0.01
#: the size target: an upper-bound part that could leave a prediction off by more is "order only"
SIZE = 1.5
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
        #: per change of state: (on, host seconds waiting for the GPU, host seconds in CUPTI)
        self.spent: list = []

    def set(self, on: bool) -> bool:
        """Returns whether the counters are on now: if CUPTI refuses to turn them off mid-run
        (never seen; not every CUPTI documents the switch for this activity kind), they stay
        on, :attr:`failed` says why, and the rest of the recording is instrumented."""
        if on == self.on or (not on and self.failed):
            return self.on
        t0 = time.perf_counter()
        if not on and self.sync is not None:
            self.sync()
        t1 = time.perf_counter()
        try:
            (self.c.resume if on else self.c.pause)()
        except Exception as e:  # noqa: BLE001 - BackendUnavailable from CUPTI: keep recording
            self.failed = f"{type(e).__name__}: {e}"
            return self.on
        self.spent.append((on, round(t1 - t0, 6), round(time.perf_counter() - t1, 6)))
        self.on = on
        return self.on

    def close(self) -> None:
        self.set(True)


def rests(measured: list, replayed: list) -> list:
    """Per step, the measured time minus the replay of the recorded plan (not clipped)."""
    return [m - q for m, q in zip(measured, replayed)]


def _median(xs):
    return statistics.median(xs) if xs else None


def estimate(result, replayed: list, baseline: list | None = None) -> dict:
    """The rest of each recorded step taken apart (see the module docstring).  ``replayed``:
    the replay of the recorded plan, step by step; ``baseline``: the replay of the loop's GPU
    work alone (None when that does not fit: then the recorded plan's fastest steady replayed
    step stands for it)."""
    meta = result.meta or {}
    n = min(len(result.step_ms), len(replayed))
    known = bool(meta.get("instrumented"))
    flags = [bool(f) for f in list(meta.get("instrumented") or [True] * n)[:n]]
    flags += [True] * (n - len(flags))
    if baseline is not None and len(baseline) >= n:
        base = [float(x) for x in baseline[:n]]
    else:
        b0 = min(replayed[1:n] or replayed[:n] or [0.0])
        base = [b0] * n
    q = [float(x) for x in replayed[:n]]
    r = rests(result.step_ms[:n], q)
    mem = [max(0.0, a - b) for a, b in zip(q, base)]
    active = [m > max(QUIET_MS, QUIET_SHARE * b) for m, b in zip(mem, base)]
    steady = list(range(1, n)) if n > 1 else list(range(n))
    quiet = [i for i in steady if not active[i]]
    adj = list(r)
    # 1. the counters' own cost, where the same work ran both ways
    q_on = [r[i] for i in quiet if flags[i]]
    q_off = [r[i] for i in quiet if not flags[i]]
    cost = (max(0.0, _median(q_on) - _median(q_off))
            if len(q_off) >= MIN_OFF and q_on else None)
    classes: list = []
    for i in sorted((i for i in range(n) if active[i]), key=lambda i: mem[i]):
        if classes and mem[i] <= mem[classes[-1][0]] * (1 + SAME_WORK):
            classes[-1].append(i)
        else:
            classes.append([i])
    unmatched, class_cost, twins = [False] * n, [], len(q_off) if q_on else 0
    for c in classes:
        on = [r[i] for i in c if flags[i]]
        off = [r[i] for i in c if not flags[i]]
        if on and off:
            d = max(0.0, _median(on) - _median(off))
            for i in c:
                if flags[i]:
                    adj[i] -= d
            class_cost.append(d)
            twins += len([i for i in c if i and not flags[i]])
        elif on:
            for i in c:
                unmatched[i] = True
    if cost is None and class_cost and twins >= MIN_OFF:
        cost = _median(class_cost)
    # 2. the floor: the loop's own work per step, from the rests as measured (a measured rest
    # is never below the loop's work; one with an estimated cost taken out may be), at least 0
    pool = [i for i in quiet] or [i for i in steady]
    at = min(pool, key=lambda i: r[i]) if pool else None
    floor = max(0.0, r[at]) if pool else 0.0
    tol = max(QUIET_MS, FLOOR_TOL * result.step_ms[at]) if pool else QUIET_MS
    support = sum(1 for i in pool if r[i] <= floor + tol)
    # 3. the active steps' excess (at least -memory: the card's memory cost is not negative)
    excess = [max(adj[i] - floor, -mem[i]) if active[i] else 0.0 for i in range(n)]
    quiet_r = [r[i] for i in quiet]
    return dict(flags=flags, flags_known=known, rest=r, adjusted=adj, base=base, memory=mem,
                active=active, unmatched=unmatched, excess=excess, floor_ms=floor,
                floor_support=support, floor_from="quiet" if quiet else "steady",
                quiet=len(quiet), quiet_instrumented=len(q_on), quiet_uninstrumented=len(q_off),
                twins=twins, cost_ms=cost,
                cost_from=("quiet" if q_on and len(q_off) >= MIN_OFF else
                           "active" if cost is not None else None),
                class_cost_ms=class_cost, classes=len(classes),
                quiet_excess_ms=None if not quiet_r else _median([x - floor for x in quiet_r]),
                rest_spread_ms=(max(quiet_r) - min(quiet_r)) if quiet_r else None,
                instrumented=sum(flags), uninstrumented=n - sum(flags),
                active_steps=sum(active[i] for i in steady),
                unmatched_steps=sum(unmatched[i] for i in steady),
                instrumentation=meta.get("instrumentation", "unknown"))


def plan_rest(est: dict, replayed: list, recorded: list, baseline: list | None) -> tuple:
    """(per step, the rest a plan carries; per step, the part of it that is an upper bound).
    ``replayed``, ``recorded``, ``baseline``: the plan's, the recorded plan's and the GPU-work
    replay of the steps on the profile predicted (``baseline`` None: the recorded
    plan's fastest steady step, as in :func:`estimate`)."""
    n = len(est["rest"])
    if baseline is None or len(baseline) < min(n, len(replayed)):
        b0 = min(recorded[1:n] or recorded[:n] or [0.0])
        baseline = [b0] * max(n, len(replayed))
    out, upper = [], []
    for i, x in enumerate(replayed):
        e = est["excess"][i] if i < n else 0.0
        s = 0.0
        if e and i < len(recorded):
            m_rec = recorded[i] - baseline[i]
            if m_rec > 0:
                s = min(1.0, max(0.0, (x - baseline[i]) / m_rec))
        out.append(max(0.0, est["floor_ms"] + s * e))
        upper.append(s * e if i < n and est["unmatched"][i] and e > 0 else 0.0)
    return out, upper


def confidence(est: dict, predicted_ms: float | None = None, upper_ms: float = 0.0,
               home: bool = True) -> dict:
    """How sure the predicted sizes are, as data and as one sentence (``statement``), for a
    plan predicted at ``predicted_ms`` (mean ms/step) of which ``upper_ms`` is an upper bound
    (the excess of active steps measured only with the counters on)."""
    n = est["instrumented"] + est["uninstrumented"]
    share = est["instrumented"] / n if n else 1.0
    rnd = (lambda x: None if x is None else round(x, 6))
    out = dict(instrumentation=est["instrumentation"],
               instrumented_steps=est["instrumented"], uninstrumented_steps=est["uninstrumented"],
               instrumented_share=round(share, 4),
               instrumentation_ms_per_step=rnd(est["cost_ms"]),
               rest_ms=rnd(est["floor_ms"]), floor_support=est["floor_support"],
               floor_from=est["floor_from"], quiet_steps=est["quiet"],
               quiet_excess_ms=rnd(est["quiet_excess_ms"]),
               rest_spread_ms=rnd(est["rest_spread_ms"]),
               active_steps=est["active_steps"], active_upper_bound_steps=est["unmatched_steps"],
               upper_bound_ms=rnd(upper_ms))
    why = []
    if est["floor_support"] < MIN_FLOOR:
        why.append(f"the floor of the rest was reached in {est['floor_support']} step (at least "
                   f"{MIN_FLOOR} needed: one fast step may be a fluke)")
    if est["cost_ms"] is None:
        why.append(f"{est['twins']} uninstrumented steady steps doing the work of an "
                   f"instrumented one (at least {MIN_OFF} needed), so the instrumentation's cost "
                   f"({est['instrumentation']}) cannot be told from the loop's own work")
    if predicted_ms is not None and math.isfinite(predicted_ms) and upper_ms > 0:
        low = predicted_ms - upper_ms
        if low <= 0 or predicted_ms / low > SIZE:
            why.append(f"{upper_ms:.3f} ms of the predicted {predicted_ms:.3f} ms is the recorded "
                       "plan's memory cost measured only with the counters on (an upper bound)")
    out["sized"] = not why
    qe = est["quiet_excess_ms"]
    floor = (f"the loop's own work per step is the floor of the rest, {est['floor_ms']:.3f} ms "
             f"(reached in {est['floor_support']} {est['floor_from']} steps)")
    if qe is not None:
        floor += (f"; what the recording added to a quiet step above it (median {qe:.3f} ms: "
                  "the instrumentation, its switching, the host) is left out")
    if out["sized"]:
        s = (f"sized: {floor}; the counters' own cost per step: {est['cost_ms']:.3f} ms "
             f"(instrumented against uninstrumented {est['cost_from']} steps)")
        if est["active_steps"]:
            s += (f"; the recorded plan's memory cost beyond the replay ({est['active_steps']} "
                  "steps) goes only to plans that do that memory work")
        if upper_ms > 0:
            s += f" ({upper_ms:.3f} ms/step of this plan's is an upper bound)"
    else:
        s = ("order only: " + "; ".join(why) + f"; {floor}. The plans' ranking holds, their "
             "sizes may not")
    if not home:
        s += "; on a profile other than the recorded one the rest is assumed the same"
    out["statement"] = s
    return out
