"""Ctrl-C during a long command ends it with one line and exit status 130 wherever it lands --
inside a finalizer too (a stream or an event the garbage collector releases), where Python
itself would print "Exception ignored in ..." with a traceback and go on running."""
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, UMKIT_BACKEND="sim", PYTHONHASHSEED="0", PYTHONUNBUFFERED="1")

# A command whose run meets an interrupt raised inside a finalizer (as a Ctrl-C that lands
# while sim releases a collected umkit.Event), then keeps running for a long while.
SWALLOWED = """import sys, time, weakref
import umkit.cli, umkit.ecg

class Held:
    pass

def released():
    raise KeyboardInterrupt          # what a Ctrl-C landing in the finalizer raises there

def record(**kw):
    h = Held()
    weakref.finalize(h, released)
    del h                            # collected now: the finalizer runs, its interrupt is lost
    t = time.monotonic()
    while time.monotonic() - t < 30:  # the long run goes on
        sum(range(1000))
    print("RAN TO THE END")
    return {}

umkit.ecg.record = record
sys.exit(umkit.cli.main(["ecg", "--steps", "5", "--size", "1", "--quiet"]))
"""


def one_line_130(rc, err):
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == 130, (rc, err[-3000:])
    assert "Traceback" not in err and "Exception ignored" not in err, err[-3000:]
    assert len(lines) == 1 and "interrupted (Ctrl-C)" in lines[0], err[-3000:]


def test_an_interrupt_lost_in_a_finalizer_still_ends_the_command(tmp_path):
    (tmp_path / "umkit").write_text(SWALLOWED)      # run as the command line
    t = time.monotonic()
    r = subprocess.run([sys.executable, "umkit"], cwd=tmp_path, env=ENV, capture_output=True,
                       text=True, timeout=120)
    assert "RAN TO THE END" not in r.stdout
    one_line_130(r.returncode, r.stderr)
    assert time.monotonic() - t < 25


def test_called_from_python_the_hook_is_put_back():
    import umkit.cli
    before = sys.unraisablehook
    with pytest.raises(SystemExit):
        umkit.cli.main(["plan", "--help"])
    assert sys.unraisablehook is before
    assert umkit.cli.main(["ecg", "--steps", "0"]) == 2
    assert sys.unraisablehook is before


def long_plan(tmp_path):
    recs = sorted(ROOT.glob("benchmarks/results/*/plan_validate/plan_recording.json"))
    return ["plan", str(recs[-1])]


#: the console script pip made (``umkit = umkit.cli:main``)
SCRIPT = shutil.which("umkit", path=os.path.dirname(sys.executable))


def interrupt(args, cwd, when):
    """Run the ``umkit`` script with ``args``, send SIGINT ``when`` seconds after umkit.cli is imported
    (``-X importtime`` says when; Python's own start-up, before any umkit code runs, is left
    out); returns (exit status, stderr without the import-time lines)."""
    p = subprocess.Popen([sys.executable, "-X", "importtime", SCRIPT, *args],
                         cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    seen = []
    try:
        for line in p.stderr:
            seen.append(line)
            if line.rstrip().endswith("| umkit.cli"):
                break
        else:
            raise AssertionError("umkit.cli was never imported: " + "".join(seen)[-2000:])
        time.sleep(when)
        p.send_signal(signal.SIGINT)
        _, rest = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    lines = seen + rest.splitlines(keepends=True)
    return p.returncode, "".join(ln for ln in lines if not ln.startswith("import time:"))


@pytest.mark.slow
@pytest.mark.skipif(SCRIPT is None, reason="the umkit console script is not installed")
@pytest.mark.parametrize("which", ["ecg", "plan"])
def test_ctrl_c_at_several_moments_is_one_line_and_130_every_time(which, tmp_path):
    """SIGINT at moments from the start of the command to the middle of its run, each a few
    times (the runs side by side, so that the moments fall differently each time)."""
    import concurrent.futures as cf
    args = (["ecg", "--steps", "100000", "--size", "8", "--quiet"] if which == "ecg"
            else long_plan(tmp_path))
    moments = [0.0, 0.3, 0.8, 1.5, 2.5] * 2
    with cf.ThreadPoolExecutor(len(moments)) as ex:
        runs = list(ex.map(lambda w: interrupt(args, tmp_path, w), moments))
    for when, (rc, err) in zip(moments, runs):
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert rc == 130, (when, rc, err[-3000:])
        assert "Traceback" not in err and "Exception ignored" not in err, (when, err[-3000:])
        assert len(lines) == 1 and "interrupted (Ctrl-C)" in lines[0], (when, err[-3000:])
