"""The residency map: where each page of an array lives (CPU / GPU / both / unpopulated), one
coloured cell per page -- or per group of pages ("mixed" when they differ) for big arrays.

Call ``.update()`` after each step to watch the array *breathe* (呼吸): it inhales to the GPU
on prefetch or GPU faults, and exhales back to the CPU on eviction or CPU access.  The data comes
from :func:`umkit.residency` (the sim's page table); real GPUs don't report per-page residency,
so there the map shows the explanation instead.
"""
from __future__ import annotations

import html

import numpy as np

from .. import residency_plot as plots
from ...api import Residency, counters, residency
from ...runtime.lang import figure_fonts, for_figure, text, tr, tr_parts
from .panel import fig_png, has_frontend

CELLS = 2048                    # at most this many cells: 1 GiB of 4 KiB pages -> 128 pages a cell
CAPTION = ("Breathing (呼吸): the array <b>inhales</b> to the GPU on prefetch or GPU faults "
           "(cells turn orange) and <b>exhales</b> back to the CPU on eviction or CPU access "
           "(cells turn blue).")
CSS = """<style>
.umk-rmap{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#222;font-size:13px}
.umk-rmap-grid{display:grid;gap:1px;background:#fff;margin:4px 0;max-width:760px}
.umk-rmap-grid i{display:block;aspect-ratio:1/1;min-width:3px}
.umk-rmap-legend span{display:inline-block;margin-right:14px}
.umk-rmap-legend i{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:4px;
  vertical-align:-1px}
.umk-rmap-breath{font-size:14px;margin:2px 0}
.umk-rmap-caption{font-size:12px;color:#555}
</style>"""


def breath(before: dict | None, after: dict) -> str:
    """Inhale / exhale / steady, from two :meth:`Residency.summary` dicts."""
    if not after:
        return ""
    on_gpu = after.get("gpu", 0) + after.get("both", 0)
    if before is None:
        return f"{on_gpu:.0%} of the pages are on the GPU"
    was = before.get("gpu", 0) + before.get("both", 0)
    d = on_gpu - was
    if d > 0.0005:
        return f"inhale: +{d:.1%} of the pages moved to the GPU (now {on_gpu:.0%})"
    if d < -0.0005:
        return f"exhale: {-d:.1%} of the pages went back to the CPU (now {on_gpu:.0%} on the GPU)"
    return f"steady: {on_gpu:.0%} of the pages on the GPU"


def grid_html(cells: np.ndarray, columns: int | None = None) -> str:
    """The cells (codes 0-4) as a CSS grid of coloured ``<i>``."""
    n = int(cells.size)
    if columns is None:
        columns = 64 if n >= 256 else max(1, int(np.ceil(np.sqrt(n))))
    style = "".join(f".umk-c{k}{{background:{c}}}" for k, c in plots.STATE_COLORS.items())
    body = "".join(f'<i class="umk-c{int(c)}"></i>' for c in cells.tolist())
    width = min(760, columns * 12)         # at most; in a narrower column the cells get smaller
    return (f"<style>{style}</style><div class='umk-rmap-grid' style='grid-template-columns:"
            f"repeat({columns},1fr);width:100%;max-width:{width}px'>{body}</div>")


def legend_html(present) -> str:
    return "<div class='umk-rmap-legend'>" + "".join(
        f"<span><i style='background:{plots.STATE_COLORS[k]}'></i>{tr(plots.STATE_NAMES[k])}</span>"
        for k in sorted(present)) + "</div>"


