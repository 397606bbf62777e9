"""Issue 46: Ctrl-C while ``import umkit`` runs (its first ~0.2 s) ends the command line -- the
``umkit`` script and ``python -m umkit.cli`` -- with one line and exit status 130, as Ctrl-C
during a command does; imported anywhere else (a notebook's kernel, a script) the interrupt is
still Python's KeyboardInterrupt.

The interrupt is sent once umkit's import is under way: the child runs with ``-X importtime``,
which writes a line as each module finishes importing, so the line of ``umkit.errors`` (among
the first modules umkit imports) means the package itself is still importing.  The child may
have got past the import by the time the signal lands; then the command's own handler answers
(one line, status 130, saying nothing of starting), or it has finished (exit 0): each try is
judged, and at least one of the tries must land inside the import."""
import os
import shutil
import signal
import subprocess
import sys

import pytest

MARKER = "umkit.errors"
TRIES = 4


def interrupt_during_import(cmd, cwd):
    """Run ``cmd`` (``-X importtime`` added), send SIGINT once umkit is importing; returns
    (exit status, stderr without the import-time lines)."""
    env = dict(os.environ, UMKIT_BACKEND="sim", PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, "-X", "importtime", *cmd], cwd=cwd, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen = []
    try:
        for line in p.stderr:
            seen.append(line)
            if MARKER in line:
                break
        p.send_signal(signal.SIGINT)
        _, rest = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    lines = seen + rest.splitlines(keepends=True)
    return p.returncode, "".join(ln for ln in lines if not ln.startswith("import time:"))


def commands():
    out = [("python -m umkit.cli", ["-m", "umkit.cli", "doctor"])]
    script = shutil.which("umkit", path=os.path.dirname(sys.executable))
    if script:
        out.append(("umkit script", [script, "doctor"]))
    return out


@pytest.mark.parametrize("name, cmd", commands(), ids=[n for n, _ in commands()])
def test_ctrl_c_while_the_command_line_imports_umkit_is_one_line_and_130(name, cmd, tmp_path):
    inside = 0
    for _ in range(TRIES):
        rc, err = interrupt_during_import(cmd, tmp_path)
        assert "Traceback" not in err and "KeyboardInterrupt" not in err, (name, rc, err)
        if rc == 0:                     # finished before the signal came: nothing to judge
            continue
        assert rc == 130, (name, rc, err)
        said = [ln for ln in err.splitlines() if ln.strip()]
        assert len(said) == 1 and "interrupted (Ctrl-C)" in said[0], (name, err)
        inside += "while starting" in said[0]     # the import's line, not the command's
    assert inside, f"{name}: no interrupt landed inside umkit's import in {TRIES} tries"


def test_ctrl_c_while_a_program_imports_umkit_is_still_keyboardinterrupt(tmp_path):
    """A notebook's kernel or a user's script: umkit's import does not take over Ctrl-C."""
    for _ in range(TRIES):
        rc, err = interrupt_during_import(["-c", "import umkit"], tmp_path)
        if rc == 0:
            continue
        assert "KeyboardInterrupt" in err and "Traceback" in err, err
        assert rc in (-signal.SIGINT, 128 + signal.SIGINT, 1), (rc, err)
        return
    pytest.fail("import umkit finished before any interrupt landed")


CHILD = """import signal
import umkit.cli
print(bool(getattr(signal.getsignal(signal.SIGINT), "umkit_import_guard", False)))
try:
    umkit.cli.main(["doctor", "--help"])
except SystemExit:
    pass
print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)
"""


@pytest.mark.parametrize("script, guarded", [("umkit", True), ("my_script.py", False)])
def test_the_guard_holds_only_until_the_command_starts(tmp_path, script, guarded):
    """Run as the ``umkit`` script, the import guard is in place until ``cli.main`` starts,
    which puts Python's own handler back; any other program never gets it."""
    (tmp_path / script).write_text(CHILD)
    r = subprocess.run([sys.executable, script], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, UMKIT_BACKEND="sim"))
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.split()
    assert lines[0] == str(guarded) and lines[-1] == "True", r.stdout[-2000:]


def test_the_guard_runs_before_anything_else_the_package_imports():
    """The window in which Ctrl-C still prints Python's traceback ends where the guard is set:
    ``umkit/__init__.py`` sets it before its first import other than ``sys``, and with the
    interpreter's ``_signal`` (the ``signal`` module would first import ``enum``)."""
    import ast
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "umkit" / "__init__.py"
    tree = ast.parse(path.read_text())
    body = [n for n in tree.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    guard = next(i for i, n in enumerate(body) if isinstance(n, ast.Expr)
                 and isinstance(n.value, ast.Call) and getattr(n.value.func, "id", "") == "_command_line_guard")
    before = [n for n in body[:guard] if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert [a.name for n in before for a in n.names] == ["sys"], before
    fn = next(n for n in body if isinstance(n, ast.FunctionDef) and n.name == "_command_line_guard")
    inner = {a.name for n in ast.walk(fn) if isinstance(n, ast.Import) for a in n.names}
    assert "_signal" in inner and "signal" not in inner, inner
