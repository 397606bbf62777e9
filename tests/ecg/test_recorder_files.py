"""A recorded run's file: what save() writes, load() reads (a run too large to read back is
refused when saving, not when loading); load() refuses times, steps and notes that would crash
plot() or table() later, naming the step."""
from __future__ import annotations

import copy
import json

import pytest

import umkit
from umkit import InvalidArgument
from umkit.ecg.recording import MAX_FILE, RecordResult


@pytest.fixture
def run(monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    umkit.use("sim", quiet=True)
    from umkit import ecg as ecg
    a = umkit.managed(1 << 16)
    with ecg.recorder("loop") as rec:
        for _ in range(4):
            umkit.fill(a, 1.0)
            rec.step()
    return rec.result()


def test_save_then_load_round_trips(run, tmp_path):
    back = RecordResult.load(run.save(tmp_path / "run.json"))
    assert [s.ms for s in back.steps] == [s.ms for s in run.steps]
    assert back.name == "loop"


@pytest.mark.slow
def test_a_run_too_large_to_load_is_refused_at_save(run, tmp_path):
    big = copy.deepcopy(run)
    big.steps = [type(run.steps[0])(i, 0.1, {}, "x" * 1000) for i in range(MAX_FILE // 1000 + 10)]
    with pytest.raises(InvalidArgument, match="fewer steps|load\\(\\) reads at most"):
        big.save(tmp_path / "big.json")
    assert not (tmp_path / "big.json").exists()


@pytest.mark.parametrize("field, value, says", [
    ("ms", -1.0, "finite time"), ("ms", True, "finite time"), ("ms", "fast", "finite time"),
    ("step", True, "whole number"), ("step", -3, "whole number"), ("note", 5, "a text"),
    ("counters", {"gpu_faults": "many"}, "names -> numbers")])
def test_load_refuses_a_bad_step(run, tmp_path, field, value, says):
    d = run.to_dict()
    d["steps"][1][field] = value
    (tmp_path / "bad.json").write_text(json.dumps(d))
    with pytest.raises(InvalidArgument, match=r"steps\[1\]") as err:
        RecordResult.load(tmp_path / "bad.json")
    assert says in str(err.value)


def test_load_refuses_duplicate_steps(run, tmp_path):
    d = run.to_dict()
    d["steps"][2]["step"] = d["steps"][1]["step"]
    with pytest.raises(InvalidArgument, match="steps grow"):
        RecordResult.from_dict(d)
