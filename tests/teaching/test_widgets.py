"""Widgets without a browser: the panel's model, the controls -> Strategy/Pattern mapping, runs,
Reset, Stop, errors, the widget trees (built headless), the residency map's aggregation, and the
static matplotlib fallbacks."""
from __future__ import annotations

import re
import sys
import time

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import umkit  # noqa: E402
from umkit import workloads  # noqa: E402
from umkit.api import Residency  # noqa: E402
from umkit.teaching.widgets import (ECGView, PanelModel, ResidencyMap, StrategyPanel, ecg,
                                    has_frontend)
from umkit.teaching.widgets import panel
from umkit.teaching.widgets import residency_map

P = sys.modules["umkit.teaching.widgets.panel"]          # the module (umkit.widgets.panel is the function)
RM = sys.modules["umkit.teaching.widgets.residency_map"]
GIB = 1 << 30


@pytest.fixture(autouse=True)
def sim(monkeypatch):
    monkeypatch.delenv("UMKIT_WIDGETS", raising=False)
    umkit.use("sim", compute=False)
    yield
    import matplotlib.pyplot as plt
    plt.close("all")


def bars(html: str) -> list[float]:
    return [float(v) for v in re.findall(r'class="umk-bar[^"]*" data-ms="([^"]+)"', html)]


def live(**kw) -> StrategyPanel:
    return StrategyPanel(static=False, pace=0, threaded=False, **kw)


# -- the controls map onto the one definition of a strategy -------------------------------------------
def test_choices_are_the_workloads_values():
    assert tuple(v for _, v in P.MEMORY_CHOICES) == workloads.MEMORY
    assert tuple(v for _, v in P.PREFETCH_CHOICES) == workloads.PREFETCH
    assert tuple(v for _, v in P.ADVICE_CHOICES) == workloads.ADVICE
    assert tuple(v for _, v in P.PATTERN_CHOICES) == workloads.PATTERNS


@pytest.mark.parametrize("memory", workloads.MEMORY)
@pytest.mark.parametrize("prefetch", workloads.PREFETCH)
def test_memory_and_prefetch_controls_map_to_strategy_fields(memory, prefetch):
    p = live()
    p.set(memory=memory, prefetch=prefetch)
    strat, patt, nbytes, steps = p.build()
    assert isinstance(strat, workloads.Strategy)
    assert (strat.memory, strat.prefetch, strat.advice) == (memory, prefetch, "none")
    assert strat.name == P.strategy_name(memory, prefetch, "none")
    assert nbytes == P.DEFAULTS["size_mib"] << 20 and steps == P.DEFAULTS["steps"]


@pytest.mark.parametrize("advice", workloads.ADVICE)
def test_advice_control_maps_to_strategy_advice(advice):
    p = live()
    p.controls["advice"].value = advice
    strat, *_ = p.build()
    assert strat.advice == advice and strat.memory == "managed"


@pytest.mark.parametrize("pattern", workloads.PATTERNS)
def test_pattern_and_k_map_to_pattern(pattern):
    p = live()
    p.set(pattern=pattern, every=7, size_mib=3, steps=9)
    strat, patt, nbytes, steps = p.build()
    assert patt == workloads.Pattern(pattern, 7)
    assert (nbytes, steps) == (3 << 20, 9)
    # the k box is live only for the CPU-statistics pattern
    assert p.controls["every"].disabled == (pattern != "cpu_stats")


def test_model_build_and_defaults():
    strat, patt, nbytes, steps = PanelModel.build({})
    assert strat == workloads.Strategy("managed", "managed", "off", "none")
    assert patt == workloads.Pattern("cpu_stats", 10) and nbytes == 64 << 20 and steps == 40
    strat, *_ = PanelModel.build(dict(memory="mixed", prefetch="gpu+back", advice="read_mostly"))
    assert strat.name == "mixed+prefetch+back+read-mostly"
    with pytest.raises(umkit.InvalidArgument):
        PanelModel.build(dict(colour="red"))
    assert PanelModel.notes(dict(memory="device", prefetch="gpu"))
    assert PanelModel.notes(dict(memory="managed", prefetch="gpu")) == []


