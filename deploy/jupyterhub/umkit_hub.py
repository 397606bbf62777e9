"""The learner server of umkit's JupyterHub: one Jupyter server per learner, on this machine.

Two modes, chosen by who runs the hub:

* **isolated** (the hub runs as root): ``UmkitSpawner`` gives each learner a system account of
  their own (``useradd --system``, made on first sign-in, named ``<hub>-<learner>``, no login shell,
  no password) and starts their ``jupyterhub-singleuser`` as that account, in a home of its own
  (mode 0700) under the hub's state folder.  The hub's files (database, cookie secret, password,
  pid files) are in ``STATE/hub/`` (0700, root's), its secrets are in no learner's environment,
  and a learner's processes can neither read another account's files nor its ``/proc/PID/environ``.
  When a learner's server stops, every process of that account is ended.
* **shared** (the hub runs as an ordinary user): every server runs as the hub's own user, kept
  apart by folder only (``SimpleLocalProcessSpawner``'s way): a learner's code can read and change
  every other learner's files and the hub's state.  ``bash run.sh hub`` says so when it starts.

In both modes: the contents API stays inside the workspace (``server/umkit_contents.py``), sign-in
is throttled and the number of learner accounts capped (``UmkitAuthenticator``), and memory and
CPU limits use a control group per learner where this machine lets the hub make one.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import math
import os
import pwd
import re
import signal
import sys
import time

from jupyterhub.authenticators.shared import SharedPasswordAuthenticator
from jupyterhub.spawner import LocalProcessSpawner, set_user_setuid
from tornado.web import HTTPError
from traitlets import Float, Integer, Unicode

ISOLATED = os.geteuid() == 0          # root: a system account per learner
ACCOUNT_COMMENT = "umkit hub learner"  # the GECOS field of every account the hub makes
WORKSPACE_TIMEOUT_S = 60      # below the hub's start timeout (120 s), so its message shows
HERE = os.path.dirname(os.path.abspath(__file__))


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def hub_prefix(state: str) -> str:
    """Names this hub's accounts and control groups apart from another hub's on the machine."""
    return "h" + hashlib.sha256(os.path.abspath(state).encode()).hexdigest()[:8]


def account_name(prefix: str, learner: str) -> str:
    """The learner's system account: ``<prefix>-<learner>`` (at most 30 characters: the user
    name pattern allows 20).  The prefix keeps a learner called ``root`` or ``daemon`` off the
    machine's own accounts."""
    name = f"{prefix}-{learner}"
    if len(name) > 32:
        raise ValueError(f"learner name {learner!r} is too long for a system account")
    return name


def hub_accounts(prefix: str) -> dict[str, int]:
    """{account: uid} of the learner accounts this hub made (name prefix and comment)."""
    return {p.pw_name: p.pw_uid for p in pwd.getpwall()
            if p.pw_name.startswith(prefix + "-") and p.pw_gecos.startswith(ACCOUNT_COMMENT)}


