"""recommend(workers>1) spawns worker processes, and a spawned process imports the parent's
script again: a script without ``if __name__ == "__main__":`` would run all of its work again
in every worker (and fail in Python's bootstrapping phase).  There it replays one plan at a time
and says why; a guarded script gets its workers."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REC = sorted(ROOT.glob("benchmarks/results/*/plan_validate/plan_recording.json"))[-1]

UNGUARDED = f"""import umkit.plan
r = umkit.plan.load({str(REC)!r})
print("calling", flush=True)
a = r.recommend(workers=2, steps=2)
print("done", a.replays, flush=True)
"""

GUARDED = f"""import umkit.plan
from umkit.plan import advice

def main():
    r = umkit.plan.load({str(REC)!r})
    print("calling", advice.main_is_guarded(), flush=True)
    a = r.recommend(workers=2, steps=2)
    print("done", a.replays, flush=True)

if __name__ == "__main__":
    main()
"""


def run(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    return subprocess.run([sys.executable, "-W", "default", name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, UMKIT_BACKEND="sim", PYTHONHASHSEED="0"))


def test_an_unguarded_script_is_not_run_again_and_is_told_why(tmp_path):
    r = run(tmp_path, "loop.py", UNGUARDED)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.count("calling") == 1, r.stdout            # the script ran once
    assert "bootstrapping" not in r.stderr and "Traceback" not in r.stderr, r.stderr[-3000:]
    assert "no 'if __name__ == \"__main__\":' guard" in r.stderr, r.stderr[-3000:]
    assert "loop.py:4" in r.stderr                              # points at the user's call
    assert "done" in r.stdout


def test_a_guarded_script_gets_its_workers_and_the_same_answer(tmp_path):
    r = run(tmp_path, "loop.py", GUARDED)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "calling True" in r.stdout and r.stdout.count("calling") == 1, r.stdout
    assert "guard" not in r.stderr, r.stderr[-3000:]
    u = run(tmp_path, "plain.py", UNGUARDED)
    assert r.stdout.split("done")[1] == u.stdout.split("done")[1]   # the same replays


def test_what_counts_as_guarded(tmp_path, monkeypatch):
    import types

    from umkit.plan.advice import main_is_guarded
    cases = {
        "if __name__ == '__main__':\n    main()\n": True,
        "if '__main__' == __name__:\n    main()\n": True,
        "main()\n": False,
        "def f():\n    if __name__ == '__main__':\n        pass\n": False,   # not at the top
        "this is not python(\n": False,
    }
    for i, (src, want) in enumerate(cases.items()):
        p = tmp_path / f"s{i}.py"
        p.write_text(src)
        mod = types.ModuleType("__main__")
        mod.__file__, mod.__spec__ = str(p), None
        monkeypatch.setitem(sys.modules, "__main__", mod)
        assert main_is_guarded() is want, src
    mod = types.ModuleType("__main__")                  # an interactive session, a notebook
    monkeypatch.setitem(sys.modules, "__main__", mod)
    assert main_is_guarded() is True
