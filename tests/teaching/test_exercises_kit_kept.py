"""A learner's graded code cannot grade itself by replacing the kit the check measures with
(issue 42, item 4; GT10: a replaced ``umkit.now`` passed 02's loader at -10**12 ms, a frozen
``umkit.counters`` passed 03 with no advice and 06 with GPU faults every epoch).  The check puts
the kit's functions back and refuses the try, naming what was replaced."""
from __future__ import annotations

import os as _os_budget

_os_budget.environ.setdefault("UMKIT_EXERCISE_ATTEMPTS", "0")

import pytest

import umkit
from umkit.teaching.exercises import nb02


@pytest.fixture(autouse=True)
def sim():
    umkit.use("sim", quiet=True)
    yield
    umkit.use("sim", quiet=True)


def _managed(data):
    a = umkit.managed(data.size)
    a.host[:] = data
    return a


def test_a_replaced_clock_is_put_back_and_the_try_refused():
    real = umkit.now

    def load(data):
        umkit.now = lambda: -1e12
        return _managed(data)

    v = nb02.check_load(load)
    assert not v.ok
    assert "['umkit.now']" in v.message
    assert umkit.now is real


def test_replaced_counters_and_array_methods_are_named():
    real_counters, real_prefetch = umkit.counters, umkit.Array.prefetch

    def load(data):
        umkit.counters = lambda: {}
        umkit.Array.prefetch = lambda self, *a, **k: None
        return _managed(data)

    v = nb02.check_load(load)
    assert not v.ok
    assert "umkit.counters" in v.message and "umkit.Array.prefetch" in v.message
    assert umkit.counters is real_counters and umkit.Array.prefetch is real_prefetch


def test_the_same_answer_without_the_patch_is_graded_on_its_merits():
    # managed memory filled by the CPU is over the budget: refused for its time, not for a patch
    v = nb02.check_load(_managed)
    assert not v.ok and "replaced" not in v.message and "budget" in v.message

    def load(data):
        d, stage = umkit.device_array(data.size), umkit.pinned(data.size)
        stage.host[:] = data
        umkit.copy(d, stage)
        umkit.synchronize()
        stage.free()
        return d

    assert nb02.check_load(load).ok
