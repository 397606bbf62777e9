"""How long the course takes, notebook by notebook: the numbers the course-shape test checks.

    python scripts/course_stats.py            # a table for the English notebooks
    python scripts/course_stats.py --json     # the same as JSON

Core prose is the words of markdown cells outside ``<details>`` blocks (what a learner reads
unless they open an "Under the hood" block).  Each notebook's time is estimated for two readers,
with one formula and two sets of rates:

    minutes = core words / wpm  +  share x "Under the hood" words / wpm  +  code lines / lpm
              + per_prompt x (predict() calls + **Why?** questions)  +  per_exercise x exercises
              (+ the primer, for the newcomer, in the notebook that links it first)

================================  =====================  =======================
rate                              engineer who knows     newcomer to GPUs
                                  CUDA (``cuda``)        (``newcomer``)
================================  =====================  =======================
reading (wpm)                     200                    150
share of "Under the hood" read    50 %                   25 %
code read and run (lines/min)     25                     15
each predict or Why? (min)        1                      1.5
each graded exercise (min)        5                      8
the one-screen primer (min)       --                     3
================================  =====================  =======================

The engineer who knows CUDA reads technical English at an ordinary speed, opens half of the
driver detail (it is written for them) and reads code fast; the newcomer reads carefully, opens
less of the detail, and needs longer for code, predictions and exercises.  Code lines are the
non-blank lines of code cells; an exercise is a ``check_*``/``.check(`` call.  A notebook's first
cell states both: ``**Time:** about N minutes (about M if you are new to GPUs)``; N is the
engineer's, M the newcomer's.  A notebook whose first cell says ``**Optional**`` is outside the
core path.  A newcomer takes the core path in two days: a notebook whose first cell says
``**New to GPUs?** Take this notebook on a second day`` is on the second; the first day's part is
held to the same five hours as the engineer's whole path.  These rates reproduce a timed walk of
the core path with both readers in mind (299 minutes stated; the walk estimated 270 for the CUDA
engineer and 403 for the newcomer)."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RATES = {
    "cuda": {"wpm": 200, "hood_share": 0.5, "lines_per_min": 25, "per_prompt": 1.0,
             "per_exercise": 5.0, "primer": 0.0},
    "newcomer": {"wpm": 150, "hood_share": 0.25, "lines_per_min": 15, "per_prompt": 1.5,
                 "per_exercise": 8.0, "primer": 3.0},
}
WORDS_PER_MINUTE = RATES["cuda"]["wpm"]
CORE_WORD_LIMIT = 2000
CORE_PATH_MINUTES = 300          # the engineer who knows CUDA finishes the core path in a day,
                                 # and a newcomer the first day's part of it (the rest on a second day)
NEWCOMER_SLACK_MIN = 5           # a stated newcomer time is the estimate to the nearest 5 minutes
TIME_RE = re.compile(r"\*\*Time:\*\*\s*about\s+(\d+)\s+min", re.I)
NEWCOMER_RE = re.compile(r"\*\*Time:\*\*\s*about\s+\d+\s+minutes\s+\(about\s+(\d+)\s+if you are new to GPUs\)",
                         re.I)
DAY_TWO_RE = re.compile(r"\*\*New to GPUs\?\*\*\s*Take this notebook on a second day")
CHECK_RE = re.compile(r"\bcheck_\w+\(|\.check\(")
PREDICT_RE = re.compile(r"\bpredict\(")
WHY_RE = re.compile(r"\*\*Why\?\*\*")
PRIMER_RE = re.compile(r"\]\([^)]*primer\.md\)")
DETAILS_RE = re.compile(r"<details\b.*?</details>", re.S | re.I)


def cell_source(cell) -> str:
    """A cell's source as one string (nbformat stores a list of lines or a string)."""
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def core_text(markdown: str) -> str:
    """The markdown a learner reads without opening a collapsed block."""
    return DETAILS_RE.sub(" ", markdown)


def words(text: str) -> int:
    text = re.sub(r"<[^>]+>", " ", text)            # tags are not words
    return len(re.findall(r"[A-Za-z0-9_`'.\-/]+|[\u4e00-\u9fff]", text))


