"""The workshop dashboard without a browser: presets model the right card and set the panel,
the runs they give show what the presenter guide says (ping-pong spikes and their fix, XNACK off
and prefetch, oversubscription thrash), reset, projector mode, residency map and ECG beside."""
from __future__ import annotations

import matplotlib
import pytest

matplotlib.use("Agg")

import umkit  # noqa: E402
from umkit.teaching.widgets import PRESETS, Workshop  # noqa: E402


@pytest.fixture
def ws(monkeypatch):
    monkeypatch.delenv("UMKIT_WIDGETS", raising=False)
    umkit.use("sim", compute=False, quiet=True)
    w = Workshop(ecg_steps=6)
    w.panel.static, w.panel.pace, w.panel.threaded = False, 0.0, False
    yield w
    import matplotlib.pyplot as plt
    plt.close("all")


def run(w, key):
    p = w.apply(key)
    assert p is not None, w.panel.error
    assert umkit.runtime.backend().profile.name == p.profile
    assert w.panel.profile_picker.value == p.profile
    assert {k: w.panel.settings()[k] for k in p.settings} == p.settings
    assert "Ask the room" in w.ask.value
    res = w.panel.run_once(**{**p.settings, "steps": min(p.settings["steps"], 20)})
    assert res is not None, w.panel.error
    return res


def test_presets_are_the_ones_the_guide_names():
    assert [p.key for p in PRESETS] == ["pingpong", "pingpong-fix", "xnack-off",
                                        "xnack-off-prefetch", "fits", "thrash"]


def test_pingpong_and_its_fix(ws):
    spiky = run(ws, "pingpong").summary()
    fixed = run(ws, "pingpong-fix").summary()
    # the ping-pong run's spikes dwarf the fixed run's (whose largest step is its cold first one)
    assert spiky["max_over_median"] > 5 * fixed["max_over_median"]
    assert len(ws.panel.runs) == 2


def test_xnack_off_then_prefetch(ws):
    off = run(ws, "xnack-off")
    pre = run(ws, "xnack-off-prefetch")
    assert off.summary()["median_ms"] != pre.summary()["median_ms"]
    assert "estimate" in ws.panel.profile_picker.label       # MI250X numbers are partly estimates


def test_oversubscription_thrashes(ws):
    fits = run(ws, "fits")
    thrash = run(ws, "thrash")
    assert umkit.runtime.backend().profile.vram == 320 << 20
    assert thrash.counters.get("evictions", 0) > 0 and not fits.counters.get("evictions")
    assert thrash.summary()["median_ms"] > 20 * fits.summary()["median_ms"]


def test_reset_projector_map_and_ecg(ws):
    run(ws, "xnack-off")
    ws.projector(True)
    assert "umk-projector" in ws.widget._dom_classes and ws.projector_toggle.value
    ws.projector_toggle.value = False
    assert "umk-projector" not in ws.widget._dom_classes
    ws.breathe("prefetch")
    assert ws.rmap.caption.startswith("inhale")
    ws.breathe("cpu")
    assert ws.rmap.caption.startswith("exhale")
    res = ws.record_ecg()
    assert res and ws.ecg_image.value[:4] == b"\x89PNG" and "spiky" in ws.ecg_status.value
    ws.reset()
    assert ws.panel.runs == [] and ws.ask.value == "" and ws.ecg_image.value == b""
    assert umkit.runtime.backend().profile.name == "h200-pcie5"
    assert ws.panel.profile_picker.value == "h200-pcie5"
    with pytest.raises(umkit.InvalidArgument):
        ws.apply("nope")


def test_the_presenter_guide_quotes_todays_model():
    """notebooks/workshop/README.md's expected results are the model's current output: a
    profile change that moves them fails here until the guide is regenerated."""
    import re
    import sys
    from pathlib import Path
    import umkit.teaching.widgets  # noqa: F401
    workshop_module = sys.modules["umkit.teaching.widgets.workshop"]
    guide = (Path(__file__).resolve().parents[2] / "notebooks/workshop/README.md").read_text()
    block = re.search(r"<!-- expected: [^>]*-->\n(.*?)\n<!-- /expected -->", guide, re.S).group(1)
    assert block == workshop_module.guide_tables()


def test_reset_everything_brings_the_controls_back_to_the_panel_defaults(ws):
    from umkit.teaching.widgets.panel import DEFAULTS
    run(ws, "thrash")
    assert ws.panel.settings() != DEFAULTS
    ws.reset()
    assert ws.panel.settings() == DEFAULTS
    assert ws.panel.profile_picker.value == "h200-pcie5"


def test_the_ecg_image_is_hidden_until_it_is_recorded(ws):
    """An Image widget with no data is a broken-image icon in the browser."""
    assert ws.ecg_image.value == b"" and ws.ecg_image.layout.display == "none"
    ws.record_ecg()
    assert ws.ecg_image.value[:4] == b"\x89PNG" and ws.ecg_image.layout.display in ("", None)
    ws.reset()
    assert ws.ecg_image.layout.display == "none"


def test_the_chart_sits_under_the_controls_and_the_table_spans_below(ws):
    """The chart is in the panel's column right under Run (in sight after a run), not in the
    column beside it with the residency map; the counters table, twelve columns wide, spans the
    dashboard below both (tests/browser/test_workshop_geometry.py checks six runs on screen)."""
    row = next(c for c in ws.widget.children if ws.rmap_box in getattr(c, "children", ())
               or any(ws.rmap_box in getattr(k, "children", ()) for k in getattr(c, "children", ())))

    def inside(w, target):
        return w is target or any(inside(k, target) for k in getattr(w, "children", ()))
    main, side = row.children
    assert inside(side, ws.rmap_box) and not inside(side, ws.panel.chart)
    assert inside(main, ws.panel.run_button) and inside(main, ws.panel.chart)
    assert not inside(row, ws.panel.table) and inside(ws.widget, ws.panel.table)
