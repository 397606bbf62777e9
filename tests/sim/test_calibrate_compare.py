"""``umkit calibrate --compare``: the fit set and the validation set, kept apart and reported
separately; no comparison of sim with itself."""
from __future__ import annotations

import json

import pytest

import umkit
from umkit.measure import calibrate
from umkit import cli
from umkit.measure import validation_set as validation
from umkit import workloads
from umkit.errors import BackendUnavailable

MiB = 1 << 20


def test_compare_on_sim_says_there_is_nothing_to_measure(capsys):
    umkit.use("sim", quiet=True)
    rc = cli.main(["calibrate", "--compare"])
    cap = capsys.readouterr()
    assert rc == 2
    assert "nothing to" in cap.err and "measure" in cap.err      # a refusal: on stderr
    assert "within" not in cap.out + cap.err   # no "20/20 within" of sim against itself
    umkit.use("sim", quiet=True)
    with pytest.raises(BackendUnavailable):
        calibrate.compare()


def test_validation_set_is_apart_and_broad():
    ws = validation.workloads_list()
    names = [w.name for w in ws]
    assert len(ws) >= 40 and len(set(names)) == len(names)
    umkit.use("sim", quiet=True)
    fit_keys = set(calibrate.run_workloads(4 * MiB))
    assert not fit_keys & set(names)           # no workload is in both sets
    # every strategy of the workloads module, every advice, two-GPU workloads
    for s in workloads.STRATEGIES:
        assert any(f"train_{s}_" in n for n in names), s
    for adv in ("read_mostly", "accessed_by", "preferred_gpu"):
        assert any(adv in n for n in names), adv
    assert [w.name for w in ws if w.gpus == 2] == validation.skipped(1)
    # pairs to order exist in most groups
    assert sum(len(v) >= 2 for v in validation.groups().values()) >= 15


def test_fit_reads_only_the_fit_set():
    umkit.use("sim", quiet=True)
    m = calibrate.run_workloads(16 * MiB)
    p = calibrate.fit(m, 16 * MiB)
    assert p["pinned_h2d_bw"] > 0
    poisoned = dict(m, **{n: -1.0 for n in validation.groups()})   # unknown keys are ignored
    assert calibrate.fit(poisoned, 16 * MiB) == p


def test_ordering_counts_pairs():
    meas = {"a": 1.0, "b": 2.0, "c": 2.05, "d": 4.0}
    pred = {"a": 1.0, "b": 3.0, "c": 0.5, "d": 5.0}
    o = calibrate.ordering(meas, pred, {"g": ["a", "b", "c", "d"]})
    # a<b right, a<c wrong (pred c<a), a<d right, b~c close, b<d right, c<d right
    assert (o["right"], o["wrong"], o["close"]) == (4, 1, 1)
    assert o["wrong_pairs"] == ["a < c"]


def test_ordering_needs_the_cards_repeats_to_agree():
    """A pair whose repeats overlap on the card has no order to check: it is 'unsettled', not
    right or wrong; one whose repeats separate counts."""
    meas = {"a": 1.0, "b": 1.5, "c": 3.0}
    pred = {"a": 2.0, "b": 1.0, "c": 4.0}
    runs = {"a": [0.9, 1.0, 1.6], "b": [1.4, 1.5, 1.55], "c": [2.9, 3.0, 3.1]}
    o = calibrate.ordering(meas, pred, {"g": ["a", "b", "c"]}, runs)
    assert o["unsettled_pairs"] == ["a < b"]               # a's 1.6 is above b's 1.4
    assert (o["right"], o["wrong"], o["unsettled"]) == (2, 0, 1)
    o = calibrate.ordering(meas, pred, {"g": ["a", "b", "c"]})     # no repeats: medians decide
    assert (o["right"], o["wrong"], o["unsettled"]) == (2, 1, 0)


@pytest.mark.slow
def test_compare_remeasured_json_reports_both_sets(tmp_path, capsys):
    """Measurements taken on another 'card' (sim with slower fault batches, two GPUs) are
    re-predicted by the default profile: both sets, their counts, the summary lines."""
    umkit.use("sim", quiet=True, gpus=2, fault_batch_latency=60e-6)
    only = {"read_faults_4m", "read_prefetch_4m", "read_zero_copy_4m", "pinned_h2d_1m",
            "peer_prefetch_64m"}
    meas = dict(backend="other", device="card", device_count=2, nbytes=16 * MiB, date="d",
                fit=calibrate.run_workloads(16 * MiB),
                validation=validation.run_validation(only=only), skipped=[])
    p = tmp_path / "raw.json"
    p.write_text(json.dumps({"measured": meas}))
    out = tmp_path / "cmp.json"
    umkit.use("sim", quiet=True)
    rc = cli.main(["calibrate", "--compare", "--measured", str(p), "--out", str(out)])
    text = capsys.readouterr().out
    assert rc == 0
    c = json.loads(out.read_text())
    assert c["validation"]["total"] == len(only) and c["fit"]["total"] == 20
    assert c["measured"]["validation"] == meas["validation"]        # the raw numbers kept
    stored = c["as_stored"]["validation"]
    faults = next(r for r in stored["rows"] if r["workload"] == "read_faults_4m")
    assert faults["ratio"] < 1                 # the default profile has faster batches
    copy = next(r for r in stored["rows"] if r["workload"] == "pinned_h2d_1m")
    assert copy["ratio"] == 1.0 and copy["within"]   # a pinned copy involves no fault batch
    # the host speed is fitted on the fit set; slower fault batches are not a slower host,
    # so it stays near the profile's own
    assert 0.8 < c["host_speed"] < 1.25 and c["host"]["evaluations"] >= 5
    assert "VALIDATION set" in text and "FIT set" in text
    assert "SUMMARY calibrate validation:" in text and "SUMMARY calibrate fit:" in text
    assert "SUMMARY calibrate host speed:" in text
    assert "SUMMARY calibrate validation (profile as stored, host speed 1.0):" in text


