"""``umkit measure run | report``: the programs' registry, a program run through it, a GPU run's
summary and the results index (stale by measurement code, not by the model)."""
import json
import shutil
from pathlib import Path

import pytest

from umkit.cli import main
from umkit.errors import InvalidArgument
from umkit.measure import report, runs

ROOT = Path(__file__).resolve().parents[2]


def test_every_registered_program_has_a_main_and_a_kind():
    import importlib
    for name, (module, kind, what) in runs.RUNS.items():
        mod = importlib.import_module(f"umkit.measure.runs.{module}")
        assert callable(mod.main), name
        assert kind in runs.KINDS and what, name


def test_list_names_every_program(capsys):
    assert main(["measure", "run", "--list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in runs.RUNS)


def test_an_unknown_program_is_refused_by_name(capsys):
    assert main(["measure", "run", "no_such_probe"]) == 2
    assert "no_such_probe" in capsys.readouterr().err
    with pytest.raises(InvalidArgument):
        runs.run(["a list"], [])


def test_a_program_runs_with_its_own_arguments(tmp_path, capsys):
    """class_decide reads a committed class probe (CPU only) and writes its decision."""
    probe = ROOT / "benchmarks" / "results" / "2026-12-05-h200-class-probe-shape" / "class_probe.json"
    out = tmp_path / "decision.json"
    rc = main(["measure", "run", "class_decide", str(probe), "--json", str(out)])
    assert rc in (0, 1) and json.loads(out.read_text())
    with pytest.raises(SystemExit) as e:          # the program's own parser: a usage error
        main(["measure", "run", "class_decide", "--no-such-option"])
    assert e.value.code == 2


def test_steps_are_parsed_or_refused_by_name():
    assert report.steps("doctor=0:1.5,notebooks=1:40") == {
        "doctor": {"rc": 0, "seconds": 1.5}, "notebooks": {"rc": 1, "seconds": 40.0}}
    for bad in ("doctor", "doctor=0", "=0:1", "a=x:1", "a=0:nan", "a=0:inf"):
        with pytest.raises(InvalidArgument) as e:
            report.steps(bad)
        assert e.value.argument == "--steps"


def test_a_run_is_summarised(tmp_path, capsys):
    res = tmp_path / "run"
    res.mkdir()
    assert main(["measure", "report", str(res)]) == 2          # not a .ci/gpu results folder
    (res / "doctor.txt").write_text("backend sim\n")
    (res / "core_bench.json").write_text("[1, 2]")             # not what its step writes
    (res / "calibrate_compare.json").write_text('{"fit": {"rows": [1, 2]}}')
    rc = main(["measure", "report", str(res), "--steps", "doctor=0:1.0",
               "--free-before", "1000", "--free-after", "1000"])
    assert rc == 0
    s = json.loads((res / "summary.json").read_text())
    assert s["steps"] == {"doctor": {"rc": 0, "seconds": 1.0}} and s["leak_ok"]
    assert s["code_hash"] == report.code_hash()
    assert s["unreadable"] == ["core_bench.json", "calibrate_compare.json"]
    assert "GPU CI: PASS" in capsys.readouterr().out
    assert main(["measure", "report", str(res), "--steps", "doctor=1:1.0"]) == 1
    assert main(["measure", "report", str(res), "--free-before", "-1"]) == 2
    assert main(["measure", "report", "--index", str(res)]) == 2   # --index takes nothing else
    assert main(["measure", "report", str(res), "--steps", "a=0:1,a=0:2"]) == 2


def test_class_decide_never_writes_over_its_probe(tmp_path):
    probe = tmp_path / "cp.json"
    shutil.copy(ROOT / "benchmarks" / "results" / "2026-12-05-h200-class-probe-shape" /
                "class_probe.json", probe)
    before = probe.read_bytes()
    assert main(["measure", "run", "class_decide", str(probe), "--json", str(probe)]) == 2
    assert probe.read_bytes() == before


def test_evaluate_refuses_what_is_no_run_folder(tmp_path):
    from umkit.errors import UmkitError
    from umkit.measure import evaluate
    for bad in ("str", None, tmp_path / "missing", tmp_path):
        with pytest.raises(UmkitError):
            evaluate.evaluate(bad)
    (tmp_path / "umperf.json").write_text(json.dumps(
        {"measured": {"runs": 1, "dims": [32], "cells": {"x": 1}}}))
    assert main(["measure", "evaluate", str(tmp_path), "--quiet"]) == 2      # cells not the table's
    assert main(["measure", "evaluate", str(tmp_path), "--no-umperf"]) == 2  # nothing to evaluate


def test_the_index_is_stale_by_measurement_code_not_by_the_model(tmp_path, monkeypatch):
    """A change to the simulator or a profile leaves a run current; a change to what runs on
    the GPU makes it stale."""
    root = tmp_path / "repo"
    for rel in report.MEASURING + ["umkit/sim", "umkit/measure/fitting"]:
        src = ROOT / rel
        if src.is_dir():
            shutil.copytree(src, root / rel, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__"))
        elif src.exists():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, root / rel)
    monkeypatch.setattr(report, "ROOT", root)
    run = root / "benchmarks" / "results" / "r1"
    run.mkdir(parents=True)
    (run / "summary.json").write_text(json.dumps({"code_hash": report.code_hash(), "device": "d",
                                                  "backend": "cuda", "date": "x"}))
    assert "| current |" in report.index()
    with open(root / "umkit" / "sim" / "costs.py", "a") as f:
        f.write("\n# a model change\n")
    with open(root / "umkit" / "measure" / "fitting" / "manifest.py", "a") as f:
        f.write("\n# a fitter change\n")
    assert "| current |" in report.index()
    with open(root / "umkit" / "api.py", "a") as f:
        f.write("\n# a change to what runs on the GPU\n")
    assert "STALE" in report.index()
