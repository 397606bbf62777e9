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


def test_a_newcomers_first_day_within_five_hours():
    """A newcomer takes the core path in two days; the first day's notebooks (those not marked for
    the second) fit the same five hours, stated and estimated, and both days together are the
    whole core path."""
    core = [r for r in ROWS if not r["optional"]]
    day1 = [r for r in core if not r["newcomer_day_two"]]
    assert 0 < len(day1) < len(core)
    assert sum(r["newcomer_stated_min"] for r in day1) <= cs.CORE_PATH_MINUTES
    assert sum(r["newcomer_estimate_min"] for r in day1) <= cs.CORE_PATH_MINUTES
    assert not any(r["newcomer_day_two"] for r in ROWS if r["optional"])


def test_words_counts_outside_details_only():
    md = "one two <details><summary>Under the hood</summary>three four five</details> six"
    assert cs.words(cs.core_text(md)) == 3
    assert cs.words(md) == 9   # the summary and the hidden words count in the total


# -- two readers: the engineer who knows CUDA and the newcomer to GPUs --------------------------------
import json
import re

TOTALS = cs.totals(ROWS)
MAP_ROW = re.compile(r"^\| \*\*(\d\d\w?) [^|]*\| [^|]*\| ([^|]+) \| (\d+) \((\d+)\) \|$", re.M)
README_ROW = re.compile(r"^\| `(\d\d\w?)_[^`]*`[^|]* \| ([^|]+) \|", re.M)


def _cell(nb: str, cid: str) -> str:
    cells = json.loads((ROOT / "notebooks" / nb).read_text(encoding="utf-8"))["cells"]
    return next(cs.cell_source(c) for c in cells if c.get("id") == cid)


@pytest.mark.parametrize("row", ROWS, ids=[r["notebook"] for r in ROWS])
def test_states_the_newcomer_time_too(row):
    """'about N minutes (about M if you are new to GPUs)': M is the newcomer estimate to the
    nearest five minutes (a little drift allowed), and never less than N."""
    m = row["newcomer_stated_min"]
    assert m is not None, f"{row['notebook']}: first cell lacks '(about M if you are new to GPUs)'"
    assert m > row["stated_min"], row["notebook"]
    est = row["newcomer_estimate_min"]
    assert est - cs.NEWCOMER_SLACK_MIN <= m <= max(est, row["stated_min"]) + cs.NEWCOMER_SLACK_MIN, (
        f"{row['notebook']}: says {m} min for a newcomer, the estimate is {est}")


def test_the_rates_reproduce_the_timed_walk():
    """The walk of the core path estimated 270 min for the CUDA engineer and 403 for the newcomer;
    the two rate sets must land near those (within 10 %), and the newcomer's well above."""
    assert abs(TOTALS["estimate_min"] - 270) <= 27, TOTALS
    assert abs(TOTALS["newcomer_estimate_min"] - 403) <= 40, TOTALS
    assert TOTALS["newcomer_estimate_min"] >= 1.25 * TOTALS["estimate_min"]


def test_start_heres_map_is_the_notebooks_own_times_and_the_readmes_sections():
    text = _cell("00_start_here.ipynb", "nb00-17")
    readme = dict(README_ROW.findall((ROOT / "README.md").read_text(encoding="utf-8")))
    rows = {r["notebook"].split("_")[0]: r for r in ROWS}
    found = {k: (sec.strip(), int(n), int(m)) for k, sec, n, m in MAP_ROW.findall(text)}
    assert sorted(found) == sorted(rows), "00's map lists every notebook once"
    for k, (sec, n, m) in found.items():
        assert (n, m) == (rows[k]["stated_min"], rows[k]["newcomer_stated_min"]), k
        assert sec == readme[k].strip(), f"{k}: 00 says {sec}, README.md says {readme[k]}"
    assert "strategy panel" not in text.split("| **03")[1].split("\n")[0]    # 03 has no panel


@pytest.mark.parametrize("path,unit", [("README.md", " minutes"), ("README.zh-CN.md", " 分钟")])
def test_readmes_and_00_say_both_totals(path, unit):
    for text in ((ROOT / path).read_text(encoding="utf-8"), _cell("00_start_here.ipynb", "nb00-17")):
        for total in (TOTALS["stated_min"], TOTALS["newcomer_stated_min"], TOTALS["newcomer_day_one_min"]):
            assert re.search(rf"\b{total}(\s|{unit.strip()})", text), (path, total)
    assert TOTALS["stated_min"] <= cs.CORE_PATH_MINUTES


