"""``umkit.explain``: render an exception, an error code, an error name or a symptom the way
the article's §5.1 table does.  The table itself is data in :mod:`umkit.errors.table`."""
from __future__ import annotations

import difflib
import enum
import operator
import re
import sys
import textwrap

from ..errors.table import (BY_NAME, COLUMNS, ERRORS, SYMPTOMS, ErrorInfo, Symptom, find_in_text,
                            find_symptoms, lookup, lookup_code)
from ..errors import (BackendError, InvalidArgument, InvalidType, OutOfMemory, RaceDetected,
                      UmkitError)
from ..runtime.lang import tr

# ------------------------------------------------------------------------------------------
# explain()
# ------------------------------------------------------------------------------------------
_WIDTH = 92


def _para(label: str, text: str) -> list[str]:
    if tr(label) != label:                      # the learner's language is not English: one
        label, text = tr(label), tr(text)       # line per paragraph (textwrap would split the
        if label.endswith("："):                 # CJK text mid-identifier); nothing after a
            return [f"  {label}{text}"]         # full-width colon, which carries its own space
        width = sum(2 if ord(ch) > 0x2E80 else 1 for ch in label)
        return [f"  {label}{' ' * max(1, 15 - width)}{text}"]
    pad = " " * 17
    return textwrap.wrap(text, _WIDTH, initial_indent=f"  {label:<15}", subsequent_indent=pad,
                         break_on_hyphens=False) or [f"  {label}"]


def _render_row(row: ErrorInfo, heading: str = "", *, names_line: bool = True) -> list[str]:
    names = []
    for col, label in COLUMNS:
        n, c = getattr(row, col), getattr(row, col + "_code")
        if n:
            names.append(f"{label}: {n}" + (f" ({c})" if c is not None else ""))
    lines = [heading] if heading else []
    if names_line:
        lines.append("  ==  ".join(names))
    missing = [label for col, label in COLUMNS[:2] if not getattr(row, col)]
    if missing and row.hsa is None and not row.note:
        lines.append("  " + tr(f"({' and '.join(missing)}: no such code)"))
    if row.aliases:
        lines += _para("Also called:", ", ".join(row.aliases))
    lines += _para("What it means:", row.message)
    if row.note:
        lines += _para("Note:", row.note)
    lines += _para("What to do:", row.hint)
    if row.section:
        lines += _para("Article:", row.section)
    return lines


def _render_symptom(s: Symptom) -> list[str]:
    lines = [tr(f"Symptom: {s.title}")]
    lines += _para("Likely cause:", s.cause)
    lines += _para("What to do:", s.hint)
    if s.tools:
        lines += _para("Tools:", s.tools)
    if s.see_also:
        lines += _para("See also:", s.see_also)
    lines += _para("Article:", s.section)
    return lines


def _usage(what: str) -> str:
    lines = [f"umkit.explain() has no entry for {what}."]
    return "\n".join(tr(line) for line in lines + [
        "Call it with one of:",
        "  an exception you caught   try: ... except Exception as e: umkit.explain(e)",
        "  an error code             umkit.explain(2)   (shows the HIP and the CUDA meaning)",
        "  an error name             umkit.explain('hipErrorOutOfMemory'), "
        "'cudaErrorIllegalAddress',",
        "                            'HSA_STATUS_ERROR_INVALID_MEMORY' (any case)",
        "  a symptom                 umkit.explain('wrong result'), 'slow', 'erratic', 'thrash'",
        f"The table: umkit.errors.table.ERRORS ({len(ERRORS)} errors) and umkit.errors.table.SYMPTOMS "
        f"({len(SYMPTOMS)} symptoms)."])


_CLASS_NOTES = {
    "UseAfterFree": ("illegal_address", "umkit caught a use of freed memory before the GPU did; "
                     "on real hardware this is an illegal address or a memory fault."),
    "NotManaged": (None, "Prefetch and advice only apply to managed memory (§3.2, §4.4); device "
                   "memory lives on the GPU and pinned memory on the host, so there is nothing to "
                   "migrate. Allocate with kind='managed', or copy explicitly."),
    "BackendUnavailable": (None, "Run umkit.doctor() to see each backend's reason; the sim "
                           "backend always works (§4.1)."),
}


