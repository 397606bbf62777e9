"""Checks for notebook 00 (start here): read a profile -- the prefetch formula as code
(check_prefetch_model, the notebook's exercise), or one number from it (check_prefetch_time)."""
from __future__ import annotations

import math
from numbers import Real

from ...errors import UmkitError
from .grading import (Exercise, Verdict, check, integer_option, load_profile, model_sealed, passed,
                     profile_option, rng_option, tiered)

MIB = 1 << 20

#: the exercise's size: not the 64 MiB of the chart above it, so the chart doesn't give it away
MIB_EXERCISE = 16


def expected_prefetch_ms(profile: str = "mi250x-xnack1", mib: int = MIB_EXERCISE) -> float:
    """What the model charges for one host->GPU prefetch of ``mib`` MiB on ``profile`` (ms)."""
    profile_option(profile)
    mib = integer_option(mib, "mib", lo=1, hi=1 << 30, hint="MiB, e.g. mib=16")
    p = load_profile(profile)
    return (p.prefetch_latency + mib * MIB / p.prefetch_h2d_bw) * 1e3


def _close(x: float, y: float, rel: float = 0.005) -> bool:
    return math.isclose(x, y, rel_tol=rel)


def _ms(x) -> float:
    try:
        return float(x)
    except OverflowError:          # an int past float range (10**400)
        return math.inf


def _slip(ms: float, slips) -> str | None:
    """Why ``ms`` is wrong, when it is one of the usual slips (value, why): the nearest of those
    within the check's tolerance (two slips of a drawn card can fall close together)."""
    near = [(abs(ms - value), i, why) for i, (value, why) in enumerate(slips) if _close(ms, value)]
    return min(near)[2] if near else None


CONCEPT = ("§3.2 as a formula: one prefetch costs a fixed per-call latency plus bytes / bandwidth, "
           "in the direction the pages move (host->GPU: prefetch_h2d_bw, GPU->host: "
           "prefetch_d2h_bw); the profile holds SI units (s, B, B/s), and a MiB is 2**20 bytes. "
           "umkit/sim/costs.py is that paragraph written as code")


# -- one number: the time of one prefetch -----------------------------------------------------------
def _time_setup(profile: str, mib: int) -> dict:
    profile_option(profile)
    mib = integer_option(mib, "mib", lo=1, hi=1 << 30, hint="MiB, e.g. mib=16")
    return dict(profile=profile, mib=mib, p=load_profile(profile),
                want=expected_prefetch_ms(profile, mib))


def _time_slips(profile: str, mib: int, p, want: float) -> list[tuple[float, str]]:
    nbytes = mib * MIB
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
    return slips


def _grade_time(ms, profile: str, mib: int, p, want: float) -> Verdict | str:
    ms = _ms(ms)
    if not math.isfinite(ms) or ms <= 0:
        return f"ms={ms!r}: a prefetch takes a positive, finite time"
    if _close(ms, want):
        return passed(f"{ms:.3f} ms: prefetch_latency ({p.prefetch_latency * 1e6:.1f} us) + "
                      f"{mib} MiB / prefetch_h2d_bw ({p.prefetch_h2d_bw / 1e9:.2f} GB/s) = "
                      f"{want:.3f} ms")
    why = _slip(ms, _time_slips(profile, mib, p, want))    # the usual slips, each with its fix
    if why:
        return f"{ms:.3f} ms: {why}"
    # not "too long" / "too short": a direction would let a number be found by halving
    return (f"{ms:.3f} ms is not what the model charges: check each term against the "
            "profile's parameters (the call's fixed cost, the bytes, the bandwidth of this "
            "direction)")


PREFETCH_TIME = Exercise(
    why_terms=('latency', 'bandwidth', 'direction', 'bytes', '延迟', '带宽', '方向', '字节'),
    name="nb00.prefetch_time", argument="ms", kind="number", concept=CONCEPT,
    answer=lambda mib, want, **_: (f"ms = (p.prefetch_latency + {mib} * 2**20 / "
                                   f"p.prefetch_h2d_bw) * 1e3 = {want:.3f} ms"),
    none="{argument} is None: compute the time of a {mib} MiB host->GPU prefetch on the '{profile}' "
         "profile, in milliseconds",
    wrong_type="{argument} should be a number of milliseconds, got {type} {value!r}",
    setup=_time_setup, grader=_grade_time)


