"""A replay's work is bounded by what it really scales with: the page touches of its operations
(and of the work still in flight that sim unites them with), not only their count.  A small
recording of big kernels is refused up front with a typed error naming the steps that fit;
the committed benchmark recording still plans; the whole-model step costs are bounded the same
way (GB-uses of simulated managed memory)."""
import glob
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import umkit
import umkit.plan
from umkit.errors import InvalidArgument
from umkit.plan import replay as R
from umkit.workloads import whole_model as W

ROOT = Path(__file__).resolve().parents[2]
GiB = 1 << 30


def big_kernels(gib: float = 1.0, per_step: int = 10, steps: int = 30) -> dict:
    """Two managed buffers of ``gib`` GiB, ``per_step`` kernels a step each touching half of
    one, no CPU touches: a few KB of JSON, inside the operations and CPU-fault bounds."""
    size = int(gib * GiB)
    pages = size // 4096
    buf = dict(role="array", kind="managed", nbytes=size, born=0, died=None, instances=1,
               gpu_ops=per_step, cpu_ops=0, hints={}, inferred="",
               moved=dict(bytes_h2d=0, bytes_d2h=0, gpu_faults=0, cpu_faults=0, remote_bytes=0,
                          prefetch_bytes_h2d=0, prefetch_bytes_d2h=0, evicted_bytes=0))
    ops = []
    for k in range(per_step):
        lo = (k * 7919) % (pages // 2)
        hi = lo + pages // 2 - 1
        ops.append(["gpu", 1.0e6, "launch_overhead", [[k % 2, hi - lo + 1, lo, hi,
                                                        (hi - lo + 1) * 4096, True]]])
    return dict(backend="sim", device="sim", profile="h200-pcie5", steps=steps,
                step_ms=[1.0] * steps,
                buffers=[dict(buf, id=i, name=f"buf{i}") for i in range(2)],
                patterns=[ops], step_pattern=[0] * steps, notes=[],
                meta=dict(name="big kernels", instrumented=[1] * steps,
                          instrument_warmup=2, instrumentation="sim's own accounting"),
                format="umkit.plan/1")


def test_a_small_recording_of_big_kernels_is_refused_up_front_with_the_steps_that_fit():
    r = umkit.plan.PlanResult.from_dict(big_kernels())
    ops, blocks, touches, fit = R.replay_work(r, 30)
    assert ops <= R.MAX_REPLAY_OPS and blocks <= R.MAX_CPU_BLOCKS   # inside the older bounds
    assert touches > R.MAX_REPLAY_PAGES and 0 < fit < 30
    t = time.process_time()
    with pytest.raises(InvalidArgument, match="page touches") as e:
        r.recommend()
    assert time.process_time() - t < 2.0
    assert f"steps={fit} fits" in e.value.hint
    # the steps it names do fit, and a replay of them is bounded as promised
    assert R.replay_work(r, fit)[2] <= R.MAX_REPLAY_PAGES
    R.check_work(r, fit)
    with pytest.raises(InvalidArgument, match="page touches"):
        R.check_work(r, fit + 1)


def test_the_touches_count_the_work_in_flight_and_a_synchronize_ends_it():
    d = big_kernels(gib=1 / 64, per_step=4, steps=1)
    r = umkit.plan.PlanResult.from_dict(d)
    pages = (GiB // 64) // 4096
    half = pages // 2
    # each kernel touches half a buffer; in flight its buffer's pages grow up to the whole
    assert R.replay_work(r, 1)[2] == 4 * half + (half + half + pages + pages)
    d["patterns"] = [[d["patterns"][0][0], ["sync", 0.0, "none", []], d["patterns"][0][2]]]
    r = umkit.plan.PlanResult.from_dict(d)
    assert R.replay_work(r, 1)[2] == 2 * half + 2 * half


def test_the_cli_refuses_it_in_a_moment_naming_steps(tmp_path):
    p = tmp_path / "big.plan.json"
    p.write_text(json.dumps(big_kernels()))
    env = dict(os.environ, UMKIT_BACKEND="sim", PYTHONHASHSEED="0")
    t = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "umkit.cli", "plan", str(p)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    assert "page touches" in out.stderr and "--steps " in out.stderr and "steps=" not in out.stderr
    assert "Traceback" not in out.stderr
    assert time.monotonic() - t < 60


def test_the_benchmark_recording_is_inside_the_bound():
    recs = sorted(glob.glob(str(ROOT / "benchmarks/results/*/plan_validate/plan_recording*.json")))
    assert recs
    for f in recs:
        r = umkit.plan.load(f)
        n = min(len(r.step_pattern), 30)
        ops, blocks, touches, fit = R.replay_work(r, n)
        assert touches <= R.MAX_REPLAY_PAGES and fit == n, f
        R.check_work(r, n)


def test_a_whole_model_too_big_to_cost_is_refused_in_a_moment():
    big = W.ModelSpec("big", 10**13, 10_000, 1 << 20, 4096, seq=1 << 22, micro_batch=1 << 16)
    deep = W.ModelSpec("deep", 7 * 10**9, 10_000, 4096, 32)
    for m in (big, deep):
        t = time.process_time()
        with pytest.raises(InvalidArgument, match="GB-uses") as e:
            W.model_step_costs(m, steps=2)
        assert time.process_time() - t < 5.0
        assert "steps" in e.value.hint and "smaller model" in e.value.hint
    # the built-in models fit, and the work grows with steps, strategies and size
    every = [umkit.workloads.strategy(s) for s in umkit.workloads.STRATEGIES]
    assert W.step_work(W.model("70b"), every, 2) <= W.MAX_STEP_WORK
    assert W.step_work(W.model("70b"), every, 3) > W.step_work(W.model("70b"), every, 2)
    assert W.step_work(W.model("70b"), every, 2) > W.step_work(W.model("13b"), every, 2)
    assert W.step_work(W.model("70b"), every[:1], 2) < W.step_work(W.model("70b"), every, 2)
    assert W.step_work(W.model("70b"), every, 100) > W.MAX_STEP_WORK
    with pytest.raises(InvalidArgument, match="GB-uses"):
        W.model_step_costs("70b", steps=100)


def test_a_small_model_still_costs_every_strategy():
    small = W.ModelSpec("small", 10**8, 4, 1024, 8, seq=256)
    rows = W.model_step_costs(small, steps=2)
    assert [r.strategy for r in rows] == list(umkit.workloads.STRATEGIES)
    assert all(r.fits and r.ms > 0 for r in rows)
