"""Notebook 10: the solution passes, wrong answers get a NOT YET that says what is wrong."""
from __future__ import annotations

import os as _os_budget

# these tests try many wrong answers on purpose: the learner's attempts budget is off for them
# (exercises.attempts_budget; the budget's own tests run in a fresh process with it on)
_os_budget.environ.setdefault("UMKIT_EXERCISE_ATTEMPTS", "0")

import importlib.util
from pathlib import Path

import pytest

import umkit
from umkit.teaching.exercises import nb10

SOLUTION = Path(__file__).resolve().parents[2] / "notebooks" / "solutions" / "10_your_own_loop.py"


@pytest.fixture(scope="module")
def sol():
    spec = importlib.util.spec_from_file_location("solution_10", SOLUTION)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(autouse=True)
def sim():
    umkit.use("sim", quiet=True)
    yield


def test_solution_passes_and_backend_is_given_back(sol):
    before = umkit.backend()
    v = nb10.check_fixed_step(sol.fixed_step)
    assert v.ok, v
    assert umkit.backend() is before


@pytest.mark.parametrize("name,fragment", [("wrong_host_statistic", "still spiky"),
                                           ("wrong_skips_the_update", "returned"),
                                           ("wrong_forgets_the_statistic", "returned None")])
def test_wrong_answers_are_refused(sol, name, fragment):
    v = nb10.check_fixed_step(getattr(sol, name))
    assert not v.ok and fragment in v.message, v


def test_stub_and_bad_types():
    assert "still None" in nb10.check_fixed_step(None).message
    assert "must be a function" in nb10.check_fixed_step(3).message

    def boom(params, batch, i):
        raise ValueError("oops")
    assert "raised ValueError: oops" in nb10.check_fixed_step(boom).message
