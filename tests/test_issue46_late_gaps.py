"""Issue 46, the last gaps the hostile reviews named: the public ``touch`` refuses a stride no
array could have on every backend (not only in the simulator's kernel); ``umkit.plan.load``
says what a folder or a named pipe is instead of "no such file" (and never opens the pipe);
``umkit port-check --max-findings N`` shows at most N findings and says how to see them all."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

import umkit


def test_touch_refuses_a_stride_larger_than_any_array_before_any_backend_runs():
    umkit.use("sim", quiet=True)
    a = umkit.managed(1024)
    with pytest.raises(umkit.InvalidArgument) as ei:
        umkit.touch(a, 2 ** 64)
    assert ei.value.argument == "stride_bytes"
    a.free()


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_plan_load_names_a_folder_or_a_fifo(tmp_path, kind):
    from umkit import plan
    p = tmp_path / "x.json"
    if kind == "folder":
        p.mkdir()
    else:
        os.mkfifo(p)
    with pytest.raises(umkit.InvalidArgument) as ei:
        plan.load(p)                    # a FIFO opened for reading would wait for a writer
    msg = str(ei.value)
    assert ("folder" if kind == "folder" else "named pipe") in msg and "no such file" not in msg


def test_port_check_cli_max_findings(tmp_path):
    src = tmp_path / "a.cu"
    src.write_text("int main(){ float*p; cudaMallocManaged(&p,4);\n"
                   + "cudaMemPrefetchAsync(p,4,0,0);\n" * 5 + "}\n")
    env = dict(os.environ, UMKIT_BACKEND="sim", UMKIT_LANG="en")

    def run(*extra):
        return subprocess.run([sys.executable, "-m", "umkit.cli", "port-check", "a.cu", *extra],
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    full, cut, bad = run(), run("--max-findings", "2"), run("--max-findings", "-1")
    shown = lambda r: sum(1 for line in r.stdout.splitlines() if line.startswith("a.cu:"))
    assert shown(full) > 2 and shown(cut) == 2, (full.stdout, cut.stdout)
    assert "--max-findings 0 shows them all" in cut.stdout
    assert shown(run("--max-findings", "0")) == shown(full)
    assert bad.returncode == 2 and "--max-findings" in bad.stderr and "Traceback" not in bad.stderr


def test_a_step_time_near_the_float_limit_gives_its_mean_without_an_overflow_warning():
    """AT8: step times of 1e308 ms (within every limit) made the mean's sum overflow: a NumPy
    RuntimeWarning and an infinite step time."""
    import warnings

    from umkit.plan.replay import mean_ms
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mean_ms([1.0, 1e308, 1e308, 1e308]) == pytest.approx(1e308)
        assert mean_ms([9.0, 1.0, 2.0]) == 1.5


@pytest.mark.parametrize("call", [
    lambda: umkit.ecg.load("\ud800"),
    lambda: umkit.names.write_cuda_header("\ud800"),
    lambda: __import__("umkit.teaching.workspace", fromlist=["sync"]).sync(dest="\ud800"),
])
def test_a_path_holding_a_lone_surrogate_is_a_typed_error(call):
    """AT9: a lone surrogate (not an escaped byte) in a path gave UnicodeEncodeError."""
    with pytest.raises(umkit.InvalidArgument):
        call()


def test_a_teachers_message_and_a_prediction_name_never_reach_the_terminal_raw():
    """AT9: predict() printed a name's escape codes, a verdict its message's."""
    import numpy as np
    from umkit.exercises import failed, on_topic, predict
    shown = repr(failed("\x1b[31mmsg\nnext line"))
    assert "\x1b" not in shown and "\\x1b[31mmsg" in shown and "\nnext line" in shown
    with pytest.raises(umkit.InvalidArgument):
        predict("\x1b[31mred", {"a": 1.0})
    assert on_topic("because the pages move", np.array([])) is True   # no truth-value error


def _saved_run() -> dict:
    """A recorded run of three steps, as RecordResult.to_dict() gives it."""
    umkit.use("sim", quiet=True)
    with umkit.ecg.recorder("a") as rec:
        for _ in range(3):
            umkit.increment(umkit.managed(256))
            rec.step()
    return rec.result().to_dict()


def _refused_with(good: dict, field: tuple, value) -> None:
    """``good`` with ``field`` (a path of keys) set to ``value`` is refused, typed."""
    import json
    d = json.loads(json.dumps(good))
    node = d
    for k in field[:-1]:
        node = node[k]
    node[field[-1]] = value
    with pytest.raises(umkit.InvalidArgument):
        umkit.ecg.RecordResult.from_dict(d)


def test_at10_loaders_refuse_numbers_beyond_float_range_and_bounds(tmp_path):
    """AT10: 10**400 in a saved run's step time or counters, or a plan's step times, raised
    OverflowError; a plan accepted 10**400 bytes moved and its table() then crashed."""
    good = _saved_run()
    for field, value in ((("steps", 1, "ms"), 10**400), (("steps", 1, "ms"), 1e308),
                         (("steps", 1, "step"), 10**400), (("counters", "x"), 10**400),
                         (("strategy",), 10**400)):
        _refused_with(good, field, value)
    from umkit.plan.result import number, whole
    for call in (lambda: number(10**400, "step_ms[0]"), lambda: whole(10**400, "bytes_h2d")):
        with pytest.raises(umkit.InvalidArgument):
            call()


def test_at10_public_constructors_and_helpers_refuse_bad_values():
    import numpy as np
    b = umkit.use("sim", quiet=True)
    with pytest.raises(umkit.InvalidType):
        umkit.Array(b, b.malloc(4096, "managed", 0), 4096, (1024,), "float32", "managed", 0,
                    release=np.zeros(2))
    with pytest.raises(umkit.InvalidArgument):
        umkit.Array(b, b.malloc(4096, "managed", 0), 2**63, (1024,), "float32", "managed", 0)
    pool = umkit.MemoryPool()
    for call in (lambda: pool.attach(-1, umkit.managed(4)), lambda: pool.free(0, kind=object()),
                 lambda: pool.note(0, advice=[[1]])):
        with pytest.raises((umkit.InvalidArgument, umkit.InvalidType)):
            call()
    with pytest.raises((umkit.InvalidArgument, umkit.InvalidType)):
        umkit.exercises.column_title("a\x1b[2Jb")
    with pytest.raises(umkit.InvalidArgument):
        umkit.ecg.check({}, name="a\x1b[2Jb")
    umkit.widgets.panel(run=np.empty(0), static=True)
    names = __import__("importlib").import_module("umkit.names")   # as `import umkit.names`
    assert names.cuda_to_hip("cudaFree") == "hipFree" and names is umkit.names


def test_at11_loaders_refuse_a_lone_surrogate_in_a_text_field():
    """AT11: a saved run or plan whose text field held "\\ud800" loaded, and plotting it then
    raised a raw TypeError."""
    good = _saved_run()
    for field in (("steps", 0, "note"), ("backend",)):
        _refused_with(good, field, "\ud800")
    from umkit.plan.result import words
    with pytest.raises(umkit.InvalidArgument):
        words("\ud800", "buffers[0].name")


def test_at12_a_loaders_error_names_the_path_and_epoch_loop_its_n(tmp_path):
    """AT12: ecg.load / plan.load of a JSON file that is no run named an argument 'd' the
    caller never passed; epoch_loop(n=2**31) named 'out'."""
    f = tmp_path / "x.json"
    f.write_text('{"a": 1}')
    for load in (umkit.ecg.load, umkit.plan.load):
        with pytest.raises(umkit.InvalidArgument) as e:
            load(str(f))
        assert e.value.argument == "path"
    with pytest.raises(umkit.InvalidArgument) as e:
        umkit.workloads.epoch_loop(n=2**31)
    assert e.value.argument == "n"
