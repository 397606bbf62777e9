"""The workshop dashboard: the strategy panel with its hardware-profile picker, presets for the
demos a presenter gives (ping-pong and its fix, XNACK off and prefetch, oversubscription and
thrash), a residency map and the memory ECG beside the panel, a reset, and a projector mode.

Served by ``bash run.sh voila`` (``notebooks/workshop/dashboard.ipynb``); the presenter guide is
``notebooks/workshop/README.md``.  Like the other widgets it draws results and computes nothing:
presets are plain settings for :class:`~umkit.widgets.panel.StrategyPanel` plus a sim profile
chosen through the public API (``umkit.use('sim', profile=..., vram=...)``).
"""
from __future__ import annotations

import html
import threading
from dataclasses import dataclass, field

from ...errors import InvalidArgument
from ...runtime import backend_name, use, using
from ...runtime.lang import text, tr
from .panel import DEFAULTS, StrategyPanel, error_message


@dataclass(frozen=True)
class Preset:
    """One demo: the card to model, the panel settings, and what to ask the room."""
    key: str
    title: str
    profile: str
    settings: dict
    ask: str
    vram_mib: int | None = None          # a smaller modelled VRAM (oversubscription demos)
    extra: dict = field(default_factory=dict)


PRESETS = (
    Preset("pingpong", "1. Ping-pong: managed memory, the CPU reads statistics every 10 steps",
           "h200-pcie5", dict(memory="managed", prefetch="off", advice="none", pattern="cpu_stats",
                              every=10, size_mib=64, steps=40),
           "Predict: how much slower are the statistic steps than the others? 2x, 10x, 100x?"),
    Preset("pingpong-fix", "2. ... the fix: hot data in device memory, cold data managed (mixed)",
           "h200-pcie5", dict(memory="mixed", prefetch="off", advice="none", pattern="cpu_stats",
                              every=10, size_mib=64, steps=40),
           "Which pages still move, and why are the spikes gone?"),
    Preset("xnack-off", "3. MI250X with XNACK off: managed memory, no prefetch",
           "mi250x-xnack0", dict(memory="managed", prefetch="off", advice="none",
                                 pattern="gpu_only", every=10, size_mib=64, steps=40),
           "With XNACK off the GPU cannot fault pages in. Where does the data stay, and what does "
           "every GPU access cost?"),
    Preset("xnack-off-prefetch", "4. ... XNACK off + explicit prefetch to the GPU",
           "mi250x-xnack0", dict(memory="managed", prefetch="gpu", advice="none",
                                 pattern="gpu_only", every=10, size_mib=64, steps=40),
           "Explicit prefetch still migrates with XNACK off: is one prefetch per step worth it?"),
    Preset("fits", "5. Oversubscription, before: 192 MiB on a card modelled with 320 MiB of VRAM",
           "h200-pcie5", dict(memory="managed", prefetch="off", advice="none", pattern="gpu_only",
                              every=10, size_mib=192, steps=20),
           "Everything fits. Now double the data: what happens to the step time?", vram_mib=320),
    Preset("thrash", "6. ... after: 384 MiB on the same 320 MiB card (managed memory thrashes)",
           "h200-pcie5", dict(memory="managed", prefetch="off", advice="none", pattern="gpu_only",
                              every=10, size_mib=384, steps=20),
           "Twice the data: how many times the step time? Watch the evictions column.",
           vram_mib=320),
)

