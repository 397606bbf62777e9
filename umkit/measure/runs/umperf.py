"""NVIDIA cuda-samples UnifiedMemoryPerf, ported to umkit (the program lives in umkit.measure.umperf).

    umkit measure run umperf [--runs 20] [--out umperf.json] [--md umperf.md] [--compare-sim]
        [--rounds 4 | --host-speed-from calibrate_compare.json | --host-speed X]

Runs the port on the active backend; ``--compare-sim`` then runs the same program on sim and
prints both tables, sim/real per cell and the order of the strategies per size.  With
``--rounds N`` (the GPU CI: 4) the table is taken N times in turns with ``umkit calibrate``'s fit
set, each cell its fastest round (as calibrate's own statistic), and sim's host speed is fitted on that fit set (the table itself is
never read by the fit); else sim runs with the host speed of ``--host-speed-from`` (a calibrate
--compare JSON) or ``--host-speed``, or the profile's own host (1.0).  The comparison with the
profile as stored (host speed 1.0) is kept beside it.
"""
from __future__ import annotations

import argparse
import json

import umkit
from umkit.measure.umperf import (DIMS, compare, host_speed_from, order,
                                  ratio_md, run_all, table_md, size_label)
from .registry import output, positive, write


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="umkit measure run umperf", description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=positive(int, 1000), default=20, help="iterations per cell (the sample: 20)")
    ap.add_argument("--max-mb", type=positive(int), default=16, help="largest matrix, MB (the sample: 16)")
    ap.add_argument("--out", help="JSON with every cell and stage")
    ap.add_argument("--md", help="markdown tables")
    ap.add_argument("--compare-sim", action="store_true",
                    help="after the active backend, run the same program on sim and compare")
    ap.add_argument("--profile", help="sim profile for --compare-sim / the sim run")
    ap.add_argument("--rounds", type=positive(int), default=1,
                    help="take the table this many times in turns with calibrate's fit set; each "
                         "cell is its fastest round (calibrate's statistic), and sim's host speed is "
                         "fitted on that fit set")
    ap.add_argument("--host-speed", type=float, help="sim's host speed for --compare-sim")
    ap.add_argument("--host-speed-from", help="take sim's host speed from this calibrate "
                    "--compare JSON (fitted there on the fit set)")
    a = ap.parse_args(argv)
    output(a.out, "--out")
    output(a.md, "--md", (".md",))
    host, host_src = 1.0, "the profile's own host (no host speed given)"
    if a.host_speed is not None:
        host, host_src = a.host_speed, "given on the command line"
    elif a.host_speed_from:
        hs = host_speed_from(a.host_speed_from)
        host, host_src = hs["host_speed"], hs["host_speed_source"]
    dims = tuple(n for n in DIMS if n * n * 4 <= a.max_mb << 20)
    b = umkit.backend()
    if b.name == "sim" and a.profile:
        umkit.use("sim", quiet=True, profile=a.profile, compute=False)
    elif b.name == "sim":
        umkit.use("sim", quiet=True, compute=False)     # model time needs no arithmetic
    fitted = None
    if a.rounds > 1 and b.name != "sim":
        from umkit.measure import calibrate
        from umkit.measure.umperf import measure_with_fit
        mw = measure_with_fit(a.runs, dims, rounds=a.rounds, progress=True)
        res = mw["table"]
        fitted = calibrate.fit_host_speed(mw["fit"], a.profile, mw["fit_nbytes"])
        host = fitted["host_speed"]
        host_src = (f"fitted on calibrate's fit set taken in turns with the table ({a.rounds} rounds, "
                    f"{mw['statistic']} of each; the table is not read)")
    else:
        res = run_all(a.runs, dims)
    out = dict(measured=res)
    if fitted is not None:
        out.update(rounds=mw["rounds"], fit=mw["fit"], fit_runs=mw["fit_runs"], host=fitted)
    md = [table_md(res, "UnifiedMemoryPerf port")]
    if a.compare_sim and res["backend"] != "sim":
        prof = {"profile": a.profile} if a.profile else {}
        umkit.use("sim", quiet=True, compute=False, **prof)
        stored = run_all(a.runs, dims)
        cs = compare(res, stored)
        simres, c = stored, cs              # the profile as stored is host speed 1.0
        if host != 1.0:                     # (else the same run: not taken twice)
            umkit.use("sim", quiet=True, compute=False, host_speed=host, **prof)
            simres = run_all(a.runs, dims)
            c = compare(res, simres)
        out.update(sim=simres, comparison=c, host_speed=host, host_speed_source=host_src,
                   sim_as_stored=stored, comparison_as_stored=cs,
                   summary=f"umperf: sim (host speed {host:.3f}) within x/÷1.5 in {c['within']}/"
                           f"{c['total']} cells >= 256 KB; strategy order per size: "
                           f"{c['ordering_right']} pairs right, {c['ordering_wrong']} wrong; "
                           f"the profile as stored: {cs['within']}/{cs['total']} cells, "
                           f"{cs['ordering_wrong']} pairs wrong")
        md += [table_md(simres, f"the same program on sim, host speed {host:.3f} ({host_src})"),
               ratio_md(res, c)]
        for n in dims:
            nb = n * n * 4
            md.append(f"- {size_label(nb)} order, card: {' < '.join(order(res, nb))}; "
                      f"sim: {' < '.join(order(simres, nb))}")
    out["device"] = res["device"]
    text = "\n\n".join(md)
    print(text)
    if out.get("summary"):
        print("SUMMARY " + out["summary"])
    if a.out:
        write(a.out, json.dumps(out, indent=1), "--out")
    if a.md:
        write(a.md, "## UnifiedMemoryPerf (cuda-samples) port\n\n" + text + "\n", "--md")
    return 0

