"""Start JupyterHub with umkit's configuration and stop it, and everything it started, within a
few seconds: ``python run_hub.py [jupyterhub options]`` (``bash run.sh hub`` runs it).

On Ctrl-C (SIGINT), SIGTERM or SIGHUP it says so, asks the hub to stop (SIGTERM: the hub stops
the learners' servers, its services and its proxy), waits at most ``GRACE_S`` seconds, then ends
whatever is left: the hub's process group, the proxy (by its pid file), every process marked with
this hub's UMKIT_HUB_ID (servers, kernels, the idle culler, the proxy) and, when the hub ran as
root, every process of the learner accounts it made (a process a learner detached and stripped of
its environment included).  It prints how long that took and exits 130 after Ctrl-C.
"""
from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from umkit_hub import ISOLATED, end_processes, hub_accounts, hub_prefix  # noqa: E402

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
    """End every process this hub left: the proxy, the marked ones, the learners' accounts'."""
    n = 0
    pid = _proxy_pid(os.path.join(state, "hub"))
    if pid:
        try:
            os.kill(pid, signal.SIGKILL)
            n += 1
        except OSError:
            pass
    uids = hub_accounts(hub_prefix(state)).values() if ISOLATED else ()
    n += end_processes(uids=uids, timeout=timeout / 2)
    n += end_processes(env={"UMKIT_HUB_ID": hub_id}, timeout=timeout / 2)
    return n


def main(argv: list[str]) -> int:
    state = os.path.abspath(os.environ.get("UMKIT_HUB_STATE")
                            or os.path.join(os.path.dirname(os.path.dirname(HERE)), ".hub"))
    hub_id = os.environ["UMKIT_HUB_ID"] = secrets.token_hex(8)   # fresh: never a caller's
    os.environ["UMKIT_HUB_STATE"] = state
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
    left = sweep(state, hub_id, timeout=0.3)
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
