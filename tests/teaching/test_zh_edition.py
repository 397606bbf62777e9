"""The Chinese edition (notebooks/zh/, built by scripts/build_zh.py from the English notebooks and
the catalogues in i18n/zh/): the same code cells in the same order, every markdown cell
translated from the current English text, the glossary's terms used the same way everywhere,
and no English prose left in the Chinese markdown."""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
ZH = NOTEBOOKS / "zh"
CATALOGUES = ROOT / "i18n" / "zh"
GLOSSARY = json.loads((CATALOGUES / "glossary.json").read_text(encoding="utf-8"))["terms"]

ENGLISH = sorted(p for p in NOTEBOOKS.rglob("*.ipynb")
                 if ZH not in p.parents and ".ipynb_checkpoints" not in p.parts)
RELS = [p.relative_to(NOTEBOOKS).as_posix() for p in ENGLISH]


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _src(cell) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def _catalogue(rel: str) -> Path:
    return CATALOGUES / (rel[:-len(".ipynb")].replace("/", "__") + ".po")


def _cells(rel: str) -> dict:
    """{cell id: Entry} of the notebook's catalogue (umkit.i18n reads the .po file)."""
    from umkit.i18n import read_po
    return {e.msgctxt: e for e in read_po(_catalogue(rel)) if e.msgctxt is not None and not e.obsolete}


def _entries():
    """(notebook, cell id, English text, Chinese text) of every catalogue entry whose cell the
    English notebook still has."""
    out = []
    for rel, path in zip(RELS, ENGLISH):
        if not _catalogue(rel).exists():
            continue
        cells = _cells(rel)
        for c in _load(path)["cells"]:
            if c["cell_type"] == "markdown" and c["id"] in cells:
                out.append((rel, c["id"], _src(c), cells[c["id"]].msgstr))
    return out


ENTRIES = _entries()


def _prose(md: str) -> str:
    """Markdown less what is not prose: fenced and inline code, HTML tags, link targets, URLs,
    ledger citations, titles of works cited in 《...》 (a document's English title), and verbatim
    quotations of an English source in “...” with no Chinese inside (a commit title, a sentence of
    AMD's docs: the reader is shown the source's own words)."""
    md = re.sub(r"```.*?```", " ", md, flags=re.S)
    md = re.sub(r"`[^`]*`", " ", md)
    md = re.sub(r"<[^>]+>", " ", md)
    md = re.sub(r"\]\([^)]*\)", "] ", md)
    md = re.sub(r"https?://\S+", " ", md)
    md = re.sub(r"《[^》]*》", " ", md)
    md = re.sub(r"“[^“”\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]*”", " ", md)
    md = re.sub(r"ledger:[\s>]*[\w.\-]+([\s>]*,[\s>]*[\w.\-]+)*", " ", md)
    return md


# -- the two editions ------------------------------------------------------------------------------
@pytest.mark.parametrize("rel", RELS)
def test_every_notebook_has_a_chinese_edition(rel):
    assert (ZH / rel).exists(), (f"notebooks/zh/{rel} is missing: translate it into "
                                 f"{_catalogue(rel).relative_to(ROOT)} and run scripts/build_zh.py")


@pytest.mark.parametrize("rel", RELS)
def test_code_cells_are_the_english_ones_in_the_same_order(rel):
    if not (ZH / rel).exists():
        pytest.skip(f"notebooks/zh/{rel} not built yet (test_every_notebook_has_a_chinese_edition)")
    en, zh = _load(NOTEBOOKS / rel)["cells"], _load(ZH / rel)["cells"]
    assert [(c["id"], c["cell_type"]) for c in zh] == [(c["id"], c["cell_type"]) for c in en], \
        f"{rel}: the Chinese edition's cells are not the English cells (ids, kinds, order)"
    build = _generator()
    comments, strings = build.load_comments(), build.load_strings(rel)
    for a, b in zip(en, zh):
        if a["cell_type"] == "code":
            # the same code; its comments translated from i18n/zh/comments.po, the strings it
            # shows from i18n/zh/strings.po
            assert _src(b) == build.translate_code(_src(a), comments, strings), \
                f"{rel} cell {a['id']}: the code differs from the English"


