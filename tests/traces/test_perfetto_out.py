"""umkit.ecg.traces.perfetto: a sim run, a recorded ECG, an ECG, a plan and a profiler file as
Chrome/Perfetto trace-event JSON, checked against the trace event format (``trace_format``);
model output is labelled 'model (PROFILE)'."""
import json

import pytest

import umkit
import umkit.ecg
import umkit.plan
from umkit.ecg.traces import perfetto, read
import trace_format
from test_profiler_readers import rocpd_loop

pytestmark = pytest.mark.usefixtures("fresh_sim")


def valid(doc):
    assert trace_format.problems(doc) == []
    assert trace_format.problems(json.loads(json.dumps(doc))) == []     # JSON as written
    return doc


def events(doc, ph, tid_name=None):
    tids = {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"]
            if e["ph"] == "M" and e["name"] == "thread_name"}
    return [e for e in doc["traceEvents"] if e["ph"] == ph
            and (tid_name is None or tids.get((e["pid"], e["tid"])) == tid_name)]


def loop(steps=3):
    a = umkit.managed(1 << 16)
    with umkit.ecg.recorder("mine") as rec:
        for i in range(steps):
            umkit.increment(a)
            if i == 1:
                umkit.synchronize()
                a.host[:8] += 1                     # the CPU touches it: faults, pages move
            rec.step()
    return rec.result()


def test_the_checker_fails_what_the_format_forbids():
    good = {"traceEvents": [{"name": "s", "ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 5}]}
    assert trace_format.problems(good) == []
    for bad in ({"name": "s", "ph": "X", "pid": 1, "tid": 1, "ts": 0},
                {"name": "s", "ph": "Q", "pid": 1, "tid": 1, "ts": 0},
                {"name": "c", "ph": "C", "pid": 1, "tid": 0, "ts": 0, "args": {"n": "3"}},
                {"name": "s", "ph": "i", "pid": 1, "tid": 1, "ts": "0"},
                {"name": "s", "ph": "X", "pid": "1", "tid": 1, "ts": 0, "dur": 1},
                {"name": "thread_nom", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "x"}}):
        assert trace_format.problems({"traceEvents": [bad]}) != [], bad


def test_a_recorded_ecg_on_sim_is_model_output_in_microseconds():
    r = loop()
    doc = valid(perfetto(r))
    prof = r.profile
    assert trace_format.names(doc, "process_name") == {f"model ({prof}): mine"}
    assert doc["otherData"]["label"] == f"model ({prof})"
    steps = events(doc, "X", "steps")
    assert [s["dur"] for s in steps] == [round(s.ms * 1000, 3) for s in r.steps]
    assert steps[1]["ts"] == pytest.approx(steps[0]["dur"], abs=1e-3)
    faults = [e for e in events(doc, "C") if e["name"] == "faults"]
    assert faults[1]["args"]["cpu_faults"] == r.steps[1].counters.get("cpu_faults", 0) > 0


def test_an_ecg_dict_has_a_process_per_curve(tmp_path):
    e = umkit.ecg.record(steps=3, nbytes=1 << 20, strategies=("managed", "device"))
    doc = valid(perfetto(e, tmp_path / "ecg.json"))
    assert json.loads((tmp_path / "ecg.json").read_text()) == doc
    assert trace_format.names(doc, "process_name") == {
        f"model ({e['profile']}): managed", f"model ({e['profile']}): device"}


def test_a_sim_run_has_tracks_per_stream_and_per_driver_layer():
    a = umkit.managed(1 << 16)
    s = umkit.Stream()
    a.host[:] = 1
    umkit.increment(a)
    umkit.prefetch(a, umkit.CPU, stream=s)
    umkit.synchronize()
    tr = umkit.trace()
    doc = valid(perfetto(tr))
    prof = umkit.backend().model_profile().name
    assert trace_format.names(doc, "process_name") == {f"model ({prof}): driver operations"}
    tracks = trace_format.names(doc, "thread_name")
    assert {"driver (umd)", "driver (kmd)", "stream 0", "stream 1"} <= tracks
    fb = next(e for e in tr if e["op"] == "fault_batch")
    inst = next(e for e in events(doc, "i") if e["name"] == "fault_batch")
    assert inst["ts"] == pytest.approx(fb["t"] * 1e6, abs=1e-3)
    moved = [e["args"]["MiB"] for e in events(doc, "C") if e["name"] == "MiB moved"]
    assert moved[-1] == pytest.approx(sum(e.get("bytes", 0) for e in tr) / 2**20)


def test_a_plan_recorded_on_sim():
    a = umkit.managed(1 << 16)
    with umkit.plan.recorder() as rec:
        for i in range(3):
            umkit.increment(a)
            if i == 2:
                umkit.synchronize()
                a.host[:4] += 1
            rec.step()
    plan = rec.result()
    doc = valid(perfetto(plan))
    assert any(n.startswith(f"model ({plan.profile}): plan of") for n in
               trace_format.names(doc, "process_name"))
    assert [e["dur"] for e in events(doc, "X", "steps")] == \
        [round(ms * 1000, 3) for ms in plan.step_ms]
    assert events(doc, "i", "gpu") and events(doc, "i", "cpu")


def test_a_profiler_file_is_measured_and_keeps_its_clock(tmp_path):
    tr = read(rocpd_loop(tmp_path / "run.db"))
    doc = valid(perfetto(tr))
    label = "measured (rocpd schema 3: AMD Instinct MI250X)"
    assert trace_format.names(doc, "process_name") == {label}
    assert [e["dur"] for e in events(doc, "X", "steps")] == [2000.0, 3000.0, 4000.0]
    mig = events(doc, "X", "migrations to GPU")
    assert mig[0]["ts"] == 500.0 and mig[0]["dur"] == 1.0 and mig[0]["args"]["bytes"] == 1 << 20
    assert len(events(doc, "X", "GPU page faults")) == 5
    # the plan read from the same file writes too
    valid(perfetto(umkit.plan.PlanResult.from_dict(tr.plan_dict())))


def test_perfetto_refuses_what_it_cannot_write():
    with pytest.raises(umkit.InvalidType):
        perfetto(42)


def test_a_rocprof_sys_summary_writes_its_totals():
    from test_profiler_readers import DATA
    doc = valid(perfetto(read(DATA / "unified_memory-4242.json")))
    moved = next(e for e in events(doc, "C") if e["name"] == "MiB moved")
    assert moved["args"] == {"bytes_h2d": 8.0, "bytes_d2h": 0.125}
