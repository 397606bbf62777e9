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


def _texts(fig):
    from matplotlib.text import Text
    return [t for t in fig.findobj(Text) if t.get_text()]


def test_in_the_chinese_workspace_the_picture_speaks_chinese_in_a_cjk_font(recorded, monkeypatch):
    """显存心电图 on the figure, its labels and legend in Chinese, drawn in the CJK font found;
    the strategies' names (code) stay as they are."""
    import re
    import warnings

    import matplotlib.pyplot as plt
    from umkit.runtime import lang
    font = lang.figure_font()
    if font is None:                                 # no CJK font here: pretend DejaVu is one
        font = "DejaVu Sans"
        monkeypatch.setattr(lang, "figure_font", lambda: font)
    lang.set_language("zh")
    try:
        with warnings.catch_warnings():
            if font == "DejaVu Sans":                # it has no Chinese glyphs: boxes, warned
                warnings.simplefilter("ignore")
            fig = plots.ecg(recorded)
    finally:
        lang.set_language(None)
    ax = fig.axes[0]
    assert ax.get_title().startswith("显存心电图：") and "sim，模拟" in ax.get_title()
    assert ax.get_xlabel() == "训练步" and ax.get_ylabel() == "每步耗时（ms，模型时间）"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert set(recorded["curves"]) <= {re.split("（", s)[0] for s in labels}
    assert any("CPU 读取统计数据（每 5 步一次）的步" == s for s in labels), labels
    assert any(t.get_text().startswith("毛刺：CPU 读取统计数据") for t in ax.texts)
    han = [t for t in _texts(fig) if re.search(r"[\u4e00-\u9fff]", t.get_text())]
    assert han and all(t.get_fontfamily()[0] == font for t in han)
    if lang.figure_font() != "DejaVu Sans":          # a real CJK font: every glyph is drawn
        with warnings.catch_warnings():
            warnings.simplefilter("error")           # matplotlib warns "Glyph ... missing"
            fig.canvas.draw()
    plt.close(fig)


def test_without_a_cjk_font_the_picture_stays_english(recorded, monkeypatch):
    """No font that draws Chinese: English labels, not empty boxes."""
    import matplotlib.pyplot as plt
    from umkit.runtime import lang
    monkeypatch.setattr(lang, "figure_font", lambda: None)
    lang.set_language("zh")
    try:
        fig = plots.ecg(recorded)
    finally:
        lang.set_language(None)
    assert fig.axes[0].get_title().startswith("memory ECG:")
    assert fig.axes[0].get_xlabel() == "training step"
    plt.close(fig)


def test_a_chinese_notebook_draws_its_own_chinese_labels(monkeypatch):
    """use_figure_font (what `import umkit` calls in a Chinese IPython session) adds the CJK font
    to matplotlib's families, so a notebook's own ax.set_title("...中文...") draws every glyph;
    in English nothing changes; without such a font it warns, in Chinese, what to install."""
    import warnings

    import matplotlib
    import matplotlib.pyplot as plt
    from umkit.runtime import lang
    monkeypatch.setitem(matplotlib.rcParams, "font.family", ["sans-serif"])
    assert lang.use_figure_font("en") is None
    assert list(matplotlib.rcParams["font.family"]) == ["sans-serif"]
    font = lang.figure_font()
    if font is not None:
        assert lang.use_figure_font("zh") == font
        assert list(matplotlib.rcParams["font.family"]) == ["sans-serif", font]
        assert lang.use_figure_font("zh") == font                     # twice: listed once
        assert list(matplotlib.rcParams["font.family"]) == ["sans-serif", font]
        fig, ax = plt.subplots()
        ax.set_title("乒乓：每 10 步 CPU 读 3 KiB")
        with warnings.catch_warnings():
            warnings.simplefilter("error")                             # "Glyph ... missing"
            fig.canvas.draw()
        plt.close(fig)
    monkeypatch.setitem(matplotlib.rcParams, "font.family", ["sans-serif"])
    monkeypatch.setattr(lang, "figure_font", lambda: None)
    with pytest.warns(UserWarning, match="fonts-wqy-microhei") as caught:
        assert lang.use_figure_font("zh") is None
    assert "没有找到能显示中文的字体" in str(caught[0].message)
    assert list(matplotlib.rcParams["font.family"]) == ["sans-serif"]
