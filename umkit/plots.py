"""Static pictures (matplotlib): they draw results, they compute nothing."""
from __future__ import annotations

import numpy as np

STATE_COLORS = {0: "#dddddd", 1: "#4c78a8", 2: "#f58518", 3: "#54a24b", 4: "#b279a2"}
STATE_NAMES = {0: "unpopulated", 1: "CPU", 2: "GPU", 3: "both (read-mostly)", 4: "mixed"}


def _plt():
    """pyplot, imported on first drawing (importing umkit stays light)."""
    import matplotlib.pyplot as plt
    return plt


def ecg(ecg: dict, ax=None, log: bool = True):
    """Step-time curves, one per strategy (the memory ECG)."""
    plt = _plt()
    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(9, 4.2))
    for name, curve in ecg["curves"].items():
        ax.plot(range(len(curve)), curve, marker=".", lw=1.4, label=name)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel("step time (ms" + (", model time)" if ecg.get("backend") == "sim" else ")"))
    ax.set_title(ecg.get("title") or (
        f"memory ECG: {ecg['nbytes'] >> 20} MiB, pattern {ecg['pattern']}, "
        f"{ecg['backend']}" + (f" [{ecg['profile']}]" if ecg.get("profile") else "")))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=3)
    return fig or ax.figure


def step_bars(runs: list, ax=None):
    """Runs side by side: one bar per step, one colour per run (the panel's static fallback).
    ``runs``: RunResults, or dicts with ``label``, ``step_ms`` and optionally ``color``."""
    plt = _plt()
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
    ax.set_ylabel("step time (ms)")
    ax.set_xticks([])
    ax.legend(fontsize=8)
    return fig or ax.figure


def aggregate(codes: np.ndarray, cells: int) -> np.ndarray:
    """Fold per-page codes into at most ``cells`` cells (4 = a cell of mixed states)."""
    if codes.size <= cells:
        return codes.astype(np.int8)
    per = -(-codes.size // cells)
    pad = np.full(per * cells - codes.size, -1, dtype=np.int16)
    c = np.concatenate([codes.astype(np.int16), pad]).reshape(cells, per)
    first = c[:, 0]
    same = ((c == first[:, None]) | (c == -1)).all(axis=1)
    return np.where(same, first, 4).astype(np.int8)


def residency(codes: np.ndarray, ax=None, cells: int = 4096, title: str = "", page_bytes: int = 4096):
    """Where each page lives, as a grid of cells (pages aggregated for big arrays)."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch
    plt = _plt()
    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(8, 2.6))
    agg = aggregate(codes, cells)
    width = 64 if agg.size >= 256 else max(1, int(np.ceil(np.sqrt(agg.size))))
    rows = -(-agg.size // width)
    grid = np.full(rows * width, -1, dtype=np.int16)
    grid[:agg.size] = agg
    cmap = ListedColormap(["white"] + [STATE_COLORS[i] for i in range(5)])
    ax.imshow(grid.reshape(rows, width) + 1, cmap=cmap, vmin=0, vmax=5, aspect="auto",
              interpolation="nearest")
    ax.set_xticks([])
    ax.set_yticks([])
    per = -(-codes.size // agg.size)
    ax.set_title(title or f"{codes.size} pages of {page_bytes // 1024} KiB, "
                 f"{per} page(s) per cell", fontsize=9)
    present = sorted(set(np.unique(agg).tolist()))
    ax.legend(handles=[Patch(color=STATE_COLORS[i], label=STATE_NAMES[i]) for i in present],
              loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=5, fontsize=8, frameon=False)
    return fig or ax.figure
