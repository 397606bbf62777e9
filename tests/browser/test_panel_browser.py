"""The strategy panel in a real browser: Voila serves notebooks/dashboard.ipynb, headless
Chromium (Playwright) clicks Run and watches the bars grow, then a second run with prefetch,
and a screenshot goes to artifacts/panel.png."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from umkit.teaching.widgets.panel import DEFAULTS


pytestmark = pytest.mark.browser
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
STEPS = DEFAULTS["steps"]
OVERALL_S = 90


def _count(page) -> int:
    return page.locator(".umk-bar").count()


def _watch_run(page, expected: int, deadline: float, midway=None) -> list[int]:
    """Poll the number of bars until it reaches ``expected``; returns the counts seen.
    ``midway(page)`` is called once, when about half the bars are there."""
    seen = []
    while time.monotonic() < deadline:
        n = _count(page)
        if not seen or n != seen[-1]:
            seen.append(n)
        if midway is not None and expected // 2 <= n < expected:
            midway(page)
            midway = None
        if n >= expected:
            return seen
        time.sleep(0.03)
    return seen


def _counters(page) -> str:
    return page.locator("table.umk-counters").inner_text()


def test_panel_bars_grow_in_browser(page, voila):
    deadline = time.monotonic() + OVERALL_S
    page.goto(voila.url, wait_until="domcontentloaded", timeout=60_000)
    try:
        page.wait_for_selector("button.umk-run", timeout=60_000)     # kernel ran, widgets drawn
        page.wait_for_selector("table.umk-counters", timeout=30_000)
    except Exception:
        pytest.fail("the panel never appeared.\nbrowser console:\n" + "\n".join(page.console_lines)
                    + "\nvoila log:\n" + voila.log())
    assert "Strategy panel" in page.inner_text("body")
    assert _count(page) == 0
    before = _counters(page)

    # run 1: the starting settings (managed, CPU statistics every k steps)
    ARTIFACTS.mkdir(exist_ok=True)
    page.click("button.umk-run")
    seen = _watch_run(page, STEPS, deadline, midway=lambda pg: pg.screenshot(
        path=str(ARTIFACTS / "panel-running.png"), full_page=True))
    assert seen[-1] == STEPS, f"bars seen over time: {seen}\nvoila log:\n{voila.log()}"
    grew = [n for n in seen if 0 < n < STEPS]
    assert grew, f"the bars did not grow step by step (counts seen: {seen})"
    assert any(b > a for a, b in zip(seen, seen[1:]))
    page.wait_for_selector("button.umk-run:not([disabled])", timeout=30_000)
    after = _counters(page)
    assert after != before, "the counters table did not change"
    assert "#1" in after and "managed" in after
    ms = [float(v) for v in page.eval_on_selector_all(".umk-bar", "els => els.map(e => e.dataset.ms)")]
    assert len(ms) == STEPS and all(v > 0 for v in ms)
    page.wait_for_function("() => (document.querySelector('.umk-status') || {}).innerText"
                           "?.includes('done')", timeout=30_000)
    assert "done" in page.locator(".umk-status").inner_text()

    # run 2: prefetch to the GPU before each step -- a second group beside the first
    page.select_option(".umk-ctl-prefetch select", label="to GPU before each step")
    page.click("button.umk-run")
    seen2 = _watch_run(page, 2 * STEPS, deadline)
    assert seen2[-1] == 2 * STEPS, f"second run: bars seen {seen2}"
    page.wait_for_selector("button.umk-run:not([disabled])", timeout=30_000)
    text = _counters(page)
    assert "#2" in text and "prefetch" in text

    shot = ARTIFACTS / "panel.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    assert time.monotonic() < deadline + 5


def test_voila_panel_recovers_from_an_out_of_range_value(page, voila):
    """In Voila: 0 steps gives the message, and Run, Reset and the controls come back; a good
    value then runs.  No request leaves the machine (the offline template: no CDN stylesheet)."""
    outside = []
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(voila.url) else None)
    page.goto(voila.url, wait_until="domcontentloaded", timeout=60_000)
    page.wait_for_selector("button.umk-run", timeout=90_000)
    steps = page.locator(".umk-ctl-steps input")
    steps.fill("0")
    steps.press("Enter")
    page.click("button.umk-run")
    page.locator(".umk-error", has_text="out of range").wait_for(timeout=30_000)
    page.wait_for_selector("button.umk-run:not([disabled])", timeout=30_000)
    assert page.locator("button.umk-reset").is_enabled()
    assert page.locator(".umk-ctl-memory select").is_enabled() and steps.is_enabled()
    assert not page.locator("button.umk-stop").is_enabled()
    steps.fill("4")
    steps.press("Enter")
    page.click("button.umk-run")
    page.locator(".umk-bar").nth(3).wait_for(timeout=60_000)
    page.wait_for_selector("button.umk-run:not([disabled])", timeout=30_000)
    assert page.locator(".umk-error").count() == 0
    assert [u for u in outside if not u.startswith(("data:", "blob:", "ws:"))] == []
