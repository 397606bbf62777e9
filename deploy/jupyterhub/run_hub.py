"""Start JupyterHub with umkit's configuration and stop it, and everything it started, within a
few seconds: ``python run_hub.py [jupyterhub options]`` (``bash run.sh hub`` runs it).

On Ctrl-C (SIGINT), SIGTERM or SIGHUP it says so, asks the hub to stop (SIGTERM: the hub stops
the learners' servers, its services and its proxy), waits at most ``GRACE_S`` seconds, then ends
whatever is left: the hub's process group, the proxy (by its pid file), every process marked with
this hub's UMKIT_HUB_ID (servers, kernels, the idle culler, the proxy) and, when the hub ran as
root, every process of the learner accounts it made (a process a learner detached and stripped of
its environment included, or one that keeps changing its pid: each account is ended from inside
it, kill(-1) until nothing is left), what they left in /dev/shm, /tmp and System V IPC, and the
learners' control groups.  It prints how long that took and exits 130 after Ctrl-C.
"""
from __future__ import annotations

import os
import pwd
import secrets
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from umkit_hub import (ISOLATED, RUNTIME_BASE, CgroupLimits,  # noqa: E402
                       clean_account_leftovers, end_account, end_processes, find_processes,
                       hub_accounts, hub_groups, hub_prefix, is_zombie, remove_runtime_dir,
                       remove_stale_runtime_dirs)

CONFIG = os.path.join(HERE, "jupyterhub_config.py")
GRACE_S = 2.0        # the hub's own orderly stop; then everything left is killed


def say(text: str) -> None:
    print(f"umkit hub: {text}", file=sys.stderr, flush=True)


def _proxy_pid(private: str) -> int | None:
    try:
        with open(os.path.join(private, "proxy.pid")) as f:
            pid = int(f.read().strip())
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return pid if b"configurable-http-proxy" in f.read() else None
    except (OSError, ValueError):
        return None


def sweep(state: str, hub_id: str, timeout: float = 2.0) -> int:
    """End every process this hub left: the proxy, the marked ones, the learners' accounts'
    (each ended from inside the account, kill(-1) until none is left); then remove what the
    learners left in /dev/shm, /tmp and System V IPC, and their control groups."""
    n = 0
    pid = _proxy_pid(os.path.join(state, "hub"))
    if pid:
        try:
            os.kill(pid, signal.SIGKILL)
            n += 1
        except OSError:
            pass
    prefix = hub_prefix(state)
    if ISOLATED:
        accounts = hub_accounts(prefix)
        gids = {a: pwd.getpwnam(a).pw_gid for a in accounts}

        def end(acct):
            try:
                return end_account(accounts[acct], gids[acct], timeout=timeout / 2)
            except RuntimeError as err:
                say(f"{acct}: {err}")
                return 0
        with ThreadPoolExecutor(max_workers=16) as pool:
            n += sum(pool.map(end, accounts))
            list(pool.map(clean_account_leftovers, accounts.values()))
            list(pool.map(remove_runtime_dir, accounts))      # connection files, sockets
        for name in remove_stale_runtime_dirs():
            say(f"removed {RUNTIME_BASE}/{name}: its account is gone or another's")
    n += end_processes(env={"UMKIT_HUB_ID": hub_id}, timeout=timeout / 2)
    groups = hub_groups(prefix)
    if groups:
        limits = CgroupLimits("leftover", None, None)
        limits.dirs = groups
        for d in limits.remove(grace=timeout / 2):
            say(f"could not remove the control group {d}")
    return n


def left_running(state: str, hub_id: str) -> int:
    """Live processes of this hub's learner accounts or marked with its UMKIT_HUB_ID."""
    uids = hub_accounts(hub_prefix(state)).values() if ISOLATED else ()
    pids = set(find_processes(uids=uids)) | set(find_processes(env={"UMKIT_HUB_ID": hub_id}))
    return len([p for p in pids if not is_zombie(p)])


def main(argv: list[str]) -> int:
    state = os.path.abspath(os.environ.get("UMKIT_HUB_STATE")
                            or os.path.join(os.path.dirname(os.path.dirname(HERE)), ".hub"))
    hub_id = os.environ["UMKIT_HUB_ID"] = secrets.token_hex(8)   # fresh: never a caller's
    os.environ["UMKIT_HUB_STATE"] = state
    say("a learner's first sign-in under a name gives the room's password, a space and a word "
        "of their own; from then on that name needs the same word (nobody else can use it)")
    if not os.environ.get("UMKIT_HUB_SUBDOMAIN_HOST"):
        say("every learner's server shares one web origin: a page one learner's server serves "
            "can act in the session of another learner who opens it (deploy/jupyterhub/"
            "README.md, 'One web origin'). UMKIT_HUB_SUBDOMAIN_HOST gives each server a site of "
            "its own; http://localhost:PORT needs no DNS where learners reach the hub on this "
            "machine or through SSH port forwarding")
    if ISOLATED:            # an earlier hub's leftovers, before any account can reuse a uid
        for name in remove_stale_runtime_dirs():
            say(f"removed {RUNTIME_BASE}/{name}: its account is gone or another's")
    hub = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", CONFIG, *argv],
                           start_new_session=True)     # signals reach it only through here
    asked: list[int] = []

    def on_signal(signum, _frame):
        asked.append(signum)

    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)
    while hub.poll() is None and not asked:
        try:
            hub.wait(0.2)
        except subprocess.TimeoutExpired:
            pass
    t0 = time.monotonic()
    if asked:
        say("stopping: the learners' servers, their kernels and the proxy (a few seconds)")
        try:
            os.kill(hub.pid, signal.SIGTERM)
        except OSError:
            pass
        try:
            hub.wait(GRACE_S)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(hub.pid, signal.SIGKILL)
            except OSError:
                pass
            hub.wait(5)
    n = sweep(state, hub_id, timeout=1.5)
    if left_running(state, hub_id):
        n += sweep(state, hub_id, timeout=0.5)
    left = left_running(state, hub_id)
    msg = f"stopped in {time.monotonic() - t0:.1f} s"
    if n:
        msg += f" ({n} leftover process(es) ended)"
    say(msg + ("; nothing of the hub is left running" if not left else
               f"; {left} process(es) would not end"))
    if asked:
        return 130 if asked[0] == signal.SIGINT else 0
    return hub.returncode or 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
