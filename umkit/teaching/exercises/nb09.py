"""Checks for notebook 09 -- troubleshooting and the memory ECG (the article's §5.1, §5.2, §7)."""
from __future__ import annotations

import itertools
import math
import re
from numbers import Integral, Real

import numpy as np

import umkit

from ...runtime.lang import Localized
from .grading import DrawnSet, Exercise, Verdict, check, check_seed, sealed_while, sim_sandbox, tiered

# -- exercise 1: diagnose five reports with the §5.1 table ------------------------------------------------
#: the reports the exercise draws from: id -> (the report, its fix's number, why).  Every set holds
#: one report per fix, in a random order; the notebook's set (:data:`FIRST_SET`) is not in the
#: order of §5.1's table, so copying the table's rows in order does not answer it.
_FIX_WHY = {
    1: "page thrash: the CPU and the GPU touch the same managed buffer in turn, so its pages "
       "migrate back and forth",
    2: "a race: the host touches data while queued GPU work may still use it -- wrong numbers, no "
       "error",
    3: "a pointer from another process: its address means nothing there",
    4: "out of memory: the card's memory is taken (another job, a bigger model); no fault, no race",
    5: "no recoverable GPU page faults (XNACK off / old card): no on-demand migration",
}
_REPORTS = {
    "oom_13b": "The job grew from 7B to 13B parameters and now hipMalloc of the weights returns "
               "error 2 at start-up; rocm-smi shows another process holding 20 GB.",
    "oom_eval": "Training ran for hours without trouble; since the nightly evaluation job was "
                "scheduled onto the same GPU, the next allocation of activations fails with "
                "hipErrorOutOfMemory around midnight.",
    "oom_batch": "After doubling the batch size the first forward pass raises 'HIP out of memory. "
                 "Tried to allocate 6.00 GiB'; a colleague's notebook kernel on the same card "
                 "still holds its tensors.",
    "ipc_pipe": "A data-loader process sends a pointer from hipMallocManaged to the training "
                "process through a pipe; the training process dies with 'Memory access fault by "
                "GPU node-2 ... Reason: Page not present or supervisor privilege.'",
    "ipc_queue": "A worker process puts the integer address of its managed buffer on a "
                 "multiprocessing queue; the consumer process launches a kernel on that address "
                 "and aborts with 'Memory access fault by GPU node-1 ... Reason: Page not "
                 "present or supervisor privilege.'",
    "race_norm": "No error anywhere, but the validation loss is sometimes garbage since someone "
                 "moved the CPU-side normalisation of the batch to just after the kernel launch.",
    "race_debug": "Results were right while every launch was followed by hipDeviceSynchronize() "
                  "for debugging; since those calls were removed to save time, a few outputs per "
                  "epoch are wrong. Nothing reports an error.",
    "race_log": "The loss the host logs after each step is now and then the previous step's "
                "value, never an error; the logging code reads the loss buffer right after "
                "hipLaunchKernelGGL returns.",
    "thrash_ps": "Step time alternates between 40 ms and 900 ms; with HSA_XNACK=1, ROCm Systems "
                 "Profiler's unified-memory report counts thousands of page faults and migrations "
                 "in both directions (triggers 'GPU page fault' and 'CPU page fault'), and the "
                 "trace's KFD page-fault records fall on the parameter buffer every few steps.",
    "thrash_stats": "Every 20th step takes 15x longer than the others; each slow step comes right "
                    "after a CPU statistics pass over the gradient buffer, which lives in managed "
                    "memory.",
    "thrash_sampler": "The GPU updates an embedding table in managed memory while a CPU thread "
                      "samples rows of it; kernel times vary tenfold from step to step, and the "
                      "profiler's KFD records show page migrations in both directions on that "
                      "table.",
    "xnack_gcn": "The same managed-memory code runs fine on MI250X with HSA_XNACK=1 and 30x slower "
                 "on an old GCN card (or with XNACK off), where the GPU cannot replay a faulting "
                 "access.",
    "xnack_node": "On one MI250X node the job runs 20x slower than on a colleague's; there `echo "
                  "$HSA_XNACK` prints 1, on yours nothing, and rocminfo lists your GPU's ISA as "
                  "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-. No error on either.",
    "xnack_container": "Moved into a container, the same managed-memory training loop became many "
                       "times slower with no error at all; inside the container the ISA name "
                       "rocminfo lists for the GPU ends in xnack-, outside it in xnack+.",
}
_REPORT_FIX = {"oom": 4, "ipc": 3, "race": 2, "thrash": 1, "xnack": 5}
_BANK = {k: (text, {_REPORT_FIX[k.split("_")[0]]}, _FIX_WHY[_REPORT_FIX[k.split("_")[0]]])
         for k, text in _REPORTS.items()}
