"""The learner's record of the exercises (umkit.teaching.exercises.record): with the attempts budget
on, the wrong tries, the wait, the reasons and a shown answer are kept in a file, so that a kernel
restart -- a fresh process here -- continues them instead of starting afresh; a record that cannot
be read is set aside, one that cannot be written leaves the record in the process; it stays small.

Each test runs its kernels as fresh processes with the budget on and a record file of its own
(the repository's conftest.py turns the record off for every other test)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from repo_tools import ROOT

RIGHT = "lambda n, b: -(-n // b)"
REASON = "each batch carries at most batch_max faults so the trips round up"


def kernel(record, body: str, *, budget: str = "2", clock: float = 1000.0) -> str:
    """Run ``body`` in a fresh process: budget ``budget``, record file ``record`` (a path, or
    "off"), the waits' clock stopped at ``clock``; ``body`` sees exercises, record and nb01."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("UMKIT_EXERCISE_ATTEMPTS", "UMKIT_EXERCISE_RECORD", "UMKIT_EXERCISE_SEED")}
    env.update(UMKIT_BACKEND="sim", UMKIT_EXERCISE_ATTEMPTS=budget,
               UMKIT_EXERCISE_RECORD=str(record))
    code = textwrap.dedent(f"""
        import umkit
        umkit.use("sim", quiet=True)
        from umkit.teaching import exercises
        from umkit.teaching.exercises import nb01, record
        exercises.grading._clock = lambda: {clock!r}
        def wrong(k):          # a wrong answer, another each k
            return nb01.check_transitions(lambda n, b, k=k: n + k)
        """) + textwrap.dedent(body)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=env, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def test_a_restart_does_not_give_the_free_tries_back(tmp_path):
    rec = tmp_path / "exercises.json"
    out = kernel(rec, "for k in range(2): print(repr(wrong(k)).splitlines()[0])")
    assert "not graded" not in out and out.count("NOT YET") == 2, out
    # the next kernel: the budget of 2 is spent, so a try without a reason is not graded
    out = kernel(rec, "print(repr(wrong(5)).splitlines()[0])")
    assert "not graded: 2 wrong tries" in out, out
    stored = json.loads(rec.read_text())["exercises"]["nb01.transitions"]
    assert stored["wrong"] == 2 and stored["shown"] is False
    # the same with the record off: each kernel starts afresh (as before the record)
    off = tmp_path / "never-written.json"
    for _ in range(2):
        out = kernel("off", "for k in range(2): print(repr(wrong(k)).splitlines()[0])")
        assert "not graded" not in out, out
    assert not off.exists()


def test_a_spent_budget_says_where_the_tries_were_counted(tmp_path):
    """WALK5 met "8 wrong tries" in a fresh clone, made by earlier runs in the same home: the
    message names the record that counts them; with the record off it names none."""
    rec = tmp_path / "exercises.json"
    kernel(rec, "for k in range(2): wrong(k)")
    out = kernel(rec, "print(repr(wrong(5)).splitlines()[0])")
    assert f"The tries are counted in {rec}, across kernels and copies of the course" in out, out
    out = kernel("off", "for k in range(3): v = wrong(k)\nprint(repr(v).splitlines()[0])")
    assert "not graded: 2 wrong tries" in out and "counted in" not in out, out


def test_a_wait_holds_across_a_restart_and_ends_on_time(tmp_path):
    rec = tmp_path / "exercises.json"
    # budget 2: the third wrong try (with a reason) starts a wait of 5 s at t=1000
    kernel(rec, """
        for k in range(2): wrong(k)
        v = nb01.check_transitions(lambda n, b: n + 9, why="I think every fault makes its own trip here")
        assert not v.ok and "not graded" not in v.message, v
        """)
    assert json.loads(rec.read_text())["exercises"]["nb01.transitions"]["until"] == 1005.0
    out = kernel(rec, """
        v = nb01.check_transitions(lambda n, b: n + 3, why="a different idea about the batches now")
        print(v.message)""", clock=1002.0)
    assert "wait 3 s more" in out, out
    # after the wait, a new kernel grades again
    out = kernel(rec, f"""
        v = nb01.check_transitions({RIGHT}, why="{REASON}")
        print(repr(v).splitlines()[0])""", clock=1006.0)
    assert out.startswith("PASS"), out
    stored = json.loads(rec.read_text())["exercises"]["nb01.transitions"]
    assert stored["wrong"] == 0 and stored["until"] < 1006.0         # a pass ends the wait


