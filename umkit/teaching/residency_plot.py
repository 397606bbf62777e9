"""The residency picture: where each page of an array lives, as a grid of cells (matplotlib;
it draws ``umkit.residency(arr).codes``, it computes nothing)."""
from __future__ import annotations

import numpy as np

from .. import validate as V
from ..ecg import picture
from ..errors import InvalidType
from ..runtime.lang import figure_fonts, for_figure

STATE_COLORS = {0: "#dddddd", 1: "#4c78a8", 2: "#f58518", 3: "#54a24b", 4: "#b279a2"}
STATE_NAMES = {0: "unpopulated", 1: "CPU", 2: "GPU", 3: "both (read-mostly)", 4: "mixed"}


def page_codes(codes, name="codes"):
    """``codes`` as a 1-D integer array of page codes (``umkit.residency(arr).codes``), or a
    typed error naming ``name``."""
    V.string(name, "name", hint="the argument's name in the caller, e.g. 'codes'")
    if not isinstance(codes, np.ndarray) or codes.ndim != 1 or codes.dtype.kind not in "iu" \
            or codes.size == 0:
        raise InvalidType(f"{name} must be a 1-D integer NumPy array of page codes", argument=name,
                          hint="pass umkit.residency(arr).codes")
    return codes


def aggregate(codes: np.ndarray, cells: int) -> np.ndarray:
    """Fold per-page codes into at most ``cells`` cells (4 = a cell of mixed states)."""
    codes = page_codes(codes)
    cells = V.integer(cells, "cells", lo=1, hi=1 << 24, hint="e.g. cells=4096")
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
    codes, ax = page_codes(codes), picture.axes(ax)
    V.string(title, "title")
    page_bytes = V.integer(page_bytes, "page_bytes", lo=1, hi=1 << 40, hint="e.g. 4096")
    plt = picture.pyplot()
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
    ax.set_title(title or for_figure(f"{codes.size} pages of {page_bytes // 1024} KiB, "
                                     f"{per} page(s) per cell"), fontsize=9)
    present = sorted(set(np.unique(agg).tolist()))
    ax.legend(handles=[Patch(color=STATE_COLORS[i], label=for_figure(STATE_NAMES[i]))
                       for i in present],
              loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=5, fontsize=8, frameon=False)
    return figure_fonts(fig or ax.figure)
