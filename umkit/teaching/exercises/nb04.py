"""Checks for notebook 04 (synchronization): wait for your work, and only for your work (§3.3)."""
from __future__ import annotations

import contextlib
import math
import warnings
from numbers import Real

import umkit

from .grading import Exercise, Verdict, check, passed, rng_option, sim_sandbox, tiered

N = 1 << 20                 # the learner's array: 1M float32 (the article's §4.2 size)
BUSY = (128 << 20) // 4     # someone else's work on another stream: 128 MiB of demand paging,
                            # longer than the next batch's copy-in
BATCH = (64 << 20) // 4     # the next batch, prefetched on the learner's stream behind the kernel
#: the card the check grades on when the session is on the simulator, whatever the session models
#: (another notebook's ``compute=False`` session, say): notebook 04's own (its first cell), in
#: the check's own sandbox.  On a real GPU the check runs on that GPU.
PROFILE = "mi250x-xnack1"


CONCEPT = ("§3.3: a kernel launch returns at once, and work on one stream runs in the order it was "
           "queued; the CPU may read what a kernel writes only after something has waited for that "
           "kernel. hipDeviceSynchronize waits for every stream on the device, hipStreamSynchronize "
           "for everything queued on one stream so far, hipEventSynchronize for the work queued "
           "before one event (notebook section 2, 'three ways to wait')")
_ANSWER = ("def step(a, stream, next_batch):\n    umkit.increment(a, stream=stream)\n"
           "    done = umkit.Event().record(stream)   # hipEventRecord: marks the end of my kernel\n"
           "    next_batch()                          # queued behind it: the GPU keeps working\n"
           "    done.synchronize()                    # hipEventSynchronize: wait for my kernel only\n"
           "    return float(a.host.sum())")


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
    a, busy, batch = umkit.managed(n), umkit.managed(BUSY), umkit.managed(BATCH)
    calls = []                  # one entry per next_batch() call: what the stream held then
    try:
        a.host[:] = v0
        busy.host[:] = 0.0
        batch.host[:] = 1.0
        umkit.synchronize()
        other, mine = umkit.Stream(), umkit.Stream()
        c0 = umkit.counters()
        umkit.increment(busy, stream=other)         # a long job on another stream
        busy_done = umkit.Event().record(other)
        k0 = umkit.counters().get("kernels", 0) if c0 else 0    # kernels before the step's

        def next_batch():
            """Queue the next batch's copy-in (a prefetch of 64 MiB) on the step's stream."""
            if calls:
                calls.append(None)          # a second call queues nothing more
                return
            kernels = umkit.counters().get("kernels", 0) - k0 if c0 else None
            tail = umkit.Event().record(mine)          # what the stream held before the batch
            called = umkit.now()
            batch.prefetch("gpu", stream=mine)
            calls.append((kernels, _event_time(tail), called,
                          _event_time(umkit.Event().record(mine))))

        t0 = umkit.now()
        backend = umkit.backend()
        launch = getattr(backend, "launch", None) if c0 else None   # the simulator's launches
        streams = []             # the streams the learner's kernels on `a` were launched on

        def watched_launch(kernel, grid, block, args, stream):
            if args and args[0] == a.ptr:
                streams.append(stream)
            return launch(kernel, grid, block, args, stream)
        if launch is not None:
            backend.launch = watched_launch
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                got = fn(a, mine, next_batch)
        finally:
            backend.__dict__.pop("launch", None)
        t1 = umkit.now()
        races = [w for w in caught if isinstance(w.message, umkit.RaceWarning)]
        c1 = umkit.counters()
        other_end = _event_time(busy_done)
        umkit.synchronize()
        after = a.host[:: 4096].copy()          # what the kernel left in a (sampled)
        before = v0[:: 4096]
    finally:
        umkit.synchronize()
        a.free()
        busy.free()
        batch.free()
    want = float(v0.sum(dtype="float64")) + n
    if got is None:
        return "step returned None: return the CPU's sum of a, e.g. float(a.host.sum())"
    if isinstance(got, bool) or not isinstance(got, Real) and not hasattr(got, "__float__"):
        return f"step returned {got!r}; return a number (the sum)"
    try:
        got = float(got)
    except (TypeError, ValueError, OverflowError):
        return f"step returned {got!r}; return a number (the sum)"
    if not calls:
        return ("step never called next_batch(): queue the next batch's copy-in on your stream "
                "(call next_batch() once, after your kernel) so that the GPU has work while the "
                "CPU reads the sum")
    if len(calls) > 1:
        return (f"step called next_batch() {len(calls)} times: call it once, after your kernel")
    kernels, tail_end, called, batch_end = calls[0]
    flagged = c1.get("race_flags", 0) - c0.get("race_flags", 0) if c1 else 0
    if races or flagged:
        return ("the CPU read a while the kernel could still be writing it (a race, §3.3) -- on "
                "a real card the sum may be wrong, with no error (§5.1): nothing waited for the "
                "kernel before the CPU's sum")
    if not (after == before + 1.0).all():
        return ("a does not hold its starting values plus 1 after your step: the kernel must "
                "run on a exactly once (umkit.increment(a, stream=stream)) -- a sum computed "
                "without it is not the step's result")
    if streams and all(st is not mine.handle for st in streams):
        return ("your kernel on a ran on another stream than `stream`, the one the step is "
                "given (and the one next_batch() queues on): launch it there, "
                "umkit.increment(a, stream=stream)")
    if kernels == 0:
        return ("next_batch() was called before your kernel was queued: one stream runs its work "
                "in the order it was queued, so your kernel would start only after the next "
                "batch's copy-in. Queue your kernel first.")
    if c1 and tail_end is not None and t1 < tail_end:
        return ("the sum came back before the kernel on `stream` had finished: nothing waited "
                "for your kernel. (A GPU reduction such as float(a.device.sum()) runs on the "
                "default stream, not on yours: on a real card it waits either for every "
                "stream, like hipDeviceSynchronize, or for none.)")
    if not math.isclose(got, want, rel_tol=1e-6):
        if math.isclose(got, want - n, rel_tol=1e-6):
            return (f"sum {got:g} = the array before the kernel: the CPU read too early, or "
                    "the kernel never ran on a -- call umkit.increment(a, stream=stream) and "
                    "wait for it")
        return (f"sum {got:g} is not the sum of a after the kernel: return the CPU's sum of "
                "the whole array once the kernel is done")
    if not c1 or tail_end is None:
        return passed(f"sum {got:g} (on a real GPU the check can't see what you waited for; "
                      "run it on sim to check that too)")
    if called >= tail_end:
        return ("right sum, but next_batch() was queued only after the host had waited for your "
                f"kernel (it ended at {(tail_end - t0) * 1e3:.3f} ms, model time): the GPU had "
                "nothing queued while the host waited. Queue the next batch before you wait.")
    if other_end is not None and t1 >= other_end:
        return (f"right sum, but the host waited {(t1 - t0) * 1e3:.3f} ms (model time): until "
                "the other stream's job, which your sum does not need, had ended -- it waited for "
                "every stream (re-read section 2, §3.3).")
    if batch_end is not None and t1 >= batch_end:
        return (f"right sum, but the host waited {(t1 - t0) * 1e3:.3f} ms (model time): until "
                "the next batch's copy-in, queued on your stream after your kernel, had ended. "
                "Your sum needs only your kernel (re-read section 2, §3.3).")
    return passed(f"sum {got:g}, and the host waited {(t1 - t0) * 1e3:.3f} ms (model time): "
                  "only for your kernel, while the next batch's copy-in and the other stream's "
                  "job went on")


