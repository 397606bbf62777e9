"""The memory ECG picture: curves that coincide are told apart and named in the legend, the
steps where the CPU touches the data are shaded and the spike names its cause, the legend sits
outside the plot."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

import umkit  # noqa: E402
from umkit import ecg as ecg
from umkit.ecg import picture as plots  # noqa: E402


@pytest.fixture(scope="module")
def recorded():
    umkit.use("sim", compute=False, quiet=True)
    return ecg.record(steps=12, every=5)


def test_coinciding_curves_are_found():
    assert plots.coinciding({"a": [1, 2, 3], "b": [1, 2, 3.0000001], "c": [1, 2, 3]}) == {"c": "a"}
    assert plots.coinciding({"a": [1, 2], "b": [1, 2, 3]}) == {}


def test_ecg_picture_distinguishes_and_explains(recorded):
    import matplotlib.pyplot as plt
    same = plots.coinciding(recorded["curves"])
    fig = plots.ecg(recorded)
    ax = fig.axes[0]
    leg = ax.get_legend()
    labels = [t.get_text() for t in leg.get_texts()]
    for name, other in same.items():                    # e.g. managed+advice == managed+prefetch
        assert f"{name} (same curve as {other})" in labels
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    looks = {(ln.get_linestyle(), ln.get_marker(), ln.get_color()) for ln in lines.values()}
    assert len(looks) == len(recorded["curves"])        # no two curves drawn alike
    assert any("CPU reads the statistics (every 5 steps)" in t for t in labels)
    assert any("spike: the CPU reads the statistics" in t.get_text() for t in ax.texts)
    x0 = leg.get_bbox_to_anchor().transformed(ax.transAxes.inverted()).x0
    assert x0 > 1.0                                     # the legend is outside the axes
    plt.close(fig)
