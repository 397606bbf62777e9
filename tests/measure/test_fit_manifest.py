"""``umkit measure fit``: the shipped h200-pcie5 profile is what its manifest makes from the
committed data; the manifest's mistakes are refused by field; the command line checks, writes
and refuses."""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from umkit.cli import main
from umkit.errors import InvalidArgument
from umkit.measure import calibrate
from umkit.measure.fitting import Manifest, differences, fit_profile, render, through_sim

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "benchmarks" / "fits" / "h200-pcie5.json"
PROFILE = ROOT / "umkit" / "sim" / "profiles" / "h200-pcie5.json"


@pytest.fixture(scope="module")
def fitted():
    return fit_profile(MANIFEST)


def test_the_shipped_profile_is_its_manifests_fit(fitted):
    """Every value, unit and source, in the file's order, byte for byte."""
    assert differences(fitted, PROFILE) == []
    assert render(fitted) == PROFILE.read_text(encoding="utf-8")


def test_every_fitted_parameter_names_itsstage_data(fitted):
    man = json.loads(MANIFEST.read_text())
    for name, e in fitted["params"].items():
        if name in man["stated"]:
            continue
        assert e["source"].startswith("fitted"), name
        assert "benchmarks/results/" in e["source"], name      # the files it was fitted on


def _tree(tmp_path) -> Path:
    """A copy of the files the manifest reads and the profile it writes, in a root of its own."""
    man = json.loads(MANIFEST.read_text())
    rels = {"benchmarks/fits/h200-pcie5.json", "benchmarks/fits/h200-pcie5.design.json",
            man["writes"], man["duplex"]["fit_probe"]}
    rels |= {r.rstrip("/") + "/calibrate_compare.json" for r in man["direct"]["calibrate"]}
    rels |= set(man["direct"]["small_bench"]) | set(man["direct"]["fit_probe"])
    rels |= {p["file"] for st in ("advice", "cold_path") for p in man[st]["class_probe"]}
    root = tmp_path / "repo"
    for rel in rels:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, root / rel)
    return root


@pytest.mark.slow
def test_a_changed_measurement_moves_the_fit(tmp_path):
    """The fit reads the data: a fit-set file whose device read took twice as long gives
    another hbm_bw (and the check then says the profile file differs)."""
    root = _tree(tmp_path)
    man = root / "benchmarks" / "fits" / MANIFEST.name
    assert differences(fit_profile(man), root / "umkit" / "sim" / "profiles" / PROFILE.name) == []
    f = root / "benchmarks" / "results" / "2026-12-01-h200-gpu-ci-run8" / "calibrate_compare.json"
    doc = json.loads(f.read_text())
    doc["measured"]["fit"]["device_read"] *= 2
    f.write_text(json.dumps(doc))
    changed = fit_profile(man)
    assert changed["params"]["hbm_bw"]["value"] < 0.6 * fit_profile(MANIFEST)["params"]["hbm_bw"]["value"]
    assert main(["measure", "fit", str(man), "--check"]) == 1


def _edit_data(root, rel, fn):
    p = root / rel
    doc = json.loads(p.read_text())
    fn(doc)
    p.write_text(json.dumps(doc))


@pytest.mark.parametrize("what, rel, fn, field", [
    ("duplex rows of nothing", "benchmarks/results/2026-12-01-h200-gpu-ci-run24/fit_probe_d1.json",
     lambda d: d.update(duplex={}), "duplex"),
    ("an infinite duplex time", "benchmarks/results/2026-12-01-h200-gpu-ci-run24/fit_probe_d1.json",
     lambda d: d["duplex"]["6291456"].update(pinned_read_write_ms=1e309), "duplex"),
    ("negative advice sizes", "benchmarks/results/2026-12-02-h200-class-probe/class_probe_1.json",
     lambda d: [r.update(bytes=-r["bytes"]) for r in d["advice"]], "advice"),
    ("advice times of nothing", "benchmarks/results/2026-12-02-h200-class-probe/class_probe_1.json",
     lambda d: [r.update(set_ms=[]) for r in d["advice"]], "advice"),
    ("a renamed design parameter", "benchmarks/fits/h200-pcie5.design.json",
     lambda d: d["params"].__setitem__(d["params"].index("fault_latency"), "hbm_bw"), "through_sim"),
    ("a design of no responses", "benchmarks/fits/h200-pcie5.design.json",
     lambda d: d.update(F=[[0.0] * len(r) for r in d["F"]]), "through_sim"),
    ("a design far from the data", "benchmarks/fits/h200-pcie5.design.json",
     lambda d: d.update(t0=[1e6] * len(d["t0"])), "through_sim"),
])
def test_data_a_stage_cannot_fit_are_refused_not_written(tmp_path, what, rel, fn, field):
    root = _tree(tmp_path)
    _edit_data(root, rel, fn)
    with pytest.raises(InvalidArgument) as e:
        fit_profile(root / "benchmarks" / "fits" / MANIFEST.name)
    assert e.value.argument == field, (what, str(e.value))


