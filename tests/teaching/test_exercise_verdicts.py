"""A check always returns a verdict: a learner's bare ``assert`` (an exception with no message)
is reported as such instead of crashing the grader with IndexError, and NaN never passes as the
right number."""
from __future__ import annotations

import math

import pytest

from umkit.teaching.exercises.grading import close_to, raised
from umkit.teaching.exercises import nb02
from umkit.teaching.exercises import nb05
from umkit.teaching.exercises import nb06
from umkit.teaching.exercises import nb07


# the learner's bare ``assert``, compiled outside pytest's assertion rewriting (which would give
# it a message): an AssertionError whose text is empty, as in a notebook
_ns: dict = {}
exec(compile("def bare_assert(*args, **kwargs):\n    assert False\n", "<learner>", "exec"), _ns)
_bare_assert = _ns["bare_assert"]


@pytest.mark.parametrize("check", [nb02.check_load, nb05.check_statistic, nb06.check_epoch_loop,
                                   nb07.check_breathing], ids=["nb02", "nb05", "nb06", "nb07"])
def test_a_bare_assert_in_the_learners_code_gets_a_verdict(check, monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    v = check(_bare_assert)
    assert not v.ok and "AssertionError" in v.message


def test_a_statistic_that_returns_nan_fails(monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    v = nb05.check_statistic(lambda params: float("nan"))
    assert not v.ok


def test_raised_and_close_to():
    assert raised(AssertionError()) == "AssertionError (no message)"
    assert raised(ValueError("\n  bad value\nmore")) == "ValueError: bad value"
    assert close_to(1.0005, 1.0) and not close_to(1.01, 1.0)
    assert not close_to(math.nan, 1.0) and not close_to(math.inf, 1.0)


def test_a_code_answer_keeps_its_lines_and_only_the_verdict_is_red():
    import html as _html
    import re
    from umkit.teaching.exercises import failed
    answer = "def prefetch_ms(nbytes, bw):\n    t = nbytes / bw\n    return t * 1e3"
    v = failed("not yet", "read §3.2", answer)
    v.level = 3
    page = v._repr_html_()
    pre = re.search(r"<pre[^>]*>(.*?)</pre>", page, re.S)
    assert pre and _html.unescape(pre.group(1)) == answer      # copied, it is valid Python
    compile(_html.unescape(pre.group(1)), "<answer>", "exec")
    red = re.findall(r'<div style="color:#c62828;font-weight:600">(.*?)</div>', page, re.S)
    assert len(red) == 1 and "not yet" in red[0] and "read" not in red[0]


# -- exercises are data: one generic check grades them ----------------------------------------------
def _square_exercise(**changes):
    from umkit.teaching.exercises.grading import Exercise
    fields = dict(
        name="test.square", argument="square", kind="function",
        concept="§0: a square is x times x", answer="def square(x):\n    return x * x",
        none="{argument} is None: write def square(x): ...",
        wrong_type="{argument} should be a function, got {type}",
        cases=((2,), (3,), (-4,)), call="square({0})", reference=lambda x: x * x,
        judge=lambda got, want, x, call: None if got == want else f"{call} returned {got!r}",
        passed="x * x on every case")
    fields.update(changes)
    return Exercise(**fields)


def test_the_generic_check_runs_the_preamble_and_the_cases():
    from umkit.teaching.exercises.grading import Verdict, check
    ex = _square_exercise()
    v = check(ex, None, hint=3)
    assert isinstance(v, Verdict) and not v.ok
    assert v.message == "square is None: write def square(x): ..."
    assert v.concept == ex.concept and v.answer == ex.answer          # every failure gets both
    assert check(ex, 3).message == "square should be a function, got int"
    assert check(ex, lambda x: x + x).message == "square(3) returned 6"   # 2 + 2 == 2 * 2
    v = check(ex, _bare_assert)
    assert not v.ok and v.message == "square(2) raised AssertionError: "
    assert check(_square_exercise(raised="{call} raised {error}"), _bare_assert).message == \
        "square(2) raised AssertionError (no message)"
    ok = check(ex, lambda x: x * x)
    assert ok.ok and ok.message == "x * x on every case" and not ok.concept
    assert "answer:" in repr(check(ex, None, hint=3)) and "answer:" not in repr(check(ex, None))
    assert "hint=7" in check(ex, None, hint=7).message


def test_the_generic_check_refuses_what_is_not_an_exercise():
    from umkit.errors import InvalidType
    from umkit.teaching.exercises.grading import check
    with pytest.raises(InvalidType) as e:
        check("nb01.transitions", lambda n, b: 1)
    assert e.value.argument == "exercise"


def test_a_grader_that_runs_the_learners_code_cleans_up_and_reports_it():
    """The learner's exception leaves the grader through its finally blocks; check() words it."""
    from umkit.teaching.exercises.grading import check
    cleaned = []

    def grader(fn):
        try:
            return "unreachable" if fn(1) is None else "returned something"
        finally:
            cleaned.append(True)
    ex = _square_exercise(cases=(), grader=grader, call="square(1)",
                          raised=((ZeroDivisionError, "{call} divided by zero: {exception}"),
                                  (Exception, "{call} raised {type}: {exception}")))
    assert check(ex, lambda x: x / 0).message == "square(1) divided by zero: division by zero"
    assert check(ex, lambda x: [][x]).message == \
        "square(1) raised IndexError: list index out of range"
    assert cleaned == [True, True]


def test_labels_partial_and_complete():
    """A set of labels is graded whole: tier 1 names no item and no count, an incomplete set is
    not graded (one item at a time would reveal each), tier 2 asks every item's question, tier 3
    gives every line and says the answer was shown.  An old template that names an item is not
    used."""
    from umkit.teaching.exercises.grading import Exercise, Labels, check
    common = dict(right={"a": {"x"}, "b": {"y"}, "c": {"x", "y"}},
                  lines={"a": "a is x", "b": "b is y", "c": "c is either"},
                  label=lambda v: str(v).lower() if str(v).lower() in ("x", "y") else None,
                  bad_label="{item}: {value!r} is neither x nor y",
                  wrong=("{first} is wrong", "{n} wrong; start with {first}"),
                  questions={"a": "qa?", "b": "qb?", "c": "qc?"},
                  unknown="unknown {unknown}", missing="still missing: {missing}")
    partial = Exercise(name="test.partial", argument="labels", kind="labels", concept="§1",
                       wrong_type="{argument} must be a dict, not {type}",
                       labels=Labels(**common, partial=True, all_none="all None"),
                       passed="all right")
    assert check(partial, None).message == "labels must be a dict, not NoneType"
    assert check(partial, {"a": None, "b": None, "c": None}).message == "all None"
    # one answer given: not graded, right or wrong alike
    one_right, one_wrong = check(partial, {"a": "X"}), check(partial, {"a": "y"})
    assert one_right.message == one_wrong.message == \
        "2 of 3 still None: ['b', 'c']. The set is graded when every item has an answer"
    v = check(partial, {"a": "y", "b": "x", "c": "x"}, hint=3)
    assert v.message == "your 3 answers are not all right yet: check each one against the rule"
    assert v.answer == "a is x | b is y | c is either"
    assert "qa?" in v.concept and "qb?" in v.concept and "qc?" in v.concept
    # one wrong or two wrong: the same words (a count would let a loop find them)
    assert check(partial, {"a": "x", "b": "x", "c": "x"}).message == v.message
    assert check(partial, {"a": "z"}).message == "a: 'z' is neither x nor y"
    assert check(partial, {"zz": 1, 1: 2}).message == "unknown [1, 'zz']"   # no TypeError
    assert check(partial, {"a": "x", "b": "Y", "c": "y"}).ok
    complete = Exercise(name="test.complete", argument="labels", kind="labels", concept="§1",
                        wrong_type="{argument} must be a dict, not {type}",
                        labels=Labels(**common), passed="all right")
    assert check(complete, {"a": "x"}).message == "still missing: ['b', 'c']"
    assert check(complete, {"a": None, "b": "y", "c": "x"}).message == \
        "a: None is neither x nor y"
    assert check(complete, {"a": "x", "b": "x", "c": "x"}).message == v.message
    # a template that uses only the set's fields is kept
    own = Exercise(name="test.own", argument="labels", kind="labels", concept="§1",
                   labels=Labels(**dict(common, wrong="{given} of {total}: not yet")),
                   passed="all right")
    assert check(own, {"a": "x", "b": "x", "c": "x"}).message == "3 of 3: not yet"


def test_a_shown_answer_is_said():
    """hint=3 shows the answer and says so; a later pass of that exercise says it too."""
    from umkit.teaching.exercises.grading import Exercise, Labels, check
    ex = Exercise(name="test.shown", argument="labels", kind="labels", concept="§1",
                  labels=Labels(right={"a": {"x"}}, lines={"a": "a is x"},
                                label=lambda v: v if v in ("x", "y") else None,
                                bad_label="no"), passed="all right")
    assert not check(ex, {"a": "y"}, hint=2).answer_shown
    assert check(ex, {"a": "x"}).shown_before is False
    v = check(ex, {"a": "y"}, hint=3)
    assert v.answer_shown and "a is x" in repr(v) and "answer was shown" in repr(v)
    after = check(ex, {"a": "x"})
    assert after.ok and after.shown_before and "was shown earlier" in repr(after)


def test_every_check_is_a_thin_call_of_the_generic_check():
    """Each nbNN.check_xxx grades through the Exercise nbNN holds for it (named nbNN.xxx)."""
    import importlib
    import inspect
    from umkit.teaching.exercises.grading import Exercise, check
    for i in range(11):
        mod = importlib.import_module(f"umkit.teaching.exercises.nb{i:02d}")
        exercises = {v.name: v for v in vars(mod).values() if isinstance(v, Exercise)}
        checks = {n: f for n, f in inspect.getmembers(mod, inspect.isfunction)
                  if n.startswith("check_") and f.__module__ == mod.__name__}
        assert {f"nb{i:02d}.{n[len('check_'):]}" for n in checks} == set(exercises), mod
        for n, f in checks.items():
            ex = exercises[f"nb{i:02d}.{n[len('check_'):]}"]
            options = {k: p.default for k, p in inspect.signature(f).parameters.items()
                       if p.default is not p.empty}
            assert repr(f(None, hint=3)) == repr(check(ex, None, hint=3, **options)), n
