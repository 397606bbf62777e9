"""umkit's managed-memory pool against CuPy's own, on a GPU (issue 10's performance promise).

``pool.malloc`` is the ``malloc`` of a ``cupy.cuda.MemoryPool`` whose upstream allocator is the
umkit pool (umkit/memory/pool.py), so the comparison is CuPy's pool over umkit's managed
allocator against CuPy's pool over ``cupy.cuda.malloc_managed``:

1. ``temporaries``: a CuPy workload of many small temporaries (elementwise chains and
   reductions over 4 KiB .. 1 MiB arrays, every intermediate a fresh allocation) run with
   ``cupy.cuda.using_allocator(umkit_pool.malloc)`` and with
   ``using_allocator(cupy.cuda.MemoryPool(cupy.cuda.malloc_managed).malloc)``.
   Target: umkit / CuPy <= 1.05.
2. ``cycle_1mib``: one 1 MiB alloc/free cycle through each allocator (pure allocator overhead;
   1.58x before the pool became composable resources, 3.04x in GPU CI run 8; target <= 1.1).
3. ``threads_1mib``: the same 1 MiB cycle from 4 threads at once (reported).

Apples to apples: the same inputs, the same steps, each timed run synchronizes the GPU before it
starts and before it stops, the allocators alternate run by run (and which goes first), and
each number is the median of ``RUNS`` runs after a warm-up that fills the pools.  A second CuPy
pool (``cupy_again``, the same code as ``cupy``) is the A/A control: its ratio to ``cupy`` is the
noise floor of this machine; ``paired_ratio`` is the median of the per-round ratios.  ``misses`` is
how often umkit's Python ran, warm-up included (CuPy's pool asked the umkit pool for a
chunk); on a hit none of umkit runs.

    umkit measure run pool --out results.json      (needs a GPU backend and CuPy)
    umkit measure run pool --sim                   (sim: umkit's allocate/free only)

Writes JSON with the date, device, backend and every number; exits 1 if a target is missed.
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
from .registry import output, write

MiB = 1 << 20
RUNS = 15


def _paired(fns: dict, n: int, runs: int = RUNS, sync=lambda: None, raw: dict | None = None
            ) -> dict:
    """Median microseconds per op of each ``fns[name](n)``, the names alternating run by run
    (``raw``, if given, receives every run's time per name)."""
    names = list(fns)
    for name in names:
        fns[name](min(n, 200))                        # warm up (and fill the pools)
    times = {name: [] for name in names}
    for r in range(runs):
        for name in (names if r % 2 == 0 else names[::-1]):
            sync()
            t0 = time.perf_counter()
            fns[name](n)
            sync()
            times[name].append((time.perf_counter() - t0) / n * 1e6)
    if raw is not None:
        raw.update(times)
    return {name: float(statistics.median(ts)) for name, ts in times.items()}


def _paired_ratio(raw: dict, a: str, b: str) -> float:
    """Median over rounds of a's time / b's time in the same round (the pair ran back to back)."""
    return float(statistics.median(x / y for x, y in zip(raw[a], raw[b])))


def temporaries(cupy, malloc):
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
        return acc
    return work


def cycle(malloc, size=MiB):
    def work(k):
        for _ in range(k):
            m = malloc(size)
            del m
    return work


def threaded_cycle(malloc, size=MiB, nthreads=4):
    def work(k):
        ts = [threading.Thread(target=cycle(malloc, size), args=(k,)) for _ in range(nthreads)]
        [t.start() for t in ts]
        [t.join() for t in ts]
    return work


def gpu(out: dict) -> dict:
    import cupy
    pool = umkit.MemoryPool(kind="managed")
    cp_pool = cupy.cuda.MemoryPool(cupy.cuda.malloc_managed)
    # an A/A control: a second CuPy pool, the same code as "cupy" -- how far apart two equal
    # allocators come out on this machine (the noise the umkit/cupy ratio is read against)
    cp_pool2 = cupy.cuda.MemoryPool(cupy.cuda.malloc_managed)
    allocators = {"umkit": pool.malloc, "cupy": cp_pool.malloc, "cupy_again": cp_pool2.malloc}
    sync = cupy.cuda.Device().synchronize
    cases = {"temporaries": (lambda m: temporaries(cupy, m), 1000, "us_per_step", 1.05),
             "cycle_1mib": (cycle, 20000, "us_per_cycle", 1.1),
             "threads_1mib": (threaded_cycle, 5000, "us_per_cycle", None)}
    res = {}
    for name, (make, n, unit, target) in cases.items():
        before = pool.stats["allocs"]
        raw: dict = {}
        med = _paired({who: make(m) for who, m in allocators.items()}, n, sync=sync, raw=raw)
        row = {f"{who}_{unit}": t for who, t in med.items()}
        row["ratio_umkit_over_cupy"] = round(med["umkit"] / med["cupy"], 4)
        row["paired_ratio_umkit_over_cupy"] = round(_paired_ratio(raw, "umkit", "cupy"), 4)
        row["control_ratio_cupy_again_over_cupy"] = round(_paired_ratio(raw, "cupy_again", "cupy"), 4)
        row["raw_us"] = {k: [round(x, 3) for x in v] for k, v in raw.items()}
        row["target"] = target
        row["met"] = None if target is None else row["ratio_umkit_over_cupy"] <= target
        row["umkit_misses"] = pool.stats["allocs"] - before
        row["runs"], row["ops_per_run"] = RUNS, n
        res[name] = row
    res["umkit_pool_stats"] = pool.stats
    pool.close()
    cp_pool.free_all_blocks()
    cp_pool2.free_all_blocks()
    return res


def sim_only() -> dict:
    pool = umkit.MemoryPool(kind="managed")
    t = pool.tracking

    def public(k):
        for _ in range(k):
            pool.free(pool.allocate(MiB))

    def tracked(k):                                # what umkit arrays in `with pool:` use
        for _ in range(k):
            t.deallocate(t.allocate(MiB))
    med = _paired({"allocate_free": public, "tracking": tracked}, 50000)
    return {"umkit_allocate_free_us": med["allocate_free"],
            "umkit_tracked_cycle_us": med["tracking"],
            "note": "sim: umkit's pool overhead alone (no CuPy to compare with); on a GPU "
                    "backend pool.malloc is CuPy's MemoryPool over umkit, so a CuPy cycle "
                    "runs none of this on a hit"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="umkit measure run pool", description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="JSON path")
    ap.add_argument("--sim", action="store_true", help="sim backend: umkit's own cycle only")
    args = ap.parse_args(argv)
    output(args.out, "--out")
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
        write(args.out, text + "\n", "--out")
    met = [r.get("met") for r in out["results"].values() if isinstance(r, dict)]
    return 0 if all(m is not False for m in met) else 1

