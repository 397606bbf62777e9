"""The presenter guide (notebooks/workshop/README.md and its Chinese edition) says what the course
and the dashboard say:

- its agendas add up: every row's minutes are its clock span, rows follow each other, a notebook's
  row takes exactly the minutes the notebook states in its first cell (scripts/course_stats.py),
  the full day plays the whole core path, and each agenda ends at the length its heading gives;
- its table of the notebooks' times is course_stats' numbers;
- the estimate counts it quotes are the hardware picker's labels;
- its memory-ECG table is what the dashboard's ECG button records (the button's own step count);
- it promises no Binder badge the top-level README lacks.

The generated blocks are re-made with ``python tests/teaching/test_presenter_guide.py`` (prints
them) or ``... --write`` (writes them into the English guide; the Chinese blocks that quote them
are then stale for scripts/build_zh.py until their catalogue entries are updated)."""
from __future__ import annotations

import importlib.util
import inspect
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "notebooks" / "workshop" / "README.md"
GUIDE_ZH = ROOT / "notebooks" / "zh" / "workshop" / "README.md"


def _course_stats():
    spec = importlib.util.spec_from_file_location("course_stats", ROOT / "scripts" / "course_stats.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def course() -> dict[str, dict]:
    """{'00': row, ..., '07b': row}: course_stats' rows by notebook number."""
    return {r["notebook"].split("_")[0]: r for r in _course_stats().course(ROOT)}


# -- the generated blocks ---------------------------------------------------------------------------
def times_table() -> str:
    """Each notebook's stated minutes (its first cell; course_stats checks they cover the
    estimate), so the table moves only when a notebook's stated time does."""
    rows = ["| notebook | minutes | new to GPUs | path |", "|---|---|---|---|"]
    cs = course()
    for key, r in cs.items():
        path = "optional" if r["optional"] else "core, newcomers' day 2" if r["newcomer_day_two"] else "core"
        rows.append(f"| {r['notebook'][:-len('.ipynb')]} | {r['stated_min']} | {r['newcomer_stated_min']} | "
                    f"{path} |")
    core = [r for r in cs.values() if not r["optional"]]
    day1 = [r for r in core if not r["newcomer_day_two"]]
    opt = [r for r in cs.values() if r["optional"]]
    for name, part in ((f"core path ({len(core)} notebooks)", core),
                       (f"newcomers' day 1 ({len(day1)} notebooks)", day1),
                       (f"optional ({len(opt)} notebooks)", opt)):
        rows.append(f"| {name} | {sum(r['stated_min'] for r in part)} | "
                    f"{sum(r['newcomer_stated_min'] or 0 for r in part)} | |")
    return "\n".join(rows)


def picker_lines() -> str:
    from umkit.teaching.widgets.panel import PROFILE_CHOICES, profile_label
    return "\n".join(f"- `{name}`: {profile_label(name)}" for name, _ in PROFILE_CHOICES)


BLOCKS = {"course-times": times_table, "picker": picker_lines}


def _block_re(name: str):
    return re.compile(rf"(<!-- {name}: [^>]*-->\n)(.*?)(<!-- /{name} -->)", re.S)


def block(text: str, name: str) -> str:
    m = _block_re(name).search(text)
    assert m, f"the guide has no <!-- {name}: ... --> block"
    return m.group(2)[:-1] if m.group(2).endswith("\n") else m.group(2)


def write() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    for name, make in BLOCKS.items():
        assert _block_re(name).search(text), name
        text = _block_re(name).sub(lambda m: m.group(1) + make() + "\n" + m.group(3), text, count=1)
    GUIDE.write_text(text, encoding="utf-8")


# -- agendas ----------------------------------------------------------------------------------------
AGENDA_HEADING = re.compile(r"^##\s+(.*agenda.*|.*议程.*)$", re.M | re.I)
SPAN = re.compile(r"^(\d+(?::\d\d)?)\s*[–-]\s*(\d+(?::\d\d)?)$")
NOTEBOOK = re.compile(r"\bnotebook (\d\db?)\b")


def _minutes(t: str) -> int:
    h, _, m = t.partition(":")
    return int(h) * 60 + int(m) if m else int(h)


def agendas(text: str) -> list[dict]:
    """Each ``## ... agenda`` section: its heading and its table's rows as (start, end, stated
    minutes or None, notebooks named, the row)."""
    out = []
    heads = list(AGENDA_HEADING.finditer(text))
    for h in heads:
        nxt = re.search(r"^##\s", text[h.end():], re.M)
        body = text[h.end(): h.end() + nxt.start()] if nxt else text[h.end():]
        rows = []
        for line in body.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not line.startswith("|") or not SPAN.match(cells[0]):
                continue
            a, b = (_minutes(x) for x in SPAN.match(cells[0]).groups())
            mins = int(cells[1]) if cells[1].isdigit() else None
            rows.append(dict(start=a, end=b, minutes=mins,
                             notebooks=NOTEBOOK.findall(" ".join(cells[2:])), row=line))
        out.append(dict(heading=h.group(1), rows=rows))
    return out


def _length_in_heading(heading: str) -> int | None:
    m = re.search(r"(\d+)\s*h(?:ours?)?\s*(\d+)?\s*(?:min)?|(\d+)-minute|(\d+)\s*小时\s*(\d+)?|"
                  r"(\d+)\s*分钟", heading)
    if not m:
        return None
    g = m.groups()
    if g[0]:
        return int(g[0]) * 60 + int(g[1] or 0)
    if g[2]:
        return int(g[2])
    if g[3]:
        return int(g[3]) * 60 + int(g[4] or 0)
    return int(g[5])


@pytest.fixture(scope="module")
def guide() -> str:
    return GUIDE.read_text(encoding="utf-8")


NEWCOMER_AGENDA = re.compile(r"new to GPUs|GPU 新手|刚接触 GPU", re.I)


def _minutes_key(heading: str) -> str:
    """An agenda for a room of newcomers plays the notebooks at their newcomer minutes."""
    return "newcomer_stated_min" if NEWCOMER_AGENDA.search(heading) else "stated_min"


def test_every_agenda_adds_up_to_the_notebooks_stated_minutes(guide):
    cs = course()
    found = agendas(guide)
    assert len(found) >= 3, [a["heading"] for a in found]
    for ag in found:
        rows, key = ag["rows"], _minutes_key(ag["heading"])
        assert rows, ag["heading"]
        assert rows[0]["start"] == 0, ag["heading"]
        for prev, cur in zip(rows, rows[1:]):
            assert cur["start"] == prev["end"], (ag["heading"], cur["row"])
        for r in rows:
            if r["minutes"] is not None:
                assert r["minutes"] == r["end"] - r["start"], r["row"]
            assert len(r["notebooks"]) <= 1, ("one notebook per row", r["row"])
            for nb in r["notebooks"]:
                assert r["end"] - r["start"] == cs[nb][key], (
                    f"{ag['heading']}: notebook {nb} states {cs[nb][key]} min ({key})", r["row"])
        length = _length_in_heading(ag["heading"])
        assert length == rows[-1]["end"], (ag["heading"], rows[-1]["end"])


def test_the_full_day_plays_the_whole_core_path_and_has_breaks(guide):
    cs = course()
    core = {k for k, r in cs.items() if not r["optional"]}
    full = next(a for a in agendas(guide) if "full" in a["heading"].lower())
    named = [nb for r in full["rows"] for nb in r["notebooks"]]
    assert sorted(named) == sorted(core) and len(named) == len(set(named))
    breaks = [r for r in full["rows"] if re.search(r"\bbreak\b|\blunch\b", r["row"], re.I)]
    assert sum(r["end"] - r["start"] for r in breaks) >= 60


def test_the_newcomers_two_days_play_the_core_path_day_one_first(guide):
    """Day one is every core notebook not marked for the second day, day two the rest; day one's
    notebooks fit the five hours the engineer's whole path does."""
    cs = course()
    new = [a for a in agendas(guide) if NEWCOMER_AGENDA.search(a["heading"])]
    assert len(new) == 2, [a["heading"] for a in new]
    days = [[nb for r in a["rows"] for nb in r["notebooks"]] for a in new]
    core = [k for k, r in cs.items() if not r["optional"]]
    assert days[0] == [k for k in core if not cs[k]["newcomer_day_two"]]
    assert days[1] == [k for k in core if cs[k]["newcomer_day_two"]]
    assert sum(cs[k]["newcomer_stated_min"] for k in days[0]) <= _course_stats().CORE_PATH_MINUTES
    lunch = [r for r in new[0]["rows"] if re.search(r"\blunch\b", r["row"], re.I)]
    assert lunch and len([r for r in new[0]["rows"] if re.search(r"\bbreak\b", r["row"], re.I)]) >= 2


def test_the_half_day_keeps_room_for_breaks(guide):
    half = next(a for a in agendas(guide) if "half" in a["heading"].lower())
    breaks = [r for r in half["rows"] if re.search(r"\bbreak\b", r["row"], re.I)]
    assert len(breaks) >= 2


def test_the_chinese_guide_has_the_same_agendas():
    """Translated text, the same clock: every agenda row's span and notebook as in English."""
    en = agendas(GUIDE.read_text(encoding="utf-8"))
    zh = agendas(GUIDE_ZH.read_text(encoding="utf-8"))
    assert len(zh) == len(en)
    for a, b in zip(en, zh):
        assert [(r["start"], r["end"], r["notebooks"]) for r in a["rows"]] == \
               [(r["start"], r["end"], r["notebooks"]) for r in b["rows"]], b["heading"]
        assert _length_in_heading(b["heading"]) == _length_in_heading(a["heading"])


# -- generated numbers ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_the_generated_blocks_are_current(guide, name):
    assert block(guide, name) == BLOCKS[name](), f"re-make with python {Path(__file__).name} --write"


def test_the_chinese_guide_quotes_the_same_numbers():
    zh = GUIDE_ZH.read_text(encoding="utf-8")
    for r in course().values():
        assert (f"| {r['notebook'][:-len('.ipynb')]} | {r['stated_min']} | {r['newcomer_stated_min']} |"
                in zh), r["notebook"]
    from umkit.teaching.widgets.panel import PROFILE_CHOICES, profile_provenance
    for name, _ in PROFILE_CHOICES:
        est, total = profile_provenance(name)
        lines = [ln for ln in zh.splitlines() if f"`{name}`" in ln]
        if est:
            assert any(re.search(rf"\b{est}\b", ln) and re.search(rf"\b{total}\b", ln)
                       for ln in lines), (name, est, total)


def test_no_estimate_count_in_prose_that_the_picker_does_not_show(guide):
    """'N of M numbers' anywhere in the guide is one of the picker's labels."""
    from umkit.teaching.widgets.panel import PROFILE_CHOICES, profile_provenance
    shown = {profile_provenance(n) for n, _ in PROFILE_CHOICES}
    for est, total in re.findall(r"(\d+) of (\d+)(?: numbers)?\b", guide):
        if int(total) > 20:                           # counts of profile numbers, not "1 of 2"
            assert (int(est), int(total)) in shown, f"{est} of {total}"


def test_the_ecg_table_is_what_the_dashboards_button_records(guide):
    """The guide's ECG table (guide_tables, the button's step count) gives the numbers the
    dashboard's button shows: recorded here with the button's own step count, card by card."""
    import umkit
    from umkit import ecg
    from umkit.teaching.widgets import Workshop
    from umkit.teaching.widgets.workshop import GUIDE_CARDS
    from umkit.teaching.widgets.workshop import ECG_STEPS
    steps = inspect.signature(Workshop.__init__).parameters["ecg_steps"].default or ECG_STEPS
    assert Workshop().ecg_steps == steps == ECG_STEPS
    assert f"records {steps} steps" in guide, "the guide names the button's step count"
    rows = {}
    for line in guide.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 1 + len(ecg.ECG_STRATEGIES) and cells[0] in dict(GUIDE_CARDS).values():
            rows[cells[0]] = cells[1:]
    assert set(rows) == set(dict(GUIDE_CARDS).values())
    for profile, label in GUIDE_CARDS:
        with umkit.using("sim", profile=profile, compute=False):
            e = ecg.record(steps=steps)
        got = {r["strategy"]: f"{r['median_ms']:.3g} ms, {r['max_over_median']:.3g}× "
               f"({r['verdict']})" for r in e["summary"]}
        assert [got[s] for s in ecg.ECG_STRATEGIES] == rows[label], label


def test_no_binder_badge_the_readme_lacks(guide):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    has_badge = "mybinder.org/badge" in readme or "binder.svg" in readme.lower()
    for text in (guide, GUIDE_ZH.read_text(encoding="utf-8")):
        if not has_badge:
            assert "badge" not in text.lower() and "徽章" not in text


def test_the_guide_names_no_project_history(guide):
    """Learners and presenters read the guide: no issue numbers, sessions or CI runs in it."""
    for text in (guide, GUIDE_ZH.read_text(encoding="utf-8")):
        assert not re.search(r"\bissue #?\d+|#\d{2,}\b|\bsession \d|\brun \d+\b|\blease\b",
                             text, re.I), re.search(r"\bissue #?\d+|#\d{2,}\b|\brun \d+\b", text)


if __name__ == "__main__":
    if "--write" in sys.argv[1:]:
        write()
    else:
        for name, make in BLOCKS.items():
            print(f"<!-- {name} -->\n{make()}\n")
