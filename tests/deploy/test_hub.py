"""The workshop hub for real: ``bash run.sh hub`` on a copy of the repository starts JupyterHub and
its proxy; two learners sign in through the login form, their own servers start and land on
00_start_here, a notebook runs in each learner's own kernel with the committed outputs, and
everything shuts down.  Bounded in time; skipped (with the reason) only where the proxy cannot be
had (no npm)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "deploy" / "jupyterhub"))
sys.path.insert(0, str(ROOT / "tests"))

pytest.importorskip("jupyterhub")
import hubclient  # noqa: E402
from umkit_hub import CgroupLimits  # noqa: E402
from repo_tools import copy_repo, stop_group  # noqa: E402

PASSWORD = "room-pass-1234"


def _proxy(tmp_path):
    """The proxy test.sh installed, else installed now by the same script run.sh uses."""
    cmd = hubclient.proxy_command()
    if cmd:
        return cmd
    r = subprocess.run(["bash", "-c", ". scripts/setup_hub.sh && setup_proxy"], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    cmd = hubclient.proxy_command()
    if cmd is None:
        pytest.skip(f"configurable-http-proxy cannot be installed here: {r.stderr[-300:]}")
    return cmd




def _text_outputs(outputs):
    """What nbval compares, in text: stream text and text/plain results, images left out.
    Consecutive stream outputs are one text (a kernel may flush a print in one message or two,
    as nbval's own comparison allows)."""
    out = []
    for o in outputs:
        if o["output_type"] == "stream":
            text = o["text"] if isinstance(o["text"], str) else "".join(o["text"])
            if out and out[-1][0] == "stream":
                out[-1] = ("stream", out[-1][1] + text)
            else:
                out.append(("stream", text))
        elif o["output_type"] == "execute_result":
            t = o["data"].get("text/plain", "")
            out.append(("result", t if isinstance(t, str) else "".join(t)))
        elif o["output_type"] == "error":
            out.append(("error", o.get("ename", "")))
    return out


def _checked_cells(nb_path: Path):
    """The committed outputs of the code cells nbval checks exactly (no NBVAL_IGNORE_OUTPUT)."""
    nb = json.loads(nb_path.read_text())
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    return {i: _text_outputs(c["outputs"]) for i, c in enumerate(cells)
            if "NBVAL_IGNORE_OUTPUT" not in "".join(c["source"])}


@pytest.mark.slow
def test_run_sh_hub_serves_two_learners(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is needed to copy the repository's files")
    proxy = _proxy(tmp_path)
    if os.geteuid() == 0:       # isolated mode: learner accounts must reach the copy and a venv
        import tempfile
        from test_hub_isolation import venv_for_learners
        tmp_path = Path(tempfile.mkdtemp(prefix="umkit-hub-"))
        tmp_path.chmod(0o711)
        venv = venv_for_learners(tmp_path)
    else:
        venv = Path(sys.executable).parent.parent
    repo = copy_repo(tmp_path / "repo")
    hub = hubclient.Hub(tmp_path / "unused", password=PASSWORD)   # a port and a token
    env = {k: v for k, v in os.environ.items() if k not in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH")}
    env.update(UMKIT_VENV=str(venv), UMKIT_SKIP_INSTALL="1", UMKIT_HUB_PASSWORD=PASSWORD,
               UMKIT_HUB_SERVICE_TOKEN=hub.token, UMKIT_HUB_PROXY=proxy, UMKIT_BACKEND="sim",
               HOME=str(tmp_path / "home"), PYTHONHASHSEED="0")
    log = open(tmp_path / "hub.log", "w+")
    proc = subprocess.Popen(["bash", "run.sh", "hub", "--ip", "127.0.0.1", "--port", str(hub.port),
                             "--mem", "2G", "--cpu", "1", "--idle", "600"],
                            cwd=repo, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    hub.log_path = str(tmp_path / "hub.log")
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                pytest.fail(f"run.sh hub exited with {proc.returncode}:\n{hub.log_tail()}")
            assert time.monotonic() < deadline, hub.log_tail()
            try:
                if hub.http.get(hub.url + "/hub/api/", timeout=2).status_code == 200:
                    break
            except OSError:
                pass
            time.sleep(0.3)
        # a wrong password is refused; the room's password and a word of their own let a
        # learner in under a name of their own (hubclient adds the word)
        with pytest.raises(hubclient.HubError, match="refused"):
            hub.login("mallory", "not-the-password")
        learners = {name: hub.login(name) for name in ("ada", "grace")}
        for name, s in learners.items():          # as a browser: follow where sign-in leads
            s.get(hub.url + "/hub/", timeout=120)   # the hub starts the learner's server
        for name, s in learners.items():
            hub.wait_ready(name, timeout=120)
            landed = s.get(hub.url + "/hub/", timeout=60)      # signing in again: same place
            assert landed.status_code == 200, (landed.url, hub.log_tail())
            assert landed.url.endswith(f"/user/{name}/lab/tree/00_start_here.ipynb"), landed.url
        # names are case-insensitive: "ADA" is ada, with ada's word
        assert hub.login("ADA").get(hub.url + "/hub/", timeout=60).url.endswith(
            "/user/ada/lab/tree/00_start_here.ipynb")
        # each learner's own workspace: the notebooks with outputs cleared, in their own home
        for name in learners:
            nb = hub.contents(name, "00_start_here.ipynb")["content"]
            code = [c for c in nb["cells"] if c["cell_type"] == "code"]
            assert code and all(not c["outputs"] for c in code)
            assert (repo / ".hub" / "users" / name / "workspace" / "00_start_here.ipynb").exists()
        # a notebook in each learner's kernel gives the committed outputs
        expected = _checked_cells(repo / "notebooks" / "00_start_here.ipynb")
        assert len(expected) >= 5
        for name in learners:
            res = hub.run_notebook(name, "00_start_here.ipynb", timeout=180)
            assert res["error"] is None, res["error"]
            for i, want in expected.items():
                assert _text_outputs(res["cells"][i]) == want, (name, i)
        # the dashboard through Voila on a learner's own server, as the presenter guide says
        page = learners["ada"].get(f"{hub.url}/user/ada/voila/render/workshop/dashboard.ipynb",
                                   timeout=180)
        assert page.status_code == 200 and "jupyter-widgets" in page.text, page.text[:500]
        assert "where should a training job&#x27;s buffers live" in page.text or \
            "where should a training job's buffers live" in page.text   # the workshop one
        # a second hub from the same folder is refused instead of taking over the first's proxy
        second = subprocess.run(["bash", "run.sh", "hub", "--port", str(hubclient.free_port())],
                                cwd=repo, env=env, capture_output=True, text=True, timeout=120)
        assert second.returncode == 1 and "already running" in second.stderr, second.stderr[-500:]
        assert hub.http.get(hub.url + "/hub/api/", timeout=10).status_code == 200
        # the startup output says plainly which isolation holds
        said = (tmp_path / "hub.log").read_text()
        if os.geteuid() == 0:
            assert "learners are isolated" in said
        else:
            assert "learners are NOT isolated from each other" in said
        # the users the hub knows, and the password printed for the presenter
        names = {u["name"] for u in hub.api("GET", "/users")}
        assert {"ada", "grace"} <= names and "mallory" not in names
        assert PASSWORD in (tmp_path / "hub.log").read_text()
    finally:
        stop_group(proc, grace=90)
        hubclient.kill_leftover_proxy(repo / ".hub")
        log.close()
        from umkit_hub import hub_accounts, hub_groups, hub_prefix
        groups_left = hub_groups(hub_prefix(str(repo / ".hub")))
        if os.geteuid() == 0:
            for acct in hub_accounts(hub_prefix(str(repo / ".hub"))):
                subprocess.run(["userdel", acct], capture_output=True)
            shutil.rmtree(tmp_path, ignore_errors=True)       # made here, not by pytest
    # nothing left behind: no learner server still running from this hub, no control group of
    # its learners (--mem 2G --cpu 1)
    left = subprocess.run(["pgrep", "-f", str(repo / ".hub")], capture_output=True, text=True)
    assert left.stdout.strip() == "", left.stdout
    assert groups_left == [], groups_left


# -- the per-learner limits, on a control-group tree laid out in a temporary folder ---------------
def _fake_cgroup_v2(root: Path, own: str):
    (root / own.lstrip("/")).mkdir(parents=True)
    (root / "cgroup.controllers").write_text("cpu memory\n")


def test_limits_in_cgroup_v2(tmp_path, monkeypatch):
    root = tmp_path / "cg"
    _fake_cgroup_v2(root, "/box")
    monkeypatch.setattr("umkit_hub._own_cgroups", lambda: {"": "/box"})
    lim = CgroupLimits("learner-3", 2 << 30, 1.5, root=str(root))
    assert lim.create() is None
    d = root / "box" / "umkit-hub" / "learner-3"
    assert (d / "memory.max").read_text() == str(2 << 30)
    assert (d / "cpu.max").read_text() == "150000 100000"
    assert lim.applied == {"memory_bytes": 2 << 30, "cpus": 1.5}
    for f in d.iterdir():        # a real cgroup folder holds only kernel files; rmdir removes it
        f.unlink()
    lim.remove()
    assert not d.exists() and lim.dirs == []


def test_limits_in_cgroup_v1(tmp_path, monkeypatch):
    root = tmp_path / "cg"
    for ctrl in ("memory", "cpu"):
        (root / ctrl / "svc").mkdir(parents=True)
    monkeypatch.setattr("umkit_hub._own_cgroups", lambda: {"memory": "/svc", "cpu": "/svc"})
    lim = CgroupLimits("learner-1", 1 << 30, 0.5, root=str(root))
    assert lim.create() is None
    mem = root / "memory" / "svc" / "umkit-hub" / "learner-1"
    cpu = root / "cpu" / "svc" / "umkit-hub" / "learner-1"
    assert (mem / "memory.limit_in_bytes").read_text() == str(1 << 30)
    assert (cpu / "cpu.cfs_quota_us").read_text() == "50000"
    assert (cpu / "cpu.cfs_period_us").read_text() == "100000"


def test_limits_not_enforced_say_why(tmp_path, monkeypatch):
    root = tmp_path / "cg"
    root.mkdir()
    (root / "cgroup.controllers").write_text("")
    monkeypatch.setattr("umkit_hub._own_cgroups", lambda: {"": "/box"})
    os.chmod(root, 0o500)
    try:
        lim = CgroupLimits("learner-2", 1 << 30, None, root=str(root))
        why = lim.create()
        if os.geteuid() == 0:     # root writes anyway: the group is made
            assert why is None
            lim.remove()
        else:
            assert why and "cannot make a control group" in why and lim.applied == {}
    finally:
        os.chmod(root, 0o700)
    assert CgroupLimits("learner-2", None, None, root=str(root)).create() is None   # no limits asked


def test_limits_refuse_a_name_that_is_a_path(tmp_path):
    with pytest.raises(ValueError, match="letters, digits"):
        CgroupLimits("../escape", 1 << 30, None, root=str(tmp_path))


def test_leftover_groups_are_found(tmp_path, monkeypatch):
    from umkit_hub import hub_groups
    root = tmp_path / "cg"
    for ctrl in ("memory", "cpu"):
        for name in ("hab-learner-1", "hab-learner-2", "hzz-learner-1"):
            (root / ctrl / "svc" / "umkit-hub" / name).mkdir(parents=True)
    monkeypatch.setattr("umkit_hub._own_cgroups", lambda: {"memory": "/svc", "cpu": "/svc"})
    found = hub_groups("hab", root=str(root))
    assert len(found) == 4 and all("hab-learner-" in d for d in found)