def estimate(counts: dict, reader: str) -> float:
    """Minutes for ``reader`` ('cuda' or 'newcomer') from a notebook's counts."""
    r = RATES[reader]
    return (counts["core_words"] / r["wpm"]
            + r["hood_share"] * counts["under_the_hood_words"] / r["wpm"]
            + counts["code_lines"] / r["lines_per_min"]
            + r["per_prompt"] * (counts["predicts"] + counts["whys"])
            + r["per_exercise"] * counts["exercises"]
            + (r["primer"] if counts["links_primer"] else 0.0))


def nearest5(minutes: float) -> int:
    return int(5 * round(minutes / 5))


def stats(path: Path) -> dict:
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = nb["cells"]
    md = [cell_source(c) for c in cells if c["cell_type"] == "markdown"]
    code = [cell_source(c) for c in cells if c["cell_type"] == "code"]
    core = sum(words(core_text(m)) for m in md)
    total = sum(words(m) for m in md)
    first = md[0] if md else ""
    counts = {"core_words": core, "under_the_hood_words": total - core,
              "code_cells": len(code),
              "code_lines": sum(1 for c in code for line in c.splitlines() if line.strip()),
              "predicts": sum(len(PREDICT_RE.findall(c)) for c in code),
              "whys": sum(len(WHY_RE.findall(m)) for m in md),
              "exercises": sum(len(CHECK_RE.findall(c)) for c in code),
              "links_primer": bool(PRIMER_RE.search(first))}
    m = TIME_RE.search(first)
    n = NEWCOMER_RE.search(first)
    return {"notebook": path.name, **counts,
            "estimate_min": round(estimate(counts, "cuda"), 1),
            "newcomer_estimate_min": round(estimate(counts, "newcomer"), 1),
            "stated_min": int(m.group(1)) if m else None,
            "newcomer_stated_min": int(n.group(1)) if n else None,
            "optional": "**Optional**" in first,
            "newcomer_day_two": bool(DAY_TWO_RE.search(first))}


def course(root: Path = ROOT) -> list[dict]:
    return [stats(p) for p in sorted((root / "notebooks").glob("[0-9][0-9]*.ipynb"))]


def totals(rows: list[dict]) -> dict:
    core = [r for r in rows if not r["optional"]]
    return {"stated_min": sum(r["stated_min"] or 0 for r in core),
            "newcomer_stated_min": sum(r["newcomer_stated_min"] or 0 for r in core),
            "newcomer_day_one_min": sum(r["newcomer_stated_min"] or 0 for r in core
                                        if not r["newcomer_day_two"]),
            "newcomer_day_one_estimate_min": round(sum(r["newcomer_estimate_min"] for r in core
                                                       if not r["newcomer_day_two"])),
            "estimate_min": round(sum(r["estimate_min"] for r in core)),
            "newcomer_estimate_min": round(sum(r["newcomer_estimate_min"] for r in core))}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    rows = course()
    if "--json" in argv:
        print(json.dumps(rows, indent=1))
        return 0
    print(f"{'notebook':40} {'core':>5} {'hood':>5} {'lines':>5} {'p+w':>4} {'ex':>3} "
          f"{'cuda est':>8} {'stated':>6} {'new est':>7} {'stated':>6}")
    for r in rows:
        print(f"{r['notebook']:40} {r['core_words']:5} {r['under_the_hood_words']:5} {r['code_lines']:5} "
              f"{r['predicts'] + r['whys']:4} {r['exercises']:3} {r['estimate_min']:8} {str(r['stated_min']):>6} "
              f"{r['newcomer_estimate_min']:7} {str(r['newcomer_stated_min']):>6}"
              f"{'  optional' if r['optional'] else '  newcomer day 2' if r['newcomer_day_two'] else ''}")
    t = totals(rows)
    print(f"core path, engineer who knows CUDA: {t['stated_min']} min stated, {t['estimate_min']} estimated "
          f"(limit {CORE_PATH_MINUTES}); newcomer: {t['newcomer_stated_min']} min stated, "
          f"{t['newcomer_estimate_min']} estimated; newcomer's first day: {t['newcomer_day_one_min']} min "
          f"stated, {t['newcomer_day_one_estimate_min']} estimated (limit {CORE_PATH_MINUTES})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
