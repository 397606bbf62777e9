"""The committed hub load test: its document says what was measured (date, device, backend,
machine), its summary follows from its rounds, and the presenter guide quotes it unchanged."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
pytest.importorskip("psutil")
pytest.importorskip("requests")
import hub_load  # noqa: E402

GUIDE = ROOT / "notebooks" / "workshop" / "README.md"


def _committed():
    m = re.search(r"<!-- hub-load: generated from (\S+) by hub_load.guide_table -->\n(.*?)\n"
                  r"<!-- /hub-load -->", GUIDE.read_text(), re.S)
    assert m, "the presenter guide has no hub-load block"
    return json.loads((ROOT / m.group(1)).read_text()), m.group(2)


def test_the_guide_quotes_the_committed_load_test():
    doc, block = _committed()
    assert block == hub_load.guide_table(doc)


def test_the_results_document_is_complete_and_consistent():
    doc, _ = _committed()
    assert doc["backend"] == "sim" and doc["device"] and re.fullmatch(r"\d{4}-\d\d-\d\d", doc["date"])
    rounds = doc["rounds"]
    assert [r["learners"] for r in rounds] == sorted(r["learners"] for r in rounds)
    assert rounds[0]["learners"] == 1 and rounds[0]["failed"] == 0
    for r in rounds:
        assert len(r["per_learner"]) == r["learners"]
        assert r["failed"] == sum(1 for x in r["per_learner"] if x["failed"])
    # the summary is what summarize() makes of the rounds
    s = doc["summary"]
    assert s == hub_load.summarize(rounds, s["cores"], s["stop_at_x"])
    assert s["learners_held"] >= 1 and s["rss_per_learner_bytes"] > 50 << 20


def test_summarize_stops_at_the_first_slow_or_failed_round():
    def rnd(n, t, failed=0):
        return {"learners": n, "failed": failed, "notebook_s_max": t, "cpu_s_per_learner": 10.0,
                "rss_per_learner_median": 300 << 20, "uss_per_learner_median": 250 << 20}
    s = hub_load.summarize([rnd(1, 10), rnd(4, 20), rnd(8, 50), rnd(12, 30, failed=1)], 2, 4.0)
    assert s["learners_held"] == 4 and s["learners_per_core"] == 2.0
    assert s["room"]["30"]["cores_all_run_at_once"] == 15
    assert s["room"]["30"]["cores_each_once_in_10_min"] == 30 * 10 / 600
