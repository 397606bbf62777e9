"""umkit.measure.umperf: the UnifiedMemoryPerf port as a library -- the committed GPU run it loads, and the
same program on sim beside it."""
import json

import numpy as np
import pytest

import umkit
from umkit.measure import umperf
from umkit.errors import InvalidArgument


def _run(dims=(32, 64)):
    cells = {f"{n * n * 4}:{s}": {"overall": 0.1 * (i + 1) * n / 32, "cpu": 0.0}
             for n in dims for i, s in enumerate(umperf.STRATEGIES)}
    return dict(backend="cuda", device="NVIDIA H200", runs=20, dims=list(dims),
                strategies=list(umperf.STRATEGIES), cells=cells)


def _write(root, name, measured):
    d = root / name
    d.mkdir()
    (d / "umperf.json").write_text(json.dumps({"measured": measured}))


def test_published_is_none_when_nothing_was_recorded(tmp_path):
    assert umperf.published(tmp_path) is None
    _write(tmp_path, "a-sim-run", dict(_run(), backend="sim", date="2026-12-02 00:00 UTC"))
    assert umperf.published(tmp_path) is None          # a sim run is not a measurement


def test_published_takes_the_newest_gpu_run_by_its_recorded_date(tmp_path):
    _write(tmp_path, "2026-12-01-h200-gpu-ci-run8", dict(_run(), date="2026-12-01 03:12 UTC"))
    _write(tmp_path, "2026-12-01-h200-fitdata-run10", dict(_run(), date="2026-12-01 03:59 UTC"))
    rec = umperf.published(tmp_path)
    assert rec["run"] == "2026-12-01-h200-fitdata-run10"      # not the name that sorts last
    assert rec["measured"]["date"] == "2026-12-01 03:59 UTC"


def test_published_names_a_broken_file(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "umperf.json").write_text("{not json")
    with pytest.raises(InvalidArgument, match="not a umperf result"):
        umperf.published(tmp_path)


def test_side_by_side_runs_the_same_program_on_sim_and_restores_the_backend():
    umkit.use("sim", quiet=True)
    before = umkit.backend()
    rec = dict(run="fake", measured=dict(_run((32, 64)), date="2026-12-01 00:00 UTC"))
    sbs = umperf.side_by_side(rec, runs=2)
    assert umkit.backend() is before
    assert sbs["sim"]["backend"] == "sim" and sbs["sim"]["dims"] == [32, 64]
    ratios = sbs["comparison"]["ratio"]
    assert set(ratios) == set(rec["measured"]["cells"])
    for key, r in ratios.items():
        want = sbs["sim"]["cells"][key]["overall"] / rec["measured"]["cells"][key]["overall"]
        assert r == pytest.approx(want, rel=1e-2)
    # the sim side is the model's: explicit pinned copies beat managed memory without hints
    sim = sbs["sim"]["cells"]
    assert sim["4096:CpPglAs"]["overall"] < sim["4096:UMeasy"]["overall"]
    assert "measured on the card" in sbs["text"] and "on sim now" in sbs["text"]


def test_the_port_checks_the_product_exactly_on_sim():
    umkit.use("sim", quiet=True)                # with arithmetic: the check must pass
    rng = np.random.default_rng(1)
    n = 64
    X = rng.uniform(0, 10, n * n).astype(np.float32)
    Y = rng.uniform(0, 10, n * n).astype(np.float32)
    ref = umperf.reference(X, Y, n)
    assert np.array_equal(ref, (X.reshape(n, n) @ Y.reshape(n, n)).ravel())
    cell = umperf.run_cell(n, "CpPglAs", 2, X, Y, ref, check=True)
    assert cell["overall"] > 0
    with pytest.raises(AssertionError, match="wrong product"):
        umperf.run_cell(n, "CpPglAs", 1, X, Y, ref + 1, check=True)


