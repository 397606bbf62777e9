"""Short tracebacks for umkit's typed errors in IPython and Jupyter.

A mistake in a learner's cell -- ``umkit.managed(-1)``, a freed array used again -- raises a
typed umkit error whose message names the argument and the fix.  Python's traceback would show
three to nine frames of umkit's own code above that message; in IPython those frames are left
out, and one line says how many and how to see them (``UMKIT_FULL_TRACEBACKS=1`` in the
environment, or :func:`full`).  Frames of the learner's code, and of code umkit calls back
(a kernel function, a training step), stay.  Nothing changes outside IPython, and nothing
changes when another handler for these errors was registered first.
"""
from __future__ import annotations

import os
import types
from pathlib import Path

from ..errors import UmkitError

#: where umkit's own code lives: frames in files below it are hidden
PACKAGE = str(Path(__file__).resolve().parents[1]) + os.sep
ENV = "UMKIT_FULL_TRACEBACKS"
NOTE = "(umkit's own {n} frame{s} left out of this traceback; umkit.runtime.tracebacks.full() " \
       "or UMKIT_FULL_TRACEBACKS=1 shows them)"
_full = [False]          # full() sets it: show every frame


def full(on: bool = True) -> None:
    """Show umkit's own frames in tracebacks again (``on=False``: leave them out)."""
    if not isinstance(on, bool):
        from ..errors import InvalidType
        raise InvalidType(f"on={on!r} must be True or False", argument="on",
                          hint="umkit.runtime.tracebacks.full() or full(False)")
    _full[0] = on


def own(tb) -> bool:
    return os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(PACKAGE)


def without_umkit(tb):
    """``tb`` without umkit's own frames, and how many were left out."""
    kept, dropped = [], 0
    while tb is not None:
        if own(tb):
            dropped += 1
        else:
            kept.append(tb)
        tb = tb.tb_next
    out = None
    for t in reversed(kept):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out, dropped


def show(shell, etype, value, tb, tb_offset=None):
    """IPython's custom handler for :class:`UmkitError`: the traceback without umkit's frames."""
    dropped = 0
    if not (_full[0] or os.environ.get(ENV, "") not in ("", "0")):
        short, dropped = without_umkit(tb)
        if short is not None:
            tb = short
        else:
            dropped = 0
    if dropped and hasattr(value, "add_note"):
        note = NOTE.format(n=dropped, s="" if dropped == 1 else "s")
        if note not in getattr(value, "__notes__", ()):
            value.add_note(note)
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)
    return None


def install(shell) -> bool:
    """Register :func:`show` for umkit's errors in ``shell`` (an IPython shell); False when the
    shell already has a handler of its own for some exception."""
    current = tuple(getattr(shell, "custom_exceptions", ()) or ())
    if current == (UmkitError,):
        return True
    if current:
        return False
    shell.set_custom_exc((UmkitError,), show)
    return True
