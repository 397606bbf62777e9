"""The learner server of umkit's JupyterHub: one Jupyter server per learner, on this machine.

Two modes, chosen by who runs the hub:

* **isolated** (the hub runs as root): ``UmkitSpawner`` gives each learner a system account of
  their own (``useradd --system``, made on first sign-in, named ``<hub>-<learner>``, no login shell,
  no password) and starts their ``jupyterhub-singleuser`` as that account, in a home of its own
  (mode 0700) under the hub's state folder.  The hub's files (database, cookie secret, password,
  pid files) are in ``STATE/hub/`` (0700, root's), its secrets are in no learner's environment,
  and a learner's processes can neither read another account's files nor its ``/proc/PID/environ``.
  Kernels use ZMQ's ipc transport: unix sockets in the learner's own runtime folder
  (``RUNTIME_BASE/<account>``, 0700), not loopback TCP ports any local user can subscribe to.
  Root never follows a link inside a learner's home (folder descriptors, ``follow_symlinks=False``;
  ``~/.tmp`` is made by the learner's account).  When a learner's server stops, every process of
  that account is ended from inside the account (``kill(-1)`` until none is left), and its System
  V IPC objects and its files at the top of ``/dev/shm`` and ``/tmp`` are removed.
* **shared** (the hub runs as an ordinary user): every server runs as the hub's own user, kept
  apart by folder only (``SimpleLocalProcessSpawner``'s way): a learner's code can read and change
  every other learner's files and the hub's state.  ``bash run.sh hub`` says so when it starts.

In both modes: the contents API stays inside the workspace (``server/umkit_contents.py``); a
name, once taken, needs the word of its first sign-in, sign-in is throttled (per name, per address
as the hub's proxy saw it, and overall) and the number of learner accounts capped
(``UmkitAuthenticator``); what a learner's server prints reaches the hub's log escaped and
rate-limited (``relay_output``); and memory and CPU limits use a control group per learner where
this machine lets the hub make one.
"""
from __future__ import annotations

import asyncio
import collections
import hashlib
import hmac
import json
import math
import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time

from jupyterhub.authenticators.shared import SharedPasswordAuthenticator
from jupyterhub.spawner import LocalProcessSpawner, set_user_setuid
from tornado.web import HTTPError
from traitlets import Float, Integer, Unicode

ISOLATED = os.geteuid() == 0          # root: a system account per learner
ACCOUNT_COMMENT = "umkit hub learner"  # the GECOS field of every account the hub makes
WORKSPACE_TIMEOUT_S = 60      # below the hub's start timeout (120 s), so its message shows
HERE = os.path.dirname(os.path.abspath(__file__))
# isolated mode: each learner's Jupyter runtime folder (kernel connection files and the kernels'
# unix sockets: the kernels use ZMQ's ipc transport, not loopback TCP that any local user can
# connect to).  A short path: a unix socket's path is limited to 107 bytes.
RUNTIME_BASE = "/run/umkit-hub"


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


# Run as the learner's account (never as root): kill(-1) then signals every process of that account
# at once, a process forking at that moment included (the kernel aborts a fork whose parent has a
# fatal signal pending), so a process that keeps changing its pid cannot slip between two scans of
# /proc.  Repeated until kill(-1) finds nothing, or only dead (zombie) processes are left.
_KILL_ACCOUNT = r"""
import os, signal, sys, time
me, uid, deadline = os.getpid(), os.getuid(), time.monotonic() + float(sys.argv[1])
def live():
    n = 0
    for e in os.listdir('/proc'):
        if not e.isdigit() or int(e) == me:
            continue
        try:
            with open('/proc/%s/status' % e) as f:
                st = dict(l.split(':', 1) for l in f.read().splitlines() if ':' in l)
            if int(st['Uid'].split()[0]) == uid and st['State'].split()[0] not in ('Z', 'X'):
                n += 1
        except (OSError, KeyError, ValueError, IndexError):
            pass
    return n
rounds = 0
while True:
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        sys.exit(0)
    rounds += 1
    if rounds >= 3 and not live():
        sys.exit(0)
    if time.monotonic() > deadline:
        sys.exit(1)
    time.sleep(0.02)
"""


