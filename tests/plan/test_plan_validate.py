"""``umkit measure run plan_validate`` without a GPU: the comparison of predicted and measured orderings
(pairs within the repeat spread not settled, the recommended plan against the fastest), and the
whole script on sim with the loop's umkit twin.  The PyTorch loop itself runs only where
PyTorch sees a CUDA GPU."""
import json
import math
from pathlib import Path

import pytest

from umkit.measure.runs import plan_validate as pv

ROOT = Path(__file__).resolve().parents[2]


def test_pairs_within_the_repeat_spread_are_not_settled():
    predicted = {"device": 11.0, "managed": 11.2, "managed+prefetch": 13.0, "optstate->cpu": 70.0}
    measured = {"device": [11.8, 11.9, 11.85], "managed": [11.84, 11.95, 11.9],
                "managed+prefetch": [13.2, 13.3, 13.25], "optstate->cpu": [71.0, 72.0, 71.5]}
    c = pv.compare(predicted, measured, "device")
    pair = {(p["a"], p["b"]): p for p in c["pairs"]}
    assert not pair["device", "managed"]["settled"]           # 0.05 ms apart, spread 0.11
    assert pair["device", "managed"]["agree"] is None
    assert pair["device", "optstate->cpu"]["settled"] and pair["device", "optstate->cpu"]["agree"]
    assert c["settled"] == 5 and c["agree"] == 5 and c["not_settled"] == 1
    assert c["ordering_holds"] and c["rounds"] == 3
    assert c["predicted_order"] == ["device", "managed", "managed+prefetch", "optstate->cpu"]
    assert c["recommended"]["ratio"] == 1.0 and c["recommended"]["within"]


def test_a_settled_pair_in_the_wrong_order_is_a_miss_and_the_target_is_checked():
    predicted = {"device": 12.0, "managed": 20.0, "managed+prefetch": 15.0}
    measured = {"device": [12.0, 12.1], "managed": [14.0, 14.1], "managed+prefetch": [16.0, 16.2],
                "recommended": [13.5, 13.6]}
    c = pv.compare(predicted, measured, "recommended")
    miss = [p for p in c["pairs"] if p["settled"] and not p["agree"]]
    assert [(p["a"], p["b"]) for p in miss] == [("managed", "managed+prefetch")]
    assert not c["ordering_holds"]
    r = c["recommended"]
    assert r["fastest"] == "device" and r["ratio"] == pytest.approx(13.55 / 12.05)
    assert not r["within"]                                      # 12.4 % slower than device
    assert pv.compare(predicted, measured, "recommended", target=0.15)["recommended"]["within"]


def test_a_result_that_cannot_be_computed_is_an_error():
    with pytest.raises(ValueError, match="not a number"):
        pv.compare({"device": math.inf, "managed": 1.0}, {"device": [1.0], "managed": [1.0]})
    with pytest.raises(ValueError, match="no finite rounds"):
        pv.compare({"device": 1.0, "managed": 1.0}, {"device": [], "managed": [1.0]})
    with pytest.raises(ValueError, match="fewer than two"):
        pv.compare({"device": 1.0}, {"device": [1.0]})
    with pytest.raises(ValueError, match="was not measured"):
        pv.compare({"device": 1.0, "managed": 2.0}, {"device": [1.0], "managed": [2.0]}, "x")


def test_plans_are_matched_to_variants_and_rounds_rotate():
    variants = {"device": {0: "device", 1: "device"}, "managed": {0: "managed", 1: "managed"}}
    assert pv.same_plan({0: "device", 1: "device"}, variants) == "device"
    assert pv.same_plan({0: "device", 1: "managed"}, variants) is None
    names = ["a", "b", "c"]
    assert [pv.rounds_order(names, k)[0] for k in range(4)] == ["a", "b", "c", "a"]
    assert sorted(pv.rounds_order(names, 2)) == names


def test_the_whole_script_runs_on_sim_with_the_loops_twin(tmp_path):
    rc = pv.main(["--backend", "sim", "--width", "128", "--layers", "1", "--batch", "16",
                  "--steps", "8", "--cpu-every", "3", "--rounds", "2", "--workers", "1",
                  "--out", str(tmp_path)])
    assert rc == 0
    doc = json.loads((tmp_path / "plan_validate.json").read_text())
    assert doc["ok"] and "error" not in doc
    c = doc["comparison"]
    assert sorted(c["predicted_order"]) == sorted(pv.VARIANTS)
    assert len(c["pairs"]) == 6 and c["rounds"] == 2
    assert set(doc["measured_ms"]) >= set(pv.VARIANTS)
    rec = doc["recommendation"]
    assert rec["is_variant"] in pv.VARIANTS or "recommended" in doc["measured_ms"]
    # the recording names the loop's tensors as umkit.plan's PyTorch naming does
    names = {b["name"] for b in json.loads((tmp_path / "plan_recording.json").read_text())["buffers"]}
    assert {"0.weight", "0.weight.grad", "0.weight.exp_avg", "x", "y"} <= names
    # the CPU statistic every 3 steps is in the table, and the prediction of the recorded
    # variant is its own recorded time
    assert "CPU every 3 steps" in doc["recording"]["table"]
    assert doc["predicted_ms"]["managed"] == pytest.approx(doc["recording"]["recorded_mean_ms"],
                                                           rel=1e-4)
    md = (tmp_path / "plan_validate.md").read_text()
    assert "Predicted order" in md and "Recommended plan" in md


