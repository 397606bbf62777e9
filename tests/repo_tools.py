"""A fresh copy of the repository's files, as a clone would have them: the tests that run
``bash run.sh ...`` or build from the repository do so on a copy, never on the checkout."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_repo(dst: Path) -> Path:
    """The tracked and untracked-not-ignored files (git ls-files), else the tree less build
    outputs and caches when git is missing."""
    try:
        files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                               cwd=ROOT, check=True, capture_output=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        shutil.copytree(ROOT, dst, ignore=shutil.ignore_patterns(
            ".git", ".venv", ".hub", "*.egg-info", "__pycache__", ".pytest_cache", "build", "dist",
            ".whl"))
        return dst
    for f in filter(None, files):
        s = ROOT / f
        if s.is_file():
            (dst / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(s, dst / f)
    return dst


def stop_group(proc: subprocess.Popen, grace: float = 30) -> None:
    """End a command started with ``start_new_session=True`` and everything it started: SIGTERM
    to its process group, SIGKILL after ``grace`` seconds."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def fresh_exercises(body: str, budget: str | None = "2") -> str:
    """Run ``body`` in a fresh Python with UMKIT_EXERCISE_ATTEMPTS=``budget`` (None: unset) set
    before it starts -- the exercises' attempts budget is read once, at import, so a test of it
    needs its own process.  ``body`` sees os, umkit (on sim), exercises, nb01, ``right`` (01's
    right answer) and ``spend(k0=0)`` (the budget's wrong tries); the waits' clock moves an hour at
    each reading (a test of the waits sets ``exercises.grading._clock`` itself); ``solution(stem)`` gives
    an official solution's names and ``diagnosis_now()`` 09's answer for the set this process has
    open (a learner's process opens a set of its own).  Returns its stdout."""
    import sys
    import textwrap
    env = {k: v for k, v in os.environ.items() if k != "UMKIT_EXERCISE_ATTEMPTS"}
    env["UMKIT_BACKEND"] = "sim"
    if budget is not None:
        env["UMKIT_EXERCISE_ATTEMPTS"] = budget
    code = textwrap.dedent("""
        import os
        import umkit
        umkit.use("sim", quiet=True)
        from umkit.teaching import exercises
        from umkit.teaching.exercises import nb01
        right = lambda n, b: -(-n // b)
        _now = [0.0]
        def _ticking():   # each reading an hour on: the waits past the budget hold no test up
            _now[0] += 3600.0
            return _now[0]
        exercises.grading._clock = _ticking
        import runpy
        def solution(stem):     # an official solution's names (notebooks/solutions/STEM.py)
            return runpy.run_path(f"notebooks/solutions/{stem}.py")
        def diagnosis_now():    # 09's answer for the set this process has open
            from umkit.teaching.exercises import nb09
            return solution("09_troubleshooting_and_ecg")["diagnosis_for"](nb09.DIAGNOSIS_SET.names)
        def spend(k0=0):
            for k in range(exercises.attempts_budget()):
                v = nb01.check_transitions(lambda n, b, k=k: n + k0 + k)
                assert not v.ok and "not graded" not in v.message, v
        """) + textwrap.dedent(body)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env=env, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def lines_run(fn, folder) -> int:
    """Lines of code under ``folder`` that ``fn()`` executes: counted work, the same on every
    machine (no timing), for tests that a reader stays linear."""
    import sys
    here = str(folder)
    count = 0

    def local(frame, event, arg):
        nonlocal count
        count += event == "line"
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code.co_filename.startswith(here) else None
    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return count
