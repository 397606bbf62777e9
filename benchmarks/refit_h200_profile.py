"""Refit the ``h200-pcie5`` profile on FIT data only, then report fit and validation apart.

    python benchmarks/refit_h200_profile.py RUN_DIR [--write]

FIT data: the 20 workloads of ``umkit.calibrate`` measured in RUN_DIR/calibrate_compare.json
("measured" -> "fit") and the size sweeps of RUN_DIR/small_bench.json (benchmarks/small_bench.py).
The validation workloads of ``umkit.validation`` (RUN_DIR/calibrate_compare.json "measured" ->
"validation") are never read by the fit: they are only re-predicted afterwards.

What is fitted from what (each source is written into the profile):

* fault path (per batch, per unmapping batch, per fault, per 2 MiB region, bytes at
  ``fault_bw``): relative non-negative least squares over the fit set's GPU fault reads and
  the sweep's fault reads of fresh CPU-written buffers, 4 KiB .. 256 MiB;
* ``copy_latency``: the pinned-copy sweep's intercept (sizes <= 1 MiB, after subtracting the
  bytes at the 256 MiB bandwidths);
* ``host_copy_bw``: the sweep's CPU fill and copy of pageable and pinned memory (>= 16 MiB);
* everything else as ``umkit.calibrate.fit`` and benchmarks/fit_h200_profile.py take it.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import umkit  # noqa: E402
from umkit import calibrate  # noqa: E402
from umkit.sim.costs import PROFILE_DIR  # noqa: E402

MiB = 1 << 20


def fault_rows(m: dict, sb: dict, p: dict, B=256 * MiB, batch=256, hp=4096, gp=65536, region=2 * MiB):
    """Rows [batches, unmap batches, faults, regions, bytes] -> seconds of fault service."""
    launch = p["kernel_launch"] * 1e-6
    rows, y, names = [], [], []

    def nb(f):
        return -(-f // batch)
    for key, faults, nbyt, unmap, regions in (
            ("gpu_fault_read", B // hp, B, 1, B // region), ("gpu_touch_4k", B // hp, B, 1, B // region),
            ("gpu_touch_64k", B // gp, B, 1, B // region),
            ("gpu_touch_2m", B // region, (B // region) * gp, 1, B // region),
            ("read_mostly_first", B // hp, B, 0, B // region)):
        if key in m:
            rows.append([nb(faults), nb(faults) * unmap, faults, regions, nbyt])
            y.append(m[key] * 1e-3 - launch)
            names.append(key)
    for size, r in sorted((int(k), v) for k, v in sb["managed"].items()):
        faults = max(1, size // hp)
        rows.append([nb(faults), nb(faults), faults, max(1, -(-size // region)), max(size, gp)])
        y.append(r["fault_read_ms"] * 1e-3 - launch)
        names.append(f"sweep_fault_read_{size}")
    return np.array(rows, float), np.array(y), names


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("--microbench", default="benchmarks/results/2026-11-29-h200-microbench.json")
    ap.add_argument("--write", action="store_true", help="rewrite umkit/sim/profiles/h200-pcie5.json")
    a = ap.parse_args(argv)
    run = Path(a.run)
    comp = json.loads((run / "calibrate_compare.json").read_text())
    meas = comp["measured"]
    m = meas["fit"]                                   # FIT set only
    sb = json.loads((run / "small_bench.json").read_text())
    src_run = f"umkit team, lent NVIDIA H200, {meas.get('date')}: benchmarks/results/{run.name}"
    prof_path = PROFILE_DIR / "h200-pcie5.json"
    doc = json.loads(prof_path.read_text())
    cur = {k: v["value"] for k, v in doc["params"].items()}
    new, src = {}, {}

    # -- fault path: relative NNLS over fit-set fault reads + the fault-read sweep
    A, y, names = fault_rows(m, sb, cur, B=meas.get("nbytes", 256 * MiB))
    w = 1 / y
    L, U, f, R, inv_bw = calibrate._nnls(A * w[:, None], np.ones_like(y))
    for k, v in (("fault_batch_latency", L / 1e-6), ("fault_unmap_latency", U / 1e-6),
                 ("fault_latency", f / 1e-6), ("fault_region_latency", R / 1e-6),
                 ("fault_bw", (1 / inv_bw) / 1e9 if inv_bw > 0 else 1e3)):
        new[k] = v
        src[k] = ("fitted (relative non-negative least squares: per batch, per unmapping batch, per "
                  "fault, per 2 MiB region, bytes) to the fit set's GPU fault reads and the "
                  f"fault-read size sweep 4 KiB - 256 MiB (benchmarks/small_bench.py) of {src_run}")
    pred = A @ np.array([L, U, f, R, inv_bw])
    print("fault-path fit (measured ms, fitted ms):")
    for n_, yy, pp in zip(names, y, pred):
        print(f"  {n_:<28}{yy * 1e3:>10.4f}{pp * 1e3:>10.4f}{pp / yy:>8.2f}")

    # -- copy latency: the small pinned copies minus their bytes at the large-size rates
    cp = sb["copies"]
    big = cp[str(256 * MiB)]
    bw_h2d, bw_d2h = 256 * MiB / (big["pinned_h2d_ms"] * 1e-3), 256 * MiB / (big["pinned_d2h_ms"] * 1e-3)
    lat = [cp[str(s)]["pinned_h2d_ms"] * 1e-3 - s / bw_h2d for s in (4096, 65536, 262144, MiB)] + \
          [cp[str(s)]["pinned_d2h_ms"] * 1e-3 - s / bw_d2h for s in (4096, 65536, 262144, MiB)]
    new["copy_latency"] = float(np.median(lat)) / 1e-6
    src["copy_latency"] = ("measured: median over 4 KiB - 1 MiB pinned copies (h2d and d2h, events) "
                           f"of the time beyond their bytes at the 256 MiB rates; {src_run}, small_bench.json")

    # -- host memcpy/memset rate
    hs = sb["host"]
    rates = [s / (hs[str(s)][k] * 1e-3) for s in (16 * MiB, 64 * MiB, 256 * MiB)
             for k in ("pageable_fill_ms", "pinned_fill_ms", "pageable_copy_ms", "pinned_copy_ms")]
    new["host_copy_bw"] = float(np.median(rates)) / 1e9
    src["host_copy_bw"] = ("measured: median rate of the CPU filling and copying 16 - 256 MiB of "
                           f"pageable and pinned memory (NumPy, one thread); {src_run}, small_bench.json")

    for k, v in new.items():
        unit = {"fault_latency": "us", "copy_latency": "us", "host_copy_bw": "GB/s"}.get(k) \
            or doc["params"][k]["unit"]
        print(f"{k:<24}{cur.get(k, float('nan')):>12.4f} -> {v:>12.4f} {unit}")
        if a.write:
            doc["params"][k] = {"value": round(float(v), 4), "unit": unit, "source": src[k]}
    if a.write:
        prof_path.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"wrote {prof_path}")
        umkit.use("sim", quiet=True)
        c = calibrate.compare(measured=meas)
        print(calibrate.compare_table(c))
    return 0


if __name__ == "__main__":
    sys.exit(main())