class ResidencyMap:
    """A live picture of ``umkit.residency(arr)``.  ``.update(note='')`` re-reads it and
    redraws; ``.figure()`` is the static :func:`umkit.widgets.residency_plot` picture; ``.cells`` the
    aggregated codes (0 unpopulated, 1 CPU, 2 GPU, 3 both, 4 mixed)."""

    def __init__(self, arr, *, cells: int = CELLS, static: bool | None = None, title: str = ""):
        import ipywidgets as W

        from ... import validate as V
        from ...memory import require_array
        require_array(arr, "residency_map", "arr")
        cells = V.integer(cells, "cells", lo=1, hi=1 << 20, hint="e.g. cells=2048")
        V.string(title, "title")
        static = V.optional_flag(static, "static")
        self.arr, self.limit, self.title = arr, cells, title
        self.static = (not has_frontend()) if static is None else bool(static)
        self.residency: Residency | None = None
        self.cells: np.ndarray | None = None
        self.history: list[dict] = []           # summaries, one per update
        self.caption = ""
        self.counter_delta: dict = {}           # driver counters since the last update (cuda)
        self._counters = counters()
        self.header = W.HTML()
        self.grid = W.HTML()
        self.footer = W.HTML()
        self.widget = W.VBox([self.header, self.grid, self.footer])
        self.widget.add_class("umk-rmap")
        self.update()

    @property
    def pages_per_cell(self) -> int:
        if self.residency is None or self.residency.codes is None or self.cells is None:
            return 0
        return -(-self.residency.codes.size // max(1, self.cells.size))

    def update(self, note: str = "") -> Residency:
        """Re-read where the pages are, redraw, and say whether the array inhaled or exhaled."""
        if not isinstance(note, str):
            from ...errors import InvalidType
            from ...validate import shown
            raise InvalidType(f"note={shown(note)} must be a string", argument="note",
                              hint='a caption for this update, e.g. note="after prefetch"')
        res = residency(self.arr)
        before = self.history[-1] if self.history else None
        self.residency = res
        if res.codes is None:
            now = counters()                    # cuda with umkit.counters_on(): the driver's
            self.counter_delta = {k: v - self._counters.get(k, 0) for k, v in now.items()
                                  if v != self._counters.get(k, 0)}
            self._counters = now
            self.cells = None
            self.caption = res.source + (f"; since the last update: {counter_text(self.counter_delta)}"
                                         if now else "")
            self._draw(note)
            return res
        self.cells = plots.aggregate(res.codes, self.limit)
        now = res.summary()
        self.caption = breath(before, now)
        self.history.append(now)
        self._draw(note)
        return res

    def _draw(self, note: str):
        if self.static:
            return
        res = self.residency
        name = tr(self.title or f"{self.arr.nbytes / (1 << 20):,.0f} MiB {self.arr.kind} array")
        if res.codes is None:
            self.header.value = (CSS + "<div class='umk-rmap'>"
                                 + text("<b>{name}</b>: per-page residency is not available here.",
                                        name=html.escape(name))
                                 + f"<br>{html.escape(tr_parts(self.caption, '; '))}</div>")
            self.grid.value = self.footer.value = ""
            return
        per = self.pages_per_cell
        agg = (f"{per} pages per cell" + (" (mixed = pages of the cell in different places)"
                                          if per > 1 else "")) if per > 1 else "one page per cell"
        self.header.value = (CSS + "<div class='umk-rmap'>"
                             + text("<b>{name}</b>: {pages} pages of {kib} KiB, {agg}",
                                    name=html.escape(name), pages=f"{res.codes.size:,}",
                                    kib=res.page_bytes // 1024, agg=tr(agg))
                             + (f" · <i>{html.escape(tr(note))}</i>" if note else "") + "</div>")
        self.grid.value = grid_html(self.cells)
        s = self.history[-1]
        parts = " · ".join(f"{tr(k)} {v:.0%}" for k, v in s.items() if v)
        self.footer.value = (
            "<div class='umk-rmap'>" + legend_html(set(np.unique(self.cells).tolist()))
            + "<div class='umk-rmap-breath'>"
            + text("<b>{caption}</b> ({parts})", caption=html.escape(tr(self.caption)), parts=parts)
            + "</div>"
            f"<div class='umk-rmap-caption'>{tr(CAPTION)}</div></div>")

    def figure(self):
        """The static picture (:func:`umkit.widgets.residency_plot`), or None where the hardware
        can't tell."""
        res = self.residency
        if res is None or res.codes is None:
            return None
        title = self.title or ""
        fig = plots.residency(res.codes, cells=self.limit, title=title, page_bytes=res.page_bytes)
        if self.caption:
            ax = fig.axes[0]
            ax.set_title(f"{ax.get_title()}\n{for_figure(self.caption)}", fontsize=9)
            figure_fonts(fig)
        return fig

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        res = self.residency
        if res is not None and res.codes is not None:
            text = tr(f"residency map: {res.codes.size} pages; {self.caption}; {res.summary()}")
        else:
            text = tr(f"residency map: {self.caption if res else 'no data'}")
        if not self.static:
            bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude, **kwargs)
            bundle = dict((bundle[0] if isinstance(bundle, tuple) else bundle) or {})
            bundle["text/plain"] = text
            return bundle
        bundle = {"text/plain": text}
        fig = self.figure()
        if fig is not None:
            import matplotlib.pyplot as plt
            bundle["image/png"] = fig_png(fig)
            plt.close(fig)
        return bundle

    def __repr__(self):
        return f"<ResidencyMap {self.caption!r}>"


def counter_text(delta: dict) -> str:
    """The counters a residency map shows where per-page residency is unknown (real GPUs with
    hardware counters on): faults and bytes each way."""
    mib = 1 << 20
    return (f"GPU faults {delta.get('gpu_faults', 0):,}, CPU faults {delta.get('cpu_faults', 0):,}, "
            f"{delta.get('bytes_h2d', 0) / mib:,.1f} MiB to the GPU, "
            f"{delta.get('bytes_d2h', 0) / mib:,.1f} MiB to the CPU")


def residency_map(arr, *, cells: int = CELLS, static: bool | None = None,
                  title: str = "") -> ResidencyMap:
    """A residency map of ``arr`` (it displays itself); call ``.update()`` after each step."""
    return ResidencyMap(arr, cells=cells, static=static, title=title)
