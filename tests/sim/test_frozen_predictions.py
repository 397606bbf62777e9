"""The simulator's predictions for a recorded H200 run are frozen: a change to the simulator's
structure must leave every predicted workload time bit-identical.  A change of the *model* (a
new cost, a refit) regenerates the file on purpose:

    UMKIT_BACKEND=sim python scripts/repredict_run.py \
        benchmarks/results/2026-12-02-h200-gpu-ci-run33/calibrate_compare.json \
        tests/sim/data/run33-predictions.json
"""
import importlib.util
import json
from pathlib import Path

import umkit

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "benchmarks/results/2026-12-02-h200-gpu-ci-run33/calibrate_compare.json"
FROZEN = ROOT / "tests/sim/data/run33-predictions.json"


def _script():
    spec = importlib.util.spec_from_file_location("repredict_run", ROOT / "scripts/repredict_run.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_recorded_run_repredicts_bit_identically():
    want = json.loads(FROZEN.read_text())
    with umkit.using("sim"):
        got = _script().repredict(str(RUN))
    assert got["profile"] == want["profile"] and got["host_speed"] == want["host_speed"]
    for part in ("fit", "validation"):
        assert sorted(got[part]) == sorted(want[part]), part
        diff = {k: (want[part][k], got[part][k]) for k in want[part] if want[part][k] != got[part][k]}
        assert not diff, f"{part}: predictions moved: {diff}"