def test_tables_taken_in_rounds_report_each_cells_fastest_round_or_median():
    a = dict(_run((32,)), date="x")
    b = json.loads(json.dumps(a))
    c = json.loads(json.dumps(a))
    for t, f in ((a, 1.5), (b, 3.0), (c, 2.0)):
        for cell in t["cells"].values():
            cell["overall"] = f
            cell["cpu"] = 4.0 - f
    m = umperf.combine_tables([a, b, c])
    assert {v["overall"] for v in m["cells"].values()} == {1.5} and m["rounds"] == 3
    assert {v["cpu"] for v in m["cells"].values()} == {1.0}      # stage by stage
    m = umperf.combine_tables([a, b, c], "median")
    assert {v["overall"] for v in m["cells"].values()} == {2.0}
    with pytest.raises(umkit.InvalidArgument) as e:             # one reducer map, typed errors
        umperf.combine_tables([a, b, c], "mean")
    assert e.value.argument == "how" and "median" in str(e.value)


def test_measure_with_fit_takes_the_fit_set_in_turns_with_the_table():
    umkit.use("sim", quiet=True, compute=False)
    mw = umperf.measure_with_fit(2, (32,), rounds=2, fit_nbytes=4 << 20)
    assert len(mw["rounds"]) == 2 and all(len(v) == 2 for v in mw["fit_runs"].values())
    assert set(mw["fit"]) >= {"pinned_h2d", "host_read", "epoch_loop"}
    assert mw["table"]["rounds"] == 2 and set(mw["table"]["cells"]) == set(mw["rounds"][0]["cells"])
    umkit.use("sim", quiet=True)


def test_published_carries_the_runs_host_speed(tmp_path):
    _write(tmp_path, "run-a", dict(_run(), date="2026-12-01 03:12 UTC"))
    assert umperf.published(tmp_path)["host_speed"] == 1.0        # none recorded
    doc = json.loads((tmp_path / "run-a" / "umperf.json").read_text())
    doc["host_speed"] = 1.3
    (tmp_path / "run-a" / "umperf.json").write_text(json.dumps(doc))
    rec = umperf.published(tmp_path)
    assert rec["host_speed"] == 1.3 and "fit set" in rec["host_speed_source"]
    # none in umperf.json: the calibrate --compare file of the same run
    del doc["host_speed"]
    (tmp_path / "run-a" / "umperf.json").write_text(json.dumps(doc))
    (tmp_path / "run-a" / "calibrate_compare.json").write_text(json.dumps({"host_speed": 0.9}))
    assert umperf.published(tmp_path)["host_speed"] == 0.9
    (tmp_path / "run-a" / "calibrate_compare.json").write_text("[1, 2]")   # not a comparison
    assert umperf.published(tmp_path)["host_speed"] == 1.0
    umkit.use("sim", quiet=True)
    rec["measured"] = dict(_run((32,)), date="x")
    slow = umperf.side_by_side(rec, runs=2)
    fast = umperf.side_by_side(rec, runs=2, host_speed=1.0)
    assert slow["host_speed"] == 1.3 and "host speed 1.30" in slow["text"]
    assert slow["sim"]["cells"]["4096:MemCopy"]["overall"] > fast["sim"]["cells"]["4096:MemCopy"]["overall"]


def test_host_speed_from_a_calibrate_file_or_a_typed_error(tmp_path):
    """unified_memory_perf --host-speed-from: the host speed a calibrate --compare JSON fitted;
    a missing file means the profile's own host; anything else that is not such a JSON is an
    InvalidArgument naming the file (it was a bare AttributeError on a JSON list)."""
    f = tmp_path / "calibrate_compare.json"
    missing = umperf.host_speed_from(f)
    assert missing["host_speed"] == 1.0 and "not found" in missing["host_speed_source"]
    f.write_text(json.dumps({"host_speed": 0.93, "fit": {}}))
    got = umperf.host_speed_from(str(f))
    assert got["host_speed"] == 0.93 and f.name in got["host_speed_source"]
    for bad in ("[1, 2]", "{not json", json.dumps({"fit": {}}), json.dumps({"host_speed": -1}),
                json.dumps({"host_speed": True})):
        f.write_text(bad)
        with pytest.raises(InvalidArgument) as e:
            umperf.host_speed_from(f)
        assert f.name in str(e.value)
