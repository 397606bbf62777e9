"""A recorded GPU run re-predicted by the simulator as it is now, offline (``umkit measure
evaluate RUN``; no GPU needed).

RUN is a ``.ci/gpu`` results folder (``benchmarks/results/...``).  From its
``calibrate_compare.json`` the *measured* fit set and validation set are taken and predicted
again by sim (``umkit.measure.calibrate.compare(measured=...)``); from its ``umperf.json`` the
card's UnifiedMemoryPerf table is taken and the same program is run again on sim.  The fit set
and the validation set are reported apart, and the card's numbers are the ones recorded in RUN:
this is an evaluation of the model against recorded data, not a new measurement.
"""
from __future__ import annotations

import json
from pathlib import Path

from .. import runtime
from ..errors import InvalidArgument
from . import calibrate


def _read(path: Path, name: str) -> dict:
    """A results file of the run, read as JSON (a regular file of at most 64 MiB)."""
    from .. import validate as V
    hint = "give a .ci/gpu results folder whose files that run wrote"
    why = V.not_a_file(path, name)
    if why or path.stat().st_size > 64 << 20:
        raise InvalidArgument(why or f"{name}: {path.name} is larger than 64 MiB", argument=name,
                              hint=hint)
    try:
        doc = json.loads(path.read_bytes().decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError, OSError) as e:
        raise InvalidArgument(f"{name}: {path.name} is not JSON ({type(e).__name__})",
                              argument=name, hint=hint) from None
    if not isinstance(doc, dict):
        raise InvalidArgument(f"{name}: {path.name} is not a JSON object", argument=name, hint=hint)
    return doc


def evaluate(run: Path, profile: str | None = None, umperf: bool = True,
             umperf_run: Path | None = None) -> dict:
    out: dict = {"run": run.name}
    comp = run / "calibrate_compare.json"
    if comp.exists():
        raw = _read(comp, "run")
        measured = calibrate.check_measured(raw.get("measured", raw), "run")
        c = calibrate.compare(profile, measured=measured)
        out["calibrate"] = c
        out["calibrate_lines"] = calibrate.summary_lines(c)
    up = (umperf_run or run) / "umperf.json"
    out["umperf_run"] = (umperf_run or run).name
    if umperf and up.exists():
        from . import umperf as u
        rec = _read(up, "--umperf-run" if umperf_run else "run")
        real = rec.get("measured")
        if not (isinstance(real, dict) and type(real.get("runs")) is int and 1 <= real["runs"] <= 100
                and isinstance(real.get("dims"), list) and real["dims"]
                and all(type(n) is int and 8 <= n <= 4096 for n in real["dims"])
                and isinstance(real.get("cells"), dict) and real["cells"]):
            raise InvalidArgument(f"{up.name} has no measured UnifiedMemoryPerf table (runs 1-100, "
                                  "dims: matrix sizes 8-4096, cells)", argument="--umperf-run" if umperf_run else "run",
                                  hint="give the umperf.json that umkit measure run umperf wrote")
        # sim with the host speed fitted on the same run's fit set (1.0 without a calibrate file)
        host = float(out["calibrate"]["host_speed"]) if "calibrate" in out else 1.0
        with runtime.using("sim", compute=False, host_speed=host, **({"profile": profile} if profile else {})):
            sim = u.run_all(real["runs"], tuple(real["dims"]), progress=False)
        c = u.compare(real, sim)
        out["umperf"] = dict(sim=sim, comparison=c, real=real, host_speed=host,
                             summary=f"umperf: sim (host speed {host:.3f}) within x/÷1.5 in "
                                     f"{c['within']}/{c['total']} cells >= 256 KB; strategy order per "
                                     f"size: {c['ordering_right']} pairs right, {c['ordering_wrong']} wrong")
    return out



def main(a) -> int:
    """``umkit measure evaluate``: the parsed arguments (run, profile, no_umperf, umperf_run,
    json, quiet)."""
    if not (Path(a.run) / "calibrate_compare.json").exists() and not (Path(a.run) / "umperf.json").exists():
        raise InvalidArgument(f"{a.run} holds neither calibrate_compare.json nor umperf.json",
                              argument="run", hint="give a .ci/gpu results folder, e.g. "
                              "benchmarks/results/2026-12-05-h200-gpu-ci-run45")
    r = evaluate(Path(a.run), a.profile, not a.no_umperf,
                 Path(a.umperf_run) if a.umperf_run else None)
    print(f"offline evaluation of the current sim model against recorded GPU data: calibrate from "
          f"{r['run']}, UnifiedMemoryPerf from {r['umperf_run']} (no new measurement)")
    if "calibrate" in r and not a.quiet:
        print(calibrate.compare_table(r["calibrate"]))
    if "umperf" in r and not a.quiet:
        from . import umperf as u
        print(u.table_md(r["umperf"]["real"], f"recorded card ({r['umperf_run']})"))
        print(u.table_md(r["umperf"]["sim"], "sim now"))
        print(u.ratio_md(r["umperf"]["real"], r["umperf"]["comparison"]))
    for ln in r.get("calibrate_lines", []):
        print("SUMMARY " + ln)
    if "umperf" in r:
        print("SUMMARY " + r["umperf"]["summary"])
    if a.json:
        from ..results import files
        r.pop("calibrate", None)
        files.write(a.json, json.dumps(r, indent=1, default=str), argument="--json",
                    exists="replace")
    return 0
