"""Checks for notebook 04 (synchronization): wait for your work, and only for your work (§3.3)."""
from __future__ import annotations

import contextlib
import math
import warnings
from numbers import Real

import umkit

from . import Exercise, Verdict, check, passed, rng_option, sim_sandbox, tiered

N = 1 << 20                 # the learner's array: 1M float32 (the article's §4.2 size)
BUSY = (64 << 20) // 4      # someone else's work on another stream: 64 MiB of demand paging
#: the card the check grades on when the session is on the simulator, whatever the session models
#: (another notebook's ``compute=False`` session, say): notebook 04's own (its first cell), in
#: the check's own sandbox.  On a real GPU the check runs on that GPU.
PROFILE = "mi250x-xnack1"


CONCEPT = ("§3.3: a kernel launch returns at once; the CPU may read what the kernel writes only "
           "after something has waited for that kernel. hipDeviceSynchronize waits for every "
           "stream on the device, hipStreamSynchronize for one stream, hipEventSynchronize for "
           "the work recorded before one event (notebook section 2, 'three ways to wait')")
_ANSWER = ("def step(a, stream):\n    umkit.increment(a, stream=stream)\n"
          "    stream.synchronize()                # hipStreamSynchronize: only my stream\n"
          "    return float(a.host.sum())\n"
          "(or record an event after the kernel, umkit.Event().record(stream), and call its "
          ".synchronize() before the sum)")


#: the array's starting values, drawn per check and per element (quarters: every sum is exact in
#: float32): a sum worked out from one element fails.  The size stays N, so the model times the
#: messages print do not change between attempts
START = tuple(k / 4 for k in range(4, 33))


def _draw_start(rng, n: int):
    """One attempt's starting values of ``a``: ``n`` quarters from :data:`START`, uneven."""
    import numpy as np
    gen = np.random.default_rng(rng.randrange(1 << 30))
    return np.asarray(START, dtype=np.float32)[gen.integers(0, len(START), n)]


def _grade_step(fn) -> Verdict | str:
    on_sim = umkit.backend_name() not in ("hip", "cuda")
    # the session's race mode carries over: strict=True makes a race raise there as it would here
    strict = bool(getattr(getattr(umkit.backend(), "engine", None), "strict", False))
    with sim_sandbox(profile=PROFILE, strict=strict) if on_sim else contextlib.nullcontext():
        return _grade_step_here(fn)


def _grade_step_here(fn) -> Verdict | str:
    n = N
    v0 = _draw_start(rng_option(None, "nb04.step"), n)
    a, busy = umkit.managed(n), umkit.managed(BUSY)
    try:
        a.host[:] = v0
        busy.host[:] = 0.0
        umkit.synchronize()
        other, mine = umkit.Stream(), umkit.Stream()
        c0 = umkit.counters()
        umkit.increment(busy, stream=other)         # a long job on another stream
        busy_done = umkit.Event().record(other)
        t0 = umkit.now()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = fn(a, mine)
        t1 = umkit.now()
        mine_done = umkit.Event().record(mine)      # when the work queued on `stream` ends
        races = [w for w in caught if isinstance(w.message, umkit.RaceWarning)]
        c1 = umkit.counters()
        other_end = _event_time(busy_done)
        mine_end = _event_time(mine_done)
        umkit.synchronize()
        after = a.host[:: 4096].copy()          # what the kernel left in a (sampled)
        before = v0[:: 4096]
    finally:
        umkit.synchronize()
        a.free()
        busy.free()
    want = float(v0.sum(dtype="float64")) + n
    if got is None:
        return "step returned None: return the CPU's sum of a, e.g. float(a.host.sum())"
    if isinstance(got, bool) or not isinstance(got, Real) and not hasattr(got, "__float__"):
        return f"step returned {got!r}; return a number (the sum)"
    try:
        got = float(got)
    except (TypeError, ValueError, OverflowError):
        return f"step returned {got!r}; return a number (the sum)"
    flagged = c1.get("race_flags", 0) - c0.get("race_flags", 0) if c1 else 0
    if races or flagged:
        return ("the CPU read a while the kernel could still be writing it (a race, §3.3) -- on "
                "a real card that is a wrong sum with no error (§5.1): nothing waited for the "
                "kernel before the CPU's sum")
    if c1 and mine_end is not None and t1 < mine_end:
        return ("the sum came back before the kernel on `stream` had finished: nothing waited "
                "for your stream. (A GPU reduction such as float(a.device.sum()) runs on the "
                "default stream, not on yours: on a real card it waits either for every "
                "stream, like hipDeviceSynchronize, or for none.)")
    if not (after == before + 1.0).all():
        return ("a does not hold its starting values plus 1 after your step: the kernel must "
                "run on a exactly once (umkit.increment(a, stream=stream)) -- a sum computed "
                "without it is not the step's result")
    if not math.isclose(got, want, rel_tol=1e-6):
        if math.isclose(got, want - n, rel_tol=1e-6):
            return (f"sum {got:g} = the array before the kernel: the CPU read too early, or "
                    "the kernel never ran on a -- call umkit.increment(a, stream=stream) and "
                    "wait for it")
        return (f"sum {got:g} is not the sum of a after the kernel: return the CPU's sum of "
                "the whole array once the kernel is done")
    if c1 and other_end is not None and t1 >= other_end:
        waited = (t1 - t0) * 1e3
        return (f"right sum, but the host waited {waited:.3f} ms (model time): the other "
                "stream's job, which your sum does not need, ended after "
                f"{(other_end - t0) * 1e3:.3f} ms, and your step returned only after it -- it "
                "waited for that job too (re-read section 2, §3.3).")
    if not c1:
        return passed(f"sum {got:g} (on a real GPU the check can't see what you waited for; "
                      "run it on sim to check that too)")
    return passed(f"sum {got:g}, and the host waited {(t1 - t0) * 1e3:.3f} ms (model time): "
                  "only for your stream, not for the other stream's job")


STEP = Exercise(
    why_terms=('stream', 'event', 'wait', 'synchron', 'asynchron', 'other stream', '流', '事件', '等待',
               '同步', '异步'),
    name="nb04.step", argument="step", kind="function", concept=CONCEPT, answer=_ANSWER,
    none="{argument} is None: write def step(a, stream): ... and return the CPU's sum",
    wrong_type="{argument} should be a function (a, stream) -> float, got {type}",
    call="step(a, stream)",
    raised=((umkit.RaceDetected, "the CPU touched the array while the kernel was running: "
                                 "{exception}"),
            (Exception, "{call} raised {type}: {exception}")),
    grader=_grade_step)


@tiered
def check_step(fn) -> Verdict:
    """Exercise 04: ``fn(a, stream)`` adds 1 to every element of ``a`` on the GPU, on ``stream``
    (``umkit.increment(a, stream=stream)``), and returns the CPU's sum of ``a`` afterwards --
    correctly, and without waiting for work queued on *other* streams.  ``a``'s starting value
    is drawn per check, and the check reads ``a`` afterwards: the kernel must have run."""
    return check(STEP, fn)


def _event_time(ev):
    """When the event completes, in the backend's clock (sim: model seconds), else None."""
    t = getattr(ev.handle, "time", None)
    return float(t) if isinstance(t, (int, float)) else None
