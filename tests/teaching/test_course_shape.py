"""The course's shape: a learner can finish it.  Core prose (markdown outside <details>) at most
2,000 words a notebook, every notebook states its time, the stated time covers the estimate of
scripts/course_stats.py, and the core path sums to at most five hours."""
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("course_stats", ROOT / "scripts" / "course_stats.py")
cs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cs)
ROWS = cs.course(ROOT)


@pytest.mark.parametrize("row", ROWS, ids=[r["notebook"] for r in ROWS])
def test_core_prose_within_limit(row):
    assert row["core_words"] <= cs.CORE_WORD_LIMIT, (
        f"{row['notebook']}: {row['core_words']} words of core prose; move depth into "
        f"<details> 'Under the hood' blocks or docs/")


@pytest.mark.parametrize("row", ROWS, ids=[r["notebook"] for r in ROWS])
def test_states_its_time_and_covers_estimate(row):
    assert row["stated_min"] is not None, f"{row['notebook']}: first cell lacks '**Time:** about N minutes'"
    assert row["stated_min"] >= row["estimate_min"] - 2.5, (
        f"{row['notebook']}: says {row['stated_min']} min, the estimate is {row['estimate_min']}")


def test_core_path_within_five_hours():
    core = [r for r in ROWS if not r["optional"]]
    assert sum(r["stated_min"] or 0 for r in core) <= cs.CORE_PATH_MINUTES
    assert sum(r["estimate_min"] for r in core) <= cs.CORE_PATH_MINUTES


def test_words_counts_outside_details_only():
    md = "one two <details><summary>Under the hood</summary>three four five</details> six"
    assert cs.words(cs.core_text(md)) == 3
    assert cs.words(md) == 9   # the summary and the hidden words count in the total