# --- finding and ending processes (Linux /proc) ----------------------------------------------
def _status_uid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("Uid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _session(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[4])
    except (OSError, ValueError, IndexError):
        return None


def process_environ(pid: int) -> dict[str, str]:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            raw = f.read()
    except OSError:
        return {}
    out = {}
    for item in raw.split(b"\0"):
        k, sep, v = item.partition(b"=")
        if sep:
            out[k.decode(errors="replace")] = v.decode(errors="replace")
    return out


def find_processes(uids=(), sessions=(), env=None) -> list[int]:
    """Pids (other than this process) whose real uid is in ``uids``, whose session is in
    ``sessions``, or whose environment holds every item of ``env``."""
    me, found = os.getpid(), []
    uids, sessions = set(uids), set(sessions)
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        pid = int(entry)
        if (uids and _status_uid(pid) in uids) or (sessions and _session(pid) in sessions):
            found.append(pid)
        elif env:
            e = process_environ(pid)
            if e and all(e.get(k) == v for k, v in env.items()):
                found.append(pid)
    return found


def end_processes(uids=(), sessions=(), env=None, timeout: float = 3.0) -> int:
    """SIGKILL every matching process, again and again until none is left (a process that forks
    while it is being ended is caught on the next round) or ``timeout`` passes; the number of
    processes ended.  Zombies (already dead, waiting for their parent) do not count."""
    ended, deadline = set(), time.monotonic() + timeout
    while True:
        alive = [p for p in find_processes(uids, sessions, env) if not is_zombie(p)]
        if not alive or time.monotonic() > deadline:
            return len(ended)
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
                ended.add(pid)
            except OSError:
                pass
        time.sleep(0.05)


def is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True


CGROUP_ROOT = "/sys/fs/cgroup"
CPU_PERIOD_US = 100_000


def _own_cgroups(proc_cgroup="/proc/self/cgroup"):
    """{controller: path} of this process's cgroups ('' is the v2 unified one)."""
    out = {}
    with open(proc_cgroup) as f:
        for line in f:
            _, ctrls, path = line.rstrip("\n").split(":", 2)
            for c in (ctrls.split(",") if ctrls else [""]):
                out[c] = path
    return out


def _procs(d: str) -> list[int]:
    try:
        with open(os.path.join(d, "cgroup.procs")) as f:
            return [int(x) for x in f.read().split()]
    except (OSError, ValueError):
        return []


class CgroupLimits:
    """A learner's control group: memory (bytes) and CPU (cores) caps, joined by the learner's
    server before it starts (``join`` runs in the child), removed when the server stops."""

    def __init__(self, name: str, mem_bytes: int | None, cpus: float | None, root=CGROUP_ROOT):
        if not re.fullmatch(r"[A-Za-z0-9._-]{1,64}", name):
            raise ValueError(f"cgroup name {name!r}: letters, digits, '.', '_', '-' only")
        self.name, self.mem, self.cpus, self.root = name, mem_bytes, cpus, root
        self.dirs: list[str] = []      # the cgroup folders made (to join and to remove)
        self.applied: dict = {}        # what was written, for the log and the tests

    def _v2(self, own):
        parent = os.path.join(self.root, own[""].lstrip("/"))
        base = os.path.join(parent, "umkit-hub")
        os.makedirs(base, exist_ok=True)
        # a v2 group gets a controller only when every folder above it hands that controller
        # down (cgroup.subtree_control); the hub's own group may refuse (it holds processes)
        want = " ".join(f"+{c}" for c, on in (("memory", self.mem), ("cpu", self.cpus)) if on)
        for d in (parent, base):
            with open(os.path.join(d, "cgroup.subtree_control"), "w") as f:
                f.write(want)
        d = os.path.join(base, self.name)
        os.makedirs(d, exist_ok=True)
        self.dirs = [d]
        if self.mem:
            with open(os.path.join(d, "memory.max"), "w") as f:
                f.write(str(self.mem))
            self.applied["memory_bytes"] = self.mem
        if self.cpus:
            with open(os.path.join(d, "cpu.max"), "w") as f:
                f.write(f"{int(self.cpus * CPU_PERIOD_US)} {CPU_PERIOD_US}")
            self.applied["cpus"] = self.cpus

    def _v1(self, own):
        for ctrl, want in (("memory", self.mem), ("cpu", self.cpus)):
            if not want or ctrl not in own:
                continue
            d = os.path.join(self.root, ctrl, own[ctrl].lstrip("/"), "umkit-hub", self.name)
            os.makedirs(d, exist_ok=True)
            self.dirs.append(d)
            if ctrl == "memory":
                with open(os.path.join(d, "memory.limit_in_bytes"), "w") as f:
                    f.write(str(self.mem))
                self.applied["memory_bytes"] = self.mem
            else:
                with open(os.path.join(d, "cpu.cfs_period_us"), "w") as f:
                    f.write(str(CPU_PERIOD_US))
                with open(os.path.join(d, "cpu.cfs_quota_us"), "w") as f:
                    f.write(str(int(self.cpus * CPU_PERIOD_US)))
                self.applied["cpus"] = self.cpus

    def create(self) -> str | None:
        """Make the group; None when it worked, else why the limits are not enforced."""
        if not (self.mem or self.cpus):
            return None
        try:
            own = _own_cgroups()
            if os.path.exists(os.path.join(self.root, "cgroup.controllers")) and "" in own:
                self._v2(own)
            else:
                self._v1(own)
        except OSError as err:
            self.remove()
            self.applied = {}
            return f"cannot make a control group ({err.strerror}: {err.filename})"
        if not self.dirs:
            return "this machine has no memory or cpu control group to use"
        return None

    def join(self):
        """In the child, before exec and before it gives up root: move this process into the
        group (children follow; a learner's process cannot move itself out)."""
        for d in self.dirs:
            with open(os.path.join(d, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))

    def remove(self, grace: float = 5.0) -> list[str]:
        """End whatever the learner left running in the group (a process started in a new
        session outlives its server), then remove the group; the folders that could not be
        removed are returned (and logged by the spawner)."""
        import signal
        import time
        left = []
        for d in self.dirs:
            deadline = time.monotonic() + grace
            while True:
                try:
                    os.rmdir(d)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    pids = _procs(d)
                    if time.monotonic() > deadline:
                        left.append(d)
                        break
                    for pid in pids:
                        try:
                            os.kill(pid, signal.SIGKILL)
                        except OSError:
                            pass
                    time.sleep(0.1)
        self.dirs = []
        return left


class UmkitSpawner(LocalProcessSpawner):
    """A learner's server: their own account (isolated mode), home and workspace, the kit's
    notebooks, optional limits; when it stops, nothing of the learner's is left running."""

    home_dir_template = Unicode(help="the learner's home; {username} is their hub name",
                                config=True)
    notebooks_src = Unicode(help="the kit's notebooks/ folder (the workspace is made from it)",
                            config=True)
    umkit_python = Unicode(sys.executable, help="the Python that has umkit installed",
                           config=True)
    group_prefix = Unicode("hub", help="names this hub's accounts and control groups apart from "
                           "another hub's on the same machine", config=True)
    hub_id = Unicode("", help="marks this hub's processes (UMKIT_HUB_ID in their environment), "
                     "so that stopping the hub finds them", config=True)

    _limits: CgroupLimits | None = None
    _account_lock = asyncio.Lock()      # useradd takes /etc/passwd's lock: one at a time

    @property
    def home_dir(self) -> str:
        return self.home_dir_template.format(username=self.user.name)

    @property
    def account(self) -> str:
        return account_name(self.group_prefix, self.user.name) if ISOLATED else ""

    def _ids(self) -> tuple[int, int] | None:
        if not ISOLATED:
            return None
        p = pwd.getpwnam(self.account)
        return p.pw_uid, p.pw_gid

    async def _make_account(self) -> tuple[int, int]:
        """The learner's system account, made the first time; its home 0700 and theirs."""
        name, home = self.account, self.home_dir
        async with self._account_lock:
            try:
                p = pwd.getpwnam(name)
            except KeyError:
                proc = await asyncio.create_subprocess_exec(
                    "useradd", "--system", "--user-group", "--no-create-home",
                    "--home-dir", home, "--shell", "/usr/sbin/nologin",
                    "--comment", f"{ACCOUNT_COMMENT} {self.user.name}", name,
                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
                out, _ = await proc.communicate()
                if proc.returncode != 0:
                    raise RuntimeError(f"useradd {name} failed: {out.decode(errors='replace')}")
                p = pwd.getpwnam(name)
                self.log.info("made the system account %s (uid %d) for %s", name, p.pw_uid,
                              self.user.name)
            if not p.pw_gecos.startswith(ACCOUNT_COMMENT) or p.pw_uid == 0:
                raise RuntimeError(f"the system account {name} exists and is not one this hub "
                                   f"made: refusing to run {self.user.name}'s server as it")
        await asyncio.to_thread(_own_home, home, p.pw_uid, p.pw_gid)
        return p.pw_uid, p.pw_gid

    def _learner_env(self) -> dict:
        """The environment of everything that runs for the learner: no hub secret in it."""
        home = self.home_dir
        env = {"HOME": home, "USER": self.account or self.user.name, "SHELL": "/bin/sh",
               "TMPDIR": os.path.join(home, ".tmp"),
               "PATH": os.path.dirname(self.umkit_python) + os.pathsep + "/usr/bin:/bin",
               "LANG": os.environ.get("LANG", "C.UTF-8"), "UMKIT_HUB_ID": self.hub_id}
        return env

    async def _make_workspace(self, ids) -> str:
        """``umkit workspace`` for this learner, as the learner, in a child process the hub's
        event loop does not wait on (a room signing in at once must not stall the hub)."""
        ws = os.path.join(self.home_dir, "workspace")
        os.makedirs(os.path.join(self.home_dir, ".tmp"), 0o700, exist_ok=True)
        if ids:
            os.chown(os.path.join(self.home_dir, ".tmp"), *ids)
        kw = dict(user=ids[0], group=ids[1], extra_groups=[]) if ids else {}
        proc = await asyncio.create_subprocess_exec(
            self.umkit_python, "-m", "umkit.cli", "workspace", "--src", self.notebooks_src,
            "--dest", ws, "--quiet", stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, cwd=self.home_dir, env=self._learner_env(),
            start_new_session=True, **kw)
        try:
            out, _ = await asyncio.wait_for(proc.communicate(), WORKSPACE_TIMEOUT_S)
        except (asyncio.TimeoutError, asyncio.CancelledError) as err:
            proc.kill()          # the hub gave up on this start, or the copy hung: end it
            await asyncio.shield(proc.wait())
            if isinstance(err, asyncio.CancelledError):
                raise
            raise RuntimeError(f"umkit workspace for {self.user.name} took over "
                               f"{WORKSPACE_TIMEOUT_S} s") from None
        text = out.decode(errors="replace").strip()
        if proc.returncode != 0:
            raise RuntimeError(f"umkit workspace failed for {self.user.name}: {text[-500:]}")
        if text:
            self.log.info("workspace of %s: %s", self.user.name, text)
        return ws

    def user_env(self, env):
        env.update(self._learner_env())
        return env

    def make_preexec_fn(self, name):
        limits, home = self._limits, self.home_dir
        drop = set_user_setuid(self.account) if ISOLATED else None

        def preexec():
            if limits is not None and limits.dirs:
                limits.join()        # while still root: the learner cannot leave it
            if drop is not None:
                drop()               # the learner's account (and its home as cwd)
            else:
                os.chdir(home)
        return preexec

    async def start(self):
        if ISOLATED:
            ids = await self._make_account()
        else:
            ids = None
            os.makedirs(self.home_dir, 0o700, exist_ok=True)
        self.notebook_dir = await self._make_workspace(ids)
        self._limits = CgroupLimits(f"{self.group_prefix}-learner-{self.user.id}",
                                    self.mem_limit or None, self.cpu_limit or None)
        why = self._limits.create()
        if why:
            self.log.warning("limits for %s not enforced: %s", self.user.name, why)
        else:
            self.log.info("limits for %s: %s", self.user.name, json.dumps(self._limits.applied))
        return await super().start()

    async def stop(self, now=False):
        session = self.pid
        try:
            await super().stop(now=now)
        finally:
            # whatever the learner started and left running: in isolated mode every process
            # of their account; in shared mode their server's session and every process marked
            # as theirs (a process that leaves both escapes: the README says so)
            ids = self._ids()
            n = await asyncio.to_thread(
                end_processes, uids=[ids[0]] if ids else [],
                sessions=[session] if (session and not ids) else [],
                env=None if ids else {"UMKIT_HUB_ID": self.hub_id,
                                      "JUPYTERHUB_USER": self.user.name})
            if n:
                self.log.info("ended %d leftover process(es) of %s", n, self.user.name)
            if self._limits is not None:
                for d in self._limits.remove():
                    self.log.warning("could not remove the control group %s of %s", d,
                                     self.user.name)


def _own_home(home: str, uid: int, gid: int) -> None:
    """The learner's home: theirs, 0700; everything in it theirs (a home made in shared mode, or
    for an account made again with another uid).  Symlinks are changed, never followed."""
    os.makedirs(home, 0o700, exist_ok=True)
    os.chmod(home, 0o700)
    for top, dirs, files in os.walk(home):
        for n in [top] + [os.path.join(top, x) for x in dirs + files]:
            st = os.lstat(n)
            if st.st_uid != uid or st.st_gid != gid:
                os.lchown(n, uid, gid)


class Throttle:
    """Failed sign-ins per key (a name, an address): after ``limit`` failures within ``window``
    seconds, the key must wait ``base`` seconds after its last failure, doubling with each
    further failure, at most ``cap``; a success clears the key."""

    def __init__(self, limit: int, base: float, cap: float, window: float = 600.0,
                 max_keys: int = 50_000, clock=time.monotonic):
        self.limit, self.base, self.cap, self.window = limit, base, cap, window
        self.max_keys, self.clock = max_keys, clock
        self.fails: dict[str, tuple[int, float]] = {}

    def wait_left(self, key: str) -> float:
        count, last = self.fails.get(key, (0, 0.0))
        now = self.clock()
        if count < self.limit or now - last > self.window:
            return 0.0
        return max(0.0, last + min(self.cap, self.base * 2 ** (count - self.limit)) - now)

    def failed(self, key: str) -> None:
        now = self.clock()
        count, last = self.fails.get(key, (0, 0.0))
        if now - last > self.window:
            count = 0
        self.fails[key] = (count + 1, now)
        if len(self.fails) > self.max_keys:          # bounded memory: forget the oldest half
            keep = sorted(self.fails.items(), key=lambda kv: kv[1][1])[len(self.fails) // 2:]
            self.fails = dict(keep)

    def cleared(self, key: str) -> None:
        self.fails.pop(key, None)


class UmkitAuthenticator(SharedPasswordAuthenticator):
    """JupyterHub's shared-password sign-in, with failed sign-ins throttled per name and per
    address, and at most ``max_learners`` learner accounts."""

    max_learners = Integer(50, config=True, help="learner accounts the room's password can "
                           "create (existing learners always sign in; 0 = no limit)")
    name_failures = Integer(5, config=True, help="failed sign-ins for one name before it waits")
    address_failures = Integer(20, config=True, help="failed sign-ins from one address (a "
                               "room behind one router shares it) before it waits")
    delay = Float(10.0, config=True, help="the first wait, seconds; doubles with each failure")
    max_delay = Float(300.0, config=True, help="the longest wait, seconds")

    def __init__(self, **kw):
        super().__init__(**kw)
        self._by_name = Throttle(self.name_failures, self.delay, self.max_delay)
        self._by_addr = Throttle(self.address_failures, self.delay, self.max_delay)
        self._new: dict[str, float] = {}   # names let in but maybe not yet in the database

    async def authenticate(self, handler, data):
        name = self.normalize_username(str((data or {}).get("username", "")))
        addr = "?" if handler is None else (handler.request.remote_ip or "?")
        wait = max(self._by_name.wait_left(name), self._by_addr.wait_left(addr))
        if wait > 0:
            self.log.warning("sign-in of %r from %s refused: throttled for %.0f s", name[:32],
                             addr, wait)
            raise HTTPError(429, f"Too many failed sign-ins for this name or from this address: "
                                 f"try again in {math.ceil(wait)} s.")
        user = await super().authenticate(handler, data)
        if user is None:
            self._by_name.failed(name)
            self._by_addr.failed(addr)
            return None
        self._by_name.cleared(name)
        self._by_addr.cleared(addr)
        if not user.get("admin") and handler is not None and self.max_learners > 0:
            self._admit(handler, user["name"])
        return user

    def _admit(self, handler, name: str) -> None:
        """A name new to the hub is let in only while fewer than max_learners exist."""
        from jupyterhub import orm
        db = handler.db
        if db.query(orm.User).filter(orm.User.name == name).first() is not None:
            return
        now = time.monotonic()
        known = {u.name for u in db.query(orm.User).filter(orm.User.admin == False)}  # noqa: E712
        self._new = {n: t for n, t in self._new.items() if n not in known and now - t < 120}
        if len(known) + len(self._new) >= self.max_learners:
            self.log.warning("sign-in of new learner %r refused: %d learners (--max-learners)",
                             name, self.max_learners)
            raise HTTPError(403, f"This room is full: it has {self.max_learners} learners "
                                 f"(bash run.sh hub --max-learners N). Ask the presenter.")
        self._new[name] = now
