"""The picture of a recorded plan (matplotlib): who touched each buffer in each step, and what
moved.  It draws the recording; it computes nothing."""
from __future__ import annotations

import numpy as np

from ..ecg.picture import axes, pyplot
from ..runtime.lang import figure_fonts, for_figure as T

#: cell colours: nobody, the GPU, the CPU, both
TOUCH_COLOURS = ("#f2f2f2", "#1f77b4", "#d62728", "#9467bd")


def pattern(result, ax=None, max_buffers: int = 40):
    """A grid, one row a buffer (the largest ``max_buffers``) and one column a step: blue
    where the GPU touched it, red where the CPU did, purple both; beside it the MiB that moved
    each way.  Returns the figure."""
    ax = axes(ax)
    plt = pyplot()
    from matplotlib.colors import ListedColormap
    touched = result.touch_steps()
    bufs = sorted(result.buffers, key=lambda b: -b.nbytes)[:max_buffers]
    n = max(1, len(result.step_pattern))
    grid = np.zeros((max(1, len(bufs)), n), dtype=np.int8)
    for r, b in enumerate(bufs):
        g, c = touched[b.id]
        grid[r, g] += 1
        grid[r, c] += 2
    if ax is None:
        fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 0.9 + 0.28 * len(bufs)),
                                      gridspec_kw=dict(width_ratios=(3, 1)), sharey=True)
    else:
        fig, ax2 = ax.figure, None
    ax.imshow(grid, aspect="auto", interpolation="nearest", vmin=0, vmax=3,
              cmap=ListedColormap(TOUCH_COLOURS))
    ax.set_yticks(range(len(bufs)))
    ax.set_yticklabels([f"{b.name} ({b.nbytes / 2**20:.1f} MiB)" for b in bufs], fontsize=8)
    ax.set_xlabel(T("step"))
    ax.set_title(T(f"who touched what: GPU blue, CPU red, both purple ({result.backend})"))
    if ax2 is not None:
        y = np.arange(len(bufs))
        h2d = [b.moved.get("bytes_h2d", 0) / 2**20 for b in bufs]
        d2h = [b.moved.get("bytes_d2h", 0) / 2**20 for b in bufs]
        ax2.barh(y - 0.2, h2d, height=0.4, color="#1f77b4", label=T("to the GPU"))
        ax2.barh(y + 0.2, d2h, height=0.4, color="#d62728", label=T("to the CPU"))
        ax2.set_xlabel(T("MiB moved"))
        ax2.legend(fontsize=8, loc="lower right")
    figure_fonts(fig)
    fig.tight_layout()
    return fig
