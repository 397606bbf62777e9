"""The learner server of umkit's JupyterHub: one Jupyter server per learner, on this machine.

``UmkitSpawner`` starts each learner's ``jupyterhub-singleuser`` as the hub's own system user (no
system accounts to create for a workshop), in a home of its own under the hub's state folder, with
a fresh learner workspace (``umkit workspace``: the notebooks with outputs cleared; edited copies
are kept across restarts) as its root and ``00_start_here`` as its start page.

Per-learner memory and CPU limits are enforced with a control group of the learner's own when this
machine lets the hub make one (cgroup v2, or v1's ``memory`` and ``cpu`` controllers, writable:
root in most containers and VMs); otherwise the hub logs, for each learner, that the limits are
not enforced, and serves the learner anyway.  The spawner isolates learners' files by folder only: every server
runs as the same system user, which suits a workshop on a machine set up for it, not a shared
multi-tenant host (use Kubernetes, ``deploy/k8s/``, for that).
"""
from __future__ import annotations

import asyncio
import json
import os
import re
import sys

from jupyterhub.spawner import SimpleLocalProcessSpawner
from traitlets import Unicode

CGROUP_ROOT = "/sys/fs/cgroup"
CPU_PERIOD_US = 100_000
WORKSPACE_TIMEOUT_S = 60      # below the hub's start timeout (120 s), so its message shows


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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
        """In the child, before exec: move this process into the group (children follow)."""
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


class UmkitSpawner(SimpleLocalProcessSpawner):
    """A learner's server: their own home and workspace, the kit's notebooks, optional limits."""

    notebooks_src = Unicode(help="the kit's notebooks/ folder (the workspace is made from it)",
                            config=True)
    umkit_python = Unicode(sys.executable, help="the Python that has umkit installed",
                           config=True)

    group_prefix = Unicode("hub", help="names this hub's control groups apart from another "
                           "hub's on the same machine", config=True)

    _limits: CgroupLimits | None = None

    async def _make_workspace(self) -> str:
        """``umkit workspace`` for this learner, in a child process the hub's event loop does not
        wait on (a room signing in at once must not stall the hub)."""
        ws = os.path.join(self.home_dir, "workspace")
        os.makedirs(self.home_dir, 0o755, exist_ok=True)
        proc = await asyncio.create_subprocess_exec(
            self.umkit_python, "-m", "umkit.cli", "workspace", "--src", self.notebooks_src,
            "--dest", ws, "--quiet", stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT)
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

    def make_preexec_fn(self, name):
        base = super().make_preexec_fn(name)
        limits = self._limits

        def preexec():
            base()
            if limits is not None and limits.dirs:
                limits.join()
        return preexec

    async def start(self):
        self.notebook_dir = await self._make_workspace()
        self._limits = CgroupLimits(f"{self.group_prefix}-learner-{self.user.id}",
                                    self.mem_limit or None, self.cpu_limit or None)
        why = self._limits.create()
        if why:
            self.log.warning("limits for %s not enforced: %s", self.user.name, why)
        else:
            self.log.info("limits for %s: %s", self.user.name, json.dumps(self._limits.applied))
        return await super().start()

    async def stop(self, now=False):
        try:
            await super().stop(now=now)
        finally:
            if self._limits is not None:
                for d in self._limits.remove():
                    self.log.warning("could not remove the control group %s of %s", d,
                                     self.user.name)