@tiered
def check_prefetch_time(ms, profile: str = "mi250x-xnack1", mib: int = MIB_EXERCISE) -> Verdict:
    """Exercise 00: the model time (ms) of one ``hipMemPrefetchAsync`` of ``mib`` MiB from the
    host to the GPU on ``profile``, computed from the profile's parameters (§3.2)."""
    return check(PREFETCH_TIME, ms, profile=profile, mib=mib)


# -- the code exercise: the formula as a function, checked on several cards, sizes and directions ---
#: (profile, to_gpu): the cards and directions of each attempt -- AMD first (the notebook's own
#: MI250X, both ways), the H200, an estimate (MI300X) and the teaching profile.  Each attempt
#: scales every card's prefetch numbers and draws the sizes afresh (attempt_rng), so the cards
#: are variants no one can look up by name: only a formula that reads ``p`` passes.
MODEL_CARDS = (("mi250x-xnack1", True), ("mi250x-xnack1", False), ("h200-pcie5", True),
               ("h200-pcie5", False), ("mi300x", True), ("teaching", True))
#: the parameters a case scales, each by a factor drawn in [0.5, 2)
SCALED = ("prefetch_latency", "prefetch_h2d_bw", "prefetch_d2h_bw")
_MODEL_ANSWER = ("def prefetch_ms(p, mib, to_gpu=True):\n"
                "    bw = p.prefetch_h2d_bw if to_gpu else p.prefetch_d2h_bw\n"
                "    return (p.prefetch_latency + mib * 2**20 / bw) * 1e3")


def model_cases(rng=None) -> list[tuple]:
    """One attempt's cases: (profile, MiB, to_gpu, overrides) with the sizes and the scaled
    parameters drawn from ``rng`` (a ``random.Random``; default: a fresh attempt_rng)."""
    rng = rng_option(rng, "nb00.prefetch_model")
    out = []
    for name, to_gpu in MODEL_CARDS:
        p = load_profile(name).p
        ovr = {k: p[k] * rng.uniform(0.5, 2.0) for k in SCALED}
        if abs(ovr["prefetch_h2d_bw"] / ovr["prefetch_d2h_bw"] - 1) < 0.1:
            ovr["prefetch_d2h_bw"] *= 1.25       # the two directions stay told apart
        # up to 16 MiB: the fixed per-call cost stays above 1 % of the time on every card, so a
        # formula without it never passes within the check's 0.5 %
        out.append((name, rng.randrange(1, 17), to_gpu, tuple(ovr.items())))
    return out


def _card(name: str, ovr) -> object:
    return load_profile(name, **dict(ovr))


class _Params:
    """A card's parameters only (SI units), as attributes: the learner's function computes from
    them.  The card is a variant drawn for this attempt, so its name loads no profile."""

    def __init__(self, profile, base: str):
        self.__dict__.update(profile.p)
        self.name = f"{base}, scaled for this attempt"

    def __repr__(self):
        return f"<card: {self.name}>"


def _model_slips(p, mib: int, to_gpu: bool) -> list[tuple[float, str]]:
    nbytes = mib * MIB
    bw, other = ((p.prefetch_h2d_bw, p.prefetch_d2h_bw) if to_gpu else
                 (p.prefetch_d2h_bw, p.prefetch_h2d_bw))
    want = p.prefetch_cost(nbytes, to_gpu) * 1e3
    this, that = ("host->GPU", "GPU->host") if to_gpu else ("GPU->host", "host->GPU")
    return [
        (want / 1e3, "that is the time in seconds, not milliseconds"),
        (want * 1e3, "that looks like microseconds, not milliseconds"),
        (nbytes / bw * 1e3, "is every part of a prefetch's cost there? Think of what one call "
                            "costs before its first byte moves (§3.2)"),
        ((p.prefetch_latency + nbytes / other) * 1e3,
         f"the model charges {want:.4g} ms for this call (§3.2)"),
        (nbytes / other * 1e3, "two parts do not fit: what one call costs before its first byte "
                               "moves, and what sets how fast its pages move (§3.2)"),
        ((p.prefetch_latency + mib * 1e6 / bw) * 1e3, f"{mib} MiB is not {mib} * 10**6 bytes"),
        ((p.prefetch_latency + nbytes / (bw / 1e9 * 2**30)) * 1e3,
         "the profiles' bandwidths are in bytes per second already (GB/s = 10**9 B/s)"),
        ((p.prefetch_latency + nbytes / p.pinned_h2d_bw) * 1e3,
         "that bandwidth is not a prefetch's: which mechanism moves the pages of a prefetch?"),
        ((p.prefetch_latency + nbytes / p.fault_bw) * 1e3,
         "that bandwidth is not a prefetch's: which mechanism moves the pages of a prefetch?"),
    ]


