"""``umkit calibrate --compare --measured FILE`` on malformed or impossible measurements: a typed
error naming the field and exit status 2 -- never a traceback, never exit 0 on NaN or a negative
time."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from umkit import cli
from umkit.measure.calibrate import check_measured
from umkit.errors import InvalidArgument

RUN = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / \
    "2026-12-02-h200-gpu-ci-run40" / "calibrate_compare.json"


@pytest.fixture(scope="module")
def good():
    return json.loads(RUN.read_text())["measured"]


def _mutations(m):
    first_fit, first_val = next(iter(m["fit"])), next(iter(m["validation"]))
    yield "nan", lambda d: d["fit"].__setitem__(first_fit, float("nan")), "finite"
    yield "negative", lambda d: d["validation"].__setitem__(first_val, -1.0), "finite"
    yield "zero", lambda d: d["validation"].__setitem__(first_val, 0), "finite"
    yield "text time", lambda d: d["fit"].__setitem__(first_fit, "5 ms"), "finite"
    yield "bool time", lambda d: d["fit"].__setitem__(first_fit, True), "finite"
    yield "fit list", lambda d: d.__setitem__("fit", [1, 2]), "mapping"
    yield "no backend", lambda d: d.pop("backend"), "backend"
    yield "runs text", lambda d: d.__setitem__("fit_runs", "x"), "fit_runs"
    yield "runs nan", lambda d: d["fit_runs"].__setitem__(first_fit, [1.0, float("inf")]), "list"
    yield "nbytes", lambda d: d.__setitem__("nbytes", -5), "nbytes"
    yield "gpus", lambda d: d.__setitem__("device_count", True), "device_count"
    yield "skipped", lambda d: d.__setitem__("skipped", [1]), "skipped"


def test_the_committed_run_passes(good):
    assert check_measured(copy.deepcopy(good)) is not None


@pytest.mark.parametrize("i", range(12))
def test_each_bad_field_is_named(good, i):
    label, mutate, says = list(_mutations(good))[i]
    d = copy.deepcopy(good)
    mutate(d)
    with pytest.raises(InvalidArgument, match=says):
        check_measured(d)


@pytest.mark.parametrize("doc", [{"measured": {"validation": {"x": float("nan")}}},
                                 {"measured": {"validation": 3}}, [1, 2], "text"])
def test_the_command_exits_2_without_a_traceback(tmp_path, doc, capsys, monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    p = tmp_path / "m.json"
    p.write_text(json.dumps(doc))
    rc = cli.main(["calibrate", "--compare", "--measured", str(p)])
    err = capsys.readouterr().err
    assert rc in (1, 2) and "Traceback" not in err and "umkit calibrate" in err


# fields the first sweep left unchecked (issue 26, §5.3: a traceback from the table or the summary)
MORE = {
    "nbytes null": (lambda d: d.__setitem__("nbytes", None), "'nbytes'"),
    "device_count null": (lambda d: d.__setitem__("device_count", None), "'device_count'"),
    "counters text": (lambda d: d.__setitem__("counters", "x"), "'counters'"),
    "counters list": (lambda d: d.__setitem__("counters", [None]), "'counters'"),
    "row without ratio": (lambda d: d["counters"]["rows"][0].pop("ratio"),
                          r"counters\['rows'\]\[0\]"),
    "row real text": (lambda d: d["counters"]["rows"][0].__setitem__("real", "many"),
                      r"counters\['rows'\]\[0\]"),
    "rows not a list": (lambda d: d["counters"].__setitem__("rows", {}), r"counters\['rows'\]"),
    "within missing": (lambda d: d["counters"].pop("within"), r"counters\['within'\]"),
    "tolerance text": (lambda d: d["counters"].__setitem__("tolerance", "x"), "tolerance"),
}


@pytest.mark.parametrize("label", sorted(MORE))
def test_null_sizes_and_a_malformed_counters_axis_are_named(good, label, tmp_path, capsys,
                                                            monkeypatch):
    mutate, says = MORE[label]
    d = copy.deepcopy(good)
    mutate(d)
    with pytest.raises(InvalidArgument, match=says):
        check_measured(d)
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    p = tmp_path / "m.json"
    p.write_text(json.dumps({"measured": d}))
    rc = cli.main(["calibrate", "--compare", "--measured", str(p)])
    err = capsys.readouterr().err
    assert rc in (1, 2) and "Traceback" not in err and "umkit calibrate" in err


def test_every_committed_run_with_a_fit_set_passes():
    runs = sorted(RUN.parents[1].glob("*/calibrate_compare.json"))
    checked = 0
    for path in runs:
        doc = json.loads(path.read_text())
        m = doc.get("measured", doc)
        if "fit" in m:                                # the format since the fit set (run 6 on)
            check_measured(copy.deepcopy(m), str(path))
            checked += 1
    assert checked >= 20
