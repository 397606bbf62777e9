"""Fit the H200 profile's advice costs on FIT data only: ``class_probe.py``'s ``advice`` section.

    python benchmarks/fit_advice.py CLASS_PROBE.json [...] [--write]

The model (``umkit/sim/costs.py``, ``Profile.advise_cost``): one call costs ``advise_latency``
plus, per MiB of the range's existing pages, a rate that depends on the advice and on where the
pages are.  Read off the probe, in the model's terms:

* ``advise_latency``: the median call on ranges nothing touched yet (no pages: the driver has
  no VA blocks to walk), set and unset, minus what sim's host timing adds around any call;
* ``advise_read_mostly_cpu_per_mib`` / ``_gpu_per_mib``: read-mostly set on CPU- / GPU-resident
  ranges; ``advise_preferred_per_mib``: preferred location (GPU or CPU) set and unset on
  CPU-resident ranges; ``advise_accessed_by_per_mib``: accessed-by set on CPU- and GPU-resident
  ranges -- each one rate over 8, 64 and 512 MiB, by least squares of the log ratio.

The validation workloads (``umkit/measure/validation_set.py``: ``advise_*`` at 32 and 256 MiB)
are never read here.
"""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PROFILE = ROOT / "umkit" / "sim" / "profiles" / "h200-pcie5.json"
MiB = 1 << 20


def rows(specs, default_speed=1.0):
    """The probe's advice rows from each ``FILE[:HOST_SPEED]``, every time divided by its lease's
    host speed (``calibrate --compare``'s fit on that lease), so leases of different speeds
    pool into the times of a host of speed 1.0."""
    out = []
    for spec in specs:
        path, _, speed = spec.partition(":")
        hs = float(speed) if speed else default_speed
        if not (hs > 0 and math.isfinite(hs)):
            raise SystemExit(f"{spec}: the host speed after ':' must be a positive number")
        d = json.loads(Path(path).read_text())
        for r in d.get("advice", []):
            out.append(dict(r, file=path, host_speed=hs,
                            set_ms=[x / hs for x in r["set_ms"]],
                            unset_ms=[x / hs for x in r["unset_ms"]]))
    return out


def sim_baseline_ms() -> float:
    """What sim's host timing adds around a call that costs nothing (its synchronizes)."""
    import umkit
    from umkit.measure.timing import host_ms
    umkit.use("sim", quiet=True, compute=False)
    return host_ms(lambda: None)


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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("probe", nargs="+", help="FILE[:HOST_SPEED]: a class_probe.py result and the "
                    "host speed calibrate --compare fitted on the same lease (default --host-speed)")
    ap.add_argument("--host-speed", type=float, default=1.0,
                    help="the host speed of probes given without one: the profile keeps "
                         "the times of a host of speed 1.0, and advice is host work")
    ap.add_argument("--statistic", choices=("min", "median"), default="median",
                    help="how a probe's fresh buffers are combined: median (default) or min, as calibrate "
                         "--compare combines its rounds (umkit.measure.calibrate.STATISTIC)")
    ap.add_argument("--write", action="store_true", help="write the fitted values into the profile")
    args = ap.parse_args(argv)
    R = rows(args.probe, args.host_speed)
    med = (lambda v: float(np.min(v))) if args.statistic == "min" \
        else (lambda v: float(np.median(v)))       # noqa: E731
    base = sim_baseline_ms()
    none = [med(r["set_ms"]) for r in R if r["resident"] == "none"] + \
           [med(r["unset_ms"]) for r in R if r["resident"] == "none"]
    latency_ms = max(0.0, med(none) - base)

    def pts(adv, resident, which="set_ms", where=None):
        return [(r["bytes"] / MiB, med(r[which])) for r in R if r["advice"] == adv
                and r["resident"] in resident and (where is None or r["where"] == where)]
    fits = {
        "advise_read_mostly_cpu_per_mib": pts("read_mostly", ("cpu",)),
        "advise_read_mostly_gpu_per_mib": pts("read_mostly", ("gpu",)),
        "advise_preferred_per_mib": pts("preferred_location", ("cpu",))
                                    + pts("preferred_location", ("cpu",), "unset_ms"),
        "advise_accessed_by_per_mib": pts("accessed_by", ("cpu", "gpu")),
    }
    files_speeds = ", ".join(sorted({f"{r['file']} at host speed {r['host_speed']}" for r in R}))
    result = {"advise_latency": (latency_ms * 1e3, None)}
    print(f"sim's host timing around a free call: {base * 1e3:.2f} us")
    print(f"advise_latency = {latency_ms * 1e3:.2f} us (median of {len(none)} calls on untouched ranges)")
    for key, p in fits.items():
        k, l = fit_rate(p, latency_ms)
        result[key] = (k * 1e3, p)
        worst = max(abs(math.log((latency_ms + k * x) / y)) for x, y in p)
        print(f"{key} = {k * 1e3:.3f} us/MiB over {len(p)} points "
              f"(worst ratio x/÷{math.exp(worst):.2f})")
    if args.write:
        d = json.loads(PROFILE.read_text())
        src = ("fitted on fit data only: benchmarks/class_probe.py 'advice' (one call's host time, "
               "set and unset, on managed ranges of 8, 64 and 512 MiB that the CPU wrote, that were "
               f"then prefetched to the GPU, or that nothing touched; 3 fresh buffers each, {args.statistic}; "
               "each lease's times divided by its host speed) by "
               "benchmarks/fit_advice.py; umkit team, lent NVIDIA H200 (PCIe Gen5 x16, CUDA 13.0), "
               f"2026-12-02 ({files_speeds}). What the driver does per call: NVIDIA open-gpu-kernel-modules "
               "kernel-open/nvidia-uvm/uvm_policy.c (commit df1c9a3de2be4b130f4fc7680f7198193d8ac6ad) "
               "-- read_duplication_set walks the range's VA blocks and calls "
               "uvm_va_block_make_resident_read_duplicate for every processor holding pages; "
               "preferred_location_set splits the range and unmaps remote mappings "
               "(preferred_location_unmap_remote_pages); accessed_by_set maps the resident pages "
               "for the named processor (uvm_va_block_set_accessed_by); a range with no VA blocks "
               "yet has nothing to walk")
        for key, (val, _) in result.items():
            d["params"][key] = {"value": round(val, 4), "unit": "us", "source": src}
        PROFILE.write_text(json.dumps(d, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {PROFILE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
