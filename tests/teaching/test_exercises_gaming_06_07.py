"""Notebooks 06, 07 and 07b: each official solution passes under its notebook's OWN profile (the one
the notebook's first code cell sets), and degenerate answers are refused: a formula or constant
return, one label everywhere and then cycling, a wrong checkpoint rule."""
from __future__ import annotations

import os as _os_budget

# these tests try many wrong answers on purpose: the learner's attempts budget is off for them
# (exercises.attempts_budget; the budget's own tests run in a fresh process with it on)
_os_budget.environ.setdefault("UMKIT_EXERCISE_ATTEMPTS", "0")

import importlib.util
import json
import random
import re
from pathlib import Path

import pytest

import umkit
from umkit.teaching.exercises import nb06, nb07

ROOT = Path(__file__).resolve().parents[2]


def solution(stem):
    spec = importlib.util.spec_from_file_location(f"sol_{stem}", ROOT / "notebooks" / "solutions" / f"{stem}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def own_profile(stem):
    cells = json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text())["cells"]
    first = next("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    return re.search(r'PROFILE = "([\w-]+)"', first).group(1)


@pytest.fixture(autouse=True)
def sim():
    umkit.use("sim", quiet=True)
    yield
    umkit.use("sim", quiet=True)


def test_06_solution_passes_on_its_own_profile_at_any_drawn_size():
    prof = own_profile("06_training_data_loading")
    assert prof == nb06.PROFILE == "mi250x-xnack1"
    s = solution("06_training_data_loading")
    with umkit.using("sim", profile=prof):
        for seed in range(4):
            v = nb06.check_epoch_loop(s.my_epoch_loop, size=nb06.draw(random.Random(seed)))
            assert v.ok, v
        assert nb06.check_epoch_loop(s.my_epoch_loop).ok         # a fresh draw


def _loop(n, epochs, result):
    a, b, out = umkit.managed(n), umkit.managed(n), umkit.managed(n)
    a.host[:] = 1.0
    b.host[:] = 2.0
    s = umkit.Stream()
    for e in range(epochs):
        a.host[:] = e + 1.0                # the epoch's batch
        for x in (a, b, out):
            x.prefetch("gpu", stream=s)
        umkit.add(out, a, b, stream=s)
        s.synchronize()
    for x in (a, b, out):
        x.free()
    return result(n, epochs)


def test_06_formula_and_constant_returns_are_refused():
    formula = lambda n, epochs: _loop(n, epochs, lambda n, e: [n * (k + 3.0) for k in range(e)])
    v = nb06.check_epoch_loop(formula)
    assert not v.ok and "did not come from `out`" in v.message, v
    # a constant fitted to one drawn size fails another
    n, e = nb06.draw(random.Random(1))
    const = lambda n_, epochs: _loop(n_, epochs, lambda *_: [n * (k + 3.0) for k in range(e)])
    other = next(d for d in (nb06.draw(random.Random(k)) for k in range(2, 50)) if d[0] != n)
    assert not nb06.check_epoch_loop(const, size=other).ok


def test_07_placement_solution_and_both_checkpoint_rules_pass():
    s = solution("07_choosing_a_strategy")
    nb07.PLACEMENT_SET.reopen_first()
    assert nb07.check_placement(s.placement).ok
    assert nb07.check_placement(dict(s.placement, checkpoint="pinned")).ok
    assert not nb07.check_placement(dict(s.placement, checkpoint="device")).ok
    # a wrong set drew a new set: the solution's rule places it too
    assert set(nb07.BUFFERS) != set(s.placement)
    assert nb07.check_placement(s.placement_for(nb07.BUFFERS)).ok
    # every buffer the check can draw has one right answer in the solution, accepted by the check
    seen = set()
    for seed in range(200):
        seen |= set(nb07.PLACEMENT_SET.draw(random.Random(seed)))
    assert seen == set(s.ALLOCATOR)
    for seed in range(30):
        nb07.PLACEMENT_SET.draw(random.Random(seed))
        assert nb07.check_placement(s.placement_for(nb07.BUFFERS)).ok, dict(nb07.BUFFERS)
    nb07.PLACEMENT_SET.reopen_first()


def test_07_placement_cycling_what_the_feedback_names_does_not_pass():
    """One label everywhere, then flip whatever buffer the feedback names: the feedback names none,
    and a wrong set draws new buffers, so the set a loop was flipping is gone after one try."""
    s = solution("07_choosing_a_strategy")
    for start in nb07.KINDS:
        nb07.PLACEMENT_SET.reopen_first()
        names = list(nb07.BUFFERS)
        v = nb07.check_placement({b: start for b in names})
        assert not v.ok
        named = [b for b in names if re.search(rf"\b{b}\b", v.message)]
        assert not named, f"the feedback names {named}: {v.message}"
        assert set(nb07.BUFFERS) != set(names) and "drawn again" in v.message
        # the first set's right answer, found too late, no longer fits the buffers now open
        assert not nb07.check_placement(s.placement).ok
    # the new sets mix the kinds: one label everywhere is never right
    for seed in range(20):
        nb07.PLACEMENT_SET.draw(random.Random(seed))
        kinds = {s.ALLOCATOR[b] for b in nb07.BUFFERS}
        assert {"device", "managed", "pinned"} <= kinds
    nb07.PLACEMENT_SET.reopen_first()


def test_07b_breathing_solution_passes_on_its_own_profile():
    prof = own_profile("07b_multi_gpu_and_scale")
    assert prof == nb07.BREATH_PROFILE
    s = solution("07b_multi_gpu_and_scale")
    with umkit.using("sim", profile=prof):
        assert nb07.check_breathing(s.plan).ok
        for wrong in (s.wrong_plan_nothing, s.wrong_plan_inhale_only, s.wrong_plan_inhale_all):
            assert not nb07.check_breathing(wrong).ok


def test_no_answer_printed_near_the_exercises():
    """The cells around each check print no answer: no solution placement, no 'my_epoch_loop' code."""
    for stem, needle in (("06_training_data_loading", "nb06.check_epoch_loop("),
                         ("07_choosing_a_strategy", "nb07.check_placement(")):
        cells = json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text())["cells"]
        i = next(k for k, c in enumerate(cells) if needle in "".join(c["source"]))
        near = "".join("".join(c["source"]) + "".join("".join(o.get("text", "")) for o in c.get("outputs", []))
                       for c in cells[max(0, i - 2):i + 2])
        assert "def my_epoch_loop" not in near.replace("# def my_epoch_loop", "")
        assert not re.search(r'"fc_weights":\s*"device"', near)


