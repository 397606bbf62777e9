"""The hub keeps learners apart (issue 46): ``bash run.sh hub`` as root gives each learner a
system account of their own.  Learner ada's kernel tries every read and write the issue found
open against learner bob and the hub, and each fails: bob's files, his processes, his kernel's
output (the kernels use unix sockets in a private folder, not loopback TCP), the hub's folder
through a link root would follow; a name, once taken, needs its owner's word; sign-in is
throttled per name, per address (a client's made-up address headers do not count) and overall;
an invalid name takes no learner's place; a learner's output reaches the hub's log escaped;
stopping a learner's server ends a process that keeps changing its pid and removes what the
learner left in System V IPC and /dev/shm; Ctrl-C stops the hub in under 5 s and leaves no
process behind (a detached one included).

Skipped, with the reason, when not root (learner accounts need root) or when the proxy cannot be
had (no npm).  CI runs as root with npm."""
from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "deploy" / "jupyterhub"))
sys.path.insert(0, str(ROOT / "deploy" / "jupyterhub" / "server"))

pytest.importorskip("jupyterhub")
import hubclient  # noqa: E402
from umkit_hub import (RUNTIME_BASE, Overall, Throttle, Words, client_address,  # noqa: E402
                       end_processes, find_processes, hub_accounts, hub_prefix, is_zombie,
                       holds_socket, loopback_owner, loopback_socket, own_home,
                       remove_stale_runtime_dirs,
                       printable, process_environ)

PASSWORD = "room-pass-1234"
ADMIN_PASSWORD = "presenter-" + "x" * 30


def _usable_by_others(python: str) -> str:
    """'' when another user (nobody) can run PYTHON with the kit; else why not."""
    try:
        r = subprocess.run([python, "-c", "import jupyterhub.singleuser, umkit"], user=65534,
                           group=65534, extra_groups=[], cwd="/", capture_output=True, text=True,
                           env={"PATH": "/usr/bin:/bin", "HOME": "/"}, timeout=120)
        return r.stderr.strip()[-200:] if r.returncode else ""
    except OSError as err:
        return f"{err.strerror}: {err.filename}"


def venv_for_learners(tmp: Path) -> Path:
    """The kit's venv when other users can run it; else (its base Python lies under a private
    folder such as /root/.pyenv) a venv of the system's Python of the same version that reads
    the kit's venv's packages (they must be readable by all), so the test runs here too.  What a
    real room needs, a venv every account can run, is what run.sh's hub checks at start."""
    venv = Path(sys.executable).parent.parent
    if not _usable_by_others(str(venv / "bin" / "python")):
        return venv
    ver = f"python{sys.version_info.major}.{sys.version_info.minor}"
    base = shutil.which(ver, path="/usr/bin:/usr/local/bin")
    if base is None:
        pytest.skip(f"the kit's venv cannot be run by another user and no system {ver} exists")
    overlay = tmp / "venv"
    subprocess.run([base, "-m", "venv", "--without-pip", str(overlay)], check=True, timeout=120)
    site = next((venv / "lib").glob("python3*/site-packages"))
    (overlay / "lib" / ver / "site-packages" / "umkit_overlay.pth").write_text(
        f"import site; site.addsitedir({str(site)!r})\n")
    # jupyter_server and JupyterLab find their extensions' config and the lab application under
    # sys.prefix (etc/jupyter, share/jupyter): the overlay's prefix must show the kit venv's
    # (each entry linked, except the kernel spec, which must start the overlay's own Python)
    for sub in ("etc", "share"):
        src = venv / sub / "jupyter"
        if src.is_dir():
            dst = overlay / sub / "jupyter"
            dst.mkdir(parents=True, exist_ok=True)
            for entry in src.iterdir():
                if not (sub == "share" and entry.name == "kernels"):
                    (dst / entry.name).symlink_to(entry)
    spec = overlay / "share" / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [str(overlay / "bin" / "python"), "-m", "ipykernel_launcher", "-f",
                 "{connection_file}"], "display_name": "Python 3 (ipykernel)",
        "language": "python", "metadata": {"debugger": True}}))
    script = overlay / "bin" / "jupyterhub-singleuser"
    script.write_text(f"#!{overlay}/bin/python\nimport sys\nfrom jupyterhub.singleuser import "
                      "main\nsys.exit(main())\n")
    script.chmod(0o755)
    why = _usable_by_others(str(overlay / "bin" / "python"))
    if why:
        pytest.skip(f"no Python here that another user can run with the kit: {why}")
    return overlay


@pytest.fixture(scope="module")
def room():
    with open_room() as info:
        yield info


