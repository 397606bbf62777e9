"""Fixtures for the browser tests: a Voila server on loopback serving notebooks/dashboard.ipynb,
a JupyterLab server on loopback over a learner workspace (the notebooks, outputs cleared), and a
headless Debian Chromium driven by Playwright.

Both skip (with the reason) where Voila, Playwright or /usr/bin/chromium is missing; CI installs
them (see the README's test section)."""
from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "notebooks" / "dashboard.ipynb"
WORKSHOP = ROOT / "notebooks" / "workshop" / "dashboard.ipynb"
WORKSHOP_ZH = ROOT / "notebooks" / "zh" / "workshop" / "dashboard.ipynb"
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = os.environ.get("UMKIT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SERVER_START_S = 60


@dataclass
class Server:
    url: str
    log: object          # () -> the end of the server's log, for failure messages


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _require(module: str, how: str):
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed in {sys.executable} ({how})")


@pytest.fixture(scope="session")
def voila(tmp_path_factory):
    """Start ``voila notebooks/dashboard.ipynb`` on 127.0.0.1 (free port, no token, no browser),
    wait for the port, yield the URL, terminate it at the end."""
    yield from _serve_voila(tmp_path_factory, DASHBOARD)


@pytest.fixture(scope="session")
def voila_workshop(tmp_path_factory):
    """The workshop dashboard (``notebooks/workshop/dashboard.ipynb``) as ``bash run.sh voila``
    serves it."""
    yield from _serve_voila(tmp_path_factory, WORKSHOP)


@pytest.fixture(scope="session")
def voila_workshop_zh(tmp_path_factory):
    """The Chinese edition's workshop dashboard (``notebooks/zh/workshop/dashboard.ipynb``: its
    folder's ``.umkit-lang`` marker makes umkit print Chinese)."""
    yield from _serve_voila(tmp_path_factory, WORKSHOP_ZH)


def _serve_voila(tmp_path_factory, notebook):
    _require("voila", "pip install voila")
    _require("ipykernel", "pip install ipykernel")
    tmp = tmp_path_factory.mktemp("voila")
    # the kernel must be this Python (the one with umkit): a kernelspec of our own, first on
    # JUPYTER_PATH, so a user-level "python3" kernelspec pointing elsewhere can't win
    spec = tmp / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (umkit tests)", "language": "python"}))
    env = dict(os.environ)
    # the repository's jupyter/: the offline Voila template and voila.json, as run.sh uses them
    env["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(tmp / "jupyter"), str(ROOT / "jupyter"),
                                                      env.get("JUPYTER_PATH", "")) if p)
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(p for p in (str(ROOT / "jupyter"),
                                                             env.get("JUPYTER_CONFIG_PATH", "")) if p)
    env["UMKIT_WIDGETS"] = "on"                   # a notebook-test setting must not make it static
    env.setdefault("MPLBACKEND", "Agg")
    env["PYTHONUNBUFFERED"] = "1"
    port = _free_port()
    log = open(tmp / "voila.log", "w+")
    cmd = [sys.executable, "-m", "voila", str(notebook), "--no-browser", f"--port={port}",
           "--Voila.ip=127.0.0.1", "--Voila.port_retries=0", "--Voila.token=",
           "--VoilaConfiguration.show_tracebacks=True", "--VoilaExecutor.kernel_name=python3",
           f"--Voila.root_dir={ROOT}"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)

    def log_text():
        log.flush()
        return (tmp / "voila.log").read_text()[-4000:]
    try:
        deadline = time.monotonic() + SERVER_START_S
        while not _port_open(port):
            if proc.poll() is not None:
                pytest.fail(f"voila exited with {proc.returncode}:\n{log_text()}")
            if time.monotonic() > deadline:
                pytest.fail(f"voila did not listen on 127.0.0.1:{port} within {SERVER_START_S} s:\n"
                            f"{log_text()}")
            time.sleep(0.25)
        yield Server(f"http://127.0.0.1:{port}/", log_text)
    finally:
        if proc.poll() is None:
            proc.terminate()                      # voila shuts its kernel down on SIGTERM
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:     # the group this fixture started, by its id
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        log.close()


