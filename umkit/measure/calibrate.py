"""Calibration: measure the real card, fit a sim profile, and compare sim's predictions with
the card, workload by workload (``umkit calibrate [--compare]``).

Every workload here runs through the public API only, so the *same code* is timed on the real
backend and predicted by sim.  Device work is timed with events; host work (CPU reads) with
``umkit.now()`` around a synchronized region (model time on sim, a wall clock on GPUs).
"""
from __future__ import annotations

import datetime as _dt
import json
import math
import sys
from pathlib import Path

import numpy as np

from .. import runtime
from .. import validate as V
from ..errors import BackendUnavailable, InvalidArgument

from .fit_set import run_workloads
from .timing import MiB
GB = 1e9


# -- fitting ----------------------------------------------------------------------------------------
def nnls(A, b, tol: float = 1e-12) -> np.ndarray:
    """argmin ||A x - b|| over x >= 0: Lawson and Hanson's active-set method (Solving Least
    Squares Problems, 1974, ch. 23).  Where A has full column rank the minimum is unique: the
    solution trying every support set would find, in a few dozen least-squares solves instead
    of 2**n (the profile fit's simulator stage has 20 unknowns)."""
    m, n = A.shape
    x = np.zeros(n)
    passive = np.zeros(n, dtype=bool)
    w = A.T @ (b - A @ x)
    scale = tol * max(1.0, float(np.abs(A.T @ b).max()))
    for _ in range(3 * n + 30):
        if passive.all() or not (w[~passive] > scale).any():
            break
        j = int(np.argmax(np.where(passive, -np.inf, w)))
        passive[j] = True
        while True:
            z = np.zeros(n)
            z[passive], *_ = np.linalg.lstsq(A[:, passive], b, rcond=None)
            if (z[passive] > 0).all():
                x = z
                break
            neg = passive & (z <= 0)
            alpha = np.min(x[neg] / (x[neg] - z[neg]))
            x = x + alpha * (z - x)
            passive &= x > tol
            x[~passive] = 0.0
        w = A.T @ (b - A @ x)
    return x