@contextlib.contextmanager
def open_room(extra_env: dict | None = None, sign_in: tuple = ("ada", "bob")):
    """``bash run.sh hub`` as root on 127.0.0.1 with the learners ``sign_in`` names signed in
    and their servers ready (``extra_env``: more of the hub's environment, where ``{port}``
    stands for the hub's port); stopped with Ctrl-C and
    cleaned up at the end (accounts, processes, the proxy, the state folder).  Skips where
    learner accounts or the proxy cannot be had."""
    if os.geteuid() != 0:
        pytest.skip("learner accounts need root: as an ordinary user the hub runs every learner "
                    "as itself (not isolated; the README says so)")
    if shutil.which("useradd") is None:
        pytest.skip("useradd is missing")
    proxy = hubclient.proxy_command()
    if proxy is None:
        r = subprocess.run(["bash", "-c", ". scripts/setup_hub.sh && setup_proxy"], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
        proxy = hubclient.proxy_command()
        if proxy is None:
            pytest.skip(f"configurable-http-proxy cannot be installed here: {r.stderr[-300:]}")
    tmp = Path(tempfile.mkdtemp(prefix="umkit-hub-"))
    tmp.chmod(0o711)                         # learners pass through to their homes
    state = tmp / "state"
    venv = venv_for_learners(tmp)
    hub = hubclient.Hub(str(tmp / "unused"), password=PASSWORD)
    env = {k: v for k, v in os.environ.items() if k not in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH")}
    env.update(UMKIT_VENV=str(venv), UMKIT_SKIP_INSTALL="1", UMKIT_HUB_PASSWORD=PASSWORD,
               UMKIT_HUB_SERVICE_TOKEN=hub.token, UMKIT_HUB_PROXY=proxy, UMKIT_BACKEND="sim",
               UMKIT_HUB_STATE=str(state), UMKIT_HUB_ADMIN="presenter",
               UMKIT_HUB_ADMIN_PASSWORD=ADMIN_PASSWORD, UMKIT_HUB_SIGNIN_DELAY="2",
               HOME=str(tmp / "home"), PYTHONHASHSEED="0",
               **{k: v.format(port=hub.port) for k, v in (extra_env or {}).items()})
    # the hub's log holds what run.sh hub prints (the room's password among it): only root reads it
    log = open(os.open(tmp / "hub.log", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600), "w+")
    proc = subprocess.Popen(["bash", "run.sh", "hub", "--ip", "127.0.0.1", "--port", str(hub.port),
                             "--mem", "0", "--cpu", "0", "--idle", "3600", "--max-learners", "3"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    hub.log_path = str(tmp / "hub.log")
    info = {"hub": hub, "proc": proc, "state": state, "tmp": tmp}
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
        for name in sign_in:
            hub.login(name).get(hub.url + "/hub/", timeout=120)
        for name in sign_in:
            hub.wait_ready(name, timeout=120)
        yield info
    finally:
        if proc.poll() is None:          # a test failed before Ctrl-C: stop it the same way
            os.kill(proc.pid, signal.SIGINT)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)
        hubclient.kill_leftover_proxy(state)
        log.close()
        accounts = hub_accounts(hub_prefix(str(state)))          # the accounts this test made
        end_processes(uids=accounts.values(), env={"UMKIT_HUB_STATE": str(state)})
        for acct in accounts:
            subprocess.run(["userdel", acct], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def _hub_id(proc) -> str:
    """The UMKIT_HUB_ID run_hub.py gave the hub (its child's environment; read as root)."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == proc.pid:
                hub_id = process_environ(int(entry)).get("UMKIT_HUB_ID")
                if hub_id:
                    return hub_id
    raise AssertionError("the hub's process carries no UMKIT_HUB_ID")


def _pids_of(state: Path, hub_id_env: dict) -> dict:
    """{what: pid} of the hub's processes, found as root."""
    out = {}
    for pid in find_processes(env=hub_id_env):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        e = process_environ(pid)
        if "configurable-http-proxy" in cmd:
            out["proxy"] = pid
        elif "jupyterhub_idle_culler" in cmd:
            out["culler"] = pid
        elif "-m jupyterhub " in cmd:
            out["hub"] = pid
        elif "jupyterhub-singleuser" in cmd and e.get("JUPYTERHUB_USER") == "bob":
            out["bob-server"] = pid
        elif ("ipykernel" in cmd or "umkit_kernel" in cmd) and e.get("JUPYTERHUB_USER") == "bob":
            out["bob-kernel"] = pid
    return out


ATTACK = r'''
import json, os, urllib.request
T = json.loads(%r)
res = {}
def attempt(what, fn):
    try:
        res[what] = "LEAK: " + repr(fn())[:120]
    except (OSError, urllib.error.HTTPError) as err:
        res[what] = "denied: " + type(err).__name__
def read(p):
    with open(p, "rb") as f:
        return f.read(64)
def write(p):
    with open(p, "w") as f:
        f.write("ada was here")
    return "written"
for what, p in T["reads"].items():
    attempt("read " + what, lambda p=p: read(p))
for what, p in T["lists"].items():
    attempt("list " + what, lambda p=p: os.listdir(p))
for what, p in T["writes"].items():
    attempt("write " + what, lambda p=p: write(p))
for what, pid in T["pids"].items():
    attempt("environ of " + what, lambda pid=pid: read(f"/proc/{pid}/environ"))
    attempt("signal " + what, lambda pid=pid: os.kill(pid, 0))
tok = os.environ["JUPYTERHUB_API_TOKEN"]
for what, url in T["urls"].items():
    req = urllib.request.Request(url, headers={"Authorization": "token " + tok})
    attempt("own token: " + what, lambda req=req: urllib.request.urlopen(req, timeout=10).read(64))
print(json.dumps(res))
'''


def test_a_learner_cannot_reach_another_learner_or_the_hub(room):
    hub, state = room["hub"], room["state"]
    users = state / "users"
    # bob has a kernel running (its connection file exists) and a file of his own
    r = hub.http.post(f"{hub.url}/user/bob/api/kernels", json={"name": "python3"}, timeout=60)
    assert r.status_code in (200, 201), r.text
    bob_kernel = r.json()["id"]
    bob_runtime = Path(RUNTIME_BASE) / f"{hub_prefix(str(state))}-bob"   # 0700, bob's
    deadline = time.monotonic() + 60
    while not (bob_runtime / f"kernel-{bob_kernel}.json").exists():
        assert time.monotonic() < deadline, "bob's kernel wrote no connection file"
        time.sleep(0.2)
    hub_id = _hub_id(room["proc"])
    pids = _pids_of(state, {"UMKIT_HUB_ID": hub_id})
    assert {"proxy", "culler", "hub", "bob-server", "bob-kernel"} <= set(pids), pids
    pids["run_hub.py"] = room["proc"].pid
    # what those environments hold, read as root: the secrets the attack must not get
    env = {k: process_environ(p) for k, p in pids.items()}
    assert env["proxy"].get("CONFIGPROXY_AUTH_TOKEN")
    assert env["culler"].get("JUPYTERHUB_API_TOKEN")
    assert env["bob-server"].get("JUPYTERHUB_API_TOKEN")
    # the room's and the presenter's passwords and the room token are in no environment at all
    for pid in find_processes(env={"UMKIT_HUB_ID": hub_id}) + [room["proc"].pid]:
        blob = Path(f"/proc/{pid}/environ").read_bytes()
        for secret in (PASSWORD, ADMIN_PASSWORD, hub.token):
            assert secret.encode() not in blob, (pid, secret)
    private = state / "hub"
    targets = {
        "reads": {"cookie secret": str(private / "jupyterhub_cookie_secret"),
                  "hub database": str(private / "jupyterhub.sqlite"),
                  "room password": str(private / "password.env"),
                  "bob's notebook": str(users / "bob" / "workspace" / "00_start_here.ipynb"),
                  "bob's kernel connection file": str(bob_runtime / f"kernel-{bob_kernel}.json")},
        "lists": {"the hub's folder": str(private), "the learners' homes": str(users),
                  "bob's home": str(users / "bob"), "bob's runtime folder": str(bob_runtime)},
        "writes": {"bob's workspace": str(users / "bob" / "workspace" / "from_ada.txt"),
                   "bob's notebook": str(users / "bob" / "workspace" / "00_start_here.ipynb"),
                   "the hub's folder": str(private / "from_ada.txt"),
                   "the notebooks all learners copy": str(ROOT / "notebooks" / "from_ada.txt")},
        "pids": pids,
        "urls": {"bob's server": f"{hub.url}/user/bob/api/contents",
                 "the hub's user list": f"{hub.url}/hub/api/users",
                 "bob at the hub": f"{hub.url}/hub/api/users/bob"},
    }
    res = hub.run_code("ada", [ATTACK % json.dumps(targets)], timeout=120)
    assert res["error"] is None, res["error"]
    found = json.loads("".join(o.get("text", "") for o in res["cells"][0]))
    expected = ({f"read {k}" for k in targets["reads"]} | {f"list {k}" for k in targets["lists"]}
                | {f"write {k}" for k in targets["writes"]} | {f"own token: {k}" for k in targets["urls"]}
                | {f"{a} {k}" for k in pids for a in ("environ of", "signal")})
    assert set(found) == expected
    leaks = {k: v for k, v in found.items() if not v.startswith("denied")}
    assert not leaks, leaks
    assert not (users / "bob" / "workspace" / "from_ada.txt").exists()
    # a fork bomb stops at the account's process limit (RLIMIT_NPROC, UMKIT_HUB_NPROC)
    limits = Path(f"/proc/{pids['bob-kernel']}/limits").read_text()
    assert [ln.split()[2:4] for ln in limits.splitlines() if ln.startswith("Max processes")] \
        == [["2048", "2048"]], limits
    # the learners' homes: private, each its own account's
    for name in ("ada", "bob"):
        st = (users / name).stat()
        assert st.st_mode & 0o777 == 0o700
        assert pwd.getpwuid(st.st_uid).pw_name == f"{hub_prefix(str(state))}-{name}"


def _learner_uid(state, name):
    return pwd.getpwnam(f"{hub_prefix(str(state))}-{name}").pw_uid


def _out(res) -> str:
    """The text a code cell printed (its stream outputs joined: under load one print may come
    in two messages)."""
    return "".join(o.get("text", "") for o in res["cells"][0])


def _kernel_tcp_listeners(uid: int) -> list[str]:
    """Listening TCP sockets (IPv4 and IPv6) that a kernel of ``uid`` holds (its server's own
    port, which the proxy reaches, is not a kernel's), from /proc/net/tcp* and /proc/PID/fd."""
    kernels = []
    for pid in find_processes(uids=[uid]):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "ipykernel" in cmd or "umkit_kernel" in cmd:
            kernels.append(pid)
    assert kernels, f"no kernel of uid {uid} is running"
    out = []
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = [r.split() for r in Path(name).read_text().splitlines()[1:]]
        except OSError:
            continue
        out += [r[1] for r in rows if r[3] == "0A" and int(r[7]) == uid and
                holds_socket(kernels, int(r[9]))]
    return out


def test_a_forked_subprocess_output_still_reaches_the_learners_cell(room):
    """The kernel's pipe for forked subprocesses' output is a unix socket: the output still
    arrives, and the kernel holds no listening TCP socket."""
    hub = room["hub"]
    res = hub.run_code("ada", ["import os, sys\npid = os.fork()\nif pid == 0:\n"
                               "    print('FROM-THE-CHILD', flush=True)\n    os._exit(0)\n"
                               "os.waitpid(pid, 0)\nimport time; time.sleep(1)\nprint('PARENT')",
                               "import os\nmine = set()\nfor f in os.listdir('/proc/self/fd'):\n"
                               "    try:\n        mine.add(os.readlink('/proc/self/fd/' + f))\n"
                               "    except OSError:\n        pass\nn = 0\n"
                               "for t in ('/proc/net/tcp', '/proc/net/tcp6'):\n"
                               "    for r in open(t).read().splitlines()[1:]:\n"
                               "        c = r.split()\n"
                               "        n += c[3] == '0A' and f'socket:[{c[9]}]' in mine\n"
                               "print('LISTENING', n)"])
    assert res["error"] is None, res["error"]
    text = "".join(o.get("text", "") for o in res["cells"][0])
    assert "FROM-THE-CHILD" in text and "PARENT" in text, text
    listening = "".join(o.get("text", "") for o in res["cells"][1])
    assert listening.strip() == "LISTENING 0", listening


def test_a_learners_kernel_has_no_debugger_to_open(room):
    """JupyterLab's debugger starts debugpy's server on a loopback TCP port with no password (AT4:
    another learner ran code through it): the hub's kernel offers no debugger."""
    hub = room["hub"]
    res = hub.run_code("ada", ["from IPython import get_ipython\nk = get_ipython().kernel\n"
                               "print('debugger' in k.kernel_info.get('supported_features', []),"
                               " getattr(k, 'debugger', None) is None)"])
    assert res["error"] is None, res["error"]
    assert "".join(o.get("text", "") for o in res["cells"][0]).split() == ["False", "True"]


def test_a_learner_cannot_listen_to_another_learners_kernel(room):
    """IOPub needs no key to listen to: over loopback TCP any local user could subscribe."""
    hub, state = room["hub"], room["state"]
    out = {}

    def bob_works():
        out["bob"] = hub.run_code("bob", ["import time\nfor i in range(14):\n"
                                          "    print('BOB-PRIVATE-OUTPUT', i, flush=True)\n"
                                          "    time.sleep(0.5)"], timeout=120)
    import threading
    t = threading.Thread(target=bob_works)
    t.start()
    bob_uid = _learner_uid(state, "bob")

    def bob_connection_files():          # from bob's kernels' command lines, read as root
        out = []
        for pid in find_processes(uids=[bob_uid]):
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
            except OSError:
                continue
            if ("ipykernel_launcher" in " ".join(argv) or "umkit_kernel" in argv) and "-f" in argv:
                out.append(Path(argv[argv.index("-f") + 1]))
        return [f for f in out if f.exists()]
    deadline = time.monotonic() + 60
    while not bob_connection_files():
        assert time.monotonic() < deadline, "bob's kernel wrote no connection file"
        time.sleep(0.2)
    time.sleep(1.0)
    conns = [json.loads(f.read_text()) for f in bob_connection_files()]
    sockets = [f"{c['ip']}-{c['iopub_port']}" for c in conns if c["transport"] == "ipc"]
    owned = [Path(p).is_socket() and Path(p).stat().st_uid == bob_uid for p in sockets]
    res = hub.run_code("ada", [r"""
import os, time, zmq
ports = set()
for name in ('/proc/net/tcp', '/proc/net/tcp6'):
    try:
        lines = open(name).read().splitlines()[1:]
    except OSError:
        continue
    for line in lines:
        f = line.split()
        if f[3] == '0A':
            ports.add(int(f[1].split(':')[1], 16))
ctx = zmq.Context(); socks = []
for p in sorted(ports):
    s = ctx.socket(zmq.SUB); s.setsockopt(zmq.SUBSCRIBE, b''); s.setsockopt(zmq.LINGER, 0)
    s.connect(f'tcp://127.0.0.1:{p}'); socks.append(s)
for path in %r:
    s = ctx.socket(zmq.SUB); s.setsockopt(zmq.SUBSCRIBE, b''); s.setsockopt(zmq.LINGER, 0)
    s.connect('ipc://' + path); socks.append(s)
poller = zmq.Poller()
for s in socks:
    poller.register(s, zmq.POLLIN)
got, t0 = [], time.time()
while time.time() - t0 < 4:
    for s, _ in poller.poll(200):
        got.append(b''.join(s.recv_multipart()))
print(len(ports), len(got), sum(b'BOB-PRIVATE' in m for m in got))
""" % sockets], timeout=120)
    t.join(120)
    assert res["error"] is None, res["error"]
    assert out["bob"]["error"] is None and "BOB-PRIVATE-OUTPUT 13" in \
        "".join(o.get("text", "") for o in out["bob"]["cells"][0])      # bob's kernel worked
    n_ports, n_msgs, n_bob = map(int, _out(res).split())
    assert n_bob == 0, (n_ports, n_msgs, n_bob)          # ada heard nothing of bob's
    # how: bob's kernels use unix sockets of bob's, in his own 0700 runtime folder
    assert conns and all(c["transport"] == "ipc" for c in conns), conns
    # and bob's kernel listens on no TCP port at all (ipykernel's pipe for forked subprocesses'
    # output is a unix socket there too: anyone could send it messages of any size over TCP)
    assert not _kernel_tcp_listeners(bob_uid), _kernel_tcp_listeners(bob_uid)
    assert sockets and all(owned), (sockets, owned)
    assert all(Path(p).parent == Path(RUNTIME_BASE) / f"{hub_prefix(str(state))}-bob"
               for p in sockets)


def test_the_tests_hub_log_holding_the_rooms_password_is_for_root_only(room):
    log = Path(room["hub"].log_path)
    assert log.stat().st_mode & 0o077 == 0, oct(log.stat().st_mode)


def test_a_learners_output_reaches_the_hub_log_escaped(room):
    hub = room["hub"]
    res = hub.run_code("ada", ["import os, sys\n"
                               "os.write(2, b'\\n[I 2026-01-01 app:1] umkit hub: FORGED-LINE\\n'\n"
                               "         b'\\x1b]0;PWNED-TITLE\\x07\\x1b[2J\\x1b]52;c;aGk=\\x07\\n')\n"
                               "sys.__stderr__.write('\\x1b[31mRED-MARK\\n'); sys.__stderr__.flush()"])
    assert res["error"] is None, res["error"]
    deadline = time.monotonic() + 20
    while b"PWNED-TITLE" not in Path(hub.log_path).read_bytes():
        assert time.monotonic() < deadline, "ada's output never reached the hub's log"
        time.sleep(0.3)
    time.sleep(0.5)
    raw = Path(hub.log_path).read_bytes()
    for bad in (b"\x1b]0;PWNED", b"\x1b[2J", b"\x1b]52", b"\x1b[31mRED"):
        assert bad not in raw, bad
    assert b"\\x1b]0;PWNED-TITLE\\x07" in raw
    forged = [ln for ln in raw.splitlines() if b"FORGED-LINE" in ln]
    assert forged and all(b"[server of ada]" in ln for ln in forged), forged


def _wait_for(path: Path, timeout: float = 30):
    """Until the process a learner's cell started has written ``path`` (a fresh Python's start
    takes its time on a loaded machine)."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} was never written"
        time.sleep(0.05)


def _restart(hub, name):
    hub.stop_server(name)
    deadline = time.monotonic() + 60
    while (hub.api("GET", f"/users/{name}").get("servers") or {}):
        assert time.monotonic() < deadline, hub.log_tail()
        time.sleep(0.25)
    hub.start_server(name)
    hub.wait_ready(name, timeout=120)


def test_root_follows_no_link_a_learner_makes_in_their_home(room):
    """ada points ~/.tmp (and another name) at the hub's own folder and restarts her server:
    root must not make it hers."""
    hub, state = room["hub"], room["state"]
    private, uid = state / "hub", _learner_uid(state, "ada")
    res = hub.run_code("ada", [f"""
import os, shutil
home = os.environ['HOME']
t = os.path.join(home, '.tmp')
shutil.rmtree(t, ignore_errors=True)
os.symlink({str(private)!r}, t)
os.symlink({str(private)!r}, os.path.join(home, 'hub_link'))
os.makedirs(os.path.join(home, 'deep'), exist_ok=True)
os.symlink({str(private / 'jupyterhub.sqlite')!r}, os.path.join(home, 'deep', 'db_link'))
"""])
    assert res["error"] is None, res["error"]
    _restart(hub, "ada")
    st = os.lstat(private)
    assert st.st_uid == 0 and st.st_mode & 0o777 == 0o700, (st.st_uid, oct(st.st_mode))
    assert all(os.lstat(p).st_uid == 0 for p in private.iterdir())
    tmpdir = state / "users" / "ada" / ".tmp"                 # made again, by ada, a folder
    assert tmpdir.is_dir() and not tmpdir.is_symlink() and tmpdir.stat().st_uid == uid
    res = hub.run_code("ada", [f"import os\ntry:\n    print(os.listdir({str(private)!r}))\n"
                               "except OSError as e:\n    print('denied', type(e).__name__)"])
    assert _out(res).startswith("denied"), res


def test_stopping_a_server_ends_a_pid_hopper_and_removes_leftovers(room):
    hub, state = room["hub"], room["state"]
    tag = os.urandom(4).hex()
    uid = _learner_uid(state, "ada")
    beat = state / "users" / "ada" / "hop.txt"
    res = hub.run_code("ada", [f"""
import ctypes, subprocess, sys
hop = ("import os, time\\nwhile True:\\n    if os.fork():\\n        os._exit(0)\\n"
       "    with open({str(beat)!r}, 'w') as f:\\n        f.write(str(os.getpid()))\\n"
       "    time.sleep(0.003)\\n")
subprocess.Popen([sys.executable, '-c', hop], start_new_session=True, env={{}})
libc = ctypes.CDLL(None, use_errno=True)
print(libc.shmget(0, 4096, 0o1644), libc.msgget(0, 0o1644))
open('/dev/shm/ada_left_{tag}', 'w').write('x')
"""])
    assert res["error"] is None, res["error"]
    shmid, msqid = map(int, _out(res).split())
    assert shmid >= 0 and msqid >= 0
    sysv = lambda kind: [ln.split()[1] for ln in Path(f"/proc/sysvipc/{kind}").read_text()  # noqa: E731
                         .splitlines()[1:]]
    assert str(shmid) in sysv("shm") and Path(f"/dev/shm/ada_left_{tag}").exists()
    _wait_for(beat)
    live = lambda: [p for p in find_processes(uids=[uid]) if not is_zombie(p)]  # noqa: E731
    hub.stop_server("ada")                                  # "Stop My Server"
    deadline = time.monotonic() + 60
    while (hub.api("GET", "/users/ada").get("servers") or {}):
        assert time.monotonic() < deadline, hub.log_tail()
        time.sleep(0.25)
    first = beat.read_text()
    time.sleep(1.5)
    assert beat.read_text() == first, "the pid-hopping process outlived ada's server"
    assert not live(), live()
    assert str(shmid) not in sysv("shm") and str(msqid) not in sysv("msg")
    assert not Path(f"/dev/shm/ada_left_{tag}").exists()
    hub.start_server("ada")
    hub.wait_ready("ada", timeout=120)


def test_a_name_once_taken_needs_its_owners_word(room):
    hub, state = room["hub"], room["state"]
    # bob signed in first with his own word: the room's password alone, or with another word,
    # does not open his name (any case of it)
    for name, pw in (("BOB", PASSWORD), ("bob", f"{PASSWORD} not-his-word"),
                     ("bob", f"{PASSWORD} {hub.word('ada')}"), ("bob", hub.word("bob"))):
        r, s, _ = hub.try_login(name, pw)
        assert r.status_code == 403 and "jupyterhub-session-id" not in s.cookies, (name, pw)
    hub.login("BOB")                    # with bob's own word
    # a new name needs a word of its own; the page and the refusal say how
    r, s, page = hub.try_login("eve", PASSWORD)
    assert r.status_code == 403 and "word of your own" in r.text, r.text[-300:]
    assert "a word of your own" in page.text
    # only hashes are kept, in the hub's own folder
    f = state / "hub" / "learner_words.json"
    text = f.read_text()
    assert {"ada", "bob"} <= set(json.loads(text)) and "eve" not in json.loads(text)
    assert hub.word("bob") not in text and f.stat().st_mode & 0o077 == 0


def test_the_contents_api_does_not_follow_a_symlink_out_of_the_workspace(room):
    hub = room["hub"]
    res = hub.run_code("ada", ["import os\n"
                               "os.chdir(os.path.join(os.environ['HOME'], 'workspace'))\n"
                               "os.symlink('/etc', 'etc_link')\n"
                               "os.symlink('/etc/hostname', 'hostname.txt')\n"
                               "os.symlink('00_start_here.ipynb', 'alias.ipynb')\n"
                               "print(os.getcwd())"])
    assert res["error"] is None, res["error"]
    base = f"{hub.url}/user/ada"
    for path, secret in (("etc_link/passwd", "root:x:0:0"),
                         ("hostname.txt", Path("/etc/hostname").read_text().strip())):
        r = hub.http.get(f"{base}/api/contents/{path}", timeout=30)
        assert r.status_code == 404, (path, r.status_code, r.text[:200])
        r = hub.http.get(f"{base}/files/{path}", timeout=30)   # refused (404, or 403 before it)
        assert r.status_code in (403, 404) and secret not in r.text, (path, r.status_code)
    r = hub.http.put(f"{base}/api/contents/etc_link/umkit_escape.txt", timeout=30,
                     json={"type": "file", "format": "text", "content": "x"})
    # refused (jupyter_server's save reports the refusal as a 500) and nothing written
    assert r.status_code >= 400 and not Path("/etc/umkit_escape.txt").exists(), r.status_code
    # a link that stays inside the workspace still works
    r = hub.http.get(f"{base}/api/contents/alias.ipynb", timeout=30)
    assert r.status_code == 200 and r.json()["type"] == "notebook"


def test_sign_in_is_throttled_and_accounts_are_capped(room):
    hub = room["hub"]
    for _ in range(5):                 # five wrong passwords for ada
        with pytest.raises(hubclient.HubError, match="refused: 403"):
            hub.login("ada", "not-the-password")
    with pytest.raises(hubclient.HubError, match="refused: 429"):   # even the right one waits
        hub.login("ada")
    time.sleep(2.5)                    # UMKIT_HUB_SIGNIN_DELAY=2 for this hub
    hub.login("ada")                   # then it works, and the count starts again
    # --max-learners 3: ada and bob exist, a third may come in, a fourth may not; a name the hub
    # refuses (not a valid user name) takes no place
    for bad in ("Bad Name!", "x" * 40):
        r, _, _ = hub.try_login(bad)
        assert r.status_code == 403, (bad, r.status_code)
    hub.login("cara")
    s = __import__("requests").Session()
    s.get(hub.url + "/hub/login", timeout=30)
    r = s.post(hub.url + "/hub/login?next=", allow_redirects=False, timeout=60,
               data={"username": "dan", "password": f"{PASSWORD} {hub.word('dan')}",
                     "_xsrf": s.cookies.get("_xsrf", path="/hub/") or s.cookies.get("_xsrf") or ""})
    assert r.status_code == 403 and "room is full" in r.text, (r.status_code, r.text[-300:])
    hub.login("bob")                   # those who have an account still sign in
    hub.login("presenter", ADMIN_PASSWORD)   # the presenter is not a learner
    names = {u["name"] for u in hub.api("GET", "/users")}
    assert "dan" not in names and {"ada", "bob", "cara"} <= names


def test_sign_in_throttle_ignores_addresses_a_client_makes_up(room):
    hub = room["hub"]
    for i in range(20):                # 20 wrong passwords, each "from" another address
        r, _, _ = hub.try_login(f"guess{i}", "not-the-password",
                                headers={"X-Real-Ip": f"10.9.{i}.1",
                                         "X-Forwarded-For": f"10.8.{i}.1"})
        assert r.status_code == 403, (i, r.status_code)
    r, _, _ = hub.try_login("ada", headers={"X-Real-Ip": "10.7.0.1",
                                            "X-Forwarded-For": "10.6.0.1"})
    assert r.status_code == 429, r.status_code      # the address the proxy saw waits
    time.sleep(2.5)
    hub.login("ada")


def test_a_learner_talking_to_the_hubs_own_port_is_throttled_as_themself(room):
    """The hub's own port (which the proxy and the servers use) is on loopback, where every
    learner's kernel can reach it and claim any address: it is keyed on the learner's uid.
    This hub's first wait is 2 s (UMKIT_HUB_SIGNIN_DELAY): on a loaded machine the 21st try may
    come after it, so the kernel goes on until a 429 (each further failure doubles the wait: by
    the 25th try it is 32 s), at most 26 tries -- the module's earlier tests' failures (about 31) and these
    stay under the hub-wide cap of 60 a minute, which would refuse the sign-ins after them."""
    hub = room["hub"]
    res = hub.run_code("ada", [r"""
import os, requests
base = os.environ['JUPYTERHUB_API_URL'].rsplit('/api', 1)[0]
codes = []
for i in range(26):     # at most 26: with the module's earlier failures, under the hub-wide 60
    s = requests.Session()
    s.headers.update({'X-Forwarded-For': f'10.5.{i}.1', 'X-Real-Ip': f'10.4.{i}.1'})
    s.get(base + '/login', timeout=30)
    r = s.post(base + '/login?next=', allow_redirects=False, timeout=30,
               data={'username': f'k{i}', 'password': 'wrong', '_xsrf': s.cookies.get('_xsrf') or ''})
    codes.append(r.status_code)
    if r.status_code == 429:
        break
print(*codes)
"""], timeout=300)
    assert res["error"] is None, res["error"]
    codes = [int(c) for c in _out(res).split()]
    keys = [line.split(" from ", 1)[1] for line in hub.log_tail(200_000).splitlines()
            if "failed sign-in of 'k" in line and " from " in line]
    # never before the 20th failure, and it comes: whatever addresses the kernel claimed, its
    # failures were counted on one key, its own account's
    assert codes[-1] == 429 and 20 <= len(codes) - 1 and set(codes[:-1]) == {403}, (codes, keys)
    assert keys and set(keys) == {keys[0]} and keys[0].startswith("local uid "), keys
    # through the proxy: the address the proxy appended (this test's client, on loopback),
    # not the proxy's own uid, and not throttled by ada's failures
    r, _, _ = hub.try_login("proxied-1", "wrong")
    assert r.status_code == 403
    assert "failed sign-in of 'proxied-1' from 127.0.0.1" in hub.log_tail(200_000)
    hub.login("ada")


def test_ctrl_c_stops_within_5_s_leaving_nothing(room):
    hub, proc, state = room["hub"], room["proc"], room["state"]
    hub_id = _hub_id(proc)
    # ada leaves a process behind that detached itself and dropped its environment
    res = hub.run_code("ada", ["import subprocess\n"
                               "p = subprocess.Popen(['sleep', '600'], start_new_session=True, "
                               "env={})\nprint(p.pid)"])
    assert res["error"] is None, res["error"]
    stray = int(_out(res))
    assert Path(f"/proc/{stray}").exists()
    # and bob one that keeps changing its pid (fork, parent exits, every few milliseconds)
    beat = state / "users" / "bob" / "hop.txt"
    res = hub.run_code("bob", [f"""
import subprocess, sys
hop = ("import os, time\\nwhile True:\\n    if os.fork():\\n        os._exit(0)\\n"
       "    with open({str(beat)!r}, 'w') as f:\\n        f.write(str(os.getpid()))\\n"
       "    time.sleep(0.003)\\n")
subprocess.Popen([sys.executable, '-c', hop], start_new_session=True, env={{}})
"""])
    assert res["error"] is None, res["error"]
    _wait_for(beat)
    uids = list(hub_accounts(hub_prefix(str(state))).values())
    assert len(uids) >= 2 and find_processes(uids=uids)
    t0 = time.monotonic()
    os.kill(proc.pid, signal.SIGINT)            # Ctrl-C
    proc.wait(10)
    took = time.monotonic() - t0
    assert took < 5, took
    assert proc.returncode == 130
    log = Path(hub.log_path).read_text()
    assert "umkit hub: stopping" in log and "nothing of the hub is left running" in log
    live = lambda pids: [p for p in pids if not is_zombie(p)]   # noqa: E731  (dead, unreaped: gone)
    assert not live(find_processes(uids=uids)), "a learner's process outlived the hub"
    assert not live(find_processes(env={"UMKIT_HUB_ID": hub_id}))
    assert not Path(f"/proc/{stray}").exists() or \
        Path(f"/proc/{stray}/stat").read_text().split(")")[1].split()[0] == "Z"
    assert "learners are isolated" in log
    first = beat.read_text()
    time.sleep(1.0)
    assert beat.read_text() == first, "bob's pid-hopping process outlived the hub"
    # nor a learner's runtime folder (server token, cookie secret, kernels' keys)
    prefix = hub_prefix(str(state))
    assert not list(Path(RUNTIME_BASE).glob(f"{prefix}-*")), list(Path(RUNTIME_BASE).iterdir())


def test_throttle_waits_and_forgets():
    now = [100.0]
    t = Throttle(limit=3, base=10, cap=40, window=600, clock=lambda: now[0])
    for _ in range(2):
        t.failed("x")
    assert t.wait_left("x") == 0
    t.failed("x")
    assert t.wait_left("x") == 10
    t.failed("x")
    assert t.wait_left("x") == 20          # doubles
    for _ in range(5):
        t.failed("x")
    assert t.wait_left("x") == 40          # capped
    now[0] += 41
    assert t.wait_left("x") == 0
    t.cleared("x")
    t.failed("x")
    assert t.wait_left("x") == 0           # cleared: counting starts again
    t2 = Throttle(limit=1, base=1, cap=1, max_keys=10, clock=lambda: now[0])
    for i in range(50):
        t2.failed(str(i))
    assert len(t2.fails) <= 10


def test_contents_manager_refuses_paths_resolving_outside(tmp_path):
    from tornado.web import HTTPError
    from umkit_contents import NoEscapeContentsManager, inside
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a")
    (tmp_path / "secret.txt").write_text("s")
    (root / "out").symlink_to(tmp_path)
    (root / "in.txt").symlink_to(root / "a.txt")
    cm = NoEscapeContentsManager(root_dir=str(root))
    assert cm.os_path("a.txt") and cm.os_path("in.txt")
    assert cm.os_path("out/ws/a.txt")        # back inside: the workspace's own file
    for p in ("out", "out/secret.txt", "out/new.txt"):
        with pytest.raises(HTTPError) as e:
            cm.os_path(p)
        assert e.value.status_code == 404
    assert inside(str(root), str(root)) and not inside(str(root), str(tmp_path / "wsx"))
    # a folder holding such a link is still listed, without the link (AT4: the whole folder
    # answered 404), and a link loop is left out too
    (root / "loop").symlink_to(root / "loop")
    import asyncio
    listed = asyncio.run(cm.get("", content=True))
    names = sorted(x["name"] for x in listed["content"])
    assert "a.txt" in names and "in.txt" in names and "out" not in names, names


def test_checkpoints_do_not_follow_a_link_out_of_the_workspace(tmp_path):
    # AT6: POST .../contents/ckdir/x.txt/checkpoints wrote x-checkpoint.txt outside the workspace through
    # a .ipynb_checkpoints link (jupyter_server's checkpoint paths skip the manager's check)
    import asyncio

    from tornado.web import HTTPError
    from umkit_contents import NoEscapeContentsManager
    root, out = tmp_path / "ws", tmp_path / "out"
    (root / "ckdir").mkdir(parents=True)
    out.mkdir()
    (root / "ckdir" / "x.txt").write_text("x")
    (root / "ckdir" / ".ipynb_checkpoints").symlink_to(out)
    cm = NoEscapeContentsManager(root_dir=str(root))
    with pytest.raises(HTTPError) as e:
        asyncio.run(cm.create_checkpoint("ckdir/x.txt"))
    assert e.value.status_code == 404 and not list(out.iterdir())
    (root / "y.txt").write_text("y")                      # a checkpoint inside still works
    got = asyncio.run(cm.create_checkpoint("y.txt"))
    assert (root / ".ipynb_checkpoints" / f"y-{got['id']}.txt").read_text() == "y"


def test_overall_cap_and_client_address_and_words(tmp_path):
    now = [0.0]
    o = Overall(limit=3, window=60, clock=lambda: now[0])
    for _ in range(2):
        o.failed()
    assert o.wait_left() == 0
    o.failed()
    assert o.wait_left() == 60
    now[0] += 30
    assert o.wait_left() == 30
    now[0] += 31
    assert o.wait_left() == 0

    class Req:
        def __init__(self, peer, headers, port=40000):
            ctx = type("X", (), {"remote_ip": "6.6.6.6",
                                 "address": (peer, port)})()
            self.connection = type("C", (), {"context": ctx})()
            self.remote_ip, self.headers = "6.6.6.6", headers
    import socket
    fwd = {"X-Forwarded-For": "1.1.1.1, 10.0.0.5", "X-Real-Ip": "9.9.9.9"}
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        with socket.create_connection(srv.getsockname()) as cli:
            ip, port = cli.getsockname()
            # the owner and inode of a real loopback socket, from /proc/net/tcp
            assert loopback_owner(ip, port) == os.geteuid()
            uid, inode = loopback_socket(ip, port)
            assert uid == os.geteuid() and holds_socket([os.getpid()], inode)
            other = subprocess.Popen(["sleep", "30"])     # not this process, nor its parent
            try:
                assert not holds_socket([other.pid], inode) and not holds_socket([], inode)
                assert client_address(Req(ip, fwd, port), proxy_pids=(other.pid,)) == \
                    f"local uid {os.geteuid()}"
            finally:
                other.kill()
                other.wait()
            # a connection of the proxy's (this process plays it): the entry it appended;
            # X-Real-Ip never
            assert client_address(Req(ip, fwd, port), proxy_pids=(os.getpid(),)) == "10.0.0.5"
            # the same socket when this process is not the proxy: the local user, whatever it
            # claims -- also of the hub's own uid (another program of root's on loopback)
            assert client_address(Req(ip, fwd, port)) == f"local uid {os.geteuid()}"
    learner = lambda ip, port: (4242, 1)              # noqa: E731
    assert client_address(Req("127.0.0.1", fwd), sock=learner) == "local uid 4242"
    assert client_address(Req("::ffff:127.0.0.1", fwd), sock=learner) == "local uid 4242"
    # a loopback socket whose owner cannot be read: one key for all of them, not the header
    assert client_address(Req("127.0.0.1", fwd), sock=lambda ip, port: None) == "local ?"
    assert client_address(Req("::1", fwd)) == "local ?"
    assert client_address(Req("192.168.1.7", {"X-Forwarded-For": "1.1.1.1"})) == "192.168.1.7"

    w = Words(str(tmp_path / "w.json"))
    w.set("ada", w.make("tiger42"))
    w2 = Words(str(tmp_path / "w.json"))            # kept across restarts
    assert w2.check("ada", "tiger42") and not w2.check("ada", "tiger43")
    assert "tiger42" not in (tmp_path / "w.json").read_text()
    assert (tmp_path / "w.json").stat().st_mode & 0o777 == 0o600
    assert printable("a\x1b]0;x\x07\r\u202eb") == "a\\x1b]0;x\\x07\\r\\u202eb"


def test_relay_escapes_marks_and_bounds_a_learners_output():
    import io
    from umkit_hub import relay_output
    lines = [b"ok line\n", b"\x1b]0;TITLE\x07\x1b[2J\n"] + [b"flood %d\n" % i for i in range(500)]

    class Log:
        def __init__(self):
            self.out = []

        def info(self, fmt, *args):
            self.out.append(fmt % args)
    log, now = Log(), [0.0]
    relay_output(io.BytesIO(b"".join(lines)), log, "ada", rate=10, burst=50, clock=lambda: now[0])
    assert log.out[0] == "[server of ada] ok line"
    assert log.out[1] == "[server of ada] \\x1b]0;TITLE\\x07\\x1b[2J"
    assert len(log.out) == 51 and "452 line(s) left out" in log.out[-1]   # 502 lines, 50 shown
    assert all("\x1b" not in ln for ln in log.out)


def test_end_account_ends_a_pid_hopper_even_without_a_python_it_can_run(monkeypatch):
    """The account's killer runs as the account; where the hub's Python is out of its reach
    the shell's kill(-1) does it."""
    if os.geteuid() != 0 or shutil.which("useradd") is None:
        pytest.skip("needs root and useradd to make a throwaway account")
    import umkit_hub
    name = "umkhb" + os.urandom(3).hex()
    subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", "--shell",
                    "/usr/sbin/nologin", name], check=True, capture_output=True)
    p = pwd.getpwnam(name)
    where = Path(tempfile.mkdtemp(prefix="umkit-hop-"))   # the account can write there
    where.chmod(0o777)
    try:
        beat = where / "beat"
        hop = ("import os, time\nwhile True:\n    if os.fork():\n        os._exit(0)\n"
               f"    open({str(beat)!r}, 'w').write(str(os.getpid()))\n    time.sleep(0.003)\n")
        subprocess.Popen(["/usr/bin/python3", "-c", hop], user=p.pw_uid, group=p.pw_gid,
                         extra_groups=[], start_new_session=True, env={}, cwd="/")
        deadline = time.monotonic() + 10
        while not beat.exists():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        monkeypatch.setattr(umkit_hub.sys, "executable", "/nonexistent/python")
        umkit_hub.end_account(p.pw_uid, p.pw_gid, timeout=2)
        first = beat.read_text()
        time.sleep(1.0)
        assert beat.read_text() == first, "the pid-hopper survived"
    finally:
        umkit_hub.end_account(p.pw_uid, p.pw_gid, timeout=2)
        subprocess.run(["userdel", name], capture_output=True)
        shutil.rmtree(where, ignore_errors=True)


def test_root_leaves_hard_links_and_deep_folders_in_a_home_as_they_are(tmp_path):
    """A learner's hard link to a file elsewhere is not chowned (its other name may be anyone's
    file); a folder nested thousands deep does not stop the server's start."""
    home, outside = tmp_path / "home", tmp_path / "victim.txt"
    home.mkdir()
    outside.write_text("root's")
    os.chown(outside, 0, 0)
    os.link(outside, home / "hard")
    (home / "own.txt").write_text("x")
    d = os.open(home, os.O_RDONLY)
    for _ in range(1500):                       # deeper than os.fwalk's recursion goes
        os.mkdir("d", dir_fd=d)
        nd = os.open("d", os.O_RDONLY, dir_fd=d)
        os.close(d)
        d = nd
    os.close(d)
    notes = own_home(str(home), 4242, 4242)
    assert outside.stat().st_uid == 0 and outside.stat().st_gid == 0     # untouched
    assert (home / "own.txt").stat().st_uid == 4242
    assert (home / "d").stat().st_uid == 4242
    assert any("hard links" in n for n in notes) and any("deeper" in n for n in notes), notes
    cwd = os.getcwd()                   # removed bottom-up (shutil.rmtree recurses as deep)
    try:
        os.chdir(home)
        depth = 0
        while os.path.isdir("d"):
            os.chdir("d")
            depth += 1
        for _ in range(depth):
            os.chdir("..")
            os.rmdir("d")
    finally:
        os.chdir(cwd)


def _tcp_table(path, rows) -> str:
    """A /proc/net/tcp look-alike: rows of (state, uid, inode, remote) for local 127.0.0.1:A000."""
    head = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    row = ("   0: 0100007F:A000 {rem} {st} 00000000:00000000 00:00000000 00000000 "
           "{uid:>5}        0 {inode} 1 0000000000000000 20 4 30 10 -1\n")
    path.write_text(head + "".join(row.format(st=st, uid=uid, inode=inode, rem=rem)
                                   for st, uid, inode, rem in rows))
    return str(path)


def test_an_earlier_connections_time_wait_row_does_not_name_the_owner(tmp_path):
    hub = "0100007F:1F90"
    table = _tcp_table(tmp_path / "tcp", [("06", 0, 0, hub), ("01", 999, 4711, hub)])
    assert loopback_socket("127.0.0.1", 0xA000, tables=(table,)) == (999, 4711)
    table = _tcp_table(tmp_path / "tcp", [("06", 0, 0, hub)])
    assert loopback_socket("127.0.0.1", 0xA000, tables=(table,)) is None


def test_a_server_socket_on_the_same_port_number_does_not_name_the_owner(tmp_path):
    # another program's server accepted a connection on port 0xA000 (local 127.0.0.1:A000, as
    # the learner's client socket is): with the hub's own address only the learner's row counts
    table = str(tmp_path / "tcp")
    _tcp_table(tmp_path / "tcp", [("01", 0, 17, "0100007F:C350"), ("01", 999, 4711, "0100007F:1F90")])
    assert loopback_socket("127.0.0.1", 0xA000, tables=(table,),
                           remote=("127.0.0.1", 0x1F90)) == (999, 4711)
    assert loopback_socket("127.0.0.1", 0xA000, tables=(table,)) == (0, 17)


def test_runtime_folders_of_accounts_gone_or_reused_are_removed(tmp_path, monkeypatch):
    import umkit_hub
    monkeypatch.setattr(umkit_hub, "RUNTIME_BASE", str(tmp_path))
    for name, uid in (("root", 0), ("no-such-account-xyz", 0), ("daemon", 0)):
        (tmp_path / name).mkdir()
        os.chown(tmp_path / name, uid, uid)
    (tmp_path / "no-such-account-xyz" / "jpserver-1.json").write_text("{}")
    gone = remove_stale_runtime_dirs()
    # root's folder is root's; the other two belong to no account or to another uid (daemon is
    # not uid 0): a new account that reused their uid must not inherit them
    assert sorted(gone) == ["daemon", "no-such-account-xyz"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["root"]
