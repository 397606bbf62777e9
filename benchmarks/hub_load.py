"""Load test of the workshop hub: how many learners one machine holds.

Starts the real hub (deploy/jupyterhub: JupyterHub, configurable-http-proxy, one server per
learner) on 127.0.0.1, then in rounds of N learners (N ramps up): creates them through the hub's
REST API, starts their servers at once, and runs notebook 03 (the heaviest interactive one) in
every learner's own kernel at once -- the whole room pressing "Run all" together, the worst case.
Records per learner: seconds until the server answered, seconds for the notebook, failures, and
the memory of the learner's server + kernel (RSS and USS, while the kernel is alive); per round:
CPU seconds the machine spent per notebook.  The ramp stops when a round's slowest notebook takes
more than --stop-at times the one-learner time, at --max learners, or when --budget seconds are
spent.  All traffic stays on the loopback interface; every wait is bounded.

    python benchmarks/hub_load.py --out benchmarks/results/DATE-hub-load-cpu2.json
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import tempfile
import importlib.util
import threading
import time

import psutil

HERE = os.path.dirname(os.path.abspath(__file__))


def _load_hubclient():
    """deploy/jupyterhub/hubclient.py (the hub test's client) as a module, by its path."""
    path = os.path.join(os.path.dirname(HERE), "deploy", "jupyterhub", "hubclient.py")
    spec = importlib.util.spec_from_file_location("hubclient", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


hubclient = _load_hubclient()

NOTEBOOK = "03_migration_prefetch_advice.ipynb"


def _parallel(fn, items):
    """fn(item) for every item in its own thread; [(result, error)] in order."""
    out = [None] * len(items)

    def run(i, item):
        try:
            out[i] = (fn(item), None)
        except Exception as err:        # a failure is data here: recorded, not raised
            out[i] = (None, f"{type(err).__name__}: {err}"[:400])
    threads = [threading.Thread(target=run, args=(i, it)) for i, it in enumerate(items)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def _tree_rss(pid):
    try:
        p = psutil.Process(pid)
        return sum(q.memory_info().rss for q in [p, *p.children(recursive=True)])
    except psutil.Error:
        return 0


def one_round(hub, n, timeout):
    names = [f"r{n:03d}-l{i:03d}" for i in range(n)]
    for name in names:
        hub.create_user(name)
    cpu0, t0 = psutil.cpu_times(), time.monotonic()

    def start(name):
        t = time.monotonic()
        hub.start_server(name)
        hub.wait_ready(name, timeout=timeout)
        return time.monotonic() - t
    starts = _parallel(start, names)
    t_started = time.monotonic()
    runs = _parallel(lambda name: hub.run_notebook(name, NOTEBOOK, timeout=timeout,
                                                   on_done=hubclient.learner_memory), names)
    t_end, cpu1 = time.monotonic(), psutil.cpu_times()
    busy = (cpu1.user + cpu1.system) - (cpu0.user + cpu0.system)
    learners = []
    for name, (st, st_err), (run, run_err) in zip(names, starts, runs):
        err = st_err or run_err or (run or {}).get("error")
        mem = (run or {}).get("on_done") or {}
        learners.append({"name": name, "server_s": st, "notebook_s": (run or {}).get("seconds"),
                         "failed": err, "rss_bytes": mem.get("rss"), "uss_bytes": mem.get("uss"),
                         "processes": mem.get("processes")})
    hub_rss = _tree_rss(hub.proc.pid)
    _parallel(hub.delete_user, names)
    ok = [x for x in learners if not x["failed"]]
    nb = [x["notebook_s"] for x in ok]
    return {
        "learners": n, "failed": n - len(ok),
        "servers_up_s": t_started - t0, "notebooks_s": t_end - t_started,
        "server_s_median": statistics.median([x["server_s"] for x in ok]) if ok else None,
        "server_s_max": max([x["server_s"] for x in ok], default=None),
        "notebook_s_median": statistics.median(nb) if nb else None,
        "notebook_s_max": max(nb, default=None),
        "cpu_s_per_learner": busy / n,
        "rss_per_learner_median": statistics.median([x["rss_bytes"] for x in ok]) if ok else None,
        "uss_per_learner_median": statistics.median([x["uss_bytes"] for x in ok]) if ok else None,
        "hub_and_servers_rss_bytes": hub_rss,
        "per_learner": learners,
    }


def summarize(rounds, cores, stop_at):
    """Learners per core and memory per learner, and what rooms of 30 and 100 need."""
    base = rounds[0]["notebook_s_max"]
    held = [r for r in rounds if r["failed"] == 0 and r["notebook_s_max"] is not None
            and r["notebook_s_max"] <= stop_at * base]
    n_held = max((r["learners"] for r in held), default=0)
    uss = max((r["uss_per_learner_median"] or 0) for r in rounds)
    rss = max((r["rss_per_learner_median"] or 0) for r in rounds)
    cpu_s = statistics.median([r["cpu_s_per_learner"] for r in rounds])
    per_core = n_held / cores
    need = {}
    for room in (30, 100):
        need[str(room)] = {
            "cores_all_run_at_once": room / per_core if per_core else None,
            # a learner who runs the notebook once in ten minutes, spread over the room
            "cores_each_once_in_10_min": room * cpu_s / 600,
            "memory_gib": round(room * rss / 2**30 + 1, 1),   # + 1 GiB for the hub, proxy, OS
        }
    return {"one_learner_notebook_s": base, "stop_at_x": stop_at,
            "learners_held": n_held, "cores": cores, "learners_per_core": per_core,
            "cpu_s_per_notebook_median": cpu_s,
            "rss_per_learner_bytes": rss, "uss_per_learner_bytes": uss, "room": need}


def guide_table(doc) -> str:
    """The presenter guide's table of the load test (notebooks/workshop/README.md quotes it
    between its hub-load markers; a test checks it against the committed results)."""
    s = doc["summary"]
    mib = 2 ** 20
    rows = [
        "| measured (hub_load.py, %s, %d cores, sim backend) | |" % (doc["date"], s["cores"]),
        "|---|---|",
        "| learners held, all running notebook 03 at once | %d (%.1f per core; each notebook "
        "within %.0f× the one-learner %.1f s) |" % (s["learners_held"], s["learners_per_core"],
                                                   s["stop_at_x"], s["one_learner_notebook_s"]),
        "| memory per learner (server + kernel) | %.0f MiB RSS, %.0f MiB of its own (USS) |"
        % (s["rss_per_learner_bytes"] / mib, s["uss_per_learner_bytes"] / mib),
        "| CPU per learner (server start + notebook 03) | %.1f core-seconds |"
        % s["cpu_s_per_notebook_median"],
    ]
    for room, need in s["room"].items():
        rows.append("| a room of %s | %.0f cores if everyone runs it at once, %.1f if each runs it "
                    "once in 10 minutes; %.1f GiB of memory |"
                    % (room, need["cores_all_run_at_once"], need["cores_each_once_in_10_min"],
                       need["memory_gib"]))
    return "\n".join(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ramp", default="1,2,4,6,8,12,16", help="learners per round")
    ap.add_argument("--max", type=int, default=32, help="never more learners than this")
    ap.add_argument("--stop-at", type=float, default=4.0,
                    help="stop when the slowest notebook takes this many times the one-learner "
                         "time (default 4)")
    ap.add_argument("--budget", type=float, default=900, help="seconds for the whole test")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per server / notebook")
    ap.add_argument("--mem", default="2G", help="memory limit per learner (as bash run.sh hub)")
    ap.add_argument("--cpu", default="1", help="CPU limit per learner")
    ap.add_argument("--out", help="JSON results path")
    a = ap.parse_args(argv)
    ramp = [int(x) for x in a.ramp.split(",")]
    if not ramp or any(n < 1 for n in ramp) or a.max < 1:
        ap.error("--ramp: positive learner counts, e.g. 1,2,4,8; --max >= 1")
    ramp = [n for n in ramp if n <= a.max]
    t_begin = time.monotonic()
    rounds = []
    with tempfile.TemporaryDirectory(prefix="umkit-hub-load-") as state:
        with hubclient.Hub(state, mem=a.mem, cpu=a.cpu) as hub:
            for n in ramp:
                left = a.budget - (time.monotonic() - t_begin)
                if rounds and left < 2 * rounds[-1]["servers_up_s"] + 2 * rounds[-1]["notebooks_s"]:
                    print(f"stopping before {n} learners: {left:.0f} s of the budget left")
                    break
                r = one_round(hub, n, a.timeout)
                rounds.append(r)
                print(f"{n:3d} learners: servers up in {r['servers_up_s']:5.1f} s, notebook "
                      f"median {r['notebook_s_median'] or float('nan'):5.1f} s max "
                      f"{r['notebook_s_max'] or float('nan'):5.1f} s, failed {r['failed']}, "
                      f"RSS/learner {(r['rss_per_learner_median'] or 0) / 2**20:.0f} MiB, "
                      f"CPU {r['cpu_s_per_learner']:.1f} s/learner", flush=True)
                if r["failed"] or (r["notebook_s_max"] or 0) > a.stop_at * rounds[0]["notebook_s_max"]:
                    print("saturated: stopping the ramp")
                    break
    cores = psutil.cpu_count() or 1
    doc = {"date": datetime.date.today().isoformat(), "device": "none (CPU)",
           "backend": "sim", "machine": {"cores": cores, "memory_bytes":
                                         psutil.virtual_memory().total,
                                         "python": platform.python_version()},
           "notebook": NOTEBOOK, "limits": {"mem": a.mem, "cpu": a.cpu},
           "wall_s": time.monotonic() - t_begin, "rounds": rounds,
           "summary": summarize(rounds, cores, a.stop_at)}
    s = doc["summary"]
    print(f"held {s['learners_held']} learners on {cores} cores ({s['learners_per_core']:.1f} per "
          f"core, all running at once); RSS per learner {s['rss_per_learner_bytes'] / 2**20:.0f} MiB"
          f" (USS {s['uss_per_learner_bytes'] / 2**20:.0f} MiB)")
    for room, need in s["room"].items():
        print(f"  a room of {room}: {need['cores_all_run_at_once']:.0f} cores for everyone at once,"
              f" {need['cores_each_once_in_10_min']:.1f} cores if each runs it once in 10 minutes;"
              f" {need['memory_gib']} GiB of memory")
    if a.out:
        with open(a.out, "w") as f:
            json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
