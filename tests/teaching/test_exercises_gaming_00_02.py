"""Notebooks 00-02: the official solutions pass under each notebook's own profile (the one its
first code cell sets), and the answers a learner could pass without understanding are refused:
a constant or a formula that ignores the data, the card's model looked up by name, one label
everywhere and then cycling what the feedback names, the numbers a nearby cell prints."""
from __future__ import annotations

import os as _os_budget

# these tests try many wrong answers on purpose: the learner's attempts budget is off for them
# (exercises.attempts_budget; the budget's own tests run in a fresh process with it on)
_os_budget.environ.setdefault("UMKIT_EXERCISE_ATTEMPTS", "0")

import json
import re
import runpy
from pathlib import Path

import pytest

import umkit

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = NOTEBOOKS / "solutions"
OWN = {"00": "00_start_here", "01": "01_umd_and_kmd", "02": "02_allocation"}


def own_profile(stem: str) -> str:
    """The PROFILE the notebook's first code cell sets."""
    nb = json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text(encoding="utf-8"))
    first = next("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    m = re.search(r'^PROFILE\s*=\s*"([^"]+)"', first, re.M)
    assert m, f"{stem}: the first code cell sets no PROFILE"
    return m.group(1)


@pytest.fixture(autouse=True)
def _sim():
    umkit.use("sim", quiet=True)
    yield
    umkit.use("sim", quiet=True)


@pytest.mark.parametrize("nb", sorted(OWN))
def test_the_official_solution_passes_on_the_notebooks_own_profile(nb):
    stem = OWN[nb]
    profile = own_profile(stem)
    assert profile.startswith("mi"), f"{stem}: the AMD lessons run on an AMD profile"
    umkit.use("sim", profile=profile, quiet=True)
    ns = runpy.run_path(str(SOLUTIONS / f"{stem}.py"), run_name="solution")
    assert ns["verdicts"]
    for v in ns["verdicts"]:
        assert v.ok, f"{stem} on {profile}: {v}"


# -- 00: the prefetch formula --------------------------------------------------------------------
def _formula(p, mib, to_gpu=True):
    bw = p.prefetch_h2d_bw if to_gpu else p.prefetch_d2h_bw
    return (p.prefetch_latency + mib * 2**20 / bw) * 1e3


def test_nb00_each_attempt_draws_other_cards_and_sizes():
    from umkit.teaching.exercises import nb00
    a, b = nb00.model_cases(), nb00.model_cases()
    assert [c[0] for c in a] == [c[0] for c in b]          # the same cards, AMD first ...
    assert a[0][0].startswith("mi250x") and a != b          # ... scaled and sized afresh
    assert nb00.check_prefetch_model(_formula)
    assert nb00.check_prefetch_model(_formula)


def test_nb00_refuses_answers_that_do_not_read_the_card():
    from umkit.sim.costs import load_profile
    from umkit.teaching.exercises import nb00
    amd = load_profile("mi250x-xnack1")

    def by_name(p, mib, to_gpu=True):            # the card's own model, looked up by its name
        return load_profile(p.name).prefetch_cost(mib << 20, to_gpu) * 1e3

    def base_by_name(p, mib, to_gpu=True):       # the same, with the suffix taken off
        return load_profile(p.name.split(",")[0]).prefetch_cost(mib << 20, to_gpu) * 1e3

    def fixed_card(p, mib, to_gpu=True):         # the formula on the notebook's MI250X numbers
        return _formula(amd, mib, to_gpu)

    def sim_profile(p, mib, to_gpu=True):        # the active profile's model
        return umkit.sim_profile().prefetch_cost(mib << 20, to_gpu) * 1e3

    chart = {"h200-pcie5": 1.58, "mi250x-xnack1": 11.1, "mi300a-apu": 0.077}   # the reveal table
    for fn in (by_name, base_by_name, fixed_card, sim_profile,
               *(lambda p, mib, to_gpu=True, v=v: v for v in chart.values()),
               lambda p, mib, to_gpu=True: mib / 64 * chart["mi250x-xnack1"]):
        for _ in range(3):
            assert not nb00.check_prefetch_model(fn), fn


# -- 01: the trips into the kernel ---------------------------------------------------------------
def test_nb01_a_table_of_the_fixed_cases_is_refused():
    from umkit.teaching.exercises import nb01
    table = {case: -(-case[0] // case[1]) for case in nb01.TRIPS_CASES}
    looked_up = lambda n, b: table.get((n, b), 64)       # noqa: E731 - the fixed cases, else 64
    assert not nb01.check_transitions(looked_up)
    assert not nb01.check_transitions(lambda n, b: 64)    # the number the batching cell prints
    assert not nb01.check_transitions(lambda n, b: n // b + 1)   # rounds up even when it divides
    assert nb01.check_transitions(lambda n, b: -(-n // b))
    a, b = nb01.trips_cases(), nb01.trips_cases()
    assert a[:len(nb01.TRIPS_CASES)] == list(nb01.TRIPS_CASES) and a != b


def test_nb01_a_count_taken_from_a_simulator_run_is_refused():
    """Notebook 01's batching demo run on a simulator with the case's batch size, its counter
    returned: the check runs the learner's count with the simulator sealed (no simulator
    starts), and says so; an honest count still passes, and a simulator starts again after."""
    from umkit.teaching.exercises import nb01

    def simulated(n, b):
        if n == 0:
            return 0
        with umkit.using("sim", profile="h200-pcie5", fault_batch_max=b):
            a = umkit.managed(n * 1024)
            a.host[:] = 1.0
            umkit.reset_counters()
            umkit.increment(a)
            umkit.synchronize()
            c = umkit.counters()
            a.free()
        return c["fault_batches"]
    umkit.use("sim", quiet=True)
    assert simulated(600, 256) == 3                     # the route works outside the check ...
    v = nb01.check_transitions(simulated)
    assert not v.ok and "not with a simulator run" in v.message, v   # ... and is refused inside
    assert nb01.check_transitions(lambda n, b: -(-n // b))
    assert simulated(600, 256) == 3


def test_nb01_layers_a_set_is_graded_whole():
    """One label everywhere, then flipping what the feedback names: the feedback names nothing,
    and a half-answered set is not graded (answering one item at a time reveals nothing)."""
    from umkit.teaching.exercises import nb01
    right = {k: ok[0] for k, (ok, _) in nb01.LAYERS.items()}
    v = nb01.check_layers({k: "umd" for k in nb01.LAYERS})
    assert not v and not any(k in v.message for k in nb01.LAYERS)
    one_right = nb01.check_layers({"malloc_device": "kmd"})
    one_wrong = nb01.check_layers({"malloc_device": "umd"})
    assert not one_right and one_right.message == one_wrong.message
    assert nb01.check_layers(right)


# -- 02: the allocators and the loader -----------------------------------------------------------
def test_nb02_checkpoint_one_rule():
    """The checkpoint buffer: managed (prefetched to the host) or pinned with an async copy; never
    device-only memory."""
    from umkit.teaching.exercises import nb02
    right = {"fc_weights": "device", "checkpoint": "managed", "token_counts": "managed",
             "step_settings": "pinned", "request_buffers": "device", "vocab": "pageable"}
    for label, ok in (("managed", True), ("pinned", True), ("device", False), ("pageable", False)):
        nb02.ALLOCATOR_SET.reopen_first()
        assert bool(nb02.check_allocators(dict(right, checkpoint=label))) is ok, label


def test_nb02_loader_reads_the_data_it_is_given():
    """A loader that ignores `data` and rebuilds the old fixed pattern fails: each attempt draws
    a new size and new values.  The official answer passes on every draw."""
    import numpy as np
    from umkit.teaching.exercises import nb02

    def made_up(data):          # the old fixed data, rebuilt beside the argument
        d = umkit.device_array((nb02.LOAD_MIB << 20) // 4)
        stage = umkit.pinned(d.size)
        stage.host[:] = (np.arange(d.size) % 1000).astype(np.float32)
        umkit.copy(d, stage)
        umkit.synchronize()
        return d

    def right(data):
        d = umkit.device_array(data.size)
        stage = umkit.pinned(data.size)
        stage.host[:] = data
        umkit.copy(d, stage)
        umkit.synchronize()
        stage.free()
        return d

    a, b = nb02.load_data(), nb02.load_data()
    assert a.shape != b.shape or not np.array_equal(a, b)
    for _ in range(3):
        assert not nb02.check_load(made_up)
        assert nb02.check_load(right)


def test_nb02_loader_over_budget_on_every_draw():
    """Managed memory filled by the CPU and prefetched, or pinned zero-copy, stays over the budget
    whatever size is drawn (24-40 MiB): the budget tests the placement, not the luck of a draw."""
    from umkit.teaching.exercises import nb02

    def managed_prefetch(data):
        a = umkit.managed(data.size)
        a.host[:] = data
        a.prefetch("gpu")
        return a

    def pinned_zero_copy(data):
        a = umkit.pinned(data.size)
        a.host[:] = data
        return a

    import random
    for mib in (nb02.LOAD_MIB - 8, nb02.LOAD_MIB + 8):
        rng = random.Random(0)
        data = nb02.load_data(rng)   # a draw; its size is overwritten below
        data = data[:1].repeat((mib << 20) // 4)
        for fn in (managed_prefetch, pinned_zero_copy):
            (ms, _, _), err, _ = nb02.load_run(fn, data)
            assert err is None and ms > nb02.LOAD_BUDGET_MS, (fn.__name__, mib, ms)


def test_nb00_every_usual_slip_fails_on_every_draw():
    """With sizes and cards drawn per attempt, no slip may pass by the luck of a draw (a large
    size once hid the missing per-call cost inside the tolerance)."""
    from umkit.teaching.exercises import nb00
    sol = runpy.run_path(str(SOLUTIONS / "00_start_here.py"), run_name="solution")
    slips = [sol[k] for k in sol if k.startswith("wrong_")]
    assert len(slips) >= 5
    for _ in range(40):
        for fn in slips:
            assert not nb00.check_prefetch_model(fn), fn.__name__