# -- runs --------------------------------------------------------------------------------------------------
def test_runs_are_recorded_and_stacked():
    p = live()
    r1 = p.run_once(steps=6, pattern="cpu_stats", every=3)
    r2 = p.run_once(steps=4, prefetch="gpu", pattern="gpu_only")
    assert isinstance(r1, workloads.RunResult) and isinstance(r2, workloads.RunResult)
    assert [len(r.steps) for r in (r1, r2)] == [6, 4]
    assert p.results == [r1, r2]
    runs = p.runs
    assert [r.index for r in runs] == [1, 2] and runs[0].color != runs[1].color
    assert runs[1].strategy.prefetch == "gpu" and runs[1].pattern.name == "gpu_only"
    # the chart: one div.umk-bar per step, data-ms = the step's time, one group per run
    assert bars(p.chart.value) == pytest.approx([float(f"{m:.6g}") for m in r1.step_ms + r2.step_ms])
    assert p.chart.value.count('class="umk-group"') == 2
    rows = p.model.summary_rows()
    assert [r["run"] for r in rows] == [1, 2]
    assert rows[0]["median_ms"] == r1.summary()["median_ms"]
    assert rows[0]["cpu_faults"] == r1.counters.get("cpu_faults", 0) > 0   # CPU statistics
    assert rows[0]["bytes_d2h"] == r1.counters["bytes_d2h"] / (1 << 20)
    assert "umk-counters" in p.table.value and "#2" in p.table.value
    assert "done" in p.status.value


def test_counters_update_step_by_step():
    p = live()
    p.min_redraw_s = 0                                  # redraw after every step
    seen = []
    p.run_once(steps=5, pattern="cpu_stats", every=2,
               on_step=lambda run, rec: seen.append((len(bars(p.chart.value)), p.table.value)))
    assert [n for n, _ in seen] == [1, 2, 3, 4, 5]
    assert len({t for _, t in seen}) > 1               # the table changes as steps finish
    assert "(running)" in seen[0][1]
    assert "umk-slot" in P.bars_html([p.runs[0]]) or not p.runs[0].running


def test_reset_clears():
    p = live()
    empty = p.table.value
    p.run_once(steps=3)
    assert p.table.value != empty
    p.reset()
    assert p.runs == [] and p.results == []
    assert bars(p.chart.value) == [] and p.table.value == empty
    p.run_once(steps=2)
    assert p.runs[0].index == 1                         # numbering starts again


def test_controls_disabled_while_running():
    p = live(pattern="gpu_only")
    states = []

    def check(run, rec):
        assert p.model.running and run.running
        states.append([w.disabled for w in p.controls.values()]
                      + [p.run_button.disabled, p.reset_button.disabled, not p.stop_button.disabled])
    p.run_once(steps=3, on_step=check)
    assert len(states) == 3 and all(all(s) for s in states)
    assert not p.model.running and not p.run_button.disabled and p.stop_button.disabled
    assert not p.controls["memory"].disabled
    assert p.controls["every"].disabled                 # still off: the pattern isn't cpu_stats
    assert p.model.reset() is True


def test_reset_refused_while_running():
    m = PanelModel()
    out = []
    m.run(dict(steps=2), on_step=lambda run, rec: out.append(m.reset()))
    assert out == [False, False] and len(m.runs) == 1


def test_stop_ends_a_run_early():
    p = live()

    def stop_at_3(run, rec):
        if rec.step == 2:
            p.stop()
    res = p.run_once(steps=30, on_step=stop_at_3)
    assert res.stopped is True and len(res.steps) == 3 < 30
    assert p.runs[0].stopped and "stopped" in p.status.value
    assert p.model.summary_rows()[0]["stopped"]
    # the next run starts afresh (the stop request is not sticky)
    assert p.run_once(steps=2).stopped is False


def test_stop_button_ends_a_threaded_run():
    p = StrategyPanel(static=False, pace=0.01, threaded=True)
    p.controls["steps"].value = 400
    p.run_button.click()
    t0 = time.monotonic()
    while len(p.runs) == 0 or len(p.runs[0].steps) < 3:
        assert time.monotonic() - t0 < 20
        time.sleep(0.01)
    assert p.running and p.run_button.disabled and p.controls["memory"].disabled
    p.stop_button.click()
    assert p.wait(20)
    res = p.results[0]
    assert res.stopped and 3 <= len(res.steps) < 400
    assert not p.run_button.disabled


def test_bad_settings_are_a_message_not_a_traceback():
    p = live()
    assert p.run_once(size_mib=0) is None
    assert "buffer size" in p.error and "->" in p.error
    assert "umk-error" in p.message.value and "Traceback" not in p.message.value
    assert p.runs == [] and not p.running and not p.run_button.disabled
    assert p.run_once(size_mib=4, steps=0) is None and "steps" in p.error
    m = PanelModel()
    assert m.run(dict(every=0)) is None and "every" in m.error and m.runs == []
    assert p.run_once(steps=2, size_mib=4) is not None and p.error is None
    assert "umk-error" not in p.message.value           # a good run clears the message


