"""The exercises' grading: one generic ``check()`` (GPU-Puzzles style: it grades and says what is
wrong), the verdicts and their hint tiers, the attempts budget, and predict / reveal.  One module
per notebook holds its exercises (:mod:`.nb00` ...); solutions live in ``notebooks/solutions/``.

An exercise is data -- an :class:`Exercise`: the argument it takes, its kind (a function, a
number, labels, ...), its cases and reference or its grader, the concept to reread and the
answer -- and one generic :func:`check` grades any of them.  The preamble every check needs
(no answer yet, an answer of the wrong kind, the learner's code raising) lives there, once;
a notebook module holds its exercises' data, the graders that run an experiment, and thin
``check_...`` functions the notebooks call::

    TRANSITIONS = Exercise(
        name="nb01.transitions", argument="transitions", kind="function",
        concept="§3.2: ...", answer="def transitions(n_faults, batch_max): ...",
        none="{argument} is None: write def transitions(n_faults, batch_max): ...",
        wrong_type="{argument} should be a function, got {type}",
        cases=((16384, 256), (0, 256)), call="transitions({0}, {1})",
        reference=lambda n, b: -(-n // b), judge=_judge_trips, passed="ceil(n / batch_max) ...")

    @tiered
    def check_transitions(fn) -> Verdict:
        return check(TRANSITIONS, fn)

The exercise modules import only ``umkit`` and this module: what they need of the kit's
internals (a sim profile by name, the argument checks) comes through the helpers at the end.

Hints come in tiers, so that a failed check does not give the answer away:

* tier 1 (always shown): *what* is wrong -- which case, which number; for a set of labels only
  that the set is not right yet (never which item, nor how many: either lets a loop flip items
  one at a time until it passes);
* tier 2 (``hint=2``): a pointer to the concept and the article section to reread (for labels:
  the questions to ask of *every* item, as a reflection that points at none);
* tier 3 (``hint=3``): the answer itself, only when you ask for it -- and the verdict then says
  the answer was shown (a later pass of the same exercise says so too).  Below hint=3 a verdict's
  ``answer`` is empty (``has_answer`` says one exists); ``verdict.hint(3)`` shows it and is
  recorded the same way.

Every ``check_...`` function takes ``hint=`` (1, 2 or 3); a verdict also answers
``verdict.hint(2)``.  ``predict`` / ``reveal`` keep a guess and show it beside the measurement
it predicted; ``reveal`` titles that column "model (PROFILE)" on the simulator and
"measured (DEVICE)" on a real GPU.

Reasons: **a pass needs the learner's reason** -- ``check_...(answer, why="...")``, one
sentence in their own words of why the answer is right.  A right answer without one is not passed
yet: the verdict says the answer works and asks for the reason.  A reason has at least
:data:`WHY_WORDS` words (a Chinese character counts half a word), is written in words, is not one
given before for that exercise (nor one that differs from it by a number or a word), and is not
text the exercise showed pasted back (its concept, its answer, its prompt, the last verdict); a
call with a reason that is none of these is not graded.  The reason is not graded for its
content: a test of keywords refused most honest reasons and accepted a sentence stuffed with the
course's words, so it is a step of reflection, kept for the presenter (:func:`reasons`), not a
proof of understanding.  Wrong tries: each exercise grades :data:`ATTEMPTS` (8) wrong tries
without a reason in a process; after that, every try needs a new reason, and without one the
check says to re-read the concept (``hint=2``) first; and each wrong try past the budget makes the
next one wait (:func:`wait_after`: 5 s, doubled at each wrong try, at most 5 minutes; a try
before the wait ends is not graded and not counted), so that a loop of guesses, each with a
made-up reason, takes hours.  A pass resets the count and the wait; the stub (None) and
answers of the wrong kind do not count.  With the budget on, this record -- wrong tries, the
wait, the reasons, a shown answer -- is kept in a file (:mod:`.record`: in the learner's home), so
that a kernel restart or another notebook's kernel continues it rather than starting afresh.
``UMKIT_EXERCISE_ATTEMPTS`` sets the budget, read once when the exercises are imported (0: no budget and no reasons asked, as the project's tests of the
graders run, set before Python starts; a later change of the variable does nothing).
:func:`forget` keeps the tries spent and a shown answer: neither it nor a kernel restart forgets
them.
``why_terms`` name each exercise's ideas (:func:`on_topic` tells whether a reason uses one): a
presenter reading the reasons may use them; the check does not.

Data that changes per attempt (so that a formula or a constant return cannot pass):
:func:`check` makes one ``random.Random`` per check call (:func:`attempt_rng` of the exercise,
from a seed it keeps: :func:`last_seed`); ``UMKIT_EXERCISE_SEED`` fixes the sequence for a
reproducible run.  Every draw of the check -- its setup, its grader, NumPy's generators -- comes
from that one generator (:func:`check_rng`, :func:`rng_option` with no ``rng``, or
:func:`check_seed` for NumPy), and the grader calls the learner's code on what it drew::

    def _grade(fn):
        rng = rng_option(None, "nb00.prefetch")       # the check's generator
        mib = rng.choice((48, 96, 160)) + rng.randrange(1, 16)
        ..."""
from __future__ import annotations

import contextlib
import functools
import hashlib
import html
import math
import os
import random
import re
import secrets
import string
import threading
import time
import unicodedata
from dataclasses import dataclass, field
from numbers import Real
from typing import Any, Callable

from . import record as _record

__all__ = ["Verdict", "passed", "failed", "tiered", "predict", "reveal", "Prediction",
           "attempt_rng", "opening_rng", "last_seed", "check_rng", "check_seed", "column_title",
           "reasons", "attempts_budget", "wait_after", "why_words", "pasted", "on_topic", "forget"]

_TIER_NAMES = {2: "concept", 3: "answer"}


def _marks() -> tuple[str, str, str]:
    """The brackets and the colon of a verdict's extra lines in the learner's language: full
    width in Chinese (（…）, ：), ASCII otherwise."""
    from ...runtime.lang import language
    return ("（", "）", "：") if language() == "zh" else ("(", ")", ": ")


def _t(text: str) -> str:
    """``text`` in the learner's language (umkit.runtime.lang); a labels answer's lines, joined
    by " | ", one by one."""
    from ...runtime.lang import tr
    out = tr(text)
    if out == text and isinstance(text, str) and " | " in text:
        out = " | ".join(tr(part) for part in text.split(" | "))
    return out


