"""umkit.ecg.recorder on sim: exact model time, per-step counters, the ECG's verdict and
picture, save/load, bad use."""
from __future__ import annotations

import json

import numpy as np
import pytest

import umkit
from umkit import ecg as ecg
from umkit import workloads


@pytest.fixture(autouse=True)
def sim():
    umkit.use("sim", quiet=True)
    yield


def _step(a, i, s):
    """A training-ish step: GPU work, every 4th step a CPU statistic (faults pages back)."""
    umkit.increment(a, stream=s)
    s.synchronize()
    if i % 4 == 3:
        float(a.host[::1024].sum())


def test_step_ms_equal_timer_and_counters_exact():
    # the two loops must start from the same state: without the cold fault path (sim/host.py),
    # whose state the reference's first CPU write would leave different for the second loop
    umkit.use("sim", quiet=True, fault_cold_latency=0.0)
    a = umkit.managed(1 << 22)
    s = umkit.Stream()
    a.host[:] = 0
    # reference: the same loop, each step timed with host-side model time and counters
    ref_ms, ref_c = [], []
    for i in range(8):
        c0, t0 = umkit.counters(), umkit.now()
        _step(a, i, s)
        ref_ms.append((umkit.now() - t0) * 1e3)
        ref_c.append(workloads.counter_delta(c0, umkit.counters()))
    a.prefetch("cpu")          # back to the starting state: pages on the CPU
    umkit.synchronize()
    with umkit.ecg.recorder("toy") as rec:
        for i in range(8):
            _step(a, i, s)
            rec.step()
    r = rec.result()
    assert len(r.step_ms) == 8
    # step 0 differs (first faults happened in the reference run); the steady steps are exact
    assert r.step_ms[1:] == [round(x, 6) for x in ref_ms[1:]]     # steps are kept to 1 ns
    assert [st.counters for st in r.steps[1:]] == ref_c[1:]
    assert r.steps[3].counters["cpu_faults"] > 0 and r.steps[4].counters["gpu_faults"] > 0
    assert r.steps[5].counters.get("gpu_faults", 0) == 0
    total = {}
    for st in r.steps:
        for k, v in st.counters.items():
            total[k] = total.get(k, 0) + v
    assert total == r.counters
    assert r.model_time and r.backend == "sim" and r.profile == "h200-pcie5"


def test_deterministic_and_verdict_is_the_ecgs():
    def run():
        umkit.use("sim", quiet=True)
        a = umkit.managed(1 << 22)
        s = umkit.Stream()
        with umkit.ecg.recorder("spiky loop") as rec:
            for i in range(12):
                _step(a, i, s)
                rec.step("cpu" if i % 4 == 3 else "")
        return rec.result()
    r1, r2 = run(), run()
    assert r1.step_ms == r2.step_ms
    row = r1.summary()
    assert row["verdict"] == ecg.verdict(r1.step_ms, row) == "spiky"
    assert row["strategy"] == "spiky loop" and row["steps"] == 12
    assert r1.steps[3].note == "cpu" and r1.steps[2].note == ""
    d = r1.to_ecg()
    assert d["curves"] == {"spiky loop": r1.step_ms} and d["summary"] == [row]
    text = r1.table()
    assert text.splitlines()[0].startswith("memory ECG of spiky loop: 12 steps, backend sim")
    assert "spiky" in text.splitlines()[-1]


def test_flat_loop_is_flat():
    a = umkit.device_array(1 << 20)
    umkit.synchronize()     # the allocation's deferred page-table work is done before the loop
    with umkit.ecg.recorder() as rec:
        for _ in range(6):
            umkit.increment(a)
            rec.step()
    r = rec.result()
    assert r.summary()["verdict"] == "flat"
    assert len(set(r.step_ms[1:])) == 1 and r.step_ms[1] > 0


def test_plot_and_same_picture_as_ecg():
    import matplotlib
    matplotlib.use("Agg")
    a = umkit.managed(1 << 20)
    with umkit.ecg.recorder("mine") as rec:
        for _ in range(4):
            umkit.increment(a)
            rec.step()
    fig = rec.result().plot()
    ax = fig.axes[0]
    assert [l.get_label() for l in ax.get_lines()] == ["mine"]
    assert list(ax.get_lines()[0].get_ydata()) == rec.result().step_ms
    assert "memory ECG of mine" in ax.get_title() and "model time" in ax.get_ylabel()


def test_on_step_called_each_step_immediately_on_sim():
    seen = []
    a = umkit.managed(1 << 20)
    with umkit.ecg.recorder(on_step=seen.append) as rec:
        for i in range(3):
            umkit.increment(a)
            rec.step()
            assert len(seen) == i + 1
    assert [s.step for s in seen] == [0, 1, 2]


