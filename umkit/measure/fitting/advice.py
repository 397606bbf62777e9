"""The advice stage of a profile fit: the costs of ``cudaMemAdvise`` / ``hipMemAdvise`` calls, from
the ``advice`` section of the class probe (:func:`umkit.measure.probes.classes.advice`).

The model (``umkit/sim/costs.py``, ``Profile.advise_cost``): one call costs ``advise_latency``
plus, per MiB of the range's existing pages, a rate that depends on the advice and on where the
pages are.  Read off the probe, in the model's terms:

* ``advise_latency``: the median call on ranges nothing touched yet (no pages: the driver has
  no VA blocks to walk), set and unset, minus what the simulator's host timing adds around any
  call (the manifest's ``baseline_us``);
* ``advise_read_mostly_cpu_per_mib`` / ``_gpu_per_mib``: read-mostly set on CPU- / GPU-resident
  ranges; ``advise_preferred_per_mib``: preferred location (GPU or CPU) set and unset on
  CPU-resident ranges; ``advise_accessed_by_per_mib``: accessed-by set on CPU- and GPU-resident
  ranges -- each one rate over 8, 64 and 512 MiB, by least squares of the log ratio.

Every time is divided by its lease's host speed (what ``umkit calibrate --compare`` fitted on
the same lease), so leases of different speeds pool into the times of a host of speed 1.0.
The validation workloads (``advise_*`` at 32 and 256 MiB) are never read here.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

MiB = 1 << 20
PARAMS = ("advise_latency", "advise_read_mostly_cpu_per_mib", "advise_read_mostly_gpu_per_mib",
          "advise_preferred_per_mib", "advise_accessed_by_per_mib")


def rows(files: list[tuple[Path, float]]) -> list[dict]:
    """The probe's advice rows of each (file, host speed), every time divided by the speed."""
    out = []
    for path, hs in files:
        d = json.loads(Path(path).read_text())
        section = d.get("advice") if isinstance(d, dict) else None
        if not isinstance(section, list):
            raise ValueError(f"{path}: no 'advice' rows (a class probe's advice section)")
        for r in section:
            if not (isinstance(r, dict) and {"advice", "resident", "bytes", "set_ms", "unset_ms"} <= set(r)
                    and isinstance(r["advice"], str) and isinstance(r["resident"], str)
                    and isinstance(r["bytes"], int) and not isinstance(r["bytes"], bool)
                    and r["bytes"] > 0 and all(isinstance(r[k], list) and r[k]
                                               for k in ("set_ms", "unset_ms"))
                    and all(_time(x) for x in r["set_ms"] + r["unset_ms"])):
                raise ValueError(f"{path}: an advice row needs advice, resident, bytes (a whole "
                                 "number > 0) and set_ms / unset_ms (lists of positive finite times)")
            out.append(dict(r, file=str(path), host_speed=hs,
                            set_ms=[x / hs for x in r["set_ms"]],
                            unset_ms=[x / hs for x in r["unset_ms"]]))
    if not out:
        raise ValueError("no 'advice' rows in " + ", ".join(str(p) for p, _ in files))
    return out


def _time(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def sim_baseline_us() -> float:
    """What the simulator's host timing adds around a call that costs nothing (its
    synchronizes), in us at host speed 1.0."""
    from ... import runtime
    from ..timing import host_ms
    with runtime.using("sim", compute=False):
        return host_ms(lambda: None) * 1e3


def fit_rate(points, fixed_ms):
    """The rate k (ms per MiB) minimizing sum(log((fixed + k x) / y)^2) over (x MiB, y ms)."""
    def loss(k):
        return sum(math.log((fixed_ms + k * x) / y) ** 2 for x, y in points)
    lo, hi = 0.0, max(y / x for x, y in points) * 4
    for _ in range(200):                       # golden-section search (the loss is unimodal)
        m1, m2 = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
        if loss(m1) <= loss(m2):
            hi = m2
        else:
            lo = m1
    k = (lo + hi) / 2
    return k, loss(k)


def fit(R: list[dict], baseline_us: float, statistic: str = "median") -> tuple[dict, list[str]]:
    """({parameter: value in us or us/MiB}, lines that say how well each rate fits)."""
    med = (lambda v: float(np.min(v))) if statistic == "min" else (lambda v: float(np.median(v)))  # noqa: E731 -- one line each way
    none = [med(r["set_ms"]) for r in R if r["resident"] == "none"] + \
           [med(r["unset_ms"]) for r in R if r["resident"] == "none"]
    if not none:
        raise ValueError("no advice calls on untouched ranges (resident 'none'): advise_latency "
                         "has nothing to be read off")
    latency_ms = med(none) - baseline_us * 1e-3
    if not latency_ms > 0:
        raise ValueError(f"the calls on untouched ranges took {med(none) * 1e3:.4g} us, not more "
                         f"than the baseline {baseline_us:g} us")

    def pts(adv, resident, which="set_ms"):
        return [(r["bytes"] / MiB, med(r[which])) for r in R if r["advice"] == adv
                and r["resident"] in resident]
    fits = {
        "advise_read_mostly_cpu_per_mib": pts("read_mostly", ("cpu",)),
        "advise_read_mostly_gpu_per_mib": pts("read_mostly", ("gpu",)),
        "advise_preferred_per_mib": pts("preferred_location", ("cpu",))
                                    + pts("preferred_location", ("cpu",), "unset_ms"),
        "advise_accessed_by_per_mib": pts("accessed_by", ("cpu", "gpu")),
    }
    out = {"advise_latency": latency_ms * 1e3}
    lines = [f"advise_latency = {latency_ms * 1e3:.2f} us (median of {len(none)} calls on "
             f"untouched ranges, minus {baseline_us:.4f} us)"]
    for key, p in fits.items():
        if not p:
            raise ValueError(f"no advice rows for {key}")
        k, _ = fit_rate(p, latency_ms)
        if not k > 0:
            raise ValueError(f"{key}: the calls take no longer with more MiB (rate {k:g}): the "
                             "times are not what the class probe measures")
        out[key] = k * 1e3
        worst = max(abs(math.log((latency_ms + k * x) / y)) for x, y in p)
        lines.append(f"{key} = {k * 1e3:.3f} us/MiB over {len(p)} points "
                     f"(worst ratio x/÷{math.exp(worst):.2f})")
    return out, lines