@pytest.mark.parametrize("change, field", [
    ({"stated": {"hbm_bw": {"value": 1.0, "source": "x"}}}, "stated.hbm_bw"),
    ({"header": {"name": 123, "title": None, "vendor": ["x"], "mode": "bogus", "teaching": "yes"}},
     "header"),
    ({"stated": {"host_page": {"value": 10 ** 400, "source": "x"}}}, "stated.host_page"),
    ({"notes": ["hbm_bw"]}, "notes"),
    ({"notes": {"hbm_bw": 5}}, "notes.hbm_bw"),
    ({"writes": "/tmp/elsewhere.json"}, "writes"),
    ({"writes": "../outside.json"}, "writes"),
    ({"writes": "benchmarks/fits/h200-pcie5.json"}, "writes"),
    ({"writes": "\x1b[31mred.json"}, "writes"),
    ({"root": "../..\x00x"}, "root"),
    ({"manifest_version": True}, "manifest_version"),
])
def test_manifest_fields_are_checked(tmp_path, change, field):
    root = _tree(tmp_path)
    p = root / "benchmarks" / "fits" / MANIFEST.name
    doc = json.loads(p.read_text())
    if "stated" in change:
        change = {"stated": {**doc["stated"], **change["stated"]}}
    doc.update(change)
    p.write_text(json.dumps(doc))
    with pytest.raises(InvalidArgument) as e:
        fit_profile(p)
    assert e.value.argument == field


def test_the_fit_never_writes_over_a_file_it_reads(tmp_path):
    root = _tree(tmp_path)
    p = root / "benchmarks" / "fits" / MANIFEST.name
    design = root / "benchmarks" / "fits" / "h200-pcie5.design.json"
    before = design.read_bytes()
    doc = json.loads(p.read_text())
    doc["writes"] = "benchmarks/fits/h200-pcie5.design.json"
    p.write_text(json.dumps(doc))
    assert main(["measure", "fit", str(p), "--write"]) == 2
    design.write_bytes(before)
    assert main(["measure", "fit", str(p), "--out", str(design), "--force"]) == 2
    assert design.read_bytes() == before


@pytest.mark.parametrize("stage, speed", [("advice", 1e-4), ("advice", 1e6), ("cold_path", 1e-6)])
def test_a_host_speed_no_lease_has_is_refused(tmp_path, stage, speed):
    root = _tree(tmp_path)
    p = root / "benchmarks" / "fits" / MANIFEST.name
    doc = json.loads(p.read_text())
    doc[stage]["class_probe"][0]["host_speed"] = speed
    p.write_text(json.dumps(doc))
    with pytest.raises(InvalidArgument) as e:
        fit_profile(p)
    assert e.value.argument == f"{stage}.class_probe"


def test_a_data_link_out_of_the_root_is_refused(tmp_path):
    root = _tree(tmp_path)
    rel = "benchmarks/results/2026-12-01-h200-gpu-ci-run24/fit_probe_d1.json"
    outside = tmp_path / "outside.json"
    shutil.move(root / rel, outside)
    (root / rel).symlink_to(outside)
    with pytest.raises(InvalidArgument, match="outside the root"):
        fit_profile(root / "benchmarks" / "fits" / MANIFEST.name)


@pytest.mark.parametrize("edit", [
    lambda d: d.update(teaching=0),
    lambda d: d.update(extra=1),
    lambda d: d["params"]["map_cost_per_mib"].update(value=False),
    lambda d: d["params"]["host_page"].update(value=4096.0),
    lambda d: d["params"]["hbm_bw"].update(extra=1),
])
def test_the_check_reads_the_file_as_it_is(tmp_path, edit):
    """A profile file that differs from the fit in a type, an extra field or the formatting is
    not "what the fit makes"."""
    root = _tree(tmp_path)
    prof = root / "umkit" / "sim" / "profiles" / PROFILE.name
    doc = json.loads(prof.read_text())
    edit(doc)
    prof.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    assert differences(fit_profile(root / "benchmarks" / "fits" / MANIFEST.name), prof)
    assert main(["measure", "fit", str(root / "benchmarks" / "fits" / MANIFEST.name), "--check"]) == 1


