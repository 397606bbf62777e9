"""JupyterLab in a real browser (headless Chromium through Playwright), on a learner workspace:
run-all of notebook 03 with no console errors and no error outputs; the strategy panel clicked and
screenshotted (artifacts/lab-panel.png); and the panel after an out-of-range value -- the message
shows, and Run, Reset and the controls come back (it used to lock)."""
from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
NB03 = "03_migration_prefetch_advice.ipynb"
RUN_ALL_S = 300

STATE_JS = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  if (!w || !w.content || !w.content.model || !w.sessionContext) return null;
  const cells = w.content.model.cells; let n = 0, done = 0; const errors = [];
  for (let i = 0; i < cells.length; i++) {
    const c = cells.get(i);
    if (c.type !== 'code') continue;
    n++;
    if (c.executionCount) done++;
    const outs = c.outputs.toJSON();
    for (const o of outs) if (o.output_type === 'error') errors.push(i + ': ' + o.ename + ': ' + o.evalue);
  }
  const k = w.sessionContext.session && w.sessionContext.session.kernel;
  return {n, done, errors, status: k ? k.status : 'none'};
}"""

# console lines that say nothing about the kit: the lab's own fetches of optional resources
BENIGN = ("favicon", "/api/workspaces", "/lab/api/", "translations", "DevTools")


def _console_errors(page) -> list[str]:
    return [m for m in page.console_lines
            if (m.startswith("error") or m.startswith("pageerror")) and not any(b in m for b in BENIGN)]


def open_notebook(page, lab, name: str):
    page.goto(f"{lab.url}lab/tree/{name}?reset", wait_until="domcontentloaded", timeout=60_000)
    try:
        page.wait_for_function(f"() => {{ const s = ({STATE_JS})(); return s && s.status === 'idle'; }}",
                               timeout=120_000)
    except Exception:
        pytest.fail("JupyterLab did not open the notebook with an idle kernel.\nconsole:\n"
                    + "\n".join(page.console_lines[-40:]) + "\nlab log:\n" + lab.log())


def _run_all(page, lab):
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    try:
        page.wait_for_function(f"() => {{ const s = ({STATE_JS})(); return s && s.n > 0 && "
                               "s.done === s.n && s.status === 'idle'; }", timeout=RUN_ALL_S * 1000,
                               polling=500)
    except Exception:
        pytest.fail(f"run-all did not finish: {page.evaluate(STATE_JS)}\nlab log:\n{lab.log()}")
    return page.evaluate(STATE_JS)


def _new_panel(page):
    """Append a cell with a fresh live panel and run it; returns its locator."""
    page.evaluate("""async () => {
      const app = window.jupyterapp, nb = app.shell.currentWidget.content;
      nb.activeCellIndex = nb.widgets.length - 1;
      await app.commands.execute('notebook:insert-cell-below');
      nb.activeCell.model.sharedModel.setSource(
        'import umkit, umkit.widgets\\numkit.use("sim", compute=False, quiet=True)\\n'
        + 'lock = umkit.widgets.panel(size_mib=8, steps=6)\\nlock');
      await app.commands.execute('notebook:run-cell');
    }""")
    panel = page.locator(".umk-panel").last
    panel.locator("button.umk-run").wait_for(timeout=60_000)
    return panel


def test_lab_run_all_03_then_click_the_panel(page, lab):
    open_notebook(page, lab, NB03)
    state = _run_all(page, lab)
    assert not state["errors"], state["errors"]
    # no outputs came with the learner's copy: every one on the page is this run's
    assert page.locator(".umk-rmap-grid").count() >= 3           # 03's live residency maps
    assert page.get_by_text("Would you like to get notified").count() == 0   # no news popup
    assert _console_errors(page) == [], "\n".join(_console_errors(page))

    # a fresh strategy panel below the notebook (03 no longer embeds one): run it
    panel = _new_panel(page)
    panel.scroll_into_view_if_needed()
    panel.locator("button.umk-run").click()
    panel.locator(".umk-bar").nth(5).wait_for(timeout=60_000)  # all six bars
    panel.locator("button.umk-run:not([disabled])").wait_for(timeout=60_000)
    panel.locator(".umk-status", has_text="done").wait_for(timeout=30_000)
    assert panel.locator(".umk-bar").count() == 6
    assert "#1" in panel.locator("table.umk-counters").inner_text()
    assert "MODELLED" in panel.locator(".umk-backend").inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "lab-panel.png"
    panel.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    assert _console_errors(page) == [], "\n".join(_console_errors(page))


def test_lab_panel_recovers_from_an_out_of_range_value(page, lab):
    open_notebook(page, lab, NB03)
    panel = _new_panel(page)
    size = panel.locator(".umk-ctl-size_mib input")
    size.fill("0")
    size.press("Enter")
    panel.locator("button.umk-run").click()
    panel.locator(".umk-error", has_text="out of range").wait_for(timeout=30_000)
    # the panel comes back: Run, Reset and the controls enabled, Stop disabled (each state
    # arrives as its own widget update: on a loaded machine Stop's can follow Run's)
    panel.locator("button.umk-run:not([disabled])").wait_for(timeout=30_000)
    panel.locator("button.umk-stop[disabled]").wait_for(timeout=30_000)
    assert panel.locator("button.umk-reset").is_enabled()
    assert panel.locator(".umk-ctl-memory select").is_enabled()
    assert size.is_enabled() and not panel.locator("button.umk-stop").is_enabled()
    size.fill("8")
    size.press("Enter")
    panel.locator("button.umk-run").click()
    panel.locator(".umk-bar").nth(5).wait_for(timeout=60_000)
    panel.locator("button.umk-run:not([disabled])").wait_for(timeout=30_000)
    assert panel.locator(".umk-error").count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    panel.screenshot(path=str(ARTIFACTS / "lab-panel-recovered.png"))
    assert _console_errors(page) == [], "\n".join(_console_errors(page))
