"""Fit the H200 profile's cold fault path on FIT data only: ``class_probe.py``'s ``context`` and
``context2`` sections.

    python benchmarks/fit_cold_path.py CLASS_PROBE.json[:HOST_SPEED] [...] [--write]

The model (``umkit/sim/host.py``, ``FaultPathCache``): the CPU touching X bytes pushes a part
``1 - exp(-X / fault_cold_bytes)`` of what the driver's fault path uses on the host out of its
caches (of what is still there); the next kernel that wakes the fault service (its first fault
on an idle GPU) pays that part of ``fault_cold_latency``, and each kernel that wakes it after that
``fault_cold_decay`` times what the one before paid.  The probe reads five fresh small buffers (32 and 128 KiB) by GPU faults in a
row after a context; in the model's terms, read k (1..5) pays

    C * (1 - exp(-X / S)) * r**(k - 1 + b)

more than the same read after nothing (the median of reads 2-5 of the ``none`` context, the
same size), where X is what the context's CPU touched (512, 64 or 8 MiB: a NumPy array written,
rewritten or read, or a managed buffer the CPU wrote; 0 for a device array the GPU filled) and b
is 1 where the GPU read the CPU-written buffer between (``free_gpu_managed``,
``alive_gpu_managed``: that read was the first fault service after the sweep), else 0.  C, r and
S are fitted by least squares over every read of every file (r and S on grids, C linear), each
time divided by its lease's host speed (``:HOST_SPEED``, default 1.0; the cold cost is host
work, like ``host_speed``'s other times); each file's own fit is printed beside the pooled one,
so the spread between leases shows.

The validation workloads (``umkit/measure/validation_set.py``: ``small_read_*``,
``small_roundtrip_*``, and every other workload that faults after a CPU sweep) are never read
here.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PROFILE = ROOT / "umkit" / "sim" / "profiles" / "h200-pcie5.json"
MiB = 1 << 20

#: each context: (bytes the CPU touched, fault services between that and the first small read)
CONTEXTS = {"free_cpu_managed": (512 * MiB, 0), "free_gpu_managed": (512 * MiB, 1),
            "alive_gpu_managed": (512 * MiB, 1), "free_device": (0, 0),
            "numpy_fresh_512m": (512 * MiB, 0), "numpy_rewrite_512m": (512 * MiB, 0),
            "numpy_rewrite_64m": (64 * MiB, 0), "numpy_rewrite_8m": (8 * MiB, 0),
            "numpy_read_512m": (512 * MiB, 0), "managed_cpu_512m_alive": (512 * MiB, 0),
            "managed_cpu_64m_alive": (64 * MiB, 0)}
#: the grids searched: the decay per fault service, the sweep that evicts 1 - 1/e
DECAYS = np.round(np.arange(0.0, 0.96, 0.01), 2)
SWEEPS = np.round(2.0 ** np.arange(2, 11.01, 0.125)) * MiB


def split_spec(spec: str) -> tuple[str, float]:
    """``FILE[:HOST_SPEED]`` -> (file, host speed); a path may hold ':' itself."""
    path, sep, speed = spec.rpartition(":")
    if not sep:
        return spec, 1.0
    try:
        hs = float(speed)
    except ValueError:
        if Path(spec).exists():
            return spec, 1.0
        raise SystemExit(f"{spec}: after the last ':' comes the lease's host speed, a positive "
                         "number (e.g. probe.json:1.24)")
    if not (hs > 0 and math.isfinite(hs)):
        raise SystemExit(f"{spec}: the host speed after ':' must be a positive number")
    return path, hs


def extras(spec: str) -> list:
    """The points of one ``FILE[:HOST_SPEED]``: (file, bytes, context, swept bytes, faults
    between, read index k, extra ms at host speed 1)."""
    path, hs = split_spec(spec)
    try:
        d = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise SystemExit(f"{path}: cannot read it as JSON ({e})")
    if not isinstance(d, dict):
        raise SystemExit(f"{path}: not a class_probe.py file (a JSON object with sections)")
    rows = d.get("context", []) + d.get("context2", [])
    if not rows:
        raise SystemExit(f"{path}: no 'context' or 'context2' section")
    try:
        for r in rows:
            runs = np.asarray(r["runs_ms"], dtype=float)
            if runs.ndim != 2 or runs.shape[1] < 2 or not np.isfinite(runs).all() \
                    or not isinstance(r["bytes"], int) or not isinstance(r["context"], str):
                raise ValueError
    except (KeyError, TypeError, ValueError):
        raise SystemExit(f"{path}: every context row needs 'bytes' (an integer), 'context' and "
                         "'runs_ms' (runs of the same number, two or more, of finite ms)")
    out = []
    for nbytes in sorted({r["bytes"] for r in rows}):
        here = [r for r in rows if r["bytes"] == nbytes]
        none = [r for r in here if r["context"] == "none"]
        if not none:
            raise SystemExit(f"{path}: no 'none' context at {nbytes} B to measure against")
        base = float(np.median([x for r in none for run in r["runs_ms"] for x in run[1:]]))
        for r in here:
            if r["context"] not in CONTEXTS:
                continue
            swept, between = CONTEXTS[r["context"]]
            med = np.median(np.asarray(r["runs_ms"], dtype=float), axis=0) - base
            out += [(path, nbytes, r["context"], swept, between, k + 1, float(e) / hs)
                    for k, e in enumerate(med)]
    return out


def model(points, C, r, S) -> np.ndarray:
    """What the model adds to each point's read (ms)."""
    x = np.array([p[3] for p in points], dtype=float)
    n = np.array([p[5] - 1 + p[4] for p in points], dtype=float)
    return C * (1 - np.exp(-x / S)) * r ** n