@dataclass
class Verdict:
    ok: bool
    message: str
    concept: str = ""          # tier 2: where to look (concept, article section)
    answer: str = ""           # tier 3: the answer
    level: int = 1             # how many tiers to show
    exercise: str = ""         # the exercise's name (set by check): remembers a shown answer
    shown_before: bool = False  # a pass after this exercise's answer was shown (hint=3)
    forget_asked: int = 0       # a pass after forget() was asked for the exercise: how often
    reason_asked: bool = False  # a right answer that came without the reason a pass needs
    one_more: bool = False      # a right set after a wrong one: the next set must be right too
    not_counted: bool = False   # a set answered in the wrong form (items not in the open set, an
                                # item left out, a value that is no label): not graded, no wrong try
    # the answer while the verdict shows fewer than three tiers: ``answer`` stays empty until
    # hint=3 (or ``hint(3)``) shows it, and that is recorded
    _held: str = field(default="", repr=False, compare=False)

    @property
    def has_answer(self) -> bool:
        """An answer exists for this verdict (shown or held back until hint=3)."""
        return bool(self.answer or self._held)

    def _hold_answer(self) -> None:
        """Keep the answer back (tiers 1 and 2); give it at tier 3."""
        if self.ok:
            self._held = self.answer = ""
        elif self.level < 3 and self.answer:
            self._held, self.answer = self.answer, ""
        elif self.level >= 3 and not self.answer and self._held:
            self.answer, self._held = self._held, ""

    def __bool__(self):
        return self.ok

    def hint(self, level: int = 2) -> str:
        """The hint of tier ``level`` (2: the concept; 3: the answer)."""
        if self.ok:
            return _t("it passes: no hint needed")
        if level >= 3:
            answer = self.answer or self._held
            if answer and self.exercise:
                _mark_shown(self.exercise)  # as check(..., hint=3): a later pass says so
            return _t(answer or self.concept or "no further hint for this one")
        return _t(self.concept or "no further hint for this one: read the message again")

    def _tiers(self) -> list[tuple[str, str]]:
        out = [("", _t(self.message))]
        if self.ok:
            return out
        if self.level >= 2 and self.concept:
            out.append((_t("concept"), _t(self.concept)))
        if self.level >= 3 and self.answer:
            out.append((_t("answer"), _t(self.answer)))
        return out

    @property
    def answer_shown(self) -> bool:
        """This verdict shows the answer (a failed check run with hint=3)."""
        return not self.ok and self.level >= 3 and bool(self.answer)

    def _more(self) -> str:
        if self.ok:
            notes = []
            if self.shown_before:
                notes.append(_t("the answer of this exercise was shown earlier (hint=3): passing "
                                "after reading it is not the same as finding it"))
            if self.forget_asked:
                notes.append(_t(f"forget() was asked {self.forget_asked} time(s) for this "
                                "exercise: its tries and any shown answer were kept"))
            return "; ".join(notes)
        if self.answer_shown:
            return _t("the answer was shown (hint=3): close it, write the answer in your own "
                      "code and say why it is right before you run the check again")
        if self.reason_asked or self.one_more:   # the answer works: nothing to be stuck on
            return ""
        if self.level < 2 and self.concept:
            return _t("stuck? run the check again with hint=2 for a pointer to the concept")
        if self.level < 3 and self.has_answer:
            return _t("still stuck? hint=3 shows the answer")
        return ""

    def _repr_html_(self):
        """The verdict's line in its colour; the hint tiers below it in ordinary text, with the
        answer's line breaks and indentation kept (a copied code answer stays valid Python)."""
        # a right answer still waiting for its reason is not shown as wrong: amber, a pencil
        waiting = self.reason_asked or self.one_more
        color = "#2e7d32" if self.ok else "#b26a00" if waiting else "#c62828"
        mark = "&#10004;" if self.ok else "&#9998;" if waiting else "&#10008;"
        head = (f'<div style="color:{color};font-weight:600">{mark} '
                f'{html.escape(_t(self.message), quote=False)}</div>')
        parts = [head]
        left, right, colon = _marks()
        label_end, gap = colon.rstrip(), colon[len(colon.rstrip()):]     # ":" and " ", or "："
        for name, text in self._tiers()[1:]:
            body = (f'<pre style="margin:2px 0 0 0;white-space:pre-wrap">{html.escape(text)}</pre>'
                    if "\n" in text else html.escape(text))
            parts.append(f'<div style="color:#222;font-weight:400;margin-top:2px">'
                         f"<b>{name}{label_end}</b>{gap}{body}</div>")
        more = self._more()
        if more:
            parts.append(f'<div style="color:#666;font-weight:400">{left}{html.escape(more)}{right}</div>')
        return parts[0] if len(parts) == 1 else "<div>" + "".join(parts) + "</div>"

    def __repr__(self):
        # a right answer still owed its reason, or a right set owing the next: not a wrong one
        head = "PASS: " if self.ok else "ALMOST: " if (self.reason_asked or self.one_more) else "NOT YET: "
        lines = [_t(head) + _t(self.message)]
        left, right, colon = _marks()
        lines += [f"  {name}{colon}{text}" for name, text in self._tiers()[1:]]
        more = self._more()
        if more:
            lines.append(f"  {left}{more}{right}")
        return _printable("\n".join(lines))


def _printable(text: str) -> str:
    """``text`` with its control characters escaped, line breaks and tabs kept (a message a
    check was given, an escape code in it, is shown, not obeyed by the terminal)."""
    from ... import validate as V
    return V.printable(text)


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


def _hint_refusal(hint) -> Verdict | None:
    if isinstance(hint, bool) or not isinstance(hint, int) or hint not in (1, 2, 3):
        return failed(f"hint={hint!r}: use hint=1 (what is wrong), 2 (the concept) or "
                      "3 (the answer)")
    return None


_SHOWN: set[str] = set()      # exercises whose answer a hint=3 verdict has shown (this process)
_SHOWN_LOCK = threading.Lock()


def _mark_shown(name: str) -> None:
    """Exercise ``name``'s answer was shown: remembered in the process and, the first time, in
    the learner's record (a later pass, in this kernel or a restarted one, says so)."""
    with _SHOWN_LOCK:
        first = name not in _SHOWN
        _SHOWN.add(name)
    if first:
        with _TRIES_LOCK:
            _change(name, lambda e: e.update(shown=True))


def _finish(v: Verdict, hint: int) -> Verdict:
    """Set the verdict's tiers; remember a shown answer, and say so on a later pass."""
    v.level = hint
    v._hold_answer()
    if v.exercise:
        if v.answer_shown:
            _mark_shown(v.exercise)
        elif v.ok:
            with _SHOWN_LOCK:
                v.shown_before = v.exercise in _SHOWN
        with _TRIES_LOCK:
            if v.ok:
                v.forget_asked = _FORGET_CALLS.get(v.exercise, 0)
    return v


