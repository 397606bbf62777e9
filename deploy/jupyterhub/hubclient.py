"""Drive umkit's JupyterHub from outside, as a room of learners would: start it, sign learners
in, start their servers, run a notebook through each learner's own kernel, measure memory.

Used by the hub's CI test (tests/deploy/test_hub.py) and the load test (benchmarks/hub_load.py).
Every request goes to the loopback interface; every wait is bounded in time.
"""
from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import subprocess
import sys
import time
import uuid

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from umkit_hub import free_port  # noqa: E402,F401  (the client's callers use it too)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CONFIG = os.path.join(HERE, "jupyterhub_config.py")


class HubError(RuntimeError):
    """The hub, a learner's server or a kernel did not do what was asked in time."""


def proxy_command(repo=REPO) -> str | None:
    """configurable-http-proxy: the one run.sh installed under .hub/proxy, else one on PATH."""
    local = os.path.join(repo, ".hub", "proxy", "node_modules", ".bin", "configurable-http-proxy")
    if os.access(local, os.X_OK):
        return local
    from shutil import which
    return which("configurable-http-proxy")


def kill_leftover_proxy(state) -> None:
    """The proxy runs in a process group of its own: if the hub was killed before it could stop
    it, end it by its pid file (only if that process is still a configurable-http-proxy)."""
    pidfile = os.path.join(str(state), "hub", "proxy.pid")
    if not os.path.exists(pidfile):                   # a state folder from before STATE/hub/
        pidfile = os.path.join(str(state), "proxy.pid")
    try:
        with open(pidfile) as f:
            pid = int(f.read().strip())
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if b"configurable-http-proxy" not in f.read():
                return
        os.kill(pid, signal.SIGTERM)
    except (OSError, ValueError):
        pass


