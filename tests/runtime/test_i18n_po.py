"""The translation catalogues (umkit/i18n/*.po) and their reader/writer (umkit.i18n.po): the
shipped catalogues are gettext files that GNU msgfmt accepts with --check-format, the reader and
writer round-trip them exactly, a {field} of an English template is a field of its translation,
and a broken catalogue is a typed error naming the line."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import umkit
from umkit import i18n
from umkit.i18n import Entry, POError, dumps, parse, read_po
from umkit.runtime import lang

CATALOGUES = sorted(Path(umkit.__file__).parent.joinpath("i18n").glob("*.po"))
#: the notebooks' prose and code comments (scripts/build_zh.py): the same format, the same checks
NOTEBOOK_CATALOGUES = sorted((Path(__file__).resolve().parents[2] / "i18n").glob("*/*.po"))
EVERY = CATALOGUES + NOTEBOOK_CATALOGUES
FIELD = re.compile(r"\{(\w+)\}")


def test_the_notebook_catalogues_are_po_files_not_json():
    names = {p.name for p in NOTEBOOK_CATALOGUES}
    assert {"00_start_here.po", "comments.po", "workshop__README.po"} <= names
    assert not [p for p in (Path(__file__).resolve().parents[2] / "i18n" / "zh").glob("*.json")
                if p.name != "glossary.json"]


def test_there_is_a_chinese_catalogue_and_no_python_table():
    assert [p.name for p in CATALOGUES] == ["zh.po"]
    assert i18n.languages() == ["zh"]
    assert not (Path(umkit.__file__).parent / "runtime" / "lang_zh.py").exists()
    assert len(lang.catalogue("zh")) > 1000
    assert dict(lang.catalogue("en")) == {}


def test_a_lang_value_as_the_locale_writes_it_is_understood(monkeypatch):
    monkeypatch.setenv("UMKIT_LANG", "zh_CN.UTF-8")
    lang.set_language(None)
    assert lang.language() == "zh"
    monkeypatch.setenv("UMKIT_LANG", "en_US.UTF-8")
    assert lang.language() == "en"


@pytest.mark.parametrize("path", EVERY, ids=lambda p: p.name)
def test_the_catalogue_round_trips_exactly(path):
    text = path.read_text(encoding="utf-8")
    assert dumps(parse(text)) == text


@pytest.mark.parametrize("path", EVERY, ids=lambda p: p.name)
def test_the_header_says_utf8_and_the_language(path):
    head = next(e for e in read_po(path) if e.msgid == "" and e.msgctxt is None)
    language = path.stem if path in CATALOGUES else path.parent.name
    assert "charset=UTF-8" in head.msgstr and f"Language: {language}" in head.msgstr


@pytest.mark.parametrize("path", CATALOGUES, ids=lambda p: p.name)
def test_every_translation_keeps_the_fields_of_its_english(path):
    bad = [e.msgid[:60] for e in read_po(path)
           if e.msgid and e.msgstr and set(FIELD.findall(e.msgid)) != set(FIELD.findall(e.msgstr))]
    assert bad == []


@pytest.mark.parametrize("path", EVERY, ids=lambda p: p.name)
def test_gnu_msgfmt_accepts_the_catalogue(path):
    if not shutil.which("msgfmt"):
        pytest.skip("no msgfmt (Debian package gettext): test.sh installs it as root")
    r = subprocess.run(["msgfmt", "--check-format", "-o", "/dev/null", str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("path", EVERY, ids=lambda p: p.name)
def test_babel_reads_the_same_entries(path):
    pofile = pytest.importorskip("babel.messages.pofile")
    with path.open("rb") as f:
        cat = pofile.read_po(f)
    theirs = {(m.context, m.id): m.string for m in cat if m.id}
    ours = {(e.msgctxt, e.msgid): e.msgstr for e in read_po(path) if e.msgid and not e.obsolete}
    assert theirs == ours


def test_a_broken_format_check_would_be_caught_by_msgfmt(tmp_path):
    """The check the catalogues pass can fail: a translation that drops a field."""
    if not shutil.which("msgfmt"):
        pytest.skip("no msgfmt")
    p = tmp_path / "xx.po"
    p.write_text(dumps([Entry(msgid="case {case}: got {got}", msgstr="情况 {case}",
                              flags=["python-brace-format"])]), encoding="utf-8")
    r = subprocess.run(["msgfmt", "--check-format", "-o", "/dev/null", str(p)], capture_output=True)
    assert r.returncode != 0


def test_escapes_multiline_context_fuzzy_previous_and_obsolete_round_trip():
    entries = [Entry(msgid="", msgstr="Language: xx\n"),
               Entry(msgid='a "quoted"\tline\nand a second\\one\n', msgstr="二\n", comments=["note", ""],
                     extracted=["from the code"], references=["x.py:1"]),
               Entry(msgid="word " * 40, msgstr="字" * 100, msgctxt="cell-1", flags=["fuzzy"],
                     previous="an older word " * 10, previous_ctxt="cell-0"),
               Entry(msgid="gone", msgstr="没了", obsolete=True)]
    text = dumps(entries)
    back = parse(text)
    assert back == entries
    assert back[2].fuzzy and back[2].key == ("cell-1", "word " * 40)


def test_fuzzy_and_untranslated_entries_are_not_served(tmp_path, monkeypatch):
    from umkit.i18n import catalogues
    (tmp_path / "xx.po").write_text(dumps([
        Entry(msgid="kept", msgstr="留"), Entry(msgid="old", msgstr="旧", flags=["fuzzy"]),
        Entry(msgid="todo", msgstr=""), Entry(msgid="in a cell", msgstr="格", msgctxt="c1")]),
        encoding="utf-8")
    monkeypatch.setattr(catalogues, "HERE", tmp_path)
    catalogues.forget()
    try:
        assert catalogues.messages("xx") == {"kept": "留"}
        assert catalogues.languages() == ["xx"]
    finally:
        monkeypatch.undo()
        catalogues.forget()


@pytest.mark.parametrize("text,where", [
    ('msgid "a"\n', 2),                                   # no msgstr
    ('msgid "a"\nmsgstr "b\n', 2),                        # unterminated string
    ('msgid "a"\nmsgstr "\\q"\n', 2),                     # unknown escape
    ('msgid "a"\nmsgstr "b"\n\nmsgid "a"\nmsgstr "c"\n', 0),  # the same msgid twice
    ('msgid "a"\nmsgid_plural "as"\nmsgstr[0] "b"\n', 2),  # plural forms
    ('msgstr "b"\n', 1),                                  # msgstr without msgid
    ('msgid "a"\nmsgstr "abc\\"\n', 2),                  # unterminated: its quote is escaped
    ('msgstr "A"\nmsgid "b"\n', 1),                       # msgstr before its msgid
    ('msgid "a"\nmsgctxt "c"\nmsgstr "A"\n', 2),          # msgctxt after msgid
    ('#| msgid "x"\n#| msgid "y"\nmsgid "a"\nmsgstr "A"\n', 2),   # #| msgid twice
    ('msgid "a"\n#~ msgstr "A"\n', 2),                    # half live, half obsolete
    ('msgid "a"\nmsgstr "A"\n\n#~ msgid "a"\n#~ msgstr "B"\n', 0),   # live and obsolete twice
    ('\ufeffmsgid "a"\nmsgstr "A"\n', 1),                 # a byte-order mark
    ('hello\n', 1),
])
def test_broken_catalogues_are_typed_errors_that_name_the_line(text, where):
    with pytest.raises(POError) as e:
        parse(text, source="t.po")
    assert isinstance(e.value, ValueError) and e.value.line == where and "t.po:" in str(e.value)


def test_parse_refuses_a_non_string():
    with pytest.raises(umkit.errors.InvalidType):
        parse(b'msgid "a"')


def test_a_catalogue_of_a_new_language_is_a_language_umkit_speaks(tmp_path, monkeypatch):
    """A second language is one new file: umkit/i18n/<lang>.po."""
    from umkit.i18n import catalogues
    (tmp_path / "zh.po").write_text(CATALOGUES[0].read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "xx.po").write_text(dumps([Entry(msgid="NOT YET:", msgstr="XX-NOT-YET:")]),
                                    encoding="utf-8")
    monkeypatch.setattr(catalogues, "HERE", tmp_path)
    lang.reload_catalogues()
    try:
        assert lang.tr("NOT YET:", "xx") == "XX-NOT-YET:"
        lang.set_language("xx")
        assert lang.language() == "xx"
    finally:
        lang.set_language(None)
        monkeypatch.undo()
        lang.reload_catalogues()


# -- what an independent attack found (AT13), each held here ----------------------------------------
@pytest.mark.parametrize("ch", list("\v\f\x1c\x1d\x1e\x85\u2028\u2029"), ids=lambda c: f"U+{ord(c):04X}")
def test_line_break_characters_inside_strings_round_trip(ch):
    e = [Entry(msgid="a" + ch + "b", msgstr="x" + ch + "y", msgctxt="c" + ch)]
    assert parse(dumps(e)) == e


@pytest.mark.parametrize("field", ["comments", "extracted", "references"])
def test_a_line_break_in_a_one_line_field_is_refused(field):
    with pytest.raises(umkit.errors.InvalidArgument) as e:
        Entry(msgid="a", msgstr="A", **{field: ["x\r#, fuzzy"]})
    assert e.value.argument == field


def test_odd_flags_and_lone_surrogates_are_refused():
    for flags in (["fuzzy, x"], [""], [" fuzzy"]):
        with pytest.raises(umkit.errors.InvalidArgument):
            Entry(msgid="a", flags=flags)
    with pytest.raises(umkit.errors.InvalidArgument) as e:
        Entry(msgid="a\udcff")
    assert e.value.argument == "msgid"


def test_write_po_never_leaves_a_half_written_catalogue(tmp_path):
    from umkit.i18n import write_po
    p = tmp_path / "x.po"
    write_po(p, [Entry("a", "A")])
    before = p.read_bytes()
    with pytest.raises(umkit.errors.InvalidType):
        write_po(p, [Entry("b", "B"), "not an entry"])
    assert p.read_bytes() == before and [q.name for q in tmp_path.iterdir()] == ["x.po"]


def test_flags_and_comments_wait_for_their_entry_across_a_blank_line():
    e = parse('# note\n#, fuzzy\n\nmsgid "a"\nmsgstr "A"\n')
    assert e[0].fuzzy and e[0].comments == ["note"]
    assert parse('#~\nmsgid "a"\nmsgstr "A"\n')[0].obsolete is False


def test_a_live_entry_before_an_obsolete_one_stays_live():
    e = parse('msgid "a"\nmsgstr "A"\n#~ msgid "b"\n#~ msgstr "B"\n')
    assert [(x.msgid, x.obsolete) for x in e] == [("a", False), ("b", True)]


def test_an_obsolete_fuzzy_entry_keeps_its_old_english_as_gnu_writes_it():
    e = [Entry("new", "新", msgctxt="c", flags=["fuzzy"], previous="old", obsolete=True)]
    text = dumps(e)
    assert '#~| msgid "old"' in text and parse(text) == e
    if shutil.which("msgfmt"):
        r = subprocess.run(["msgfmt", "--check-format", "-o", "/dev/null", "-"], input=text,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def test_a_broken_catalogue_falls_back_to_english_with_one_warning(tmp_path, monkeypatch):
    """A corrupt catalogue is the kit's problem, not the learner's: every message still prints
    (in English), and one warning names the file's trouble."""
    from umkit.i18n import catalogues
    (tmp_path / "zh.po").write_text('msgid "oops\n', encoding="utf-8")
    monkeypatch.setattr(catalogues, "HERE", tmp_path)
    lang.reload_catalogues()
    try:
        with pytest.warns(RuntimeWarning, match="cannot be read"):
            assert lang.tr("NOT YET:", "zh") == "NOT YET:"
        err = umkit.errors.InvalidArgument("x must be 1", argument="x")
        lang.set_language("zh")
        assert "x must be 1" in str(err)
        assert lang.tr("NOT YET:", "zh") == "NOT YET:"        # no second read, no second warning
    finally:
        lang.set_language(None)
        monkeypatch.undo()
        lang.reload_catalogues()


def test_forget_makes_tr_read_the_catalogue_again(tmp_path, monkeypatch):
    from umkit.i18n import catalogues, forget, write_po
    write_po(tmp_path / "zh.po", [Entry("NOT YET:", "一")])
    monkeypatch.setattr(catalogues, "HERE", tmp_path)
    lang.reload_catalogues()
    try:
        assert lang.tr("NOT YET:", "zh") == "一"
        write_po(tmp_path / "zh.po", [Entry("NOT YET:", "二")])
        forget()
        assert lang.tr("NOT YET:", "zh") == "二"
        with pytest.raises(TypeError):
            catalogues.messages("zh")["NOT YET:"] = "changed by a caller"   # read-only
    finally:
        monkeypatch.undo()
        lang.reload_catalogues()
