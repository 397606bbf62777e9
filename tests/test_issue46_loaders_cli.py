"""Issue 46, loaders and the command line: ecg.load checks the whole document, ecg.published never
hangs on a FIFO and gives typed errors on deep or non-UTF-8 JSON, the language marker is read
bounded, a failing use(lang=...) keeps the language, python -m umkit.ledger UNKNOWN is one line
(exit 2), Ctrl-C ends a command with one line and exit 130, bad workspace arguments exit 2, and
bash run.sh names its own commands."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import umkit
from umkit.errors import InvalidArgument
from umkit.runtime import lang

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
ENV = dict(os.environ, UMKIT_BACKEND="sim", PYTHONHASHSEED="0")
GOOD = dict(name="loop", backend="sim", steps=[dict(step=0, ms=1.0), dict(step=1, ms=2.0)])


@pytest.mark.parametrize("field, value, says", [
    ("name", [1], "name=[1] is not a text"),
    ("name", "loop\x1b[2J", "control characters"),
    ("backend", "\x1b]0;owned\x07sim", "control characters"),
    ("device", 7, "not a text"),
    ("profile", {"a": 1}, "not a text"),
    ("pattern", "a\nb", "control characters"),
    ("stopped", "false", "not true or false"),
    ("model_time", "false", "not true or false"),
    ("nbytes", -5, "whole number of bytes"),
    ("nbytes", "64", "whole number of bytes"),
    ("counters", {"faults": "many"}, "finite numbers"),
    ("meta", [1, 2], "not an object"),
])
def test_ecg_load_checks_every_field(tmp_path, field, value, says):
    d = dict(GOOD, **{field: value})
    p = tmp_path / "run.json"
    p.write_text(json.dumps(d))
    with pytest.raises(InvalidArgument, match="not a recorded run") as e:
        umkit.ecg.load(p)
    assert says in e.value.message and "\x1b" not in str(e.value)


def test_ecg_load_reads_a_good_run_and_false_stays_false(tmp_path):
    p = tmp_path / "run.json"
    p.write_text(json.dumps(dict(GOOD, stopped=False, model_time=True)))
    r = umkit.ecg.load(p)
    assert r.stopped is False and r.model_time is True and r.step_ms == [1.0, 2.0]
    p.write_text(json.dumps(GOOD).replace('"sim"', '"sim", "nbytes": ' + "9" * 5000))
    with pytest.raises(InvalidArgument, match="not JSON"):
        umkit.ecg.load(p)


PUBLISHED = ("import sys, umkit.ecg as e\n"
             "try:\n    e.published(results_dir=sys.argv[1])\n"
             "except umkit.UmkitError as x:\n    print('TYPED', x.message)\n"
             "except BaseException as x:\n    print('UNTYPED', type(x).__name__)\n")


@pytest.mark.parametrize("what", ["fifo", "deep", "latin1"])
def test_ecg_published_never_hangs_and_its_errors_are_typed(tmp_path, what):
    f = tmp_path / "run1" / "torch_training" / "torch_training.json"
    f.parent.mkdir(parents=True)
    if what == "fifo":
        os.mkfifo(f)
    elif what == "deep":
        f.write_text("[" * 200_000 + "]" * 200_000)
    else:
        f.write_bytes(b'{"env": {"date": "caf\xe9"}}')
    r = subprocess.run([PY, "-c", "import umkit\n" + PUBLISHED, str(tmp_path)], env=ENV,
                       capture_output=True, text=True, timeout=60)   # a FIFO used to block here
    assert r.stdout.startswith("TYPED") and str(f) in r.stdout, r.stdout + r.stderr
    assert {"fifo": "not a regular file", "deep": "nested too deep",
            "latin1": "not UTF-8"}[what] in r.stdout


def test_the_language_marker_is_read_bounded(tmp_path, monkeypatch):
    monkeypatch.delenv("UMKIT_LANG", raising=False)
    lang.set_language(None)
    marker = tmp_path / ".umkit-lang"
    with open(marker, "wb") as f:                # 1 TiB, sparse: "zh" then holes
        f.write(b"zh\n")
        f.truncate(1 << 40)
    monkeypatch.chdir(tmp_path)
    t = time.monotonic()
    assert lang.language() in ("en", "zh")       # read 256 bytes, not 1 TiB (a MemoryError)
    assert time.monotonic() - t < 5


def test_a_failing_use_keeps_the_language(monkeypatch):
    monkeypatch.delenv("UMKIT_LANG", raising=False)
    lang.set_language("en")
    try:
        with pytest.raises(InvalidArgument):
            umkit.use("no-such-backend", lang="zh")
        assert lang.language() == "en"
        with pytest.raises(InvalidArgument):
            umkit.use("sim", lang="klingon")
        assert lang.language() == "en"
        umkit.use("sim", quiet=True, lang="zh")
        assert lang.language() == "zh"
    finally:
        lang.set_language(None)
        umkit.use("sim", quiet=True)


def test_ledger_unknown_id_is_one_line_exit_2():
    r = subprocess.run([PY, "-m", "umkit.ledger", "UNKNOWN\x1b[31m"], capture_output=True,
                       text=True, env=ENV, timeout=60)
    assert r.returncode == 2 and r.stdout == "", r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "\x1b" not in r.stderr and "UNKNOWN" in r.stderr


def interrupted(argv, cwd, env=ENV):
    """Start a command, wait for its progress bar, press Ctrl-C: (exit status, stderr)."""
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        first = p.stderr.read(1)             # the progress bar: the command is running
        assert first, "the command printed nothing"
        time.sleep(0.3)
        os.killpg(p.pid, signal.SIGINT)      # as a terminal's Ctrl-C reaches the process group
        err = first + p.stderr.read()
        return p.wait(timeout=60), err
    finally:
        if p.poll() is None:
            p.kill()


LONG_ECG = ["ecg", "--steps", "100000", "--size", "1", "--strategies", "managed"]


def test_ctrl_c_during_umkit_ecg_is_one_line_and_exit_130(tmp_path):
    rc, err = interrupted([PY, "-m", "umkit.cli", *LONG_ECG, "--json", "e.json"], tmp_path)
    assert rc == 130 and "Traceback" not in err, err
    last = err.strip().splitlines()
    assert last[-1].startswith("umkit ecg: interrupted") and len(last) == 2   # bar, then the line
    assert not (tmp_path / "e.json").exists()


def test_ctrl_c_during_run_sh_ecg_is_one_line_and_exit_130(tmp_path):
    env = dict(ENV, UMKIT_VENV=str(Path(PY).parent.parent), UMKIT_SKIP_INSTALL="1")
    rc, err = interrupted(["bash", str(ROOT / "run.sh"), *LONG_ECG], ROOT, env)
    assert rc == 130 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith("umkit ecg: interrupted")


def test_run_sh_unknown_command_lists_run_sh_commands():
    env = dict(ENV, UMKIT_VENV=str(Path(PY).parent.parent), UMKIT_SKIP_INSTALL="1")
    r = subprocess.run(["bash", str(ROOT / "run.sh"), "frobnicate"], capture_output=True,
                       text=True, env=env, cwd=ROOT, timeout=120)
    assert r.returncode == 2
    for cmd in ("lab", "voila", "ecg", "hub", "doctor", "help"):
        assert cmd in r.stderr, r.stderr
    assert "port-check" not in r.stderr.split("frobnicate")[0]
    assert "invalid choice" not in r.stderr


@pytest.mark.parametrize("args, says", [
    (["--dest", "loop/x"], "loop of links"),
    (["--src", "/proc", "--dest", "w"], "holds no notebooks"),
    (["--src", "empty", "--dest", "w"], "holds no notebooks"),
    (["--src", "ws/nb", "--dest", "ws"], "lies inside --dest"),
])
def test_bad_workspace_arguments_exit_2_with_one_message(tmp_path, args, says):
    (tmp_path / "loop").symlink_to("loop")
    (tmp_path / "empty").mkdir()
    (tmp_path / "ws" / "nb").mkdir(parents=True)
    (tmp_path / "ws" / "nb" / "00_x.ipynb").write_text("{}")
    r = subprocess.run([PY, "-m", "umkit.cli", "workspace", *args], capture_output=True,
                       text=True, env=ENV, cwd=tmp_path, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert says in r.stderr
