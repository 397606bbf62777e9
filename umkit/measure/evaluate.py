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

HINT = "give a .ci/gpu results folder, e.g. benchmarks/results/2026-12-05-h200-gpu-ci-run45"


def _read(path: Path, name: str) -> dict:
    """A results file of the run, as a JSON object (:func:`umkit.results.read_json`)."""
    from ..results import read_json
    hint = "give a .ci/gpu results folder whose files that run wrote"
    doc = read_json(path, path.stem, hint, argument=name)
    if not isinstance(doc, dict):
        raise InvalidArgument(f"{name}: {path.name} is not a JSON object", argument=name, hint=hint)
    return doc


def folder(value, name: str, hint: str = HINT) -> Path:
    """A results folder a caller names: a path that is a folder."""
    from .. import validate as V
    p = V.path(value, name, hint=hint)
    if not p.is_dir():
        raise InvalidArgument(f"{name}={V.shown(str(value), 200)} is not a folder", argument=name,
                              hint=hint)
    return p


def evaluate(run: Path, profile: str | None = None, umperf: bool = True,
             umperf_run: Path | None = None) -> dict:
    """The run's recorded measurements re-predicted by the simulator as it is now (see the
    module); ``run`` (and ``umperf_run``) a results folder."""
    run = folder(run, "run")
    umperf_run = folder(umperf_run, "umperf_run") if umperf_run is not None else None
    if not isinstance(umperf, bool):
        raise InvalidArgument("umperf must be True or False", argument="umperf", hint=HINT)
    out: dict = {"run": run.name}
    comp = run / "calibrate_compare.json"
    if comp.exists():
        raw = _read(comp, "run")
        measured = raw.get("measured", raw)
        if not isinstance(measured, dict):
            raise InvalidArgument(f"{comp.name}: 'measured' is not a JSON object", argument="run",
                                  hint="pass a folder whose calibrate_compare.json calibrate "
                                       "--compare --out wrote")
        measured = calibrate.check_measured(measured, "run")
        c = calibrate.compare(profile, measured=measured)
        out["calibrate"] = c
        out["calibrate_lines"] = calibrate.summary_lines(c)
    up = (umperf_run or run) / "umperf.json"
    out["umperf_run"] = (umperf_run or run).name
    if umperf and up.exists():
        from . import umperf as u
        rec = _read(up, "--umperf-run" if umperf_run else "run")
        real = rec.get("measured")
        if not _umperf_table(real, u.STRATEGIES):
            raise InvalidArgument(f"{up.name} has no measured UnifiedMemoryPerf table (runs 1-50, "
                                  "dims: up to 12 distinct matrix sizes 8-2048, a cell of stage "
                                  "times per size and strategy)",
                                  argument="--umperf-run" if umperf_run else "run",
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
    if "calibrate" not in out and "umperf" not in out:
        name = "--umperf-run" if umperf_run else "run"
        raise InvalidArgument(f"{name}: nothing to evaluate in {run.name}: no calibrate_compare.json"
                              + (", and umperf.json is left out (--no-umperf)" if not umperf
                                 else f" and no umperf.json in {(umperf_run or run).name}"),
                              argument=name,
                              hint="give a .ci/gpu results folder that ran calibrate or umperf")
    return out


def _umperf_table(real, strategies) -> bool:
    """A recorded UnifiedMemoryPerf table a re-prediction can be made for: its runs and sizes
    bounded (a re-prediction's time grows with both), a cell of finite stage times for every
    size and strategy."""
    import math
    if not (isinstance(real, dict) and type(real.get("runs")) is int and 1 <= real["runs"] <= 50):
        return False
    dims, cells = real.get("dims"), real.get("cells")
    if not (isinstance(dims, list) and 0 < len(dims) <= 12 and len(set(map(str, dims))) == len(dims)
            and all(type(n) is int and 8 <= n <= 2048 for n in dims) and isinstance(cells, dict)):
        return False
    for n in dims:
        for s in strategies:
            cell = cells.get(f"{n * n * 4}:{s}")
            if not (isinstance(cell, dict) and cell and all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                    and v >= 0 for v in cell.values())):
                return False
    return True


def main(a) -> int:
    """``umkit measure evaluate``: the parsed arguments (run, profile, no_umperf, umperf_run,
    json, quiet)."""
    r = evaluate(a.run, a.profile, not a.no_umperf, a.umperf_run)
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