def fit(m: dict, nbytes: int = 256 * MiB, host_page: int = 4096, gpu_page: int = 65536,
        region: int = 2 * MiB, batch: int = 256) -> dict:
    """Fit the fault-path parameters to measured ms (keys as in :func:`run_workloads`).
    Rows are divided by the measurement, so the fit minimises *relative* error."""
    B = nbytes
    pages, blocks, regions = B // host_page, B // gpu_page, B // region
    ms = 1e-3

    def batches(f):
        return -(-f // batch)
    # GPU: t = batches*(L + U) + regions*R + bytes/bw   (faults per 4 KiB page touched);
    # a read-mostly copy pays no U (the CPU keeps its mapping)
    rows, y = [], []
    for key, faults, nbyt, unmap in (
            ("gpu_fault_read", pages, B, 1), ("gpu_touch_4k", pages, B, 1),
            ("gpu_touch_64k", B // 65536, B, 1),
            ("gpu_touch_2m", B // (2 * MiB), (B // (2 * MiB)) * gpu_page, 1),
            ("read_mostly_first", pages, B, 0)):
        if key in m:
            nb = batches(faults)
            rows.append([nb, nb * unmap, regions if key != "gpu_touch_2m" else B // (2 * MiB), nbyt])
            y.append(m[key] * ms)
    A, y = np.array(rows, float), np.array(y)
    L, U, R, inv_bw = nnls(A / y[:, None], np.ones_like(y))
    # CPU: t = faults*lat + regions*Rc + bytes/bw_c   (one fault per gpu_page block)
    host_bw = B / (m["host_read"] * ms)
    rows, y = [], []
    for key, faults, nbyt, extra in (
            ("cpu_read_full", blocks, B, 0.0),
            ("cpu_touch_64k", blocks, B, 0.0),
            ("cpu_touch_2m", B // (2 * MiB), (B // (2 * MiB)) * gpu_page, 0.0),
            # ping-pong: the CPU half of an iteration = total minus a full GPU fault read
            ("pingpong", blocks, B, m.get("gpu_fault_read", 0.0) * ms)):
        if key in m:
            rows.append([faults, regions if key != "cpu_touch_2m" else B // (2 * MiB), nbyt])
            y.append(m[key] * ms - extra)
    # the bytes come back at the device->host migration rate that prefetch measures
    d2h_bw = B / (m["prefetch_d2h"] * ms)
    A, y = np.array(rows, float), np.array(y)
    w = 1 / y                                   # relative error, measured as a whole
    lat, Rc = nnls(A[:, :2] * w[:, None], (y - A[:, 2] / d2h_bw) * w)
    inv_cbw = 1 / d2h_bw
    return dict(
        fault_batch_latency=L / 1e-6, fault_unmap_latency=U / 1e-6, fault_region_latency=R / 1e-6,
        fault_bw=(1 / inv_bw) / GB if inv_bw > 0 else 1e3,
        cpu_fault_latency=lat / 1e-6, cpu_region_latency=Rc / 1e-6,
        cpu_fault_bw=(1 / inv_cbw) / GB if inv_cbw > 0 else 1e3,
        host_mem_bw=host_bw / GB,
        **({"first_touch_latency": max(0.0, (m["cpu_first_touch"] * ms - 2 * B / host_bw) / pages) / 1e-6}
           if "cpu_first_touch" in m else {}),
        pinned_h2d_bw=B / (m["pinned_h2d"] * ms) / GB, pinned_d2h_bw=B / (m["pinned_d2h"] * ms) / GB,
        prefetch_h2d_bw=B / (m["prefetch_h2d"] * ms) / GB,
        prefetch_d2h_bw=B / (m["prefetch_d2h"] * ms) / GB,
        zero_copy_bw=B / (m["accessed_by"] * ms) / GB,
        hbm_bw=B / (m["device_read"] * ms) / GB,
    )


def write_profile(params: dict, path, name: str, title: str, source: str, base: str = "h200-pcie5",
                  force: bool = False):
    """Write a profile: fitted values replace ``base``'s, each with ``source``.  A file already
    at ``path`` is kept (``AlreadyExists`` naming ``--out``) unless ``force``; the write is
    atomic (:func:`umkit.results.files.write`)."""
    from ..results import files
    from ..sim import PROFILE_DIR
    d = json.loads((PROFILE_DIR / f"{base}.json").read_text())
    d.update(name=name, title=title, teaching=False)
    for k, v in params.items():
        unit = d["params"][k]["unit"]
        d["params"][k] = {"value": round(float(v), 4), "unit": unit, "source": source}
    return files.write(path, json.dumps(d, indent=1) + "\n", argument="--out", force=force,
                       flag="--force")


# -- compare ----------------------------------------------------------------------------------------
TOLERANCE = 1.25          # the fit set's target: within x/÷1.25
TOLERANCE_VAL = 1.5       # the validation set's target: within x/÷1.5
ORDER_MARGIN = 1.10       # a pair counts for ordering only when the card separates it by > 10%

#: fit-set workloads that do the same task by different strategies (ordering pairs)
FIT_GROUPS = {
    "host_to_gpu": ["pinned_h2d", "prefetch_h2d", "gpu_fault_read", "accessed_by"],
    "gpu_to_host": ["pinned_d2h", "prefetch_d2h", "cpu_read_full"],
    "gpu_reread": ["device_read", "read_mostly_reread"],
}


def _rows(measured: dict, predicted: dict) -> list[dict]:
    rows = []
    for k, mv in measured.items():
        pv = predicted.get(k)
        ratio = pv / mv if pv is not None and mv > 0 else float("nan")
        rows.append(dict(workload=k, measured_ms=round(mv, 4),
                         predicted_ms=None if pv is None else round(pv, 4), ratio=round(ratio, 3),
                         within=bool(1 / TOLERANCE <= ratio <= TOLERANCE),
                         within_1_5=bool(1 / TOLERANCE_VAL <= ratio <= TOLERANCE_VAL)))
    return rows


def _separated(faster: list | None, slower: list | None) -> bool:
    """The card's own repeats agree on the order: every run of the faster workload is below
    every run of the slower one (True when the repeats are not known)."""
    if not faster or not slower:
        return True
    return max(faster) < min(slower)


def ordering(measured: dict, predicted: dict, groups: dict, runs: dict | None = None) -> dict:
    """Strategy ordering: for each pair in a group that the card separates -- medians more than
    ``ORDER_MARGIN`` apart and, where ``runs`` holds each workload's repeats, every repeat of
    the faster one below every repeat of the slower one -- does sim put them in the same order?
    Pairs the card itself does not settle are listed as ``close`` (within the margin) or
    ``unsettled`` (repeats overlap): the card gives no order to check there."""
    runs = runs or {}
    right, wrong, close, unsettled = [], [], [], []
    for g, names in groups.items():
        names = [n for n in names if n in measured and n in predicted]
        for i, x in enumerate(names):
            for y in names[i + 1:]:
                mx, my, px, py = measured[x], measured[y], predicted[x], predicted[y]
                lo, hi = sorted((mx, my))
                if lo <= 0 or hi / lo < ORDER_MARGIN:
                    close.append(f"{x} ~ {y}")
                    continue
                faster = x if mx < my else y
                slower = y if faster == x else x
                pair = f"{faster} < {slower}"
                if not _separated(runs.get(faster), runs.get(slower)):
                    unsettled.append(pair)
                    continue
                (right if (mx < my) == (px < py) else wrong).append(pair)
    return dict(right=len(right), wrong=len(wrong), close=len(close), wrong_pairs=wrong,
                close_pairs=close, unsettled=len(unsettled), unsettled_pairs=unsettled)


def section(measured: dict, predicted: dict, groups: dict, runs: dict | None = None) -> dict:
    rows = _rows(measured, predicted)
    return dict(rows=rows, total=len(rows), within=sum(r["within"] for r in rows),
                within_1_5=sum(r["within_1_5"] for r in rows),
                ordering=ordering(measured, predicted, groups, runs))


def predict(measured_keys, profile: str | None, gpus: int, nbytes: int, progress=None,
            host_speed: float = 1.0) -> dict:
    """The same workloads on sim (``gpus`` simulated GPUs, the host ``host_speed`` times slower
    than the profile's); the active backend is restored."""
    from . import validation_set as validation
    with runtime.using("sim", gpus=max(1, min(gpus, 7)), host_speed=host_speed,
                       **({"profile": profile} if profile else {})) as sim:
        prof_name = sim.model_profile().name
        fit_p = run_workloads(nbytes)
        val_p = validation.run_validation(progress, only=set(measured_keys))
    return dict(profile=prof_name, host_speed=host_speed, fit=fit_p, validation=val_p)


#: the host speeds searched (x slower than the profile's host); the profile's own is 1.0
HOST_SPEED_SEARCH = (0.5, 2.5)


def _msle(measured: dict, predicted: dict) -> float:
    """Mean squared log ratio, predicted over measured: the relative error the fit minimises."""
    logs = [np.log(predicted[k] / v) for k, v in measured.items()
            if v > 0 and predicted.get(k, 0) > 0]
    return float(np.mean(np.square(logs))) if logs else float("nan")


def fit_host_speed(measured_fit: dict, profile: str | None = None, nbytes: int = 256 * MiB,
                   gpus: int = 1, tol: float = 0.01) -> dict:
    """The one number a machine's host adds to the profile: how many times slower its CPU
    is than the profile's (``host_speed``; see ``umkit.sim.costs.HOST_TIMES``), fitted on the
    *fit set only* by a golden-section search of the mean squared log error over
    :data:`HOST_SPEED_SEARCH`.  The validation set is never read."""
    cache: dict = {}

    def err(h):
        h = round(float(h), 4)
        if h not in cache:
            with runtime.using("sim", gpus=max(1, min(gpus, 7)), host_speed=h,
                               **({"profile": profile} if profile else {})):
                cache[h] = _msle(measured_fit, run_workloads(nbytes))
        return cache[h]
    lo, hi = np.log(HOST_SPEED_SEARCH[0]), np.log(HOST_SPEED_SEARCH[1])
    g = (np.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    while hi - lo > tol:
        if err(np.exp(a)) < err(np.exp(b)):
            hi, b = b, a
            a = hi - g * (hi - lo)
        else:
            lo, a = a, b
            b = lo + g * (hi - lo)
    h = round(float(np.exp((lo + hi) / 2)), 3)
    if err(1.0) <= err(h):          # the profile's own host fits as well: keep it
        h = 1.0
    return dict(host_speed=h, msle=round(err(h), 5), msle_at_1=round(err(1.0), 5),
                evaluations=len(cache),
                source="fitted on this run's fit set only (golden-section search of the mean "
                       "squared log error; the validation set is not read)")


#: GPU runs take the fit set and the validation set in turns, this many rounds, and report each
#: workload's fastest round (:data:`STATISTIC`): a host that slows down for a while then weighs
#: on both sets alike, and what is compared is the machine when nothing else is using it (why:
#: docs/model-history.md, "Rounds and host speed").  sim is deterministic: once.
ROUNDS = 4
#: how the rounds are combined: "min" (the uncontended machine, as ``timeit`` advises) or
#: "median"; both are kept in the measurement
STATISTIC = "min"
#: the ways rounds can be combined (here and in ``umkit.measure.umperf.combine_tables``)
STATISTICS = {"min": np.min, "median": np.median}


def reducer(how: str):
    """The function :data:`STATISTICS` names ``how`` by; anything else is a typed error."""
    if how not in STATISTICS:
        raise InvalidArgument(f"how={how!r}: rounds are combined by one of {sorted(STATISTICS)}",
                              argument="how",
                              hint='pass how="min" (the fastest round) or how="median"')
    return STATISTICS[how]


def combine(runs: dict, how: str = STATISTIC) -> dict:
    """{name: [round values]} -> {name: one value} by ``how`` ("min" or "median")."""
    f = reducer(how)
    return {k: round(float(f(v)), 6) for k, v in runs.items()}


def in_turns(rounds: int, nbytes: int, then) -> tuple[dict, list]:
    """``rounds`` rounds, each the fit set once (:func:`run_workloads`), then ``then()``: a
    host that slows down for a while weighs on both alike.  Returns every fit workload's
    value per round, ``{name: [ms, ...]}``, and ``then()``'s result per round."""
    fit_runs: dict = {}
    outs = []
    for _ in range(rounds):
        for k, v in run_workloads(nbytes).items():
            fit_runs.setdefault(k, []).append(v)
        outs.append(then())
    return fit_runs, outs


def measure(nbytes: int = 256 * MiB, progress=None, rounds: int | None = None) -> dict:
    """Both sets on the active backend, interleaved: each round runs the fit set once, then
    every validation workload once (fresh buffers each time); per workload the fastest round
    (:data:`STATISTIC`; the medians are kept too), and every round's value in ``fit_runs`` /
    ``validation_runs``."""
    from . import validation_set as validation
    real = runtime.backend()
    if rounds is None:
        rounds = 1 if real.name == "sim" else ROUNDS
    rounds = V.integer(rounds, "rounds", lo=1, hi=100, hint="e.g. rounds=3")

    def one_validation_round() -> dict:
        raw: dict = {}
        validation.run_validation(progress, repeats=1, raw=raw)
        return raw
    fit_runs, raws = in_turns(rounds, nbytes, one_validation_round)
    val_runs: dict = {}
    for raw in raws:
        for k, v in raw.items():
            val_runs.setdefault(k, []).extend(v)
    return dict(backend=runtime.backend_name(), device=real.device_name(0),
                device_count=real.device_count(), nbytes=nbytes,
                date=_dt.date.today().isoformat(),
                fit=combine(fit_runs), fit_runs=fit_runs, fit_median=combine(fit_runs, "median"),
                validation=combine(val_runs), validation_runs=val_runs,
                validation_median=combine(val_runs, "median"),
                validation_repeats=rounds, rounds=rounds, interleaved=True, statistic=STATISTIC,
                skipped=validation.skipped(real.device_count()))


def compare(profile: str | None = None, nbytes: int = 256 * MiB, progress=None,
            measured: dict | None = None, host_speed: float | None = None) -> dict:
    """Run the fit set and the validation set on the active (real) backend, interleaved
    (:func:`measure`) -- or take ``measured`` from an earlier run's JSON -- and predict both with
    sim twice: with the profile as stored, and with this run's host speed fitted on the fit set
    (:func:`fit_host_speed`; or ``host_speed`` as given).  Per workload predicted/measured,
    counts within x/÷1.25 and x/÷1.5, and the strategy ordering pairs, fit and validation apart.
    The top-level ``fit`` / ``validation`` are the model with the fitted host; ``as_stored``
    holds the same sections for the profile alone."""
    from . import validation_set as validation
    if measured is None:
        real = runtime.backend()
        if real.name == "sim":
            raise BackendUnavailable(
                "calibrate --compare: the active backend is sim, so there is nothing to measure "
                "(comparing sim with itself would prove nothing)",
                hint="run it on a machine with a GPU (--backend cuda|hip), or pass --measured "
                     "RESULTS.json from a GPU run to re-predict those measurements")
        measured = measure(nbytes, progress)
        measured["counters"] = _counter_axis(profile, nbytes)   # the second fidelity axis
    nbytes = measured.get("nbytes", nbytes)
    gpus = measured.get("device_count", 1)
    if host_speed is None:
        host = fit_host_speed(measured["fit"], profile, nbytes, gpus)
    else:
            host = dict(host_speed=V.real(host_speed, "host_speed", lo=HOST_SPEED_SEARCH[0],
                                      hi=HOST_SPEED_SEARCH[1]), source="given by the caller")
    fruns, vruns = measured.get("fit_runs"), measured.get("validation_runs")
    groups = validation.groups()
    stored = predict(measured["validation"], profile, gpus, nbytes)
    pred = stored if host["host_speed"] == 1.0 else predict(
        measured["validation"], profile, gpus, nbytes, host_speed=host["host_speed"])
    fit = section(measured["fit"], pred["fit"], FIT_GROUPS, fruns)
    val = section(measured["validation"], pred["validation"], groups, vruns)
    as_stored = dict(fit=section(measured["fit"], stored["fit"], FIT_GROUPS, fruns),
                     validation=section(measured["validation"], stored["validation"], groups, vruns))
    return dict(date=measured.get("date"), compared=_dt.date.today().isoformat(),
                backend=measured["backend"], device=measured["device"],
                device_count=gpus, profile=pred["profile"],
                nbytes=nbytes, tolerance=TOLERANCE, tolerance_validation=TOLERANCE_VAL,
                host_speed=host["host_speed"], host=host,
                fit=fit, validation=val, as_stored=as_stored, skipped=measured.get("skipped", []),
                # kept for readers of the earlier format: the fit set
                rows=fit["rows"], within=fit["within"], total=fit["total"],
                measured=measured, predicted=pred, predicted_as_stored=stored,
                counters=measured.get("counters"))


def _counter_axis(profile, nbytes) -> dict:
    """The second fidelity axis: sim's fault and byte counts vs the driver's (umkit.measure.fidelity)."""
    from . import fidelity
    try:
        # at most 128 MiB per fault-driven phase: beyond that the driver's event queue to CUPTI
        # can overflow and lose records (umkit.backends.counters.cupti.incomplete says why)
        return fidelity.compare_counters(profile, min(nbytes, fidelity.COUNTED_BYTES))
    except Exception as e:  # noqa: BLE001 - the time axis stands on its own
        return dict(available=False, why=f"{type(e).__name__}: {e}")


def _set_line(label: str, s: dict) -> str:
    o = s["ordering"]
    return (f"{label}: {s['within']}/{s['total']} within x/÷{TOLERANCE}, "
            f"{s['within_1_5']}/{s['total']} within x/÷{TOLERANCE_VAL}; strategy ordering "
            f"{o['right']} right, {o['wrong']} wrong ({o['close']} pairs within 10% on the card, "
            f"{o.get('unsettled', 0)} its repeats do not settle)")


def summary_lines(c: dict) -> list[str]:
    """One line per set, as umkit measure report puts them into summary.md: the model with this
    run's host speed (fitted on the fit set) first, then the profile as stored."""
    out = [_set_line(f"calibrate {name}", c[name]) for name in ("fit", "validation")]
    if c.get("as_stored"):
        host = c.get("host", {})
        fitted = (f", fitted on the fit set only (fit msle {host['msle_at_1']:.4f} at 1.0 -> "
                  f"{host['msle']:.4f})") if "msle" in host else f" ({host.get('source', '')})"
        out.insert(0, f"calibrate host speed: {c['host_speed']:.3f} (this host's CPU-side "
                      f"times over the profile's){fitted}")
        out += [_set_line(f"calibrate {name} (profile as stored, host speed 1.0)",
                          c["as_stored"][name]) for name in ("fit", "validation")]
    cnt = c.get("counters") or {}
    if cnt.get("available"):
        out.append(f"calibrate counters: {cnt['within']}/{cnt['total']} byte counts within "
                   f"x/÷{cnt['tolerance']} of the driver's (CUPTI)")
    return out


def compare_table(c: dict) -> str:
    lines = [f"calibrate --compare: {c['device']} ({c['backend']}, {c['device_count']} GPU(s)) "
             f"vs sim profile {c['profile']} with this run's host speed "
             f"{c.get('host_speed', 1.0):.3f} (fitted on the fit set; the profile as stored: "
             f"the summary's last lines)"]
    for name, title in (("fit", f"FIT set (the profile is fitted to these), {c['nbytes'] >> 20} MiB"),
                        ("validation", "VALIDATION set (never used for fitting)")):
        s = c[name]
        lines += ["", title,
                  f"{'workload':<40}{'measured ms':>13}{'sim ms':>11}{'sim/real':>10}  x/÷1.25  x/÷1.5"]
        for r in s["rows"]:
            pm = r["predicted_ms"]
            lines.append(f"{r['workload']:<40}{r['measured_ms']:>13.4f}"
                         f"{(pm if pm is not None else float('nan')):>11.4f}"
                         f"{r['ratio']:>10.3f}  {'yes' if r['within'] else 'NO':>7}"
                         f"  {'yes' if r['within_1_5'] else 'NO':>6}")
        o = s["ordering"]
        lines.append(f"{s['within']}/{s['total']} within x/÷{TOLERANCE}, {s['within_1_5']}/{s['total']} "
                     f"within x/÷{TOLERANCE_VAL}; ordering pairs right {o['right']}, wrong {o['wrong']}")
        for p in o["wrong_pairs"]:
            lines.append(f"  ordering WRONG: the card has {p}")
        for p in o.get("unsettled_pairs", []):
            lines.append(f"  not counted (the card's repeats overlap): {p}")
    if c.get("skipped"):
        lines.append(f"\nskipped (need more GPUs): {', '.join(c['skipped'])}")
    if c.get("counters"):
        from . import fidelity
        lines += ["", fidelity.table(c["counters"])]
    lines += [""] + ["SUMMARY " + ln for ln in summary_lines(c)]
    return "\n".join(lines)


def check_measured(m: dict, name: str = "measured") -> dict:
    """An earlier run's raw measurements, checked before anything is predicted: ``fit`` and
    ``validation`` map workload names to times in ms (finite, > 0), the optional ``*_runs``
    map names to lists of such times, ``backend`` / ``device`` are texts, ``nbytes`` and
    ``device_count`` whole numbers in range.  A bad field is an InvalidArgument naming it."""
    hint = "pass the JSON that calibrate --compare --out wrote (benchmarks/results/*/)"

    def bad(field, why):
        return InvalidArgument(f"{name}: {field} {why}", argument=name, hint=hint)

    def time_ok(v):
        return _finite(v) and v > 0
    for key in ("backend", "device"):
        if not isinstance(m.get(key), str):
            raise bad(f"'{key}'", "is missing or not a text")
        if V.has_control(m[key]) or len(m[key]) > V.MAX_LABEL:   # printed to the terminal
            raise bad(f"'{key}'", f"= {V.shown(m[key], 80)}: a device's or backend's name, without "
                                  f"control characters, at most {V.MAX_LABEL} characters")
    for key in ("fit", "validation"):
        sect = m.get(key)
        if not isinstance(sect, dict) or not sect:
            raise bad(f"'{key}'", "is missing or not a mapping of workload -> ms")
        for w, v in sect.items():
            if V.has_control(w) or len(w) > V.MAX_LABEL:
                raise bad(f"'{key}'", f"names a workload {V.shown(w, 80)}: a workload's name, "
                                      "without control characters")
            if not time_ok(v):
                raise bad(f"{key}[{w!r}]", f"= {v!r}: a time in ms, finite and > 0")
    from .validation_set import workloads_list
    known = {w.name for w in workloads_list()}
    unknown = sorted(set(m["validation"]) - known)
    if unknown:       # sim would predict nothing for them and the comparison would drop them
        raise bad("'validation'", f"names workloads this umkit does not have: {unknown[:5]}"
                                  f"{' ...' if len(unknown) > 5 else ''}")
    for key in ("fit_runs", "validation_runs"):
        runs = m.get(key)
        if runs is None:
            continue
        if not isinstance(runs, dict):
            raise bad(f"'{key}'", "is not a mapping of workload -> list of ms")
        for w, vs in runs.items():
            if not isinstance(vs, list) or not vs or not all(time_ok(v) for v in vs):
                raise bad(f"{key}[{w!r}]", "must be a list of times in ms, finite and > 0")
    for key, lo, hi in (("nbytes", 1 << 20, 1 << 40), ("device_count", 1, 64)):
        # absent: the defaults; present, even as null, it must be a whole number in range
        if key in m and not _whole(m[key], lo, hi):
            raise bad(f"'{key}'", f"= {V.shown(m[key])}: a whole number from {lo} to {hi}")
    skipped = m.get("skipped", [])
    if not isinstance(skipped, list) or not all(
            isinstance(x, str) and not V.has_control(x) and len(x) <= V.MAX_LABEL for x in skipped):
        raise bad("'skipped'", "must be a list of workload names (no control characters)")
    _check_counters(m.get("counters"), bad)
    return m


def _finite(v) -> bool:
    """A JSON number (not a bool), finite."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _whole(v, lo: int, hi: int | None = None) -> bool:
    """A whole number from ``lo`` (to ``hi``)."""
    return V.is_int(v) and v >= lo and (hi is None or v <= hi)


def _check_counters(cnt, bad) -> None:
    """The counters axis of a measured run (what fidelity.compare_counters wrote; None where the
    run had none): the table and the summary read every one of these fields."""
    if cnt is None:
        return
    if not isinstance(cnt, dict):
        raise bad("'counters'", f"= {V.shown(cnt)}: a mapping (the counters axis) or null")
    if not cnt.get("available"):
        return
    if not _whole(cnt.get("nbytes"), 0):
        raise bad("counters['nbytes']", f"= {V.shown(cnt.get('nbytes'))}: a whole number of bytes")
    if not _finite(cnt.get("tolerance")) or cnt["tolerance"] <= 0:
        raise bad("counters['tolerance']", f"= {V.shown(cnt.get('tolerance'))}: a ratio > 0")
    rows = cnt.get("rows")
    if not isinstance(rows, list):
        raise bad("counters['rows']", "is missing or not a list of rows")
    for i, r in enumerate(rows):
        ok = (isinstance(r, dict) and isinstance(r.get("phase"), str)
              and isinstance(r.get("key"), str) and _finite(r.get("real")) and _finite(r.get("sim"))
              and "ratio" in r and (r["ratio"] is None or _finite(r["ratio"]))
              and "within" in r and (r["within"] is None or isinstance(r["within"], bool)))
        if not ok:
            raise bad(f"counters['rows'][{i}]", f"= {V.shown(r)}: phase and key texts, real and "
                      "sim numbers, ratio a number or null, within true/false/null")
    for key in ("within", "total"):
        if not _whole(cnt.get(key), 0, len(rows)):
            raise bad(f"counters[{key!r}]", f"= {V.shown(cnt.get(key))}: a whole number of rows")


def main(args) -> int:
    from ..ecg import text_progress
    b = runtime.use(args.backend, quiet=True) if args.backend else runtime.backend()
    if getattr(args, "measured", None) and not args.compare:
        raise InvalidArgument("--measured only goes with --compare",
                              hint="umkit calibrate --compare --measured RESULTS.json")
    size = args.size * MiB
    if args.compare:
        measured = None
        if getattr(args, "measured", None):
            raw = getattr(args, "measured_doc", None)
            if raw is None:
                raw = json.loads(Path(args.measured).read_text())
            measured = raw.get("measured", raw) if isinstance(raw, dict) else None
            if not isinstance(measured, dict) or "validation" not in measured:
                raise InvalidArgument(f"--measured {args.measured}: no raw measurements in it",
                                      hint="pass the JSON that calibrate --compare --out wrote")
            try:                       # bad input: one message, exit 2 (nothing was run)
                check_measured(measured, f"--measured {args.measured}")
            except InvalidArgument as e:
                print(f"umkit calibrate: {e}", file=sys.stderr)
                return 2
        elif b.name == "sim":
            print("umkit calibrate --compare: the active backend is sim -- there is nothing to "
                  "measure (comparing sim with itself would prove nothing).\n"
                  "Run it where a GPU is (--backend cuda|hip), or pass --measured RESULTS.json "
                  "from a GPU run (benchmarks/results/) to re-predict those measurements.",
                  file=sys.stderr)
            return 2
        c = compare(args.profile, size, progress=None if measured else text_progress(),
                    measured=measured, host_speed=getattr(args, "host_speed", None))
        print(compare_table(c))
        if args.out:       # kept unless --force; atomic (umkit.results.files)
            from ..results import files
            wrote = files.write(args.out, json.dumps(c, indent=1), argument="--out",
                                force=getattr(args, "force", False), flag="--force")
            print(f"wrote {V.clean(wrote)}")
        return 0
    if b.name == "sim":
        raise BackendUnavailable("umkit calibrate measures a real card; the active backend is sim",
                                 hint="run it on a machine with a GPU, or --backend cuda|hip")
    m = run_workloads(size, progress=text_progress())
    p = fit(m, size)
    out = args.out or f"umkit-profile-{b.device_name(0).replace(' ', '-').lower()}.json"
    out = write_profile(p, out, Path(out).stem, b.device_name(0),
                        f"umkit calibrate on {b.device_name(0)} ({b.name}), {_dt.date.today()}",
                        force=getattr(args, "force", False))
    print(json.dumps({k: round(v, 3) for k, v in p.items()}, indent=1))
    print(f"wrote {V.clean(out)}")
    return 0
