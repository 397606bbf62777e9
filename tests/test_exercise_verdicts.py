"""A check always returns a verdict: a learner's bare ``assert`` (an exception with no message)
is reported as such instead of crashing the grader with IndexError, and NaN never passes as the
right number."""
from __future__ import annotations

import math

import pytest

from umkit.teaching.exercises import close_to, raised
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