@pytest.mark.slow
def test_host_speed_is_fitted_on_the_fit_set_and_carries_to_the_validation_set():
    """A 'card' whose host is 1.4x slower than the profile's (sim with host_speed=1.4): the
    host speed fitted on its fit set alone comes back near 1.4, and the validation set -- never
    read by the fit -- is then predicted almost exactly, where the profile as stored misses."""
    only = {"cpu_fill_managed_1m", "alloc_free_200_managed_1m", "pinned_h2d_4m",
            "roundtrip_cpu_faults_4m", "train_managed_cpu_edits_16m"}
    with umkit.using("sim", host_speed=1.4):
        meas = dict(backend="other", device="card", device_count=1, nbytes=16 * MiB, date="d",
                    fit=calibrate.run_workloads(16 * MiB),
                    validation=validation.run_validation(only=only), skipped=[])
    # fit_host_speed takes the fit set alone (it has no argument for the validation set)
    assert calibrate.fit_host_speed(meas["fit"], nbytes=16 * MiB)["host_speed"] == \
        pytest.approx(1.4, abs=0.02)
    c = calibrate.compare(measured=meas)
    assert c["host_speed"] == pytest.approx(1.4, abs=0.02)
    assert c["host"]["msle"] < c["host"]["msle_at_1"]
    ratios = {r["workload"]: r["ratio"] for r in c["validation"]["rows"]}
    assert all(abs(v - 1) < 0.03 for v in ratios.values()), ratios
    stored = {r["workload"]: r["ratio"] for r in c["as_stored"]["validation"]["rows"]}
    assert stored["cpu_fill_managed_1m"] < 0.8          # host work: the stored profile is fast
    assert stored["pinned_h2d_4m"] > 0.9                # the card's copy engine: unchanged


def test_host_speed_scales_only_the_hosts_numbers():
    from umkit.sim.costs import GPU_FAULT_SERVICE, HOST_RATES, HOST_TIMES, load_profile
    from umkit.errors import InvalidArgument, InvalidType
    a, b = load_profile(), load_profile(host_speed=2.0)
    # the GPU fault service stays the card's (slow leases had fast fault reads: costs.py)
    assert not set(GPU_FAULT_SERVICE) & set(HOST_TIMES)
    assert all(b.p[k] == a.p[k] for k in GPU_FAULT_SERVICE if k in a.p)
    for k in a.p:
        if k in HOST_TIMES:
            assert b.p[k] == pytest.approx(2 * a.p[k]), k
        elif k in HOST_RATES:
            assert b.p[k] == pytest.approx(a.p[k] / 2), k
        else:
            assert b.p[k] == a.p[k], k           # the card: HBM, link, copy engines, fault_bw
    assert b.host_speed == 2.0 and "host_speed" in b.sources["host_mem_bw"]
    for bad, err in ((0.0, InvalidArgument), (-1, InvalidArgument), (float("nan"), InvalidArgument),
                     ("fast", InvalidType), (True, InvalidType), (100, InvalidArgument)):
        with pytest.raises(err) as e:
            umkit.use("sim", quiet=True, host_speed=bad)
        assert "host_speed" in str(e.value)
    umkit.use("sim", quiet=True)


def test_measure_interleaves_rounds_and_keeps_every_value(monkeypatch):
    """Each round runs the fit set, then the validation set: every round's value is kept, and
    the reported number is the fastest round (the median is kept beside it)."""
    umkit.use("sim", quiet=True)
    calls = []

    def fit_spy(nbytes, progress=None):
        calls.append("fit")
        return {"a": float(len(calls))}

    def val_spy(progress=None, only=None, repeats=None, raw=None):
        calls.append("val")
        raw["w"] = [float(len(calls))]
        return {"w": float(len(calls))}
    monkeypatch.setattr(calibrate, "run_workloads", fit_spy)
    monkeypatch.setattr(validation, "run_validation", val_spy)
    m = calibrate.measure(MiB, rounds=3)
    assert calls == ["fit", "val"] * 3
    assert m["fit_runs"] == {"a": [1.0, 3.0, 5.0]} and m["fit"] == {"a": 1.0}
    assert m["validation_runs"] == {"w": [2.0, 4.0, 6.0]} and m["validation"] == {"w": 2.0}
    assert m["fit_median"] == {"a": 3.0} and m["validation_median"] == {"w": 4.0}
    assert m["rounds"] == 3 and m["interleaved"] and m["statistic"] == "min"


@pytest.mark.slow
def test_compare_wrote_line_escapes_the_path(tmp_path, capsys):
    """The 'wrote' line names the file it wrote with its control characters escaped (a name
    holding an escape sequence must not drive the terminal)."""
    umkit.use("sim", quiet=True)
    meas = dict(backend="other", device="card", device_count=1, nbytes=16 * MiB, date="d",
                fit=calibrate.run_workloads(16 * MiB),
                validation=validation.run_validation(only={"pinned_h2d_1m"}), skipped=[])
    p = tmp_path / "raw.json"
    p.write_text(json.dumps({"measured": meas}))
    out = tmp_path / "\x1b[31mred.json"
    assert cli.main(["calibrate", "--compare", "--measured", str(p), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    wrote = [line for line in text.splitlines() if line.startswith("wrote ")]
    assert wrote and "\x1b" not in wrote[0] and "\\x1b" in wrote[0] and out.exists()
