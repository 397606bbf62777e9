"""The second fidelity axis of ``umkit calibrate --compare``: does sim count what the driver
counts?  The same fault-driven sequence runs on the real card with hardware counters on
(CUPTI on cuda) and on sim; fault and byte counts are compared key by key.

Keys compared are the ones both sides define with the same meaning (see
:mod:`umkit.backends.counters.cupti` for CUPTI's): bytes each way, prefetch bytes, GPU and CPU faults.
Byte counts should agree closely (the same pages move); fault *counts* depend on how the
driver groups faults, which sim models with one number (``fault_granularity``), so they are
shown with their ratio rather than judged by the same tolerance.
"""
from __future__ import annotations

from .. import api
from ..workloads import counter_delta
from .. import runtime
from ..backends.counters import incomplete
from ..errors import BackendUnavailable

MiB = 1 << 20
BYTE_KEYS = ("bytes_h2d", "bytes_d2h", "prefetch_bytes_h2d", "prefetch_bytes_d2h")
FAULT_KEYS = ("gpu_faults", "cpu_faults")
BYTE_TOLERANCE = 1.10          # bytes moved: within x/÷1.10
#: one fault-driven phase moves at most this much: a bigger burst can overflow the driver's
#: event queue to CUPTI (see :func:`umkit.backends.counters.cupti.incomplete`; H200: 64/128 MiB counted
#: right 12 of 12 times, 256 MiB 5 of 15)
COUNTED_BYTES = 64 * MiB


def settled_counters() -> dict:
    """Counters once the driver's last records of the phase have reached CUPTI (the driver
    reports migrations from a work queue, after the synchronize)."""
    import time
    api.counters()
    time.sleep(0.2)
    return api.counters()


def sequence(nbytes: int = COUNTED_BYTES) -> dict:
    """CPU writes a managed array; a GPU kernel reads all of it (fault-driven); prefetch to
    the CPU; prefetch to the GPU; the CPU reads one float per 4 KiB page.  Counter deltas of
    each phase, on the active backend (which must be counting)."""
    out = {}
    sink = api.device_array(1)
    a = api.managed(nbytes // 4)
    try:
        a.host[:] = 1.0
        api.synchronize()
        c0 = settled_counters()
        api.touch(a, 4, sink=sink)
        api.synchronize()
        c1 = settled_counters()
        a.prefetch("cpu")
        api.synchronize()
        c2 = settled_counters()
        a.prefetch("gpu")
        api.synchronize()
        c3 = settled_counters()
        float(a.host[:: 4096 // 4].sum())
        c4 = settled_counters()
        out = {"gpu_read": counter_delta(c0, c1), "prefetch_to_cpu": counter_delta(c1, c2),
               "prefetch_to_gpu": counter_delta(c2, c3), "cpu_read_strided": counter_delta(c3, c4)}
        lost = [f"{k}: {why}" for k, d in out.items() if (why := incomplete(d))]
        if lost:                  # a list, not a phase: counter_fidelity skips it
            out["incomplete"] = lost
    finally:
        a.free()
        sink.free()
    return out


def counter_fidelity(sim: dict, real: dict) -> list[dict]:
    """Rows (phase, key, sim, real, sim/real, within) for the keys both sides count."""
    rows = []
    for phase, r in real.items():
        if not isinstance(r, dict):
            continue
        s = sim.get(phase, {})
        for k in BYTE_KEYS + FAULT_KEYS:
            rv, sv = int(r.get(k, 0)), int(s.get(k, 0))
            if rv == 0 and sv == 0:
                continue
            ratio = sv / rv if rv else float("inf")
            within = (1 / BYTE_TOLERANCE <= ratio <= BYTE_TOLERANCE) if k in BYTE_KEYS else None
            rows.append(dict(phase=phase, key=k, sim=sv, real=rv,
                             ratio=round(ratio, 3) if rv else None, within=within))
    return rows


def compare_counters(profile: str | None = None, nbytes: int = COUNTED_BYTES) -> dict:
    """Run :func:`sequence` on the active real backend with its counters on, then on sim."""
    b = runtime.backend()
    if b.supports("model_time"):
        return dict(available=False, why="the active backend is sim (nothing to compare with)")
    try:
        api.counters_on()
    except BackendUnavailable as e:
        return dict(available=False, why=str(e))
    try:
        real = sequence(nbytes)
    finally:
        api.counters_off()
    with runtime.using("sim", **({"profile": profile} if profile else {})):
        sim = sequence(nbytes)
    rows = counter_fidelity(sim, real)
    judged = [r for r in rows if r["within"] is not None]
    return dict(available=True, nbytes=nbytes, tolerance=BYTE_TOLERANCE, real=real, sim=sim,
                rows=rows, within=sum(bool(r["within"]) for r in judged), total=len(judged))


def table(c: dict) -> str:
    if not c.get("available"):
        return f"counters: not compared ({c.get('why')})"
    lines = [f"counters (second axis): sim vs the driver's counts, {c['nbytes'] >> 20} MiB",
             f"{'phase':<18}{'counter':<20}{'real':>14}{'sim':>14}{'sim/real':>10}"]
    for r in c["rows"]:
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.3f}"
        mark = "" if r["within"] is None else ("  yes" if r["within"] else "  NO")
        lines.append(f"{r['phase']:<18}{r['key']:<20}{r['real']:>14}{r['sim']:>14}{ratio:>10}{mark}")
    lines.append(f"{c['within']}/{c['total']} byte counts within x/÷{c['tolerance']} "
                 "(fault counts shown, not judged: the driver groups faults its own way)")
    return "\n".join(lines)
