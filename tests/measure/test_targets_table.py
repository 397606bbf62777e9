"""benchmarks/README.md's targets table is written from benchmarks/targets.json and the results it
names (``umkit measure report --index``): the committed table is what the data say, and the
outcome follows the measurement."""
import json

import pytest

from umkit.errors import InvalidArgument
from umkit.measure import report


def test_the_committed_table_is_what_the_targets_and_results_say():
    text = (report.ROOT / report.README).read_text(encoding="utf-8")
    assert report.readme_with_targets(text) == text, \
        "benchmarks/README.md's targets table is stale: run umkit measure report --index"


def test_every_target_has_a_measurement():
    rows = report.targets_table().splitlines()[2:]
    assert len(rows) == len(json.loads((report.ROOT / report.TARGETS).read_text())["targets"])
    assert all(("**met**" in r) != ("**missed**" in r) for r in rows), rows


def test_the_outcome_follows_the_measurement(tmp_path, monkeypatch):
    res = tmp_path / "benchmarks" / "results"
    res.mkdir(parents=True)
    (res / "speed.json").write_text(json.dumps({"date": "2026-12-07", "a": {"s": 0.5}}))
    run = res / "2026-12-07-h200-gpu-ci-run7"
    run.mkdir()
    (run / "core_bench.json").write_text(json.dumps({"r": 0.8}))
    (run / "summary.json").write_text(json.dumps({"device": "a card", "date": "d"}))
    (res / "2026-12-06-h200-gpu-ci-run6").mkdir()
    (res / "2026-12-06-h200-gpu-ci-run6" / "core_bench.json").write_text(json.dumps({"r": 2.0}))
    targets = tmp_path / "benchmarks" / "targets.json"
    targets.write_text(json.dumps({"targets": [
        {"target": "fast enough", "op": "<=", "limit": 1, "unit": "s", "file": "speed.json",
         "path": ["a", "s"]},
        {"target": "close to a copy", "op": ">=", "limit": 0.9, "unit": "x",
         "gpu_run": "core_bench.json", "path": ["r"]},
        {"target": "never measured", "op": "<=", "limit": 1, "unit": "%", "file": "none.json",
         "path": ["x"]}]}))
    monkeypatch.setattr(report, "ROOT", tmp_path)
    rows = report.targets_table().splitlines()[2:]
    assert rows[0].startswith("| fast enough | ≤ 1 s | 0.5 s | **met** | [speed.json]")
    # the newest run by number (run 7, not run 6), and its 0.8 misses >= 0.9
    assert "| 0.800x | **missed** | [2026-12-07-h200-gpu-ci-run7]" in rows[1], rows[1]
    assert "a card" in rows[1]
    assert "| - | not measured |" in rows[2]
    # --index writes the table into the checkout's README, between its markers
    readme = tmp_path / "benchmarks" / "README.md"
    readme.write_text(f"# B\n\n{report.BEGIN}\nold\n{report.END}\n\nnotes\n")
    report.index()
    text = readme.read_text()
    assert "old" not in text and "| fast enough |" in text and text.endswith(f"{report.END}\n\nnotes\n")


def test_a_readme_without_its_markers_is_a_typed_error():
    with pytest.raises(InvalidArgument) as e:
        report.readme_with_targets("# Benchmarks\n")
    assert e.value.argument == "--index"


GOOD = {"target": "t", "op": "<=", "limit": 1, "unit": "s", "file": "speed.json", "path": ["a"]}
BAD = [[], {"targets": "abc"}, {"targets": []}, {"targets": [1]},
       *({"targets": [dict(GOOD, **change)]} for change in (
           {"target": None}, {"target": "a\nb"}, {"target": "x" * 201}, {"op": "=="},
           {"limit": "abc"}, {"limit": None}, {"limit": True}, {"limit": float("inf")},
           {"unit": "\x1b[31m"}, {"path": "a"}, {"path": []}, {"path": [None]},
           {"file": 3}, {"file": "../outside.json"}, {"file": "/etc/passwd"}, {"file": "a\nb"},
           {"file": "a\x00b"}, {"file": ".."}, {"gpu_run": "core.json"})),
       {"targets": [{k: v for k, v in GOOD.items() if k != "unit"}]},
       {"targets": [{k: v for k, v in GOOD.items() if k != "file"}]}]


@pytest.mark.parametrize("spec", BAD, ids=range(len(BAD)))
def test_a_malformed_targets_file_is_a_typed_error_and_nothing_is_written(tmp_path, monkeypatch,
                                                                           spec):
    res = tmp_path / "benchmarks" / "results"
    res.mkdir(parents=True)
    (tmp_path / "benchmarks" / "targets.json").write_text(json.dumps(spec, allow_nan=True))
    readme = tmp_path / "benchmarks" / "README.md"
    readme.write_text(f"{report.BEGIN}\nold\n{report.END}\n")
    monkeypatch.setattr(report, "ROOT", tmp_path)
    with pytest.raises(InvalidArgument) as e:
        report.index()
    assert e.value.argument == "--index" and "targets.json" in str(e.value)
    assert not (res / "INDEX.md").exists() and "old" in readme.read_text()
