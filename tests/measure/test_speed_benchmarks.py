"""benchmarks/test_sim_speed.py, the simulator's speed targets as pytest-benchmark tests: they run
(once, untimed: ``--benchmark-disable``), each sim-speed target of benchmarks/targets.json has its
benchmark, and the JSON they write carries each target's summary as the targets table reads it."""
from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from umkit.measure.report import targets

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks" / "test_sim_speed.py"
RESULTS = ROOT / "benchmarks" / "results"


def _conftest():
    spec = importlib.util.spec_from_file_location("bench_conftest", ROOT / "benchmarks" / "conftest.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _sim_speed_targets():
    return [t for t in targets() if "sim-speed" in t.get("file", "")]


def test_every_sim_speed_target_has_its_benchmark_and_one_file():
    keys = set(re.findall(r'_check\(benchmark, "(\w+)"', BENCH.read_text()))
    tt = _sim_speed_targets()
    assert tt and {t["path"][0] for t in tt} == keys
    assert len({t["file"] for t in tt}) == 1            # one benchmark run gives the table's row


def test_the_committed_result_is_what_its_statistics_say():
    """The table's numbers are the medians pytest-benchmark measured, in the target's unit."""
    tt = _sim_speed_targets()
    doc = json.loads((RESULTS / tt[0]["file"]).read_text())
    stats = {b["name"].removeprefix("test_"): b["stats"]["median"] for b in doc["benchmarks"]}
    for t in tt:
        key, field = t["path"]
        scale = 1e3 if t["unit"] == "ms" else 1.0
        assert doc[key][field] == pytest.approx(stats[key] * scale, rel=1e-12), key
        assert doc[key]["met"] is (doc[key][field] <= t["limit"] if t["op"] == "<="
                                   else doc[key][field] >= t["limit"])
    assert doc["backend"] == "sim" and re.fullmatch(r"\d{4}-\d\d-\d\d", doc["date"])


def test_the_json_hook_adds_each_targets_summary():
    out = {"benchmarks": [
        {"name": "test_a", "stats": {"rounds": 5}, "extra_info": {
            "key": "a", "value": 12.5, "unit": "ms", "op": "<=", "limit": 20}},
        {"name": "test_b", "stats": {"rounds": 3}, "extra_info": {
            "key": "b", "value": 1.5, "unit": "s", "op": "<=", "limit": 1.0}},
        {"name": "test_c", "stats": {"rounds": 3}, "extra_info": {
            "key": "c", "value": 0.8, "unit": "x", "op": ">=", "limit": 0.9}},
        {"name": "test_plain", "stats": {"rounds": 1}, "extra_info": {}}]}
    _conftest().pytest_benchmark_update_json(None, [], out)
    assert out["a"] == {"median_ms": 12.5, "op": "<=", "target": 20, "unit": "ms", "rounds": 5,
                        "met": True}
    assert out["b"]["seconds"] == 1.5 and out["b"]["met"] is False
    assert out["c"]["median_x"] == 0.8 and out["c"]["met"] is False
    assert "plain" not in out and out["backend"] == "sim"


@pytest.mark.slow
def test_the_benchmarks_run():
    """Once each, untimed (a 1 GiB model-only buffer, 50 steps x 4 strategies)."""
    pytest.importorskip("pytest_benchmark")
    r = subprocess.run([sys.executable, "-m", "pytest", str(BENCH), "-q", "-p", "no:cacheprovider",
                        "--benchmark-disable"], cwd=ROOT, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0 and "2 passed" in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]