@pytest.mark.parametrize("bad", [dict(size_mib=0), dict(steps=0)])
def test_bad_value_does_not_lock_the_panel(bad):
    """The Run button (threaded, as in Jupyter/Voila) with an out-of-range value: the message
    shows, and Run, Reset, Stop and every control come back -- the panel recovers."""
    p = StrategyPanel(static=False, pace=0, threaded=True)
    ok = dict(p.settings())
    p.set(**bad)
    p.run_button.click()
    assert p.wait(20)
    assert p.error and "out of range" in p.error and "umk-error" in p.message.value
    assert not p.run_button.disabled and not p.reset_button.disabled
    assert p.stop_button.disabled                       # nothing to stop
    assert not any(w.disabled for k, w in p.controls.items() if k != "every")
    # Stop with nothing running keeps the panel usable; then a good value runs
    p.stop_button.click()
    assert not p.run_button.disabled
    p.set(size_mib=ok["size_mib"], steps=3)
    p.run_button.click()
    assert p.wait(20)
    assert p.error is None and len(p.results) == 1 and len(p.results[0].steps) == 3
    assert not p.run_button.disabled and p.stop_button.disabled
    p.reset_button.click()
    assert p.runs == []


def test_stop_with_nothing_running_reenables_the_controls():
    p = live()
    p.set_enabled(False)                               # e.g. left over from an interrupted run
    p.stop_button.click()
    assert not p.run_button.disabled and not p.controls["memory"].disabled


def test_a_stopped_long_run_shrinks_to_its_steps():
    p = live()

    def stop_at_4(run, rec):
        if rec.step == 4:
            p.stop()
    p.run_once(steps=400, on_step=stop_at_4)
    run = p.runs[0]
    assert run.stopped and len(run.steps) == 5
    group = re.search(r'<div class="umk-group" data-run="1" style="flex:(\d+) 1 (\d+)px;', p.chart.value)
    assert group and int(group.group(2)) == P.GROUP_MIN_PX and int(group.group(1)) == 8   # not 400 slots wide
    assert "umk-slot" not in p.chart.value
    while_running = P.bars_html([P.PanelRun(2, run.settings, run.strategy, run.pattern, run.nbytes,
                                            400, "#000", steps=list(run.steps), running=True)])
    assert while_running.count("umk-slot") == 395
    assert f"flex:400 1 {P.GROUP_MIN_PX}px;max-width:3200px" in while_running   # room for 400


def test_hints_on_device_or_pinned_are_labelled_ignored():
    p = live()
    p.run_once(steps=2, memory="pinned", prefetch="gpu")
    p.run_once(steps=2, memory="managed", prefetch="gpu")
    pinned, managed = p.runs
    assert pinned.strategy.name == "pinned" and "pinned+prefetch" not in p.table.value
    assert "(prefetch/advice ignored)" in pinned.label
    assert managed.strategy.name == "managed+prefetch" and "ignored" not in managed.label


def test_profile_picker_switches_the_modelled_card():
    p = live()
    opts = dict((v, k) for k, v in p.profile_picker.options)
    assert list(opts) == ["h200-pcie5", "mi250x-xnack1", "mi250x-xnack0", "mi250x-coherent",
                          "mi300x", "mi300a-apu"]
    assert "estimate" in opts["mi300x"] and "estimate" not in opts["h200-pcie5"]
    assert "MODELLED" in p.backend_label.value and "H200" in p.backend_label.value
    p.profile_picker.value = "mi250x-xnack0"
    assert umkit.runtime.backend().profile.name == "mi250x-xnack0"   # the public API did it
    assert "MI250X" in p.backend_label.value and "estimates" in p.backend_label.value
    r = p.run_once(steps=3, pattern="gpu_only")
    assert r is not None and p.runs[0].profile == "mi250x-xnack0" and "mi250x-xnack0" in p.chart.value and "mi250x-xnack0" in p.table.value
    p.profile_picker.value = "h200-pcie5"
    r2 = p.run_once(steps=3, pattern="gpu_only")
    assert r2.summary()["median_ms"] != r.summary()["median_ms"]   # a different card, other times
    q = StrategyPanel(static=False, pace=0, threaded=False, profile="mi300a-apu")
    assert q.profile_picker.value == "mi300a-apu" and umkit.runtime.backend().profile.name == "mi300a-apu"
    q.set_enabled(False)
    assert q.profile_picker.disabled                         # not switchable during a run


