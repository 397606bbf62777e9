"""Checks for notebook 10 -- the memory ECG (显存心电图) of your own loop (the article's §7)."""
from __future__ import annotations

import contextlib
import contextvars

import umkit

from ...errors import UmkitError
from ...runtime.lang import tr

from .grading import (Exercise, Verdict, check, check_seed, close_to, float32_array_option, function_option,
                     learner_code, passed, sealed_while, sim_sandbox, text_option, tiered)

PARAMS_BYTES = 64 << 20
BATCH_BYTES = 4 << 20
STEPS = 30
LOG_EVERY = 10


def _setup(rng=None):
    """The loop's buffers: managed weights and a managed batch.  Without ``rng`` the weights
    are 0.5 everywhere (the notebook's loop); with one (the check) they are drawn fresh -- a
    random level plus noise, different at every check -- so only code that reads them can
    report their mean."""
    params = umkit.managed(PARAMS_BYTES // 4)
    batch = umkit.managed(BATCH_BYTES // 4)
    if rng is None:
        umkit.fill(params, 0.5)
    else:
        import numpy as np
        level = float(rng.uniform(-20.0, 20.0))
        params.host[:] = (level + rng.standard_normal(params.size)).astype(np.float32)
        params.prefetch("gpu")
    umkit.synchronize()
    return params, batch


def _sample_mean(arr, argument: str = "arr") -> float:
    """The statistic the loop logs: the mean of one weight per 4 KiB of ``arr`` (the weights: a
    float32 umkit array of at least 4 KiB), computed on the GPU (umkit.touch into a zeroed
    1-element sink; 4 bytes come back)."""
    float32_array_option(arr, argument, min_bytes=4096,
                         hint="pass the loop's weights, a float32 umkit array of 4 KiB or more")
    sink = umkit.device_array(1)
    try:
        umkit.fill(sink, 0.0)
        umkit.touch(arr, 4096, sink=sink)
        total = float(umkit.read_back(sink)[0])
    finally:
        sink.free()
    return total / (arr.nbytes // 4096)


#: set while :func:`check_fixed_step` runs the learner's step: :func:`gpu_mean` then refuses
_HELPER_SEALED: contextvars.ContextVar[bool] = contextvars.ContextVar("umkit_nb10_gpu_mean_sealed",
                                                                     default=False)


def gpu_mean(params) -> float:
    """Notebook 10's statistic, computed where the weights live: the mean of one weight per
    4 KiB of ``params`` (a float32 umkit array of 4 KiB or more), summed on the GPU; 4 bytes
    come back.  Section 3's planned loop calls it.  Section 2's exercise asks you to write this
    part yourself, so while :func:`check_fixed_step` runs your step it raises
    :class:`~umkit.errors.UmkitError`."""
    if _HELPER_SEALED.get():
        raise UmkitError("nb10.gpu_mean() is section 3's helper and cannot be called while the "
                         "check runs your step: write the statistic yourself (help(umkit.touch), "
                         "help(umkit.read_back))")
    return _sample_mean(params, "params")


@contextlib.contextmanager
def _helper_sealed():
    token = _HELPER_SEALED.set(True)
    try:
        yield
    finally:
        _HELPER_SEALED.reset(token)


#: the card the check grades on, whatever the session uses: notebook 10's own (its first cell)
PROFILE = "mi250x-xnack1"


def _profile() -> str:
    """The card the check grades on: notebook 10's, never the session's (a session switched to a
    card where the CPU reads VRAM in place would pass a step that spikes on the notebook's)."""
    return PROFILE


def _session_note() -> str:
    """A sentence when the session models another card than the one the check grades on."""
    try:
        mine = umkit.sim_profile().name if umkit.backend_name() == "sim" else ""
    except Exception:  # noqa: BLE001 - a note never fails a check
        mine = ""
    return (f" (graded on the notebook's card, {PROFILE}; your session models {mine})"
            if mine and mine != PROFILE else "")


def _record(step_fn, name: str = "your loop", seed=None, profile=None):
    """Run ``step_fn(params, batch, i)`` for STEPS steps under the recorder on a fresh sim;
    returns (RecordResult, the values it returned, the true statistic at each logging step).
    The weights are drawn fresh (``seed``: None draws a new one), and once in each ten steps,
    at a step nobody is told, the check moves every weight by a random amount on the GPU (as
    a schedule or another worker would): a formula of ``i``, or a value remembered from an
    early read, does not follow them.  ``profile``: the sim profile (default: the active one)."""
    import numpy as np
    if not callable(step_fn):
        function_option(step_fn, "step_fn")
    text_option(name, "name", hint="a label for the curve, e.g. 'your loop'")
    rng = np.random.default_rng(check_seed() if seed is None else seed)
    shifts = {int(10 * k + rng.integers(1, LOG_EVERY - 1)): float(rng.uniform(-10.0, 10.0))
              for k in range(STEPS // LOG_EVERY)}
    with sim_sandbox(profile=profile or _profile()):
        params, batch = _setup(rng)
        delta = umkit.device_array(params.size)
        values, truth = [], {}
        with umkit.ecg.recorder(name) as rec:
            for i in range(STEPS):
                if i in shifts:                       # unannounced: moves every weight on the GPU
                    umkit.fill(delta, shifts[i])
                    umkit.add(params, params, delta)
                values.append(step_fn(params, batch, i))
                if i % LOG_EVERY == LOG_EVERY - 1:
                    truth[i] = _sample_mean(params)
                rec.step()
        delta.free()
        return rec.result(), values, truth


# -- exercise: keep the statistic, lose the spikes --------------------------------------------------
CONCEPT = ("§4.3 and §7: on this notebook's card (the mi250x-xnack1 model, VRAM the CPU cannot "
           "map, as on a PCIe GPU) a CPU that reads GPU-resident managed pages makes the driver "
           "migrate them to the host, and the next kernel faults them back -- the spikes of the memory ECG "
           "(显存心电图). Compute the statistic where the weights live and let only the answer "
           "cross the link; keep the step's other work (batch written by the CPU, read and "
           "weights updated by the GPU) as it was")
_ANSWER = ("def fixed_step(params, batch, i):\n"
          "    batch.host[:] = float(i)                 # the CPU prepares the batch\n"
          "    umkit.touch(batch, 4)                    # the GPU reads it\n"
          "    umkit.increment(params)                  # and updates the weights\n"
          "    if i % 10 == 9:\n"
          "        sink = umkit.device_array(1)\n"
          "        umkit.fill(sink, 0.0)\n"
          "        umkit.touch(params, 4096, sink=sink)    # one weight per 4 KiB, summed on the GPU\n"
          "        total = float(umkit.read_back(sink)[0]) # 4 bytes travel, not 64 MiB\n"
          "        sink.free()\n"
          "        return total / (params.nbytes // 4096)\n"
          "    umkit.synchronize()")


def _grade_fixed_step(step_fn) -> Verdict | str:
    note = _session_note()
    v = _grade_on_notebook_card(step_fn)
    if isinstance(v, str):
        return (tr(v) if note else v) + note     # translated before the note wraps it
    if note:
        v.message += note
    return v


def _grade_on_notebook_card(step_fn) -> Verdict | str:
    r, values, truth = learner_code(_record)(sealed_while(step_fn, _helper_sealed), "your fix")   # all it runs is the step's
    for i, v in enumerate(values):
        if i % LOG_EVERY != LOG_EVERY - 1:
            continue
        want = truth[i]
        if v is None:
            return (f"step {i} returned None: every {LOG_EVERY}th step must return the weights' "
                    "mean.")
        try:
            v = float(v)
        except (TypeError, ValueError, OverflowError):
            return f"step {i} returned {v!r}, not a number."
        if not close_to(v, want):
            return (f"step {i} returned {v:.4g}, but the mean of the weights as they are at that "
                    f"step is {want:.4g}. The check draws the weights fresh each time and moves "
                    "them at steps it does not announce: read them (one weight per 4 KiB, as "
                    "the original statistic does) at the logging step itself, after the GPU "
                    "has finished that step's update.")
    kernels = [s.counters.get("kernels", 0) for s in r.steps]
    if min(kernels) < 2:
        return (f"step {kernels.index(min(kernels))} launched {min(kernels)} kernel(s): the step "
                "must still read the batch and update the weights on the GPU.")
    row = r.summary()
    if row["verdict"] != "flat":
        worst = 1 + max(range(len(r.step_ms) - 1), key=lambda k: r.step_ms[k + 1])
        c = r.steps[worst].counters
        head = (f"the ECG is still spiky (max/median {row['max_over_median']}): step {worst} "
                f"took {r.step_ms[worst]:.2f} ms")
        # what sets that step apart from a typical one (every step's CPU writes the batch)
        typical = sorted(r.steps[1:], key=lambda st: st.counters.get("cpu_faults", 0))
        usual = typical[len(typical) // 2].counters if typical else {}
        if c.get("cpu_faults", 0) > usual.get("cpu_faults", 0):
            # CPU faults only: that step's GPU faults include the check's own read of the true
            # mean (a GPU touch after your step), which pulls the pages back in
            return (f"{head} with {c.get('cpu_faults', 0)} CPU faults (a usual step: "
                    f"{usual.get('cpu_faults', 0)}): something on the CPU still touches the "
                    "weights' pages.")
        moved = c.get("bytes_d2h", 0) + c.get("prefetch_bytes_d2h", 0)
        if moved >= 1 << 20:
            return (f"{head}: {moved / (1 << 20):.0f} MiB crossed the link to the host in that "
                    "step (copies or prefetches, not CPU faults): does the statistic need "
                    "all of that to leave the GPU?")
        return (f"{head} ({c.get('gpu_faults', 0)} GPU faults): what does that step do that "
                "the others don't?")
    return passed(f"flat (max/median {row['max_over_median']}) on {PROFILE} and the statistic is "
                  "right: the answer travelled, the weights stayed on the GPU.")


FIXED_STEP = Exercise(
    why_terms=('on the gpu', 'where the weights', 'migrat', 'cpu read', 'link', 'fault',
               'reduction', 'only the answer', '在 gpu', '权重所在', '迁移', '链路', '缺页', '归约'),
    name="nb10.fixed_step", argument="fixed_step", kind="function", concept=CONCEPT,
    answer=_ANSWER,
    none="{argument} is still None: write a function fixed_step(params, batch, i).",
    wrong_type="{argument} must be a function, not {type}.",
    call="your step", grader=_grade_fixed_step)


@tiered
def check_fixed_step(step_fn) -> Verdict:
    """``step_fn(params, batch, i)``: the same training step (CPU writes the batch, the GPU
    reads it and updates the weights) that every LOG_EVERY-th step returns the mean of the
    weights -- with a flat ECG."""
    return check(FIXED_STEP, step_fn)