_KILL_ACCOUNT_SH = "i=0; while [ $i -lt 50 ]; do kill -9 -1 2>/dev/null || exit 0; i=$((i+1)); done"


def end_account(uid: int, gid: int, timeout: float = 3.0) -> int:
    """End every process of a learner's account, a process that forks and exits to change its
    pid included: a child that becomes the account calls kill(-1, SIGKILL) until nothing of the
    account is left.  The number of live processes the account had before; raises RuntimeError
    when some are still alive afterwards."""
    if uid <= 0 or uid == os.getuid() or os.geteuid() != 0:
        raise ValueError(f"end_account: uid {uid} is not a learner account this hub may end")
    before = len([p for p in find_processes(uids=[uid]) if not is_zombie(p)])
    as_account = dict(user=uid, group=gid, extra_groups=[], cwd="/", stdin=subprocess.DEVNULL,
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout + 10)
    try:
        subprocess.run([sys.executable, "-I", "-S", "-c", _KILL_ACCOUNT, str(timeout)],
                       env={}, **as_account)
    except (OSError, subprocess.SubprocessError):
        try:        # this Python is out of the account's reach: the shell's kill, 50 rounds
            subprocess.run(["/bin/sh", "-c", _KILL_ACCOUNT_SH], env={"PATH": "/usr/bin:/bin"},
                           **as_account)
        except (OSError, subprocess.SubprocessError):
            pass
    end_processes(uids=[uid], timeout=1.0)          # root's own pass (also if the child failed)
    left = [p for p in find_processes(uids=[uid]) if not is_zombie(p)]
    if left:
        raise RuntimeError(f"{len(left)} process(es) of uid {uid} would not end: {left[:10]}")
    return before


def clean_account_leftovers(uid: int) -> list[str]:
    """After the account's processes are gone: its System V shared memory, message queues and
    semaphores, and its files at the top of /dev/shm and /tmp (links removed, never followed)."""
    removed = []
    for kind, opt, idcol in (("shm", "-m", "shmid"), ("msg", "-q", "msqid"), ("sem", "-s", "semid")):
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                head, *rows = f.read().splitlines()
        except OSError:
            continue
        cols = head.split()
        for row in rows:
            v = dict(zip(cols, row.split()))
            if v.get("uid") == str(uid) or v.get("cuid") == str(uid):
                r = subprocess.run(["ipcrm", opt, v[idcol]], capture_output=True)
                if r.returncode == 0:
                    removed.append(f"sysv {kind} {v[idcol]}")
    for top in ("/dev/shm", "/tmp"):
        try:
            entries = list(os.scandir(top))
        except OSError:
            continue
        for e in entries:
            try:
                if e.stat(follow_symlinks=False).st_uid != uid:
                    continue
                if e.is_dir(follow_symlinks=False) and shutil.rmtree.avoids_symlink_attacks:
                    shutil.rmtree(e.path)
                elif not e.is_dir(follow_symlinks=False):
                    os.unlink(e.path)
                else:
                    continue
                removed.append(e.path)
            except OSError:
                pass
    return removed


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


