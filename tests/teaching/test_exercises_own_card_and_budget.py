"""Exercises that only understanding passes, continued: what an independent try still passed.

* a check grades on its own notebook's card: switching the session to a card where the CPU reads
  VRAM in place (or to an APU) before the check does not pass the unchanged stub, and no verdict
  claims what did not happen there;
* 07b: inhaling before the room is free lets the driver evict the heart: refused, and a pass says
  the heart stayed only when it did;
* 05 ipc: after a wrong set, the answer shown (hint=3) is the new question's;
* 06: each epoch's kernel must add that epoch's batch, the sums must be what ``out`` held, and
  ``size=`` never decides a pass alone;
* the attempts budget: read once at import (a later ``UMKIT_EXERCISE_ATTEMPTS=0`` does nothing),
  kept across ``forget()`` (and so is a shown answer); a reason connects two of the exercise's
  ideas and is made of words;
* feedback says what the data shows, not the edit to make."""
from __future__ import annotations

import os as _os_budget

# these tests try wrong answers on purpose: the attempts budget is off in this process
_os_budget.environ.setdefault("UMKIT_EXERCISE_ATTEMPTS", "0")

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

import umkit
from repo_tools import fresh_exercises
from umkit.teaching.exercises import nb00, nb01, nb03, nb05, nb06, nb07, nb08, nb10

ROOT = Path(__file__).resolve().parents[2]
OTHER_CARDS = ("mi300a-apu", "mi250x-coherent", "mi250x-xnack0")