def test_save_load_roundtrip(tmp_path):
    a = umkit.managed(1 << 20)
    with umkit.ecg.recorder("saved") as rec:
        for _ in range(3):
            umkit.increment(a)
            rec.step()
    r = rec.result()
    p = r.save(tmp_path / "run.json")
    back = umkit.ecg.load(p)
    assert back.step_ms == r.step_ms and back.counters == r.counters
    assert back.summary() == r.summary() and back.name == "saved"
    json.loads(p.read_text())
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(umkit.InvalidArgument):
        umkit.ecg.load(bad)
    with pytest.raises(umkit.InvalidArgument):
        umkit.ecg.load(tmp_path / "missing.json")


def test_exception_in_loop_keeps_steps_and_marks_stopped():
    a = umkit.managed(1 << 20)
    with pytest.raises(RuntimeError):
        with umkit.ecg.recorder() as rec:
            umkit.increment(a)
            rec.step()
            raise RuntimeError("boom")
    r = rec.result()
    assert r.stopped and len(r.steps) == 1


def test_bad_use_gets_typed_errors():
    rec = umkit.ecg.recorder()
    with pytest.raises(umkit.InvalidArgument):
        rec.step()
    with pytest.raises(umkit.InvalidArgument):
        rec.result()
    with pytest.raises(umkit.InvalidType):
        umkit.ecg.recorder(name=3)
    with pytest.raises(umkit.InvalidType):
        umkit.ecg.recorder(stream="s")
    with pytest.raises(umkit.InvalidType):
        umkit.ecg.recorder(on_step=5)
    with pytest.raises(umkit.InvalidType):
        umkit.ecg.recorder(counters="yes")
    with umkit.ecg.recorder() as r2:
        with pytest.raises(umkit.InvalidArgument):
            r2.result()
        with pytest.raises(umkit.InvalidType):
            r2.step(note=1)
        with pytest.raises(umkit.InvalidArgument):
            r2.__enter__()
    assert r2.result().steps == []


def test_no_steps_result_is_empty_not_an_error():
    with umkit.ecg.recorder() as rec:
        pass
    r = rec.result()
    assert r.steps == [] and r.summary()["verdict"] == "empty"


def test_recorder_on_stream_times_that_stream():
    s = umkit.Stream()
    a = umkit.managed(1 << 22)
    a.prefetch("gpu", stream=s)
    s.synchronize()
    with umkit.ecg.recorder(stream=s) as rec:
        for _ in range(3):
            umkit.increment(a, stream=s)       # no host wait: only the stream knows
            rec.step()
    r = rec.result()
    assert all(ms > 0 for ms in r.step_ms)
    assert r.step_ms[1] == pytest.approx(r.step_ms[2])


def test_counters_on_off_on_sim():
    assert umkit.counters_on() == umkit.counters()
    umkit.counters_off()
    assert umkit.counters()            # sim keeps counting
    b = umkit.use("sim", quiet=True, counters=True)
    assert b.name == "sim"
    with pytest.raises(umkit.InvalidArgument):
        umkit.use("sim", quiet=True, counters="on")


def test_recorded_widget_static_draws_result():
    pytest.importorskip("ipywidgets")
    import matplotlib
    matplotlib.use("Agg")
    from umkit.teaching.widgets import RecorderView
    a = umkit.managed(1 << 20)
    view = RecorderView("live", static=True)
    with view.recorder() as rec:
        for _ in range(3):
            umkit.increment(a)
            rec.step()
    assert view.steps == rec.result().step_ms
    b = view._repr_mimebundle_()
    assert "memory ECG of live" in b["text/plain"] and "image/png" in b
    assert np.isfinite(view.steps).all()


def test_recorded_widget_live_draws_each_step():
    pytest.importorskip("ipywidgets")
    import matplotlib
    matplotlib.use("Agg")
    from umkit.teaching.widgets import RecorderView
    a = umkit.managed(1 << 20)
    view = RecorderView("live", static=False)
    images = []
    with view.recorder() as rec:
        for i in range(3):
            umkit.increment(a)
            rec.step()
            images.append(view.image.value)
            assert f"step {i + 1}" in view.label.value
    assert len(set(images)) == 3 and all(images)
    assert "verdict" in view.label.value and "live" in view.table.value
    assert view.image.value not in images          # the final ECG picture replaced the bars


def _fake_published(tmp_path, date_dir, variants=("device", "managed"), date=None):
    d = tmp_path / date_dir / "torch_training"
    d.mkdir(parents=True)
    results = {}
    for k, v in enumerate(variants):
        steps = [dict(step=i, ms=1.0 + k + (5.0 if i == 3 else 0.0), counters={}, note="")
                 for i in range(6)]
        run = dict(name=v, strategy=v, pattern="your loop", nbytes=None, backend="cuda",
                   steps=steps, counters={}, device="NVIDIA H200", model_time=False)
        results[v] = dict(summary={}, run=run)
    (d / "torch_training.json").write_text(json.dumps(dict(env=dict(device="NVIDIA H200",
                                                                    date=date or date_dir,
                                                                    torch="2.11"),
                                                           results=results)))


