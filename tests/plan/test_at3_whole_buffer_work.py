"""A replay's work counts what the plans add to the recording: advice and prefetches over every
page of a buffer (managed+advice, managed+advice-cpu) and the prefetch of a whole buffer before
each step's kernels (managed+prefetch, managed+advice).  A 1.7 KB recording of two 128 GiB
buffers and 30 steps, each touching one page, ran minutes and took over a GiB; it is refused up
front, with a typed error that says what to do."""
import json
import os
import subprocess
import sys
import time

import pytest

import umkit
import umkit.plan
from umkit.errors import InvalidArgument
from umkit.plan import replay as R

GiB = 1 << 30


def one_page_a_step(nbuf: int, gib: float, steps: int, cpu: bool = False) -> dict:
    """``nbuf`` managed buffers of ``gib`` GiB; each step one kernel a buffer touching one page
    (and, with ``cpu``, a CPU touch of buffer 0 and a second kernel on it)."""
    size = int(gib * GiB)
    buf = dict(role="array", kind="managed", nbytes=size, born=0, died=None, instances=1,
               gpu_ops=1, cpu_ops=0, hints={}, inferred="",
               moved=dict(bytes_h2d=0, bytes_d2h=0, gpu_faults=0, cpu_faults=0, remote_bytes=0,
                          prefetch_bytes_h2d=0, prefetch_bytes_d2h=0, evicted_bytes=0))
    ops = [["gpu", 1.0e3, "launch_overhead", [[i, 1, 0, 0, 4096, True]]] for i in range(nbuf)]
    if cpu:
        ops += [["cpu", 0.0, "", [[0, 1, 0, 0, 4096, False]]],
                ["gpu", 1.0e3, "launch_overhead", [[0, 1, 0, 0, 4096, True]]]]
    return dict(backend="sim", device="sim", profile="h200-pcie5", steps=steps,
                step_ms=[1.0] * steps,
                buffers=[dict(buf, id=i, name=f"buf{i}") for i in range(nbuf)],
                patterns=[ops], step_pattern=[0] * steps, notes=[],
                meta=dict(name="one page a step", instrumented=[1] * steps,
                          instrument_warmup=2, instrumentation="sim's own accounting"),
                format="umkit.plan/1")


def test_the_work_counts_hints_and_every_whole_buffer_prefetch():
    pages = (1 << 20) // 4096                        # 1 MiB buffers
    r = umkit.plan.PlanResult.from_dict(one_page_a_step(2, 1 / 1024, 3))
    # three passes of hints over each buffer, then each step a prefetch of each
    assert R.whole_buffer_work(r, 3) == (2 * 3 * pages + 3 * 2 * pages, 3)
    r = umkit.plan.PlanResult.from_dict(one_page_a_step(2, 1 / 1024, 3, cpu=True))
    # the CPU's touch of buffer 0 makes the next kernel on it prefetch it again
    assert R.whole_buffer_work(r, 3)[0] == 2 * 3 * pages + 3 * 3 * pages


def test_two_128_gib_buffers_of_one_page_a_step_are_refused_up_front():
    d = one_page_a_step(2, 128, 30)
    assert len(json.dumps(d)) < 4000
    r = umkit.plan.PlanResult.from_dict(d)
    ops, blocks, touches, _ = R.replay_work(r, 30)
    assert ops <= R.MAX_REPLAY_OPS and blocks <= R.MAX_CPU_BLOCKS and \
        touches <= R.MAX_REPLAY_PAGES                 # inside every earlier bound
    t = time.process_time()
    with pytest.raises(InvalidArgument, match="whole-buffer page operations") as e:
        R.check_work(r, 30)
    with pytest.raises(InvalidArgument, match="whole-buffer page operations"):
        r.recommend()
    assert time.process_time() - t < 2.0
    assert e.value.argument == "steps" and "smaller buffers" in e.value.hint
    assert "fits" not in e.value.hint                 # no number of steps fits: none named


def test_the_steps_it_names_fit_and_replay_within_the_bound():
    r = umkit.plan.PlanResult.from_dict(one_page_a_step(2, 8, 30))
    with pytest.raises(InvalidArgument, match="whole-buffer page operations") as e:
        r.recommend()
    work, fit = R.whole_buffer_work(r, 30)
    assert work > R.MAX_WHOLE_PAGES and 0 < fit < 30
    assert f"steps={fit} fits" in e.value.hint
    R.check_work(r, fit)
    assert R.whole_buffer_work(r, fit)[0] <= R.MAX_WHOLE_PAGES
    with pytest.raises(InvalidArgument):
        R.check_work(r, fit + 1)
    # the costliest plan at those steps: a replay in seconds, not minutes
    t = time.process_time()
    out = R.replay(r, {0: "managed+advice", 1: "managed+advice"}, "h200-pcie5", fit)
    assert out["fits"] and len(out["step_ms"]) == fit
    assert time.process_time() - t < 30


def test_the_cli_refuses_it_in_a_moment(tmp_path):
    p = tmp_path / "big2s30.json"
    p.write_text(json.dumps(one_page_a_step(2, 128, 30)))
    t = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "umkit.cli", "plan", str(p)], capture_output=True,
                         text=True, timeout=120, env=dict(os.environ, UMKIT_BACKEND="sim"))
    assert out.returncode == 2, out.stderr
    assert "whole-buffer page operations" in out.stderr and "Traceback" not in out.stderr
    assert time.monotonic() - t < 60


def test_the_benchmark_recordings_are_inside_the_bound():
    import glob
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    recs = sorted(glob.glob(str(root / "benchmarks/results/*/plan_validate/plan_recording*.json")))
    assert recs
    for f in recs:
        r = umkit.plan.load(f)
        n = min(len(r.step_pattern), 30)
        work, fit = R.whole_buffer_work(r, n)
        assert work <= R.MAX_WHOLE_PAGES and fit == n, f
