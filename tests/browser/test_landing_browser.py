"""A newcomer's first page: ``bash run.sh`` (on a fresh copy of the repository, as a clone has it,
with a fresh home folder: no saved JupyterLab layout) prints a URL, and that URL, opened in
headless Chromium, shows notebook 00_start_here -- not the JupyterLab Launcher."""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from repo_tools import copy_repo, stop_group

pytestmark = pytest.mark.browser
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
START = "00_start_here.ipynb"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_the_url_run_sh_prints_opens_00_start_here(page, tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is needed to copy the repository's files")
    pytest.importorskip("jupyterlab")
    repo = copy_repo(tmp_path / "repo")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH")}
    env.update(UMKIT_VENV=str(Path(sys.executable).parent.parent), UMKIT_SKIP_INSTALL="1",
               HOME=str(tmp_path / "home"), JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
               UMKIT_BACKEND="sim")
    log_path = tmp_path / "lab.log"
    log = open(log_path, "w+")
    # as a newcomer types it, plus what a test needs: no browser of its own, a free port
    proc = subprocess.Popen(["bash", "run.sh", "--no-browser", f"--port={port}",
                             "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1"],
                            cwd=repo, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline, printed = time.monotonic() + 120, []
        while not printed:
            if proc.poll() is not None:
                pytest.fail(f"run.sh exited with {proc.returncode}:\n{log_path.read_text()[-3000:]}")
            assert time.monotonic() < deadline, log_path.read_text()[-3000:]
            log.flush()
            printed = re.findall(rf"http://127\.0\.0\.1:{port}/\S+", log_path.read_text())
            time.sleep(0.3)
        url = printed[0]                      # with its token, as the terminal shows it
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(url, wait_until="domcontentloaded", timeout=60_000)
        try:
            page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=90_000)
        except Exception:
            page.screenshot(path=str(tmp_path / "landing.png"))
            pytest.fail(f"no notebook opened at {url}\nlab log:\n{log_path.read_text()[-3000:]}")
        tab = ".lm-DockPanel .lm-TabBar-tab.jp-mod-current .lm-TabBar-tabLabel"
        current = page.locator(tab)
        try:                            # the shell settles its layout (slower on a loaded machine)
            page.wait_for_function(
                "([sel, s]) => [...document.querySelectorAll(sel)].map(e => e.innerText)"
                ".join('|') === s", arg=[tab, START], timeout=30_000)
        except Exception:
            pass                        # the assertion below says what is current
        page.wait_for_timeout(1000)     # and a Launcher opened late would show by now
        assert current.all_inner_texts() == [START], current.all_inner_texts()
        assert page.locator(".jp-Launcher:visible").count() == 0, "the Launcher is showing"
        assert "Start here" in page.locator(".jp-NotebookPanel:visible .jp-Cell").first.inner_text()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "landing.png"))
    finally:
        stop_group(proc, grace=20)
        log.close()
