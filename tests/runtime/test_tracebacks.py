"""In IPython, umkit's typed errors show the learner's frames and the message, with umkit's own
frames left out and counted (issue 26's newcomer review: tracebacks showed 3-9 umkit frames
above the message)."""
from __future__ import annotations

import pytest

IPython = pytest.importorskip("IPython")
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402

import umkit  # noqa: E402
from umkit.errors import UmkitError  # noqa: E402
from umkit.runtime import tracebacks  # noqa: E402


@pytest.fixture()
def shell(monkeypatch):
    monkeypatch.delenv(tracebacks.ENV, raising=False)
    sh = InteractiveShell.instance()
    sh.set_custom_exc((), None)
    yield sh
    sh.set_custom_exc((), None)
    tracebacks.full(False)


def run(shell, code: str) -> str:
    with capture_output() as out:
        shell.run_cell(code)
    return out.stdout + out.stderr


CELL = ("import umkit\numkit.use('sim', quiet=True)\n"
        "def my_step():\n    return umkit.managed(-1)\nmy_step()\n")


def test_importing_umkit_in_ipython_installs_the_short_traceback(shell):
    run(shell, "import importlib, umkit; importlib.reload(umkit)")
    assert shell.custom_exceptions == (UmkitError,)


def test_the_learners_frames_and_the_message_stay_umkits_frames_go(shell):
    assert tracebacks.install(shell)
    text = run(shell, CELL)
    assert "InvalidArgument" in text and "my_step" in text          # the learner's frame
    assert "->" in text                                             # the hint, the fix
    assert "validate.py" not in text and "umkit/api.py" not in text
    assert "frames left out of this traceback" in text


def test_the_full_traceback_on_request(shell, monkeypatch):
    assert tracebacks.install(shell)
    monkeypatch.setenv(tracebacks.ENV, "1")
    text = run(shell, CELL)
    assert "validate.py" in text and "left out" not in text
    monkeypatch.delenv(tracebacks.ENV)
    tracebacks.full()
    assert "validate.py" in run(shell, CELL)
    with pytest.raises(umkit.InvalidType):
        tracebacks.full("yes")


def test_other_errors_and_other_handlers_are_left_alone(shell):
    assert tracebacks.install(shell)
    text = run(shell, "def f():\n    return 1 / 0\nf()\n")
    assert "ZeroDivisionError" in text and "left out" not in text
    shell.set_custom_exc((KeyError,), lambda *a, **k: None)
    assert not tracebacks.install(shell)                 # someone else's handler stays
    assert shell.custom_exceptions == (KeyError,)


def test_a_note_is_added_once_however_often_the_error_is_shown(shell):
    assert tracebacks.install(shell)
    run(shell, "import umkit\ntry:\n    umkit.managed(-1)\nexcept umkit.UmkitError as e:\n"
               "    saved = e\n")
    for _ in range(2):
        run(shell, "raise saved")
    err = shell.user_ns["saved"]
    assert sum("left out" in n for n in getattr(err, "__notes__", [])) == 1


def test_in_a_jupyter_kernel_the_error_output_is_the_short_one(tmp_path):
    """The same through a real kernel (nbclient), as a learner's notebook shows it."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CELL)])
    nbclient.NotebookClient(nb, timeout=120, allow_errors=True,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    err = [o for o in nb.cells[0].outputs if o.output_type == "error"]
    assert len(err) == 1 and err[0].ename == "InvalidArgument"
    text = "\n".join(err[0].traceback)
    assert "my_step" in text and "frames left out" in text and "validate.py" not in text