def test_a_string_translation_changes_the_listed_literals_only():
    build = _generator()
    src = ('def f():\n    """what it does"""\n    return 1\n'
           '%matplotlib inline\n'
           'print(f"{\'step\':>4} took {ms:.1f} ms", "kept")  # "step"\n'
           'ax.set_title("first part, "\n             "second part")\nd = {"a b": 1, "x": "what it does"}\n')
    table = {'f"{\'step\':>4} took {ms:.1f} ms"': 'f"{\'步\':>3} 用了 {ms:.1f} ms"',
             '"first part, "\n             "second part"': '"第一部分，第二部分"',
             '"a b"': '"甲 乙"', '"""what it does"""': '"""它做什么"""'}
    out = build.translate_strings(src, table)
    # a docstring is read like a comment: translated; the same words in another quoting are
    # another literal, left alone; a comment's "step" is the comments' catalogue's business
    assert out == ('def f():\n    """它做什么"""\n    return 1\n%matplotlib inline\n'
                   'print(f"{\'步\':>3} 用了 {ms:.1f} ms", "kept")  # "step"\n'
                   'ax.set_title("第一部分，第二部分")\nd = {"甲 乙": 1, "x": "what it does"}\n'), out
    # what a learner reads is found: the docstring, the printed and titled strings, any two
    # English words in a row; a dict key of one-letter words and a comment are not
    shown = build.display_units(src)
    assert shown == ['"""what it does"""', 'f"{\'step\':>4} took {ms:.1f} ms"', '"kept"',
                     '"first part, "\n             "second part"', '"what it does"'], shown
    assert build.display_units("plt.legend(loc='upper center')\nx = 'kind'\n") == ["'upper center'"]
    assert build.display_units("x = (") == []                 # no Python: nothing to translate


def test_a_string_entry_must_stay_one_literal_with_the_same_braces():
    check = _generator().check_string_entry
    assert check('f"{x:8.3f} ms on {card()}"', 'f"在 {card()} 上 {x:8.3f} ms"') is None
    assert check("f\"{'step':>4}{y}\"", "f\"{'步':>2}{y}\"") is None     # a quoted label is text
    assert "braces differ" in check('f"{x:8.3f}"', 'f"{x:7.3f}"')
    assert "braces differ" in check('f"{x}"', '"x"')
    assert "not one string literal" in check('"a"', '"a" + b')
    assert "not one string literal" in check('"a"', '"a"), print("b"')
    assert "not Python" in check('"a"', '"a')


def test_every_string_entry_is_a_literal_a_notebook_still_has():
    from umkit.i18n import read_po
    build = _generator()
    bad = [(e.msgctxt, e.msgid, build.check_string_entry(e.msgid, e.msgstr))
           for e in read_po(build.STRINGS) if e.msgctxt and e.msgstr and not e.obsolete
           and build.check_string_entry(e.msgid, e.msgstr)]
    assert not bad, f"i18n/zh/strings.po: translations that are no literal for their English: {bad[:5]}"
    missing, unused = build.string_report()
    assert not unused, f"i18n/zh/strings.po: entries no notebook has any more: {unused[:5]}"
    assert not missing, (f"{len(missing)} strings a learner sees in the Chinese edition are English "
                         f"(figure text, printed lines, prediction keys): {missing[:5]} -- add them "
                         "to i18n/zh/strings.po (format: i18n/zh/README.md) and rebuild")


def _output_text(cell) -> str:
    out = []
    for o in cell.get("outputs", []):
        t = o.get("text") or o.get("data", {}).get("text/plain") or ""
        out.append("".join(t) if isinstance(t, list) else t)
    return "\n".join(out)