def _shared_word_answer(reports: list, shortest: int, weighted: bool) -> list:
    """The fixes a matcher of shared words gives ``reports`` (texts, in case order): the
    assignment of distinct fixes that shares the most words of ``shortest`` letters or more
    between each report and its fix (``weighted``: rarer words count more).  Such a matcher
    answers by the words a report shares with a fix, not by its symptom: no set it can answer is
    drawn."""
    def tok(text):
        return set(re.findall(r"[a-z_0-9\\-]{%d,}" % shortest, text.lower()))
    fixes = {n: dict.__getitem__(FIXES, n) for n in FIXES}
    docs = [tok(t) for t in list(reports) + list(fixes.values())]

    def score(text, fix):
        shared = tok(text) & tok(fixes[fix])
        return sum(1 / sum(w in d for d in docs) for w in shared) if weighted else len(shared)
    best = max(itertools.permutations(fixes),
               key=lambda p: sum(score(t, f) for t, f in zip(reports, p)))
    return list(best[:len(reports)])


def _not_word_matchable(names) -> bool:
    texts = [_REPORTS[n] for n in names]
    right = [next(iter(_BANK[n][1])) for n in names]
    return all(_shared_word_answer(texts, k, w) != right for k in (2, 3, 4) for w in (False, True))


#: the fixes say what to do in words of their own, not the reports': a report is matched to its
#: fix by its symptom, and a matcher of shared words (rocm-smi, XNACK, a kernel, a buffer) picks
#: the wrong fix for most reports
FIXES = Localized({
    1: "Give each allocation the memory its main user needs: what the device touches every "
       "iteration in device-only memory, the host's helper data apart; then advise and prefetch.",
    2: "Make the host wait for the queued device work (a stream or an event) before it touches "
       "memory that work may still use.",
    3: "Export the allocation with a runtime handle (hipIpcGetMemHandle on hipMalloc memory) and "
       "open it on the receiving side, or map a shared file.",
    4: "Find out who else occupies the card, ask for smaller chunks, and move cold tensors out to "
       "the host.",
    5: "Turn on recoverable page faults where the hardware has them (HSA_XNACK=1); otherwise "
       "prefetch before each kernel, or copy explicitly with hipMemcpy instead of managed "
       "allocations.",
})
#: the notebook's set, in its order (case A first)
FIRST_SET = ("race_norm", "xnack_gcn", "oom_13b", "thrash_ps", "ipc_pipe")
#: the reports of the set now open (case letter -> report) and their fixes; a wrong set draws
#: five new reports, one per fix
DIAGNOSIS_SET = DrawnSet(
    "nb09.diagnosis", _BANK, FIRST_SET, letters=True, line="{item} -> fix {label}: {why}",
    accept=_not_word_matchable,
    redrawn="{part_msg}. Five new reports are drawn: print nb09.CASES again and diagnose those")
CASES = DIAGNOSIS_SET.items
DIAG_CONCEPT = ("§5.1's table: read each report for its symptom -- an error code at start-up, an "
                "error in a second process, wrong numbers with no error, erratic step times, a "
                "card-dependent slowdown -- and match the symptom, not the words. umkit.explain(...) "
                "looks a symptom or error up in the same table")

