"""Issue 46, the command line: exit 2 for bad usage or a bad argument, 1 for a failed action,
130 with one line for Ctrl-C; paths and values holding escape codes are shown escaped."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

import umkit
from umkit import cli

PY = sys.executable
ENV = dict(os.environ, UMKIT_BACKEND="sim", PYTHONHASHSEED="0")
QUICK = ["ecg", "--steps", "2", "--size", "1", "--strategies", "device", "--quiet"]


def run(argv, capsys):
    rc = cli.main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture(autouse=True)
def _here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("UMKIT_BACKEND", "sim")
    yield
    umkit.use("sim", quiet=True)


def test_unknown_profile_is_bad_usage(capsys):
    rc, _, err = run(QUICK + ["--profile", "nosuch"], capsys)
    assert rc == 2 and err.startswith("umkit ecg: ") and "nosuch" in err
    assert "Traceback" not in err


def test_escape_codes_in_a_path_are_shown_escaped(capsys, tmp_path):
    bad = "out\x1b[2J\x1b[31m.txt"
    rc, _, err = run(QUICK + ["--json", bad], capsys)
    assert rc == 2 and "\x1b" not in err and "\\x1b[2J" in err
    rc, _, err = run(QUICK + ["--json", "a\nFAKE LINE\x07.txt"], capsys)
    assert rc == 2 and "\x07" not in err
    assert not [line for line in err.splitlines() if line.startswith("FAKE")], err


def test_wrote_lines_escape_the_path(capsys, tmp_path):
    name = "e\x1b[31m.json"
    rc, out, err = run(QUICK + ["--json", name], capsys)
    assert rc == 0, err
    assert (tmp_path / name).exists() and "\x1b" not in out and "wrote e\\x1b[31m.json" in out


def test_a_failed_action_is_1(capsys, monkeypatch):
    from umkit.results import files

    def full(*a, **k):
        raise files.WriteFailed("--json='e.json' could not be written (No space left on device)",
                                argument="--json", path="e.json", code=28)
    monkeypatch.setattr(files, "write_all", full)
    rc, _, err = run(QUICK + ["--json", "e.json"], capsys)
    assert rc == 1 and "could not be written" in err


def test_ctrl_c_inside_a_command_is_one_line_and_130(capsys, monkeypatch):
    from umkit import ecg

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(ecg, "record", interrupted)
    rc, _, err = run(QUICK, capsys)
    assert rc == 130 and "Traceback" not in err
    assert [line for line in err.splitlines() if line.strip()] == [
        "umkit ecg: interrupted (Ctrl-C); files being written were left as they were"]


@pytest.mark.slow
def test_ctrl_c_during_a_real_run_is_one_line_and_130(tmp_path):
    p = subprocess.Popen([PY, "-X", "importtime", "-c", "import sys, umkit.cli; sys.exit(umkit.cli"
                          ".main())", "ecg", "--steps", "100000", "--size", "1", "--strategies",
                          "device", "--quiet"], cwd=tmp_path, env=ENV, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    for line in p.stderr:              # -X importtime: the sim backend is being made, however slowly
        if line.rstrip().endswith("umkit.sim.views"):
            break
    else:
        raise AssertionError("the sim backend was never imported")
    time.sleep(2)                      # inside the run (100,000 steps)
    p.send_signal(signal.SIGINT)
    out, rest = p.communicate(timeout=120)
    err = "".join(ln for ln in rest.splitlines(keepends=True) if not ln.startswith("import time:"))
    assert p.returncode == 130, err
    assert "Traceback" not in err and len([x for x in err.splitlines() if x.strip()]) == 1, err


def test_workspace_whose_writes_fail_is_not_0(tmp_path):
    src = tmp_path / "nb"
    src.mkdir()
    (src / "00.ipynb").write_text('{"cells": [{"cell_type": "markdown", "id": "a", "metadata": {},'
                                  ' "source": "' + "x" * 20000 + '"}], "metadata": {}, '
                                  '"nbformat": 4, "nbformat_minor": 5}')
    code = ("import resource, signal, sys; signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
            "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096)); "
            "from umkit.cli import main; sys.exit(main(sys.argv[1:]))")
    r = subprocess.run([PY, "-c", code, "workspace", "--src", str(src), "--dest",
                        str(tmp_path / "ws"), "--quiet"], env=ENV, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "skipped" in r.stderr and "Traceback" not in r.stderr


def test_workspace_dest_dev_full_is_not_0(capsys, tmp_path):
    src = tmp_path / "nb"
    src.mkdir()
    (src / "00.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, '
                                  '"nbformat_minor": 5}')
    rc, _, err = run(["workspace", "--src", str(src), "--dest", "/dev/full", "--quiet"], capsys)
    assert rc == 2 and "dest" in err and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.skipif(not (os.path.exists("/usr/local/bin/nvcc") or
                         __import__("shutil").which("nvcc") or __import__("shutil").which("hipcc")),
                    reason="no compiler: python -m umkit.examples build has nothing to run")
@pytest.mark.parametrize("after", [0.3, 1.5])
def test_ctrl_c_during_an_examples_build_is_one_line_and_130(tmp_path, after):
    # AT4: a KeyboardInterrupt traceback through the build threads' shutdown, 14-28 lines
    import shutil
    vendor = "nvidia" if (shutil.which("nvcc") or os.path.exists("/usr/local/bin/nvcc")) else "amd"
    p = subprocess.Popen([PY, "-m", "umkit.examples", "build", "--vendor", vendor, "--out",
                          str(tmp_path / "b")], cwd=tmp_path, env=ENV, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    # the build has begun once it made its output folder (before that, on a loaded machine,
    # Python may still be importing umkit: a Ctrl-C there is Python's own, not the build's)
    deadline = time.monotonic() + 60
    while not (tmp_path / "b").exists():
        assert p.poll() is None, p.communicate()
        assert time.monotonic() < deadline, "the build never made its output folder"
        time.sleep(0.02)
    time.sleep(after)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    lines = [x for x in err.splitlines() if x.strip()]
    assert p.returncode == 130, (p.returncode, err)
    assert "Traceback" not in err and len(lines) == 1, err
