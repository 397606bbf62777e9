"""Re-predict a recorded GPU run with the current sim model, offline (no GPU needed).

    python benchmarks/evaluate_model.py RUN_DIR [--umperf-run RUN_DIR2] [--profile NAME] [--no-umperf] [--json OUT]

RUN_DIR is a ``.ci/gpu`` results directory (benchmarks/results/...).  From its
``calibrate_compare.json`` the *measured* fit set and validation set are taken and predicted
again by sim (``umkit.measure.calibrate.compare(measured=...)``); from its ``umperf.json`` the card's
UnifiedMemoryPerf table is taken and the same program is run again on sim.  The fit set and the
validation set are reported apart, and the card's numbers are the ones recorded in RUN_DIR:
this is an evaluation of the model against recorded data, not a new measurement.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import umkit
from umkit.measure import calibrate


def evaluate(run: Path, profile: str | None = None, umperf: bool = True,
             umperf_run: Path | None = None) -> dict:
    out: dict = {"run": run.name}
    comp = run / "calibrate_compare.json"
    if comp.exists():
        raw = json.loads(comp.read_text())
        measured = raw.get("measured", raw)
        c = calibrate.compare(profile, measured=measured)
        out["calibrate"] = c
        out["calibrate_lines"] = calibrate.summary_lines(c)
    up = (umperf_run or run) / "umperf.json"
    out["umperf_run"] = (umperf_run or run).name
    if umperf and up.exists():
        from umkit.measure import umperf as u
        rec = json.loads(up.read_text())
        real = rec["measured"]
        # sim with the host speed fitted on the same run's fit set (1.0 without a calibrate file)
        host = float(out["calibrate"]["host_speed"]) if "calibrate" in out else 1.0
        with umkit.using("sim", compute=False, host_speed=host, **({"profile": profile} if profile else {})):
            sim = u.run_all(real["runs"], tuple(real["dims"]), progress=False)
        c = u.compare(real, sim)
        out["umperf"] = dict(sim=sim, comparison=c, real=real, host_speed=host,
                             summary=f"umperf: sim (host speed {host:.3f}) within x/÷1.5 in "
                                     f"{c['within']}/{c['total']} cells >= 256 KB; strategy order per "
                                     f"size: {c['ordering_right']} pairs right, {c['ordering_wrong']} wrong")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run")
    ap.add_argument("--profile")
    ap.add_argument("--no-umperf", action="store_true")
    ap.add_argument("--umperf-run", help="take umperf.json from this run instead")
    ap.add_argument("--json")
    ap.add_argument("--quiet", action="store_true", help="summaries only")
    a = ap.parse_args(argv)
    r = evaluate(Path(a.run), a.profile, not a.no_umperf,
                 Path(a.umperf_run) if a.umperf_run else None)
    print(f"offline evaluation of the current sim model against recorded GPU data: calibrate from "
          f"{r['run']}, UnifiedMemoryPerf from {r['umperf_run']} (no new measurement)")
    if "calibrate" in r and not a.quiet:
        print(calibrate.compare_table(r["calibrate"]))
    if "umperf" in r and not a.quiet:
        from umkit.measure import umperf as u
        print(u.table_md(r["umperf"]["real"], f"recorded card ({r['umperf_run']})"))
        print(u.table_md(r["umperf"]["sim"], "sim now"))
        print(u.ratio_md(r["umperf"]["real"], r["umperf"]["comparison"]))
    for ln in r.get("calibrate_lines", []):
        print("SUMMARY " + ln)
    if "umperf" in r:
        print("SUMMARY " + r["umperf"]["summary"])
    if a.json:
        r.pop("calibrate", None)
        Path(a.json).write_text(json.dumps(r, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
