"""Issue 46, plan bounded: a recording whose buffers are too large to replay (a 1.3 KB file with
an untouched 256 TiB buffer asked for 512 GiB) is refused up front with a typed error that says
what to do -- by ``umkit plan`` (exit 2, in seconds) and by recommend()/predict()."""
import json
import os
import subprocess
import sys

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