def test_the_command_checks_and_writes(tmp_path, capsys):
    assert main(["measure", "fit", str(MANIFEST), "--check"]) == 0
    assert "is what h200-pcie5.json fits" in capsys.readouterr().out
    out = tmp_path / "p.json"
    assert main(["measure", "fit", str(MANIFEST), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == PROFILE.read_text(encoding="utf-8")
    assert main(["measure", "fit", str(MANIFEST), "--out", str(out)]) == 2      # no --force
    assert "exists: the file there is kept" in capsys.readouterr().err
    assert main(["measure", "fit", str(MANIFEST), "--design-out", str(tmp_path / "d")]) == 2


def _manifest(tmp_path, **change):
    doc = json.loads(MANIFEST.read_text())
    doc["root"] = str(ROOT)
    for k, v in change.items():
        if v is None:
            doc.pop(k)
        else:
            doc[k] = v
    p = tmp_path / "m.json"
    p.write_text(json.dumps(doc))
    return p


@pytest.mark.parametrize("change, field", [
    ({"manifest_version": 2}, "manifest_version"),
    ({"colour": "red"}, "colour"),
    ({"who": None}, "who"),
    ({"stated": {"host_page": {"value": "4 KiB", "source": "x"}}}, "stated.host_page"),
    ({"stated": {"nothing_like_it": {"value": 1, "source": "x"}}}, "stated.nothing_like_it"),
    ({"direct": {"calibrate": ["benchmarks/results/no-such-run"], "small_bench": ["x"]}},
     "direct.calibrate"),
    ({"direct": {"calibrate": ["../../etc"], "small_bench": ["x"]}}, "direct.calibrate"),
    ({"advice": {"class_probe": [{"file": "benchmarks/fits/h200-pcie5.json", "host_speed": 0}]}},
     "advice.class_probe"),
    ({"through_sim": {"design": "benchmarks/fits/none.json"}}, "through_sim.design"),
])
def test_a_bad_manifest_is_refused_by_field(tmp_path, change, field):
    with pytest.raises(InvalidArgument) as e:
        fit_profile(_manifest(tmp_path, **change))
    assert e.value.argument == field and field in str(e.value)


def test_a_stage_whose_data_do_not_fit_is_named(tmp_path):
    """A file that holds no advice rows: the advice stage says so (no traceback)."""
    man = _manifest(tmp_path, advice={"class_probe": [{"file": "benchmarks/fits/h200-pcie5.json",
                                                       "host_speed": 1.0}],
                                      "baseline_us": 0.9})
    with pytest.raises(InvalidArgument, match="advice cannot be fitted.*no 'advice' rows"):
        fit_profile(man)


def test_a_parameter_no_stage_fits_is_named(tmp_path):
    doc = json.loads(MANIFEST.read_text())
    man = _manifest(tmp_path, params={**doc["params"], "made_up_latency": "us"})
    with pytest.raises(InvalidArgument, match="made_up_latency"):
        fit_profile(man)


def test_not_json_and_missing_files_are_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    for p in (bad, tmp_path / "none.json"):
        with pytest.raises(InvalidArgument) as e:
            Manifest(p)
        assert e.value.argument == "manifest"


def test_the_design_was_computed_for_these_observations(fitted):
    """The stored design lists the observations the data give, in order; one the data lack is
    refused (the design must then be computed again)."""
    des = through_sim.read_design(ROOT / "benchmarks" / "fits" / "h200-pcie5.design.json")
    assert "5d45b4a" in des["model"]
    assert len(des["observations"]) == len(des["t0"]) == len(des["F"])
    obs = [(n, 1e-3, None) for n in des["observations"][1:]]
    with pytest.raises(ValueError, match="redesign"):
        through_sim.solve(des, obs)


def _every_support_set(A, b):
    """Non-negative least squares by brute force: the best of the unconstrained fits on every
    set of columns whose solution is >= 0."""
    import itertools
    best, n = None, A.shape[1]
    for k in range(1, n + 1):
        for cols in itertools.combinations(range(n), k):
            x, *_ = np.linalg.lstsq(A[:, cols], b, rcond=None)
            if (x < 0).any():
                continue
            full = np.zeros(n)
            full[list(cols)] = x
            err = float(np.sum((A @ full - b) ** 2))
            if best is None or err < best[0]:
                best = (err, full)
    return best[1]


def test_the_active_set_nnls_is_the_exhaustive_one():
    """Lawson and Hanson's method finds the minimum that trying every support set finds, on
    problems with active and inactive constraints."""
    rng = np.random.default_rng(7)
    for _ in range(40):
        A = rng.normal(size=(30, 7))
        b = rng.normal(size=30)
        x = calibrate.nnls(A, b)
        assert (x >= 0).all()
        assert np.allclose(x, _every_support_set(A, b), atol=1e-9)


def test_the_design_solution_is_optimal():
    """The fit of the stored design meets the optimality (KKT) conditions: no parameter at zero
    could lower the error by growing, none above zero by moving."""
    from umkit.measure.fitting import manifest as mf
    man = mf.Manifest(MANIFEST)
    m, sb, fp = mf.stage_data(man)
    obs = through_sim.observations(m, sb, fp)
    des = through_sim.read_design(ROOT / "benchmarks" / "fits" / "h200-pcie5.design.json")
    F, t0 = np.array(des["F"]), np.array(des["t0"])
    y = np.array([t for _, t, _ in obs])
    use = np.abs(F).sum(axis=1) > 0
    A, b = F[use] / y[use, None], (y[use] - t0[use]) / y[use]
    x = calibrate.nnls(A, b)
    g = A.T @ (A @ x - b)
    scale = np.abs(A.T @ b).max()
    assert (g[x == 0] >= -1e-9 * scale).all()
    assert np.allclose(g[x > 0], 0, atol=1e-9 * scale)
