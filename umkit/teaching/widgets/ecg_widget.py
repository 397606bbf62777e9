"""The memory ECG (显存心电图) as a widget: :func:`umkit.ecg.record` with a progress bar, then
:func:`umkit.ecg.plot` and the summary table.  Static fallback: the text table and the figure."""
from __future__ import annotations

import html

from ... import ecg as _ecg
from ...ecg import ECG_STRATEGIES
from ...runtime.lang import tr
from .panel import fig_png, has_frontend, in_ipython


class ECGResult(dict):
    """The ECG dict (as :func:`umkit.ecg.record` returns it) with a one-line repr, so a cell
    ending in ``umkit.widgets.ecg()`` doesn't print the whole dict under the picture."""

    def _repr_pretty_(self, p, cycle):
        p.text(f"<memory ECG: {len(self.get('curves', {}))} strategies x {self.get('steps')} steps, "
               f"pattern {self.get('pattern')}, backend {self.get('backend')}: a dict, see "
               "umkit.ecg.table(...)>")


def summary_html(result: dict) -> str:
    head = (f"<tr><th style='text-align:left'>{tr('strategy')}</th><th>{tr('median ms')}</th>"
            f"<th>p95 ms</th><th>max/median</th><th>{tr('verdict')}</th></tr>")
    rows = "".join(
        f"<tr><td style='text-align:left'>{html.escape(r['strategy'])}</td>"
        f"<td>{r['median_ms']:.4f}</td><td>{r['p95_ms']:.4f}</td><td>{r['max_over_median']:.2f}</td>"
        f"<td style='color:{'#b00' if r['verdict'] == 'spiky' else '#080'}'>{tr(r['verdict'])}</td></tr>"
        for r in result["summary"])
    return ("<table class='umk-ecg-summary' style='border-collapse:collapse;font-size:13px'>"
            "<style>.umk-ecg-summary td,.umk-ecg-summary th{padding:2px 10px;text-align:right;"
            "border-bottom:1px solid #ddd}</style>" + head + rows + "</table>")


class ECGView:
    """The ECG job and its picture.  ``.run()`` records (moving the progress bar) and returns
    the ECG dict; ``.fig`` is the matplotlib Figure, ``.widget`` the ipywidgets tree."""

    def __init__(self, steps: int = 50, nbytes: int = 64 << 20, pattern: str = "cpu_stats",
                 every: int = 10, strategies=ECG_STRATEGIES, *, static: bool | None = None):
        import ipywidgets as W

        from ... import validate as V
        steps, nbytes, strategies, pattern, every = _ecg.check_args(steps, nbytes, strategies,
                                                                    pattern, every)
        static = V.optional_flag(static, "static")
        self.kwargs = dict(steps=steps, nbytes=nbytes, strategies=tuple(strategies),
                           pattern=pattern, every=every)
        self.static = (not has_frontend()) if static is None else bool(static)
        self.result: ECGResult | None = None
        self.fig = None
        total = steps * len(self.kwargs["strategies"]) if isinstance(steps, int) else 0
        self.progress = W.IntProgress(value=0, min=0, max=max(1, total), description="memory ECG",
                                      bar_style="info", style={"description_width": "90px"},
                                      layout=W.Layout(width="520px"))
        self.label = W.HTML("")
        self.image = W.Image(format="png", layout=W.Layout(max_width="900px"))
        self.table = W.HTML()
        self.widget = W.VBox([W.HBox([self.progress, self.label]), self.image, self.table])
        self.widget.add_class("umk-ecg")
        from ...runtime.lang import localize
        localize(self.widget)           # the learner's language: labels

    def _progress(self, done, total, name):
        self.progress.max = total
        self.progress.value = done
        self.label.value = f"&nbsp;{html.escape(name)} ({done}/{total})"

    def run(self) -> ECGResult:
        import matplotlib.pyplot as plt
        from ...ecg import picture as plots
        cb = None if self.static else self._progress
        res = ECGResult(_ecg.record(progress=cb, **self.kwargs))
        self.result = res
        self.fig = plots.ecg(res)
        if not self.static:
            self.progress.bar_style = "success"
            self.label.value = "&nbsp;" + tr("done") + (" " + tr("(stopped)") if res.get("stopped")
                                                        else "")
            self.image.value = fig_png(self.fig)
            self.table.value = summary_html(res)
            plt.close(self.fig)
        return res

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        if not self.static:
            b = self.widget._repr_mimebundle_(include=include, exclude=exclude, **kwargs)
            return dict((b[0] if isinstance(b, tuple) else b) or {})
        bundle = {"text/plain": _ecg.table(self.result) if self.result else "memory ECG: not run"}
        if self.fig is not None:
            bundle["image/png"] = fig_png(self.fig)
        return bundle


def ecg(steps: int = 50, nbytes: int = 64 << 20, pattern: str = "cpu_stats", every: int = 10,
        strategies=ECG_STRATEGIES, *, static: bool | None = None) -> ECGResult:
    """Record the memory ECG with a progress bar, draw the curves and the summary table, and
    return the ECG dict.  Without a widget frontend: prints :func:`umkit.ecg.table` and shows
    the figure (in IPython) instead."""
    view = ECGView(steps, nbytes, pattern, every, strategies, static=static)
    ip = in_ipython()
    if not view.static and ip:
        from IPython.display import display
        display(view.widget)
    res = view.run()
    if view.static:
        print(_ecg.table(res))
        if ip:
            import matplotlib.pyplot as plt
            from IPython.display import display
            display(view.fig)
            plt.close(view.fig)
    return res
