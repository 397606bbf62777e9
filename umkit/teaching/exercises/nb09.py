"""Checks for notebook 09 -- troubleshooting and the memory ECG (the article's §5.1, §5.2, §7)."""
from __future__ import annotations

import numpy as np

from . import Verdict, failed, passed, tiered
from .nb05 import sim_sandbox

# -- exercise 1: diagnose five reports with the §5.1 table ------------------------------------------------
CASES = {
    "A": "The job grew from 7B to 13B parameters and now hipMallocManaged returns error 2 at start-up; "
         "rocm-smi shows another process holding 20 GB.",
    "B": "A data-loader process sends a pointer from hipMallocManaged to the training process through "
         "a pipe; the training process dies with HSA_STATUS_ERROR_INVALID_MEMORY.",
    "C": "No error anywhere, but the validation loss is sometimes garbage since someone moved the "
         "CPU-side normalisation of the batch to just after the kernel launch.",
    "D": "Step time alternates between 40 ms and 900 ms; with HSA_XNACK=1, ROCm Systems Profiler's "
         "unified-memory report shows thousands of page faults and page migrations (triggers "
         "PAGEFAULT_GPU and PAGEFAULT_CPU) on the parameter buffer every few steps.",
    "E": "The same managed-memory code runs fine on MI250X with HSA_XNACK=1 and 30x slower on an "
         "old GCN card (or with XNACK off), where the GPU cannot replay a faulting access.",
}
FIXES = {
    1: "Split buffers by access frequency (hot data in device memory), then advice + prefetch.",
    2: "Synchronize (stream or event) before the CPU touches data a kernel may still use.",
    3: "Share through IPC handles (hipIpcGetMemHandle on hipMalloc memory) or a file mapping.",
    4: "Check what holds VRAM (rocm-smi), allocate in smaller blocks, let cold data breathe out.",
    5: "Upgrade ROCm, or use explicit hipMemcpy instead of managed memory on that card.",
}
_DIAG = {"A": 4, "B": 3, "C": 2, "D": 1, "E": 5}
_LOOKUP = {
    "A": "umkit.explain(2) or umkit.explain('hipErrorOutOfMemory')",
    "B": "umkit.explain('HSA_STATUS_ERROR_INVALID_MEMORY')",
    "C": "umkit.explain('wrong result')",
    "D": "umkit.explain('erratic')",
    "E": "umkit.explain('old card')",
}


DIAG_CONCEPT = ("§5.1's table: read each report for its symptom -- an error code at start-up, an "
                "error in a second process, wrong numbers with no error, erratic step times, a "
                "card-dependent slowdown -- and match the symptom, not the words. umkit.explain(...) "
                "looks a symptom or error up in the same table")
_DIAG_WHY = {"A": "an out-of-memory error (error 2) while another process holds VRAM",
             "B": "a pointer from another process: its address means nothing there",
             "C": "a race: the CPU touches the batch while the kernel may still use it",
             "D": "page thrash: CPU and GPU faults on the same buffer every few steps",
             "E": "no recoverable GPU page faults (XNACK off / old card): no on-demand migration"}


def _diag_answer(cases=None) -> str:
    return " | ".join(f"{k} -> fix {_DIAG[k]}: {_DIAG_WHY[k]}" for k in (cases or CASES))


def _diag_no(message: str) -> Verdict:
    return failed(message, DIAG_CONCEPT, _diag_answer())


@tiered
def check_diagnosis(answers) -> Verdict:
    """``answers``: {case letter: fix number} for every case in :data:`CASES`."""
    if answers is None:
        return _diag_no("diagnosis is still None: map every case letter to a fix number, e.g. "
                        "{'A': 1, 'B': 2, ...}.")
    if not isinstance(answers, dict):
        return _diag_no(f"diagnosis must be a dict {{letter: number}}, not {type(answers).__name__}.")
    got = {str(k).strip().upper(): v for k, v in answers.items()}
    missing = [k for k in CASES if k not in got]
    if missing:
        return _diag_no(f"cases without a diagnosis: {missing}.")
    wrong = []
    for k in CASES:
        try:
            v = int(got[k])
        except (TypeError, ValueError, OverflowError):
            return _diag_no(f"case {k}: {got[k]!r} is not a fix number (1-{len(FIXES)}).")
        if v not in FIXES:
            return _diag_no(f"case {k}: there is no fix {v}; choose 1-{len(FIXES)}.")
        if v != _DIAG[k]:
            wrong.append(k)
    if wrong:
        k = wrong[0]
        more = (f"{len(wrong)} of {len(CASES)} diagnoses don't fit; reconsider case {k} first"
                if len(wrong) > 1 else f"one diagnosis doesn't fit: case {k}")
        return failed(f"{more}. Read its symptom again: {CASES[k]}",
                      f"{DIAG_CONCEPT}. For case {k}, ask the table: {_LOOKUP[k]}",
                      _diag_answer(wrong))
    return passed("all five: OOM (A), cross-process pointer (B), a race with no error (C), page "
                  "thrash (D), a card without recoverable page faults (XNACK), so no on-demand "
                  "migration (E).")