@pytest.mark.parametrize("rel", RELS)
def test_no_english_prose_is_printed_in_the_chinese(rel):
    if not (ZH / rel).exists():
        pytest.skip(f"notebooks/zh/{rel} not built yet (test_every_notebook_has_a_chinese_edition)")
    # a message quoted from elsewhere ('Memory access fault by GPU node-N ...') is the source's
    # words, a C++ comment in a printed program is code, a hyphenated name (amd-xnack-on) a name
    spared = re.compile(r"(?<![A-Za-z0-9])('[^'\n]*'|\"[^\"\n]*\")(?![A-Za-z0-9])|//[^\n]*"
                        r"|\b\w+(?:-\w+)+\b")
    found = [(c["id"], run) for c in _load(ZH / rel)["cells"] if c["cell_type"] == "code"
             for run in _english_runs(spared.sub(" ", _output_text(c)))]
    assert not found, f"{rel}: English prose in the Chinese edition's outputs: {found[:5]}"


def test_a_comment_translation_changes_comments_only():
    build = _generator()
    src = 'x = 1  # one\n# a wrapped\n# sentence\ndef f():\n    # inner\n    return "# no"  # two\n'
    table = {"# one": "# 一", "# a wrapped\n# sentence": "# 一句\n# 换行的话\n# 三行", "# inner": "# 里",
             "# two": "# 二"}
    out, missing = build.translate_comments(src, table)
    assert out == ('x = 1  # 一\n# 一句\n# 换行的话\n# 三行\ndef f():\n    # 里\n'
                   '    return "# no"  # 二\n'), out
    assert missing == []
    assert build.translate_comments(src, {})[1] == ["# one", "# a wrapped\n# sentence", "# inner",
                                                    "# two"]
    assert build.translate_comments("# NBVAL_IGNORE_OUTPUT\nx = 1\n", {}) == (
        "# NBVAL_IGNORE_OUTPUT\nx = 1\n", [])


@pytest.mark.parametrize("rel", RELS)
def test_every_markdown_cell_is_translated_from_the_current_english(rel):
    cat = _catalogue(rel)
    assert cat.exists(), f"{cat.relative_to(ROOT)} is missing"
    cells = _cells(rel)
    md = [c for c in _load(NOTEBOOKS / rel)["cells"] if c["cell_type"] == "markdown"]
    missing = [c["id"] for c in md if c["id"] not in cells or not cells[c["id"]].msgstr.strip()]
    stale = [c["id"] for c in md if c["id"] in cells
             and (cells[c["id"]].fuzzy or cells[c["id"]].msgid != _src(c))]
    assert not missing, f"{rel}: no translation for cells {missing}"
    assert not stale, (f"{rel}: the English of cells {stale} changed since they were translated "
                       "(scripts/build_zh.py --check)")


@pytest.mark.parametrize("rel", RELS)
def test_the_built_notebook_shows_the_catalogue(rel):
    """notebooks/zh/ was rebuilt after the catalogue last changed."""
    if not (ZH / rel).exists() or not _catalogue(rel).exists():
        pytest.skip("not built yet")
    cells = _cells(rel)
    for c in _load(ZH / rel)["cells"]:
        if c["cell_type"] == "markdown" and c["id"] in cells:
            assert _src(c) == cells[c["id"]].msgstr, \
                f"notebooks/zh/{rel} cell {c['id']}: not the catalogue's text (run scripts/build_zh.py)"


def test_the_chinese_notebooks_run_in_chinese():
    assert (ZH / ".umkit-lang").read_text(encoding="utf-8").strip() == "zh"


@pytest.mark.parametrize("rel", [r for r in RELS if re.match(r"\d\d_", r)])
def test_a_lesson_keeps_its_teaching_format_in_chinese(rel):
    if not (ZH / rel).exists():
        pytest.skip("not built yet")
    md = [_src(c) for c in _load(ZH / rel)["cells"] if c["cell_type"] == "markdown"]
    assert re.search(r"^#\s+\S", md[0], re.M) and "学习目标" in md[0], \
        f"{rel}: the first markdown cell needs its '# title' and 学习目标 (learning goals)"
    assert any(re.search(r"^#+\s*要点回顾", s, re.M) for s in md), f"{rel}: no '## 要点回顾'"


# -- the glossary ----------------------------------------------------------------------------------
REQUIRED = {"统一内存", "呼吸系统", "吸气", "呼气", "显存心电图", "访问主人", "用户态驱动", "内核态驱动",
            "缺页", "预取", "页迁移", "超额订阅"}