def test_a_wait_never_runs_past_its_longest_from_now(tmp_path):
    rec = tmp_path / "exercises.json"
    # a record whose wait ends in a year (a clock set back, a record edited)
    rec.write_text(json.dumps({"version": 1, "exercises": {"nb01.transitions": {
        "wrong": 30, "until": 1000.0 + 365 * 86400, "owed": 0, "shown": False, "reasons": []}}}))
    out = kernel(rec, """
        v = nb01.check_transitions(lambda n, b: n, why="one more idea about how faults are sent")
        print(v.message)""")
    assert "wait 300 s more" in out, out


def test_an_answer_shown_in_one_kernel_is_noted_on_a_pass_in_the_next(tmp_path):
    rec = tmp_path / "exercises.json"
    kernel(rec, "v = nb01.check_transitions(lambda n, b: n, hint=3); assert v.answer_shown, v")
    assert json.loads(rec.read_text())["exercises"]["nb01.transitions"]["shown"] is True
    out = kernel(rec, f"print(repr(nb01.check_transitions({RIGHT}, why='{REASON}')))")
    assert out.startswith("PASS") and "was shown earlier (hint=3)" in out, out
    # verdict.hint(3) counts the same
    rec2 = tmp_path / "second.json"
    kernel(rec2, "wrong(1).hint(3)")
    out = kernel(rec2, f"print(repr(nb01.check_transitions({RIGHT}, why='{REASON}')))")
    assert "was shown earlier (hint=3)" in out, out


def test_a_reason_given_in_one_kernel_cannot_be_given_again_in_the_next(tmp_path):
    rec = tmp_path / "exercises.json"
    why = "every fault is a trip of its own in my view"
    kernel(rec, f"for k in range(2): wrong(k)\nnb01.check_transitions(lambda n, b: n + 7, "
                f"why='{why}')")
    out = kernel(rec, f"print(nb01.check_transitions(lambda n, b: n + 8, why='{why}').message)",
                 clock=2000.0)
    assert "you gave that reason" in out, out


def test_a_set_owed_after_a_wrong_one_stays_owed_in_the_next_kernel(tmp_path):
    rec = tmp_path / "exercises.json"
    kernel(rec, "from umkit.teaching import exercises as e\ne.grading.owe_one_more('nb09.diagnosis')")
    out = kernel(rec, "print(exercises.grading.settle_one_more('nb09.diagnosis'), "
                      "exercises.grading.settle_one_more('nb09.diagnosis'))")
    assert out.split() == ["True", "False"], out


def test_an_unreadable_record_is_set_aside_and_a_new_one_started(tmp_path):
    rec = tmp_path / "exercises.json"
    for junk in (b"{not json", b"[1, 2]", b"\xff\xfe", b"[" * 100000 + b"]" * 100000,
                 json.dumps({"version": 1, "exercises": {"nb01.transitions": {
                     "wrong": "many", "until": "soon", "owed": 7, "shown": "yes",
                     "reasons": [1, None, "x" * 5000]}}}).encode()):
        rec.write_bytes(junk)
        out = kernel(rec, "print(repr(wrong(1)).splitlines()[0])")
        assert out.startswith("NOT YET") and "not graded" not in out, (junk[:20], out)
        stored = json.loads(rec.read_text())["exercises"]["nb01.transitions"]
        assert stored["wrong"] == 1 and stored["shown"] is False, stored
        assert all(isinstance(r, str) and len(r) <= 2000 for r in stored["reasons"])
    # the four damaged ones are each kept, the first as .unreadable, the others numbered
    assert (tmp_path / "exercises.json.unreadable").read_bytes() == b"{not json"
    assert (tmp_path / "exercises.json.unreadable-4").read_bytes() == \
        b"[" * 100000 + b"]" * 100000