CSS = """<style>
.umk-workshop{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}
.umk-ws-ask{background:#eef5ff;border:1px solid #c8dcf5;border-radius:4px;padding:6px 10px;
  font-size:15px;margin:4px 0;color:#123}
.umk-ws-side h3{margin:4px 0;font-size:17px}
.umk-ws-results{min-width:0}
/* the ECG beside the residency map is a thumbnail; "Enlarge the ECG" (or a click on it, see
   jupyter/voila/templates/umkit) gives it the dashboard's whole width */
.umk-workshop img.umk-ws-ecg-img{align-self:flex-start;width:auto;height:auto;
  max-width:min(100%,360px) !important;cursor:zoom-in}
.umk-workshop.umk-ecg-big img.umk-ws-ecg-img{max-width:100% !important;cursor:zoom-out}
.umk-workshop.umk-ecg-big .umk-ws-side-col{flex:1 1 100% !important;max-width:100% !important}
/* narrower than the panel + the map side by side (1024, 1366, 1400 px) and in projector mode:
   the row's boxes join the dashboard's column, the counters table right under the chart and
   the residency map and the ECG after it (not the table under the whole map); a box with
   display:contents has no box to clip with, so it says overflow:visible too */
@media (max-width:1499px){
  .umk-workshop .umk-ws-row{display:contents;overflow:visible !important}
  .umk-workshop .umk-ws-row>.umk-ws-main{order:1;flex:0 0 auto !important}
  .umk-workshop>.umk-ws-table-row{order:2}
  .umk-workshop .umk-ws-row>.umk-ws-side-col{order:3;flex:0 0 auto !important}
}
.umk-projector .umk-ws-row{display:contents;overflow:visible !important}
.umk-projector .umk-ws-row>.umk-ws-main{order:1;flex:0 0 auto !important}
.umk-projector>.umk-ws-table-row{order:2}
.umk-projector .umk-ws-row>.umk-ws-side-col{order:3;flex:0 0 auto !important}
.umk-projector{zoom:1.4}
.umk-projector .umk-title h2{font-size:30px}
.umk-projector table.umk-counters th,.umk-projector table.umk-counters td{padding:3px 4px}
</style>"""


def preset(key: str) -> Preset:
    from ... import validate as V
    V.string(key, "key", hint=f"a preset: one of {[p.key for p in PRESETS]}")
    for p in PRESETS:
        if p.key == key:
            return p
    raise InvalidArgument(f"preset {key!r} is unknown", argument="key",
                          hint=f"use one of {[p.key for p in PRESETS]}")


