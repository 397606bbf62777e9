"""Probes for three classes of workload the model missed on the H200 (investigation data):
runs the probes of :mod:`umkit.measure.probes.classes` and writes their JSON.

    umkit measure run classes [--out class_probe.json] [--sections advice,faultsize,small]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path
import umkit
from umkit.measure.timing import warm_up
from umkit.measure.probes.classes import (advice, allocs, context, context2, faultshape, faultsize,
                                          pinning, small, smallpair, thrash, tripparts)


def main(argv=None):
    p = argparse.ArgumentParser(prog="umkit measure run classes", description=__doc__.splitlines()[0])
    p.add_argument("--out", default="class_probe.json")
    p.add_argument("--sections",
                   default="advice,faultsize,smallpair,small,context,faultshape,context2,tripparts,"
                           "thrash,pinning,allocs")
    p.add_argument("--reps", type=int, default=3)
    args = p.parse_args(argv)
    sections = [s for s in args.sections.split(",") if s]
    warm_up()
    out = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
           "backend": umkit.backend_name(), "device": umkit.backend().device_name(0),
           "reps": args.reps}
    fns = {"advice": advice, "faultsize": faultsize, "small": small, "smallpair": smallpair,
           "context": context, "faultshape": faultshape, "context2": context2,
           "tripparts": tripparts, "thrash": thrash, "pinning": pinning, "allocs": allocs}
    for s in sections:
        out[s] = fns[s](args.reps)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0