class Hub:
    """A real JupyterHub (its proxy included) on 127.0.0.1, in its own state folder."""

    def __init__(self, state: str, password: str | None = None, mem: str = "0", cpu: str = "0",
                 idle: int = 0, python: str = sys.executable, log_path: str | None = None,
                 extra_env: dict | None = None):
        self.state = os.path.abspath(state)
        self.password = password or secrets.token_urlsafe(12)
        self.token = secrets.token_hex(24)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.python, self.log_path = python, log_path or os.path.join(self.state, "hub.log")
        self.env = dict(os.environ, UMKIT_HUB_STATE=self.state, UMKIT_HUB_PASSWORD=self.password,
                        UMKIT_HUB_PORT=str(self.port), UMKIT_HUB_IP="127.0.0.1",
                        UMKIT_HUB_SERVICE_TOKEN=self.token, UMKIT_HUB_MEM=mem,
                        UMKIT_HUB_CPU=cpu, UMKIT_HUB_IDLE=str(idle), UMKIT_BACKEND="sim",
                        **(extra_env or {}))
        proxy = proxy_command()
        if proxy is None:
            raise HubError("configurable-http-proxy is not installed (bash run.sh hub installs "
                           "it with npm into .hub/proxy/)")
        self.env["UMKIT_HUB_PROXY"] = proxy
        self.proc: subprocess.Popen | None = None
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"token {self.token}"

    # --- life --------------------------------------------------------------------------------
    def start(self, timeout: float = 90) -> "Hub":
        os.makedirs(self.state, exist_ok=True)
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [self.python, "-m", "jupyterhub", "-f", CONFIG], cwd=self.state, env=self.env,
            stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                raise HubError(f"the hub exited with {self.proc.returncode}: {self.log_tail()}")
            try:
                if self.http.get(self.url + "/hub/api/", timeout=2).status_code == 200:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.3)
        raise HubError(f"the hub did not answer within {timeout:.0f} s: {self.log_tail()}")

    def stop(self, timeout: float = 90) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)   # the hub stops its servers and proxy
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        kill_leftover_proxy(self.state)
        self._log.close()
        self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def log_tail(self, n: int = 3000) -> str:
        try:
            with open(self.log_path, "rb") as f:
                return f.read()[-n:].decode(errors="replace")
        except OSError:
            return ""

    # --- the hub's REST API (the room service's token) ---------------------------------------
    def api(self, method: str, path: str, ok=(200, 201, 202, 204), **kw):
        r = self.http.request(method, self.url + "/hub/api" + path, timeout=30, **kw)
        if r.status_code not in ok:
            raise HubError(f"{method} /hub/api{path}: {r.status_code} {r.text[:300]}")
        return r.json() if r.content else None

    def create_user(self, name: str):
        return self.api("POST", f"/users/{name}", ok=(201, 409))

    def start_server(self, name: str):
        return self.api("POST", f"/users/{name}/server", ok=(201, 202, 400))

    def wait_ready(self, name: str, timeout: float = 120) -> float:
        """Seconds until the learner's server answers through the proxy."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            user = self.api("GET", f"/users/{name}")
            srv = (user.get("servers") or {}).get("", {})
            if srv.get("ready"):
                r = self.http.get(f"{self.url}/user/{name}/api/status", timeout=10)
                if r.status_code == 200:
                    return time.monotonic() - t0
            time.sleep(0.25)
        raise HubError(f"the server of {name} was not ready within {timeout:.0f} s: "
                       f"{self.log_tail()}")

    def stop_server(self, name: str):
        return self.api("DELETE", f"/users/{name}/server", ok=(202, 204, 400))

    def delete_user(self, name: str, timeout: float = 60):
        """Stop the learner's server (waiting for it) and remove the learner."""
        self.stop_server(name)
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            srv = (self.api("GET", f"/users/{name}").get("servers") or {})
            if not srv:
                break
            time.sleep(0.25)
        self.api("DELETE", f"/users/{name}", ok=(204, 404))

    # --- a learner's own view -------------------------------------------------------------------
    def word(self, name: str) -> str:
        """The learner's own word (what a learner adds after the room's password the first
        time): fixed per name and per client."""
        import hashlib
        return hashlib.sha256(f"{self.token}:{name.lower()}".encode()).hexdigest()[:12]

    def login(self, name: str, password: str | None = None,
              headers: dict | None = None) -> requests.Session:
        """Sign in through the hub's login form, as a browser does; the session keeps the cookie.
        Without PASSWORD: the room's password, a space and the learner's own word."""
        r, s, page = self.try_login(name, password, headers)
        if r.status_code != 302 or "jupyterhub-session-id" not in s.cookies:
            raise HubError(f"sign-in of {name} refused: {r.status_code} (login page "
                           f"{page.status_code})")
        return s

    def try_login(self, name: str, password: str | None = None, headers: dict | None = None):
        """One sign-in through the login form: (the answer, the session, the login page)."""
        s = requests.Session()
        s.headers.update(headers or {})          # the same on the page and the form's answer
        page = s.get(self.url + "/hub/login", timeout=30)
        xsrf = s.cookies.get("_xsrf", path="/hub/") or s.cookies.get("_xsrf")
        if password is None:
            password = f"{self.password} {self.word(name)}"
        r = s.post(self.url + "/hub/login?next=", timeout=60, allow_redirects=False,
                   data={"username": name, "password": password, "_xsrf": xsrf or ""})
        return r, s, page

    def contents(self, name: str, path: str) -> dict:
        r = self.http.get(f"{self.url}/user/{name}/api/contents/{path}", timeout=30)
        if r.status_code != 200:
            raise HubError(f"{name}: GET contents/{path}: {r.status_code} {r.text[:200]}")
        return r.json()

    def run_notebook(self, name: str, path: str, timeout: float = 300, on_done=None) -> dict:
        """Run every code cell of the learner's copy of PATH in a kernel of their own server;
        {'seconds', 'cells': [[output dicts] per code cell], 'error': None or text}.
        ``on_done(name)``, if given, runs after the last cell while the kernel is still alive
        (its value is returned as 'on_done')."""
        nb = self.contents(name, path)["content"]
        codes = [("".join(c["source"]) if isinstance(c["source"], list) else c["source"])
                 for c in nb["cells"] if c["cell_type"] == "code"]
        r = self.http.post(f"{self.url}/user/{name}/api/sessions", timeout=60,
                           json={"path": path, "type": "notebook", "name": path,
                                 "kernel": {"name": "python3"}})
        if r.status_code not in (200, 201):
            raise HubError(f"{name}: cannot start a kernel: {r.status_code} {r.text[:200]}")
        sess = r.json()
        try:
            res = asyncio.run(asyncio.wait_for(
                self._execute(name, sess["kernel"]["id"], codes), timeout))
            res["on_done"] = on_done(name) if on_done else None
            return res
        except asyncio.TimeoutError:
            raise HubError(f"{name}: {path} did not finish within {timeout:.0f} s") from None
        finally:
            self.http.delete(f"{self.url}/user/{name}/api/sessions/{sess['id']}", timeout=30)

    def run_code(self, name: str, codes: list[str], timeout: float = 120) -> dict:
        """Run CODES (a list of cells) in a new kernel of the learner's own server, as the
        learner; the result as run_notebook's.  The kernel is shut down afterwards."""
        r = self.http.post(f"{self.url}/user/{name}/api/kernels", timeout=60,
                           json={"name": "python3"})
        if r.status_code not in (200, 201):
            raise HubError(f"{name}: cannot start a kernel: {r.status_code} {r.text[:200]}")
        kid = r.json()["id"]
        try:
            return asyncio.run(asyncio.wait_for(self._execute(name, kid, codes), timeout))
        except asyncio.TimeoutError:
            raise HubError(f"{name}: the code did not finish within {timeout:.0f} s") from None
        finally:
            self.http.delete(f"{self.url}/user/{name}/api/kernels/{kid}", timeout=30)

    async def _execute(self, name, kernel_id, codes):
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect
        ws_url = (f"ws://127.0.0.1:{self.port}/user/{name}/api/kernels/{kernel_id}/channels"
                  f"?session_id={uuid.uuid4().hex}")
        conn = await websocket_connect(HTTPRequest(
            ws_url, headers={"Authorization": f"token {self.token}"}),
            max_message_size=256 << 20)
        t0, cells, error = time.monotonic(), [], None
        session = uuid.uuid4().hex
        try:
            for code in codes:
                msg_id = uuid.uuid4().hex
                await conn.write_message(json.dumps({
                    "header": {"msg_id": msg_id, "username": name, "session": session,
                               "msg_type": "execute_request", "version": "5.3"},
                    "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                    "content": {"code": code, "silent": False, "store_history": True,
                                "user_expressions": {}, "allow_stdin": False,
                                "stop_on_error": True}}))
                outs, replied, idle = [], False, False
                while not (replied and idle):
                    raw = await conn.read_message()
                    if raw is None:
                        raise HubError(f"{name}: the kernel's connection closed")
                    if isinstance(raw, bytes):
                        continue
                    m = json.loads(raw)
                    if m.get("parent_header", {}).get("msg_id") != msg_id:
                        continue
                    kind = m["header"]["msg_type"]
                    if kind == "execute_reply":
                        replied = True
                        if m["content"].get("status") == "error" and error is None:
                            error = "\n".join(m["content"].get("traceback", []))[-2000:] or \
                                m["content"].get("ename", "error")
                    elif kind == "status" and m["content"]["execution_state"] == "idle":
                        idle = True
                    elif kind in ("stream", "execute_result", "display_data", "error"):
                        outs.append({"output_type": kind, **m["content"]})
                cells.append(outs)
                if error:
                    break
        finally:
            conn.close()
        return {"seconds": time.monotonic() - t0, "cells": cells, "error": error}


def learner_memory(name: str) -> dict:
    """RSS and USS (bytes) of the learner's server and its kernels: every process whose
    environment says JUPYTERHUB_USER=name (readable: they run as the hub's user)."""
    import psutil
    rss = uss = n = 0
    for p in psutil.process_iter(["pid"]):
        try:
            if p.environ().get("JUPYTERHUB_USER") != name:
                continue
            m = p.memory_full_info()
            rss, uss, n = rss + m.rss, uss + m.uss, n + 1
        except (psutil.Error, OSError):
            continue
    return {"rss": rss, "uss": uss, "processes": n}
