"""Size sweeps for the model's fixed costs and small-size rates (FIT data; never the
validation set): runs the sweeps of :mod:`umkit.measure.probes.small` and writes their JSON.

    umkit measure run small [--out small_bench.json]     (sim: UMKIT_BACKEND=sim)
"""
from __future__ import annotations

import argparse
import json
from umkit.measure.probes.small import (first_use, header, host_verify, launch_sync, matmul_rates,
                                        read_mostly_writes, small_managed, sweep_copies,
                                        sweep_host, sweep_managed, timer_floor)
from .registry import output, write


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="umkit measure run small")
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    output(a.out, "--out")
    res = header("umkit small_bench", "host_ms: umkit.now() around a synchronized region (wall "
                 "clock on GPUs); gpu ms: events; medians")
    res.update(host=sweep_host(), copies=sweep_copies(), managed=sweep_managed(),
               launch_sync=launch_sync(), read_mostly_16MiB=read_mostly_writes(),
               timer=timer_floor(), first_use=first_use(), small_managed=small_managed(),
               matmul=matmul_rates(), host_verify=host_verify())
    text = json.dumps(res, indent=1)
    print(text)
    if a.out:
        write(a.out, text, "--out")
    return 0

