"""benchmarks/investigations/miss_spread.py: the validation misses of a GPU run against the card's own rounds."""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "investigations"))


def test_the_misses_of_runs_41_and_42_against_the_cards_rounds():
    """benchmarks/investigations/miss_spread.py on the committed runs: which validation misses lie inside the
    card's own rounds (the numbers docs/model-history.md quotes)."""
    import miss_spread
    res = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
    got = {}
    for run in ("2026-12-02-h200-gpu-ci-run41", "2026-12-04-h200-gpu-ci-run42"):
        rows = miss_spread.misses(json.loads((res / run / "calibrate_compare.json").read_text()))
        got[run[-5:]] = {w: sorted(r["name"] for r in rows if r["where"] == w)
                         for w in ("inside", "near", "outside")}
    assert got["run41"]["outside"] == ["read_read_mostly_4m", "small_read_64k"]
    assert len(got["run41"]["inside"]) == 5 and len(got["run41"]["near"]) == 4
    assert got["run42"]["outside"] == ["advise_unset_read_mostly_gpu_256m", "small_read_64k",
                                       "small_roundtrip_256k"]
    assert got["run42"]["inside"] == ["read_copy_4k"] and len(got["run42"]["near"]) == 2


def test_a_miss_is_placed_against_the_rounds():
    import miss_spread
    doc = {"measured": {"validation": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0},
                        "validation_runs": {"a": [1.0, 4.0], "b": [1.0, 1.2], "c": [1.0, 1.1],
                                            "d": [1.0, 1.3]}},
           "predicted": {"validation": {"a": 2.0, "b": 1.4, "c": 2.0, "d": 1.2}}}
    rows = {r["name"]: r for r in miss_spread.misses(doc)}
    assert set(rows) == {"a", "c"}                     # b and d are within x/1.5 of the card
    assert rows["a"]["where"] == "inside"
    assert rows["c"]["where"] == "outside" and rows["c"]["side"] == "above"
    assert rows["c"]["off"] == round(2.0 / 1.1, 3)
    assert miss_spread.main([]) == 2
