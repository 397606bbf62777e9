"""The Chinese edition in a real browser: the workshop dashboard (Voila) and a Chinese notebook
(JupyterLab) show Chinese text drawn with a CJK font -- no tofu boxes.  A screenshot of each is
kept in artifacts/.

The tofu check draws each distinct Chinese character of the element on a canvas in the element's
own font: where no installed font has CJK glyphs, every character comes out as the same
missing-glyph box, so the drawings are all alike; with a CJK font they all differ."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from test_lab_browser import open_notebook

pytestmark = pytest.mark.browser
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"

GLYPHS_JS = r"""(sel) => {
  const el = document.querySelector(sel);
  if (!el) return {error: 'nothing matches ' + sel};
  const text = el.innerText;
  const cjk = Array.from(new Set(Array.from(text).filter(c => /[\u4e00-\u9fff]/.test(c)))).slice(0, 60);
  const cs = getComputedStyle(el);
  const c = document.createElement('canvas'); c.width = 48; c.height = 48;
  const g = c.getContext('2d', {willReadFrequently: true});
  g.font = `${cs.fontStyle} ${cs.fontWeight} 32px ${cs.fontFamily}`;
  const draw = ch => {
    g.clearRect(0, 0, 48, 48); g.fillStyle = '#000'; g.textBaseline = 'top'; g.fillText(ch, 4, 4);
    const d = g.getImageData(0, 0, 48, 48).data; let s = '';
    for (let i = 3; i < d.length; i += 4) s += d[i] > 127 ? '1' : '0';
    return s;
  };
  const missing = draw('\u{10FFFD}');        // a private-use code point: the missing-glyph box
  const shapes = new Set(); let boxes = 0;
  for (const ch of cjk) { const s = draw(ch); shapes.add(s); if (s === missing) boxes++; }
  return {sample: text.slice(0, 120), cjk: cjk.length, distinct: shapes.size, boxes,
          font: cs.fontFamily};
}"""


@pytest.fixture(autouse=True)
def _cjk_font():
    """Like a missing Chromium, a machine with no CJK font skips (test.sh installs one as root)."""
    fc = shutil.which("fc-list")
    if fc and not subprocess.run([fc, ":lang=zh"], capture_output=True, text=True).stdout.strip():
        pytest.skip("no CJK font installed (apt-get install fonts-wqy-microhei): Chromium would "
                    "draw the Chinese text as boxes")


def _assert_chinese_renders(page, selector):
    r = page.evaluate(GLYPHS_JS, selector)
    assert "error" not in r, r
    assert r["cjk"] >= 10, f"too little Chinese text in {selector}: {r}"
    # tofu: all characters drawn alike (one box); a CJK font draws each its own shape
    assert r["boxes"] == 0 and r["distinct"] >= 0.9 * r["cjk"], \
        f"Chinese text drawn as missing-glyph boxes (install a CJK font, e.g. fonts-wqy-microhei): {r}"
    return r


def test_chinese_workshop_dashboard_renders_chinese(page, voila_workshop_zh):
    page.goto(voila_workshop_zh.url, wait_until="domcontentloaded", timeout=60_000)
    try:
        page.wait_for_selector("button.umk-run", timeout=120_000)
    except Exception:
        pytest.fail("the Chinese dashboard never appeared.\nconsole:\n"
                    + "\n".join(page.console_lines) + "\nvoila log:\n" + voila_workshop_zh.log())
    _assert_chinese_renders(page, "body")
    # the widgets speak Chinese too, not only the markdown around them
    _assert_chinese_renders(page, ".umk-workshop")
    page.click("button.umk-run")
    page.locator(".umk-bar").nth(10).wait_for(timeout=120_000)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "workshop-zh.png"))
    errors = [m for m in page.console_lines if m.startswith(("error", "pageerror"))]
    assert errors == [], errors


def test_chinese_notebook_in_jupyterlab_renders_chinese(page, lab_zh):
    open_notebook(page, lab_zh, "00_start_here.ipynb")
    page.locator(".jp-RenderedMarkdown").first.wait_for(timeout=60_000)
    _assert_chinese_renders(page, ".jp-Notebook")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "notebook-00-zh.png"))