def tiered(check):
    """Give a check function a ``hint=`` keyword (1, 2 or 3): how many hint tiers to show."""
    from ... import validate as V
    if not callable(check):
        V.callback(check, "check")
    @functools.wraps(check)
    def wrapper(*args, hint: int = 1, why: str | None = None, **kwargs):
        refusal = _hint_refusal(hint)
        if refusal is not None:
            return refusal
        outer = getattr(_CALL, "why", None), getattr(_CALL, "doc", "")
        _CALL.why = why                   # check(...) inside reads it: the attempts budget
        _CALL.doc = check.__doc__ or ""   # the exercise's prompt: a reason pasted from it is refused
        try:
            v = check(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - a check always returns a verdict
            v = ungradable(e)
        finally:
            _CALL.why, _CALL.doc = outer
        if not isinstance(v, Verdict):
            v = failed(f"the check could not grade this answer (it gave {type(v).__name__}, "
                       "not a verdict)")
        return _finish(v, hint)
    wrapper.tiered = True
    return wrapper


def ungradable(error: BaseException) -> Verdict:
    """The verdict when grading itself failed on what the learner gave (an object whose every
    operation raises, NaN where a count was due, an array the learner's code freed under the
    check, the backend switched mid-check): a check always answers with a verdict."""
    from ...errors import UseAfterFree
    if isinstance(error, UseAfterFree):
        return failed("your code freed an array the check gave it, or used one after freeing "
                      f"it ({raised(error)}): free only what your own code allocated",
                      "§3.1: an array is freed once, by whoever allocated it")
    if isinstance(error, RecursionError):
        return failed("your code recursed without end (RecursionError): what calls itself?")
    return failed("the check could not use what your code gave back "
                  f"({raised(error)}): return the kind of value the exercise asks for")


# -- the attempts budget ---------------------------------------------------------------------------
#: wrong tries an exercise grades without a reason, per process (UMKIT_EXERCISE_ATTEMPTS overrides;
#: 0 turns the budget, and the reason a pass needs, off)
ATTEMPTS = 8
#: the fewest words a reason (why=) has
WHY_WORDS = 6
#: seconds a learner waits after the first wrong try past the budget; each further wrong try
#: doubles it, up to :data:`WAIT_MAX` (a pass ends the wait): a few seconds for a person who
#: thinks between tries, hours for a loop that tries every answer
WAIT_FIRST = 5.0
WAIT_MAX = 300.0
#: the clock of the waits: wall time, so that a wait kept in the record (:mod:`.record`) holds in
#: a restarted kernel too (the tests of the waits give their own)
_clock = time.time
_TRIES: dict[str, dict] = {}        # exercise -> {"wrong": n, "reasons": [...]}
_TRIES_LOCK = threading.Lock()
_CALL = threading.local()           # the why= of the check call in progress (set by tiered)


def _tries_of(name: str) -> dict:
    """Exercise ``name``'s entry in :data:`_TRIES`, made on first use (hold ``_TRIES_LOCK``)."""
    return _TRIES.setdefault(name, {"wrong": 0, "reasons": []})


def _adopt(name: str, st: dict, entry: dict) -> None:
    """Take a record entry (wrong, until, owed, shown, reasons) into the process's ``st``; the
    process keeps every reason it has seen (the record keeps the newest)."""
    st["wrong"], st["owed"], st["until"] = entry["wrong"], entry["owed"], entry["until"]
    known = st.setdefault("reasons", [])
    known.extend(r for r in entry["reasons"] if r not in known)
    if entry["shown"]:
        with _SHOWN_LOCK:
            _SHOWN.add(name)


def _pull(name: str) -> dict:
    """Exercise ``name``'s entry, brought up to date from the learner's record (:mod:`.record`)
    where the budget is on and the record is kept; hold ``_TRIES_LOCK``."""
    st = _tries_of(name)
    if not attempts_budget():
        return st
    entry = _record.load(name)
    if entry:
        now = _clock()
        if entry["until"] > now + WAIT_MAX:
            # a wait never ends later than WAIT_MAX from when it is found so (a clock set back,
            # a record edited): cut once, in the record too, so that it does end
            entry = (_record.update(name, lambda e: e.update(until=now + WAIT_MAX), now)
                     or dict(entry, until=now + WAIT_MAX))
        _adopt(name, st, entry)
    return st


def _change(name: str, change) -> dict:
    """Apply ``change`` (a function that edits an entry dict of wrong, until, owed, shown and
    reasons in place) to exercise ``name``: to the record's current entry where the budget is on
    and the record is kept (so kernels trying at once each count), else to the process's; returns
    the process's entry.  Hold ``_TRIES_LOCK``."""
    st = _tries_of(name)
    entry = _record.update(name, change, _clock()) if attempts_budget() else None
    if entry is None:
        with _SHOWN_LOCK:
            shown = name in _SHOWN
        entry = {"wrong": st.get("wrong", 0), "until": st.get("until", 0.0),
                 "owed": st.get("owed", 0), "shown": shown, "reasons": list(st["reasons"])}
        change(entry)
        st["reasons"] = entry["reasons"]
    _adopt(name, st, entry)
    return st


def _budget_from_environment() -> int:
    """UMKIT_EXERCISE_ATTEMPTS as the process found it when this package was imported: a
    positive whole number sets the budget; "0" turns it off (a test run, set before Python
    starts); anything else (empty, negative, not a number) leaves :data:`ATTEMPTS`."""
    raw = os.environ.get("UMKIT_EXERCISE_ATTEMPTS", "").strip()
    return int(raw) if raw.isdigit() else ATTEMPTS


#: read once, at import: setting the variable later in the session changes nothing
_BUDGET = _budget_from_environment()


def attempts_budget() -> int:
    """How many wrong tries an exercise grades before it asks for a reason (0: no budget).  Read
    from UMKIT_EXERCISE_ATTEMPTS once, when the exercises are first imported: a change of the
    variable while the kernel runs does not change it."""
    return _BUDGET


def owe_one_more(name: str) -> None:
    """A set of exercise ``name`` was answered wrong: with the attempts budget on, the next right
    set passes only if the set drawn after it is right too (two in a row), so that an answer given
    blindly -- one label everywhere, one guess kept while the sets are redrawn -- passes only by
    two lucky draws in a row.  Off with the budget (the project's tests of the graders)."""
    text_option(name, "name", hint="the exercise's name, e.g. 'nb09.diagnosis'")
    if attempts_budget():
        with _TRIES_LOCK:
            _change(name, lambda e: e.update(owed=1))


def settle_one_more(name: str) -> bool:
    """A set of exercise ``name`` was answered right: True when one more right set is owed (an
    earlier set was wrong; the debt is paid by this call), False when the set passes."""
    text_option(name, "name", hint="the exercise's name, e.g. 'nb09.diagnosis'")
    with _TRIES_LOCK:
        st = _pull(name) if attempts_budget() else _TRIES.get(name)
        if not st or not st.get("owed"):
            return False
        _change(name, lambda e: e.update(owed=0))
        return True


def one_more(concept: str, answer: str) -> Verdict:
    """The verdict of a right set that must be followed by one more (see :func:`owe_one_more`):
    ``concept`` and ``answer`` are the exercise's (the answer of the set now open)."""
    text_option(concept, "concept", hint="the exercise's concept, a sentence")
    text_option(answer, "answer", hint="the answer of the set now open, a text")
    v = failed(_say("right -- but an earlier set was wrong, so one more set must be right in a "
                    "row. A new set is drawn: print it again and answer it"), concept, answer)
    v.one_more = True
    return v


def reasons(name: str) -> list[str]:
    """The reasons (``why=``) given for exercise ``name`` in this process, oldest first."""
    text_option(name, "name", hint="the exercise's name, e.g. 'nb01.transitions'")
    with _TRIES_LOCK:
        return list(_TRIES.get(name, {}).get("reasons", ()))


_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_SHINGLE = 12          # characters: a reason sharing most of its 12-character runs was pasted


def why_words(text: str) -> int:
    """How many words a reason holds: its space-separated words, a Chinese character counting
    as half a word (Chinese is written without spaces)."""
    from ... import validate as V
    text = V.string(text, "text", hint="a reason, as text")
    latin = _CJK.sub(" ", text).split()
    return len(latin) + len(_CJK.findall(text)) // 2


def _plain(text: str) -> str:
    """``text`` lower-cased, with punctuation and spaces left out (for comparing pasted text)."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", str(text)).lower() if ch.isalnum())


def _texts_option(reason, texts, name: str) -> str:
    """``reason`` (a string) and ``texts`` (a list or tuple of strings) checked: a typed error
    naming the argument otherwise.  Returns ``reason``."""
    from ... import validate as V
    V.string(reason, "reason", hint="the learner's reason, as text")
    for t in V.sequence(texts, name, hint=f"{name}: a list of strings"):
        if not isinstance(t, str):
            raise V.InvalidType(f"{name} holds {V.shown(t)}: not a string", argument=name,
                                hint=f"{name}: a list of strings")
    return reason


def pasted(reason: str, sources) -> bool:
    """``reason`` is mostly text the learner was shown (``sources``): half or more of its
    12-character runs (punctuation and spaces left out) occur in one of them."""
    reason = _texts_option(reason, sources, "sources")
    r = _plain(reason)
    if len(r) < _SHINGLE:
        return bool(r) and any(r in _plain(src) for src in sources if src)
    runs = {r[i:i + _SHINGLE] for i in range(len(r) - _SHINGLE + 1)}
    shown = [_plain(src) for src in sources if src]
    found = sum(any(run in src for src in shown) for run in runs)
    return found * 2 >= len(runs)


def on_topic(reason: str, terms) -> bool:
    """``reason`` names at least one of the exercise's concept words (``terms``, English and
    Chinese; none: any reason is)."""
    reason = _texts_option(reason, () if terms is None else terms, "terms")
    terms = [] if terms is None else list(terms)       # a 1-D array too (no truth value)
    if not terms:
        return True
    text = " ".join(str(reason).lower().split())
    return any(t.lower() in text for t in terms)


_LATIN_WORD = re.compile(r"[a-z]{4,}")
_CONSONANTS = re.compile(r"[bcdfghjklmnpqrstvwxz]{5,}")


def _made_of_words(reason: str) -> bool:
    """The reason is written in words: most of its longer Latin words look like words (a vowel,
    no run of five consonants: random letters are not), and it holds at least three different
    words of three letters or more (a Chinese character counting half): digits, dots, single
    letters or one character repeated are not a reason."""
    text = str(reason).lower()
    latin = _CJK.sub(" ", text)
    words = _LATIN_WORD.findall(latin)
    odd = sum(1 for w in words if not re.search(r"[aeiouy]", w) or _CONSONANTS.search(w))
    different = len(set(re.findall(r"[a-z]{3,}", latin))) + len(set(_CJK.findall(text))) / 2
    return odd * 4 <= len(words) and different >= 3


def _shown_texts(exercise, context: dict, st: dict) -> list[str]:
    """What the learner was shown for ``exercise``: its prompt (the check's docstring, its stub
    message), concept and answer, the last verdict's tiers -- each in English, in the learner's
    language and in Chinese (the Chinese edition's text pasted into an English session too)."""
    out = [exercise.concept, st.get("message", ""), st.get("concept", ""), st.get("answer", ""),
           getattr(_CALL, "doc", "")]
    for template in (exercise.none, exercise.wrong_type):
        if template and not callable(template):
            out.append(template)
    try:
        out.append(exercise.answer_text(context))
    except Exception:  # noqa: BLE001 - an answer that needs more context: the others suffice
        pass
    from ...runtime.lang import tr
    return [t for text in out if isinstance(text, str) and text
            for t in (text, _t(text), tr(text, "zh"))]


_FORGET_CALLS: dict[str, int] = {}   # exercise -> how many times forget() was asked for it


def forget(name: str) -> int:
    """Ask to forget exercise ``name``'s record; returns how many times it was asked.

    Nothing forgets: the wrong tries spent on the exercise, the reasons given and whether its
    answer was shown are kept in the process and, with the attempts budget on, in the learner's
    record (:mod:`.record`), which a kernel restart reads back (a reset would be a way around the
    attempts budget and the shown-answer note).  The request is recorded, and a later
    pass of the exercise says it was made."""
    text_option(name, "name", hint="the exercise's name, e.g. 'nb01.transitions'")
    with _TRIES_LOCK:
        _FORGET_CALLS[name] = _FORGET_CALLS.get(name, 0) + 1
        return _FORGET_CALLS[name]


def _reason_problem(exercise, text: str, context: dict, st: dict) -> str:
    """What is wrong with the reason ``text`` for ``exercise`` ("" when it is accepted): "short",
    "repeat" ((nearly) a reason given before), "pasted" or "words".  Its content is not
    judged (see the module's docstring)."""
    if why_words(text) < WHY_WORDS:
        return "short"
    if pasted(text, st["reasons"]):
        return "repeat"
    if pasted(text, _shown_texts(exercise, context, st)):
        return "pasted"
    if not _made_of_words(text):
        return "words"
    return ""


def _budget_refusal(exercise, why, context: dict | None = None) -> Verdict | None:
    """None when this call may be graded; else why not (a reason was given and is not one: too
    short or given before, pasted text, not words, not about the exercise's idea; or the wrong
    tries are spent and no reason came).  An accepted reason is recorded, and the call in
    progress is marked as carrying one (a pass needs it)."""
    _CALL.reason_ok = False
    budget = attempts_budget()
    if not budget:
        return None
    with _TRIES_LOCK:
        st = _pull(exercise.name)
        left = st.get("until", 0.0) - _clock()
        if left > 0:
            return _wait_refusal(exercise, st["wrong"], left)
        text = " ".join(why.split()) if isinstance(why, str) else ""
        tries = st["wrong"]
        problem = _reason_problem(exercise, text, context or {}, st) if text else ""
        if text and not problem:
            _change(exercise.name, lambda e: e["reasons"].append(text))
            _CALL.reason_ok = True
            return None
        if not text and tries < budget:
            return None
    if problem == "pasted":
        say = ("not graded: that reason is text the exercise showed you (its prompt, a check's "
               "message or a hint) pasted back. Say in your own words why your answer is right")
    elif problem == "words":
        say = ("not graded: most of your reason is not words. Say in your own words, in "
               "sentences, why your answer is right")
    elif problem == "repeat":
        say = ("not graded: you gave that reason (or nearly the same one) before for this "
               "exercise. Say why this answer is right anew, in other words")
    elif text:
        say = (f"not graded: a reason (why='...') has at least {WHY_WORDS} words (in Chinese, "
               f"{2 * WHY_WORDS} characters)")
    else:
        say = (f"not graded: {tries} wrong tries, so from now on every try needs a new reason "
               "in your own words (why='...'). Re-read the concept first (run the check with "
               "hint=2)")
        kept = _record.in_use()
        if kept is not None:     # tries made in another kernel or another copy of the course count
            say += f". The tries are counted in {_printable(str(kept))}, across kernels and copies of the course"
    return failed(say, exercise.concept)


def wait_after(wrong: int, budget: int | None = None) -> float:
    """Seconds before the next try is graded after ``wrong`` wrong tries in a row, with
    ``budget`` tries free (default :func:`attempts_budget`): 0 within the budget and with the
    budget off; then :data:`WAIT_FIRST`, doubled at each wrong try, at most :data:`WAIT_MAX`."""
    from ... import validate as V
    wrong = V.integer(wrong, "wrong", lo=0)
    budget = attempts_budget() if budget is None else V.integer(budget, "budget", lo=0)
    if not budget or wrong <= budget:
        return 0.0
    return min(WAIT_FIRST * 2.0 ** min(wrong - budget - 1, 64), WAIT_MAX)


def _wait_refusal(exercise, tries: int, left: float) -> Verdict:
    """The verdict of a try that came before the wait after the last wrong one ended: not
    graded, not counted; its reason is not used up."""
    return failed(_say("not graded: {tries} wrong tries -- wait {secs} s more before the next try "
                       "(each wrong try from now on doubles the wait, up to {most} minutes; a "
                       "pass ends it). Use the time to re-read the concept (run the check with "
                       "hint=2)", tries=tries, secs=math.ceil(left),
                       most=int(WAIT_MAX // 60)), exercise.concept)


def _needs_reason(v: Verdict, exercise) -> Verdict:
    """A right answer that came without an accepted reason: not passed yet; the verdict says
    that the answer works and asks for the reason (it does not count as a wrong try)."""
    if not v.ok or not attempts_budget() or getattr(_CALL, "reason_ok", False):
        return v
    out = failed(_say("{part_msg} -- your answer works; to pass, add your reason: run the "
                      "check again with why='...', one sentence in your own words (6 words or "
                      "more; in Chinese, 12 characters) of why it is right", part_msg=v.message),
                 exercise.concept)
    out.reason_asked = True
    return out


def _count_try(exercise, submitted, v: Verdict) -> None:
    if not attempts_budget() or submitted is None or not KINDS[exercise.kind](submitted):
        return
    if v.reason_asked or v.one_more or v.not_counted:  # not a wrong try; its text is not a reason
        with _TRIES_LOCK:
            _tries_of(exercise.name).update(
                message=v.message, concept=v.concept, answer="")
        return
    now = _clock()

    def counted(e):               # on the entry as the record holds it now
        e["wrong"] = 0 if v.ok else e["wrong"] + 1
        wait = 0.0 if v.ok else wait_after(e["wrong"])
        e["until"] = now + wait if wait else 0.0
    with _TRIES_LOCK:
        st = _change(exercise.name, counted)
        if not v.ok:              # what this try showed: a reason pasted from it is refused
            st.update(message=v.message, concept=v.concept, answer=v.answer)


# -- exercises as data ----------------------------------------------------------------------------
def _is_number(x) -> bool:
    return isinstance(x, Real) and not isinstance(x, bool)


#: what each kind of exercise takes: an answer of another type gets the exercise's ``wrong_type``
#: message before anything is graded ('choice': the grader reads whatever it is given)
KINDS: dict[str, Callable[[Any], bool]] = {
    "function": callable,
    "number": _is_number,
    "labels": lambda x: isinstance(x, dict),
    "table": lambda x: isinstance(x, dict),
    "text": lambda x: isinstance(x, str),
    "choice": lambda x: True,
}


def _say(template, **fields) -> str:
    """A message from its template: ``str.format`` fields, or a function of the same fields."""
    return template(**fields) if callable(template) else template.format(**fields)


#: the fields a Labels ``wrong`` template may use: none of them points at an item
_SET_FIELDS = ("given", "total")
_SET_WRONG = "your {given} answers are not all right yet: check each one against the rule"
_INCOMPLETE = ("{n_missing} of {total} still None: {missing}. The set is graded when every item "
               "has an answer")


def _template_fields(template) -> set[str]:
    if callable(template):
        return set()
    return {f.split(".")[0].split("[")[0] for _, f, _, _ in string.Formatter().parse(template)
            if f}


@dataclass(frozen=True)
class Labels:
    """The answer of a 'labels' exercise: a dict that gives each item one label.

    ``right`` names the items (in the order they are graded) and the labels accepted for each;
    ``label`` turns a learner's value into its canonical label, or None when it is none.  With
    ``partial``, a None value means "not answered yet"; without it every item needs a label and
    None is no label.

    The set is graded as a whole.  Tier 1 says only that it is not right yet: never which item
    is wrong, nor how many (a count lets a loop flip one item at a time and watch it fall), and
    an incomplete set is not graded at all (answering one item at a time would otherwise reveal
    each).  Tier 2 gives the concept and, when ``questions`` are given, the question to ask of
    *every* item -- a reflection that points at none.  Tier 3 gives every item's line.

    ``wrong`` is the tier-1 template; it may use {given} and {total} only.  An older template
    that names an item ({first}, {value}, {about}, {question}) or a count ({n}, {rest}) is not
    used: the generic sentence replaces it (the field is kept so old exercises still build).
    ``nudge`` likewise may use {concept} and {questions} (every item's question) only."""
    right: dict                       # item -> the canonical labels accepted for it
    lines: dict                       # item -> its line of the answer (tier 3), joined by " | "
    label: Callable[[Any], Any]       # a learner's value -> its canonical label, or None
    bad_label: str | Callable         # a value that is no label: {item}, {value}
    wrong: str | tuple[str, str] = _SET_WRONG   # the set is not right: {given}, {total}
    partial: bool = False
    key: Callable[[Any], Any] | None = None    # normalise the learner's keys
    unknown: str = ""                 # keys that are no items: {unknown}, {items}; "" ignores them
    missing: str = ""                 # (complete sets) items without an answer: {missing}
    all_none: str = ""                # (partial) every answer is still None
    about: dict = field(default_factory=dict)      # item -> its description
    questions: dict = field(default_factory=dict)  # item -> the question to ask of it (tier 2)
    nudge: str = ""                   # tier 2 when the set is wrong: {concept}, {questions}
    order: str = "items"              # report unknown keys and bad labels in the items' order
    #                                   (unknown keys sorted), or in the learner's ("given")
    incomplete: str = ""              # (partial) some still None: {missing}, {n_missing}, {total}

    def answer(self, items=None) -> str:
        return " | ".join(self.lines[k] for k in (items or self.lines))

    def _wrong_message(self, **fields) -> str:
        template = self.wrong if isinstance(self.wrong, str) else self.wrong[-1]
        if callable(template):
            return template(**fields)
        if not _template_fields(template) <= set(_SET_FIELDS):
            template = _SET_WRONG
        return template.format(**fields)

    def _reflection(self, concept: str) -> str:
        qs = "; ".join(f"{k}: {_t(q)}" for k, q in self.questions.items())
        if self.nudge and _template_fields(self.nudge) <= {"concept", "questions"}:
            return _say(self.nudge, concept=concept, questions=qs)
        return f"{concept}. Ask of every item -- {qs}" if qs else concept

    def grade(self, given: dict, concept: str) -> Verdict | str | None:
        """None when every item has a right label; else the verdict (or what is wrong)."""
        items = list(self.right)
        got = {self.key(k): v for k, v in given.items()} if self.key else given
        missing = [k for k in items if (got.get(k) is None if self.partial else k not in got)]
        unknown = [k for k in got if k not in self.right]
        if self.order == "items":
            unknown.sort(key=str)
        if unknown and self.unknown:
            return _say(self.unknown, unknown=unknown, items=items)
        if self.partial and len(missing) == len(items):
            return _say(self.all_none)
        if missing and not self.partial:
            return _say(self.missing, missing=missing)
        labels = {}
        for k in (items if self.order == "items" else [k for k in got if k in self.right]):
            if k not in missing:
                labels[k] = self.label(got[k])
                if labels[k] is None:
                    return _say(self.bad_label, item=k, value=got[k])
        if missing:      # partial: grade nothing until the set is complete
            return _say(self.incomplete or _INCOMPLETE, missing=missing,
                        n_missing=len(missing), total=len(items))
        if any(labels[k] not in self.right[k] for k in items):
            return failed(self._wrong_message(given=len(items), total=len(items)),
                          self._reflection(concept), self.answer())
        return None


def tests_only(what: str) -> None:
    """Refuse ``what`` -- a call that opens a fixed question again -- unless the attempts budget
    is off (the project's tests): in a learner's kernel a question graded wrong does not come
    back, or changing one answer at a time on it would pass without understanding."""
    if attempts_budget():
        from ...errors import UmkitError
        raise UmkitError(f"{what} is for the project's tests (UMKIT_EXERCISE_ATTEMPTS=0): in a "
                         "learner's kernel a question graded wrong is not opened again",
                         hint="answer the question now open (print it); a kernel restart opens "
                              "a new one")


class DrawnSet:
    """The items of a 'labels' exercise, drawn from a bank so that a set cannot be passed by
    changing one label at a time: a set graded wrong is replaced by a new one, and the set now
    open is :attr:`items` (name -> description, read in the learner's language).

    ``bank``: name -> (description, the labels accepted for it, why -- the answer's line).
    ``first``: the set a process opens with (the notebook's text and its committed outputs show
    it), in the order it is shown.  ``redrawn``: the message of a wrong set, ``{part_msg}`` the
    set's own; ``line``: an item's line of the answer ({item}, {label}, {why}); ``accept``: a test
    of a drawn set's names (in order) that a set must pass to be opened -- e.g. "no matcher of
    shared words answers it" (a hundred draws that all fail it open the last one).  Every drawn set holds one item of each kind of answer (items
    whose accepted labels are the same set are one kind), the rest drawn from the whole bank, in
    a random order, never the set now open.  ``letters``: the learner answers by letter (A, B,
    ...) in the order shown, not by the items' names.

    A learner's process opens with a set drawn afresh (:func:`opening_rng`), so that no answer
    remembered from another kernel, or found by trying in one process after another, answers it;
    where the attempts budget is off (the project's tests, the notebooks' committed outputs) it
    opens with ``first``.  A set is never opened again: a call that reopened one after a wrong
    try would be a fixed set to cycle on.  :meth:`reopen_first` and :meth:`draw` with an ``rng``
    of your own work only where the attempts budget is off."""

    def __init__(self, exercise: str, bank: dict, first, *, letters: bool = False,
                 line: str = "{item} -> {label}: {why}", accept: Callable | None = None,
                 redrawn: str = "{part_msg}. A new set is drawn: print it again and answer that "
                                "one (the old set will not come back)"):
        from ...runtime.lang import Localized
        self.redrawn = redrawn
        self.line = line
        self.accept = accept
        self.exercise = exercise
        self._bank = dict(bank)
        self.first = tuple(first)
        self.size = len(self.first)
        self.letters = letters
        self.items = Localized()
        self.names: list = []           # the bank names of the set now open, in its order
        self._put(self.first)
        opening = opening_rng(exercise)
        if opening is not None:
            self._draw(opening)

    def _put(self, names) -> None:
        self.names = list(names)
        self.items.clear()
        for i, n in enumerate(self.names):     # the English texts; Localized reads them translated
            dict.__setitem__(self.items, self.key(i), self._bank[n][0])

    def key(self, i: int):
        return string.ascii_uppercase[i] if self.letters else self.names[i]

    def extended(self, exercise: str, more: dict, first, **options) -> "DrawnSet":
        """A new set for another exercise: this bank and ``more`` (the same form), opening with
        ``first`` -- so that two notebooks that ask about the same buffers give them one rule.
        ``options``: the constructor's keywords."""
        return DrawnSet(exercise, {**self._bank, **more}, first, **options)

    def reopen_first(self) -> dict:
        """Open the first set again (tests only, see the class); returns :attr:`items`."""
        tests_only("reopen_first()")
        self._put(self.first)
        return self.items

    def draw(self, rng=None) -> dict:
        """Open a new set (see the class); returns :attr:`items`.  ``rng`` (a ``random.Random``)
        only where the attempts budget is off; otherwise the exercise's next generator."""
        if rng is not None:
            tests_only("draw(rng=...)")
        return self._draw(rng_option(rng, self.exercise))

    def _draw(self, rng) -> dict:
        kinds: dict = {}
        for name, (_, right, _) in self._bank.items():
            kinds.setdefault(frozenset(right), []).append(name)
        now = set(self.names)
        for tries in range(1, 101):
            names = [rng.choice(sorted(group)) for group in kinds.values()][:self.size]
            rest = sorted(set(self._bank) - set(names))
            names += rng.sample(rest, self.size - len(names))
            rng.shuffle(names)
            if (set(names) != now or len(self._bank) == self.size) and (
                    self.accept is None or tries == 100 or self.accept(names)):
                self._put(names)
                return self.items

    def labels(self, **fields) -> Labels:
        """The set now open as :class:`Labels` (``fields``: the rest of Labels' fields)."""
        right = {self.key(i): self._bank[n][1] for i, n in enumerate(self.names)}
        lines = {self.key(i): self.line.format(item=self.key(i), label=self._shown(self._bank[n][1]),
                                               why=self._bank[n][2])
                 for i, n in enumerate(self.names)}
        fields.setdefault("about", self.items)
        fields.setdefault("order", "given")
        return Labels(right=right, lines=lines, **fields)

    @staticmethod
    def _shown(accepted) -> str:
        return "/".join(str(a) for a in sorted(accepted, key=str))

    def exercise_fields(self, concept: str, passed_message: str, **fields) -> dict:
        """The ``grader`` and ``answer`` of an :class:`Exercise` on this set: the set now open is
        graded (a wrong one opens a new one), a right one passes with ``passed_message``, and
        hint=3 shows the set now open's answer.  ``fields``: the rest of Labels' fields."""
        def grader(given):
            v = self.grade(given, concept, **fields)
            return passed(passed_message) if v is None else v
        return {"grader": grader, "answer": lambda **_: self.labels(**fields).answer()}

    def grade(self, given, concept: str, **fields) -> Verdict | str | None:
        """Grade ``given`` on the set now open; a wrong set opens a new one, and the message says
        so (the answer held for hint=3 is the new set's).  After a wrong set, a right one opens a
        new set too and passes only when that one is right as well (:func:`owe_one_more`)."""
        v = self.labels(**fields).grade(given, concept)
        if isinstance(v, str):             # the wrong form (e.g. another kernel's set): not graded
            v = failed(v, concept)
            v.not_counted = True
            return v
        if isinstance(v, Verdict):
            owe_one_more(self.exercise)
            self.draw()
            v.message = self.redrawn.format(part_msg=v.message)
            v.answer = self.labels(**fields).answer()
        elif v is None and settle_one_more(self.exercise):
            self.draw()
            return one_more(concept, self.labels(**fields).answer())
        return v


@dataclass(frozen=True)
class Exercise:
    """One exercise, as data; :func:`check` grades what the learner submitted for it.

    The preamble is the same for all: nothing submitted yet (``none``), something of another
    ``kind`` (``wrong_type``), the learner's code raising (``raised``).  Then, by what the
    exercise holds:

    * ``cases``: the learner's function is called on each case (``arguments(*case)`` gives its
      arguments, else the case itself) and ``judge(got, want, *case, call=...)`` compares the
      result with ``reference(*case)``: None when right, else what is wrong;
    * ``labels``: a :class:`Labels` answer;
    * ``grader(submitted, **context)``: anything else (an experiment on the simulator, a
      parser), returning a Verdict, or a string that says what is wrong.

    Every failure gets the exercise's ``concept`` (tier 2) and ``answer`` (tier 3) unless it
    brings its own.  ``setup(**options)`` validates a check's options and returns the context
    its templates, answer and grader see."""
    name: str                                   # 'nb01.transitions': notebook and exercise
    argument: str                               # the learner's name for the answer ({argument})
    kind: str                                   # a key of KINDS
    concept: str                                # tier 2: the idea, the article's section
    answer: str | Callable = ""                 # tier 3: text, or answer(**context)
    none: str | Callable = ""                   # a None answer (the stub); "" -> wrong_type
    wrong_type: str | Callable = ""             # another kind: {argument}, {type}, {value}
    call: str = ""                              # the learner's call in messages ({0}: a case's)
    raised: str | tuple = "{call} raised {type}: {exception}"
    #   the learner's code raised: {call}, {type}, {exception} (its text), {error} (one line);
    #   or ((exception class, template), ...), the first that matches
    cases: tuple | Callable = ()                # the cases, or cases(**context)
    reference: Callable | None = None           # reference(*case) -> the right result
    arguments: Callable | None = None           # arguments(*case) -> (args, kwargs)
    judge: Callable | None = None               # judge(got, want, *case, call=...) -> None | why
    labels: Labels | None = None
    grader: Callable | None = None              # grader(submitted, **context) -> Verdict | str
    passed: str | Callable = ""                 # a pass (cases, labels), or passed(submitted, **c)
    setup: Callable | None = None               # setup(**options) -> context
    #: the words of the exercise's idea, English and Chinese: a reason (why=) must use one
    why_terms: tuple = ()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: kind {self.kind!r} is not one of {list(KINDS)}")

    def answer_text(self, context: dict) -> str:
        if callable(self.answer):
            return self.answer(**context)
        return self.answer or (self.labels.answer() if self.labels else "")


class LearnerError(Exception):
    """The learner's code raised ``error``; :func:`check` reports it with the exercise's
    ``raised`` message (the learner's error is the verdict, not a crash of the grader)."""

    def __init__(self, error: BaseException):
        super().__init__(raised(error))
        self.error = error


def learner_code(fn):
    """``fn`` wrapped so that an ``Exception`` it raises is the learner's: it leaves a grader as
    a :class:`LearnerError` (its ``finally`` blocks and sandboxes clean up on the way out).  A
    grader wraps a harness with it where everything the harness runs counts as the learner's.
    The wrapper keeps ``fn``'s signature (``inspect.signature`` sees the learner's own)."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except LearnerError:
            raise
        except Exception as e:  # noqa: BLE001 - the learner's error is the verdict
            raise LearnerError(e) from e
    return run


def _raised_message(exercise: Exercise, error: BaseException, call: str, context: dict) -> str:
    rules = exercise.raised
    if not isinstance(rules, tuple):
        rules = ((Exception, rules),)
    template = next(t for kind, t in rules if isinstance(error, kind))
    return _say(template, call=call, type=type(error).__name__, exception=error,
                error=raised(error), **context)


def _run_cases(exercise: Exercise, fn, context: dict):
    cases = exercise.cases(**context) if callable(exercise.cases) else exercise.cases
    for case in cases:
        case = tuple(case)
        call = exercise.call.format(*case)
        want = exercise.reference(*case)
        args, kwargs = exercise.arguments(*case) if exercise.arguments else (case, {})
        try:
            got = fn(*args, **kwargs)
        except LearnerError as e:
            return _raised_message(exercise, e.error, call, context)
        why = exercise.judge(got, want, *case, call=call)
        if why is not None:
            return why
    return None


def _grade(exercise: Exercise, submitted, context: dict) -> Verdict:
    fields = dict(context, argument=exercise.argument, type=type(submitted).__name__,
                  value=submitted)
    if submitted is None:
        v = _say(exercise.none or exercise.wrong_type, **fields)
    elif not KINDS[exercise.kind](submitted):
        v = _say(exercise.wrong_type, **fields)
    else:
        if exercise.kind == "function":
            submitted = learner_code(submitted)
        try:
            if exercise.labels is not None:
                v = exercise.labels.grade(submitted, exercise.concept)
            elif exercise.grader is not None:
                v = exercise.grader(submitted, **context)
            else:
                v = _run_cases(exercise, submitted, context)
        except LearnerError as e:
            v = _raised_message(exercise, e.error, exercise.call, context)
        if v is None:
            return passed(exercise.passed(submitted, **context) if callable(exercise.passed)
                          else exercise.passed)
    if isinstance(v, str):
        v = failed(v)
    if not v.ok:
        v.concept = v.concept or exercise.concept
        v.answer = v.answer or exercise.answer_text(context)
    return v


def check(exercise: Exercise, submitted, hint: int = 1, **options) -> Verdict:
    """Grade what the learner ``submitted`` for ``exercise`` (an :class:`Exercise`) and show
    ``hint`` tiers (1: what is wrong, 2: the concept, 3: the answer).  ``options`` are the
    check's own (a profile, a size), validated by the exercise's ``setup``."""
    if not isinstance(exercise, Exercise):
        from ...errors import InvalidType
        raise InvalidType(f"exercise should be an Exercise, got {type(exercise).__name__}",
                          argument="exercise", hint="check(nb01.TRANSITIONS, transitions)")
    refusal = _hint_refusal(hint)
    if refusal is not None:
        return refusal
    outer_rng = getattr(_CALL, "rng", None)
    _CALL.rng = attempt_rng(exercise.name)   # the one generator every draw of this check uses
    try:
        return _check(exercise, submitted, hint, options)
    finally:
        _CALL.rng = outer_rng


def check_rng() -> random.Random | None:
    """The generator of the check call in progress (None outside a check): every draw a grader
    makes -- sizes, values, curves, the order of options -- comes from it, so that
    ``UMKIT_EXERCISE_SEED`` reproduces the whole check."""
    return getattr(_CALL, "rng", None)


def check_seed() -> int:
    """A 64-bit seed from the check's generator (:func:`check_rng`), for NumPy's generators;
    outside a check, one from the operating system."""
    rng = check_rng() or random.SystemRandom()
    return rng.getrandbits(64)


def _check(exercise: Exercise, submitted, hint: int, options: dict) -> Verdict:
    context = exercise.setup(**options) if exercise.setup is not None else dict(options)
    refused = _budget_refusal(exercise, getattr(_CALL, "why", None), context)
    if refused is not None:
        if not refused.answer:
            refused.answer = exercise.answer_text(context)
        refused.exercise = exercise.name
        return _finish(refused, hint)
    try:
        # the whole check runs on the backend it started on: a learner's umkit.use(...) inside
        # the graded code switches the process, not the measurement the check is taking
        with _pinned_backend(), _kit_kept() as replaced:
            v = _needs_reason(_grade(exercise, submitted, context), exercise)
        if replaced:
            v = failed(f"your code replaced the kit's own {sorted(replaced)} while the check ran: "
                       "the check measures with them; leave umkit's functions as they are",
                       exercise.concept)
    except Exception as e:  # noqa: BLE001 - a check always returns a verdict
        v = ungradable(e)
        v.concept = v.concept or exercise.concept
    v.exercise = exercise.name
    _count_try(exercise, submitted, v)
    return _finish(v, hint)


@contextlib.contextmanager
def _kit_kept():
    """Around the learner's graded code: the public functions of ``umkit`` and the methods of
    ``umkit.Array`` the graders measure with.  Any the code replaced are put back and named in
    the list this yields (filled when the block ends), so that a replaced clock or counter
    cannot grade itself."""
    import umkit
    owners = {"umkit": umkit, "umkit.Array": umkit.Array}
    before = {(label, k): v for label, obj in owners.items() for k, v in vars(obj).items()
              if not k.startswith("_")}
    replaced: list = []
    try:
        yield replaced
    finally:
        for (label, k), v in before.items():
            obj = owners[label]
            if vars(obj).get(k) is not v:
                setattr(obj, k, v)
                replaced.append(f"{label}.{k}")


def _pinned_backend():
    from ...runtime import RUNTIME
    act = RUNTIME.peek()
    if act is None:
        return contextlib.nullcontext()
    return RUNTIME.using_backend(act.backend, act.name, act.reason)


# -- what the checks share ------------------------------------------------------------------------
@contextlib.contextmanager
def sim_sandbox(**options):
    """Run a block on a fresh simulator and give the caller's backend back afterwards."""
    import umkit
    with umkit.using("sim", **options) as b:
        yield b


@contextlib.contextmanager
def counting_frees(kind: str = "managed"):
    """``with counting_frees() as n:`` -- how many ``kind`` arrays the block allocated
    (``n['made']``) and freed itself (``n['freed']``: ``a.free()`` or the end of a ``with``
    block), as opposed to arrays Python frees when the last name for them goes away."""
    import umkit
    cls, n = umkit.Array, {"made": 0, "freed": 0}
    init, free = cls.__init__, cls.free

    def counted_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if self.kind == kind:
            n["made"] += 1

    def counted_free(self):
        if self.kind == kind and not self.freed:
            n["freed"] += 1
        return free(self)
    cls.__init__, cls.free = counted_init, counted_free
    try:
        yield n
    finally:
        cls.__init__, cls.free = init, free


def load_profile(name: str, **overrides):
    """The sim profile ``name``: its parameters (SI units) and its cost model; ``overrides``
    replace SI values (a variant of the card drawn for one attempt)."""
    from ...sim import load_profile as load
    return load(name, **overrides)


def sealed_while(fn, seal):
    """``fn`` wrapped so that it runs inside ``seal()``, a context manager that makes some part
    of the kit refuse to answer (the model a formula is checked against, a helper that computes
    the exercise's answer): a check runs the learner's function this way.  A value that is not
    callable is returned as it is (the check says what is wrong with it).  The wrapper keeps
    ``fn``'s signature."""
    if not callable(fn):
        return fn

    @functools.wraps(fn)
    def run(*args, **kwargs):
        with seal():
            return fn(*args, **kwargs)
    return run


def model_sealed(fn, why: str):
    """``fn`` wrapped so that, while it runs, the sim's prefetch cost model refuses to answer and
    no simulator starts (umkit.sim.sealed, ``why`` its hint): a check of a formula runs the
    learner's function this way, so the formula cannot be had from the model it is checked
    against (:func:`sealed_while`)."""
    from ...sim import sealed
    return sealed_while(fn, lambda: sealed(why))


def profile_option(value) -> str:
    """A check's ``profile=`` option: the name of a sim profile."""
    from ... import validate as V
    return V.string(value, "profile", hint="a sim profile name, e.g. 'mi250x-xnack1'")


def integer_option(value, name: str, *, lo: int, hi: int, hint: str) -> int:
    """A check's (or a helper's) whole-number option, within [lo, hi]."""
    from ... import validate as V
    return V.integer(value, name, lo=lo, hi=hi, hint=hint)


def function_option(value, name: str):
    """A helper's function argument: refused (InvalidType) unless callable."""
    from ... import validate as V
    return V.callback(value if value is not None else 0, name)


def text_option(value, name: str, *, hint: str) -> str:
    """A helper's non-empty text argument."""
    from ... import validate as V
    return V.text(value, name, hint=hint)


def float32_option(value, name: str, *, max_bytes: int, hint: str):
    """A helper's data argument: a non-empty 1-D NumPy float32 array of at most ``max_bytes``
    bytes, or a typed error naming ``name``."""
    import numpy as np

    from ... import validate as V
    if not isinstance(value, np.ndarray):
        raise V.InvalidType(f"{name}={V.shown(value)} must be a NumPy array", argument=name,
                            hint=hint)
    if value.dtype != np.float32 or value.ndim != 1 or value.size == 0:
        raise V.InvalidArgument(f"{name} is a {value.ndim}-D {value.dtype} array of "
                                f"{value.size} values: a non-empty 1-D float32 array is wanted",
                                argument=name, hint=hint)
    if value.nbytes > max_bytes:
        raise V.InvalidArgument(f"{name} holds {value.nbytes} bytes (at most {max_bytes})",
                                argument=name, hint=hint)
    return value


def float32_array_option(value, name: str, *, min_bytes: int, hint: str):
    """A helper's umkit array argument: a live float32 ``umkit.Array`` of the active backend, of
    at least ``min_bytes`` bytes, or a typed error naming ``name`` (a freed one: UseAfterFree)."""
    import numpy as np

    import umkit

    from ... import validate as V
    if not isinstance(value, umkit.Array):
        raise V.InvalidType(f"{name}={V.shown(value)} must be a umkit array", argument=name,
                            hint=hint)
    value.check_alive(name)
    if value.backend is not umkit.backend():
        raise V.InvalidArgument(f"{name} was allocated on another backend than the active one "
                                f"({umkit.backend_name()}): the helper's own arrays are made on "
                                "the active one", argument=name,
                                hint=f"pass an array made since the last umkit.use(...), or "
                                     f"run the call where {name} was made")
    if value.dtype != np.float32 or value.nbytes < min_bytes:
        raise V.InvalidArgument(f"{name} is a {value.dtype} array of {value.nbytes} bytes: a "
                                f"float32 array of at least {min_bytes} bytes is wanted",
                                argument=name, hint=hint)
    return value


def rng_option(value, exercise: str | None = None) -> random.Random:
    """A helper's ``rng=`` argument: a ``random.Random`` (``random.Random(seed)`` draws the same
    data again), refused (InvalidType naming ``rng``) if it is anything else.  None draws a
    fresh one: exercise ``exercise``'s next :func:`attempt_rng`, or, without a name, one from
    the operating system's randomness."""
    if value is None:
        inside = check_rng()                   # within a check: the check's one generator
        if inside is not None:
            return inside
        return attempt_rng(exercise) if exercise is not None else random.SystemRandom()
    if isinstance(value, random.Random):
        return value
    from ... import validate as V
    raise V.InvalidType(f"rng={V.shown(value)} must be a random.Random", argument="rng",
                        hint="pass random.Random(seed) to draw the same data again, or leave "
                             "rng out for a fresh draw")


# -- data that changes per attempt ----------------------------------------------------------------
_SEEDS: dict[str, list[int]] = {}
_SEED_LOCK = threading.Lock()


def opening_rng(name: str) -> random.Random | None:
    """The generator of the question exercise ``name`` opens a process with: None where the
    attempts budget is off (the project's tests and the notebooks' committed outputs, which show
    the notebook's own set), else a fresh one (reproducible with ``UMKIT_EXERCISE_SEED``), so
    that a fresh kernel's first question cannot be answered from memory or found by trying it in
    one process after another."""
    text_option(name, "name", hint="the exercise's name, e.g. 'nb07.placement'")
    return attempt_rng(f"{name}.opening") if attempts_budget() else None


def attempt_rng(name: str) -> random.Random:
    """A fresh ``random.Random`` for one check call of exercise ``name``: a grader draws the sizes
    and values the learner's code must read from it, so that each attempt sees other data and a
    constant or a formula that ignores the data cannot pass.  Its seed is kept
    (:func:`last_seed`); with ``UMKIT_EXERCISE_SEED`` set (an integer) the n-th call of an
    exercise gets the same seed in every run (tests, a reproducible failure)."""
    from ... import validate as V
    V.text(name, "name", hint="the exercise's name, e.g. 'nb00.prefetch'")
    base = os.environ.get("UMKIT_EXERCISE_SEED", "").strip()
    with _SEED_LOCK:
        seeds = _SEEDS.setdefault(name, [])
        if base.lstrip("-").isdigit():
            digest = hashlib.sha256(f"{int(base)}:{name}:{len(seeds)}".encode()).digest()
            seed = int.from_bytes(digest[:4], "big")
        else:
            seed = secrets.randbits(32)
        seeds.append(seed)
    return random.Random(seed)


def last_seed(name: str) -> int | None:
    """The seed of exercise ``name``'s latest :func:`attempt_rng` (None before the first):
    ``random.Random(last_seed(name))`` draws that attempt's data again."""
    text_option(name, "name", hint="the exercise's name, e.g. 'nb00.prefetch'")
    with _SEED_LOCK:
        seeds = _SEEDS.get(name)
        return seeds[-1] if seeds else None


def column_title(profile: str | None = None) -> str:
    """What a column of results is: "model (PROFILE)" when the simulator computed it (the
    ``profile`` given, else the active one), "measured (DEVICE)" on a real GPU."""
    if profile is not None:
        from ... import validate as V
        label = V.label(profile, "profile", hint="a sim profile name, or \"each row's card\"")
        return _t(f"model ({_t(label)})")   # a label ("each row's card") in the learner's language
    from ...runtime import RUNTIME
    try:
        b = RUNTIME.active().backend
    except Exception:  # noqa: BLE001 - a title never fails a reveal
        return _t("measured")
    if b.supports("model_time"):
        return _t(f"model ({b.model_profile().name})")
    try:
        name = b.device_name(0)
    except Exception:  # noqa: BLE001
        name = ""
    return _t(f"measured ({name})") if name else _t("measured")


# -- predictions ----------------------------------------------------------------------------------
_PREDICTIONS: dict[str, "Prediction"] = {}


@dataclass
class Prediction:
    """A guess, kept under a name until :func:`reveal` shows it beside the measurement."""
    name: str
    guesses: dict
    unit: str = ""
    measured: dict = field(default_factory=dict)
    source: str = ""          # the results column's title: "model (PROFILE)" / "measured (GPU)"

    def rows(self) -> list[tuple]:
        """The table's rows: (what, your guess, the result, the comparison), as shown."""
        return self._rows()

    def _rows(self):
        rows = []
        for k in list(self.guesses) + [k for k in self.measured if k not in self.guesses]:
            g, m = self.guesses.get(k), self.measured.get(k)
            rows.append((k, _fmt(g), _fmt(m), _t(_compare(g, m))))
        return rows

    def __repr__(self):
        if not self.measured:
            n = sum(v is not None for v in self.guesses.values())
            return _printable(_t(f"prediction '{self.name}' kept: {n} of {len(self.guesses)} "
                                 "guesses written (reveal(...) shows them beside the result)"))
        unit = f" ({self.unit})" if self.unit else ""
        rows = self._rows()
        w = max(_width(r[0]) for r in rows)
        src = self.source or _t("measured")
        head_g, head_m = _t("your guess") + unit, src + unit
        wg = max([16, _width(head_g)] + [_width(r[1]) for r in rows])   # each column as wide
        wm = max([16, _width(head_m)] + [_width(r[2]) for r in rows])   # as its widest cell
        lines = [f"{_pad('', w)}  {_pad(head_g, wg, right=True)}  {_pad(head_m, wm, right=True)}  "
                 f"{_t('comparison')}"]
        lines += [f"{_pad(k, w)}  {_pad(g, wg, right=True)}  {_pad(m, wm, right=True)}  {c}"
                  for k, g, m, c in rows]
        return _printable("\n".join(lines))

    def _repr_html_(self):
        if not self.measured:
            return f"<pre>{html.escape(repr(self))}</pre>"
        unit = f" ({html.escape(self.unit)})" if self.unit else ""
        src = html.escape(self.source or _t("measured"))
        head = (f"<tr><th></th><th>{_t('your guess')}{unit}</th><th>{src}{unit}</th>"
                f"<th>{_t('comparison')}</th></tr>")
        body = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(g)}</td>"
                       f"<td>{html.escape(m)}</td><td>{html.escape(c)}</td></tr>"
                       for k, g, m, c in self._rows())
        return f"<table>{head}{body}</table>"


def _width(text: str) -> int:
    """Columns ``text`` takes in a monospaced font: a wide (CJK) character takes two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int, right: bool = False) -> str:
    """``text`` padded with spaces to ``width`` display columns (left-aligned, or right)."""
    fill = " " * max(0, width - _width(text))
    return fill + text if right else text + fill


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, Real):
        v = float(v)
        if not math.isfinite(v):
            return str(v)
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v))                       # 16384, not 1.638e+04; 2, not 2.0
        if abs(v) < 1e4:
            return f"{v:.3g}"
        return f"{v:.1f}" if abs(v) < 1e7 else f"{v:.3e}"
    if isinstance(v, (list, tuple, set, frozenset, dict)):
        from ... import validate as V
        if isinstance(v, dict):
            return V.short(v)
        # one level: a set of answers; anything nested inside is shown short, never recursed into
        return "; ".join(V.short(x) if isinstance(x, (list, tuple, set, frozenset, dict))
                         else _fmt(x) for x in v)
    return _t(str(v))                                # "flat" reads 平坦 beside a 平坦 table


_PARTS = re.compile(r"\s*(?:;|\s=\s)\s*")   # "a; b": a set of answers; "a = b": a tie


def _norm(text) -> str:
    return " ".join(str(text).lower().split()).strip(" .")


def _head(text: str) -> str:
    """An answer's leading words: "split" of "split: the CPU's updates in their own buffer"."""
    return re.split(r":|\s\(|\s-\s", text, maxsplit=1)[0].strip()


def _parts(v) -> list[str]:
    items = [str(x) for x in v] if isinstance(v, (list, tuple, set, frozenset)) \
        else _PARTS.split(str(v))
    return [n for n in (_norm(x) for x in items) if n]


def _compare(guess, measured) -> str:
    if guess is None:
        return "no guess written"
    if measured is None:
        return "not measured here"
    if isinstance(guess, Real) and isinstance(measured, Real) and not isinstance(guess, bool) \
            and not isinstance(measured, bool):
        g, m = float(guess), float(measured)
        if g == m:
            return "exact"
        if m == 0 or g == 0:
            return "off (one of them is 0)"
        r = g / m
        if not math.isfinite(r):
            return "?"
        if 0.8 <= r <= 1.25:
            return "close (within 25 %)"
        return f"{r:.2g}x the result" if r > 1 else f"1/{1 / r:.2g} of the result"
    if _norm(guess) == _norm(measured):
        return "right"
    gs, ms = _parts(guess), _parts(measured)
    if not gs or not ms:
        return "different"

    def same(g, m):                                   # the answer, or its leading words
        return g == m or bool(_head(g)) and _head(g) == _head(m)

    found = sum(any(same(g, m) for m in ms) for g in gs)
    covered = sum(any(same(g, m) for g in gs) for m in ms)
    extra = len(gs) - found
    tie = isinstance(measured, str) and " = " in measured
    if found and not extra and (covered == len(ms) or tie):
        return "right"                                # a whole set, or one of a tie
    if not found:
        return "different"
    if extra:
        return f"partly: {covered} of {len(ms)} right, {extra} not in the result"
    return f"partly: {covered} of {len(ms)} right"


def predict(name: str, guesses: dict, unit: str = "", *, quiet: bool = False) -> Prediction:
    """Keep ``guesses`` (a dict: what -> your guess, None where you have none) under ``name``,
    before you run the measurement; prints one line saying what it kept (how many guesses are
    written), so a cell that goes on to measure still shows that the guesses were taken --
    ``quiet=True`` prints nothing."""
    from ... import validate as V
    V.label(name, "name", hint="a name for the prediction, e.g. predict('faults', {...})")
    if not isinstance(guesses, dict):
        from ...errors import InvalidType
        raise InvalidType(f"guesses should be a dict like {{'what': your_guess}}, got "
                          f"{type(guesses).__name__}", argument="guesses",
                          hint="write predict('name', {'what': your_guess, ...})")
    V.string(unit, "unit", hint="e.g. unit='ms'")
    quiet = V.flag(quiet, "quiet")
    p = Prediction(name, dict(guesses), unit)
    _PREDICTIONS[p.name] = p
    if not quiet:
        print(repr(p))
    return p


def reveal(name_or_prediction, measured: dict, *, profile: str | None = None) -> Prediction:
    """Show the kept prediction beside ``measured`` (a dict with the same keys).  The column is
    titled by :func:`column_title`: "model (PROFILE)" on the simulator (the active profile, or
    ``profile=`` when the numbers came from another, e.g. a ``with umkit.using(...)`` block),
    "measured (DEVICE)" on a real GPU."""
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
    p.source = column_title(profile)
    return p