def _judge_model(got, want: float, name: str, mib: int, to_gpu: bool, ovr, call: str) -> str | None:
    if got is None:      # the stub: one message whatever this attempt drew
        return "prefetch_ms returned None: replace `return None` with your formula"
    if isinstance(got, bool) or not isinstance(got, Real):
        return f"{call} returned {got!r}; return a number of milliseconds"
    got = _ms(got)
    if not math.isfinite(got) or got <= 0:
        return f"{call} returned {got!r}: a prefetch takes a positive, finite time"
    if _close(got, want):
        return None
    why = _slip(got, _model_slips(_card(name, ovr), mib, to_gpu))
    if why:
        return f"{call} returned {got:.4g} ms: {why}"
    # no "too long" / "too short" here either: each term is for the learner to check
    return (f"{call} returned {got:.4g} ms, which is not what the model charges: check each term "
            "(the fixed cost per call, the bytes, the bandwidth of this direction)")


def _model_passed(fn) -> str:
    p = load_profile("mi250x-xnack1")
    return (f"your formula is the model's on {len(MODEL_CARDS)} cards drawn for this attempt, "
            "both directions: on "
            f"the MI250X 16 MiB take {p.prefetch_cost(16 * MIB, True) * 1e3:.2f} ms to "
            f"the GPU and {p.prefetch_cost(16 * MIB, False) * 1e3:.2f} ms back -- "
            "latency + bytes / bandwidth, the direction decides the bandwidth (§3.2)")


PREFETCH_MODEL = Exercise(
    why_terms=('latency', 'bandwidth', 'direction', 'bytes', 'per call', '延迟', '带宽', '方向', '字节'),
    name="nb00.prefetch_model", argument="prefetch_ms", kind="function", concept=CONCEPT,
    answer=_MODEL_ANSWER,
    none="{argument} is None: write def prefetch_ms(p, mib, to_gpu=True): ... and return "
         "milliseconds",
    wrong_type="{argument} should be a function (p, mib, to_gpu), got {type}",
    cases=lambda **_: model_cases(), call="prefetch_ms(<{0}, scaled>, {1}, to_gpu={2})",
    arguments=lambda name, mib, to_gpu, ovr: ((_Params(_card(name, ovr), name), mib),
                                              {"to_gpu": to_gpu}),
    reference=lambda name, mib, to_gpu, ovr: _card(name, ovr).prefetch_cost(mib * MIB, to_gpu) * 1e3,
    judge=_judge_model,
    raised=((AttributeError, "{call} raised AttributeError: {exception} -- compute from the "
                             "profile's parameters (prefetch_latency, prefetch_h2d_bw, "
                             "prefetch_d2h_bw, ...), not with the model's own methods"),
            (UmkitError, "{call} called umkit and got {type} -- compute from the profile's "
                         "parameters (prefetch_latency, prefetch_h2d_bw, prefetch_d2h_bw, ...), not "
                         "with the model's own methods or a simulator run"),
            (Exception, "{call} raised {type}: {exception}")),
    passed=_model_passed)
#: what the sealed model says to a formula that calls it
_SEAL_WHY = "write the formula from p's parameters: latency + bytes / bandwidth of the direction"


@tiered
def check_prefetch_model(fn) -> Verdict:
    """Exercise 00 (code): ``fn(p, mib, to_gpu=True)`` returns the model time in milliseconds of
    one ``hipMemPrefetchAsync`` of ``mib`` MiB on the card whose parameters ``p`` holds (SI units:
    ``p.prefetch_latency`` in s, ``p.prefetch_h2d_bw`` / ``p.prefetch_d2h_bw`` in B/s), host->GPU
    when ``to_gpu`` else GPU->host.  Checked on the cards of :data:`MODEL_CARDS`, each scaled and
    with sizes drawn afresh for the attempt (:func:`model_cases`), against the simulator's own
    cost model of that variant.  While ``fn`` runs, the model's prefetch cost methods do not
    answer (:func:`~umkit.teaching.exercises.grading.model_sealed`)."""
    return check(PREFETCH_MODEL, model_sealed(fn, _SEAL_WHY))
