"""Probes for three classes of workload the model missed on the H200 (investigation data):
runs the probes of :mod:`umkit.measure.probes.classes` and writes their JSON.

    umkit measure run classes [--out class_probe.json] [--sections advice,faultsize,small]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import umkit
from umkit.measure.timing import warm_up
from umkit.measure.probes.classes import (advice, allocs, context, context2, faultshape, faultsize,
                                          pinning, small, smallpair, thrash, tripparts)
from .registry import output, positive, write


def main(argv=None):
    p = argparse.ArgumentParser(prog="umkit measure run classes", description=__doc__.splitlines()[0])
    p.add_argument("--out", default="class_probe.json")
    p.add_argument("--sections",
                   default="advice,faultsize,smallpair,small,context,faultshape,context2,tripparts,"
                           "thrash,pinning,allocs")
    p.add_argument("--reps", type=positive(int), default=3)
    args = p.parse_args(argv)
    output(args.out, "--out")
    sections = [s for s in args.sections.split(",") if s]
    known = ("advice", "faultsize", "small", "smallpair", "context", "faultshape", "context2",
             "tripparts", "thrash", "pinning", "allocs")
    if not sections or set(sections) - set(known):
        p.error(f"--sections: a comma-separated subset of {','.join(known)}")
    warm_up()
    out = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
           "backend": umkit.backend_name(), "device": umkit.backend().device_name(0),
           "reps": args.reps}
    fns = {"advice": advice, "faultsize": faultsize, "small": small, "smallpair": smallpair,
           "context": context, "faultshape": faultshape, "context2": context2,
           "tripparts": tripparts, "thrash": thrash, "pinning": pinning, "allocs": allocs}
    for s in sections:
        out[s] = fns[s](args.reps)
    write(args.out, json.dumps(out, indent=1) + "\n", "--out")
    print(f"wrote {args.out}")
    return 0