def hub_groups(prefix: str, root=CGROUP_ROOT) -> list[str]:
    """The learners' control-group folders this hub made that still exist (a hub killed
    before its servers stopped leaves them)."""
    found = set()
    try:
        own = _own_cgroups()
    except OSError:
        return []
    for ctrl, path in own.items():
        base = os.path.join(root, *([ctrl] if ctrl else []), path.lstrip("/"), "umkit-hub")
        try:
            names = os.listdir(base)
        except OSError:
            continue
        found.update(os.path.realpath(os.path.join(base, n)) for n in names
                     if n.startswith(prefix + "-learner-"))
    return sorted(found)


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
    max_processes = Integer(2048, help="isolated mode: processes and threads a learner's account "
                            "may have at once (RLIMIT_NPROC; a fork bomb stops there); 0 = no "
                            "limit", config=True)

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
        # nothing of the account's may run while root goes through its home (a process left from
        # before could swap a folder for a link between two of root's steps)
        await asyncio.to_thread(end_account, p.pw_uid, p.pw_gid)
        for note in await asyncio.to_thread(own_home, home, p.pw_uid, p.pw_gid):
            self.log.warning("home of %s: %s", self.user.name, note)
        return p.pw_uid, p.pw_gid

    def _learner_env(self) -> dict:
        """The environment of everything that runs for the learner: no hub secret in it."""
        home = self.home_dir
        env = {"HOME": home, "USER": self.account or self.user.name, "SHELL": "/bin/sh",
               "TMPDIR": os.path.join(home, ".tmp"),
               "PATH": os.path.dirname(self.umkit_python) + os.pathsep + "/usr/bin:/bin",
               "LANG": os.environ.get("LANG", "C.UTF-8"), "UMKIT_HUB_ID": self.hub_id}
        if ISOLATED:
            env["JUPYTER_RUNTIME_DIR"] = os.path.join(RUNTIME_BASE, self.account)
        return env

    async def _make_workspace(self, ids) -> str:
        """``umkit workspace`` for this learner, as the learner, in a child process the hub's
        event loop does not wait on (a room signing in at once must not stall the hub).  The
        learner's ``TMPDIR`` (``~/.tmp``) is made there too, as the learner: root never makes,
        changes or follows anything a learner can replace inside their home."""
        ws = os.path.join(self.home_dir, "workspace")
        kw = dict(user=ids[0], group=ids[1], extra_groups=[]) if ids else {}
        proc = await asyncio.create_subprocess_exec(
            self.umkit_python, "-c", _AS_LEARNER, "workspace", "--src", self.notebooks_src,
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
        text = printable(out.decode(errors="replace").strip())
        if proc.returncode != 0:
            raise RuntimeError(f"umkit workspace failed for {self.user.name}: {text[-500:]}")
        if text:
            self.log.info("workspace of %s: %s", self.user.name, text)
        return ws

    def _make_runtime_dir(self, ids) -> str:
        """Isolated mode: RUNTIME_BASE/<account>, made fresh by root in a folder only root
        writes (0711), then given to the learner (0700): the kernels' connection files and
        unix sockets."""
        os.makedirs(RUNTIME_BASE, 0o711, exist_ok=True)
        st = os.lstat(RUNTIME_BASE)
        if st.st_uid != 0 or not os.path.isdir(RUNTIME_BASE) or os.path.islink(RUNTIME_BASE):
            raise RuntimeError(f"{RUNTIME_BASE} is not root's own folder: refusing to use it")
        os.chmod(RUNTIME_BASE, 0o711)
        d = os.path.join(RUNTIME_BASE, self.account)
        self._remove_runtime_dir()
        os.mkdir(d, 0o700)
        os.lchown(d, *ids)
        return d

    def _remove_runtime_dir(self) -> None:
        remove_runtime_dir(self.account)

    def user_env(self, env):
        env.update(self._learner_env())
        return env

    def make_preexec_fn(self, name):
        limits, home = self._limits, self.home_dir
        drop = set_user_setuid(self.account) if ISOLATED else None
        nproc = self.max_processes if ISOLATED else 0

        def preexec():
            if limits is not None and limits.dirs:
                limits.join()        # while still root: the learner cannot leave it
            if nproc > 0:            # counted per account: one learner cannot fill the pid table
                import resource
                resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
            if drop is not None:
                drop()               # the learner's account (and its home as cwd)
            else:
                os.chdir(home)
        return preexec

    async def start(self):
        if ISOLATED:
            ids = await self._make_account()
            await asyncio.to_thread(self._make_runtime_dir, ids)
        else:
            ids = None
            os.makedirs(self.home_dir, 0o700, exist_ok=True)
        self.notebook_dir = await self._make_workspace(ids)
        self.popen_kwargs = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT}
        self._limits = CgroupLimits(f"{self.group_prefix}-learner-{self.user.id}",
                                    self.mem_limit or None, self.cpu_limit or None)
        why = self._limits.create()
        if why:
            self.log.warning("limits for %s not enforced: %s", self.user.name, why)
        else:
            self.log.info("limits for %s: %s", self.user.name, json.dumps(self._limits.applied))
        url = await super().start()
        if self.proc is not None and self.proc.stdout is not None:
            # the learner's server and kernels write here, never to the presenter's terminal:
            # each line reaches the hub's log with control characters escaped
            pipe, self.proc.stdout = self.proc.stdout, None
            threading.Thread(target=relay_output, args=(pipe, self.log, self.user.name),
                             name=f"output of {self.user.name}", daemon=True).start()
        return url

    async def stop(self, now=False):
        session = self.pid
        try:
            await super().stop(now=now)
        finally:
            # whatever the learner started and left running: in isolated mode every process
            # of their account (ended from inside the account: kill(-1) until none is left),
            # its System V IPC objects and its files in /dev/shm and /tmp; in shared mode their
            # server's session and every process marked as theirs (a process that leaves both
            # escapes: the README says so)
            ids = self._ids()
            if ids:
                try:
                    n = await asyncio.to_thread(end_account, *ids)
                except RuntimeError as err:
                    n = 0
                    self.log.error("processes of %s are still running: %s", self.user.name, err)
                gone = await asyncio.to_thread(clean_account_leftovers, ids[0])
                if gone:
                    self.log.info("removed what %s left: %s", self.user.name,
                                  printable(", ".join(gone[:20])))
                await asyncio.to_thread(self._remove_runtime_dir)
            else:
                n = await asyncio.to_thread(
                    end_processes, sessions=[session] if session else [],
                    env={"UMKIT_HUB_ID": self.hub_id, "JUPYTERHUB_USER": self.user.name})
            if n:
                self.log.info("ended %d leftover process(es) of %s", n, self.user.name)
            if self._limits is not None:
                for d in self._limits.remove():
                    self.log.warning("could not remove the control group %s of %s", d,
                                     self.user.name)


