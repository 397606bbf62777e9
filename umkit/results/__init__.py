"""The GPU runs committed under ``benchmarks/results/``: the newest one of a kind, for the
notebooks and widgets that show a real card's numbers beside sim's (``recorder.published``,
``umperf.published``)."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable

from ..errors import InvalidArgument

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


def newest(pattern: str, pick: Callable, results_dir=None, what: str = "", hint: str = ""):
    """The newest file matching ``pattern`` under the results folder that ``pick`` accepts --
    ``pick(doc)`` returns ``(date, payload)``, or None to pass the file over -- as
    ``(shown path, run folder, payload, path)``; None when there is none.  Newest by the date the
    run recorded, then by its run folder with the numbers compared as numbers (run13 after
    run9).  A file that is not JSON is a typed error naming it."""
    root = Path(results_dir) if results_dir is not None else RESULTS
    found = []
    for path in root.glob(pattern):
        try:
            doc = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise InvalidArgument(f"{path} is not a {what} result ({type(e).__name__}: {e})",
                                  hint=hint) from None
        got = pick(doc)
        if got is None:
            continue
        run = path.relative_to(root).parts[0]
        natural = [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", run)]
        found.append(((str(got[0]), natural), path, run, got[1]))
    if not found:
        return None
    _, path, run, payload = max(found, key=lambda f: f[0])
    shown = str(path.relative_to(root.parent.parent)) if root == RESULTS else str(path)
    return shown, run, payload, path
