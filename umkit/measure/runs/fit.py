"""Fit-only probes for the mechanisms the model lacked (FIT data): runs the probes of
:mod:`umkit.measure.probes.fit` and writes their JSON.

    umkit measure run fit [--out fit_probe.json] [--quick]   (sim: UMKIT_BACKEND=sim)
"""
from __future__ import annotations

import argparse
import json

from umkit.measure.probes.small import header
from umkit.measure.probes.fit import (SECTIONS, back, cycles, duplex, edits, fresh, fresh_pinned,
                                      host, loop, packing, partial, pingpong, umperf)
from .registry import output, write


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="umkit measure run fit")
    ap.add_argument("--out")
    ap.add_argument("--quick", action="store_true", help="smaller umperf part (tests)")
    ap.add_argument("--only", help=f"comma-separated sections (default: all of {', '.join(SECTIONS)})")
    a = ap.parse_args(argv)
    output(a.out, "--out")
    only = SECTIONS if not a.only else tuple(x.strip() for x in a.only.split(","))
    bad = [x for x in only if x not in SECTIONS]
    if bad:
        ap.error(f"--only: unknown section(s) {', '.join(bad)}; choose from {', '.join(SECTIONS)}")
    res = header("umkit fit_probe", "FIT data (sizes neither the validation set nor "
                 "UnifiedMemoryPerf uses); host_ms: umkit.now() around a synchronized region; "
                 "gpu ms: events; medians")
    fns = dict(packing=packing, fresh=fresh, host=host, partial=partial, pingpong=pingpong,
               umperf=lambda: umperf(a.quick), back=back, edits=edits, fresh_pinned=fresh_pinned,
               cycles=cycles, duplex=duplex, loop=loop)
    for name in only:
        res[name] = fns[name]()
        if a.out:               # section by section: a later failure keeps what was measured
            write(a.out, json.dumps(res, indent=1), "--out")
    if not a.out:
        print(json.dumps(res, indent=1))
    return 0

