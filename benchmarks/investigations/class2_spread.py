"""Class 2 of issue 27 (per-fault cost by buffer size): every one-kernel GPU fault read the card
was timed on, against what sim predicts for the same read.

    python benchmarks/investigations/class2_spread.py [--json OUT]

Reads the committed card data (FIT data, never validation): ``class_probe.py``'s ``faultsize``
(first reads at 4 and 64 KiB strides, 64 MiB - 2 GiB) and ``faultshape`` (one kernel over 512 MiB
- 3 GiB; 32 / 64 / 128 KiB strides) sections, and ``class_span.py``'s spans (256 MiB - 1.5 GiB).
For each row: the card's median and its repeats' spread (slowest / fastest), sim's time for the
same read (``class_probe.fault_read_ms`` on sim, model-only, host speed 1.0: the fault service
is the card's in the model; its one host part, the cold fault path, is a fraction of a
millisecond against reads of milliseconds to seconds), and sim / card.  Shapes of several kernels, or of part of a buffer,
are left out: they test the leads, not the model.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results"
MiB = 1 << 20

#: (results folder, file, kind)
SOURCES = [("2026-12-02-h200-class-probe", "class_probe_1.json", "faultsize"),
           ("2026-12-02-h200-gpu-ci-run41", "class_probe.json", "faultsize"),
           ("2026-12-04-h200-gpu-ci-run42", "class_probe.json", "faultsize"),
           ("2026-12-05-h200-class-probe-shape", "class_probe.json", "faultshape"),
           ("2026-12-05-h200-class-span", "class_span.json", "spans"),
           ("2026-12-05-h200-gpu-ci-run43", "class_probe.json", "faultsize"),
           ("2026-12-05-h200-gpu-ci-run43", "class_probe.json", "faultshape"),
           ("2026-12-05-h200-gpu-ci-run44", "class_probe.json", "faultsize"),
           ("2026-12-05-h200-gpu-ci-run44", "class_probe.json", "faultshape")]


def card_rows() -> list[dict]:
    """{source, bytes, stride, ms: [repeats]} for every one-kernel read over a whole buffer."""
    rows = []
    for folder, name, kind in SOURCES:
        f = RESULTS / folder / name
        if not f.exists():
            print(f"(not found, left out: {folder}/{name})")
            continue
        d = json.loads(f.read_text())
        for r in d.get(kind, []):
            if kind == "faultsize":
                rows.append(dict(source=folder, bytes=r["bytes"], stride=r["stride"],
                                 ms=r["first_ms"]))
            elif kind == "faultshape":
                if r["kernels"] == 1 and r["name"].startswith("one_"):
                    rows.append(dict(source=folder, bytes=r["bytes"], stride=r["stride"],
                                     ms=r["ms"]))
            else:
                rows.append(dict(source=folder, bytes=r["span_mib"] * MiB, stride=r["stride"],
                                 ms=r["ms"]))
    return rows


def predict(rows) -> None:
    """Add sim's time to each row (one fresh sim per read, so no read's state reaches the
    next)."""
    import umkit
    from umkit.measure.probes import classes as class_probe
    for r in rows:
        umkit.use("sim", quiet=True, compute=False)
        r["sim_ms"] = class_probe.fault_read_ms(r["bytes"], r["stride"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    rows = card_rows()
    if not rows:
        raise SystemExit("no card data found under benchmarks/results")
    predict(rows)
    print(f"{'source':<36} {'size':>9} {'stride':>7} {'card ms':>9} {'repeats':>8} "
          f"{'sim ms':>9} {'sim/card':>8}")
    for r in rows:
        med = float(np.median(r["ms"]))
        if not (med > 0 and min(r["ms"]) > 0):
            raise SystemExit(f"{r['source']}: a time that is not positive ({r['ms']})")
        r["card_ms"], r["repeat_spread"] = med, float(max(r["ms"]) / min(r["ms"]))
        r["ratio"] = r["sim_ms"] / med
        print(f"{r['source']:<36} {r['bytes'] // MiB:>6} MiB {r['stride'] // 1024:>4} KiB "
              f"{med:>9.2f} {r['repeat_spread']:>7.2f}x {r['sim_ms']:>9.2f} {r['ratio']:>8.2f}")
    ratios = np.array([r["ratio"] for r in rows])
    within = lambda t: int(np.sum((ratios <= t) & (ratios >= 1 / t)))  # noqa: E731
    spread = [r["repeat_spread"] for r in rows]
    print(f"{len(rows)} reads: sim/card {ratios.min():.2f}-{ratios.max():.2f}; within x/÷1.25 "
          f"{within(1.25)}, within x/÷1.5 {within(1.5)}; the card's own repeats spread "
          f"{min(spread):.2f}-{max(spread):.2f}x (median {np.median(spread):.2f}x)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
