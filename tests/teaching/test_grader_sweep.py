"""Every registered exercise check returns a verdict, whatever the learner hands it: functions
that fail an ``assert`` with no message, return NaN, infinities, None, text, huge numbers or
objects whose every operation raises, free the arrays they are given, or switch the backend --
and values of every wrong kind.  None of the hostile functions passes.

The checks are found, not listed: every ``check_...`` of every notebook module."""
from __future__ import annotations

import os as _os_budget

# these tests try many wrong answers on purpose: the learner's attempts budget is off for them
# (exercises.attempts_budget; the budget's own tests run in a fresh process with it on)
_os_budget.environ.setdefault("UMKIT_EXERCISE_ATTEMPTS", "0")

import importlib
import inspect
import math
import pkgutil
import time

import numpy as np
import pytest

import umkit
import umkit.teaching.exercises as exercises
from umkit.teaching.exercises import Verdict


def _checks():
    out = []
    for mod in sorted(m.name for m in pkgutil.iter_modules(exercises.__path__)):
        m = importlib.import_module(f"{exercises.__name__}.{mod}")
        for name, fn in sorted(vars(m).items()):
            if name.startswith("check_") and getattr(fn, "tiered", False):
                out.append((f"{mod}.{name}", fn))
    return out


CHECKS = _checks()


class Hostile:
    """An object every operation on which raises."""
    def _no(self, *a, **k):
        raise RuntimeError("hostile object")
    __float__ = __int__ = __index__ = __bool__ = __len__ = __iter__ = _no
    __eq__ = __lt__ = __gt__ = __le__ = __ge__ = __add__ = __radd__ = __mul__ = __rmul__ = _no
    __sub__ = __rsub__ = __truediv__ = __rtruediv__ = __getitem__ = __str__ = __format__ = _no
    __hash__ = None


def _free_arguments(*args, **kwargs):
    seen = list(args) + list(kwargs.values())
    for x in list(seen):
        seen.extend(v for v in getattr(x, "__dict__", {}).values())
    for x in seen:
        if isinstance(x, umkit.Array) and not x.freed:
            x.free()
    return math.nan


def _switch_backend(*args, **kwargs):
    umkit.use("sim", quiet=True, profile="mi250x-xnack1")
    return 0.0


def _assert_empty(*args, **kwargs):
    assert False        # noqa: B011 - the learner's bare assert: no message


def _recursion(*args, **kwargs):
    return _recursion(*args, **kwargs)


#: learner functions that must never pass
HOSTILE_FUNCTIONS = {
    "assert with no message": _assert_empty,
    "returns NaN": lambda *a, **k: math.nan,
    "returns inf": lambda *a, **k: math.inf,
    "returns None": lambda *a, **k: None,
    "returns text": lambda *a, **k: "12",
    "returns a huge int": lambda *a, **k: 10 ** 400,
    "returns a hostile object": lambda *a, **k: Hostile(),
    "returns an array of NaN": lambda *a, **k: np.full(3, np.nan),
    "frees its arguments": _free_arguments,
    "switches the backend": _switch_backend,
    "recurses forever": _recursion,
    "takes no arguments": lambda: 0,
}

#: submissions of the wrong kind, or odd values of the right one
HOSTILE_VALUES = {
    "None": None, "zero": 0, "NaN": math.nan, "-inf": -math.inf, "huge": 1e308,
    "negative": -5, "bool": True, "text": "x", "empty text": "", "bytes": b"\x00",
    "list": [None], "dict of None": {None: None}, "dict of hostile": {"a": Hostile()},
    "hostile object": Hostile(), "a type": int, "numpy NaN array": np.array([np.nan]),
}


pytestmark = pytest.mark.usefixtures("fresh_sim")


def _run(fn, submitted):
    """The check's verdict on ``submitted``, within a time bound (a hang fails the test)."""
    t0 = time.monotonic()
    v = fn(submitted)
    assert time.monotonic() - t0 < 60, "the check took over a minute"
    return v


@pytest.mark.slow
@pytest.mark.parametrize("name,fn", CHECKS, ids=[c[0] for c in CHECKS])
def test_hostile_learner_functions_get_a_failing_verdict(name, fn):
    for what, learner in HOSTILE_FUNCTIONS.items():
        try:
            v = _run(fn, learner)
        except Exception as e:  # noqa: BLE001 - the failure names the case
            pytest.fail(f"{name} raised {type(e).__name__} on a learner function that "
                        f"{what}: {e}")
        assert isinstance(v, Verdict), (name, what, v)
        assert not v.ok, f"{name} passed a learner function that {what}: {v.message}"
        assert v.message.strip(), (name, what)
        repr(v), v._repr_html_(), v.hint(2), v.hint(3)


@pytest.mark.parametrize("name,fn", CHECKS, ids=[c[0] for c in CHECKS])
def test_hostile_values_get_a_verdict(name, fn):
    for what, value in HOSTILE_VALUES.items():
        try:
            v = _run(fn, value)
        except Exception as e:  # noqa: BLE001
            pytest.fail(f"{name} raised {type(e).__name__} on {what}: {e}")
        assert isinstance(v, Verdict), (name, what, v)
        assert not v.ok, f"{name} passed {what}"
        repr(v), v._repr_html_()


def test_every_notebook_module_has_checks_in_the_sweep():
    mods = {n.split(".")[0] for n, _ in CHECKS}
    # every notebook's module (nbNN); record is the learner's record and grading the one
    # check() and its verdicts, not a notebook's checks
    assert mods == {m.name for m in pkgutil.iter_modules(exercises.__path__)} - {"record",
                                                                                "grading"}
    assert all(inspect.signature(getattr(f, "__wrapped__", f)).parameters for _, f in CHECKS)