def test_backend_error_during_a_run_is_a_message():
    umkit.use("sim", compute=False, vram=64 << 20)
    p = live()
    assert p.run_once(memory="device", size_mib=256, steps=3) is None
    assert "VRAM" in p.error and isinstance(p.model.last_exception, umkit.OutOfMemory)
    assert "umk-error" in p.message.value and p.runs == []


def test_model_without_widgets():
    m = PanelModel()
    assert m.status().startswith("ready")
    events = []
    res = m.run(dict(steps=3, size_mib=2), on_start=lambda r: events.append("start"),
                on_step=lambda r, rec: events.append(rec.step), on_end=lambda r: events.append("end"))
    assert events == ["start", 0, 1, 2, "end"] and res.summary()["steps"] == 3
    assert m.results == [res] and m.summary_rows()[0]["steps"] == 3


# -- drawing helpers ------------------------------------------------------------------------------------
def test_bar_heights_are_log_scaled():
    m = PanelModel()
    m.run(dict(steps=12, pattern="cpu_stats", every=4))
    html = P.bars_html(m.runs)
    pairs = re.findall(r'data-ms="([^"]+)"[^>]*style="height:([\d.]+)%', html)
    ms, h = np.array([float(a) for a, _ in pairs]), np.array([float(b) for _, b in pairs])
    order = np.argsort(ms)
    assert np.all(np.diff(h[order]) >= -1e-9)           # taller for slower
    lo, hi = P.log_range(ms)
    assert lo <= ms.min() and hi >= ms.max() and hi >= 10 * lo
    assert "no runs yet" in P.bars_html([])


def test_counters_table_without_counters_says_so():
    run = P.PanelRun(1, P.PanelModel.settings(), *PanelModel.build({})[:3], planned=2,
                     color="#000", steps=[workloads.StepRecord(0, 1.0, {}), workloads.StepRecord(1, 2.0, {})],
                     running=False)
    m = PanelModel()
    m.runs.append(run)
    html = P.counters_html(m.summary_rows(), "cuda")
    assert "—" in html and "nsys" in html


def test_has_frontend(monkeypatch):
    assert has_frontend() is False                      # plain Python (pytest): no widget frontend
    monkeypatch.setenv("UMKIT_WIDGETS", "on")
    assert has_frontend() is True
    monkeypatch.setenv("UMKIT_WIDGETS", "static")
    assert has_frontend() is False


# -- widget trees build headless -------------------------------------------------------------------------
def test_widget_trees_build_headless():
    import ipywidgets as W
    p = live()
    assert isinstance(p.widget, W.VBox)
    kids = [c for box in p.widget.children for c in getattr(box, "children", [box])]
    assert p.run_button in kids and p.chart in p.widget.children and p.table in p.widget.children
    assert "sim" in p.backend_label.value
    b = p._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in b and "no runs yet" in b["text/plain"]
    a = umkit.managed(1 << 20)
    m = ResidencyMap(a, static=False)
    assert isinstance(m.widget, W.VBox) and "umk-rmap-grid" in m.grid.value
    assert "application/vnd.jupyter.widget-view+json" in m._repr_mimebundle_()
    e = ECGView(steps=2, strategies=("device",), static=False)
    assert isinstance(e.progress, W.IntProgress) and e.progress.max == 2
    a.free()


