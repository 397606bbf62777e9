"""Issue 46, what the attacker's round AT5 left, each test failing before its fix:

- a NumPy scalar given as a dtype is refused (it was read as its type);
- ``ecg.traces.read(step=...)`` takes a label, not a text of any length;
- ``umkit ecg --every`` out of range answers in the CLI's spelling;
- an output path under a file says the file is in the way (not "folder does not exist");
- ``bash run.sh ecg`` with a file named ``artifacts`` says so and exits 2;
- a plan or run file that is not one is said in Chinese to a Chinese learner;
- the simulator's out-of-memory figure under ``ulimit -v`` is what the process may still map, and
  memory the system refuses though it looked free is said so (not "can give" more than asked)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import umkit
from umkit import cli
from umkit.ecg import traces
from umkit.errors import InvalidArgument, InvalidType

ROOT = Path(__file__).resolve().parents[1]


pytestmark = pytest.mark.usefixtures("sim_english")


@pytest.mark.parametrize("value", [np.float32(1.0), np.int64(3), np.array([1.0]), 1j])
def test_a_numpy_scalar_or_array_is_not_a_dtype(value):
    with pytest.raises(InvalidType) as e:
        umkit.managed(4, dtype=value)
    assert e.value.argument == "dtype"


def test_a_dtype_still_takes_names_types_and_dtypes():
    for dt in ("float32", np.float32, np.dtype("float32")):
        with umkit.managed(4, dtype=dt) as a:
            assert a.dtype == np.float32


def test_the_step_name_of_a_profiler_file_is_a_label(tmp_path):
    f = tmp_path / "run.json"
    f.write_text("{}")
    with pytest.raises(InvalidArgument) as e:
        traces.read(f, step="s" * 5000)
    assert e.value.argument == "step" and "5000 characters" in str(e.value)
    with pytest.raises(InvalidArgument) as e:
        traces.read(f, step="step\x1b[2J")
    assert e.value.argument == "step"


def test_every_out_of_range_is_said_as_the_option(capsys):
    assert cli.main(["ecg", "--every", str(10**30)]) == 2
    err = capsys.readouterr().err
    assert "--every=" in err and " every=" not in err and "e.g. every=" not in err
    assert "--every between 1 and" in err


def test_an_output_path_under_a_file_names_the_file(tmp_path, capsys):
    (tmp_path / "f").write_text("x")
    for target in (tmp_path / "f" / "x.json", tmp_path / "f" / "deeper" / "x.json"):
        assert cli.main(["ecg", "--json", str(target)]) == 2
        err = capsys.readouterr().err
        assert "is a file, not a folder" in err and "does not exist" not in err
    assert cli.main(["ecg", "--json", str(tmp_path / "g" / "x.json")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_run_sh_ecg_with_a_file_named_artifacts_says_so(tmp_path):
    shutil.copy(ROOT / "run.sh", tmp_path / "run.sh")
    shutil.copytree(ROOT / "scripts", tmp_path / "scripts")
    (tmp_path / "artifacts").write_text("mine")
    env = {**os.environ, "UMKIT_VENV": str(Path(sys.executable).parents[1]),
           "UMKIT_SKIP_INSTALL": "1"}
    r = subprocess.run(["bash", str(tmp_path / "run.sh"), "ecg"], capture_output=True, text=True,
                       env=env, timeout=120, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "'artifacts' here is a file, not a folder" in r.stderr
    assert (tmp_path / "artifacts").read_text() == "mine"


@pytest.mark.parametrize("doc, english", [
    ({}, "not a recorded plan"),
    ({"format": "umkit.plan/1", "buffers": "x"}, "not a recorded plan"),
    ([1], "holds no recorded plan"),
    ("notjson", "is not JSON"),
])
def test_a_file_that_is_no_plan_is_said_in_chinese(tmp_path, doc, english):
    f = tmp_path / "p.json"
    f.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    umkit.use("sim", quiet=True, lang="zh")
    with pytest.raises(InvalidArgument) as e:
        umkit.plan.load(f)
    said = str(e.value)
    assert english not in said and "PlanResult.save()" in said and "传入" in said, said


def test_the_oom_figure_is_what_this_process_may_still_map_under_ulimit_v():
    """Under ``ulimit -v`` the simulator's out-of-memory figure is what the process may still map,
    not the machine's MemAvailable: an allocation over it is refused with that figure, one under
    it is made."""
    code = """
import os, resource
import umkit
umkit.use("sim", quiet=True)
from umkit.errors import OutOfMemory
from umkit.sim import pages
used = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
resource.setrlimit(resource.RLIMIT_AS, (used + (1 << 30), resource.RLIM_INFINITY))
try:
    umkit.managed(2 << 30, dtype="uint8")
    print("made")
except OutOfMemory as e:
    print("free", e.free, "can give" in str(e))
