"""Checks for notebook 00 (start here): read a profile, predict a prefetch time."""
from __future__ import annotations

import math
from numbers import Real

from . import Verdict, failed, passed, tiered

MIB = 1 << 20


def _profile(name: str):
    from ..sim.costs import load_profile
    return load_profile(name)


#: the exercise's size: not the 64 MiB of the chart above it, so the chart doesn't give it away
MIB_EXERCISE = 16


def expected_prefetch_ms(profile: str = "mi250x-xnack1", mib: int = MIB_EXERCISE) -> float:
    """What the model charges for one host->GPU prefetch of ``mib`` MiB on ``profile`` (ms)."""
    p = _profile(profile)
    return (p.prefetch_latency + mib * MIB / p.prefetch_h2d_bw) * 1e3


def _close(x: float, y: float, rel: float = 0.005) -> bool:
    return math.isclose(x, y, rel_tol=rel)


@tiered
def check_prefetch_time(ms, profile: str = "mi250x-xnack1", mib: int = MIB_EXERCISE) -> Verdict:
    """Exercise 00: the model time (ms) of one ``hipMemPrefetchAsync`` of ``mib`` MiB from the
    host to the GPU on ``profile``, computed from the profile's parameters (§3.2)."""
    if ms is None:
        return failed(f"ms is None: compute the time of a {mib} MiB host->GPU prefetch on the "
                      f"'{profile}' profile, in milliseconds")
    if isinstance(ms, bool) or not isinstance(ms, Real):
        return failed(f"ms should be a number of milliseconds, got {type(ms).__name__} {ms!r}")
    ms = float(ms)
    if not math.isfinite(ms) or ms <= 0:
        return failed(f"ms={ms!r}: a prefetch takes a positive, finite time")
    p = _profile(profile)
    nbytes = mib * MIB
    want = expected_prefetch_ms(profile, mib)
    concept = ("§3.2 as a formula: one prefetch costs a fixed per-call latency plus bytes / "
               "bandwidth, in the host->GPU direction; the profile holds SI units (s, B, B/s), "
               f"and {mib} MiB is {mib} * 2**20 bytes")
    answer = (f"ms = (p.prefetch_latency + {mib} * 2**20 / p.prefetch_h2d_bw) * 1e3 = "
              f"{want:.3f} ms")
    if _close(ms, want):
        return passed(f"{ms:.3f} ms: prefetch_latency ({p.prefetch_latency * 1e6:.1f} us) + "
                      f"{mib} MiB / prefetch_h2d_bw ({p.prefetch_h2d_bw / 1e9:.2f} GB/s) = "
                      f"{want:.3f} ms")
    # the usual slips, each with what to fix
    slips = [
        (want / 1e3, "that is the time in seconds: multiply by 1000 for milliseconds"),
        (want * 1e3, "that looks like microseconds: divide by 1000 for milliseconds"),
        (nbytes / p.prefetch_h2d_bw * 1e3,
         "you left out the fixed per-call cost: add prefetch_latency"),
        ((p.prefetch_latency + nbytes / p.prefetch_d2h_bw) * 1e3,
         "you used prefetch_d2h_bw (GPU->host); host->GPU is prefetch_h2d_bw"),
        (nbytes / p.prefetch_d2h_bw * 1e3,
         "two slips: use prefetch_h2d_bw (host->GPU) and add prefetch_latency"),
        ((p.prefetch_latency + mib * 1e6 / p.prefetch_h2d_bw) * 1e3,
         f"{mib} MiB is {mib} * 2**20 bytes, not {mib} * 10**6 (MiB vs MB)"),
        ((p.prefetch_latency + nbytes / (p.prefetch_h2d_bw / 1e9 * 2**30)) * 1e3,
         "GB/s in the profiles means 10**9 bytes per second, not 2**30"),
        ((p.prefetch_latency + nbytes / p.pinned_h2d_bw) * 1e3,
         "you used pinned_h2d_bw (an explicit hipMemcpy from pinned memory); a prefetch runs at "
         "prefetch_h2d_bw"),
        ((p.prefetch_latency + nbytes / p.fault_bw) * 1e3,
         "you used fault_bw (demand paging); a prefetch runs at prefetch_h2d_bw"),
    ]
    if mib != 64:
        slips.insert(0, (expected_prefetch_ms(profile, 64),
                         f"that is the 64 MiB bar of the chart above; the exercise asks for "
                         f"{mib} MiB, computed from the profile's parameters"))
    for value, why in slips:
        if _close(ms, value):
            return failed(f"{ms:.3f} ms: {why}", concept, answer)
    return failed(f"{ms:.3f} ms is not what the model charges (it is too "
                  f"{'long' if ms > want else 'short'})", concept, answer)