def _solution(stem):
    spec = importlib.util.spec_from_file_location(f"sol_oc_{stem[:3]}",
                                                  ROOT / "notebooks" / "solutions" / f"{stem}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(autouse=True)
def _notebook_profile():
    umkit.use("sim", profile="mi250x-xnack1", quiet=True)
    yield
    umkit.use("sim", quiet=True)


# -- 1. each check grades on its own notebook's card -----------------------------------------------
def _stub03(a, w):                       # notebook 03's stub, unchanged
    a.prefetch("gpu")


def _stub05(params):                     # notebook 05's stub, unchanged
    return float(params.host[::16384].mean())


@pytest.mark.parametrize("card", OTHER_CARDS)
def test_03_and_10_grade_on_the_notebooks_card_whatever_the_session_models(card):
    s10 = _solution("10_your_own_loop")
    umkit.use("sim", profile=card, quiet=True)
    v = nb03.check_prepare(_stub03)
    assert not v.ok, v
    assert "mi250x-xnack1" in v.message and card in v.message     # says where it graded
    v = nb10.check_fixed_step(s10.wrong_host_statistic)            # the original step
    assert not v.ok, v
    assert "stayed on the GPU" not in v.message
    assert nb03.check_prepare(_solution("03_migration_prefetch_advice").prepare).ok
    assert nb10.check_fixed_step(s10.fixed_step).ok


@pytest.mark.parametrize("card", OTHER_CARDS)
def test_05_statistic_grades_on_the_notebooks_card_whatever_profile_is_named(card):
    assert not nb05.check_statistic(_stub05, profile=card).ok
    umkit.use("sim", profile=card, quiet=True)
    assert not nb05.check_statistic(_stub05).ok
    s05 = _solution("05_concurrent_access_pingpong")
    assert nb05.check_statistic(s05.statistic, profile=card).ok


@pytest.mark.parametrize("card", ("mi300a-apu", "mi250x-coherent"))
def test_05_pingpong_fix_grades_on_the_notebooks_card_whatever_profile_is_named(card):
    plain = umkit.workloads.Strategy("plain managed", memory="managed", prefetch="off",
                                     advice="none")        # flat where nothing migrates
    v = nb05.check_pingpong_fix(plain, profile=card)
    assert not v.ok and "mi250x-xnack1 (this notebook's card)" in v.message, v
    s05 = _solution("05_concurrent_access_pingpong")
    v = nb05.check_pingpong_fix(s05.my_fix, profile=card)
    assert v.ok and card in v.message, v


def test_10_a_pass_names_the_card_it_was_graded_on():
    v = nb10.check_fixed_step(_solution("10_your_own_loop").fixed_step)
    assert v.ok and "mi250x-xnack1" in v.message and "your session" not in v.message


# -- 07b: the room must be free before a layer comes in ---------------------------------------------
def _inhale_then_exhale(i, cold, stream):
    cold[i % len(cold)].prefetch("gpu", stream=stream)
    cold[(i - 1) % len(cold)].prefetch("cpu", stream=stream)


def test_07b_inhaling_before_the_room_is_free_is_refused_and_says_the_heart_was_hit():
    v = nb07.check_breathing(_inhale_then_exhale)
    assert not v.ok, v
    assert "heart" in v.message and "evicted" in v.message
    assert "stayed in VRAM" not in v.message
    assert "prefetch(" not in v.message and "exhale" not in v.message   # the idea, not the edit
    s = _solution("07b_multi_gpu_and_scale")
    v = nb07.check_breathing(s.plan)
    assert v.ok and "0 GPU faults" in v.message and "the heart stayed in VRAM" in v.message


# -- 05 ipc: the answer shown is the question's that is open ---------------------------------------
def test_05_ipc_the_answer_shown_after_a_wrong_set_answers_the_new_question():
    for _ in range(8):
        nb05.ipc_first_question()
        v = nb05.check_ipc({"a"}, hint=3)                 # wrong: the question is drawn again
        assert not v.ok and v.answer_shown
        head = re.search(r"Options that work: ([a-e](?: and [a-e])*) --", v.answer)
        assert head, v.answer
        letters = set(head.group(1).split(" and "))
        assert nb05.check_ipc(letters).ok, (letters, dict(nb05.IPC_OPTIONS))
    nb05.ipc_first_question()


# -- 06: the batch of each epoch, the sums read from out, size= never alone ------------------------
def _loop(n, epochs, *, load=lambda e: e + 1.0, sums=None):
    a, b, out = umkit.managed(n), umkit.managed(n), umkit.managed(n)
    b.host[:] = 2.0
    s = umkit.Stream()
    read = []
    a.host[:] = load(0)
    b.prefetch("gpu", stream=s)          # only the GPU touches b after this
    for e in range(epochs):
        if e:
            a.host[:] = load(e)
        for x in (a, out):
            x.prefetch("gpu", stream=s)
        umkit.add(out, a, b, stream=s)
        s.synchronize()
        read.append(float(out.host.sum(dtype=np.float64)))
    for x in (a, b, out):
        x.free()
    return sums(n, epochs) if sums else read


def test_06_a_batch_loaded_once_with_the_formula_returned_is_refused():
    def loaded_once(n, epochs):          # the demo loop: a filled once; out read; formula sums
        return _loop(n, epochs, load=lambda e: 1.0,
                     sums=lambda n, k: [n * (e + 3.0) for e in range(k)])
    v = nb06.check_epoch_loop(loaded_once)
    assert not v.ok and "batch of epoch 0" in v.message, v
    for word in ("e + 3", "expected", "e + 1.0"):
        assert word not in v.message, (word, v.message)


def test_06_sums_that_are_not_what_out_held_are_refused():
    v = nb06.check_epoch_loop(lambda n, k: _loop(n, k, load=lambda e: 1.0))   # honest reads,
    assert not v.ok and "epoch 1" in v.message, v                            # wrong batches
    v = nb06.check_epoch_loop(lambda n, k: [x * 1.5 for x in _loop(n, k)])
    assert not v.ok and "wrote" in v.message and "into out" in v.message, v
    assert nb06.check_epoch_loop(lambda n, k: _loop(n, k)).ok


def test_06_the_right_loop_with_sums_from_a_formula_is_refused():
    # the check moves b on the GPU at an epoch it does not announce: only sums read from out follow
    def formula(n, epochs):
        return _loop(n, epochs, sums=lambda n, k: [n * (e + 3.0) for e in range(k)])
    for _ in range(3):
        v = nb06.check_epoch_loop(formula)
        assert not v.ok and "wrote" in v.message, v
        assert nb06.check_epoch_loop(lambda n, k: _loop(n, k)).ok


def test_06_a_fixed_size_does_not_decide_a_pass():
    fixed = [4096 * 3.0, 4096 * 4.0]
    v = nb06.check_epoch_loop(lambda n, k: _loop(n, k, sums=lambda n, k: list(fixed)),
                              size=(4096, 2))
    assert not v.ok, v
    assert nb06.check_epoch_loop(_solution("06_training_data_loading").my_epoch_loop,
                                 size=(4096, 2)).ok


# -- 2. the attempts budget -------------------------------------------------------------------------
def test_the_budget_is_read_once_and_a_later_zero_or_a_negative_value_does_not_turn_it_off():
    fresh_exercises("""
        assert exercises.attempts_budget() == 8
        os.environ["UMKIT_EXERCISE_ATTEMPTS"] = "0"           # at run time: changes nothing
        assert exercises.attempts_budget() == 8
        spend()
        v = nb01.check_transitions(right)
        assert not v.ok and "not graded" in v.message, v
    """, budget=None)
    fresh_exercises("assert exercises.attempts_budget() == 8", budget="-3")
    fresh_exercises("assert exercises.attempts_budget() == 5", budget="5")


def test_forget_keeps_the_tries_spent_and_the_shown_answer_and_a_pass_says_it_was_asked():
    out = fresh_exercises("""
        spend()
        assert exercises.forget("nb01.transitions") == 1
        v = nb01.check_transitions(right)
        assert not v.ok and "not graded" in v.message, v       # the budget is still spent
        v = nb01.check_transitions(lambda n, b: n, why="every fault rides one batch trip into "
                                                        "the kernel, a partial batch too")
        assert not v.ok and "not graded" not in v.message       # graded (and wrong)
        shown = nb01.check_transitions(lambda n, b: n, hint=3,
                                       why="a batch holds many faults, so one trip per batch "
                                           "and the partial last batch also makes a trip")
        assert shown.answer_shown, shown
        exercises.forget("nb01.transitions")
        v = nb01.check_transitions(right, why="the final partly filled batch still costs the "
                                              "driver one more trip into the kernel")
        assert v.ok and v.shown_before and v.forget_asked == 2, v
        print(repr(v))
    """, budget="2")
    assert "shown earlier" in out and "forget() was asked 2" in out


def test_a_reason_of_random_letters_is_refused_and_real_reasons_pass():
    fresh_exercises("""
        spend()
        for padded in ("batch qwhdkzu plmnrtz xcvbnmq trwplkz ghjklmn",
                       "xkcdq wrtpz mnbvc lkjhg fdsaq poiuy"):
            v = nb01.check_transitions(right, why=padded)
            assert not v.ok and "not graded" in v.message, (padded, v)
        v = nb01.check_transitions(right, why="a batch of faults is one trip into the kernel and "
                                              "the partly filled last batch needs its own")
        assert v.ok, v
        spend(50)
        v = nb01.check_transitions(right, why="每一批缺页进一趟内核，最后那批不满也要单独走一趟")
        assert v.ok, v
    """, budget="2")


# -- 3. feedback says what the data shows, not the edit ---------------------------------------------
def test_feedback_names_the_idea_not_the_next_edit():
    def one_direction(p, mib, to_gpu=True):
        return (p.prefetch_latency + mib * (1 << 20) / p.prefetch_h2d_bw) * 1e3
    v = nb00.check_prefetch_model(one_direction)
    assert not v.ok and not re.search(r"which way|direction|h2d|d2h", v.message), v.message
    # 01: a fraction and one trip too few read the same (no walk from one message to the next)
    a = nb01.check_transitions(lambda n, b: n / b).message
    b = nb01.check_transitions(lambda n, b: n // b).message
    assert "Follow every fault" in a and "Follow every fault" in b
    assert not re.search(r"fraction|too few", a + b)
    # 07b: the stub's message says where the layers were, not what to breathe out
    v = nb07.check_breathing(lambda i, cold, stream: cold[i % len(cold)].prefetch("gpu",
                                                                                  stream=stream))
    assert not v.ok and "breathed out" not in v.message
    # 07 placement: the concept (hint=2) is the questions to ask, not the rule that answers them
    c = nb07.check_placement({k: "managed" for k in nb07.BUFFERS}, hint=2).concept
    assert "who touches" in c and not re.search(r"= ?(managed|pinned|the heart|device)", c), c
    # 08: a location struct given to the classic calls: no "_v2" named
    def hipify(src):                      # notebook 08's renaming cell
        def one(m):
            try:
                h = umkit.names.cuda_to_hip(m.group(0))
            except KeyError:
                return m.group(0) + "/*?*/"
            return h if h is not None else m.group(0) + "/*NO HIP COUNTERPART*/"
        return re.sub(r"\bcuda\w+", one, src)
    port = hipify(nb08.CUDA_SOURCE)
    port = port.replace("hipDeviceAttributeConcurrentManagedAccess",
                        "hipDeviceAttributePageableMemoryAccess")
    v = nb08.check_port(port)
    assert not v.ok and "_v2" not in v.message and "hipMemLocation" in v.message, v.message
