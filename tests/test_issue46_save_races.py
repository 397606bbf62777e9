"""Issue 46, saves under attack: a pair of files numbered as one (D4), temporary files a killed
save left behind named recognisably and cleaned (D5), half of a pair never blocking a retry (D6),
long CJK names (D7), a result with control characters loading back (D8), and many savers racing
for one new name (D1: exactly one writes it)."""
from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import umkit
from umkit.results import files

PY = sys.executable
ENV = dict(os.environ, UMKIT_BACKEND="sim", PYTHONHASHSEED="0")


def temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def recorded(name="loop"):
    with umkit.using("sim"):
        with umkit.ecg.recorder(name) as rec:
            for _ in range(3):
                rec.step()
    return rec.result()


# -- D4: a pair shares one number, whoever else is numbering the same names ----------------------------
def test_numbered_pairs_share_one_number_under_a_race(tmp_path):
    n, start = 24, threading.Barrier(24)
    got, errors = {}, []

    def save(i):
        start.wait()
        try:
            got[i] = files.write_all([(tmp_path / "ecg.json", f"json {i}", "--json"),
                                      (tmp_path / "ecg.png", f"png {i}", "--out")],
                                     exists="number")
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=save, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for i, (j, p) in got.items():
        assert j.stem == p.stem                                  # ecg-7.json with ecg-7.png
        assert j.read_text() == f"json {i}" and p.read_text() == f"png {i}"
    assert len({j for j, _ in got.values()}) == n
    assert not temps(tmp_path)


def test_refused_pair_writes_neither(tmp_path):
    (tmp_path / "e.png").write_text("mine")
    with pytest.raises(files.AlreadyExists) as e:
        files.write_all([(tmp_path / "e.json", "j", "--json"), (tmp_path / "e.png", "p", "--out")],
                        flag="--force")
    assert e.value.argument == "--out"
    assert not (tmp_path / "e.json").exists() and (tmp_path / "e.png").read_text() == "mine"
    assert not temps(tmp_path)


# -- D5: kill -9 mid-save ---------------------------------------------------------------------------
KILLED = textwrap.dedent("""
    import os, sys, time
    from umkit.results import files
    os.fsync = lambda fd: (print("writing", flush=True), time.sleep(60))
    files.write(sys.argv[1], "x" * 100000)
""")


def test_a_killed_save_leaves_a_recognisable_temp_file_the_next_save_removes(tmp_path):
    target = tmp_path / "r.json"
    child = subprocess.Popen([PY, "-c", KILLED, str(target)], stdout=subprocess.PIPE, text=True,
                             env=ENV)
    assert child.stdout.readline().strip() == "writing"
    left = temps(tmp_path)
    assert len(left) == 1 and files.TEMP.match(left[0]), left
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert temps(tmp_path) == left and not target.exists()
    # a live writer's temporary file (this process's pid) and a fresh one are never removed
    live = tmp_path / f".r.json~umkit-{os.getpid()}-live1.tmp"
    live.write_text("in progress")
    os.utime(live, (time.time() - 3600, time.time() - 3600))
    time.sleep(1.2)                                   # the dead one is older than the next save
    fresh = tmp_path / f".r.json~umkit-{child.pid}-fresh.tmp"
    fresh.write_text("just now")
    other = tmp_path / ".r.json.notumkit.tmp"         # not umkit's name: not umkit's to remove
    other.write_text("x")
    os.utime(other, (0, 0))
    assert files.write(target, "new") == target and target.read_text() == "new"
    assert sorted(temps(tmp_path)) == sorted([live.name, fresh.name, other.name])


def test_clean_stale_keeps_other_processes_files(tmp_path):
    t = tmp_path / ".x.json~umkit-1-abc.tmp"           # pid 1 is alive (init)
    t.write_text("x")
    os.utime(t, (0, 0))
    assert files.clean_stale(tmp_path) == [] and t.exists()


# -- D6: half of a pair does not block the retry ----------------------------------------------------
ECG = ["-m", "umkit.cli", "ecg", "--steps", "2", "--size", "1", "--strategies", "device",
       "--quiet", "--json", "e.json", "--out", "e.png"]


