"""The recorder, live: a bar per step as your loop runs, then the ECG picture and verdict.

    view = umkit.widgets.recorder_view("my loop")     # shows the (empty) live chart
    with view.recorder() as rec:                      # = umkit.ecg.recorder(on_step=view.add)
        for batch in loader:
            train_step(batch)
            rec.step()
    # when the block ends: the ECG picture + summary table of the run

It draws what the recorder hands it (step records) and computes nothing (ARCHITECTURE
principle 6).  Without a widget frontend (plain Python, nbconvert/nbval) it shows the static
ECG figure and table at the end instead.
"""
from __future__ import annotations

import html

from ...runtime.lang import text, tr
from .ecg_widget import summary_html
from .panel import fig_png, has_frontend, in_ipython


class RecorderView:
    """Live bars (one per step, redrawn every ``every`` steps) and the final ECG."""

    def __init__(self, name: str = "your loop", *, every: int = 1, static: bool | None = None):
        from ... import validate as V
        V.text(name, "name", hint="e.g. umkit.widgets.recorder_view('my training loop')")
        every = V.integer(every, "every", lo=1, hi=1_000_000, hint="redraw every k steps, e.g. 1")
        static = V.optional_flag(static, "static")
        self.name, self.every = name, every
        self.static = (not has_frontend()) if static is None else bool(static)
        self.steps: list[float] = []
        self.notes: dict[int, str] = {}
        self.result = None
        self.fig = None
        if not self.static:
            import ipywidgets as W
            self.label = W.HTML(text("<b>{name}</b>: waiting for the first step",
                                     name=html.escape(name)))
            self.image = W.Image(format="png", layout=W.Layout(max_width="900px"))
            self.table = W.HTML()
            self.widget = W.VBox([self.label, self.image, self.table])
            self.widget.add_class("umk-recorder")

    # -- fed by the recorder ------------------------------------------------------------------------
    def add(self, record) -> None:
        """on_step callback: one finished step (a StepRecord)."""
        from ...errors import InvalidType
        from ...validate import shown
        from ...workloads import StepRecord
        if not isinstance(record, StepRecord):
            raise InvalidType(f"record={shown(record)} is not a StepRecord", argument="record",
                              hint="pass view.add as a recorder's on_step, or use view.recorder()")
        self.steps.append(record.ms)
        if record.note:
            self.notes[record.step] = record.note
        if not self.static and len(self.steps) % self.every == 0:
            self._draw_live()

    def recorder(self, **kwargs):
        """``umkit.ecg.recorder`` drawing into this view (and the final ECG when it ends)."""
        from ...ecg import Recorder
        view = self

        class _Rec(Recorder):
            def __exit__(self, *exc):
                out = super().__exit__(*exc)
                view.finish(self.result())
                return out
        return _Rec(self.name, on_step=self.add, **kwargs)

    def finish(self, result) -> None:
        """Draw the recorded run as the ECG (picture + summary table)."""
        import matplotlib.pyplot as plt

        from ...errors import InvalidType
        from ...ecg import RecordResult
        from ...validate import shown
        if not isinstance(result, RecordResult):
            raise InvalidType(f"result={shown(result)} is not a RecordResult", argument="result",
                              hint="pass rec.result() of a finished recorder")
        self.result = result
        self.fig = result.plot()
        if self.static:
            if in_ipython():                       # a notebook without widgets: show it now
                from IPython.display import display
                print(result.table())
                display(self.fig)
                plt.close(self.fig)
        else:
            row = result.summary()
            self.label.value = text("<b>{name}</b>: {n} steps, verdict <b>{verdict}</b>",
                                    name=html.escape(self.name), n=len(self.steps),
                                    verdict=tr(row["verdict"]))
            self.image.value = fig_png(self.fig)
            self.table.value = summary_html(result.to_ecg())
            plt.close(self.fig)

    def _draw_live(self) -> None:
        import matplotlib.pyplot as plt
        from ...ecg import picture as plots
        fig = plots.step_bars([dict(label=self.name, step_ms=self.steps)])
        self.image.value = fig_png(fig)
        plt.close(fig)
        self.label.value = text("<b>{name}</b>: step {n}, last {ms} ms",
                                name=html.escape(self.name), n=len(self.steps),
                                ms=f"{self.steps[-1]:.3f}")

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        if not self.static:
            b = self.widget._repr_mimebundle_(include=include, exclude=exclude, **kwargs)
            return dict((b[0] if isinstance(b, tuple) else b) or {})
        text = self.result.table() if self.result is not None else f"{self.name}: not recorded yet"
        bundle = {"text/plain": text}
        if self.fig is not None:
            bundle["image/png"] = fig_png(self.fig)
        return bundle


def recorder_view(name: str = "your loop", *, every: int = 1, static: bool | None = None):
    """A live view of ``umkit.ecg.recorder`` (see the module docstring); displayed at once in
    a notebook with a widget frontend."""
    view = RecorderView(name, every=every, static=static)
    if not view.static and in_ipython():
        from IPython.display import display
        display(view.widget)
    return view