# runs as the learner (``python -c``): make TMPDIR (replacing a link or a file the learner put
# there), then ``umkit workspace`` with the arguments given
_AS_LEARNER = r"""
import os, sys, runpy
t = os.environ['TMPDIR']
if os.path.islink(t) or (os.path.lexists(t) and not os.path.isdir(t)):
    os.unlink(t)
os.makedirs(t, 0o700, exist_ok=True)
sys.argv = ['umkit'] + sys.argv[1:]
runpy.run_module('umkit.cli', run_name='__main__')
"""

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """TEXT with every control character (escape sequences, carriage returns, bidi overrides)
    written as an escape, so that it cannot clear, retitle or rewrite a terminal."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def relay_output(pipe, log, name: str, max_line: int = 4000, rate: float = 20.0, burst: int = 200,
           clock=time.monotonic) -> None:
    """Each line a learner's server writes, into the hub's log: escaped, marked as theirs, at
    most ``burst`` lines at once and ``rate`` a second after that (a learner printing without
    end fills neither the log nor the hub's time); how many were left out is said."""
    tokens, last, dropped = float(burst), clock(), 0
    with pipe:
        for raw in iter(lambda: pipe.readline(65536), b""):
            now = clock()
            tokens, last = min(float(burst), tokens + (now - last) * rate), now
            if tokens < 1:
                dropped += 1
                continue
            tokens -= 1
            if dropped:
                log.info("[server of %s] (%d line(s) left out: too many)", name, dropped)
                dropped = 0
            text = printable(raw.decode(errors="replace").rstrip("\n"))
            log.info("[server of %s] %s", name, text[:max_line])
    if dropped:
        log.info("[server of %s] (%d line(s) left out: too many)", name, dropped)


def own_home(home: str, uid: int, gid: int) -> list[str]:
    """The learner's home: theirs, 0700; everything in it theirs (a home made in shared mode, or
    for an account made again with another uid).  Walked with folder descriptors, nothing
    followed: a link the learner made is changed itself, never what it points to, and a folder
    swapped for a link mid-walk is not entered.  A file with more than one name (a hard link:
    its other name may be anyone's file elsewhere) is left as it is, and so is what lies deeper
    than the walk can go (a learner's folder nested thousands deep): the server starts anyway.
    Returns what was left, in words, for the log."""
    os.makedirs(home, 0o700, exist_ok=True)
    st = os.lstat(home)
    if not os.path.isdir(home) or os.path.islink(home):
        raise RuntimeError(f"the learner's home {home} is not a folder")
    fd = os.open(home, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        os.fchmod(fd, 0o700)
        if st.st_uid != uid or st.st_gid != gid:
            os.fchown(fd, uid, gid)
    finally:
        os.close(fd)
    linked, notes = 0, []
    try:
        for _top, dirs, files, dfd in os.fwalk(home, follow_symlinks=False):
            for n in dirs + files:
                try:
                    s = os.stat(n, dir_fd=dfd, follow_symlinks=False)
                    if s.st_uid == uid and s.st_gid == gid:
                        continue
                    if s.st_nlink > 1 and not stat.S_ISDIR(s.st_mode):
                        linked += 1          # another name of this file may be outside the home
                        continue
                    os.chown(n, uid, gid, dir_fd=dfd, follow_symlinks=False)
                except FileNotFoundError:
                    pass
    except RecursionError:
        notes.append("folders nested deeper than the walk goes were left as they are")
    if linked:
        notes.append(f"{linked} file(s) with more than one name (hard links) left as they are")
    return notes


def remove_runtime_dir(account: str) -> None:
    """Remove RUNTIME_BASE/<account> (a learner's kernels' connection files and sockets), never
    following a link."""
    d = os.path.join(RUNTIME_BASE, account)
    if os.path.lexists(d):
        if os.path.isdir(d) and not os.path.islink(d):
            shutil.rmtree(d, ignore_errors=True)     # fd-based: never follows a link
        else:
            os.unlink(d)


def remove_stale_runtime_dirs() -> list[str]:
    """Remove every folder of RUNTIME_BASE that belongs to no account of that name any more, or
    whose owner is not that account (an account deleted, and its uid given to a new one, must
    not inherit the old learner's connection files).  Returns the names removed."""
    try:
        entries = list(os.scandir(RUNTIME_BASE))
    except OSError:
        return []
    gone = []
    for e in entries:
        try:
            owner = pwd.getpwnam(e.name).pw_uid
        except KeyError:
            owner = None
        try:
            if owner is None or e.stat(follow_symlinks=False).st_uid != owner:
                remove_runtime_dir(e.name)
                gone.append(e.name)
        except OSError:
            pass
    return gone


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


def loopback_socket(ip: str, port: int, tables=("/proc/net/tcp",),
                    remote: tuple | None = None) -> tuple[int, int] | None:
    """(uid, inode) of the local TCP socket ``ip:port`` (IPv4), from /proc/net/tcp; with
    ``remote`` (the hub's own ``(ip, port)`` of that connection) only the socket connected to it
    (another program's server may have accepted a connection on the same port number)."""
    import socket

    def hexed(a, p):
        return f"{socket.inet_aton(a)[::-1].hex().upper()}:{p:04X}"
    try:
        want = hexed(ip, port)
        want_remote = hexed(*remote) if remote else None
    except (OSError, TypeError, ValueError, OverflowError):
        return None
    for table in tables:
        try:
            with open(table) as f:
                next(f, None)
                for line in f:
                    cols = line.split()
                    # an established connection's own socket (a TIME_WAIT row of an earlier
                    # connection from the same port has no owner: uid 0, inode 0)
                    if len(cols) > 9 and cols[1] == want and cols[3] == "01" and \
                            int(cols[9]) > 0 and (want_remote is None or cols[2] == want_remote):
                        return int(cols[7]), int(cols[9])
        except (OSError, ValueError):
            continue
    return None


def loopback_owner(ip: str, port: int, tables=("/proc/net/tcp",)) -> int | None:
    """The uid that owns the local TCP socket ``ip:port`` (IPv4), from /proc/net/tcp."""
    found = loopback_socket(ip, port, tables)
    return None if found is None else found[0]


def holds_socket(pids, inode: int) -> bool:
    """Whether one of ``pids`` or a descendant of one of them has the socket ``inode`` open."""
    pids = {p for p in pids if p}
    if not pids or not inode:
        return False
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    parents[int(name)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    family, grew = set(pids), True
    while grew:
        more = {c for c, pp in parents.items() if pp in family and c not in family}
        family |= more
        grew = bool(more)
    target = f"socket:[{inode}]"
    for pid in family:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                    return True
            except OSError:
                continue
    return False


def client_address(request, sock=loopback_socket, proxy_pids=()) -> str:
    """The address a sign-in came from, as the hub's own proxy saw it.  A client's X-Real-Ip or
    X-Forwarded-For header is never trusted as such.  Only a connection the proxy itself made
    (its socket open in the proxy's process, one of ``proxy_pids``) is taken at its word: the
    address is the last X-Forwarded-For entry, the one configurable-http-proxy appends itself.
    Any other loopback connection (a learner's kernel, or any other local program, talking to
    the hub's own port) is that socket's owner ("local uid N"), or "local ?" when the owner
    cannot be read; any other connection is its peer address."""
    ctx = getattr(getattr(request, "connection", None), "context", None)
    address = getattr(ctx, "address", None)      # the socket's peer, whatever headers say
    socket_peer = address[0] if isinstance(address, tuple) and address else None
    peer = socket_peer or getattr(request, "remote_ip", None) or "?"
    if peer.startswith("::ffff:"):
        peer = peer[len("::ffff:"):]
    if peer == "127.0.0.1" or peer == "::1" or peer.startswith("127."):
        port = address[1] if isinstance(address, tuple) and len(address) > 1 else None
        found = None
        if port and peer != "::1":
            mine = _own_address(request)
            found = sock(peer, port, remote=mine) if mine else sock(peer, port)
        if found is None:
            return "local ?"
        uid, inode = found
        if uid == os.geteuid() and holds_socket(proxy_pids, inode):
            last = (request.headers.get("X-Forwarded-For") or "").split(",")[-1].strip()
            return last[:64] if last else peer
        return f"local uid {uid}"
    return peer


def _own_address(request) -> tuple | None:
    """The hub's own (ip, port) of the connection ``request`` came on (None when unknown)."""
    try:
        got = request.connection.stream.socket.getsockname()
    except Exception:  # noqa: BLE001 - a test's request, a closed stream: match without it
        return None
    if isinstance(got, tuple) and len(got) >= 2 and isinstance(got[0], str) and \
            got[0].count(".") == 3:
        return got[0], int(got[1])
    return None


def _proxy_pids(handler) -> tuple[int, ...]:
    """The pid of the proxy this hub started (none when the hub did not start one)."""
    proxy = getattr(handler, "settings", {}).get("proxy")
    proc = getattr(proxy, "proxy_process", None)
    pid = getattr(proc, "pid", None)
    return (pid,) if isinstance(pid, int) and pid > 0 else ()


class Overall:
    """Failed sign-ins of the whole hub: at most ``limit`` within ``window`` seconds; beyond it
    every sign-in waits until the oldest of them is ``window`` seconds old."""

    def __init__(self, limit: int, window: float = 60.0, clock=time.monotonic):
        self.limit, self.window, self.clock = limit, window, clock
        self.times: collections.deque = collections.deque()

    def _drop_old(self, now):
        while self.times and now - self.times[0] > self.window:
            self.times.popleft()

    def wait_left(self) -> float:
        now = self.clock()
        self._drop_old(now)
        if self.limit <= 0 or len(self.times) < self.limit:
            return 0.0
        return max(0.0, self.times[-self.limit] + self.window - now)

    def failed(self) -> None:
        now = self.clock()
        self._drop_old(now)
        self.times.append(now)
        while len(self.times) > max(self.limit, 1) * 2:
            self.times.popleft()


class Words:
    """Each learner name's own word (its salted PBKDF2 hash), in a file only the hub reads."""

    ITERATIONS = 60_000

    def __init__(self, path: str):
        self.path = path
        self.hashes: dict[str, str] = {}
        if path and os.path.exists(path):
            with open(path) as f:
                self.hashes = dict(json.load(f))

    def _hash(self, word: str, salt: bytes) -> str:
        return hashlib.pbkdf2_hmac("sha256", word.encode(), salt, self.ITERATIONS).hex()

    def has(self, name: str) -> bool:
        return name in self.hashes

    def check(self, name: str, word: str) -> bool:
        salt, _, want = self.hashes[name].partition("$")
        return hmac.compare_digest(self._hash(word, bytes.fromhex(salt)), want)

    def make(self, word: str) -> str:
        salt = os.urandom(16)
        return salt.hex() + "$" + self._hash(word, salt)

    def set(self, name: str, hashed: str) -> None:
        self.hashes[name] = hashed
        if self.path:                   # written whole, then renamed: never half a file
            tmp = f"{self.path}.{os.getpid()}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w") as f:
                json.dump(self.hashes, f)
            os.replace(tmp, self.path)


class UmkitAuthenticator(SharedPasswordAuthenticator):
    """JupyterHub's shared-password sign-in, where a name, once taken, is its owner's: the
    first sign-in under a name gives the room's password followed by a word of the learner's own
    (``room-password word``); the hub keeps the word's hash for that name, and every later
    sign-in under it must give the same word.  Failed sign-ins are throttled per name, per
    address (as the hub's proxy saw it) and overall; at most ``max_learners`` learner
    accounts."""

    max_learners = Integer(50, config=True, help="learner accounts the room's password can "
                           "create (existing learners always sign in; 0 = no limit)")
    name_failures = Integer(5, config=True, help="failed sign-ins for one name before it waits")
    address_failures = Integer(20, config=True, help="failed sign-ins from one address (a "
                               "room behind one router shares it) before it waits")
    total_failures = Integer(60, config=True, help="failed sign-ins of the whole hub within a "
                             "minute before every sign-in waits (0 = no overall cap)")
    delay = Float(10.0, config=True, help="the first wait, seconds; doubles with each failure")
    max_delay = Float(300.0, config=True, help="the longest wait, seconds")
    words_file = Unicode("", config=True, help="where the hashes of the learners' own words "
                         "are kept (a file only the hub reads); '' keeps them in memory")
    min_word = Integer(4, config=True, help="the shortest word of a learner's own")

    def __init__(self, **kw):
        super().__init__(**kw)
        self._by_name = Throttle(self.name_failures, self.delay, self.max_delay)
        self._by_addr = Throttle(self.address_failures, self.delay, self.max_delay)
        self._overall = Overall(self.total_failures)
        self._words = Words(self.words_file)
        self._new: dict[str, float] = {}   # names let in but maybe not yet in the database

    def _failed(self, name: str, addr: str) -> None:
        self.log.info("failed sign-in of %r from %s", printable(name[:32]), printable(addr))
        self._by_name.failed(name)
        self._by_addr.failed(addr)
        self._overall.failed()

    async def authenticate(self, handler, data):
        data = data or {}
        name = self.normalize_username(str(data.get("username", "")))
        password = str(data.get("password", ""))
        addr = "?" if handler is None else client_address(handler.request,
                                                          proxy_pids=_proxy_pids(handler))
        wait = max(self._by_name.wait_left(name), self._by_addr.wait_left(addr),
                   self._overall.wait_left())
        if wait > 0:
            self.log.warning("sign-in of %r from %s refused: throttled for %.0f s",
                             printable(name[:32]), printable(addr), wait)
            raise HTTPError(429, f"Too many failed sign-ins (for this name, from this address "
                                 f"or on this hub): try again in {math.ceil(wait)} s.")
        if name in self.admin_users:
            user = await super().authenticate(handler, {"username": name, "password": password})
        elif not self.validate_username(name):
            user = None           # refused before it can take a learner's place
        else:
            user = await self._learner(handler, name, password)
        if user is None:
            self._failed(name, addr)
            return None
        self._by_name.cleared(name)
        self._by_addr.cleared(addr)
        return user

    async def _learner(self, handler, name: str, password: str):
        room = self.user_password
        if not room or len(password) < len(room) or \
                not hmac.compare_digest(password[:len(room)].encode(), room.encode()):
            return None
        word = password[len(room):].strip()
        if self._words.has(name):
            ok = await asyncio.to_thread(self._words.check, name, word)
            return {"name": name, "admin": False, "groups": []} if ok else None
        if len(word) < self.min_word:
            self.log.warning("sign-in of new learner %r refused: no word of their own", name)
            raise HTTPError(403, f"The name {name} is new: type the room's password, a space and "
                                 f"a word of your own ({self.min_word}+ characters) in the "
                                 f"password box. You will need the same word to sign in as "
                                 f"{name} again; nobody else can use the name without it.")
        if handler is not None and self.max_learners > 0:
            self._admit(handler, name)
        hashed = await asyncio.to_thread(self._words.make, word)
        if self._words.has(name):       # claimed by a sign-in that finished meanwhile
            ok = await asyncio.to_thread(self._words.check, name, word)
            return {"name": name, "admin": False, "groups": []} if ok else None
        self._words.set(name, hashed)
        self.log.info("learner name %r claimed (its own word kept)", name)
        return {"name": name, "admin": False, "groups": []}

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
