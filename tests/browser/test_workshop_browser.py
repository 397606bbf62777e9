"""The workshop dashboard in Voila (as ``bash run.sh voila`` serves it), in headless Chromium:
a demo preset loads its card and settings, Run draws the bars, projector mode enlarges the page,
and nothing is fetched from outside the machine."""
from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


def test_workshop_dashboard_preset_run_projector(page, voila_workshop):
    outside = []
    page.on("request", lambda r: outside.append(r.url)
            if not r.url.startswith((voila_workshop.url, "data:", "blob:", "ws:")) else None)
    page.goto(voila_workshop.url, wait_until="domcontentloaded", timeout=60_000)
    try:
        page.wait_for_selector("button.umk-run", timeout=120_000)
    except Exception:
        pytest.fail("the dashboard never appeared.\nconsole:\n" + "\n".join(page.console_lines)
                    + "\nvoila log:\n" + voila_workshop.log())
    page.select_option(".umk-ctl-preset select", index=3)          # 3. MI250X, XNACK off
    page.locator(".umk-ws-ask", has_text="XNACK off").wait_for(timeout=30_000)
    page.locator(".umk-backend", has_text="MI250X").wait_for(timeout=30_000)
    assert "estimate" in page.locator(".umk-ctl-profile select").input_value() or \
        "estimate" in page.locator(".umk-ctl-profile").inner_text()
    page.click("button.umk-run")
    page.locator(".umk-bar").nth(39).wait_for(timeout=120_000)
    page.wait_for_selector("button.umk-run:not([disabled])", timeout=30_000)
    assert "mi250x-xnack0" in page.locator("table.umk-counters").inner_text()
    page.click("button.umk-rmap-prefetch")
    page.locator(".umk-rmap-breath", has_text="inhale").wait_for(timeout=30_000)
    page.click(".umk-ws-projector")
    page.wait_for_selector(".umk-workshop.umk-projector", timeout=10_000)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "workshop-projector.png"))
    assert outside == [], outside
    errors = [m for m in page.console_lines if m.startswith(("error", "pageerror"))]
    assert errors == [], errors
