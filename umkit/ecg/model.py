"""The memory ECG's data model (a leaf): what an ECG dict holds, its check, the flat/spiky
verdict, the heading and the text table.  The runs, the recorder, the picture and the widget all
import it; it imports only the validators (and, for the table, the message catalogue)."""
from __future__ import annotations

import contextlib
import contextvars
import unicodedata

from .. import validate as V

#: the backend an ECG read from a file that says it was not recorded is shown on
#: (``umkit.ecg.read(..., example=...)``): never a real runtime's name, so no title, table or
#: trace presents invented numbers as a card's
EXAMPLE_BACKEND = "example-not-recorded"

SPIKY = 3.0     # max/median above this ...
SPIKE_MS = 1.0  # ... and a spike at least this long (ms): the curve has spikes


#: while set (this thread's context), :func:`verdict` refuses: notebook 09's exercise asks a
#: learner to write the spike rule, and its check runs the learner's function under
#: :func:`verdict_sealed`, so the rule cannot be had by calling the verdict it is checked against
_VERDICT_SEALED: contextvars.ContextVar[str] = contextvars.ContextVar("umkit_ecg_verdict_sealed",
                                                                      default="")


def verdict_sealed(why: str):
    """A context manager: within its block (this thread's context only), :func:`verdict` raises
    :class:`~umkit.errors.UmkitError` with ``why`` (what to do instead) as its hint."""
    if not isinstance(why, str) or not why.strip():
        from ..errors import InvalidType
        raise InvalidType("why must be a non-empty string: what to do instead", argument="why")
    return _sealing(why)


@contextlib.contextmanager
def _sealing(why: str):
    token = _VERDICT_SEALED.set(why)
    try:
        yield
    finally:
        _VERDICT_SEALED.reset(token)


def verdict(step_ms, row: dict) -> str:
    """'spiky' or 'flat' for one curve and its summary row (median_ms, max_over_median): spiky
    when the worst steady step is more than SPIKY x the median *and* at least SPIKE_MS longer.
    Step 0 (warm-up) is left out, as in the summary.  The one rule for the ECG and the recorder."""
    why = _VERDICT_SEALED.get()
    if why:
        from ..errors import UmkitError
        raise UmkitError("the ECG's verdict() does not answer while this check runs your spike "
                         "finder", hint=why)
    step_ms = V.reals(step_ms, "step_ms", hint="the step times in ms, e.g. [1.2, 1.1, 9.8]")
    V.mapping(row, "row", ("median_ms", "max_over_median"),
              hint="a summary row: RunResult.summary() or an ECG's ecg['summary'][i]")
    V.real(row["median_ms"], "row['median_ms']")
    V.real(row["max_over_median"], "row['max_over_median']")
    steady = list(step_ms[1:]) if len(step_ms) > 1 else list(step_ms)
    spike = max(steady) - row["median_ms"] if steady else 0.0
    return "spiky" if row["max_over_median"] > SPIKY and spike > SPIKE_MS else "flat"


def title(ecg: dict) -> str:
    """The one-line heading of an ECG dict (the built-in workload's, or a recorded loop's)."""
    ecg = check(ecg)
    if ecg.get("title"):
        return V.clean(ecg["title"], 300)
    mib = ecg["nbytes"] >> 20 if V.is_int(ecg["nbytes"]) else ecg["nbytes"]
    return V.clean(f"memory ECG: {V.clean(ecg['steps'], 40)} steps of {V.clean(mib, 40)} MiB, "
                   f"pattern {V.clean(ecg['pattern'], 60)}, backend {V.clean(ecg['backend'], 60)}"
                   + (f" (profile {V.clean(ecg['profile'], 60)})" if ecg.get("profile") else ""),
                   400)


ECG_KEYS = ("curves", "summary")
ROW_KEYS = ("strategy", "median_ms", "p95_ms", "max_over_median", "verdict")


def check(ecg, name: str = "ecg") -> dict:
    """``ecg`` as an ECG dict (what :func:`record`, ``RecordResult.to_ecg`` or
    ``recorder.combine`` return), or a typed error naming ``name``."""
    V.label(name, "name", hint="the argument's name in the caller, e.g. 'ecg'")
    hint = "pass what umkit.ecg.record(...) or rec.result().to_ecg() returned"
    V.mapping(ecg, name, ECG_KEYS, hint=hint)
    if ecg.get("title") is not None:
        V.string(ecg["title"], f"{name}['title']", hint=hint)
    if not ecg.get("title"):
        V.mapping(ecg, name, ("steps", "nbytes", "pattern", "backend"), hint=hint)
    curves = V.mapping(ecg["curves"], f"{name}['curves']", hint=hint)
    for k, v in curves.items():
        V.reals(v, f"{name}['curves'][{V.shown(k)}]", hint=hint)
    for row in V.sequence(ecg["summary"], f"{name}['summary']", hint=hint):
        V.mapping(row, f"{name}['summary'] row", ROW_KEYS, hint=hint)
        for k in ("strategy", "verdict"):
            V.string(row[k], f"{name}['summary'] row {k}", hint=hint)
        for k in ROW_KEYS[1:4]:
            V.real(row[k], f"{name}['summary'] row {k}", hint=hint)
    return ecg


def display_width(text: str) -> int:
    """Columns ``text`` takes in a fixed-width font (a CJK character takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int, right: bool = False) -> str:
    fill = " " * max(0, width - display_width(text))
    return fill + text if right else text + fill


def table(ecg: dict) -> str:
    """The summary as a fixed-width text table, in the language umkit prints in (the numbers
    and the strategies' names stay as they are)."""
    from ..runtime.lang import tr
    ecg = check(ecg)
    lines = [tr(title(ecg)),
             _pad(tr("strategy"), 18) + _pad(tr("median ms"), 11, True) + _pad("p95 ms", 11, True)
             + _pad(tr("max/median"), 12, True) + "  " + tr("verdict")]
    for r in ecg["summary"]:
        lines.append(_pad(V.clean(r['strategy'], 60), 18)
                     + f"{float(r['median_ms']):>11.4f}{float(r['p95_ms']):>11.4f}"
                     f"{float(r['max_over_median']):>12.2f}  {V.clean(tr(r['verdict']), 40)}")
    return "\n".join(lines)
