"""How long the course takes, notebook by notebook: the numbers the course-shape test checks.

    python scripts/course_stats.py            # a table for the English notebooks
    python scripts/course_stats.py --json     # the same as JSON

Core prose is the words of markdown cells outside ``<details>`` blocks (what a learner reads
unless they open an "Under the hood" block).  The estimate of a focused learner's time is

    minutes = core words / 150  +  1 per code cell  +  6 per graded exercise

150 words a minute is a careful reading speed for technical prose (about two thirds of the 230
to 250 words a minute usually quoted for plain English text); a code cell costs a minute to run
and read its output; an exercise (a ``check_*``/``.check(`` call) about six minutes to think,
write and re-run.  A notebook whose first cell says ``**Optional**`` is outside the core path.
The timed walk-throughs in the closing notes are the check on this estimate."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS_PER_MINUTE = 150
MIN_PER_CODE_CELL = 1.0
MIN_PER_EXERCISE = 6.0
CORE_WORD_LIMIT = 2000
CORE_PATH_MINUTES = 300
TIME_RE = re.compile(r"\*\*Time:\*\*\s*about\s+(\d+)\s+min", re.I)
CHECK_RE = re.compile(r"\bcheck_\w+\(|\.check\(")
DETAILS_RE = re.compile(r"<details\b.*?</details>", re.S | re.I)


def _src(cell) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def core_text(markdown: str) -> str:
    """The markdown a learner reads without opening a collapsed block."""
    return DETAILS_RE.sub(" ", markdown)


def words(text: str) -> int:
    text = re.sub(r"<[^>]+>", " ", text)            # tags are not words
    return len(re.findall(r"[A-Za-z0-9_`'.\-/]+|[\u4e00-\u9fff]", text))


def stats(path: Path) -> dict:
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = nb["cells"]
    md = [_src(c) for c in cells if c["cell_type"] == "markdown"]
    code = [_src(c) for c in cells if c["cell_type"] == "code"]
    core = sum(words(core_text(m)) for m in md)
    total = sum(words(m) for m in md)
    exercises = sum(len(CHECK_RE.findall(c)) for c in code)
    estimate = core / WORDS_PER_MINUTE + MIN_PER_CODE_CELL * len(code) + MIN_PER_EXERCISE * exercises
    first = md[0] if md else ""
    m = TIME_RE.search(first)
    return {"notebook": path.name, "core_words": core, "under_the_hood_words": total - core,
            "code_cells": len(code), "exercises": exercises, "estimate_min": round(estimate, 1),
            "stated_min": int(m.group(1)) if m else None,
            "optional": "**Optional**" in first}


def course(root: Path = ROOT) -> list[dict]:
    return [stats(p) for p in sorted((root / "notebooks").glob("[0-9][0-9]*.ipynb"))]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    rows = course()
    if "--json" in argv:
        print(json.dumps(rows, indent=1))
        return 0
    print(f"{'notebook':44} {'core':>5} {'hood':>5} {'code':>4} {'ex':>3} {'est':>5} {'stated':>6}")
    for r in rows:
        print(f"{r['notebook']:44} {r['core_words']:5} {r['under_the_hood_words']:5} {r['code_cells']:4} "
              f"{r['exercises']:3} {r['estimate_min']:5} {str(r['stated_min']):>6}{'  optional' if r['optional'] else ''}")
    core = [r for r in rows if not r["optional"]]
    print(f"core path: {sum(r['stated_min'] or 0 for r in core)} min stated, "
          f"{sum(r['estimate_min'] for r in core):.0f} min estimated (limit {CORE_PATH_MINUTES})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