def fit(points) -> tuple[float, float, float, float]:
    """(C ms, r, S bytes, rms ms): least squares over the points."""
    e = np.array([p[6] for p in points])
    best = None
    for S in SWEEPS:
        for r in DECAYS:
            m = model(points, 1.0, r, S)
            if not m.any():
                continue
            c = max(0.0, float(e @ m / (m @ m)))
            rms = float(np.sqrt(np.mean((e - c * m) ** 2)))
            if best is None or rms < best[3] - 1e-12:
                best = (c, float(r), float(S), rms)
    if best is None or not all(math.isfinite(x) for x in best):
        raise SystemExit("nothing to fit: no context swept the CPU's caches (the fit needs the "
                         "8, 64 or 512 MiB contexts), or the reads are not finite")
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("probes", nargs="+", help="class_probe JSON files[:HOST_SPEED]")
    ap.add_argument("--write", action="store_true", help="write the pooled fit into the profile")
    args = ap.parse_args(argv)
    pooled = []
    for spec in args.probes:
        f = extras(spec)
        if not f:
            raise SystemExit(f"{spec}: none of the contexts {', '.join(CONTEXTS)}")
        C, r, S, rms = fit(f)
        print(f"{spec}: C {C:.3f} ms, r {r:.2f}, S {S / MiB:.0f} MiB, rms {rms:.3f} ms over "
              f"{len(f)} reads")
        pooled += f
    C, r, S, rms = fit(pooled)
    print(f"pooled: fault_cold_latency {C * 1e3:.1f} us, fault_cold_decay {r:.2f}, "
          f"fault_cold_bytes {S / MiB:.0f} MiB, rms {rms:.3f} ms over {len(pooled)} reads")
    pred = model(pooled, C, r, S)
    print("first read's extra by context, measured (median over files and sizes) vs the model:")
    for ctx in CONTEXTS:
        idx = [i for i, p in enumerate(pooled) if p[2] == ctx and p[5] == 1]
        if idx:
            print(f"  {ctx:<24} {np.median([pooled[i][6] for i in idx]):+.3f} ms "
                  f"(model {np.median(pred[idx]):+.3f})")
    if args.write:
        doc = json.loads(PROFILE.read_text())
        def shown(spec):
            f = Path(split_spec(spec)[0]).resolve()
            return f.relative_to(ROOT).as_posix() if f.is_relative_to(ROOT) else f.name
        files = ", ".join(shown(s) for s in args.probes)
        src = ("fitted: five fresh 32 / 128 KiB GPU fault reads in a row after the host wrote or "
               "read 8, 64 or 512 MiB (NumPy or managed), less the same reads after nothing; "
               "least squares of extra = fault_cold_latency * (1 - exp(-swept / "
               "fault_cold_bytes)) * fault_cold_decay**(k-1) over reads k = 1..5 (one step more "
               "where the GPU read the swept buffer between; rms "
               f"{rms:.3f} ms over {len(pooled)} reads; each call's times divided by its host speed where "
               "calibrate --compare fitted one on that lease, else taken at 1.0); umkit team, lent NVIDIA H200 (PCIe Gen5 x16), "
               f"2026-12-04 and 2026-12-05, benchmarks/class_probe.py sections context and "
               f"context2 ({files}), benchmarks/fit_cold_path.py")
        doc["params"]["fault_cold_latency"] = {"value": round(C * 1e3, 1), "unit": "us",
                                               "source": src}
        doc["params"]["fault_cold_decay"] = {"value": r, "unit": "fraction", "source": src}
        doc["params"]["fault_cold_bytes"] = {"value": int(S), "unit": "B", "source": src}
        PROFILE.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {PROFILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