# -- exercise 2: read the ECG automatically ----------------------------------------------------------------
def _reference(curve) -> list[int]:
    """The memory ECG's own rule (umkit.ecg: SPIKY, SPIKE_MS): step 0 is warm-up and left out;
    a spike is a later step longer than SPIKY x the steady-state median *and* more than
    SPIKE_MS above it -- so a curve the ECG calls flat has no spikes."""
    from ...ecg import SPIKE_MS, SPIKY
    t = np.asarray(curve, dtype=float)
    if t.size < 2:
        return []
    med = float(np.median(t[1:]))
    return [i for i in range(1, t.size) if t[i] > SPIKY * med and t[i] - med > SPIKE_MS]


def _test_curves() -> dict:
    with sim_sandbox(compute=False):
        from ... import workloads
        p = workloads.Pattern("cpu_stats", 10)
        curves = {s: workloads.run(s, p, 40, 16 << 20).step_ms
                  for s in ("managed", "mixed", "device")}
    curves["flat"] = [1.0] * 20
    curves["one spike"] = [2.0] * 9 + [50.0] + [2.0] * 10
    curves["noisy but flat"] = list(1.0 + 0.2 * np.sin(np.arange(30)))
    curves["spikes at the ends"] = [9.0] + [1.0] * 18 + [9.0]
    curves["short blips"] = [0.1] * 9 + [0.5] + [0.1] * 10     # 5x the median, but < 1 ms longer
    return curves


SPIKE_CONCEPT = ("§7 and the memory ECG's rule (umkit.ecg.SPIKY = 3, umkit.ecg.SPIKE_MS = 1 ms): "
                 "step 0 is warm-up and left out; a spike is longer than 3x the median of the "
                 "other steps (the median, not the mean: the mean is dragged up by the spikes) AND "
                 "more than 1 ms above it (a 0.5 ms blip is not a spike)")
SPIKE_ANSWER = ("def find_spikes(step_ms):\n    t = np.asarray(step_ms, dtype=float)\n"
                "    med = np.median(t[1:])\n"
                "    return [i for i in range(1, len(t)) if t[i] > 3 * med and t[i] - med > 1.0]")


def _spike_no(message: str) -> Verdict:
    return failed(message, SPIKE_CONCEPT, SPIKE_ANSWER)


@tiered
def check_spikes(fn) -> Verdict:
    """``fn(curve)``: the indices of the spikes, by the memory ECG's rule: leave out step 0
    (warm-up); a spike is a later step longer than 3x the median of steps 1.. *and* more than
    1 ms above that median."""
    if fn is None:
        return _spike_no("find_spikes is still None: def find_spikes(step_ms): ... return [indices].")
    if not callable(fn):
        return _spike_no("pass the function itself (no parentheses).")
    for name, curve in _test_curves().items():
        want = _reference(curve)
        try:
            got = fn(list(curve))
        except Exception as e:  # noqa: BLE001 - the learner's code: report, don't raise
            return _spike_no(f"on the '{name}' curve your function raised {type(e).__name__}: {e}")
        try:
            got = sorted(int(i) for i in got)
        except (TypeError, ValueError, OverflowError):
            return _spike_no(f"return a list of step indices (ints), not {type(got).__name__}.")
        if got != want:
            extra, miss = sorted(set(got) - set(want)), sorted(set(want) - set(got))
            med = float(np.median(curve[1:])) if len(curve) > 1 else float(curve[0])
            detail = []
            if miss:
                detail.append(f"missed steps {miss[:6]} (e.g. step {miss[0]}: {curve[miss[0]]:.3f} ms)")
            if extra:
                detail.append(f"flagged steps {extra[:6]} that are not spikes (e.g. step {extra[0]}: "
                              f"{curve[extra[0]]:.3f} ms)")
            return _spike_no(f"'{name}' curve (median of steps 1.. {med:.3f} ms): " + "; ".join(detail) + ".")
    return passed("your spike finder agrees with the memory ECG on all eight curves, the "
                  "simulated 'managed', 'mixed' and 'device' ECGs included: a curve the ECG calls "
                  "flat has no spikes.")