def test_bad_arguments_exit_2(tmp_path, capsys):
    assert pv.main(["--backend", "sim", "--steps", "2", "--out", str(tmp_path)]) == 2
    assert "--steps" in capsys.readouterr().err


RUNS = ROOT / "benchmarks" / "results"
#: the PyTorch loop on an H200, recorded with CUPTI's counters on in every step
H200 = RUNS / "2026-12-04-h200-gpu-ci-run42" / "plan_validate"
#: the same loop on an H100, recorded with the counters on in every other step
H100 = RUNS / "2026-12-05-h100-gpu-ci-run46" / "plan_validate"


@pytest.mark.slow
@pytest.mark.parametrize("run, sized", [(H200, False), (H100, True)], ids=["h200", "h100"])
def test_a_committed_gpu_run_re_predicted_without_a_gpu(tmp_path, run, sized):
    """The recommended plan's size re-predicted from a committed GPU run's recording by this
    code, against the run's own measurements: within x/÷1.5 on both cards; the H200 recording
    (every step instrumented) says "order only", since the counters' cost was never measured."""
    rc = pv.main(["--replay-from", str(run), "--out", str(tmp_path), "--workers", "1"])
    assert rc == 0
    doc = json.loads((tmp_path / "plan_validate.json").read_text())
    run_doc = json.loads((run / "plan_validate.json").read_text())
    z = doc["size"]
    assert z["within"] and 1 / 1.5 <= z["ratio"] <= 1.5
    assert z["confidence"]["sized"] is sized
    assert z["confidence"]["statement"].startswith("sized" if sized else "order only")
    # the measurements are the run's; the prediction this code's, far closer than the run's own
    assert doc["measured_ms"] == run_doc["measured_ms"]
    old = run_doc["recommendation"]["predicted_ms"]
    assert abs(z["predicted_ms"] - z["measured_ms"]) < abs(old - z["measured_ms"]) / 4
    # the ranking: the same plan recommended, every settled pair as the run's code had it
    assert doc["recommendation"]["is_variant"] == run_doc["recommendation"]["is_variant"]
    assert [p["agree"] for p in doc["comparison"]["pairs"]] == \
        [p["agree"] for p in run_doc["comparison"]["pairs"]]
    assert doc["env"]["replayed"]["source"] == run.relative_to(ROOT).as_posix()
    md = (tmp_path / "plan_validate.md").read_text()
    assert "Re-predicted" in md and "The run's own prediction" in md


def test_a_run_re_predicted_from_its_files_gives_its_numbers(tmp_path):
    args = ["--backend", "sim", "--width", "128", "--layers", "1", "--batch", "16", "--steps",
            "8", "--cpu-every", "3", "--rounds", "1", "--workers", "1"]
    assert pv.main(args + ["--out", str(tmp_path / "run")]) == 0
    assert pv.main(["--replay-from", str(tmp_path / "run"), "--out", str(tmp_path / "again"),
                    "--workers", "1"]) == 0
    a, b = (json.loads((tmp_path / d / "plan_validate.json").read_text()) for d in ("run", "again"))
    assert b["predicted_ms"] == a["predicted_ms"] and b["size"]["ratio"] == a["size"]["ratio"]
    assert b["comparison"] == a["comparison"]
    # the second recording, every step instrumented, is sized against the same measurement
    assert a["always"]["size"]["measured_ms"] == a["size"]["measured_ms"]
    assert (tmp_path / "run" / "plan_recording_always.json").is_file()


def test_replay_from_a_folder_without_a_run_exits_2(tmp_path, capsys):
    assert pv.main(["--replay-from", str(tmp_path), "--out", str(tmp_path / "x")]) == 2
    assert "not a plan_validate run" in capsys.readouterr().err
    (tmp_path / "plan_validate.json").write_text(json.dumps(json.loads(
        (H100 / "plan_validate.json").read_text())))
    assert pv.main(["--replay-from", str(tmp_path), "--out", str(tmp_path / "x")]) == 2
    assert "plan_recording.json" in capsys.readouterr().err


@pytest.mark.gpu
def test_the_pytorch_loop_on_a_gpu(tmp_path):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA GPU")
    rc = pv.main(["--backend", "cuda", "--width", "512", "--layers", "2", "--batch", "64", "--steps", "8",
                  "--cpu-every", "3", "--rounds", "2", "--workers", "2", "--out", str(tmp_path)])
    assert rc == 0
    assert json.loads((tmp_path / "plan_validate.json").read_text())["ok"]