class Workshop:
    """The dashboard.  ``.widget`` is the ipywidgets tree; ``apply(key)`` loads a preset (the
    card and the controls; press Run), ``reset()`` clears everything, ``projector(on)`` switches
    the large-font mode, ``record_ecg()`` records the ECG on the current card."""

    def __init__(self, *, why: str | None = None, ecg_steps: int | None = None):
        import ipywidgets as W

        from ... import ecg as _ecg
        from ... import validate as V
        from .residency_map import ResidencyMap
        V.optional_string(why, "why")
        ecg_steps = V.integer(ECG_STEPS if ecg_steps is None else ecg_steps, "ecg_steps",
                              lo=1, hi=_ecg.MAX_STEPS,
                              hint="steps of the ECG button's run, e.g. 30")
        self._gpu = backend_name() if backend_name() != "sim" else None
        self.why = why
        self.ecg_steps = ecg_steps
        self.panel = StrategyPanel(why=why)
        self.preset_picker = W.Dropdown(
            options=[(tr("(choose a demo)"), "")] + [(tr(p.title), p.key) for p in PRESETS],
            value="",
            description="demo", style={"description_width": "112px"},
            layout=W.Layout(width="640px", max_width="100%"))
        self.preset_picker.add_class("umk-ctl-preset")
        self.preset_picker.observe(lambda c: c["new"] and self.apply(c["new"]), names="value")
        self.ask = W.HTML()
        self.reset_button = W.Button(description="Reset everything", button_style="warning",
                                     tooltip="clear the runs, back to the default card")
        self.reset_button.add_class("umk-ws-reset")
        self.reset_button.on_click(lambda _b: self.reset())
        self.projector_toggle = W.ToggleButton(value=False, description="Projector mode",
                                               tooltip="large fonts for a room")
        self.projector_toggle.add_class("umk-ws-projector")
        self.projector_toggle.observe(lambda c: self.projector(c["new"]), names="value")

        # beside the panel: a residency map to breathe with, and the ECG of the current card
        self._arr = None
        self.rmap_buttons = {k: W.Button(description=d, layout=W.Layout(width="150px"))
                             for k, d in (("gpu", "GPU touches it"), ("prefetch", "prefetch to GPU"),
                                          ("cpu", "CPU reads it"), ("back", "prefetch to CPU"))}
        for k, b in self.rmap_buttons.items():
            b.add_class(f"umk-rmap-{k}")
            b.on_click(lambda _b, k=k: self.breathe(k))
        self._new_array()
        self.rmap = ResidencyMap(self._arr, static=False, title="a 16 MiB managed array")
        self.rmap_box = W.VBox([W.HTML("<div class='umk-ws-side'><h3>Breathing (呼吸): where the "
                                       "pages live</h3></div>"),
                                W.HBox(list(self.rmap_buttons.values())[:2]),
                                W.HBox(list(self.rmap_buttons.values())[2:]), self.rmap.widget])
        self.ecg_button = W.Button(description="Record the memory ECG on this card",
                                   layout=W.Layout(width="300px", max_width="100%"))
        self.ecg_button.add_class("umk-ws-ecg")
        self.ecg_button.on_click(lambda _b: self.record_ecg(threaded=True))
        self.ecg_status = W.HTML()
        # hidden until an ECG is recorded: an empty image is a broken-image icon in the browser
        self.ecg_image = W.Image(format="png", layout=W.Layout(display="none"))
        self.ecg_image.add_class("umk-ws-ecg-img")
        # a 1072 px wide figure is a 356 px thumbnail beside the map: this gives it the width
        self.ecg_enlarge = W.ToggleButton(value=False, description="Enlarge the ECG",
                                          layout=W.Layout(width="200px", max_width="100%",
                                                          display="none"))
        self.ecg_enlarge.add_class("umk-ws-ecg-enlarge")
        self.ecg_enlarge.observe(lambda c: self.enlarge_ecg(c["new"]), names="value")
        self.ecg_box = W.VBox([W.HTML("<div class='umk-ws-side'><h3>Memory ECG (显存心电图)</h3>"
                                      "</div>"), self.ecg_button, self.ecg_status,
                               self.ecg_enlarge, self.ecg_image])
        # the panel's controls with its chart beside them (below them on narrow windows: the
        # Voila template scrolls it into sight when Run is pressed), beside the residency map and
        # the ECG; the counters table under them, across the width so its twelve columns have
        # room (narrower than 1500 px: right under the chart, the map after it, see CSS)
        pn = self.panel
        controls = W.VBox([w for w in pn.widget.children if w not in (pn.chart, pn.table)],
                          layout=W.Layout(padding="4px 10px", min_width="0", flex="0 1 650px",
                                          max_width="100%"))
        controls.add_class("umk-panel")
        chart = W.VBox([pn.chart], layout=W.Layout(padding="4px 10px", min_width="0",
                                                   flex="1 1 420px", max_width="100%"))
        results = W.VBox([pn.table], layout=W.Layout(padding="4px 10px", width="100%",
                                                     min_width="0"))
        for box in (chart, results):
            box.add_class("umk-panel")
            box.add_class("umk-ws-results")
        chart.add_class("umk-ws-chart")
        results.add_class("umk-ws-table-row")
        side = W.VBox([self.rmap_box, self.ecg_box],
                      layout=W.Layout(flex="0 1 360px", min_width="0", max_width="100%"))
        side.add_class("umk-ws-side-col")      # below the panel on narrow windows and projectors
        main = W.HBox([controls, chart],
                      layout=W.Layout(flex="1 1 1080px", min_width="0", max_width="100%",
                                      flex_flow="row wrap", align_items="flex-start"))
        main.add_class("umk-ws-main")
        top = W.HBox([self.preset_picker, self.reset_button, self.projector_toggle],
                     layout=W.Layout(align_items="center", flex_flow="row wrap"))
        row = W.HBox([main, side], layout=W.Layout(flex_flow="row wrap", width="100%"))
        row.add_class("umk-ws-row")
        self.widget = W.VBox([W.HTML(CSS), top, self.ask, row, results])
        self.widget.add_class("umk-workshop")
        from ...runtime.lang import localize
        localize(self.widget)           # the learner's language: labels, buttons, help

    # -- presets ---------------------------------------------------------------------------------
    def apply(self, key: str):
        """Load a preset: model its card (on sim) and set the panel's controls. Press Run next."""
        p = preset(key)
        if self.panel.running:
            self.panel.show_error("stop the run before choosing another demo")
            return None
        opts = {"vram": p.vram_mib << 20} if p.vram_mib else {}
        try:
            use("sim", profile=p.profile, compute=False, quiet=True, **opts)
            self.panel.set(**p.settings)
            self.panel.show_profile(p.profile)
        except Exception as exc:
            self.panel.show_error(error_message(exc))
            return None
        vram = " " + tr(f"(modelled VRAM: {p.vram_mib} MiB)") if p.vram_mib else ""
        self.ask.value = (f"<div class='umk-ws-ask'><b>{html.escape(tr(p.title))}</b>"
                          f"{html.escape(vram)}<br>"
                          + text("Ask the room: {ask} Then press <b>Run</b>.",
                                 ask=html.escape(tr(p.ask))) + "</div>")
        self._new_array()
        return p

    def reset(self):
        """Clear the runs, the ECG and the message; back to the default card and the panel's
        starting controls."""
        if self.panel.running:
            self.panel.stop()
            self.panel.wait(30)
        self.panel.reset()
        self.preset_picker.value = ""
        if self._gpu:
            self.panel.use_profile("")
        else:
            self.panel.use_profile("h200-pcie5")
        self.panel.set(**DEFAULTS)
        self.ask.value = ""
        self.ecg_image.value = b""
        self.ecg_image.layout.display = "none"
        self.enlarge_ecg(False)
        self.ecg_enlarge.layout.display = "none"
        self.ecg_status.value = ""
        self._new_array()

    def projector(self, on: bool = True):
        from ... import validate as V
        on = V.flag(on, "on")
        (self.widget.add_class if on else self.widget.remove_class)("umk-projector")
        if self.projector_toggle.value != bool(on):
            self.projector_toggle.value = bool(on)

    def enlarge_ecg(self, on: bool = True):
        """Show the memory ECG across the dashboard's width (``on``) or as the thumbnail beside
        the residency map (the "Enlarge the ECG" button; a click on the picture in Voila)."""
        from ... import validate as V
        on = V.flag(on, "on")
        (self.widget.add_class if on else self.widget.remove_class)("umk-ecg-big")
        if self.ecg_enlarge.value != on:
            self.ecg_enlarge.value = on
        self.ecg_enlarge.description = tr("Shrink the ECG" if on else "Enlarge the ECG")
        return on

    # -- residency map ---------------------------------------------------------------------------
    def _new_array(self):
        import umkit
        old, self._arr = self._arr, None
        if old is not None:
            try:
                old.free()
            except Exception:                            # its backend is gone after a switch
                pass
        self._arr = umkit.managed((16 << 20) // 4)
        if hasattr(self, "rmap"):
            self.rmap.arr = self._arr
            self.rmap.history.clear()
            self.rmap.update("a fresh array: no page populated yet")

    def breathe(self, action: str):
        import umkit

        from ... import validate as V
        V.choice(action, "action", ("gpu", "prefetch", "cpu", "back"))
        a = self._arr
        if action == "gpu":
            umkit.increment(a)
        elif action == "prefetch":
            a.prefetch("gpu")
        elif action == "cpu":
            float(a.host[:: 1024].sum())
        elif action == "back":
            a.prefetch("cpu")
        else:
            raise InvalidArgument(f"action {action!r} is unknown", argument="action",
                                  hint="use 'gpu', 'prefetch', 'cpu' or 'back'")
        umkit.synchronize()
        return self.rmap.update(dict(gpu="the GPU touched it", prefetch="prefetched to the GPU",
                                     cpu="the CPU read it", back="prefetched to the CPU")[action])

    # -- ECG ---------------------------------------------------------------------------------------
    def record_ecg(self, threaded: bool = False):
        from ... import validate as V
        if V.flag(threaded, "threaded"):
            t = threading.Thread(target=self.record_ecg, name="umkit-ecg", daemon=True)
            t.start()
            return t
        import matplotlib.pyplot as plt
        from ... import ecg
        from ...ecg import picture as plots
        from .panel import fig_png
        self.ecg_button.disabled = True
        self.ecg_status.value = tr("recording...")
        try:
            res = ecg.record(steps=self.ecg_steps)
            fig = plots.ecg(res)
            self.ecg_image.value = fig_png(fig)
            self.ecg_image.layout.display = ""
            self.ecg_enlarge.layout.display = ""
            plt.close(fig)
            spiky = [r["strategy"] for r in res["summary"] if r["verdict"] == "spiky"]
            self.ecg_status.value = ("<div class='umk-ws-ecg-done'>" + text(
                "{n} strategies x {steps} steps; spiky: {spiky}", n=len(res["curves"]),
                steps=res["steps"], spiky=html.escape(", ".join(spiky) or tr("none")))
                + "</div>")
            return res
        except Exception as exc:
            self.ecg_status.value = f"<div class='umk-error'>{html.escape(tr(error_message(exc)))}</div>"
            return None
        finally:
            self.ecg_button.disabled = False

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        b = self.widget._repr_mimebundle_(include=include, exclude=exclude, **kwargs)
        b = dict((b[0] if isinstance(b, tuple) else b) or {})
        b["text/plain"] = "<umkit workshop dashboard: strategy panel, presets, residency map, ECG>"
        return b


def workshop(*, why: str | None = None) -> Workshop:
    """The workshop dashboard (it displays itself as a cell's last expression)."""
    from ... import validate as V
    V.optional_string(why, "why")
    return Workshop(why=why)


#: steps of the dashboard's ECG button (and of the presenter guide's ECG table, so they agree)
ECG_STEPS = 30

#: the cards of the presenter guide's ECG table
GUIDE_CARDS = (("h200-pcie5", "H200"), ("mi250x-xnack1", "MI250X XNACK on (estimate)"),
               ("mi250x-xnack0", "MI250X XNACK off (estimate)"),
               ("mi250x-coherent", "MI250X CPU-coherent (estimate)"),
               ("mi300x", "MI300X (estimate)"), ("mi300a-apu", "MI300A APU (estimate)"))


def guide_tables() -> str:
    """The presenter guide's two "expected results" tables (notebooks/workshop/README.md),
    computed now on the sim backend: each preset's median step, max/median and what moved, and
    the memory ECG per card.  The guide embeds this text; a test keeps the two equal."""
    from ... import ecg
    from ... import workloads
    from .panel import PanelModel
    MiB = 1 << 20
    rows = ["| demo | card (profile) | median step | max/median | MiB to the GPU | MiB to the CPU |"
            " MiB read in place |", "|---|---|---|---|---|---|---|"]
    for p in PRESETS:
        opts = {"vram": p.vram_mib << 20} if p.vram_mib else {}
        with using("sim", profile=p.profile, compute=False, **opts):
            strat, patt, nbytes, steps = PanelModel.build(p.settings)
            r = workloads.run(strat, patt, steps, nbytes)
        s, c = r.summary(), r.counters
        rows.append(f"| {p.title} | `{p.profile}`" + (f", VRAM {p.vram_mib} MiB" if p.vram_mib
                                                        else "")
                    + f" | {s['median_ms']:.3g} ms | {s['max_over_median']:.3g}× | "
                    f"{(c.get('bytes_h2d', 0) + c.get('prefetch_bytes_h2d', 0)) / MiB:.0f} | "
                    f"{(c.get('bytes_d2h', 0) + c.get('prefetch_bytes_d2h', 0)) / MiB:.0f} | "
                    f"{c.get('remote_bytes', 0) / MiB:.0f} |")
    strategies = ecg.ECG_STRATEGIES
    table = ["| card | " + " | ".join(strategies) + " |", "|---|" + "---|" * len(strategies)]
    for profile, label in GUIDE_CARDS:
        with using("sim", profile=profile, compute=False):
            e = ecg.record(steps=ECG_STEPS)
        cells = {row["strategy"]: f"{row['median_ms']:.3g} ms, {row['max_over_median']:.3g}× "
                 f"({row['verdict']})" for row in e["summary"]}
        table.append(f"| {label} | " + " | ".join(cells[x] for x in strategies) + " |")
    return ("\n".join(rows) + f"\n\nThe memory ECG ({ECG_STEPS} steps, as the dashboard's button "
            "records it; 64 MiB, CPU statistics every 10 steps): median step, max/median and "
            "verdict per strategy:\n\n" + "\n".join(table))
