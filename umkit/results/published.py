"""Reading the GPU runs committed under ``benchmarks/results/``: a result file read without
blocking and within a size limit (:func:`read_json`), and the newest run of a kind
(:func:`newest`)."""
from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Callable

from ..errors import InvalidArgument

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


#: the largest result file :func:`read_json` reads (a committed run is KiB to a few MiB)
MAX_RESULT = 64 << 20


def read_json(path, what: str = "", hint: str = "", argument: str = "results_dir"):
    """The JSON document in the file ``path``, read without ever blocking (a FIFO or a device
    under that name is refused, not waited on) and at most :data:`MAX_RESULT` bytes; a file that
    is not a regular file, too large, not UTF-8, not JSON or nested too deep is an
    :class:`InvalidArgument` naming it (its ``argument``: the caller's name for the file)."""
    def refuse(why):
        return InvalidArgument(f"{_shown_path(path)} is not a {what + ' ' if what else ''}result "
                               f"({why})",
                               argument=argument, hint=hint)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise refuse(f"cannot be read: {e.strerror or type(e).__name__}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise refuse("not a regular file")
        if st.st_size > MAX_RESULT:
            raise refuse(f"larger than {MAX_RESULT >> 20} MiB")
        with os.fdopen(fd, "rb") as f:
            fd = None
            raw = f.read(MAX_RESULT + 1)
    except OSError as e:
        raise refuse(f"cannot be read: {e.strerror or type(e).__name__}") from None
    finally:
        if fd is not None:
            os.close(fd)
    if len(raw) > MAX_RESULT:
        raise refuse(f"larger than {MAX_RESULT >> 20} MiB")
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise refuse("not UTF-8 text") from None
    except RecursionError:
        raise refuse("JSON nested too deep") from None
    except ValueError as e:          # JSONDecodeError, or an int of more than 4300 digits
        raise refuse(f"not JSON: {type(e).__name__}") from None


def _shown_path(path, limit: int = 200) -> str:
    """A path for a message: control characters escaped, at most ``limit`` characters (this
    layer comes before :mod:`umkit.validate`, whose ``clean`` does the same for values)."""
    text = repr(str(path))[1:-1]              # repr escapes control characters
    return text if len(text) <= limit else text[:limit - 3] + "..."


def newest(pattern: str, pick: Callable, results_dir=None, what: str = "", hint: str = ""):
    """The newest file matching ``pattern`` under the results folder that ``pick`` accepts --
    ``pick(doc)`` returns ``(date, payload)``, or None to pass the file over -- as
    ``(shown path, run folder, payload, path)``; None when there is none.  Newest by the date the
    run recorded, then by its run folder with the numbers compared as numbers (run13 after
    run9).  A file that is not JSON is a typed error naming it."""
    root = Path(results_dir) if results_dir is not None else RESULTS
    found = []
    try:
        paths = sorted(root.glob(pattern))
    except (OSError, ValueError) as e:      # a name too long, a loop of links, a NUL byte
        raise InvalidArgument(f"results_dir={_shown_path(root)} cannot be searched "
                              f"({getattr(e, 'strerror', None) or type(e).__name__})",
                              argument="results_dir", hint=hint) from None
    for path in paths:
        doc = read_json(path, what, hint)
        got = pick(doc)
        if got is None:
            continue
        run = path.relative_to(root).parts[0]
        natural = [int(t) if t.isascii() and t.isdigit() else t
                   for t in re.split(r"([0-9]+)", run)]
        found.append(((str(got[0]), natural), path, run, got[1]))
    if not found:
        return None
    _, path, run, payload = max(found, key=lambda f: f[0])
    shown = str(path.relative_to(root.parent.parent)) if root == RESULTS else str(path)
    return shown, run, payload, path