def test_the_glossary_has_the_columns_terms():
    have = {t["zh"] for t in GLOSSARY}
    assert REQUIRED <= have, f"glossary.json lacks {sorted(REQUIRED - have)}"
    for t in GLOSSARY:
        assert t["en"].strip() and t["zh"].strip() and "note" in t, t
    ens = [t["en"].lower() for t in GLOSSARY]
    assert len(ens) == len(set(ens)), "a term is in glossary.json twice"


def _term_pattern(en: str):
    words = [re.escape(w) for w in re.split(r"[\s-]+", en)]
    return re.compile(r"(?<![\w`.])" + r"[\s-]+".join(words) + r"(s|es|ed|d|ing)?(?![\w`(])", re.I)


#: longest first: a longer term's words are taken out before its shorter parts are looked for
#: ("page fault" before "fault"; "segmentation fault" is no page fault)
TERMS = sorted(GLOSSARY, key=lambda t: -len(t["en"]))


def _inconsistent(en_text: str, zh_text: str) -> list[str]:
    prose, bad = _prose(en_text), []
    for t in TERMS:
        rx = _term_pattern(t["en"])
        if not rx.search(prose):
            continue
        prose = rx.sub(" ", prose)
        if t.get("check", True) and t["zh"] != t["en"] and \
                not any(z in zh_text for z in [t["zh"], *t.get("also", [])]):
            bad.append(f"{t['en']} -> {t['zh']}")
    return bad


def test_the_term_checker_sees_a_wrong_translation():
    assert _inconsistent("A page fault stalls the GPU.", "GPU 停下来等待缺页。") == []
    assert _inconsistent("A page fault stalls the GPU.", "GPU 停下来等待页错误。") == ["page fault -> 缺页"]
    assert _inconsistent("Then a fault, and a page fault.", "然后是一次页错误。") == ["page fault -> 缺页",
                                                                              "fault -> 缺页"]
    assert _inconsistent("a segmentation fault", "段错误") == []
    assert _inconsistent("call `a.prefetch('gpu')`", "调用 `a.prefetch('gpu')`") == []


@pytest.mark.parametrize("rel,cid,en,zh", ENTRIES, ids=[f"{e[0]}:{e[1]}" for e in ENTRIES])
def test_glossary_terms_are_translated_the_same_way_everywhere(rel, cid, en, zh):
    bad = _inconsistent(en, zh)
    assert not bad, f"{rel} cell {cid}: the English uses these terms, the Chinese lacks their glossary form: {bad}"


# -- untranslated prose ----------------------------------------------------------------------------
STOPWORDS = {"the", "a", "an", "of", "to", "and", "is", "are", "in", "on", "for", "with", "that",
             "it", "by", "not", "be", "this", "from", "when", "its", "as", "at", "or", "you", "your",
             "which", "what", "how", "can", "has", "have", "was", "were", "will", "does", "do"}


def _english_runs(zh_text: str) -> list[str]:
    """Runs of four or more English words, one of them a function word: prose, not a name
    (AMD Instinct MI250X), an identifier, code or a citation."""
    out = []
    for m in re.finditer(r"[A-Za-z][A-Za-z'’]*(?:[ ,;:\-]+[A-Za-z][A-Za-z'’]*){3,}", _prose(zh_text)):
        words = re.findall(r"[A-Za-z'’]+", m.group(0))
        if any(w.lower() in STOPWORDS for w in words):
            out.append(m.group(0))
    return out


def test_the_prose_finder_sees_english_and_spares_names_and_code():
    assert _english_runs("这一步 the driver migrates the page 然后继续") == ["the driver migrates the page"]
    assert _english_runs("AMD Instinct MI250X GCD 的 `umkit.use('sim', profile=...)`") == []
    assert _english_runs("（ledger: amd.xnack.isa_name）见 [HIP docs](https://x.org/a_b)") == []
    assert _english_runs("原话：“CPUs can access memory allocated via hipMalloc()”") == []
    assert _english_runs("“the driver migrates the page，然后”") == ["the driver migrates the page"]