def _whole(value) -> int | None:
    """A fix number as the learner wrote it: an int, or a string of digits -- not a bool, not a
    fraction (4.7 is no fix number; int() would have made it 4)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        value = value.strip()
        return int(value) if value.isdigit() else None
    if isinstance(value, Integral):
        return int(value)
    if isinstance(value, Real) and math.isfinite(float(value)) and float(value).is_integer():
        return int(value)
    return None


def _fix(value) -> int | None:
    v = _whole(value)
    return v if v in FIXES else None


def _not_a_fix(item, value) -> str:
    v = _whole(value)
    if v is None:
        return f"case {item}: {value!r} is not a fix number (1-{len(FIXES)})."
    return f"case {item}: there is no fix {v}; choose 1-{len(FIXES)}."


_LABELS = dict(
    key=lambda k: str(k).strip().upper(), label=_fix, bad_label=_not_a_fix,
    missing="cases without a diagnosis: {missing}.",
    # the set is graded, not the item: naming the case to change would let five tries of
    # "flip what it names" pass without reading a single report
    wrong=("your {given} diagnoses are not all right yet. Read each report for its symptom "
           "and ask umkit.explain(...) about its code, name or symptom"),
    nudge="{concept}. Each report gives you something to look up: an error number, a message "
          "from the runtime, a symptom with no error at all")


_PASSED = ("all five: each report matched by its symptom -- out of memory, a pointer from another "
           "process, a race with no error, page thrash, a card without recoverable page faults "
           "(XNACK), so no on-demand migration.")


DIAGNOSIS = Exercise(
    why_terms=('symptom', 'error', 'code', 'explain', 'race', 'thrash', 'out of memory', 'xnack',
               '症状', '错误', '竞争', '颠簸', '内存不足', '诊断'),
    name="nb09.diagnosis", argument="diagnosis", kind="labels", concept=DIAG_CONCEPT,
    none="{argument} is still None: map every case letter to a fix number, e.g. "
         "{{'A': 1, 'B': 2, ...}}.",
    wrong_type="{argument} must be a dict {{letter: number}}, not {type}.",
    **DIAGNOSIS_SET.exercise_fields(DIAG_CONCEPT, _PASSED, **_LABELS))


@tiered
def check_diagnosis(answers) -> Verdict:
    """``answers``: {case letter: fix number} for every case in :data:`CASES`."""
    return check(DIAGNOSIS, answers)


# -- exercise 2: read the ECG automatically ----------------------------------------------------------------
def _reference(curve) -> list[int]:
    """The memory ECG's own rule (umkit.ecg: SPIKY, SPIKE_MS): step 0 is warm-up and left out;
    a spike is a later step longer than SPIKY x the steady-state median *and* more than
    SPIKE_MS above it -- so a curve the ECG calls flat has no spikes."""
    ecg = umkit.ecg
    t = np.asarray(curve, dtype=float)
    if t.size < 2:
        return []
    med = float(np.median(t[1:]))
    return [i for i in range(1, t.size) if t[i] > ecg.SPIKY * med and t[i] - med > ecg.SPIKE_MS]


#: the profile the spike check simulates on when the learner is not on sim (notebook 09's own)
PROFILE = "mi250x-xnack1"


def _test_curves(seed=None) -> dict:
    """Eleven curves, drawn fresh at every check (``seed``: None, the check's generator): three ECGs
    simulated on the learner's card (the active sim profile; notebook 09's otherwise) with a
    random size and statistic period, six made-up shapes at random levels and positions, and two
    on which the mean and the median disagree (:func:`mean_median_curves`) -- so a function
    that returns remembered or formula indices, or compares with the mean, does not pass."""
    workloads = umkit.workloads
    rng = np.random.default_rng(check_seed() if seed is None else seed)
    prof = umkit.sim_profile().name if umkit.backend_name() == "sim" else PROFILE
    every = int(rng.integers(6, 13))
    steps = int(rng.integers(3, 5)) * every + int(rng.integers(1, every))
    mib = int(rng.choice([8, 16, 32]))
    with sim_sandbox(profile=prof, compute=False):
        p = workloads.Pattern("cpu_stats", every)
        curves = {s: workloads.run(s, p, steps, mib << 20).step_ms
                  for s in ("managed", "mixed", "device")}
    n = int(rng.integers(16, 40))
    base = float(rng.uniform(0.5, 5.0))
    curves["flat"] = [base] * n
    spike = [base] * n
    spike[int(rng.integers(2, n - 1))] = base * float(rng.uniform(5, 30)) + 2.0
    curves["one spike"] = spike
    curves["noisy but flat"] = list(base + 0.2 * base * np.sin(np.arange(n) * rng.uniform(0.5, 2)))
    ends = [base] * n
    ends[0] = ends[-1] = base * 4 + 2.0          # step 0 is warm-up; the last step is a spike
    curves["spikes at the ends"] = ends
    small = float(rng.uniform(0.05, 0.15))
    blips = [small] * n                          # 5x the median, but < 1 ms longer
    for k in rng.choice(np.arange(1, n), size=3, replace=False):
        blips[int(k)] = small * 5
    curves["short blips"] = blips
    # two levels: b+1 steps at low, b at 3x low, one spike between 6x and 9x low, and a long
    # warm-up step 0 -- the median of steps 1.. is 2x low, the median over all steps 3x low, so
    # only the ECG's rule (step 0 left out) finds the spike
    low, b = float(rng.uniform(0.5, 2.0)), int(rng.integers(6, 16))
    rest = [low] * (b + 1) + [3 * low] * b + [low * float(rng.uniform(6.3, 8.7))]
    rest = [rest[int(i)] for i in rng.permutation(len(rest))]
    curves["two levels"] = [low * float(rng.uniform(15, 40))] + rest
    curves.update(mean_median_curves(rng))
    return curves


def mean_median_curves(rng) -> dict:
    """Two curves on which a threshold on the mean and one on the median disagree, by
    construction (``rng``: a NumPy generator).

    'frequent spikes': a third or more of the steady steps are spikes, 4-12x the level.  The
    median stays at the level, so the ECG's rule flags every one; the mean is dragged up so far
    that no spike stands 3x above it (with a fraction f >= 1/3 of spikes at height h over level
    b, 3 x mean = 3b + 3f(h - b) >= h).

    'dips': most steady steps at a level L, nearly half near zero, and one step at 2.45-2.9 L.
    The median is L, so that step is no spike (under 3x); the mean falls to about 0.6 L, so a
    rule on the mean flags it (over 3x the mean and more than 1 ms above it)."""
    if not isinstance(rng, np.random.Generator):
        from ... import validate as V
        raise V.InvalidType(f"rng={V.shown(rng)} must be a NumPy random generator", argument="rng",
                            hint="pass numpy.random.default_rng(seed)")
    out = {}
    n = int(rng.integers(18, 34))                   # steady steps (step 0 comes before them)
    base = float(rng.uniform(0.6, 3.0))
    k = int(np.ceil(n * float(rng.uniform(0.36, 0.45))))
    steady = [base] * (n - k) + [base * float(rng.uniform(4.0, 12.0)) for _ in range(k)]
    steady = [steady[int(i)] for i in rng.permutation(n)]
    out["frequent spikes"] = [base * float(rng.uniform(2.0, 4.0))] + steady
    level = float(rng.uniform(1.0, 4.0))
    n = int(rng.integers(22, 34))
    low = int(n * 0.45)                             # fewer than half: the median stays at level
    steady = ([level] * (n - low - 1) + [level * float(rng.uniform(0.02, 0.08)) for _ in range(low)]
              + [level * float(rng.uniform(2.45, 2.9))])
    steady = [steady[int(i)] for i in rng.permutation(n)]
    out["dips"] = [level * float(rng.uniform(1.0, 1.5))] + steady
    return out


SPIKE_CONCEPT = ("§7 and the memory ECG's rule (umkit.ecg.SPIKY = 3, umkit.ecg.SPIKE_MS = 1 ms): "
                 "step 0 is warm-up and left out; a spike is longer than 3x the median of the "
                 "other steps (the median, not the mean: the mean is dragged up by the spikes) AND "
                 "more than 1 ms above it (a 0.5 ms blip is not a spike)")
_SPIKE_ANSWER = ("def find_spikes(step_ms):\n    t = np.asarray(step_ms, dtype=float)\n"
                "    med = np.median(t[1:])\n"
                "    return [i for i in range(1, len(t)) if t[i] > 3 * med and t[i] - med > 1.0]")


def _judge_spikes(got, want: list[int], name: str, curve, call: str) -> str | None:
    try:
        got = sorted(int(i) for i in got)
    except (TypeError, ValueError, OverflowError):
        return f"return a list of step indices (ints), not {type(got).__name__}."
    if got == want:
        return None
    # what is wrong, not where: step indices or the median would let a loop edit the output
    # until it matches instead of finding the rule
    extra, miss = set(got) - set(want), set(want) - set(got)
    detail = []
    if miss:
        detail.append("it misses a step the ECG's rule calls a spike")
    if extra:
        detail.append("it flags a step the ECG's rule does not call a spike")
    return (f"on the '{name}' curve " + " and ".join(detail) + ": which steps does the rule "
            "compare, against what, and by how much must a step stand out?")


SPIKES = Exercise(
    why_terms=('median', 'warm-up', 'step 0', '3x', '3 times', '1 ms', 'threshold', 'outlier',
               '中位数', '预热', '第 0 步', '3 倍', '阈值', '毛刺'),
    name="nb09.spikes", argument="find_spikes", kind="function", concept=SPIKE_CONCEPT,
    answer=_SPIKE_ANSWER,
    none="{argument} is still None: def find_spikes(step_ms): ... return [indices].",
    wrong_type="pass the function itself (no parentheses).",
    cases=lambda: _test_curves().items(), call="on the '{0}' curve your function",
    arguments=lambda name, curve: ((list(curve),), {}),
    reference=lambda name, curve: _reference(curve), judge=_judge_spikes,
    passed="your spike finder agrees with the memory ECG on all eleven curves, the simulated "
           "'managed', 'mixed' and 'device' ECGs included: a curve the ECG calls flat has no "
           "spikes.")


#: what the sealed verdict tells a spike finder that calls it
_VERDICT_WHY = "write the rule from the step times"


@tiered
def check_spikes(fn) -> Verdict:
    """``fn(curve)``: the indices of the spikes, by the memory ECG's rule: leave out step 0
    (warm-up); a spike is a later step longer than 3x the median of steps 1.. *and* more than
    1 ms above that median.  While ``fn`` runs, the ECG's own verdict does not answer."""
    from ...ecg import verdict_sealed
    return check(SPIKES, sealed_while(fn, lambda: verdict_sealed(_VERDICT_WHY)))
