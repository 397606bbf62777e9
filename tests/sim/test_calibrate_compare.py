"""``umkit calibrate --compare``: the fit set and the validation set, kept apart and reported
separately; no comparison of sim with itself."""
from __future__ import annotations

import json

import pytest

import umkit
from umkit import calibrate, cli, validation, workloads
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
    faults = next(r for r in c["validation"]["rows"] if r["workload"] == "read_faults_4m")
    assert faults["ratio"] < 1                 # the default profile has faster batches
    copy = next(r for r in c["validation"]["rows"] if r["workload"] == "pinned_h2d_1m")
    assert copy["ratio"] == 1.0 and copy["within"]
    assert "VALIDATION set" in text and "FIT set" in text
    assert "SUMMARY calibrate validation:" in text and "SUMMARY calibrate fit:" in text
