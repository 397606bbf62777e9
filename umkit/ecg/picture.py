"""Static pictures (matplotlib): they draw results, they compute nothing."""
from __future__ import annotations

import numpy as np

from .. import validate as V
from ..errors import InvalidType
from ..runtime.lang import figure_fonts, for_figure as T
from .model import check

def pyplot():
    """pyplot, imported on first drawing (importing umkit stays light)."""
    import matplotlib.pyplot as plt
    return plt


#: one look per curve, so curves stay apart in greyscale and on a projector (colour, line, marker)
ECG_STYLES = (("#1f77b4", "-", "o"), ("#d62728", "-", "s"), ("#2ca02c", "--", "^"),
              ("#ff7f0e", ":", "D"), ("#9467bd", "-.", "v"), ("#8c564b", (0, (6, 2)), "P"),
              ("#e377c2", "-", "X"), ("#7f7f7f", "--", "*"))
#: what the step notes mean, for the spike labels
NOTE_CAUSES = {"cpu statistics": "the CPU reads the statistics",
               "cpu edits": "the CPU edits the data"}


def axes(ax):
    """None (a new figure) or a matplotlib Axes."""
    if ax is None:
        return None
    from matplotlib.axes import Axes
    if not isinstance(ax, Axes):
        raise InvalidType(f"ax={V.shown(ax)} is not a matplotlib Axes", argument="ax",
                          hint="leave it out (a new figure), or pass fig, ax = plt.subplots()")
    return ax


def coinciding(curves: dict, rtol: float = 1e-9) -> dict:
    """``{name: earlier name}`` for every curve identical (within ``rtol``) to one drawn before it."""
    V.mapping(curves, "curves", hint="{name: [step ms, ...]}")
    rtol = V.real(rtol, "rtol", lo=0.0, hint="a relative tolerance, e.g. 1e-9")
    seen, same = [], {}
    for name, c in curves.items():
        arr = np.asarray(V.reals(c, f"curves[{V.shown(name)}]"), dtype=float)
        for other, o in seen:
            if o.shape == arr.shape and np.allclose(arr, o, rtol=rtol, atol=0):
                same[name] = other
                break
        else:
            seen.append((name, arr))
    return same


def ecg(ecg: dict, ax=None, log: bool = True, fontsize: float = 12):
    """Step-time curves, one per strategy (the memory ECG).  Each curve has its own colour, line
    style and marker; a curve identical to another is drawn dashed over it and the legend says so;
    the steps where the CPU touches the data are shaded and the tallest spike names its cause;
    the legend sits outside the plot.  Sized to be read when projected."""
    ecg = check(ecg)
    ax = axes(ax)
    log = V.flag(log, "log")
    fontsize = V.real(fontsize, "fontsize", lo=4, hi=72, hint="points, e.g. fontsize=12")
    plt = pyplot()
    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(12, 5.2))
    curves = ecg["curves"]
    same = coinciding(curves)
    # the steps where the CPU touched the data: shaded bands behind the curves
    noted = sorted({int(s) for n in ecg.get("notes", {}).values() for s in n})
    causes = sorted({NOTE_CAUSES.get(t, t) for n in ecg.get("notes", {}).values() for t in n.values()})
    every = ecg.get("every")
    if noted:
        what = " / ".join(T(c) for c in causes) or T("the CPU touches the data")
        band = (T(f"{what} (every {every} steps)") if ecg.get("pattern") == "cpu_stats" and every
                else what)
        for i, st in enumerate(noted):
            ax.axvspan(st - 0.45, st + 0.45, color="#f2e6c9", zorder=0,
                       label=T(f"steps where {band}") if i == 0 else None)
    for i, (name, curve) in enumerate(curves.items()):
        color, ls, marker = ECG_STYLES[i % len(ECG_STYLES)]
        label = name
        kw = dict(lw=2.2, ms=6)
        if name in same:
            label = T(f"{name} (same curve as {same[name]})")
            ls, kw = (0, (3, 3)), dict(lw=2.6, ms=9, markerfacecolor="none", markeredgewidth=1.6)
        ax.plot(range(len(curve)), curve, color=color, linestyle=ls, marker=marker,
                label=label, zorder=3, **kw)
    if log:
        ax.set_yscale("log")
    if noted:                                    # headroom above the spikes for their label
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, hi * 6 if log else hi * 1.35)
    # name the cause of the tallest spike
    if noted and curves:
        name, curve = max(curves.items(), key=lambda kv: max(kv[1]) if len(kv[1]) else 0)
        k = int(np.argmax(curve))
        note = ecg.get("notes", {}).get(name, {})
        note = note.get(k, note.get(str(k)))
        if note:
            cause = T(NOTE_CAUSES.get(note, note))
            ax.annotate(T(f"spike: {cause}\n-> its pages migrate to the CPU (and back)"),
                        xy=(k, curve[k]), xytext=(0.01, 0.98), textcoords="axes fraction",
                        va="top", fontsize=fontsize - 1,
                        arrowprops=dict(arrowstyle="->", color="#444"),
                        bbox=dict(boxstyle="round", fc="white", ec="#999", alpha=0.9))
    ax.set_xlabel(T("training step"), fontsize=fontsize)
    ax.set_ylabel(T("step time (ms" + (", model time)" if ecg.get("backend") == "sim" else ")")),
                  fontsize=fontsize)
    prof = ecg.get("profile")
    where = f"{ecg['backend']}" + (f", modelled {prof}" if prof and ecg.get("backend") == "sim"
                                   else f" [{prof}]" if prof else "")
    ax.set_title(T(ecg.get("title")) or T(f"memory ECG: {ecg['nbytes'] >> 20} MiB, pattern "
                                       f"{ecg['pattern']}, {where}"), fontsize=fontsize + 1)
    ax.tick_params(labelsize=fontsize - 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=fontsize - 1, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              borderaxespad=0, frameon=False)
    figure_fonts(ax.figure)
    if fig is not None:
        fig.tight_layout()
    return fig or ax.figure


def step_bars(runs: list, ax=None):
    """Runs side by side: one bar per step, one colour per run (the panel's static fallback).
    ``runs``: RunResults, or dicts with ``label``, ``step_ms`` and optionally ``color``."""
    from ..workloads import RunResult
    ax = axes(ax)
    for r in V.sequence(runs, "runs", hint="a list of RunResults"):
        if not isinstance(r, RunResult):
            V.mapping(r, "runs item", ("label", "step_ms"),
                      hint="RunResults, or dicts with label, step_ms (and color)")
            V.reals(r["step_ms"], "runs item step_ms")
            V.string(r["label"], "runs item label")
    plt = pyplot()
    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(9, 3.6))
    x0 = 0
    for r in runs:
        ms = [s.ms for s in r.steps] if hasattr(r, "steps") else list(r["step_ms"])
        label = r.strategy if hasattr(r, "strategy") else r["label"]
        color = r.get("color") if isinstance(r, dict) else None
        ax.bar(np.arange(x0, x0 + len(ms)), ms, width=0.85, label=label, color=color)
        x0 += len(ms) + 2
    ax.set_yscale("log")
    ax.set_ylabel(T("step time (ms)"))
    ax.set_xticks([])
    ax.legend(fontsize=8)
    return figure_fonts(fig or ax.figure)


#: ``umkit.ecg.plot``: the memory ECG's picture by its public name
plot = ecg