@pytest.mark.parametrize("rel,cid,en,zh", ENTRIES, ids=[f"{e[0]}:{e[1]}" for e in ENTRIES])
def test_no_english_prose_is_left_in_the_chinese(rel, cid, en, zh):
    runs = _english_runs(zh)
    assert not runs, f"{rel} cell {cid}: untranslated English in the Chinese: {runs[:5]}"


@pytest.mark.parametrize("rel,cid,en,zh", ENTRIES, ids=[f"{e[0]}:{e[1]}" for e in ENTRIES])
def test_citations_and_numbers_are_kept(rel, cid, en, zh):
    cite = re.compile(r"ledger:[\s>]*([\w.\-]+(?:[\s>]*,[\s>]*[\w.\-]+)*)")
    ids = lambda t: sorted({i.strip(" \n>.") for m in cite.finditer(t) for i in m.group(1).split(",")})
    assert ids(zh) == ids(en), f"{rel} cell {cid}: ledger citations differ"
    code = lambda t: sorted({" ".join(c.split()) for c in
                             re.findall(r"`([^`]+)`", re.sub(r"```.*?```", "", t, flags=re.S))})
    missing = [c for c in code(en) if c not in code(zh)]
    assert not missing, f"{rel} cell {cid}: inline code of the English missing in the Chinese: {missing[:5]}"


