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


def test_a_changed_measurement_moves_the_fit(tmp_path):
    """The fit reads the data: a fit-set file whose device read took twice as long gives
    another hbm_bw (and the check then says the profile file differs)."""
    root = tmp_path / "repo"
    shutil.copytree(ROOT / "benchmarks" / "fits", root / "benchmarks" / "fits")
    (root / "benchmarks" / "results").mkdir()
    for p in (ROOT / "benchmarks" / "results").iterdir():
        if p.is_dir():
            (root / "benchmarks" / "results" / p.name).symlink_to(p)
    run8 = root / "benchmarks" / "results" / "2026-12-01-h200-gpu-ci-run8"
    run8.unlink()
    run8.mkdir()
    for f in (ROOT / "benchmarks" / "results" / run8.name).iterdir():
        (run8 / f.name).symlink_to(f)
    doc = json.loads((run8 / "calibrate_compare.json").read_text())
    doc["measured"]["fit"]["device_read"] *= 2
    (run8 / "calibrate_compare.json").unlink()
    (run8 / "calibrate_compare.json").write_text(json.dumps(doc))
    (root / "umkit" / "sim" / "profiles").mkdir(parents=True)
    shutil.copy(PROFILE, root / "umkit" / "sim" / "profiles" / PROFILE.name)
    man = root / "benchmarks" / "fits" / MANIFEST.name
    changed = fit_profile(man)
    assert changed["params"]["hbm_bw"]["value"] < 0.6 * fit_profile(MANIFEST)["params"]["hbm_bw"]["value"]
    assert main(["measure", "fit", str(man), "--check"]) == 1


def test_the_command_checks_and_writes(tmp_path, capsys):
    assert main(["measure", "fit", str(MANIFEST), "--check"]) == 0
    assert "is what h200-pcie5.json fits" in capsys.readouterr().out
    out = tmp_path / "p.json"
    assert main(["measure", "fit", str(MANIFEST), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == PROFILE.read_text(encoding="utf-8")
    assert main(["measure", "fit", str(MANIFEST), "--out", str(out)]) == 2      # no --force
    assert "already there" in capsys.readouterr().err
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


def test_the_active_set_nnls_is_the_exhaustive_one():
    """Lawson and Hanson's method finds the minimum that trying every support set finds, on
    problems with active and inactive constraints."""
    rng = np.random.default_rng(7)
    for _ in range(40):
        A = rng.normal(size=(30, 7))
        b = rng.normal(size=30)
        x = through_sim.nnls(A, b)
        y = calibrate.nnls(A, b)
        assert (x >= 0).all()
        assert np.allclose(x, y, atol=1e-9)


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
    x = through_sim.nnls(A, b)
    g = A.T @ (A @ x - b)
    scale = np.abs(A.T @ b).max()
    assert (g[x == 0] >= -1e-9 * scale).all()
    assert np.allclose(g[x > 0], 0, atol=1e-9 * scale)
