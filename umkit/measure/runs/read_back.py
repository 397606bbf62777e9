"""Where does a managed array lie after ``umkit.read_back``?  (notebook 06, section 2)

Notebook 06 reads ``out`` back by copy (``umkit.read_back``: a ``cudaMemcpyAsync`` /
``hipMemcpyAsync`` into pinned memory) and says that in the model ``out`` stays in VRAM.  This
measures it on the backend it runs on: a managed array is written by a GPU kernel (so its pages
are in VRAM), then one of three things happens on the host -- nothing, a CPU sum over its host
view, a ``read_back`` -- and a GPU kernel reads the whole array again, timed with events.  If the
pages stayed in VRAM the second kernel costs what it costs on resident data; if they went to the
host it pays GPU page faults and is many times slower.  Each case runs ``--reps`` times; the
median is reported.  The verdict compares the read_back case with the two others.

    umkit measure run read_back --out RESULT.json [--mib 64] [--reps 5]

On ``sim`` the numbers are the model's (labelled so); the verdict is what the model assumes.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import umkit
from .registry import output, positive, write


def one(case: str, n: int) -> float:
    """Model or measured ms of a GPU read of all of ``out`` after ``case`` on the host."""
    out = umkit.managed(n)
    sink = umkit.device_array(1)
    try:
        s = umkit.Stream()
        out.prefetch("gpu", stream=s)
        umkit.fill(out, 1.0, stream=s)                 # the GPU writes it: pages in VRAM
        s.synchronize()
        if case == "cpu_sum":
            float(out.host.sum(dtype=np.float64))
        elif case == "read_back":
            umkit.read_back(out, stream=s)
        with umkit.timer(s) as t:
            umkit.touch(out, 4, stream=s, sink=sink)   # the GPU reads every element
        return t.ms
    finally:
        umkit.synchronize()
        out.free()
        sink.free()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="umkit measure run read_back", description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the JSON result file to write")
    ap.add_argument("--mib", type=positive(int), default=64, help="the array's size (MiB; default 64)")
    ap.add_argument("--reps", type=positive(int), default=5, help="runs per case (default 5)")
    args = ap.parse_args(argv)
    output(args.out, "--out")
    if not 1 <= args.mib <= 4096 or not 1 <= args.reps <= 50:
        ap.error("--mib must be 1..4096 and --reps 1..50")
    umkit.use(quiet=True)
    n = args.mib * (1 << 20) // 4
    one("nothing", n)                                  # warm-up: context, kernels, pools
    ms = {case: [one(case, n) for _ in range(args.reps)]
          for case in ("nothing", "cpu_sum", "read_back")}
    med = {k: statistics.median(v) for k, v in ms.items()}
    stays = med["read_back"] < (med["nothing"] + med["cpu_sum"]) / 2
    backend = umkit.backend_name()
    result = {
        "what": "GPU read of a managed array after nothing / a CPU sum / read_back (ms)",
        "backend": backend,
        "device": (umkit.sim_profile().name if backend == "sim" else
                   umkit.backend().device_name(0)),
        "kind": "model" if backend == "sim" else "measured",
        "date": time.strftime("%Y-%m-%d"), "mib": args.mib, "reps": args.reps,
        "ms": ms, "median_ms": med,
        "verdict": ("after read_back the array was still in VRAM" if stays else
                    "after read_back the array had left VRAM"),
    }
    write(args.out, json.dumps(result, indent=1), "--out")
    label = "model" if backend == "sim" else "measured"
    for k, v in med.items():
        print(f"{k:<10} GPU read afterwards: {v:8.3f} ms ({label}, median of {args.reps})")
    print(result["verdict"])
    return 0