def _explain_exception(exc: BaseException) -> str:
    # a umkit error's message without its hint (the hint is printed below, once)
    msg = exc.message if isinstance(exc, UmkitError) else str(exc)
    # the tables are searched in the English the error was made in; the learner reads tr()'s
    english = (f"{msg}\n{exc.hint}" if isinstance(exc, UmkitError)
               else str(exc.args[0]) if isinstance(exc, Warning) and exc.args else msg)
    # umkit's own messages are translated; another library's or the learner's text stays as it is
    ours = isinstance(exc, UmkitError) or type(exc).__module__.startswith("umkit")
    head = [f"{type(exc).__name__}: {tr(msg) if ours else msg}".rstrip(), ""]
    row = None
    name = getattr(exc, "name", None)
    if isinstance(name, str):
        row = lookup(name)
    if row is None and isinstance(exc, BackendError):
        rows = lookup_code(exc.code, _runtime_of(exc.name))
        row = rows[0][1] if rows else None
    if row is None and isinstance(exc, UmkitError):
        cname = next((c.__name__ for c in type(exc).__mro__ if c.__name__ in _CLASS_NOTES), None)
        if cname:
            key, note = _CLASS_NOTES[cname]
            lines = head + _para("What it means:", note)
            if exc.hint:
                lines += _para("What to do:", exc.hint)
            if key:
                lines += ["", *_render_row(next(r for r in ERRORS if r.key == key))]
            return "\n".join(lines)
        if isinstance(exc, RaceDetected):
            return "\n".join(head + _render_symptom(next(s for s in SYMPTOMS if s.key == "wrong_results")))
        if isinstance(exc, OutOfMemory):
            row = next(r for r in ERRORS if r.key == "out_of_memory")
        elif exc.hint:
            return "\n".join(head + _para("What to do:", exc.hint))
    if row is None:
        row = find_in_text(f"{type(exc).__name__}: {english}")
    if row is not None:
        return "\n".join(head + _render_row(row))
    symptoms = find_symptoms(english)
    if symptoms:
        return "\n".join(head + [line for s in symptoms for line in _render_symptom(s) + [""]])
    return "\n".join(head + [_usage(f"this {type(exc).__name__}")])


def _runtime_of(name: str) -> str | None:
    low = (name or "").lower()
    return "cuda" if low.startswith("cuda") else "hip" if low.startswith("hip") else \
        "hsa" if low.startswith("hsa") else None


def _explain_code(code: int) -> str:
    if code.bit_length() > 64:          # no runtime's code is that large (and str() has limits)
        return _usage(f"an int of about {int(code.bit_length() * 0.30103) + 1} digits") + \
            "\n" + tr("(an error code fits in 64 bits)")
    hits = lookup_code(code)
    if not hits:
        return _usage(f"code {code}") + "\n" + tr(
            "For other codes see hip_runtime_api.h (hipError_t) or driver_types.h (cudaError_t).")
    rows: list[ErrorInfo] = []
    for _col, row in hits:
        if row not in rows:
            rows.append(row)
    cols = {col for col, _ in hits}
    absent = [label for col, label in COLUMNS[:2] if col not in cols]
    lines = []
    if len(rows) == 1:
        title = ", ".join(f"{label} {code} = {getattr(rows[0], col)}"
                          for col, label in COLUMNS if col in cols)
        lines.append(tr(f"Code {code}: {title}") + (
            "  " + tr(f"(not a {' or '.join(absent)} code)") if absent else ""))
        lines += _render_row(rows[0], names_line=False)
    else:
        lines.append(tr(f"Code {code} means different things on different runtimes:"))
        for row in rows:
            for col, label in COLUMNS:
                if (col, row) in hits:
                    article = "an" if label == "HSA" else "a"
                    lines += ["", *_render_row(row, tr(f"As {article} {label} code: "
                                                       f"{getattr(row, col)}"))]
                    break
    return "\n".join(lines)


