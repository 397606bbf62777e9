"""The simulator at the article's sizes (issue 27, section 1): wall clock and peak memory of
model-only sim (``umkit.use("sim", compute=False)``: page state as extents, no bytes) on the
machine that runs it.

1. a 1 TiB managed range on the H200 profile (141 GB of VRAM): its pages placed on the CPU
   (a prefetch to the CPU), then read by one GPU kernel through faults end to end -- the GPU
   evicts as it goes (oversubscribed) -- then prefetched back to the CPU: <= 5 s, <= 1 GiB RSS
2. the same for 256 GiB: <= 1 s
3. a 1 GiB managed buffer written on the CPU, then fault-migrated to the GPU by one kernel
   (as ``test_sim_speed.py`` measures it): <= 20 ms
4. one training step of a 70B model on the H200 under every strategy
   (``umkit.workloads.model_step_costs``): no target, how long a learner waits

Each case runs in a fresh process, so its peak RSS is its own (Python and NumPy included).

    python benchmarks/sim_scale.py [--out benchmarks/results/DATE-sim-scale-HOST.json]
"""
import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time

GiB = 1 << 30


def sweep(nbytes: int) -> dict:
    """Case 1/2: place, fault-read end to end, prefetch back; wall time of the whole."""
    import umkit
    umkit.use("sim", quiet=True, compute=False)
    t0 = time.perf_counter()
    a = umkit.managed(nbytes // 4)
    a.prefetch("cpu")                        # the pages exist on the CPU (no bytes behind them)
    umkit.synchronize()
    umkit.reset_counters()
    m0 = umkit.now()
    t1 = time.perf_counter()
    umkit.touch(a, 4)                        # every page faults in; the GPU evicts as it goes
    umkit.synchronize()
    t2 = time.perf_counter()
    a.prefetch("cpu")                        # and back to the CPU
    umkit.synchronize()
    t3 = time.perf_counter()
    c = umkit.counters()
    b = umkit.backend()
    al, _ = b.engine.find(a.ptr)
    runs = al.where.runs
    a.free()
    return dict(nbytes=nbytes, wall_s=t3 - t0, fault_read_s=t2 - t1, prefetch_back_s=t3 - t2,
                model_s=umkit.now() - m0, gpu_faults=c["gpu_faults"], evictions=c["evictions"],
                bytes_h2d=c["bytes_h2d"], bytes_d2h=c["bytes_d2h"],
                prefetch_bytes_d2h=c["prefetch_bytes_d2h"], residency_runs_after=runs,
                vram=int(b.profile.vram))


def fault_1gib(reps: int = 5) -> dict:
    """Case 3: test_sim_speed.py's 1 GiB fault read (model-only there too)."""
    from umkit.measure.probes import sim_speed
    out = sim_speed.fault_1gib(reps)
    return dict(median_ms=out["median_ms"], gpu_faults=out["gpu_faults"])


def whole_model(m: str = "70b", card: str = "H200") -> dict:
    """Case 4 (no target: how long a learner waits): every strategy's step of ``m`` on
    ``card`` with ``umkit.workloads.model_step_costs`` (notebook 07b's section 2), model-only."""
    import umkit
    from umkit import workloads
    umkit.use("sim", quiet=True, compute=False)
    t0 = time.perf_counter()
    rows = workloads.model_step_costs(m, card)
    return dict(wall_s=time.perf_counter() - t0, model=m, card=card,
                step_s={r.strategy: (None if r.ms is None else r.ms / 1e3) for r in rows},
                evictions={r.strategy: r.evictions for r in rows})


CASES = {"1tib": (lambda: sweep(1 << 40), dict(wall_s=5.0, rss_mib=1024)),
         "256gib": (lambda: sweep(256 * GiB), dict(wall_s=1.0)),
         "1gib_fault": (fault_1gib, dict(median_ms=20.0)),
         "70b_h200_step": (whole_model, {})}


def one(case: str) -> dict:
    fn, _ = CASES[case]
    out = fn()
    out["rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--case", choices=sorted(CASES), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.case:
        print(json.dumps(one(a.case)))
        return
    res = dict(date=time.strftime("%Y-%m-%d"), backend="sim (model-only: compute=False, "
               "page state as extents)", profile="h200-pcie5", host=platform.node(),
               cpu=platform.processor() or platform.machine(), cores=os.cpu_count(),
               python=platform.python_version())
    for case, (_, targets) in CASES.items():
        r = subprocess.run([sys.executable, __file__, "--case", case], capture_output=True,
                           text=True, check=True)
        got = json.loads(r.stdout.strip().splitlines()[-1])
        got["targets"] = targets
        got["met"] = all(got[k] <= v for k, v in targets.items())
        res[case] = got
    print(json.dumps(res, indent=1))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
