"""The through-the-simulator stage of a profile fit: the parameters no single measurement
isolates -- the GPU fault path, the deferred mapping work, hand-offs, fresh streams -- fitted by
running the fit workloads on the simulator itself.

Model time is linear in each of these parameters, so the fit reads each one's share off sim
runs: one run with all of them at zero (``t0``) and one per parameter with it alone at one unit
(its column of ``F``).  The parameters are then the relative non-negative least squares
solution of ``t0 + F x = y`` over the measured fit observations ``y``.

The simulator's responses (``t0`` and ``F``) are the *design*.  Computing it takes 21 runs of
every fit workload (about ten minutes on two cores), so a manifest keeps it in a file beside
the data with the commit of the simulator that computed it; :func:`solve` reads it back.  A
design says which simulator it describes: the fit is what *that* model needs to reproduce the
data.  ``umkit measure fit --redesign`` computes a new one with the simulator as it is now.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np

from .. import calibrate
from .direct import MS, by_size

#: one unit of each parameter in a column run: 1 us, or for ``fault_bw`` (whose share goes as
#: 1 / rate) 1 GB/s; ``fault_bw`` at "zero" is the fastest rate a profile may hold
ZERO_FAULT_BW = 1e6
#: the widest miss a fit may leave on one observation (the shipped fit's worst is x/÷4.2)
MAX_RATIO = 20.0

#: fitted by running the fit workloads on sim (model time is linear in each of them)
SIM_FIT = ("fault_wakeup_latency", "fault_batch_latency", "fault_unmap_latency", "fault_latency",
           "fault_region_latency", "fault_bw", "fault_range_latency", "map_flush_latency",
           "unmap_flush_latency", "copy_handoff_latency",
           "prefetch_handoff_latency", "prefetch_latency", "prefetch_submit",
           "cpu_map_latency", "fault_split_latency", "dirty_refault_latency", "cpu_fault_latency",
           "cpu_region_latency",
           "user_launch_overhead", "pageable_copy_latency")
#: the UnifiedMemoryPerf stages the fit reads (fit_probe's sizes, never the sample's)
UMPERF_STAGES = (("UMhint", "to_gpu"), ("UMhint", "kernel"), ("UMhint", "from_gpu"),
                 ("UMhntAs", "sync"), ("UMeasy", "kernel"), ("UMhint", "cpu"),
                 ("CpPglAs", "kernel"), ("CpAsync", "kernel"), ("MemCopy", "kernel"),
                 ("0Copy", "kernel"), ("MemCopy", "to_gpu"), ("MemCopy", "from_gpu"),
                 ("CpHpglk", "to_gpu"))


def _loop_rows(loop: dict) -> dict:
    """fit_probe 'loop' as fit rows, {(loop, column): seconds}: the back-to-back loops only, each
    column the median of its later rounds (the first is the single-shot edits case)."""
    return {(key, col): float(np.median(r[col][1:])) * MS
            for key, r in loop.items() if isinstance(r, dict) and key.endswith("_tight")
            for col in ("cpu_write_ms", "read_ms")}


def observations(m: dict, sb: dict, fp: dict | None) -> list:
    """(name, measured seconds, key into the sim run's flat results) for the fit workloads that
    exercise the fault path, the deferred mapping work and fresh streams."""
    obs = []
    for k in ("gpu_fault_read", "gpu_touch_4k", "gpu_touch_64k", "gpu_touch_2m", "read_mostly_first"):
        obs.append((f"fitset/{k}", m[k] * MS, ("fit", k)))
    for k in ("prefetch_h2d", "prefetch_d2h", "pingpong", "cpu_read_full", "cpu_touch_64k",
              "cpu_touch_2m"):
        if k in m:
            obs.append((f"fitset/{k}", m[k] * MS, ("fit", k)))
    for s_ in sorted(int(k) for k in sb["managed"]):
        for col in ("fault_read_ms", "prefetch_h2d_ms", "prefetch_d2h_ms"):
            obs.append((f"sweep/{col[:-3]}/{s_}", by_size(sb["managed"], s_)[col] * MS,
                        ("sweep", s_, col)))
    if fp:
        for cfg, r in fp["packing"].items():
            for i, t in enumerate(r["each_event_ms"]):
                obs.append((f"packing/{cfg}/{i}", t * MS, ("packing", cfg, i)))
        for s_, r in fp["fresh"].items():
            for k, t in r.items():
                obs.append((f"fresh/{s_}/{k}", t * MS, ("fresh", int(s_), k)))
        for n_, r in sb.get("matmul", {}).items():
            if int(n_) <= 768:            # launch-bound sizes (the larger ones fit fp32_flops)
                obs.append((f"matmul/{n_}", r["kernel_ms"] * MS, ("matmul", int(n_))))
        for s_, r in sb.get("copies", {}).items():
            for col in ("pageable_h2d_host_ms", "read_back_device_host_ms"):
                obs.append((f"copies/{col[:-3]}/{s_}", r[col] * MS, ("copies", int(s_), col)))
        for cfg, r in fp["pingpong"].items():
            obs.append((f"pingpong/{cfg}/gpu_increment", r["gpu_increment_ms"] * MS,
                        ("pingpong", cfg)))
            obs.append((f"pingpong/{cfg}/cpu_read", r["cpu_read_ms"] * MS, ("pingpong_cpu", cfg)))
        # reads after a prefetch back to the CPU, a small CPU write then fault vs prefetch
        # reads, copies from freshly pinned buffers
        for sec in ("back", "edits", "fresh_pinned"):
            for size, r in fp.get(sec, {}).items():
                for k, t in r.items():
                    obs.append((f"{sec}/{size}/{k}", t * MS, (sec, int(size), k)))
        # managed buffers round the UnifiedMemoryPerf loop; the later laps
        # only (the first lap's GPU touch also builds the touch kernel), and the first CPU write
        for size, r in fp.get("cycles", {}).items():
            for k, t in r.items():
                if k.startswith("managed_") and "touch" not in k and (
                        k.endswith("_later_ms") or k == "managed_cpu_write_first_ms"):
                    obs.append((f"cycles/{size}/{k}", t * MS, ("cycles", int(size), k)))
        # the edits pattern repeated back to back; each loop's later rounds
        # (the first is the single-shot edits case) by their median.  The spaced loops (2 ms of
        # host sleep between rounds) are left out: everything, prefetches too, is slower after
        # the idle gap, and the model has no idle-gap mechanism for them to fit -- other
        # parameters would absorb it
        for (key, col), t in _loop_rows(fp.get("loop", {})).items():
            obs.append((f"loop/{key}/{col}", t, ("loop", key, col)))
        cells = fp["umperf"]["cells"]
        for n in (int(x) for x in fp["umperf"]["dims"]):
            for strat, stage in UMPERF_STAGES:
                key = f"{n * n * 4}:{strat}"
                obs.append((f"umperf/{key}/{stage}", cells[key][stage] * MS, ("umperf", key, stage)))
    return obs


def _sim_run(doc: dict, values: dict, with_fp: bool) -> dict:
    """The fit workloads on sim with ``doc``'s parameters, ``values`` (profile units) replacing
    some: {key tuple: seconds}."""
    from ... import runtime
    from ..probes import fit as fit_probe
    from ..probes import small as small_bench
    d = json.loads(json.dumps(doc))
    for k, val in values.items():
        d["params"].setdefault(k, {"unit": UNITS.get(k, "us"), "source": "fit in progress"})
        d["params"][k]["value"] = val
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "h200-fit.json"
        path.write_text(json.dumps(d))
        out = {}
        with runtime.using("sim", profile=str(path), compute=False):
            for k, t in calibrate.run_workloads().items():
                out[("fit", k)] = t * MS
            for s_, r in small_bench.sweep_managed().items():
                for col, t in r.items():
                    out[("sweep", int(s_), col)] = t * MS
            for n_, r in small_bench.matmul_rates().items():
                out[("matmul", int(n_))] = r["kernel_ms"] * MS
            for s_, r in small_bench.sweep_copies().items():
                for col, t in r.items():
                    out[("copies", int(s_), col)] = t * MS
            if with_fp:
                for cfg, r in fit_probe.packing().items():
                    for i, t in enumerate(r["each_event_ms"]):
                        out[("packing", cfg, i)] = t * MS
                for s_, r in fit_probe.fresh().items():
                    for k, t in r.items():
                        out[("fresh", int(s_), k)] = t * MS
                for cfg, r in fit_probe.pingpong().items():
                    out[("pingpong", cfg)] = r["gpu_increment_ms"] * MS
                    out[("pingpong_cpu", cfg)] = r["cpu_read_ms"] * MS
                for sec in ("back", "edits", "fresh_pinned", "cycles"):
                    for size, r in getattr(fit_probe, sec)().items():
                        for k, t in r.items():
                            out[(sec, int(size), k)] = t * MS
                for (key, col), t in _loop_rows(fit_probe.loop()).items():
                    out[("loop", key, col)] = t
                up = fit_probe.umperf()
                for key, cell in up["cells"].items():
                    for stage, t in cell.items():
                        out[("umperf", key, stage)] = t * MS
    return out



def design(doc: dict, values: dict, observations: list, with_fit_probe: bool) -> dict:
    """The simulator's responses to the fit workloads: ``t0`` (every parameter of
    :data:`SIM_FIT` at zero) and one column of ``F`` per parameter (it alone at one unit), in
    the order of ``observations``; ``doc`` the profile being fitted, ``values`` the values the
    earlier stages fitted (they stay fixed)."""
    base = {k: doc["params"][k]["value"] for k in doc["params"]}
    base.update(values)
    zero = {k: 0.0 for k in SIM_FIT}
    zero["fault_bw"] = ZERO_FAULT_BW
    r0 = _sim_run(doc, {**base, **zero}, with_fit_probe)
    cols = []
    for k in SIM_FIT:
        r1 = _sim_run(doc, {**base, **zero, k: 1.0}, with_fit_probe)
        cols.append([r1[key] - r0[key] for _, _, key in observations])
    return {"params": list(SIM_FIT), "observations": [o[0] for o in observations],
            "t0": [r0[key] for _, _, key in observations], "F": np.array(cols).T.tolist()}


def solve(des: dict, observations: list) -> tuple[dict, list]:
    """The parameters that reproduce ``observations`` (name, measured seconds, key) through the
    design ``des``: relative non-negative least squares.  Returns ({parameter: value in the
    profile's units}, [(observation, measured ms, fitted ms)])."""
    names = [o[0] for o in observations]
    if not isinstance(des, dict) or des.get("params") != list(SIM_FIT):
        raise ValueError("the design must list exactly the parameters this stage fits, in order: "
                         + ", ".join(SIM_FIT))
    if not (isinstance(des.get("observations"), list) and isinstance(des.get("t0"), list)
            and isinstance(des.get("F"), list) and len(des["t0"]) == len(des["F"])
            == len(des["observations"])
            and all(isinstance(row, list) and len(row) == len(SIM_FIT) for row in des["F"])):
        raise ValueError("the design needs observations, t0 and F of one length, each row of F "
                         "one number per parameter")
    if names != des["observations"]:
        missing = sorted(set(des["observations"]) - set(names))[:3]
        extra = sorted(set(names) - set(des["observations"]))[:3]
        raise ValueError("the design was computed for other observations than the data give "
                         f"(only in the design: {missing}; only in the data: {extra}): "
                         "compute it again (--redesign)")
    F = np.array(des["F"], dtype=float)
    y = np.array([t for _, t, _ in observations])
    t0 = np.array(des["t0"], dtype=float)
    if not (np.isfinite(F).all() and np.isfinite(t0).all() and (t0 >= 0).all()
            and np.isfinite(y).all() and (y > 0).all()):
        raise ValueError("the design's responses and the measurements must be finite, the "
                         "measurements > 0")
    use = np.abs(F).sum(axis=1) > 0          # observations the parameters act on
    if use.sum() < len(SIM_FIT):
        raise ValueError(f"the parameters act on {int(use.sum())} observations: fewer than the "
                         f"{len(SIM_FIT)} parameters; compute the design again (--redesign)")
    x = calibrate.nnls(F[use] / y[use, None], (y[use] - t0[use]) / y[use])
    vals = {k: (1.0 / xi if k == "fault_bw" and xi > 0 else xi) for k, xi in zip(des["params"], x)}
    if vals.get("fault_bw") == 0:
        vals["fault_bw"] = 1e3
    pred = t0 + F @ x
    rows = [(o[0], o[1] * 1e3, pp * 1e3) for o, pp, u in zip(observations, pred, use) if u]
    wide = [n for n, y, p in rows if p > 0 and max(p / y, y / p) >= MAX_RATIO]
    below = [n for n, y, p in rows if p <= 0]        # a stage the model times at about nothing
    if wide or len(below) > 0.05 * len(rows):
        raise ValueError(f"the fit misses {len(wide)} observations by more than x/÷{MAX_RATIO:g} and "
                         f"predicts {len(below)} of {len(rows)} at zero or less: the design does "
                         "not describe these data (compute it again: --redesign)")
    return vals, rows


def read_design(path: Path) -> dict:
    return json.loads(Path(path).read_text())


def write_design(path: Path, des: dict) -> None:
    Path(path).write_text(json.dumps(des, indent=0) + "\n")


UNITS = {"launch_overhead": "us", "event_overhead": "us", "copy_submit": "us", "prefetch_submit": "us",
         "copy_latency": "us", "fault_latency": "us", "prefetch_gpu_latency": "us", "host_copy_bw": "GB/s",
         "host_cache_bw": "GB/s", "host_cache_copy_bw": "GB/s", "host_cache_bytes": "B",
         "free_managed": "us", "fault_wakeup_latency": "us", "fault_range_latency": "us",
         "map_flush_latency": "us", "unmap_flush_latency": "us", "stream_first_latency": "us", "copy_handoff_latency": "us", "prefetch_handoff_latency": "us", "cpu_map_latency": "us", "fault_split_latency": "us", "user_launch_overhead": "us", "pageable_copy_latency": "us",
         "host_call_latency": "us", "managed_arena_bytes": "B", "free_device": "us", "free_pinned_per_mib": "us", "dup_refault_latency": "us", "dirty_refault_latency": "us",
         "fp32_flops": "TFLOP/s", "host_fill_bw": "GB/s", "host_cache_fill_bw": "GB/s",
         "dup_read_bw": "GB/s", "alloc_device_per_sqrt_mib": "us", "free_device_per_sqrt_mib": "us"}


