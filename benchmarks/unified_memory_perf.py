"""NVIDIA cuda-samples UnifiedMemoryPerf, ported to umkit (the program lives in umkit.umperf).

    python benchmarks/unified_memory_perf.py [--runs 20] [--out umperf.json] [--md umperf.md] [--compare-sim]

Runs the port on the active backend; ``--compare-sim`` then runs the same program on sim and
prints both tables, sim/real per cell and the order of the strategies per size.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import umkit  # noqa: E402
from umkit.umperf import (DIMS, STRATEGIES, compare, matmul, order, ratio_md, reference,  # noqa: E402,F401
                          run_all, run_cell, table_md, _size)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=20, help="iterations per cell (the sample: 20)")
    ap.add_argument("--max-mb", type=int, default=16, help="largest matrix, MB (the sample: 16)")
    ap.add_argument("--out", help="JSON with every cell and stage")
    ap.add_argument("--md", help="markdown tables")
    ap.add_argument("--compare-sim", action="store_true",
                    help="after the active backend, run the same program on sim and compare")
    ap.add_argument("--profile", help="sim profile for --compare-sim / the sim run")
    a = ap.parse_args(argv)
    dims = tuple(n for n in DIMS if n * n * 4 <= a.max_mb << 20)
    b = umkit.backend()
    if b.name == "sim" and a.profile:
        umkit.use("sim", quiet=True, profile=a.profile, compute=False)
    elif b.name == "sim":
        umkit.use("sim", quiet=True, compute=False)     # model time needs no arithmetic
    res = run_all(a.runs, dims)
    out = dict(measured=res)
    md = [table_md(res, "UnifiedMemoryPerf port")]
    if a.compare_sim and res["backend"] != "sim":
        umkit.use("sim", quiet=True, compute=False, **({"profile": a.profile} if a.profile else {}))
        simres = run_all(a.runs, dims)
        c = compare(res, simres)
        out.update(sim=simres, comparison=c,
                   summary=f"umperf: sim within x/÷1.5 in {c['within']}/{c['total']} cells >= 256 KB; "
                           f"strategy order per size: {c['ordering_right']} pairs right, "
                           f"{c['ordering_wrong']} wrong")
        md += [table_md(simres, "the same program on sim"), ratio_md(res, c)]
        for n in dims:
            nb = n * n * 4
            md.append(f"- {_size(nb)} order, card: {' < '.join(order(res, nb))}; "
                      f"sim: {' < '.join(order(simres, nb))}")
    out["device"] = res["device"]
    text = "\n\n".join(md)
    print(text)
    if out.get("summary"):
        print("SUMMARY " + out["summary"])
    if a.out:
        Path(a.out).write_text(json.dumps(out, indent=1))
    if a.md:
        Path(a.md).write_text("## UnifiedMemoryPerf (cuda-samples) port\n\n" + text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
