"""Where the step in fault-read cost per GiB lies (issue 27, class 2; fit data, like
``class_probe.py``): one kernel reading one float every 64 KiB of a freshly CPU-written managed
buffer, for spans of 256 MiB .. 1.5 GiB, timed with device events, ``--reps`` repeats each in turns
(one repeat of every span, then the next), so that a drift of the host shows in every span alike.

    python benchmarks/investigations/class_span.py [--out class_span.json] [--reps 5]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path

import numpy as np

import umkit
from umkit.measure.probes.classes import fault_read_ms
from umkit.measure.timing import warm_up

MiB = 1 << 20
SPANS_MIB = (256, 384, 512, 640, 768, 896, 1024, 1536)
STRIDE = 64 << 10


def spans(reps: int, sizes=SPANS_MIB) -> list:
    runs = {m: [] for m in sizes}
    for _ in range(reps):
        for m in sizes:
            runs[m].append(fault_read_ms(m * MiB, STRIDE))
    rows = []
    for m in sizes:
        med = float(np.median(runs[m]))
        rows.append({"span_mib": m, "stride": STRIDE, "ms": runs[m],
                     "ms_per_gib": round(med / (m / 1024), 3)})
        print(f"span {m:>5} MiB: {med:8.3f} ms, {med / (m / 1024):6.1f} ms/GiB "
              f"({[round(v, 2) for v in runs[m]]})", flush=True)
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="class_span.json")
    p.add_argument("--reps", type=int, default=5)
    args = p.parse_args(argv)
    warm_up()
    out = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
           "backend": umkit.backend_name(), "device": umkit.backend().device_name(0),
           "reps": args.reps, "spans": spans(args.reps)}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
