"""Issue 13: every exercise check gives tiered hints -- tier 1 says what is wrong *without* the
answer, tier 2 (hint=2) points at the concept and the article section, tier 3 (hint=3) gives the
answer -- and a label pick can't be brute-forced from its failure messages."""
from __future__ import annotations

import os as _os_budget

# these tests try many wrong answers on purpose: the learner's attempts budget is off for them
# (exercises.attempts_budget; the budget's own tests run in a fresh process with it on)
_os_budget.environ.setdefault("UMKIT_EXERCISE_ATTEMPTS", "0")

import importlib
import importlib.util
import inspect
import re
from pathlib import Path

import pytest

import umkit
from umkit.teaching.exercises import Verdict

SOLUTIONS = Path(__file__).resolve().parents[2] / "notebooks" / "solutions"
MODULES = [f"nb{i:02d}" for i in range(11)]


@pytest.fixture(autouse=True)
def sim():
    umkit.use("sim", quiet=True)
    yield
    umkit.use("sim", quiet=True)


def solution(stem: str):
    path = SOLUTIONS / f"{stem}.py"
    spec = importlib.util.spec_from_file_location(f"hints_solution_{stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def all_checks():
    out = []
    for name in MODULES:
        mod = importlib.import_module(f"umkit.exercises.{name}")
        for fname, f in inspect.getmembers(mod, inspect.isfunction):
            if fname.startswith("check_") and f.__module__ == mod.__name__:
                out.append(pytest.param(f, id=f"{name}.{fname}"))
    return out


def test_every_notebook_has_checks():
    found = {p.id.split(".")[0] for p in all_checks()}
    assert found == set(MODULES)


@pytest.mark.parametrize("check", all_checks())
def test_every_check_is_tiered_and_the_stub_has_all_three_tiers(check):
    assert getattr(check, "tiered", False), f"{check.__name__} is not @tiered"
    v = check(None)
    assert isinstance(v, Verdict) and not v.ok
    assert v.concept and "§" in v.concept, f"tier 2 must cite the article: {v.concept!r}"
    assert v.has_answer and not v.answer, "an answer exists, held back until hint=3"
    three_v = check(None, hint=3)
    assert three_v.answer and three_v.answer not in three_v.message
    one, two, three = repr(check(None)), repr(check(None, hint=2)), repr(check(None, hint=3))
    assert "concept:" not in one and "answer:" not in one
    assert "concept:" in two and "answer:" not in two
    assert "answer:" in three
    bad = check(None, hint=7)
    assert not bad.ok and "hint=7" in bad.message


def _leak_cases():
    """(id, make the verdict, fragments the tier-1 message must not contain, a fragment of the
    answer tier)."""
    from umkit.teaching.exercises import nb00
    from umkit.teaching.exercises import nb01
    from umkit.teaching.exercises import nb02
    from umkit.teaching.exercises import nb03
    from umkit.teaching.exercises import nb04
    from umkit.teaching.exercises import nb05
    from umkit.teaching.exercises import nb06
    from umkit.teaching.exercises import nb07
    from umkit.teaching.exercises import nb08
    from umkit.teaching.exercises import nb09
    from umkit.teaching.exercises import nb10

    def managed_prefetch(data):
        a = umkit.managed(data.size)
        a.host[:] = data
        a.prefetch("gpu")
        return a

    def prefetch_only(a):
        a.prefetch("gpu")

    def device_sync(a, stream, next_batch):
        umkit.increment(a, stream=stream)
        next_batch()
        umkit.synchronize()
        return float(a.host.sum())

    def no_sync(a, stream, next_batch):
        umkit.increment(a, stream=stream)
        next_batch()
        return float(a.host.sum())

    def no_prefetch(n, epochs):
        a, b, out = umkit.managed(n), umkit.managed(n), umkit.managed(n)
        a.host[:] = 1.0
        b.host[:] = 2.0
        s = umkit.Stream()
        sums = []
        for e in range(epochs):
            a.host[:] = e + 1.0                # the epoch's batch
            umkit.add(out, a, b, stream=s)
            s.synchronize()
            sums.append(float(out.host.sum()))
        for x in (a, b, out):
            x.free()
        return sums

    right00 = nb00.expected_prefetch_ms()
    s05 = solution("05_concurrent_access_pingpong")
    s06 = solution("06_training_data_loading")
    s07 = solution("07_choosing_a_strategy")
    s08 = solution("08_porting_cuda_to_hip")
    s09 = solution("09_troubleshooting_and_ecg")
    s10 = solution("10_your_own_loop")
    return [
        ("nb00.prefetch_time", lambda **k: nb00.check_prefetch_time(right00 * 3, **k),
         [f"{right00:.3f}", f"{right00:.2f}"], f"{right00:.3f}"),
        ("nb00.prefetch_model.direction",
         lambda **k: nb00.check_prefetch_model(
             lambda p, mib, to_gpu=True: (p.prefetch_latency + mib * 2**20 / p.prefetch_h2d_bw) * 1e3,
             **k),
         ["prefetch_latency +", "* 2**20 /"], "def prefetch_ms"),
        ("nb01.layers", lambda **k: nb01.check_layers({op: "umd" for op in nb01.LAYERS}, **k),
         ["kmd", "KMD", "fault_batch", "advise"], "is KMD"),
        ("nb01.transitions", lambda **k: nb01.check_transitions(lambda n, b: n // b, **k),
         ["-(-", "ceil", "math."], "-(-n_faults // batch_max)"),
        ("nb02.allocators",
         lambda **k: (nb02.ALLOCATOR_SET.reopen_first(),
                      nb02.check_allocators({b: "managed" for b in nb02.BUFFERS}, **k))[1],
         ["device", "pinned", "pageable", "-> "], " -> device"),
        ("nb02.load", lambda **k: nb02.check_load(managed_prefetch, **k),
         ["umkit.copy", "device_array", "pinned"], "umkit.copy"),
        ("nb03.prepare", lambda **k: nb03.check_prepare(prefetch_only, **k),
         ["read_mostly", "accessed_by", "advise("], "a.advise('preferred_location', 'cpu')"),
        ("nb04.step.device_sync", lambda **k: nb04.check_step(device_sync, **k),
         ["done.synchronize", "Event()", "record("], "done.synchronize()"),
        ("nb04.step.race", lambda **k: nb04.check_step(no_sync, **k),
         ["done.synchronize", "Event()", "record("], "done.synchronize()"),
        ("nb05.pingpong", lambda **k: nb05.check_pingpong_fix("managed+advice", **k),
         ["mixed", "memory='", "device memory"], "memory='mixed'"),
        ("nb05.ipc.all", lambda **k: (nb05.ipc_first_question(), nb05.check_ipc(set("abcde"), **k))[1],
         ["'b'", "'d'", "b and d", "IPC handle", "mmap"], " work: "),   # the new question's
        ("nb05.ipc.one", lambda **k: (nb05.ipc_first_question(), nb05.check_ipc({"b"}, **k))[1],
         ["'d'", "file", "mmap", "shared memory"], " work: "),
        ("nb05.statistic", lambda **k: nb05.check_statistic(s05.statistic_on_cpu, **k),
         [".device", "mean()"], ".device"),
        ("nb06.epoch.no_prefetch", lambda **k: nb06.check_epoch_loop(no_prefetch, **k),
         [".prefetch(", "read_back"], "x.prefetch('gpu', stream=s)"),
        ("nb06.epoch.race", lambda **k: nb06.check_epoch_loop(s06.wrong_epoch_loop, **k),
         ["s.synchronize()", "synchronize the stream"], "s.synchronize()"),
        # the notebook's set each time (a wrong set draws a new one, and hint=3 answers that)
        ("nb07.placement",
         lambda **k: (nb07.PLACEMENT_SET.reopen_first(),
                      nb07.check_placement(dict(s07.placement, fc_weights="managed"), **k))[1],
         ["device", "heart"], "-> managed: "),
        ("nb07.breathing",
         lambda **k: nb07.check_breathing(lambda i, cold, stream: cold[i % len(cold)].prefetch(
             "gpu", stream=stream), **k),
         ["prefetch('cpu'", "\"cpu\"", "exhale the", "accessed_by"], "prefetch('cpu'"),
        ("nb08.port.name", lambda **k: nb08.check_port(s08.wrong_sources[2], **k),
         ["hipFree"], "hipFree"),
        ("nb08.port.host", lambda **k: nb08.check_port(s08.wrong_sources[4], **k),
         ["hipCpuDeviceId", "-1", "hipMemLocationTypeHost"], "hipCpuDeviceId"),
        ("nb08.port.flags", lambda **k: nb08.check_port(s08.wrong_sources[3], **k),
         ["(ptr, bytes, device, stream)", "no flags"], "no flags argument"),
        ("nb08.table.owner", lambda **k: nb08.check_owner_table(s08.wrong_tables[0], **k),
         ["'gpu'", "owner=gpu", "device"], "owner=gpu"),
        ("nb08.table.alloc", lambda **k: nb08.check_owner_table(s08.wrong_tables[2], **k),
         ["pinned", "hipHostMalloc"], "allocator=device or pinned"),
        ("nb09.diagnosis",
         lambda **k: (nb09.DIAGNOSIS_SET.reopen_first(),
                      nb09.check_diagnosis({c: 1 for c in nb09.CASES}, **k))[1],
         ["fix 4", "fix 3", "fix 2", "fix 5", "-> fix"], " -> fix "),
        ("nb09.spikes", lambda **k: nb09.check_spikes(s09.wrong_find_spikes, **k),
         ["np.median", "3 *", "t[1:]"], "np.median"),
        ("nb10.fixed_step", lambda **k: nb10.check_fixed_step(s10.wrong_host_statistic, **k),
         ["touch(params", "read_back", ".device"], "touch(params, 4096"),
    ]


_CASES = None


def leak_cases():
    global _CASES
    if _CASES is None:
        _CASES = {c[0]: c for c in _leak_cases()}
    return _CASES


LEAK_IDS = ["nb00.prefetch_time", "nb00.prefetch_model.direction", "nb01.layers",
            "nb01.transitions", "nb02.allocators", "nb02.load", "nb03.prepare",
            "nb04.step.device_sync", "nb04.step.race", "nb05.pingpong", "nb05.ipc.all",
            "nb05.ipc.one", "nb05.statistic", "nb06.epoch.no_prefetch", "nb06.epoch.race",
            "nb07.placement", "nb07.breathing", "nb08.port.name", "nb08.port.host",
            "nb08.port.flags", "nb08.table.owner", "nb08.table.alloc", "nb09.diagnosis",
            "nb09.spikes", "nb10.fixed_step"]


#: every check function -> the leak case(s) that test it (a new check must add one)
COVER = {
    "nb00.check_prefetch_time": ["nb00.prefetch_time"],
    "nb00.check_prefetch_model": ["nb00.prefetch_model.direction"],
    "nb01.check_layers": ["nb01.layers"],
    "nb01.check_transitions": ["nb01.transitions"],
    "nb02.check_allocators": ["nb02.allocators"],
    "nb02.check_load": ["nb02.load"],
    "nb03.check_prepare": ["nb03.prepare"],
    "nb04.check_step": ["nb04.step.device_sync", "nb04.step.race"],
    "nb05.check_pingpong_fix": ["nb05.pingpong"],
    "nb05.check_ipc": ["nb05.ipc.all", "nb05.ipc.one"],
    "nb05.check_statistic": ["nb05.statistic"],
    "nb06.check_epoch_loop": ["nb06.epoch.no_prefetch", "nb06.epoch.race"],
    "nb07.check_placement": ["nb07.placement"],
    "nb07.check_breathing": ["nb07.breathing"],
    "nb08.check_port": ["nb08.port.name", "nb08.port.host", "nb08.port.flags"],
    "nb08.check_owner_table": ["nb08.table.owner", "nb08.table.alloc"],
    "nb09.check_diagnosis": ["nb09.diagnosis"],
    "nb09.check_spikes": ["nb09.spikes"],
    "nb10.check_fixed_step": ["nb10.fixed_step"],
}


def test_the_leak_cases_cover_every_check():
    assert set(COVER) == {p.id for p in all_checks()}
    assert sorted(i for ids in COVER.values() for i in ids) == sorted(LEAK_IDS)
    assert set(LEAK_IDS) == set(leak_cases())


@pytest.mark.parametrize("case", LEAK_IDS)
def test_tier_one_does_not_give_the_answer_away(case):
    _, make, leaks, in_answer = leak_cases()[case]
    v = make()
    assert isinstance(v, Verdict) and not v.ok, v
    for frag in leaks:
        assert frag not in v.message, (case, frag, v.message)
        assert frag not in repr(v), (case, frag, repr(v))
    assert v.concept and re.search(r"§\d", v.concept), (case, v.concept)
    assert v.has_answer and not v.answer, "hint=1 holds the answer back"
    assert in_answer in make(hint=3).answer, (case, in_answer)
    assert in_answer not in repr(make(hint=2)), "tier 2 is the concept, not the answer"
    assert in_answer in repr(make(hint=3))


# -- label picks: not brute-forceable from the messages -----------------------------------------------
def _label_exercises():
    import importlib
    from umkit.teaching.exercises.grading import Exercise
    out = []
    for n in range(11):
        mod = importlib.import_module(f"umkit.teaching.exercises.nb{n:02d}")
        out += [v for v in vars(mod).values() if isinstance(v, Exercise) and v.labels is not None]
    return out


@pytest.mark.parametrize("ex", _label_exercises(), ids=lambda e: e.name)
def test_label_picks_name_no_item_and_no_count(ex):
    """A check that named a wrong item (or counted them) would let a loop flip items one at a
    time until it passes.  Every label pick grades the set: one sentence whatever is wrong --
    one label everywhere, then any one item flipped to any other label."""
    from umkit.teaching.exercises.grading import check
    items = list(ex.labels.right)
    labels = sorted(set().union(*ex.labels.right.values()), key=str)
    seen = set()
    for label in labels:
        base = {k: label for k in items}
        v = check(ex, base)
        assert not v.ok, (ex.name, label)
        seen.add(v.message)
        for k in items:
            for other in labels:
                w = check(ex, dict(base, **{k: other}))
                if not w.ok:
                    seen.add(w.message)
                    assert w.has_answer and not w.answer and not w.answer_shown
    assert len(seen) == 1, (ex.name, seen)
    (message,) = seen
    for k in items:
        assert not re.search(rf"\b{re.escape(str(k))}\b", message), (k, message)
    assert not re.search(r"\b\d+ (of|wrong|more)\b", message.replace(f"{len(items)} answers", ""))


def test_ipc_needs_more_than_two_tries():
    """A wrong set of options is refused as a set: the message names no letter and no count, so
    it is the same for every wrong set and cycling learns nothing from it."""
    from umkit.teaching.exercises import nb05
    wrong = [set("abcde"), set("a"), set("ab"), set("e")]
    msgs = set()
    for w in wrong:
        nb05.ipc_first_question()                 # the same question each time (a wrong set redraws)
        msgs.add(nb05.check_ipc(w).message)
    assert len(msgs) == 1
    (m,) = msgs
    assert not any(f"'{x}'" in m for x in "abcde") and not any(ch.isdigit() for ch in m)


# -- every notebook has an exercise where the learner writes code --------------------------------------
#: notebook -> the check of its code-writing exercise (a function, or for 08 a C++ port) -- not a
#: label or a number.  The breathing plan moved with oversubscription into the optional 07b; the
#: core 07's exercise is the placement set (graded as a set, tests/teaching/
#: test_exercises_notebooks_05_09.py)
CODE_EXERCISES = {
    "00_start_here": "nb00.check_prefetch_model(prefetch_ms",
    "01_umd_and_kmd": "nb01.check_transitions(transitions",
    "02_allocation": "nb02.check_load(load",
    "03_migration_prefetch_advice": "nb03.check_prepare(prepare",
    "04_synchronization": "nb04.check_step(step",
    "05_concurrent_access_pingpong": "nb05.check_statistic(statistic",
    "06_training_data_loading": "nb06.check_epoch_loop(my_epoch_loop",
    "07b_multi_gpu_and_scale": "nb07.check_breathing(plan",
    "08_porting_cuda_to_hip": "nb08.check_port(hip_source",
    "09_troubleshooting_and_ecg": "nb09.check_spikes(find_spikes",
    "10_your_own_loop": "nb10.check_fixed_step(fixed_step",
}


@pytest.mark.parametrize("stem", sorted(CODE_EXERCISES))
def test_every_notebook_has_a_code_exercise(stem):
    import nbformat
    nb = nbformat.read(str(SOLUTIONS.parent / f"{stem}.ipynb"), as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    call = CODE_EXERCISES[stem]
    assert any(call in src for src in code), f"{stem}: no cell calls {call}...)"
    check = getattr(importlib.import_module(f"umkit.exercises.{call[:4]}"),
                    call.split(".")[1].split("(")[0])
    # a label, a number or a dict is refused before anything runs: the exercise takes code
    for not_code in (1.0, "managed", {"a": 1}):
        if stem == "08_porting_cuda_to_hip" and isinstance(not_code, str):
            continue                      # the port is C++ source text
        v = check(not_code)
        assert not v.ok, (stem, not_code)


def test_a_number_past_float_range_is_graded_not_raised():
    """A learner's function that returns 10**400 gets a NOT YET, not an OverflowError."""
    from umkit.teaching.exercises import nb00
    from umkit.teaching.exercises import nb04
    from umkit.teaching.exercises import nb06
    from umkit.teaching.exercises import nb08
    big = 10**400

    def step(a, stream, next_batch):
        umkit.increment(a, stream=stream)
        done = umkit.Event().record(stream)
        next_batch()
        done.synchronize()
        return big

    table = nb08.empty_owner_table()
    table["weights"] = dict(budget_gb=big, lifetime="run", owner="gpu", allocator="device")
    for v in (nb00.check_prefetch_model(lambda p, mib, to_gpu=True: big), nb04.check_step(step),
              nb06.check_epoch_loop(lambda n, epochs: [big] * epochs),
              nb08.check_owner_table(table)):
        assert isinstance(v, Verdict) and not v.ok, v
