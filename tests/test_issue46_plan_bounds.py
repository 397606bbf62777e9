"""Issue 46, plan bounded: a recording whose buffers are too large to replay (a 1.3 KB file with
an untouched 256 TiB buffer asked for 512 GiB) is refused up front with a typed error that says
what to do -- by ``umkit plan`` (exit 2, in seconds) and by recommend()/predict().  So is one
whose CPU touches are too many to replay in seconds (each 2 MiB block a fault of its own)."""
import json
import os
import subprocess
import sys
import time

import pytest

import umkit
import umkit.plan
from umkit.errors import InvalidArgument
from umkit.plan.advice import MAX_REPLAY_BYTES


def recording_with(nbytes):
    umkit.use("sim", quiet=True)
    with umkit.plan.recorder() as rec:
        a = umkit.managed(1 << 16)
        umkit.fill(a, 1.0)
        rec.step()
    d = rec.result().to_dict()
    big = dict(d["buffers"][0], id=1, name="untouched", nbytes=nbytes, gpu_ops=0,
               moved={k: 0 for k in d["buffers"][0]["moved"]})
    d["buffers"].append(big)
    return d


def test_umkit_plan_refuses_a_256_tib_buffer_up_front(tmp_path):
    (tmp_path / "huge.plan.json").write_text(json.dumps(recording_with(1 << 48)))
    limit = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30)); "
             "from umkit.cli import main; sys.exit(main(sys.argv[1:]))")
    r = subprocess.run([sys.executable, "-c", limit, "plan", "huge.plan.json"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, UMKIT_BACKEND="sim"))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert "untouched" in r.stderr and "smaller" in r.stderr


def test_recommend_and_predict_refuse_it_too():
    r = umkit.plan.PlanResult.from_dict(recording_with(MAX_REPLAY_BYTES + 1))
    with pytest.raises(InvalidArgument, match="a replay simulates at most") as e:
        r.recommend()
    assert e.value.argument == "result"
    with pytest.raises(InvalidArgument, match="a replay simulates at most"):
        r.predict({})
    ok = umkit.plan.PlanResult.from_dict(recording_with(1 << 20))
    assert ok.recommend().to_dict()


# -- a replay's CPU faults, bounded before any replay -------------------------------------------------
def cpu_loop(gib: float, steps: int = 3) -> dict:
    """A recording of a loop whose CPU writes a ``gib`` GiB managed buffer each step, then a
    kernel fills it (built from a 1 MiB recording, its buffer and rows made ``gib`` GiB)."""
    umkit.use("sim", quiet=True)
    with umkit.plan.recorder() as rec:
        a = umkit.managed(1 << 18)
        for _ in range(steps):
            a.host[:] = 1.0
            umkit.fill(a, 1.0)
            umkit.synchronize()
            rec.step()
    d = rec.result().to_dict()
    nbytes = int(gib * (1 << 30))
    pages = nbytes // 4096
    d["buffers"][0].update(nbytes=nbytes)
    for ops in d["patterns"]:
        for op in ops:
            op[3] = [[r[0], pages, 0, pages - 1, nbytes, r[5]] for r in op[3]]
    return d


def test_a_replay_of_too_many_cpu_faults_is_refused_up_front_with_what_fits():
    # 3 steps of a 2 GiB buffer the CPU writes: 3,072 blocks of CPU faults, modelled one at a
    # time -- about a minute for one recommendation here before; now refused at once, saying
    # how many steps fit
    r = umkit.plan.PlanResult.from_dict(cpu_loop(2.0))
    t0 = time.process_time()
    with pytest.raises(InvalidArgument, match="a replay models at most") as e:
        r.recommend()
    assert time.process_time() - t0 < 5
    assert e.value.argument == "steps" and "steps=1 fits" in e.value.hint
    with pytest.raises(InvalidArgument, match="a replay models at most"):
        r.predict({})
    assert r.predict({}, steps=1)["fits"]


def test_umkit_plan_refuses_it_with_exit_2(tmp_path):
    (tmp_path / "cpu.plan.json").write_text(json.dumps(cpu_loop(2.0)))
    r = subprocess.run([sys.executable, "-m", "umkit.cli", "plan", "cpu.plan.json"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, UMKIT_BACKEND="sim"))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert "a replay models at most" in r.stderr and "smaller buffers" in r.stderr


def test_a_loop_within_the_bound_is_still_replayed():
    r = umkit.plan.PlanResult.from_dict(cpu_loop(1 / 64))
    assert r.predict({})["fits"]


def test_a_replay_of_too_many_operations_is_refused_up_front():
    # 30 steps of 4,000 operations each (a recording within every limit of its own): two
    # minutes a replay here, once per plan weighed; now refused at once
    d = cpu_loop(1 / 256, steps=30)
    d["patterns"] = [[op for op in d["patterns"][0] if op[0] != "cpu"] * 2000]
    d["step_pattern"] = [0] * 30
    r = umkit.plan.PlanResult.from_dict(d)
    t0 = time.process_time()
    with pytest.raises(InvalidArgument, match="a replay runs at most") as e:
        r.recommend()
    assert time.process_time() - t0 < 5
    assert "steps=4 fits" in e.value.hint
