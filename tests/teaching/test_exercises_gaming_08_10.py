"""Notebooks 08-10: every official solution passes under its notebook's own profile (the one the
notebook's first code cell sets), and the degenerate answers are refused -- one label everywhere,
then cycling whatever the feedback names; formula and constant returns; the text a nearby cell
prints (08's hipify output)."""
from __future__ import annotations

import os as _os_budget

# these tests try many wrong answers on purpose: the learner's attempts budget is off for them
# (exercises.attempts_budget; the budget's own tests run in a fresh process with it on)
_os_budget.environ.setdefault("UMKIT_EXERCISE_ATTEMPTS", "0")

import importlib.util
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

import umkit
from umkit.teaching.exercises import nb08, nb09, nb10

ROOT = Path(__file__).resolve().parents[2]


def _solution(stem):
    spec = importlib.util.spec_from_file_location(f"sol_{stem[:2]}", ROOT / "notebooks" / "solutions" / f"{stem}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _own_profile(stem) -> str:
    """The sim profile the notebook's first code cell sets (PROFILE = "...")."""
    nb = nbformat.read(str(ROOT / "notebooks" / f"{stem}.ipynb"), as_version=4)
    first = next(c.source for c in nb.cells if c.cell_type == "code")
    m = re.search(r'PROFILE\s*=\s*"([\w-]+)"', first)
    assert m, f"{stem}: the first code cell sets no PROFILE"
    return m.group(1)


S08 = _solution("08_porting_cuda_to_hip")
S09 = _solution("09_troubleshooting_and_ecg")
S10 = _solution("10_your_own_loop")


@pytest.fixture(autouse=True)
def _sim():
    yield
    umkit.use("sim", quiet=True)


@pytest.mark.parametrize("stem", ["08_porting_cuda_to_hip", "09_troubleshooting_and_ecg",
                                  "10_your_own_loop"])
def test_the_notebooks_run_an_amd_profile(stem):
    assert _own_profile(stem).startswith("mi"), stem


@pytest.mark.parametrize("profile", [_own_profile("08_porting_cuda_to_hip"), "h200-pcie5"])
def test_08_solutions_pass_on_the_notebooks_profile(profile):
    umkit.use("sim", profile=profile, quiet=True)
    for src in (S08.hip_source, S08.hip_source_v2):
        assert nb08.check_port(src).ok
    assert nb08.check_owner_table(S08.owner_table).ok
    assert nb08.check_owner_table(S08.owner_table_pinned_checkpoint).ok


@pytest.mark.parametrize("profile", [_own_profile("09_troubleshooting_and_ecg"), "h200-pcie5"])
def test_09_solutions_pass_on_the_notebooks_profile(profile):
    umkit.use("sim", profile=profile, quiet=True)
    nb09.DIAGNOSIS_SET.reopen_first()             # an earlier test may have left a drawn set open
    assert nb09.check_diagnosis(S09.diagnosis).ok
    for _ in range(2):                    # fresh curves each call
        assert nb09.check_spikes(S09.find_spikes).ok


@pytest.mark.parametrize("profile", [_own_profile("10_your_own_loop"), "h200-pcie5"])
def test_10_solution_passes_on_the_notebooks_profile(profile):
    umkit.use("sim", profile=profile, quiet=True)
    v = nb10.check_fixed_step(S10.fixed_step)
    assert v.ok, v


# -- 08: the port ------------------------------------------------------------------------------------
def _hipify(src):
    """The notebook's few-line hipify (every cuda... identifier through the names table)."""
    def one(m):
        try:
            h = umkit.names.cuda_to_hip(m.group(0))
        except KeyError:
            return m.group(0)
        return h if h is not None else m.group(0)
    return re.sub(r"\bcuda\w+", one, src)


def test_08_hipify_output_plus_v2_names_is_refused():
    out = _hipify(nb08.CUDA_SOURCE)
    assert not nb08.check_port(out).ok
    v2 = out.replace("hipMemPrefetchAsync(", "hipMemPrefetchAsync_v2(").replace(
        "hipMemAdvise(", "hipMemAdvise_v2(")
    v = nb08.check_port(v2)
    assert not v.ok and "ConcurrentManagedAccess" in v.message, v
    # the PageableMemoryAccess answer is not in tier 1 (it is the lesson), only in tier 3
    assert "PageableMemoryAccess" not in v.message
    assert "PageableMemoryAccess" in nb08.check_port(v2, hint=3).answer
    # with the right attribute, the hipify + _v2 port is a correct port: the point was the attribute
    fixed = v2.replace("hipDeviceAttributeConcurrentManagedAccess",
                       "hipDeviceAttributePageableMemoryAccess")
    assert nb08.check_port(fixed).ok


def test_08_the_notebook_prints_no_port_of_the_exercise_before_it():
    nb = nbformat.read(str(ROOT / "notebooks" / "08_porting_cuda_to_hip.ipynb"), as_version=4)
    cells = nb.cells
    ex = next(i for i, c in enumerate(cells) if "nb08.check_port(" in c.source)
    for c in cells[:ex]:
        for o in c.get("outputs", []):
            text = o.get("text", "") + str(o.get("data", {}).get("text/plain", ""))
            assert "hipMallocManaged(&w" not in text, "a port of the exercise's snippet is printed"


def test_08_wrong_ports_refused():
    for w in S08.wrong_sources:
        assert not nb08.check_port(w).ok


# -- 08: the owner table -----------------------------------------------------------------------------
def _messages_name_no_row(v):
    return not any(re.search(rf"\b{k}\b", v.message) for k in nb08.BUFFERS)


def test_08_one_label_everywhere_then_cycling_is_refused():
    right = S08.owner_table
    for owner, alloc, life in [("gpu", "device", "run"), ("both", "managed", "step"),
                               ("cpu", "pinned", "rare")]:
        table = {k: dict(budget_gb=r["budget_gb"], lifetime=life, owner=owner, allocator=alloc)
                 for k, r in right.items()}
        v = nb08.check_owner_table(table)
        assert not v.ok and _messages_name_no_row(v), v.message
        # cycling: change only what a message names -- it names nothing, so nothing to cycle
        assert not any(f"'{x}'" in v.message for x in ("gpu", "cpu", "both", "device", "managed",
                                                        "pinned", "run", "step", "rare"))


@pytest.mark.parametrize("k", list(nb08.BUFFERS))
def test_08_a_single_wrong_row_is_not_named(k):
    for field, values in (("owner", nb08.OWNERS), ("allocator", nb08.ALLOCATORS)):
        for val in values:
            table = {b: dict(r) for b, r in S08.owner_table.items()}
            table[k][field] = val
            v = nb08.check_owner_table(table)
            if not v.ok:
                assert _messages_name_no_row(v) and not re.search(r"\d+ of the \d+", v.message), \
                    v.message


def test_08_checkpoint_one_rule():
    for alloc, ok in (("managed", True), ("pinned", True), ("device", False)):
        t = dict(S08.owner_table, checkpoint=dict(budget_gb=6.0, lifetime="rare", owner="cpu",
                                                  allocator=alloc))
        assert nb08.check_owner_table(t).ok is ok, alloc
    v = nb08.check_owner_table(dict(S08.owner_table, checkpoint=dict(
        budget_gb=6.0, lifetime="rare", owner="cpu", allocator="device")), hint=3)
    assert "the CPU must read it" in v.answer and "pinned host memory" in v.answer


# -- 09 ------------------------------------------------------------------------------------------
def test_09_diagnosis_one_label_everywhere_then_cycling_is_refused():
    for label in nb09.FIXES:
        v = nb09.check_diagnosis({c: label for c in nb09.CASES})
        assert not v.ok
        assert not re.search(r"\bcase [A-E]\b|\b[A-E]\b\s*(->|:)", v.message), v.message
        assert not re.search(r"\b[A-E]\b", nb09.check_diagnosis({c: label for c in nb09.CASES},
                                                                 hint=2).message)


def test_09_cycling_what_the_feedback_names_gets_nowhere():
    """An attacker who flips only a case the message names never passes: none is named."""
    guess = {c: 1 for c in nb09.CASES}
    for _ in range(25):
        v = nb09.check_diagnosis(guess)
        if v.ok:
            break
        named = [c for c in nb09.CASES if re.search(rf"\b{c}\b", v.message)]
        if not named:
            break
        guess[named[0]] = guess[named[0]] % len(nb09.FIXES) + 1
    assert not v.ok


def test_09_case_b_uses_a_real_rocm_message():
    assert "HSA_STATUS_ERROR_INVALID_MEMORY" not in nb09.CASES["B"]


def test_09_spike_constant_formula_and_remembered_answers_are_refused():
    umkit.use("sim", profile=_own_profile("09_troubleshooting_and_ecg"), quiet=True)
    assert not nb09.check_spikes(lambda c: []).ok
    assert not nb09.check_spikes(lambda c: [i for i in range(1, len(c)) if i % 10 in (9, 0)]).ok
    # remember the right answers of one check, replay them by curve length on the next
    seen = {}

    def remember(c):
        ans = S09.find_spikes(c)
        seen[len(c), round(float(c[1]), 6)] = ans
        return ans
    assert nb09.check_spikes(remember).ok
    replay = lambda c: seen.get((len(c), round(float(c[1]), 6)), [])  # noqa: E731
    assert not nb09.check_spikes(replay).ok


# -- 10 ------------------------------------------------------------------------------------------
def test_10_formula_constant_and_cached_returns_are_refused():
    umkit.use("sim", profile=_own_profile("10_your_own_loop"), quiet=True)

    def formula(params, batch, i):
        S10.fixed_step(params, batch, i)
        if i % 10 == 9:
            return 0.5 + i + 1

    def constant(params, batch, i):
        S10.fixed_step(params, batch, i)
        if i % 10 == 9:
            return 10.5

    cache = {}

    def cached(params, batch, i):      # one honest read at step 0, then a formula
        v = S10.fixed_step(params, batch, i)
        if i == 0:
            cache["start"] = float(umkit.read_back(params)[::1024].mean())
        if i % 10 == 9:
            return cache["start"] + i
        return v
    for fn in (formula, constant, cached):
        v = nb10.check_fixed_step(fn)
        assert not v.ok and "returned" in v.message, (fn.__name__, v)


def test_10_the_host_statistic_is_spiky_on_the_amd_profile():
    umkit.use("sim", profile=_own_profile("10_your_own_loop"), quiet=True)
    v = nb10.check_fixed_step(S10.wrong_host_statistic)
    assert not v.ok and "still spiky" in v.message, v


def _code_cells(stem):
    nb = nbformat.read(str(ROOT / "notebooks" / f"{stem}.ipynb"), as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code"]


def test_10_section_3s_planned_step_is_refused_by_section_2s_check():
    """The worked plan after the exercise computes the statistic with nb10.gpu_mean; pasted as
    the exercise's answer (its own cell's code, run as it is) it is refused, and says why."""
    umkit.use("sim", profile=_own_profile("10_your_own_loop"), quiet=True)
    cell = next(s for s in _code_cells("10_your_own_loop") if "def planned_step" in s)
    src = cell[cell.index("def planned_step"):cell.index("\nruns = []")]
    assert "nb10.gpu_mean(params)" in src
    ns = {"umkit": umkit, "nb10": nb10}
    exec(src, ns)                                                  # noqa: S102 - the notebook's own code
    v = nb10.check_fixed_step(ns["planned_step"])
    assert not v.ok and "nb10.gpu_mean() is section 3's helper" in v.message, v
    # outside the check the helper answers (section 3 needs it), and the check's seal is lifted
    w = umkit.device_array((64 << 10) // 4)
    try:
        umkit.fill(w, 0.25)
        assert abs(nb10.gpu_mean(w) - 0.25) < 1e-6
    finally:
        w.free()


def test_no_notebook_code_cell_applies_the_spike_rule_09_asks_for():
    """Notebook 09's exercise is the ECG's spike rule (both thresholds, against the median):
    no code cell of any notebook writes it out -- 10's reveal names the slowest steps instead."""
    rule = re.compile(r"SPIKY\s*\*[^\n]*\n?[^\n]*SPIKE_MS|SPIKE_MS[^\n]*\n?[^\n]*SPIKY\s*\*")
    found = [(p.name, i) for p in sorted((ROOT / "notebooks").glob("*.ipynb"))
             for i, s in enumerate(_code_cells(p.stem)) if rule.search(s)]
    assert found == [], found


def test_09_a_spike_finder_that_asks_the_ecgs_verdict_is_refused():
    """The rule cannot be had from the verdict it is checked against: while the check runs the
    learner's function, umkit.ecg.verdict refuses (and answers again after it)."""
    umkit.use("sim", profile=_own_profile("09_troubleshooting_and_ecg"), quiet=True)

    def by_verdict(c):
        med = float(np.median(c[1:]))
        return [i for i in range(1, len(c)) if umkit.ecg.verdict(
            [c[0], c[i]], {"median_ms": med, "max_over_median": c[i] / med}) == "spiky"]
    v = nb09.check_spikes(by_verdict)
    assert not v.ok and "verdict() does not answer" in v.message, v
    assert umkit.ecg.verdict([1.0, 1.0, 9.0], {"median_ms": 1.0, "max_over_median": 9.0}) == "spiky"
    with pytest.raises(umkit.errors.InvalidType):
        umkit.ecg.verdict_sealed("")