a = umkit.managed(128 << 20, dtype="uint8")
print("small made", a.nbytes)
"""
    env = dict(os.environ, UMKIT_BACKEND="sim", UMKIT_LANG="en")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    first, second = out.stdout.strip().splitlines()
    word, free, said = first.split()
    assert word == "free" and 0 < int(free) <= 1 << 30 and said == "True", out.stdout
    assert second == f"small made {128 << 20}"


def test_memory_the_system_refuses_though_it_looked_free_is_said_so(monkeypatch):
    from umkit.errors import OutOfMemory
    from umkit.sim import pages

    class RefusingNumPy:                 # the system says no although the figure said yes
        uint8 = np.uint8

        @staticmethod
        def zeros(*a, **k):
            raise MemoryError

    monkeypatch.setattr(pages, "machine_memory", lambda: 64 << 30)
    monkeypatch.setattr(pages, "np", RefusingNumPy)
    with pytest.raises(OutOfMemory) as e:
        pages.backing_bytes(1 << 20, "managed", 0, False)
    assert "refused them (MemoryError)" in str(e.value) and "64.00 GiB looked free" in str(e.value)
    assert "can give" not in str(e.value) and e.value.requested == 1 << 20


def test_examples_header_exit_codes_follow_the_cli(tmp_path, monkeypatch, capsys):
    """``python -m umkit.examples``: 2 for a bad argument (a folder that cannot be one), 1 when the
    action failed (the header could not be written: a full disk), as ``umkit``'s own CLI."""
    from umkit.results.files import WriteFailed
    from umkit.teaching import examples
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert examples.main(["header", str(blocker)]) == 2

    def full_disk(path):
        raise WriteFailed(f"include_dir={str(path)!r} could not be written (No space left on "
                          "device); nothing was written", argument="include_dir")
    monkeypatch.setattr(examples.names, "write_cuda_header", full_disk)
    assert examples.main(["header", str(tmp_path / "inc")]) == 1
    assert "No space left on device" in capsys.readouterr().err


def test_calibrate_measured_file_text_reaches_no_terminal_raw():
    """AT8 #4: calibrate --compare --measured FILE printed the file's device, backend, workload
    and skipped names as they were, terminal escapes included."""
    from umkit.measure import calibrate
    from umkit.measure.validation_set import workloads_list
    good = {"backend": "cuda", "device": "NVIDIA H100", "fit": {"w": 1.0},
            "validation": {workloads_list()[0].name: 1.0}, "skipped": []}
    assert calibrate.check_measured(dict(good)) is not None
    for field, value in (("device", "\x1b]0;T\x07\x1b[31m"), ("backend", "cu\x1bda"),
                         ("skipped", ["a\x1b[2J"]), ("fit", {"w\x1b[31m": 1.0})):
        m = dict(good, **{field: value})
        with pytest.raises(InvalidArgument) as e:
            calibrate.check_measured(m)
        assert field in str(e.value) and "\x1b" not in str(e.value), (field, str(e.value))


def test_a_plan_recorder_used_before_its_with_block_says_so():
    """AT8 #6: rec.begin(), finish(), on_step(), same_backend() before the `with` raised
    AttributeError; ``instrumented`` is False until a step begins."""
    from umkit.runtime.lang import tr
    rec = umkit.plan.recorder()
    assert rec.instrumented is False
    for call in (rec.begin, rec.finish, rec.same_backend, lambda: rec.on_step(None)):
        with pytest.raises(InvalidArgument) as e:
            call()
        assert "before its `with` block" in str(e.value) and "with umkit.plan.recorder()" in \
            e.value.hint
        assert "之前被调用" in tr(str(e.value).splitlines()[0], "zh")


def test_examples_header_prints_the_path_it_wrote_without_escapes(tmp_path, capsys):
    """AT8: `python -m umkit.examples header DIR` echoed DIR's control characters raw."""
    from umkit.teaching import examples
    odd = tmp_path / "in\x1b[31mc"
    assert examples.main(["header", str(odd)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b" in out and "hip_runtime.h" in out
    assert (odd / "hip" / "hip_runtime.h").is_file()


def test_umkit_plan_never_writes_its_json_over_the_recording_it_reads(tmp_path, capsys):
    """AT8: `umkit plan rec.json --json rec.json --force` replaced its own input."""
    from umkit.runtime.lang import tr
    with umkit.plan.recorder() as rec:
        a = umkit.managed(1 << 16)
        for _ in range(3):
            umkit.touch(a)
            rec.step()
    path = tmp_path / "rec.json"
    rec.result().save(str(path))
    before = path.read_bytes()
    for target in (str(path), str(tmp_path / "." / "rec.json")):
        assert cli.main(["plan", str(path), "--json", target, "--force"]) == 2
        err = capsys.readouterr().err
        assert "is the recording being read" in err, err
    assert path.read_bytes() == before
    assert "正是要读取的那份录制" in tr(f"--json {path} is the recording being read: writing it "
                                   "would replace the recording", "zh")
    assert cli.main(["plan", str(path), "--json", str(tmp_path / "advice.json")]) == 0