# -- residency map --------------------------------------------------------------------------------------
def test_residency_map_aggregates_a_1gib_array():
    a = umkit.managed(GIB // 4)                        # 1 GiB of float32
    m = residency_map(a, static=False)
    res = m.residency
    assert res.codes.size == GIB // res.page_bytes
    assert 0 < m.cells.size <= RM.CELLS and m.pages_per_cell > 1
    assert m.grid.value.count("<i ") == m.cells.size
    assert set(np.unique(m.cells).tolist()) == {0}      # nothing touched yet
    # a partial prefetch that ends inside a cell: GPU cells, untouched cells and one mixed cell
    umkit.prefetch(a, "gpu", nbytes=GIB // 2 + 3 * res.page_bytes)
    umkit.synchronize()
    m.update("after prefetch")
    present = set(np.unique(m.cells).tolist())
    assert {0, 2, 4} <= present
    assert m.caption.startswith("inhale")
    assert "mixed" in m.footer.value and "inhale" in m.footer.value and "after prefetch" in m.header.value
    umkit.prefetch(a, "cpu", nbytes=GIB // 4)
    umkit.synchronize()
    m.update()
    assert m.caption.startswith("exhale") and 1 in set(np.unique(m.cells).tolist())
    assert len(m.history) == 3
    a.free()


def test_residency_map_on_hardware_without_page_residency(monkeypatch):
    monkeypatch.setattr(RM, "residency", lambda arr: Residency(None, 4096, "the hardware does not tell"))
    m = ResidencyMap(umkit.managed(1 << 20), static=False)
    assert m.cells is None and "does not tell" in m.header.value and m.figure() is None


def test_breath_caption():
    assert RM.breath(None, {"gpu": 0.5, "both": 0.0}).startswith("50%")
    assert RM.breath({"gpu": 0.1}, {"gpu": 0.6}).startswith("inhale")
    assert RM.breath({"gpu": 0.6}, {"gpu": 0.1}).startswith("exhale")
    assert RM.breath({"gpu": 0.6}, {"gpu": 0.6}).startswith("steady")


# -- static fallbacks ---------------------------------------------------------------------------------------
def test_panel_static_fallback_returns_data_and_a_figure():
    from matplotlib.figure import Figure
    p = panel(run=[dict(steps=5), dict(steps=3, prefetch="gpu"), dict(steps=4, memory="device")])
    assert p.static                                       # no widget frontend under pytest
    assert [len(r.steps) for r in p.results] == [5, 3, 4]
    assert p.runs[2].strategy == workloads.Strategy("device", "device")   # runs don't inherit
    assert isinstance(p.figure(), Figure)
    b = p._repr_mimebundle_()
    assert b["image/png"][:4] == b"\x89PNG" and "managed" in b["text/plain"]
    assert p.chart.value == ""                            # static: nothing drawn in widgets
    assert len(panel().results) == 1                      # default: one run with the defaults


def test_residency_static_fallback():
    from matplotlib.figure import Figure
    a = umkit.managed(1 << 20)
    m = residency_map(a)
    assert m.static and isinstance(m.figure(), Figure)
    assert m._repr_mimebundle_()["image/png"][:4] == b"\x89PNG"
    a.free()


def test_ecg_static_fallback(capsys):
    from matplotlib.figure import Figure
    d = ecg(steps=3, strategies=("device", "managed"), pattern="cpu_stats", every=2)
    out = capsys.readouterr().out
    assert "memory ECG" in out and "managed" in out
    assert set(d["curves"]) == {"device", "managed"} and len(d["curves"]["managed"]) == 3
    assert [r["strategy"] for r in d["summary"]] == ["device", "managed"]
    v = ECGView(steps=2, strategies=("managed",))
    res = v.run()
    assert isinstance(v.fig, Figure) and res["steps"] == 2


def test_ecg_widget_moves_the_progress_bar():
    v = ECGView(steps=3, strategies=("device", "pinned"), static=False)
    res = v.run()
    assert v.progress.value == v.progress.max == 6 and v.progress.bar_style == "success"
    assert "umk-ecg-summary" in v.table.value and "pinned" in v.table.value
    assert v.image.value[:4] == b"\x89PNG" and res["summary"]


# -- the Voila dashboard ----------------------------------------------------------------------------------
def test_dashboard_notebook_shape():
    import nbformat
    from pathlib import Path
    nb = nbformat.read(Path(__file__).resolve().parents[2] / "notebooks" / "dashboard.ipynb", 4)
    kinds = [c.cell_type for c in nb.cells]
    assert kinds == ["markdown", "code"]
    assert nb.cells[0].source.startswith("# ")
    assert "umkit.widgets.panel(" in nb.cells[1].source
    assert nb.metadata.kernelspec.name == "python3"
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")


def test_dashboard_notebook_runs_headless(monkeypatch):
    """The dashboard's code cell in a real kernel: it displays the panel widget."""
    nbclient = pytest.importorskip("nbclient")
    import nbformat
    from pathlib import Path
    monkeypatch.setenv("UMKIT_WIDGETS", "on")
    monkeypatch.setenv("UMKIT_BACKEND", "sim")
    path = Path(__file__).resolve().parents[2] / "notebooks" / "dashboard.ipynb"
    nb = nbformat.read(path, 4)
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    outs = nb.cells[1].outputs
    assert [o.output_type for o in outs] == ["execute_result"]
    assert "application/vnd.jupyter.widget-view+json" in outs[0].data
    assert "no runs yet" in outs[0].data["text/plain"]
