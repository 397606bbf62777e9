"""Exercises that only understanding passes: what the fourth independent try still found.

* 06 grades on the notebook's own card whatever ``profile=`` names: a card where nothing faults
  (XNACK off) no longer passes a loop without the per-epoch inhale, and on an APU (where a
  prefetch moves nothing) the official loop is not refused with a false "nothing was prefetched";
* 04 grades in its own sandbox: another notebook's ``compute=False`` session does not refuse the
  right step;
* ``umkit.use(lang=...)`` alone keeps the session's backend and profile;
* feedback says what the learner's result shows, never the edit to make (00, 04, 07b, 08)."""
from __future__ import annotations

import os as _os_budget

# these tests try wrong answers on purpose: the attempts budget is off in this process
_os_budget.environ.setdefault("UMKIT_EXERCISE_ATTEMPTS", "0")

import importlib.util
from pathlib import Path

import pytest

import umkit
from umkit.teaching.exercises import nb00, nb04, nb06, nb07, nb08

ROOT = Path(__file__).resolve().parents[2]


def _solution(stem):
    spec = importlib.util.spec_from_file_location(f"sol_ft_{stem[:3]}",
                                                  ROOT / "notebooks" / "solutions" / f"{stem}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(autouse=True)
def _notebook_profile():
    umkit.use("sim", profile="mi250x-xnack1", quiet=True)
    yield
    umkit.use("sim", quiet=True, lang="en")


# -- 06: the notebook's card, whatever profile= names ----------------------------------------------
def _loop(n, epochs, *, out_too=True, per_epoch=True):
    a, b, out = umkit.managed(n), umkit.managed(n), umkit.managed(n)
    b.host[:] = 2.0
    s = umkit.Stream()
    if not per_epoch:
        b.prefetch("gpu", stream=s)
    sums = []
    for e in range(epochs):
        a.host[:] = e + 1.0
        if per_epoch:
            for x in ((a, b, out) if out_too else (a, b)):
                x.prefetch("gpu", stream=s)
        umkit.add(out, a, b, stream=s)
        s.synchronize()
        sums.append(float(out.host.sum()))
    for x in (a, b, out):
        x.free()
    return sums


@pytest.mark.parametrize("card", ("mi250x-xnack0", "mi300a-apu", "mi250x-coherent"))
def test_06_grades_on_the_notebooks_card_whatever_profile_is_named(card):
    # a loop with one prefetch of b before it and none per epoch passed on an XNACK-off card
    v = nb06.check_epoch_loop(lambda n, e: _loop(n, e, per_epoch=False), profile=card)
    assert not v.ok, v
    assert "mi250x-xnack1" in v.message and card in v.message, v
    v = nb06.check_epoch_loop(lambda n, e: _loop(n, e, out_too=False), profile=card)
    assert not v.ok and "GPU page faults" in v.message, v
    # the official loop passes whatever card is named (on the APU it was refused: "nothing was
    # prefetched"), and the pass says where it was graded
    v = nb06.check_epoch_loop(_solution("06_training_data_loading").my_epoch_loop, profile=card)
    assert v.ok and "mi250x-xnack1" in v.message and "nothing was prefetched" not in v.message, v


def test_06_a_session_on_another_card_is_graded_on_the_notebooks_card():
    umkit.use("sim", profile="mi250x-xnack0", quiet=True)
    v = nb06.check_epoch_loop(lambda n, e: _loop(n, e, per_epoch=False))
    assert not v.ok and "your session models mi250x-xnack0" in v.message, v
    assert nb06.check_epoch_loop(_solution("06_training_data_loading").my_epoch_loop).ok


# -- 04: its own sandbox ---------------------------------------------------------------------------
def test_04_grades_in_its_own_sandbox_not_in_a_compute_false_session():
    s04 = _solution("04_synchronization")
    umkit.use("sim", profile="mi250x-xnack1", quiet=True, compute=False)   # notebook 05's setup
    v = nb04.check_step(s04.step)
    assert v.ok, v
    assert umkit.capabilities() is not None                 # the session is left as it was


# -- use(lang=...) keeps the session ----------------------------------------------------------------
def test_a_language_switch_keeps_the_backend_and_its_profile():
    umkit.use("sim", profile="mi250x-xnack1", quiet=True)
    before = umkit.backend()
    umkit.use(lang="zh")
    try:
        assert umkit.sim_profile().name == "mi250x-xnack1"
        assert umkit.backend() is before
    finally:
        umkit.use(lang="en")
    assert umkit.sim_profile().name == "mi250x-xnack1"
    umkit.use("sim", profile="mi300a-apu", quiet=True, lang="en")  # a switch with a name still switches
    assert umkit.sim_profile().name == "mi300a-apu"


# -- feedback: what the data shows, not the edit -----------------------------------------------------
def test_04_feedback_says_what_the_step_waited_for_not_which_wait_to_use():
    def device_wide(a, stream, next_batch):
        umkit.increment(a, stream=stream)
        next_batch()
        umkit.synchronize()
        return float(a.host.sum())
    v = nb04.check_step(device_wide)
    assert not v.ok and "other stream's job" in v.message, v
    assert "three ways" not in v.message and "Which of" not in v.message
    for name in ("synchronize", "Event", "event"):
        assert name not in v.message, v.message


def test_00_feedback_for_the_wrong_direction_gives_the_models_number_not_the_part_to_change():
    def h2d_always(p, mib, to_gpu=True):
        return (p.prefetch_latency + mib * 2**20 / p.prefetch_h2d_bw) * 1e3
    v = nb00.check_prefetch_model(h2d_always)
    assert not v.ok and "to_gpu=False" in v.message, v
    assert "the model charges" in v.message
    for words in ("grows with the bytes", "how fast", "bandwidth", "direction"):
        assert words not in v.message, v.message


def test_07b_feedback_on_the_evicted_heart_asks_nothing_that_names_the_order():
    def inhale_then_exhale(i, cold, stream):
        cold[i % len(cold)].prefetch("gpu", stream=stream)
        cold[(i - 1) % len(cold)].prefetch("cpu", stream=stream)
    v = nb07.check_breathing(inhale_then_exhale)
    assert not v.ok and "heart" in v.message, v
    for words in ("When is the room", "free?", "first", "before you", "order"):
        assert words not in v.message, v.message


def test_08_attribute_feedback_says_what_the_port_does_on_rocm_not_which_attribute_to_use():
    port = _solution("08_porting_cuda_to_hip").hip_source
    assert nb08.check_port(port).ok
    wrong = port.replace("hipDeviceAttributePageableMemoryAccess",
                         "hipDeviceAttributeConcurrentManagedAccess")
    v = nb08.check_port(wrong)
    assert not v.ok and "XNACK off" in v.message, v
    for words in ("PageableMemoryAccess", "names.row", ".note", "is that the question"):
        assert words not in v.message, v.message
    v = nb08.check_port(port.replace("hipDeviceAttributePageableMemoryAccess",
                                     "hipDeviceAttributeManagedMemory"))
    assert not v.ok and "PageableMemoryAccess" not in v.message, v


# -- 05 ipc: the text under the exercise describes mechanisms, not the options' wordings -----------
def _keyword_picker(options):
    """GT3's picker: the options that read like the notebook's "what to use instead" text."""
    return {k for k, t in options.items()
            if ("open it" in t and "hipIpcOpenMemHandle" in t)
            or ("both processes" in t and "mmap" in t)}


def test_05_ipc_a_picker_of_the_texts_phrases_does_not_pass_and_the_count_that_works_varies():
    import re
    from umkit.teaching.exercises import nb05
    nb05.ipc_first_question()
    try:
        v = nb05.check_ipc(_keyword_picker(nb05.IPC_OPTIONS))
        assert not v.ok, v
        passes, counts = 0, set()
        for _ in range(30):
            v = nb05.check_ipc(_keyword_picker(nb05.IPC_OPTIONS), hint=3)
            if v.ok:
                passes += 1
                v = nb05.check_ipc(set("abcde"), hint=3)     # never right: draws a new question
            right = re.search(r"Options that work: ([a-e](?: and [a-e])*) --", v.answer)
            assert right, v.answer
            counts.add(len(right.group(1).split(" and ")))
            # every option of the new question is explained, those that work and the others
            for letter in "abcde":
                assert f"({letter})" in v.answer or letter in right.group(1), v.answer
        assert counts >= {1, 2, 3}, counts          # "pick two" is no rule
        # a picker is right only by chance: about 1 draw in 11 (measured over 600 draws), so
        # 30 draws pass about 3 times; 12 or more happen less than once in 10**4 runs
        assert passes <= 12, passes
    finally:
        nb05.ipc_first_question()
    assert nb05.check_ipc(_solution("05_concurrent_access_pingpong").ipc_answer).ok


# -- the Chinese edition: a card note does not leave the message it wraps in English ----------------
def test_03_a_message_with_the_session_card_note_is_all_chinese():
    from umkit.teaching.exercises import nb03
    umkit.use("sim", profile="mi300a-apu", quiet=True, lang="zh")
    try:
        v = nb03.check_prepare(lambda a, w: a.prefetch("gpu"))
        text = repr(v)
    finally:
        umkit.use(lang="en")
    assert not v.ok and "mi300a-apu" in text, text
    for english in ("in rounds", "in round", "the GPU's read", "ping-pong", "faulted"):
        assert english not in text, text


# -- 09 diagnosis: matching shared words between reports and fixes does not pass ------------------
def test_09_a_matcher_of_shared_words_between_reports_and_fixes_does_not_pass():
    import random

    from umkit.teaching.exercises import nb09
    for seed in (None, 1, 2, 3, 4, 5):        # the notebook's set, then drawn ones
        if seed is None:
            nb09.DIAGNOSIS_SET.reopen_first()
        else:
            nb09.DIAGNOSIS_SET.draw(random.Random(seed))
        _no_matcher_passes(nb09)
    s09 = _solution("09_troubleshooting_and_ecg")
    assert nb09.check_diagnosis(s09.diagnosis_for(nb09.DIAGNOSIS_SET.names)).ok


def _no_matcher_passes(nb09):
    import itertools
    import re
    fixes = dict(nb09.FIXES)
    for shortest in (2, 3, 4):
        def tok(s):
            return set(re.findall(r"[a-z_0-9\\-]{%d,}" % shortest, s.lower()))

        def rare(c, f):                       # GT3's: shared words, weighted by rarity
            return sum(1 / sum(w in t for t in docs) for w in tok(cases[c]) & tok(fixes[f]))

        def plain(c, f):
            return len(tok(cases[c]) & tok(fixes[f]))
        for score in (rare, plain):
            # the notebook's first set each time: a wrong try draws a new set at random, and
            # which set is open must not depend on the draws before
            nb09.DIAGNOSIS_SET.reopen_first()
            cases = dict(nb09.CASES)
            docs = [tok(v) for v in list(cases.values()) + list(fixes.values())]
            best = max(itertools.permutations(fixes),
                       key=lambda p: sum(score(c, f) for c, f in zip(cases, p)))
            v = nb09.check_diagnosis(dict(zip(cases, best)))
            assert not v.ok, (shortest, score, nb09.DIAGNOSIS_SET.names)


def _han_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    return sum("\u4e00" <= c <= "\u9fff" for c in letters) / max(1, len(letters))


def test_the_fourth_trys_feedback_is_chinese_in_a_chinese_session():
    """GT3's zh sweep found English left in these verdicts; the new messages come with theirs."""
    from umkit.teaching.exercises import nb00, nb05, nb09
    from umkit.teaching.exercises import nb07 as n7
    s08 = _solution("08_porting_cuda_to_hip")
    port = s08.hip_source
    umkit.use("sim", profile="mi250x-xnack1", quiet=True, lang="zh")
    try:
        def mb_slip(p, mib, to_gpu=True):
            bw = p.prefetch_h2d_bw if to_gpu else p.prefetch_d2h_bw
            return (p.prefetch_latency + mib * 1e6 / bw) * 1e3

        def one_direction(p, mib, to_gpu=True):
            return (p.prefetch_latency + mib * 2**20 / p.prefetch_h2d_bw) * 1e3

        def device_wide(a, stream, next_batch):
            umkit.increment(a, stream=stream)
            next_batch()
            umkit.synchronize()
            return float(a.host.sum())
        verdicts = {
            "00 MB": nb00.check_prefetch_model(mb_slip),
            "00 direction": nb00.check_prefetch_model(one_direction),
            "04": nb04.check_step(device_wide),
            "06 named card": nb06.check_epoch_loop(lambda n, e: _loop(n, e, out_too=False),
                                                   profile="mi250x-xnack0"),
            "07 label": n7.check_placement({k: "gpu" for k in n7.BUFFERS}),
            "08 still CUDA": nb08.check_port(port.replace("hipFree", "cudaFree")),
            "08 attribute": nb08.check_port(port.replace(
                "hipDeviceAttributePageableMemoryAccess",
                "hipDeviceAttributeConcurrentManagedAccess")),
            "08 v2 pass": nb08.check_port(s08.hip_source_v2) if hasattr(s08, "hip_source_v2")
            else nb08.check_port(port),
            "05 ipc answer": nb05.check_ipc({"a"}, hint=3),
        }
        texts = {name: repr(v) for name, v in verdicts.items()}    # shown in the session's language
        nb05.ipc_first_question()
        options = dict(nb05.IPC_OPTIONS.items())     # as the notebook's cell prints them
        fixes = dict(nb09.FIXES.items())
    finally:
        umkit.use(lang="en")
        nb05.ipc_first_question()
    for name, text in texts.items():
        assert _han_share(text) > 0.3, (name, text)
    for english in ("returned", "is not an allocator", "is still CUDA", "a faithful port",
                    "on ROCm that attribute", "Options that work", "the card you named",
                    "the other stream's job"):
        assert not any(english in t for t in texts.values()), (english, texts)
    assert all(_han_share(t) > 0.3 for t in list(options.values()) + list(fixes.values()))


# -- every official answer, on its notebook's card, English and Chinese ------------------------------
@pytest.mark.parametrize("lang", ("en", "zh"))
def test_every_official_answer_passes_on_its_notebooks_card_in_both_languages(lang):
    import runpy
    from umkit.teaching.exercises import nb05, nb09, nb10
    from umkit.teaching.exercises import nb07 as n7
    umkit.use("sim", profile="mi250x-xnack1", quiet=True, lang=lang)
    try:
        got = {}
        for stem in ("00_start_here", "01_umd_and_kmd", "02_allocation",
                     "03_migration_prefetch_advice", "04_synchronization"):
            ns = runpy.run_path(str(ROOT / "notebooks" / "solutions" / f"{stem}.py"),
                                run_name="solution")
            got.update({f"{stem} #{i}": v for i, v in enumerate(ns["verdicts"])})
        s = {k: _solution(k) for k in ("05_concurrent_access_pingpong", "06_training_data_loading",
                                       "07_choosing_a_strategy", "07b_multi_gpu_and_scale",
                                       "08_porting_cuda_to_hip", "09_troubleshooting_and_ecg",
                                       "10_your_own_loop")}
        got["06"] = nb06.check_epoch_loop(s["06_training_data_loading"].my_epoch_loop)
        n7.PLACEMENT_SET.reopen_first()           # an earlier test may have left a drawn set open
        got["07"] = n7.check_placement(s["07_choosing_a_strategy"].placement)
        got["07b"] = n7.check_breathing(s["07b_multi_gpu_and_scale"].plan)
        got["08 port"] = nb08.check_port(s["08_porting_cuda_to_hip"].hip_source)
        got["08 port v2"] = nb08.check_port(s["08_porting_cuda_to_hip"].hip_source_v2)
        got["08 table"] = nb08.check_owner_table(s["08_porting_cuda_to_hip"].owner_table)
        nb09.DIAGNOSIS_SET.reopen_first()         # an earlier test may have left a drawn set open
        got["09 diagnosis"] = nb09.check_diagnosis(s["09_troubleshooting_and_ecg"].diagnosis)
        got["09 spikes"] = nb09.check_spikes(s["09_troubleshooting_and_ecg"].find_spikes)
        got["10"] = nb10.check_fixed_step(s["10_your_own_loop"].fixed_step)
        umkit.use("sim", profile="mi250x-xnack1", quiet=True, compute=False)   # 05's session
        nb05.ipc_first_question()
        got["05 statistic"] = nb05.check_statistic(s["05_concurrent_access_pingpong"].statistic)
        got["05 ipc"] = nb05.check_ipc(s["05_concurrent_access_pingpong"].ipc_answer)
    finally:
        umkit.use("sim", profile="mi250x-xnack1", quiet=True, lang="en")
        nb05.ipc_first_question()
    bad = {k: repr(v) for k, v in got.items() if not v.ok}
    assert not bad, bad
