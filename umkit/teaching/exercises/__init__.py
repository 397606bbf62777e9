"""Automatic checks for the notebooks' exercises (GPU-Puzzles style: ``check()`` grades and says
what is wrong).  One module per notebook; solutions live in ``notebooks/solutions/``.

Hints come in tiers, so that a failed check does not give the answer away:

* tier 1 (always shown): *what* is wrong -- which item, which case, which number;
* tier 2 (``hint=2``): a pointer to the concept and the article section to reread;
* tier 3 (``hint=3``): the answer itself, only when you ask for it.

Every ``check_...`` function takes ``hint=`` (1, 2 or 3); a verdict also answers
``verdict.hint(2)``.  ``predict`` / ``reveal`` keep a guess and show it beside the measurement
it predicted."""
from __future__ import annotations

import functools
import html
import math
from dataclasses import dataclass, field
from numbers import Real

__all__ = ["Verdict", "passed", "failed", "tiered", "predict", "reveal", "Prediction"]

_TIER_NAMES = {2: "concept", 3: "answer"}


@dataclass
class Verdict:
    ok: bool
    message: str
    concept: str = ""          # tier 2: where to look (concept, article section)
    answer: str = ""           # tier 3: the answer
    level: int = 1             # how many tiers to show

    def __bool__(self):
        return self.ok

    def hint(self, level: int = 2) -> str:
        """The hint of tier ``level`` (2: the concept; 3: the answer)."""
        if self.ok:
            return "it passes: no hint needed"
        if level >= 3:
            return self.answer or self.concept or "no further hint for this one"
        return self.concept or "no further hint for this one: read the message again"

    def _tiers(self) -> list[tuple[str, str]]:
        out = [("", self.message)]
        if self.ok:
            return out
        if self.level >= 2 and self.concept:
            out.append(("concept", self.concept))
        if self.level >= 3 and self.answer:
            out.append(("answer", self.answer))
        return out

    def _more(self) -> str:
        if self.ok:
            return ""
        if self.level < 2 and self.concept:
            return "stuck? run the check again with hint=2 for a pointer to the concept"
        if self.level < 3 and self.answer:
            return "still stuck? hint=3 shows the answer"
        return ""

    def _repr_html_(self):
        """The verdict's line in its colour; the hint tiers below it in ordinary text, with the
        answer's line breaks and indentation kept (a copied code answer stays valid Python)."""
        color = "#2e7d32" if self.ok else "#c62828"
        mark = "&#10004;" if self.ok else "&#10008;"
        head = (f'<div style="color:{color};font-weight:600">{mark} '
                f'{html.escape(self.message, quote=False)}</div>')
        parts = [head]
        for name, text in self._tiers()[1:]:
            body = (f'<pre style="margin:2px 0 0 0;white-space:pre-wrap">{html.escape(text)}</pre>'
                    if "\n" in text else html.escape(text))
            parts.append(f'<div style="color:#222;font-weight:400;margin-top:2px">'
                         f"<b>{name}:</b> {body}</div>")
        more = self._more()
        if more:
            parts.append(f'<div style="color:#666;font-weight:400">({html.escape(more)})</div>')
        return parts[0] if len(parts) == 1 else "<div>" + "".join(parts) + "</div>"

    def __repr__(self):
        lines = [("PASS: " if self.ok else "NOT YET: ") + self.message]
        lines += [f"  {name}: {text}" for name, text in self._tiers()[1:]]
        more = self._more()
        if more:
            lines.append(f"  ({more})")
        return "\n".join(lines)


def raised(e: BaseException) -> str:
    """A learner's exception in one line: its type and the first line of its message (an
    ``assert`` with no message has none: the type alone)."""
    first = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), "")
    return f"{type(e).__name__}: {first}" if first else f"{type(e).__name__} (no message)"


def close_to(got: float, want: float, rel: float = 1e-3) -> bool:
    """``got`` within ``rel`` of ``want``; NaN and infinities are never close."""
    return math.isfinite(got) and abs(got - want) <= rel * abs(want)


def passed(message: str) -> Verdict:
    from ... import validate as V
    return Verdict(True, V.string(message, "message"))


def failed(message: str, concept: str = "", answer: str = "") -> Verdict:
    """A failed check: ``message`` says what is wrong (never the answer); ``concept`` points at
    the idea to reread; ``answer`` is shown only when the learner asks (hint=3)."""
    from ... import validate as V
    return Verdict(False, V.string(message, "message"), V.string(concept, "concept"),
                   V.string(answer, "answer"))