MAX_CODE_CHARS = 24


def _explain_text(text: str) -> str:
    s = text.strip()
    if re.fullmatch(r"[+-]?(0[xX][0-9a-fA-F]+|\d+)", s):
        if len(s) > MAX_CODE_CHARS:      # no runtime's code is that long (and int() has limits)
            return _usage(repr(text[:40] + "...")) + \
                "\n" + tr(f"(an error code has at most {MAX_CODE_CHARS} characters)")
        return _explain_code(int(s, 16) if "x" in s.lower() else int(s, 10))   # "0123" is 123
    row = lookup(s) or find_in_text(s)
    if row is not None:
        return "\n".join(_render_row(row))
    symptoms = find_symptoms(s)
    if symptoms:
        return "\n\n".join("\n".join(_render_symptom(x)) for x in symptoms)
    close = difflib.get_close_matches(s.lower(), list(BY_NAME), n=3, cutoff=0.75)
    extra = ""
    if close:
        extra = "\n" + tr("Did you mean: " + ", ".join(
            lookup(c).names[[n.lower() for n in lookup(c).names].index(c)] for c in close) + "?")
    return _usage(repr(text)) + extra


class Explanation(str):
    """The text :func:`explain` printed.  A str; Jupyter shows nothing more for it when it is a
    cell's last value (the text is on the screen already, once)."""

    def _ipython_display_(self):
        pass


#: the longest text explain() searches (a whole report pasted in is a few thousand characters)
MAX_TEXT = 20_000


def explain(error_or_code, *, file=None) -> str:
    """Explain an error or a symptom the way the article's §5.1 table does, and print it.

    ``error_or_code`` may be an exception (umkit's, or any other whose text names an error), an
    int code (a code that means different things on HIP, CUDA and HSA shows each, labelled), an
    error name on any runtime (case-insensitive), or a symptom such as ``'wrong result'``,
    ``'slow'``, ``'erratic'``, ``'thrash'``.  Prints to ``file`` (default stdout) and returns the
    text.  Input it can't place gets a message on how to call it, never an exception.
    """
    x = error_or_code
    if file is not None and not callable(getattr(file, "write", None)):
        from ..validate import shown
        raise InvalidType(f"file={shown(file)} is not a text stream", argument="file",
                          hint="leave it out (stdout), or pass sys.stderr or an io.StringIO()")
    if isinstance(x, BaseException):
        text = _explain_exception(x)
    elif isinstance(x, bool):
        raise InvalidType(f"explain(error_or_code={x!r}): a bool is not an error",
                          hint="pass an exception, an int error code, an error name or a "
                               "symptom string")
    elif isinstance(x, str):
        if len(x) > MAX_TEXT:
            raise InvalidArgument(f"explain(error_or_code=...): a text of {len(x):,} characters; "
                                  f"an error name or a symptom is at most {MAX_TEXT:,}",
                                  argument="error_or_code",
                                  hint="pass the error's name or a few words of the symptom "
                                       "(the exception itself: umkit.explain(err))")
        from ..validate import plain
        text = _explain_text(plain(x))
    elif isinstance(getattr(x, "name", None), str) and lookup(x.name) is not None:
        text = _explain_text(x.name)          # an enum member: hipError_t / cudaError_t
    else:
        try:
            code = operator.index(x.value if isinstance(x, enum.Enum) else x)
        except TypeError:
            raise InvalidType(
                f"explain(error_or_code=...): got a {type(x).__name__}, expected an exception, "
                f"an int error code or a str",
                hint="e.g. umkit.explain(err), umkit.explain(2), "
                     "umkit.explain('hipErrorOutOfMemory'), umkit.explain('slow')") from None
        text = _explain_code(code)
    print(text, file=file if file is not None else sys.stdout)
    return Explanation(text)
