"""The workshop dashboard on a presenter's screen (issue 46, "The presenter's screen"): at
1024x768, 1366x768, 1920x1080 and in projector mode (1280x800, zoom 1.4), in headless Chromium
with Voila serving ``notebooks/workshop/dashboard.ipynb`` as ``bash run.sh voila`` does:

* after the first demo's Run, the whole chart (its caption, bars, run label and legend) is inside
  the window, without the presenter scrolling (the Voila template scrolls it into sight where the
  chart sits below the controls);
* the counters table is fully visible, or sits in a box that scrolls sideways: its last column
  can be reached either way;
* nothing sticks out past the window's right edge unless it is inside a box that scrolls or clips
  sideways, and the page itself does not scroll sideways;
* the memory ECG, a thumbnail beside the residency map, is enlarged by a click on it (to at least
  twice its width and, where the window allows, nearly its own full width) and comes back small
  with a second click.

Skips (with the reason) where Voila, Playwright or /usr/bin/chromium is missing (conftest.py).
Screenshots: artifacts/dashboard-<case>-run.png and -ecg.png.

Without a browser: sizes the dashboard's field and ``umkit ecg --size`` take but one training
step cannot run (above 10,922 MiB: its kernel counts float32 elements in a 32-bit int; the
dashboard at 200,000 MiB, ``umkit ecg --size 65536``) get one plain message naming the limit,
not the kernel's or the allocator's own words."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import umkit
from umkit.ecg import MAX_JOB_MIB
from umkit.teaching.widgets.panel import MAX_MIB, PanelModel, size_message
from umkit.teaching.widgets.workshop import PRESETS
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"

SIZES = {"1024x768": (1024, 768, False), "1366x768": (1366, 768, False),
         "1920x1080": (1920, 1080, False), "projector": (1280, 800, True)}

BOX = """sel => { const e = document.querySelector(sel); if (!e) return null;
  const r = e.getBoundingClientRect();
  return {l: r.left, t: r.top, r: r.right, b: r.bottom, w: r.width, h: r.height,
          W: document.documentElement.clientWidth, H: window.innerHeight}; }"""

# the counters table: its box, the box that holds it sideways (the first ancestor whose
# overflow-x is not visible), and whether that box can scroll to the table's right edge
TABLE_JS = """() => {
  const t = document.querySelector('table.umk-counters'); const r = t.getBoundingClientRect();
  const W = document.documentElement.clientWidth;
  let clip = null;
  for (let a = t.parentElement; a && a !== document.body; a = a.parentElement) {
    const cs = getComputedStyle(a);
    if (cs.overflowX !== 'visible') { clip = a; break; } }
  const c = clip ? clip.getBoundingClientRect() : {left: 0, right: W};
  const cs = clip ? getComputedStyle(clip) : null;
  const last = [...t.querySelectorAll('tr:first-child th')].pop().getBoundingClientRect();
  return {l: r.left, r: r.right, W, clipL: c.left, clipR: c.right,
          scrolls: !!cs && ['auto', 'scroll'].includes(cs.overflowX),
          reach: clip ? clip.scrollWidth - clip.clientWidth : 0, lastR: last.right,
          headers: [...t.querySelectorAll('th')].map(h => h.innerText.replace(/\\s+/g, ' ').trim())};
}"""

# elements of the dashboard past the window's right edge, not inside a box that scrolls or clips
# sideways (such a box is checked itself)
OVERFLOW_JS = """() => {
  const W = document.documentElement.clientWidth, out = [];
  const held = el => { for (let a = el.parentElement; a && a !== document.body; a = a.parentElement)
      if (getComputedStyle(a).overflowX !== 'visible') return a.getBoundingClientRect().right <= W + 1;
    return false; };
  for (const el of document.querySelectorAll('.umk-workshop *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
    if ((r.right > W + 1 || r.left < -1) && !held(el))
      out.push(el.tagName.toLowerCase() + '.' + String(el.className).trim().split(/\\s+/).slice(0, 2)
               .join('.') + ' ' + Math.round(r.left) + '..' + Math.round(r.right) + ' > ' + W);
  }
  const sw = document.documentElement.scrollWidth;
  if (sw > W + 1) out.push('the page scrolls sideways: ' + sw + ' > ' + W);
  return out.slice(0, 20);
}"""


def _open(page, voila):
    page.goto(voila.url, wait_until="domcontentloaded", timeout=60_000)
    try:
        page.wait_for_selector("button.umk-run", timeout=120_000)
        page.wait_for_selector("table.umk-counters", timeout=30_000)
    except Exception:
        pytest.fail("the dashboard never appeared.\nconsole:\n" + "\n".join(page.console_lines)
                    + "\nvoila log:\n" + voila.log())


def _in_window(b, slack=1.0) -> bool:
    return (b["t"] >= -slack and b["b"] <= b["H"] + slack and b["l"] >= -slack
            and b["r"] <= b["W"] + slack)


@pytest.mark.browser
@pytest.mark.parametrize("case", list(SIZES))
def test_the_dashboard_fits_the_presenters_screen(page, voila_workshop, case):
    width, height, projector = SIZES[case]
    page.set_viewport_size({"width": width, "height": height})
    _open(page, voila_workshop)
    if projector:
        page.click(".umk-ws-projector")
        page.wait_for_selector(".umk-workshop.umk-projector", timeout=10_000)
    ARTIFACTS.mkdir(exist_ok=True)

    # -- Run the first demo: the chart in sight --------------------------------------------------
    first = PRESETS[0]
    page.select_option(".umk-ctl-preset select", index=1)
    page.locator(".umk-ws-ask", has_text=first.title[:12]).wait_for(timeout=30_000)
    page.wait_for_function("() => !document.querySelector('button.umk-run').disabled",
                           timeout=30_000)
    page.click("button.umk-run")
    try:
        page.wait_for_function(f"() => document.querySelectorAll('.umk-bar').length >= "
                               f"{first.settings['steps']}", timeout=180_000, polling=250)
        page.wait_for_selector("button.umk-run:not([disabled])", timeout=60_000)
    except Exception:
        page.screenshot(path=str(ARTIFACTS / f"dashboard-{case}-stuck.png"))
        pytest.fail(f"the run did not finish; status {page.locator('.umk-status').all_inner_texts()}"
                    f"\nvoila log:\n{voila_workshop.log()}")
    try:                           # the template scrolls once the run's group is drawn
        page.wait_for_function(
            "() => { const r = document.querySelector('.umk-ws-chart').getBoundingClientRect();"
            " return r.top >= -1 && r.bottom <= window.innerHeight + 1; }", timeout=10_000)
    except Exception:
        pass                                             # the assertion below says where it is
    time.sleep(0.3)
    page.screenshot(path=str(ARTIFACTS / f"dashboard-{case}-run.png"))
    chart = page.evaluate(BOX, ".umk-ws-chart")
    bars = page.evaluate(BOX, ".umk-chart .umk-bars")
    assert chart["h"] > 200 and bars["h"] > 150, (chart, bars)      # a chart, not a sliver
    assert _in_window(chart), f"the chart is not inside the {width}x{height} window: {chart}"

    # -- the counters table: every column shown, or reachable by scrolling sideways --------------
    t = page.evaluate(TABLE_JS)
    assert any("evictions" in h for h in t["headers"]), t["headers"]
    whole = t["l"] >= t["clipL"] - 1 and t["r"] <= t["clipR"] + 1 and t["r"] <= t["W"] + 1
    scrollable = t["scrolls"] and t["clipR"] <= t["W"] + 1 and \
        t["reach"] >= t["r"] - t["clipR"] - 1 > 0
    assert whole or scrollable, f"the counters table is cut with no way to its last column: {t}"

    # -- nothing sticks out past the right edge --------------------------------------------------
    assert page.evaluate(OVERFLOW_JS) == []

    # -- the memory ECG: a thumbnail, enlarged by a click on it, small again by another ----------
    page.click("button.umk-ws-ecg")
    try:
        page.wait_for_function("() => { const i = document.querySelector('img.umk-ws-ecg-img');"
                               " return i && i.complete && i.naturalWidth > 0 &&"
                               " i.getBoundingClientRect().width > 0; }", timeout=180_000)
    except Exception:
        pytest.fail(f"no ECG picture; {page.locator('.umk-ws-ecg-done, .umk-error').all_inner_texts()}"
                    f"\nvoila log:\n{voila_workshop.log()}")
    natural = page.evaluate("() => document.querySelector('img.umk-ws-ecg-img').naturalWidth")
    small = page.evaluate(BOX, "img.umk-ws-ecg-img")
    assert small["w"] < 0.6 * natural or small["w"] < 0.5 * width, small
    page.locator("img.umk-ws-ecg-img").click()
    page.wait_for_selector(".umk-workshop.umk-ecg-big", timeout=30_000)
    page.wait_for_function(f"() => document.querySelector('img.umk-ws-ecg-img')"
                           f".getBoundingClientRect().width > {2 * small['w']}", timeout=10_000)
    try:                           # scrolled into sight by the template
        page.wait_for_function(
            "() => { const r = document.querySelector('img.umk-ws-ecg-img').getBoundingClientRect();"
            " return r.top >= -1 && r.bottom <= window.innerHeight + 1; }", timeout=10_000)
    except Exception:
        pass
    time.sleep(0.3)
    page.screenshot(path=str(ARTIFACTS / f"dashboard-{case}-ecg.png"))
    big = page.evaluate(BOX, "img.umk-ws-ecg-img")
    # nearly the figure's own width where the window has room for it, else nearly the window's
    assert big["w"] >= 0.75 * min(natural, width - 80), (natural, small, big)
    assert _in_window(big), f"the enlarged ECG is not inside the window: {big}"
    assert page.evaluate(OVERFLOW_JS) == []
    page.locator("img.umk-ws-ecg-img").click()
    page.wait_for_function("() => !document.querySelector('.umk-workshop.umk-ecg-big')",
                           timeout=30_000)
    page.wait_for_function(f"() => document.querySelector('img.umk-ws-ecg-img')"
                           f".getBoundingClientRect().width <= {small['w'] + 1}", timeout=10_000)

    errors = [m for m in page.console_lines if m.startswith(("error", "pageerror"))]
    assert errors == [], errors


# -- sizes inside the fields' ranges that one step cannot run: a plain message with the limit ------
def test_the_largest_job_is_what_a_steps_kernel_can_count():
    """A job's parameters are 3/4 of its bytes in float32 (workloads.TrainingStep); the kernel
    takes at most 2**31-1 elements (umkit.increment)."""
    assert MAX_JOB_MIB == 10922
    assert ((MAX_JOB_MIB << 20) * 3 // 4) // 4 < 2**31 <= (((MAX_JOB_MIB + 1) << 20) * 3 // 4) // 4
    assert MAX_JOB_MIB < MAX_MIB                    # inside the dashboard field's own range


@pytest.mark.parametrize("mib", [MAX_JOB_MIB + 1, 200_000, MAX_MIB])
def test_the_dashboard_names_the_largest_buffer(mib):
    umkit.use("sim", compute=False, quiet=True)
    m = PanelModel()
    assert m.run(dict(size_mib=mib, steps=2, pattern="gpu_only")) is None
    assert "at most 10,922 MiB" in m.error and f"{mib:,} MiB" in m.error, m.error
    assert "increment_kernel" not in m.error and "umkit.touch" not in m.error
    assert m.runs == []
    assert isinstance(m.last_exception, umkit.InvalidArgument)


def test_a_buffer_this_machine_cannot_model_says_what_fits():
    """The sim's own out-of-memory error (model-only sim keeps the bytes a view touches in this
    machine's memory) speaks of umkit.touch and views; the dashboard says how much fits here."""
    umkit.use("sim", compute=False, quiet=True)
    exc = umkit.OutOfMemory("the bytes of a managed allocation of 8589934592 B ...",
                            hint="use umkit.touch / umkit.increment ...", requested=8 << 30,
                            free=6 << 30, kind="managed", device=0)
    msg = size_message(exc, 8 << 30)
    assert "8,192 MiB" in msg and "6.0 GiB free" in msg and "5,529 MiB" in msg, msg
    assert "umkit.touch" not in msg
    vram = umkit.OutOfMemory("device allocation of 268435456 B exceeds the simulated VRAM",
                             requested=256 << 20, free=64 << 20, total=64 << 20, kind="device")
    assert size_message(vram, 256 << 20) == str(vram)          # the modelled card's VRAM: as is
    other = umkit.InvalidArgument("x", argument="y")
    assert size_message(other, 1 << 20) == str(other)


def test_the_ecg_names_the_largest_job():
    with pytest.raises(umkit.InvalidArgument) as e:
        umkit.ecg.record(steps=1, nbytes=(MAX_JOB_MIB + 1) << 20)
    assert "at most 10,922 MiB" in str(e.value) and "increment_kernel" not in str(e.value)


def test_umkit_ecg_size_65536_is_one_plain_line():
    """``umkit ecg --size 65536`` (inside the CLI's documented 1..65536) ended on the kernel's
    "increment_kernel takes an int count"."""
    p = subprocess.run([sys.executable, "-m", "umkit.cli", "ecg", "--size", "65536", "--steps",
                        "1", "--quiet", "--backend", "sim"], capture_output=True, text=True,
                       timeout=300, env={**os.environ, "UMKIT_BACKEND": "sim"})
    assert p.returncode != 0
    assert "at most 10,922 MiB" in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert "increment_kernel" not in p.stderr + p.stdout