# -- the generator ---------------------------------------------------------------------------------
def _generator():
    spec = importlib.util.spec_from_file_location("build_zh", ROOT / "scripts" / "build_zh.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_generator_reports_stale_missing_and_extra_entries(tmp_path, monkeypatch):
    gen = _generator()
    nbs, cats = tmp_path / "notebooks", tmp_path / "i18n" / "zh"
    nbs.mkdir(parents=True)
    cats.mkdir(parents=True)
    cells = [{"cell_type": "markdown", "id": "m1", "metadata": {}, "source": ["# Title\n", "text"]},
             {"cell_type": "code", "id": "c1", "metadata": {}, "source": "x = 1",
              "outputs": [], "execution_count": None},
             {"cell_type": "markdown", "id": "m2", "metadata": {}, "source": "more"},
             {"cell_type": "markdown", "id": "m3", "metadata": {}, "source": "new"}]
    (nbs / "01_x.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                                "nbformat_minor": 5}))
    from umkit.i18n import Entry, write_po
    write_po(cats / "01_x.po", [Entry("# Title\ntext", "# 标题\n正文", msgctxt="m1"),
                                Entry("older text", "更多", msgctxt="m2"),
                                Entry("gone text", "旧", msgctxt="gone")])
    monkeypatch.setattr(gen, "NOTEBOOKS", nbs)
    monkeypatch.setattr(gen, "CATALOGUES", cats)
    assert gen.report(["01_x.ipynb"]) == {"01_x.ipynb": {
        "catalogue": True, "missing": ["m3"], "stale": ["m2"], "extra": ["gone"]}}
    (nbs / "02_y.ipynb").write_text((nbs / "01_x.ipynb").read_text())
    assert gen.report(["02_y.ipynb"])["02_y.ipynb"] == {
        "catalogue": False, "missing": ["m1", "m2", "m3"], "stale": [], "extra": []}


def test_markdown_blocks_cut_at_headings_and_give_the_text_back():
    gen = _generator()
    text = "intro\n# Guide\nA\n```\n# not a heading\n```\n## Say this: once!\nB\n## Say this: once!\nC\n"
    blocks = gen.markdown_blocks(text)
    assert [i for i, _ in blocks] == ["top", "guide", "say-this-once", "say-this-once-2"]
    assert "".join(b for _, b in blocks) == text


# -- README.zh-CN.md ---------------------------------------------------------------------------------
def _code_blocks(md: str) -> list[str]:
    """Each fenced block's code with its comments and trailing blanks removed."""
    out = []
    for lang_, body in re.findall(r"```(\w*)\n(.*?)```", md, flags=re.S):
        lines = [re.sub(r"\s+#.*$", "", ln).rstrip() for ln in body.splitlines()]
        out.append((lang_, "\n".join(ln for ln in lines if ln and not ln.lstrip().startswith("#"))))
    return out


def test_the_chinese_readme_keeps_the_english_code_and_structure():
    en = (ROOT / "README.md").read_text(encoding="utf-8")
    zh = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
    en_py = [b for b in _code_blocks(en) if b[0] in ("python", "py")]
    zh_py = [b for b in _code_blocks(zh) if b[0] in ("python", "py")]
    assert zh_py == en_py, "README.zh-CN.md's python blocks are not README.md's (comments aside)"
    assert len(re.findall(r"^## ", zh, re.M)) == len(re.findall(r"^## ", en, re.M))
    for p in ENGLISH:
        if re.match(r"\d\d_", p.name):
            assert p.name in zh, f"README.zh-CN.md does not list {p.name}"
    assert "README.zh-CN.md" in en and "--lang zh" in zh


def test_the_full_lane_runs_nbval_over_the_chinese_edition_too():
    """test.sh's full lane (--all, what CI's .ci/run calls) hands nbval the notebooks/ folder,
    which pytest walks down into notebooks/zh/; the fast lane names English notebooks only."""
    text = (ROOT / "test.sh").read_text()
    full = text.split('if [ "$lane" = full ]; then', 2)[2].split("else", 1)[0]
    cmd = [ln for ln in full.splitlines() if "-m pytest" in ln]
    assert len(cmd) == 1 and re.search(r"--nbval\s+notebooks(\s|$)", cmd[0]), cmd
    assert re.search(r"^bash test\.sh --all$", (ROOT / ".ci" / "run").read_text(), re.M)
    assert ZH.parent == NOTEBOOKS and any(ZH.glob("*.ipynb"))


def test_building_without_executing_keeps_the_chinese_notebooks_own_metadata(tmp_path, monkeypatch):
    gen = _generator()
    nbs, cats = tmp_path / "notebooks", tmp_path / "i18n" / "zh"
    (nbs / "zh").mkdir(parents=True)
    cats.mkdir(parents=True)
    cells = [{"cell_type": "markdown", "id": "m1", "metadata": {}, "source": "# Title"},
             {"cell_type": "code", "id": "c1", "metadata": {}, "source": "x = 1",
              "outputs": [], "execution_count": None}]
    english_widgets = {"application/vnd.jupyter.widget-state+json": {"state": {"en": {}}}}
    (nbs / "01_x.ipynb").write_text(json.dumps({
        "cells": cells, "metadata": {"widgets": english_widgets, "kernelspec": {"name": "en", "display_name": "en", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5}))
    zh_cells = json.loads(json.dumps(cells))
    zh_cells[1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "一\n"}]
    zh_widgets = {"application/vnd.jupyter.widget-state+json": {"state": {"zh": {}}}}
    (nbs / "zh" / "01_x.ipynb").write_text(json.dumps({
        "cells": zh_cells, "metadata": {"widgets": zh_widgets, "kernelspec": {"name": "zh", "display_name": "zh", "language": "python"}},
        "nbformat": 4, "nbformat_minor": 5}))
    from umkit.i18n import Entry, write_po
    write_po(cats / "01_x.po", [Entry("# Title", "# 标题", msgctxt="m1")])
    monkeypatch.setattr(gen, "NOTEBOOKS", nbs)
    monkeypatch.setattr(gen, "ZH", nbs / "zh")
    monkeypatch.setattr(gen, "CATALOGUES", cats)
    gen.build_notebook("01_x.ipynb", execute=False)
    built = json.loads((nbs / "zh" / "01_x.ipynb").read_text())
    assert built["metadata"]["widgets"] == zh_widgets            # not the English widget state
    assert built["metadata"]["kernelspec"]["name"] == "zh"
    assert built["metadata"]["umkit"]["lang"] == "zh"
    assert "".join(built["cells"][0]["source"]) == "# 标题"
    assert "".join(built["cells"][1]["outputs"][0]["text"]) == "一\n"


def test_update_merges_the_english_as_msgmerge_does(tmp_path, monkeypatch):
    """--update: a new cell gets an empty entry, a changed one keeps its translation marked fuzzy
    with the old English (#| msgid) and is reported stale, a gone one becomes obsolete."""
    from umkit.i18n import Entry, read_po, write_po
    gen = _generator()
    nbs, cats = tmp_path / "notebooks", tmp_path / "i18n" / "zh"
    nbs.mkdir(parents=True)
    cats.mkdir(parents=True)
    cells = [{"cell_type": "markdown", "id": "m1", "metadata": {}, "source": "same"},
             {"cell_type": "markdown", "id": "m2", "metadata": {}, "source": "changed now"},
             {"cell_type": "markdown", "id": "m3", "metadata": {}, "source": "new"}]
    (nbs / "01_x.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                                "nbformat_minor": 5}))
    write_po(cats / "01_x.po", [Entry("same", "同", msgctxt="m1"), Entry("changed", "改", msgctxt="m2"),
                                Entry("gone", "去", msgctxt="m9")])
    monkeypatch.setattr(gen, "NOTEBOOKS", nbs)
    monkeypatch.setattr(gen, "CATALOGUES", cats)
    assert gen.update_catalogue("01_x.ipynb") == {"new": 1, "fuzzy": 1, "obsolete": 1, "revived": 0}
    by = {(e.msgctxt, e.obsolete): e for e in read_po(cats / "01_x.po")}
    assert by["m1", False].msgstr == "同" and not by["m1", False].fuzzy
    m2 = by["m2", False]
    assert m2.fuzzy and m2.msgid == "changed now" and m2.previous == "changed" and m2.msgstr == "改"
    assert by["m3", False].msgid == "new" and by["m3", False].msgstr == ""
    assert by["m9", True].msgstr == "去"
    assert gen.report(["01_x.ipynb"])["01_x.ipynb"] == {
        "catalogue": True, "missing": ["m3"], "stale": ["m2"], "extra": []}
    assert gen.update_catalogue("01_x.ipynb") == {"new": 0, "fuzzy": 0, "obsolete": 0, "revived": 0}


def test_update_never_loses_a_translation_and_writes_what_msgfmt_reads(tmp_path, monkeypatch):
    """AT13: a removed cell became obsolete twice (msgfmt refused the file) and never came back;
    a renamed cell lost its translation.  Now: obsolete once, revived when the cell returns, and
    carried over (fuzzy) to a new id with exactly its English."""
    import shutil
    import subprocess
    from umkit.i18n import Entry, read_po, write_po
    gen = _generator()
    nbs, cats = tmp_path / "notebooks", tmp_path / "i18n" / "zh"
    nbs.mkdir(parents=True)
    cats.mkdir(parents=True)

    def notebook(*cells):
        (nbs / "01_x.ipynb").write_text(json.dumps({"cells": [
            {"cell_type": "markdown", "id": i, "metadata": {}, "source": t} for i, t in cells],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    monkeypatch.setattr(gen, "NOTEBOOKS", nbs)
    monkeypatch.setattr(gen, "CATALOGUES", cats)
    write_po(cats / "01_x.po", [Entry("one", "一", msgctxt="m1"), Entry("two", "二", msgctxt="m2")])
    notebook(("m1", "one"))                                        # m2 removed
    assert gen.update_catalogue("01_x.ipynb")["obsolete"] == 1
    text = (cats / "01_x.po").read_text(encoding="utf-8")
    assert text.count('msgctxt "m2"') == 1
    if shutil.which("msgfmt"):
        r = subprocess.run(["msgfmt", "--check-format", "-o", "/dev/null", str(cats / "01_x.po")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    notebook(("m1", "one"), ("m2", "two"))                         # m2 back
    assert gen.update_catalogue("01_x.ipynb")["revived"] == 1
    assert gen.report(["01_x.ipynb"])["01_x.ipynb"] == {
        "catalogue": True, "missing": [], "stale": [], "extra": []}
    notebook(("m1", "one"), ("m7", "two"))                         # m2 renamed m7
    c = gen.update_catalogue("01_x.ipynb")
    assert c["revived"] == 1 and c["obsolete"] == 1
    m7 = next(e for e in read_po(cats / "01_x.po") if e.msgctxt == "m7")
    assert m7.msgstr == "二" and m7.fuzzy                          # a translator confirms it