def _kernelspec(tmp) -> dict:
    """An environment whose "python3" kernel is this Python (the one with umkit), first on
    JUPYTER_PATH, so a user-level "python3" kernelspec pointing elsewhere can't win."""
    spec = tmp / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (umkit tests)", "language": "python"}))
    env = dict(os.environ)
    env["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(tmp / "jupyter"), str(ROOT / "jupyter"),
                                                      env.get("JUPYTER_PATH", "")) if p)
    env["UMKIT_WIDGETS"] = "on"
    env["UMKIT_BACKEND"] = "sim"
    env.setdefault("MPLBACKEND", "Agg")
    env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    """``jupyter lab`` on 127.0.0.1 (free port, no token) over a fresh learner workspace made by
    :func:`umkit.teaching.workspace.sync` (the tests' runs never touch the committed notebooks), with the
    app exposed to the page (``window.jupyterapp``) and notebook windowing off, so the tests can
    wait on cell states instead of sleeping."""
    yield from _serve_lab(tmp_path_factory, "en")


@pytest.fixture(scope="session")
def lab_zh(tmp_path_factory):
    """The same over the Chinese workspace (``umkit workspace --lang zh``)."""
    yield from _serve_lab(tmp_path_factory, "zh")


def _serve_lab(tmp_path_factory, lang):
    _require("jupyterlab", "pip install jupyterlab")
    _require("ipykernel", "pip install ipykernel")
    from umkit.teaching import workspace
    tmp = tmp_path_factory.mktemp("lab")
    ws = tmp / "workspace"
    workspace.sync(ROOT / "notebooks", ws, lang=lang)
    env = _kernelspec(tmp)
    settings = tmp / "lab-settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    env["JUPYTERLAB_SETTINGS_DIR"] = str(tmp / "lab-settings")
    # the repository's jupyter/ as run.sh uses it (labconfig: no news/update fetches offline)
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(p for p in (str(ROOT / "jupyter"),
                                                             env.get("JUPYTER_CONFIG_PATH", "")) if p)
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(tmp / "lab-workspaces")
    env["JUPYTER_RUNTIME_DIR"] = str(tmp / "runtime")
    port = _free_port()
    log = open(tmp / "lab.log", "w+")
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
           "--ServerApp.ip=127.0.0.1", "--ServerApp.port_retries=0", "--IdentityProvider.token=",
           "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True",
           f"--ServerApp.root_dir={ws}", "--LabApp.expose_app_in_browser=True",
           "--MappingKernelManager.default_kernel_name=python3"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    proc = subprocess.Popen(cmd, cwd=ws, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)

    def log_text():
        log.flush()
        return (tmp / "lab.log").read_text()[-4000:]
    try:
        deadline = time.monotonic() + SERVER_START_S
        while not _port_open(port):
            if proc.poll() is not None:
                pytest.fail(f"jupyter lab exited with {proc.returncode}:\n{log_text()}")
            if time.monotonic() > deadline:
                pytest.fail(f"jupyter lab did not listen within {SERVER_START_S} s:\n{log_text()}")
            time.sleep(0.25)
        yield Server(f"http://127.0.0.1:{port}/", log_text)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:     # the group this fixture started, by its id
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        log.close()


@pytest.fixture
def page():
    """A page of headless Debian Chromium (Playwright drives it; no ``playwright install``)."""
    _require("playwright", "pip install playwright")
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        pytest.skip(f"chromium is not installed ({CHROMIUM} missing: apt-get install chromium)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            ctx = browser.new_context(viewport={"width": 1280, "height": 1000},
                                      device_scale_factor=1)
            pg = ctx.new_page()
            pg.console_lines = []
            pg.on("console", lambda m: pg.console_lines.append(f"{m.type}: {m.text}"))
            pg.on("pageerror", lambda e: pg.console_lines.append(f"pageerror: {e}"))
            yield pg
        finally:
            browser.close()