def test_a_record_that_cannot_be_written_leaves_the_checks_working(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for rec in (blocker / "umkit" / "exercises.json", blocker / "exercises.json"):  # under a file
        out = kernel(rec, """
            for k in range(3): print(repr(wrong(k)).splitlines()[0])
            print(record.status())""")
        lines = out.strip().splitlines()
        assert lines[0].startswith("NOT YET") and "not graded: 2 wrong tries" in lines[2], out
        assert "counted in" not in lines[2], out       # the tries are the process's, not the file's
        assert "in this process only" in lines[-1], out
    assert blocker.read_text() == "not a folder"


def test_the_record_stays_small(tmp_path):
    rec = tmp_path / "exercises.json"
    kernel(rec, """
        for i in range(record.MAX_EXERCISES + 40):
            assert record.save(f"made.up{i}", {"wrong": i, "reasons": [f"reason {j} " * 500
                                                                     for j in range(40)]}, float(i))
        assert not record.save("x" * 201, {"wrong": 1}, 0.0)          # a name too long
        """)
    from umkit.teaching.exercises import record
    kept = json.loads(rec.read_text())["exercises"]
    assert len(kept) == record.MAX_EXERCISES
    assert set(kept) == {f"made.up{i}" for i in range(40, record.MAX_EXERCISES + 40)}
    assert all(len(e["reasons"]) == record.MAX_REASONS for e in kept.values())
    assert all(len(r) <= record.MAX_REASON_CHARS for e in kept.values() for r in e["reasons"])
    assert rec.stat().st_mode & 0o077 == 0                             # the learner's alone


def test_two_kernels_writing_at_once_keep_a_whole_record(tmp_path):
    rec = tmp_path / "exercises.json"
    body = """
        import sys
        for i in range(40):
            assert record.save(f"k{KID}.e{i % 5}", {"wrong": i}, float(i))
        """
    env = {k: v for k, v in os.environ.items()}
    env.update(UMKIT_EXERCISE_RECORD=str(rec))
    procs = [subprocess.Popen([sys.executable, "-c", "from umkit.teaching.exercises import record"
                               + textwrap.dedent(body).replace("KID", str(k))], env=env, cwd=ROOT)
             for k in range(3)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    kept = json.loads(rec.read_text())["exercises"]
    assert set(kept) == {f"k{k}.e{i}" for k in range(3) for i in range(5)}
    assert all(kept[f"k{k}.e4"]["wrong"] == 39 for k in range(3))
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize("value, where", [
    ("off", None), ("OFF ", None), ("", "home"), (None, "home"), ("~/elsewhere.json", "tilde")])
def test_where_the_record_is_kept(tmp_path, value, where):
    env = {k: v for k, v in os.environ.items() if k not in ("UMKIT_EXERCISE_RECORD",
                                                              "XDG_STATE_HOME")}
    env["HOME"] = str(tmp_path)
    if value is not None:
        env["UMKIT_EXERCISE_RECORD"] = value
    out = subprocess.run([sys.executable, "-c", "from umkit.teaching.exercises import record; "
                          "print(record.path())"], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    want = {None: "None", "home": str(tmp_path / ".local" / "state" / "umkit" / "exercises.json"),
            "tilde": str(tmp_path / "elsewhere.json")}[where]
    assert out.stdout.strip() == want


def test_a_fifo_a_device_or_a_link_in_the_records_place_is_left_alone(tmp_path):
    rec = tmp_path / "exercises.json"
    os.mkfifo(rec)
    out = kernel(rec, "print(repr(wrong(1)).splitlines()[0]); print(record.status())")
    assert out.startswith("NOT YET") and "in this process only" in out, out
    assert rec.is_fifo() and not (tmp_path / "exercises.json.unreadable").exists()
    target = tmp_path / "somebody-elses.txt"
    target.write_text("kept as it is")
    rec2 = tmp_path / "linked.json"
    rec2.symlink_to(target)
    out = kernel(rec2, "print(repr(wrong(1)).splitlines()[0]); print(record.status())")
    assert out.startswith("NOT YET") and "in this process only" in out, out
    assert target.read_text() == "kept as it is"
    if os.geteuid() == 0:                # a character device (a copy of /dev/null's numbers)
        dev = tmp_path / "null"
        os.mknod(dev, 0o666 | 0o020000, os.makedev(1, 3))
        out = kernel(dev, "print(repr(wrong(1)).splitlines()[0]); print(record.status())")
        assert "in this process only" in out and dev.is_char_device(), out
        assert not (tmp_path / "null.unreadable").exists()


def test_a_new_learners_record_is_made_with_its_folders(tmp_path):
    """The default place (~/.local/state/umkit/) does not exist in a fresh home: it is made."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("UMKIT_EXERCISE_ATTEMPTS", "UMKIT_EXERCISE_RECORD", "XDG_STATE_HOME")}
    env.update(HOME=str(tmp_path), UMKIT_BACKEND="sim", UMKIT_EXERCISE_ATTEMPTS="2")
    code = ("import umkit; umkit.use('sim', quiet=True)\n"
            "from umkit.teaching.exercises import nb01, record\n"
            "nb01.check_transitions(lambda n, b: n); print(record.status())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    made = tmp_path / ".local" / "state" / "umkit" / "exercises.json"
    assert out.stdout.strip() == f"exercise record: {made}", out.stdout
    assert json.loads(made.read_text())["exercises"]["nb01.transitions"]["wrong"] == 1


def test_an_edited_wait_is_cut_once_and_then_ends(tmp_path):
    rec = tmp_path / "exercises.json"
    rec.write_text(json.dumps({"version": 1, "exercises": {"nb01.transitions": {
        "wrong": 20, "until": 4e9, "owed": 0, "shown": False, "reasons": []}}}))
    out = kernel(rec, "print(nb01.check_transitions(lambda n, b: n, why='one more idea about "
                      "how the faults travel').message)", clock=1000.0)
    assert "wait 300 s more" in out, out
    assert json.loads(rec.read_text())["exercises"]["nb01.transitions"]["until"] == 1300.0
    out = kernel(rec, f"print(repr(nb01.check_transitions({RIGHT}, why='{REASON}')))",
                 clock=1301.0)
    assert out.startswith("PASS"), out


def test_tries_within_the_budget_leave_no_wait_for_a_kernel_whose_clock_is_behind(tmp_path):
    rec = tmp_path / "exercises.json"
    kernel(rec, "wrong(1)", budget="4", clock=5000.0)
    assert json.loads(rec.read_text())["exercises"]["nb01.transitions"]["until"] == 0.0
    out = kernel(rec, "print(repr(wrong(2)).splitlines()[0])", budget="4", clock=1000.0)
    assert "not graded" not in out, out


@pytest.mark.parametrize("junk", [
    {"other.thing": {"updated": int("1" + "0" * 400)}},            # an int no float holds
    {"x\udc80": {"wrong": 1}},                                     # a lone surrogate
    {"nb01.transitions": {"reasons": ["\ud83d" * 10, "fine reason here"]}},
])
def test_hostile_values_in_the_record_never_stop_a_check(tmp_path, junk):
    rec = tmp_path / "exercises.json"
    rec.write_text(json.dumps({"version": 1, "exercises": junk}))
    out = kernel(rec, f"""
        print(repr(wrong(1)).splitlines()[0])
        print(repr(nb01.check_transitions({RIGHT}, why='{REASON}')).splitlines()[0])
        exercises.grading.owe_one_more('nb09.diagnosis')
        print(record.status())""", budget="4")
    lines = out.strip().splitlines()
    assert lines[0].startswith("NOT YET") and lines[1].startswith("PASS"), out
    assert lines[2] == f"exercise record: {rec}", out
    json.loads(rec.read_text())                 # still a record
    assert not list(tmp_path.glob("*.tmp"))


def test_kernels_trying_at_once_each_count_and_keep_their_reasons(tmp_path):
    rec = tmp_path / "exercises.json"
    body = textwrap.dedent("""
        import sys, time, umkit
        umkit.use("sim", quiet=True)
        from umkit.teaching.exercises import nb01
        k = int(sys.argv[1])
        v = nb01.check_transitions(lambda n, b: n + k, why=f"reason number {k} about how faults batch")
        assert not v.ok and "not graded" not in v.message, v
        """)
    env = {k: v for k, v in os.environ.items()}
    env.update(UMKIT_EXERCISE_RECORD=str(rec), UMKIT_EXERCISE_ATTEMPTS="20", UMKIT_BACKEND="sim")
    procs = [subprocess.Popen([sys.executable, "-c", body, str(k)], env=env, cwd=ROOT)
             for k in range(6)]
    assert [p.wait(timeout=120) for p in procs] == [0] * 6
    stored = json.loads(rec.read_text())["exercises"]["nb01.transitions"]
    assert stored["wrong"] == 6 and len(stored["reasons"]) == 6, stored


def test_a_reason_given_before_is_refused_however_many_came_after(tmp_path):
    rec = tmp_path / "exercises.json"
    out = kernel(rec, """
        vocab = ("apple river stone cloud maple tiger orange violet marble candle pepper window "
                 "garden silver button forest rabbit yellow meadow copper lemon basket pillow "
                 "harbor canyon walnut pocket ribbon tunnel saddle falcon bridge carpet dragon "
                 "engine frozen ginger hollow island jacket kettle ladder mirror needle oyster "
                 "parrot quartz rocket shadow ticket velvet wander yogurt zipper anchor beacon "
                 "cactus donkey embers fabric glider hammer igloo jungle kitten lantern magnet "
                 "nectar outlet pebble quiver radish sparrow thimble umbrella vessel whistle "
                 "yonder zenith acorn blossom cobalt dimple easel fennel goblet hazel indigo "
                 "jigsaw kernel lagoon mitten noodle orchid pistol quince rafter sequin timber "
                 "urchin vortex wigwam").split()
        reasons = [" ".join(vocab[6 * i:6 * i + 6]) for i in range(17)]   # one more than 16
        t = [1000.0]
        exercises.grading._clock = lambda: t[0]
        for i, r in enumerate(reasons):
            t[0] += 10000.0
            v = nb01.check_transitions(lambda n, b, i=i: n + i, why=r)
            assert "not graded" not in v.message, (r, v)
        t[0] += 10000.0
        v = nb01.check_transitions(lambda n, b: n + 99, why=reasons[0])
        print(v.message)""", budget="2")
    assert "you gave that reason" in out, out


def test_a_lock_held_by_another_process_delays_a_check_at_most_a_moment(tmp_path):
    import fcntl
    import time
    rec = tmp_path / "exercises.json"
    with open(tmp_path / "exercises.json.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        t0 = time.monotonic()
        out = kernel(rec, "print(repr(wrong(1)).splitlines()[0]); print(record.status())")
        took = time.monotonic() - t0
    assert out.startswith("NOT YET") and "for over 2 s" in out, out
    assert took < 60, took


def test_a_folder_given_as_the_record_holds_the_file_and_a_home_without_a_path_keeps_none(tmp_path):
    folder = tmp_path / "records"
    folder.mkdir()
    kernel(folder, "wrong(1)")
    assert (folder / "exercises.json").is_file() and not (tmp_path / "records.lock").exists()
    for home in ("", "relative/home"):
        env = {k: v for k, v in os.environ.items()
               if k not in ("UMKIT_EXERCISE_RECORD", "XDG_STATE_HOME")}
        env["HOME"] = home
        out = subprocess.run([sys.executable, "-c", "from umkit.teaching.exercises import record; "
                              "print(record.path(), record.status())"], capture_output=True,
                             text=True, env=env, cwd=tmp_path, timeout=60)
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith("None exercise record: in this process only (no home"), out


def test_a_record_from_the_future_does_not_crowd_out_new_entries(tmp_path):
    rec = tmp_path / "exercises.json"
    rec.write_text(json.dumps({"version": 1, "exercises": {
        f"flood{i}": {"wrong": 1, "updated": 1e300} for i in range(60)}}))
    kernel(rec, "wrong(1)")
    kept = json.loads(rec.read_text())["exercises"]
    assert kept["nb01.transitions"]["wrong"] == 1 and len(kept) <= 48


def test_a_second_unreadable_record_does_not_overwrite_the_first(tmp_path):
    """AT8 #8: each damaged record is set aside under a name of its own."""
    rec = tmp_path / "exercises.json"
    for k in range(7):
        rec.write_bytes(b"{damaged %d" % k)
        out = kernel(rec, "print(repr(wrong(1)).splitlines()[0]); print(record.status())")
        assert out.startswith("NOT YET"), out
        if k < 5:
            assert f"exercise record: {rec}" in out, out
    kept = sorted(p.name for p in tmp_path.glob("exercises.json.unreadable*"))
    assert kept == ["exercises.json.unreadable"] + [f"exercises.json.unreadable-{n}"
                                                    for n in range(2, 6)], kept
    assert (tmp_path / "exercises.json.unreadable").read_bytes() == b"{damaged 0"
    assert "in this process only" in out               # a sixth: kept in the process
