"""umkit's managed-memory pool against CuPy's own, on a GPU (issue 10's performance promise).

1. ``temporaries``: a CuPy workload of many small temporaries (elementwise chains and
   reductions over 4 KiB .. 1 MiB arrays, every intermediate a fresh allocation) run with
   ``cupy.cuda.using_allocator(umkit_pool.malloc)`` and with
   ``using_allocator(cupy.cuda.MemoryPool(cupy.cuda.malloc_managed).malloc)``.
   Target: umkit / CuPy <= 1.05 (median of 7 runs, GPU synchronized).
2. ``cycle_1mib``: one 1 MiB alloc/free cycle through each allocator (pure allocator overhead;
   1.58x before the pool became composable resources; reported, target <= 1.1).
3. ``threads``: the same 1 MiB cycle from 4 threads at once (the pool is locked; reported).

    python benchmarks/pool_bench.py --out results.json      (needs a GPU backend and CuPy)
    python benchmarks/pool_bench.py --sim                   (sim: umkit's allocate/free only)

Writes JSON with the date, device, backend and every number.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import statistics
import sys
import threading
import time

import umkit

MiB = 1 << 20


def _median_us(fn, n, runs=7):
    fn(min(n, 200))                                   # warm up (and fill the pools)
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn(n)
        out.append((time.perf_counter() - t0) / n * 1e6)
    return float(statistics.median(out))


def temporaries(cupy, malloc, steps=400):
    rng = cupy.random.default_rng(0)
    xs = [rng.random(n, dtype=cupy.float32) for n in (1024, 16384, 65536, 262144)]

    def work(k):
        acc = 0.0
        with cupy.cuda.using_allocator(malloc):
            for i in range(k):
                x = xs[i % len(xs)]
                y = (x * 2.0 + 1.0) * x - x / 3.0      # 4 temporaries
                z = cupy.sqrt(cupy.abs(y)) + y          # 3 more
                acc += float(z.sum())                   # reduction: 1 more + a sync
        cupy.cuda.Device().synchronize()
        return acc
    return _median_us(work, steps)


def cycle(malloc, size=MiB, n=20000):
    def work(k):
        for _ in range(k):
            m = malloc(size)
            del m
    return _median_us(work, n)


def threaded_cycle(malloc, size=MiB, n=5000, nthreads=4):
    def work(k):
        ts = [threading.Thread(target=lambda: [malloc(size) for _ in range(k)])
              for _ in range(nthreads)]
        [t.start() for t in ts]
        [t.join() for t in ts]
    return _median_us(work, n, runs=3)


def gpu(out: dict) -> dict:
    import cupy
    pool = umkit.MemoryPool(kind="managed")
    cp_pool = cupy.cuda.MemoryPool(cupy.cuda.malloc_managed)
    res = {}
    for name, fn in (("temporaries", temporaries), ("cycle_1mib", None),
                     ("threads_1mib", None)):
        row = {}
        for who, malloc in (("umkit", pool.malloc), ("cupy", cp_pool.malloc)):
            if name == "temporaries":
                row[f"{who}_us_per_step"] = fn(cupy, malloc)
            elif name == "cycle_1mib":
                row[f"{who}_us_per_cycle"] = cycle(malloc)
            else:
                row[f"{who}_us_per_cycle"] = threaded_cycle(malloc)
        u, c = list(row.values())
        row["ratio_umkit_over_cupy"] = round(u / c, 4)
        row["target"] = {"temporaries": 1.05, "cycle_1mib": 1.1}.get(name)
        row["met"] = None if row["target"] is None else row["ratio_umkit_over_cupy"] <= row["target"]
        res[name] = row
    pool.close()
    cp_pool.free_all_blocks()
    return res


def sim_only() -> dict:
    pool = umkit.MemoryPool(kind="managed")

    def work(k):
        for _ in range(k):
            pool.free(pool.allocate(MiB))
    return {"umkit_allocate_free_us": _median_us(work, 50000),
            "note": "sim: umkit's pool overhead alone (no CuPy to compare with)"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="JSON path")
    ap.add_argument("--sim", action="store_true", help="sim backend: umkit's own cycle only")
    args = ap.parse_args(argv)
    b = umkit.use("sim", quiet=True) if args.sim else umkit.backend()
    out = dict(date=_dt.date.today().isoformat(), backend=b.name, device=b.device_name(0),
               python=sys.version.split()[0])
    if b.name == "sim":
        out["results"] = sim_only()
    else:
        import cupy
        out["cupy"] = cupy.__version__
        out["results"] = gpu(out)
    text = json.dumps(out, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    met = [r.get("met") for r in out["results"].values() if isinstance(r, dict)]
    return 0 if all(m is not False for m in met) else 1


if __name__ == "__main__":
    sys.exit(main())