STEP = Exercise(
    why_terms=('stream', 'event', 'wait', 'queue', 'order', 'synchron', 'asynchron',
               'other stream', '流', '事件', '等待', '同步', '异步'),
    name="nb04.step", argument="step", kind="function", concept=CONCEPT, answer=_ANSWER,
    none="{argument} is None: write def step(a, stream, next_batch): ... and return the CPU's sum",
    wrong_type="{argument} should be a function (a, stream, next_batch) -> float, got {type}",
    call="step(a, stream, next_batch)",
    raised=((umkit.RaceDetected, "the CPU touched the array while the kernel was running: "
                                 "{exception}"),
            (Exception, "{call} raised {type}: {exception}")),
    grader=_grade_step)


@tiered
def check_step(fn) -> Verdict:
    """Exercise 04: ``fn(a, stream, next_batch)`` adds 1 to every element of ``a`` on the GPU,
    on ``stream`` (``umkit.increment(a, stream=stream)``), calls ``next_batch()`` once (it queues
    a long copy-in of the next batch on ``stream``, behind the kernel) and returns the CPU's sum
    of ``a`` -- correctly, with the next batch queued before the host waits, and without waiting
    for the next batch nor for work queued on *other* streams.  ``a``'s starting value is drawn
    per check, and the check reads ``a`` afterwards: the kernel must have run."""
    return check(STEP, fn)


def _event_time(ev):
    """When the event completes, in the backend's clock (sim: model seconds), else None."""
    t = getattr(ev.handle, "time", None)
    return float(t) if isinstance(t, (int, float)) else None