def test_published_reads_the_newest_run_and_combines_it(tmp_path):
    assert umkit.ecg.published(results_dir=tmp_path) is None      # nothing recorded yet
    _fake_published(tmp_path, "2026-11-30-h200-gpu-ci-run6", ("device",))
    _fake_published(tmp_path, "2026-12-01-h200-gpu-ci-run7")
    p = umkit.ecg.published(results_dir=tmp_path)
    assert p["env"]["date"] == "2026-12-01-h200-gpu-ci-run7"
    assert list(p["runs"]) == ["device", "managed"]
    assert p["runs"]["managed"].step_ms == [2.0, 2.0, 2.0, 7.0, 2.0, 2.0]
    e = p["ecg"]
    assert list(e["curves"]) == ["device", "managed"] and len(e["summary"]) == 2
    assert "NVIDIA H200" in e["title"] and e["summary"][1]["verdict"] == "spiky"
    assert "memory ECG of a PyTorch training loop" in umkit.ecg.table(e)
    # run 13 is newer than run 9 though its name sorts first (by the date it recorded, then by
    # the folder's numbers as numbers)
    _fake_published(tmp_path, "2026-12-02-h200-gpu-ci-run9", ("device",), "2026-12-02 03:13 UTC")
    _fake_published(tmp_path, "2026-12-02-h200-gpu-ci-run13", ("managed",), "2026-12-02 05:37 UTC")
    assert list(umkit.ecg.published(results_dir=tmp_path)["runs"]) == ["managed"]
    with pytest.raises(umkit.InvalidArgument):
        umkit.ecg.published("../etc", results_dir=tmp_path)
    with pytest.raises(umkit.InvalidType):
        umkit.ecg.combine([])


def test_incomplete_steps_are_named_and_sim_has_none():
    a = umkit.managed(1 << 20)
    with umkit.ecg.recorder("whole") as rec:
        for _ in range(3):
            umkit.synchronize()             # the last step's kernel is done before the CPU writes
            a.host[:] = 1.0
            umkit.increment(a)
            rec.step()
    r = rec.result()
    assert r.steps[0].counters.get("bytes_h2d", 0) > 0 and r.incomplete() == {}
    # a recorded cuda run whose step 1 lost its GPU-fault records (the driver's queue was full)
    d = r.to_dict()
    d["steps"][1]["counters"] = {"bytes_h2d": 300 << 20, "fault_bytes_h2d": 40 << 20}
    d["steps"][2]["counters"] = {"bytes_h2d": 64 << 20, "fault_bytes_h2d": 64 << 20,
                                 "gpu_faults": 38}
    back = umkit.ecg.RecordResult.from_dict(d)
    assert list(back.incomplete()) == [1] and "40 MiB" in back.incomplete()[1]


# -- declared capabilities, not attribute probes ---------------------------------------------------
def _counting_backend(monkeypatch, features):
    """sim made to look like a GPU with hardware counters: no model time, the given features,
    and a timestamped counter log (counters_clock/counters_log) that records its calls."""
    b = umkit.use("sim", quiet=True)
    calls = []
    monkeypatch.setattr(b, "features", frozenset(features), raising=False)
    monkeypatch.setattr(b, "counters_clock", lambda: len(calls), raising=False)

    def counters_log(on, stamps=None):
        calls.append((on, None if stamps is None else list(stamps)))
        return None if on else [{"gpu_faults": 10 + i} for i in range(len(stamps))]
    monkeypatch.setattr(b, "counters_log", counters_log, raising=False)
    return b, calls


def test_recorder_uses_the_counter_log_only_where_declared(monkeypatch):
    b, calls = _counting_backend(monkeypatch, {"counters", "counters_log"})
    a = umkit.managed(1 << 16)
    with umkit.ecg.recorder("log") as rec:
        for _ in range(3):
            umkit.increment(a)
            rec.step()
    assert [on for on, _ in calls] == [True, False] and len(calls[1][1]) == 3
    assert [st.counters for st in rec.result().steps] == [{"gpu_faults": 10 + i} for i in range(3)]
    assert not rec.result().model_time and rec.result().profile is None


def test_recorder_ignores_a_counter_log_the_backend_does_not_declare(monkeypatch):
    b, calls = _counting_backend(monkeypatch, {"counters"})   # the methods exist, undeclared
    a = umkit.managed(1 << 16)
    with umkit.ecg.recorder("no log") as rec:
        for _ in range(3):
            umkit.increment(a)
            rec.step()
    assert calls == []
    assert len(rec.result().steps) == 3 and rec.result().steps[0].counters.get("gpu_faults", 0) > 0