def test_07_sparse_buffers_take_managed_or_pinned_and_tiny_step_data_pinned_or_device():
    """GT6: the model itself shows pinned host memory far faster than managed for a few scattered
    rows of a big table on AMD (each touched row pulls its 2 MiB block in); both are accepted, and
    the reasons say why. Tiny per-step data: pinned, or device memory with a small copy."""
    s = solution("07_choosing_a_strategy")
    for seed in range(200):
        nb07.PLACEMENT_SET.draw(random.Random(seed))
        names = set(nb07.BUFFERS)
        if {"rare_embeddings", "graph_neighbors"} & names and \
                {"loss_scalars", "step_settings"} & names:
            break
    answer = s.placement_for(nb07.BUFFERS)
    for b in ("rare_embeddings", "graph_neighbors"):
        if b in answer:
            answer[b] = "pinned"
    for b in ("loss_scalars", "step_settings"):
        if b in answer:
            answer[b] = "device"
    assert nb07.check_placement(answer).ok, (dict(nb07.BUFFERS), answer)
    nb07.PLACEMENT_SET.reopen_first()
    text = repr(nb07.check_placement(None, hint=3))
    assert "2 MiB" in text and "only the rows a step touches migrate" not in text
    nb07.PLACEMENT_SET.reopen_first()