def test_a_failed_pair_leaves_nothing_and_the_retry_succeeds(tmp_path):
    code = ("import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
            "resource.setrlimit(resource.RLIMIT_FSIZE, (6000, 6000)); "
            "from umkit.cli import main; sys.exit(main(sys.argv[1:]))")
    r = subprocess.run([PY, "-c", code, *ECG[2:]], cwd=tmp_path, env=ENV, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert "--out" in r.stderr
    assert not (tmp_path / "e.json").exists() and not (tmp_path / "e.png").exists()
    assert not temps(tmp_path)
    r = subprocess.run([PY, *ECG], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "e.json").stat().st_size > 0
    assert (tmp_path / "e.png").read_bytes()[:4] == b"\x89PNG"


def test_a_failed_second_file_undoes_nothing_it_did_not_write(tmp_path, monkeypatch):
    calls = []
    real = os.fsync

    def second_fails(fd):
        calls.append(fd)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd)
    monkeypatch.setattr(os, "fsync", second_fails)
    with pytest.raises(files.WriteFailed) as e:
        files.write_all([(tmp_path / "a.json", "a", "--json"), (tmp_path / "a.png", "b", "--out")])
    assert e.value.argument == "--out" and e.value.errno == errno.ENOSPC
    assert not (tmp_path / "a.json").exists() and not temps(tmp_path)
    monkeypatch.setattr(os, "fsync", real)
    files.write_all([(tmp_path / "a.json", "a", "--json"), (tmp_path / "a.png", "b", "--out")])
    assert (tmp_path / "a.json").read_text() == "a"


# -- D7: a long CJK name ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["数" * 83 + ".json", "é" * 120 + ".json", "x" * 250 + ".json"])
def test_a_long_multibyte_name_is_written(tmp_path, name):
    assert len(name.encode()) <= 255
    p = files.write(tmp_path / name, "ok")
    assert p.read_text() == "ok" and not temps(tmp_path)
    (tmp_path / "run").mkdir()
    assert recorded().save(tmp_path / "run" / name).exists()


def test_temp_prefix_is_cut_by_bytes():
    pre = files.temp_prefix(Path("数" * 200 + ".json"))
    assert len(os.fsencode(pre)) <= 100 + 40 and "~umkit-" in pre


# -- D8: control characters in a saved result -------------------------------------------------------
def test_a_result_with_control_characters_loads_back(tmp_path):
    r = recorded()
    r.strategy = "my\x1b[31m loop"
    r.device = "card\x07"
    r.counters = dict(r.counters, **{"odd\nname": 1})
    p = r.save(tmp_path / "r.json")
    back = umkit.ecg.load(p)
    assert back.name == "my\\x1b[31m loop" and back.device == "card\\x07"
    assert back.counters["odd\\nname"] == 1
    assert "\x1b" not in back.table() if hasattr(back, "table") else True


def test_a_result_that_cannot_be_json_is_a_typed_error(tmp_path):
    r = recorded()
    deep = {}
    for _ in range(100_000):
        deep = {"a": deep}
    r.meta = {"deep": deep}
    with pytest.raises(umkit.InvalidArgument):
        r.save(tmp_path / "r.json")
    assert not (tmp_path / "r.json").exists() and not temps(tmp_path)


# -- D1 again: many savers, one new name ---------------------------------------------------------------
def test_racing_saves_to_one_new_name(tmp_path):
    r = recorded()
    n, start = 32, threading.Barrier(32)
    out = []

    def save(i):
        start.wait()
        try:
            out.append(("written", r.save(tmp_path / "same.json")))
        except files.AlreadyExists as e:
            out.append(("refused", e))
        except Exception as e:  # noqa: BLE001
            out.append(("untyped", e))
    threads = [threading.Thread(target=save, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    kinds = [k for k, _ in out]
    assert kinds.count("written") == 1 and kinds.count("refused") == n - 1, out
    assert umkit.ecg.load(tmp_path / "same.json").name == "loop"
    assert not temps(tmp_path)


def test_racing_numbered_saves_each_get_a_name(tmp_path):
    n, start = 32, threading.Barrier(32)
    out = []

    def save(i):
        start.wait()
        out.append(files.write(tmp_path / "same.json", str(i), exists="number"))
    threads = [threading.Thread(target=save, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(out)) == n
    assert sorted(int(p.read_text()) for p in out) == list(range(n))
