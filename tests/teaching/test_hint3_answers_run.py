"""Every code exercise's hint=3 answer is Python a learner can paste as it is shown: it parses,
defines the function the exercise asks for, and that function passes the check (GT11 found four
that ended with a prose note and raised SyntaxError when pasted).  Both languages."""
import ast

import numpy as np
import pytest

import umkit
from umkit.runtime.lang import tr
from umkit.teaching.exercises import nb00, nb01, nb02, nb03, nb04, nb05, nb06, nb07, nb09, nb10

CHECKS = {"nb00": nb00.check_prefetch_model, "nb01": nb01.check_transitions,
          "nb02": nb02.check_load, "nb03": nb03.check_prepare, "nb04": nb04.check_step,
          "nb05": nb05.check_statistic, "nb06": nb06.check_epoch_loop,
          "nb07b": nb07.check_breathing, "nb09": nb09.check_spikes,
          "nb10": nb10.check_fixed_step}


@pytest.fixture(autouse=True)
def card():
    umkit.use("sim", profile="mi250x-xnack1", quiet=True)
    yield
    umkit.use("sim", quiet=True, lang="en")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", sorted(CHECKS))
def test_the_shown_answer_pastes_and_passes(name, lang):
    check = CHECKS[name]
    shown = check(lambda *a: None, hint=3).answer
    text = tr(shown, lang=lang)
    if lang == "zh" and "#" in shown:                # its comments are for the learner to read
        assert text != shown, f"{name}: the answer has no Chinese entry"
    tree = ast.parse(text)                           # pasted as shown: no SyntaxError
    defs = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert len(defs) == 1, defs
    ns = {"umkit": umkit, "np": np}
    exec(compile(tree, name, "exec"), ns)
    v = check(ns[defs[0]])
    assert v.ok, (name, v.message)