def tiered(check):
    """Give a check function a ``hint=`` keyword (1, 2 or 3): how many hint tiers to show."""
    from ... import validate as V
    if not callable(check):
        V.callback(check, "check")
    @functools.wraps(check)
    def wrapper(*args, hint: int = 1, **kwargs):
        if isinstance(hint, bool) or not isinstance(hint, int) or hint not in (1, 2, 3):
            return failed(f"hint={hint!r}: use hint=1 (what is wrong), 2 (the concept) or "
                          "3 (the answer)")
        v = check(*args, **kwargs)
        v.level = hint
        return v
    wrapper.tiered = True
    return wrapper


# -- predictions ----------------------------------------------------------------------------------
_PREDICTIONS: dict[str, "Prediction"] = {}


@dataclass
class Prediction:
    """A guess, kept under a name until :func:`reveal` shows it beside the measurement."""
    name: str
    guesses: dict
    unit: str = ""
    measured: dict = field(default_factory=dict)

    def _rows(self):
        rows = []
        for k in list(self.guesses) + [k for k in self.measured if k not in self.guesses]:
            g, m = self.guesses.get(k), self.measured.get(k)
            rows.append((k, _fmt(g), _fmt(m), _compare(g, m)))
        return rows

    def __repr__(self):
        if not self.measured:
            n = sum(v is not None for v in self.guesses.values())
            return (f"prediction '{self.name}' kept: {n} of {len(self.guesses)} guesses written "
                    "(reveal(...) shows them beside the measurement)")
        unit = f" ({self.unit})" if self.unit else ""
        rows = self._rows()
        w = max(len(r[0]) for r in rows)
        lines = [f"{'':<{w}}  {'your guess' + unit:>16}  {'measured' + unit:>16}  comparison"]
        lines += [f"{k:<{w}}  {g:>16}  {m:>16}  {c}" for k, g, m, c in rows]
        return "\n".join(lines)

    def _repr_html_(self):
        if not self.measured:
            return f"<pre>{html.escape(repr(self))}</pre>"
        unit = f" ({html.escape(self.unit)})" if self.unit else ""
        head = (f"<tr><th></th><th>your guess{unit}</th><th>measured{unit}</th>"
                "<th>comparison</th></tr>")
        body = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(g)}</td>"
                       f"<td>{html.escape(m)}</td><td>{html.escape(c)}</td></tr>"
                       for k, g, m, c in self._rows())
        return f"<table>{head}{body}</table>"


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, Real):
        v = float(v)
        return f"{v:.3g}" if abs(v) < 1e4 else f"{v:.3e}"
    return str(v)


def _compare(guess, measured) -> str:
    if guess is None:
        return "no guess written"
    if measured is None:
        return "not measured here"
    if isinstance(guess, Real) and isinstance(measured, Real) and not isinstance(guess, bool):
        g, m = float(guess), float(measured)
        if m == 0 or g == 0:
            return "exact" if g == m else "off (one of them is 0)"
        r = g / m
        if not math.isfinite(r):
            return "?"
        if 0.8 <= r <= 1.25:
            return "close (within 25 %)"
        return f"{r:.2g}x the measurement" if r > 1 else f"1/{1 / r:.2g} of the measurement"
    same = str(guess).strip().lower() == str(measured).strip().lower()
    return "right" if same else "different"


def predict(name: str, guesses: dict, unit: str = "") -> Prediction:
    """Keep ``guesses`` (a dict: what -> your guess, None where you have none) under ``name``,
    before you run the measurement."""
    from ... import validate as V
    V.text(name, "name", hint="a name for the prediction, e.g. predict('faults', {...})")
    if not isinstance(guesses, dict):
        from ...errors import InvalidType
        raise InvalidType(f"guesses should be a dict like {{'what': your_guess}}, got "
                          f"{type(guesses).__name__}", argument="guesses",
                          hint="write predict('name', {'what': your_guess, ...})")
    V.string(unit, "unit", hint="e.g. unit='ms'")
    p = Prediction(name, dict(guesses), unit)
    _PREDICTIONS[p.name] = p
    return p


def reveal(name_or_prediction, measured: dict) -> Prediction:
    """Show the kept prediction beside ``measured`` (a dict with the same keys)."""
    from ... import validate as V
    V.mapping(measured, "measured", hint="a dict with the prediction's keys: {'what': value}")
    p = name_or_prediction
    if not isinstance(p, Prediction):
        V.string(p, "name_or_prediction", hint="the name given to predict(...), or what it "
                                               "returned")
        p = _PREDICTIONS.get(str(p))
        if p is None:
            p = Prediction(str(name_or_prediction), {})
    p.measured = dict(measured)
    return p
