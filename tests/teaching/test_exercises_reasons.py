"""A pass needs the learner's reason (issue 42: "ask for the reason"): with the learner's default
budget, a right answer without ``why=`` is not passed -- the verdict says the answer works and
asks for the reason -- and the cheap routes (a set copied from a nearby cell, a loop over what the
feedback names) end at a reason in the learner's own words that names the exercise's ideas.

Each test runs in a fresh process with the budget as a learner has it (the project's other
exercise tests turn it off)."""
from __future__ import annotations

import importlib
import pkgutil

import pytest

import umkit.teaching.exercises as exercises
from repo_tools import fresh_exercises


def _exercise_objects():
    out = []
    for mod in sorted(m.name for m in pkgutil.iter_modules(exercises.__path__)):
        m = importlib.import_module(f"{exercises.__name__}.{mod}")
        out += [(f"{mod}.{n}", e) for n, e in sorted(vars(m).items())
                if isinstance(e, exercises.Exercise)]
    return out


EXERCISES = _exercise_objects()


def test_every_exercise_names_the_ideas_a_reason_must_connect():
    assert len(EXERCISES) >= 16
    for name, e in EXERCISES:
        latin = [t for t in e.why_terms if t.isascii()]
        chinese = [t for t in e.why_terms if not t.isascii()]
        # a reason names two different ideas in one language: both need two or more
        assert len(latin) >= 2 and len(chinese) >= 2, (name, e.why_terms)


def test_the_default_budget_is_three_wrong_tries():
    fresh_exercises("assert exercises.attempts_budget() == 3", budget=None)


def test_right_answers_without_a_reason_are_not_passed_on_every_kind_of_exercise():
    out = fresh_exercises("""
        umkit.use("sim", profile="mi250x-xnack1", quiet=True)
        from umkit.teaching.exercises import nb05, nb09, nb10
        import umkit as U

        def fixed_step(params, batch, i):
            batch.host[:] = float(i)
            U.touch(batch, 4)
            U.increment(params)
            if i % 10 == 9:
                sink = U.device_array(1)
                U.fill(sink, 0.0)
                U.touch(params, 4096, sink=sink)
                total = float(U.read_back(sink)[0])
                sink.free()
                return total / (params.nbytes // 4096)
            U.synchronize()

        cases = [  # (check, the right answer, a reason in a learner's own words)
            (nb01.check_transitions, right,
             "each trip carries one batch of faults, and the last partial batch needs a trip too"),
            (nb09.check_diagnosis, {"A": 4, "B": 3, "C": 2, "D": 1, "E": 5},
             "out of memory means fragmentation so smaller chunks; a pointer from another process "
             "needs IPC; garbled data means a missing synchronize; erratic speed is migration "
             "so advise and prefetch; old cards lack XNACK"),
            (nb10.check_fixed_step, fixed_step,
             "the mean is reduced on the gpu where the weights live, so only four bytes cross "
             "the link and no page has to migrate back to the cpu"),
        ]
        for check, answer, why in cases:
            v = check(answer)
            assert not v.ok and v.reason_asked, (check.__name__, v)
            assert "why=" in v.message, v.message
            v = check(answer)                        # asking again does not spend a wrong try
            assert not v.ok and v.reason_asked and "not graded" not in v.message, v
            v = check(answer, why=why)
            assert v.ok, (check.__name__, v)
        v = nb05.check_ipc({"b", "d"})              # a choice: refused without a reason too
        assert not v.ok
        print("ok")
    """, budget=None)
    assert out.strip().endswith("ok")


def test_cycling_what_the_feedback_names_ends_at_a_reason_in_own_words():
    out = fresh_exercises("""
        from umkit.teaching.exercises import nb09
        for k in range(1, 4):                        # one label everywhere, then others
            v = nb09.check_diagnosis({c: k for c in "ABCDE"})
            assert not v.ok and "not graded" not in v.message, v
        v = nb09.check_diagnosis({c: 4 for c in "ABCDE"})
        assert not v.ok and "not graded" in v.message, v       # the free tries are spent
        # the concept pasted back, or a repeat of the same reason, is not graded either
        v = nb09.check_diagnosis({c: 5 for c in "ABCDE"}, why=nb09.DIAGNOSIS.concept)
        assert "not graded" in v.message, v
        v = nb09.check_diagnosis({"A": 4, "B": 3, "C": 2, "D": 1, "E": 5})
        assert not v.ok and "not graded" in v.message
        print("ok")
    """, budget=None)
    assert out.strip().endswith("ok")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_reason_request_is_said_in_the_learners_language(lang):
    out = fresh_exercises(f"""
        umkit.use(lang={lang!r}, quiet=True)
        v = nb01.check_transitions(right)
        print(repr(v))
    """, budget=None)
    if lang == "zh":
        assert "要通过，还要附上你的理由" in out and "to pass" not in out, out
    else:
        assert "to pass, add your reason" in out, out
