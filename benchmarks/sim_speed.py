"""The simulator's own speed targets (wall clock on the machine that runs it): runs
:mod:`umkit.measure.probes.sim_speed` and writes its JSON.

    python benchmarks/sim_speed.py [--out benchmarks/results/DATE-sim-speed-HOST.json]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import time
from umkit.measure.probes.sim_speed import (fault_1gib, loop_4_strategies)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    a = ap.parse_args()
    res = dict(date=time.strftime("%Y-%m-%d"), backend="sim", host=platform.node(),
               cpu=platform.processor() or platform.machine(), cores=os.cpu_count(),
               python=platform.python_version(), fault_1gib=fault_1gib(),
               loop_4_strategies=loop_4_strategies())
    print(json.dumps(res, indent=1))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