GLOSSARY_LINK = re.compile(r"\]\(((?:\.\./)+docs/glossary\.md)(#[^)]*)?\)")


def test_glossary_links_land_on_their_term():
    """A link to the glossary names the term's anchor (an <a id> in docs/glossary.md); JupyterLab's
    markdown viewer scrolls to it.  Notebooks 00-07 have every link anchored."""
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")))
    for p in sorted((ROOT / "notebooks").rglob("*.ipynb")):
        if ".ipynb_checkpoints" in p.parts:
            continue
        for c in json.loads(p.read_text(encoding="utf-8"))["cells"]:
            if c["cell_type"] != "markdown":
                continue
            for _, frag in GLOSSARY_LINK.findall(cs.cell_source(c)):
                if frag:
                    assert frag[1:] in anchors, (p.name, frag)
                elif p.parent.name == "notebooks" and p.name[:2] <= "07" and p.name[:3] != "07b":
                    pytest.fail(f"{p.name} {c.get('id')}: a glossary link without the term's anchor")


def test_every_prediction_is_followed_by_a_why():
    """Issue 42, item 3: predict -> measure -> explain everywhere: each code cell that records a
    prediction (predict(...)) has a "Why?" in one of the two markdown cells after it."""
    import re

    import nbformat
    root = ROOT / "notebooks"
    missing, total = [], 0
    for p in sorted(root.glob("[01]*.ipynb")):
        cells = nbformat.read(str(p), as_version=4).cells
        for i, c in enumerate(cells):
            if c.cell_type == "code" and re.search(r"\bpredict\(", c.source):
                total += 1
                after = [d for d in cells[i + 1:] if d.cell_type == "markdown"][:2]
                if not any("Why?" in d.source for d in after):
                    missing.append((p.name, i))
    assert total >= 20 and missing == [], (total, missing)


WHY_MARKS = ((ROOT / "notebooks", "**Why?**", "Answer"), (ROOT / "notebooks" / "zh", "**为什么？**", "答案"))


def _why_cells():
    """(notebook path relative to the repository, cell, the Why? mark, the answer's summary) of
    every markdown cell with a "Why?" in both editions."""
    import nbformat
    for root, mark, summary in WHY_MARKS:
        for p in sorted(root.glob("[01]*.ipynb")):
            for c in nbformat.read(str(p), as_version=4).cells:
                if c.cell_type == "markdown" and mark in c.source:
                    yield p.relative_to(ROOT).as_posix(), c, mark, summary


def test_a_why_asks_and_does_not_answer_itself():
    """A "**Why?**" is a question the learner answers before reading on: its paragraph asks (a
    question mark) and after the question says at most what to do ("Write it down."), never the
    explanation, in both editions."""
    told = []
    for rel, c, mark, _ in _why_cells():
        para = c.source[c.source.index(mark) + len(mark):].split("\n\n")[0].strip()
        asked = max(para.rfind("?"), para.rfind("？"))
        if asked < 0 or len(para[asked + 1:]) > 80:
            told.append((rel, c.get("id"), para[:60]))
    assert told == [], f"a Why? that tells the answer in its own paragraph: {told}"


def test_a_why_opens_its_cell():
    """Nothing in a "Why?"'s own cell explains before it asks: the question is the cell's first
    paragraph, and the explanation, if the cell has one, follows in a collapsed answer, both
    editions."""
    late, open_answer, seen = [], [], 0
    for rel, c, mark, summary in _why_cells():
        paras = c.source.split("\n\n")
        seen += 1
        if mark not in paras[0]:
            late.append((rel, c.get("id")))
        elif len(paras) > 1 and not paras[1].startswith(f"<details><summary>{summary}</summary>"):
            open_answer.append((rel, c.get("id")))
    assert seen >= 40, seen                                   # both editions' Why? cells were read
    assert late == [], f"a Why? asked after its cell already explained: {late}"
    assert open_answer == [], f"a Why? whose explanation shows under it, not collapsed: {open_answer}"
