"""The reveal table (umkit.exercises.reveal): an answer equal to the result reads "exact" or
"right", never "close" or "different"; whole numbers print as whole numbers; a set, a tie or an
answer's leading words are matched; the Chinese table lines up by display width and translates
its values and a mixed-cards label (issue 42, walk-through items 7-8 and the Chinese reader)."""
from __future__ import annotations

import pytest

from umkit.runtime import lang
from umkit.teaching import exercises as ex


def _display_width(text: str) -> int:
    """Columns ``text`` takes in a monospaced font, measured here on its own (a wide CJK
    character takes two), so the test does not lean on the module's padding helper."""
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


@pytest.fixture(autouse=True)
def _english_after(monkeypatch, tmp_path):
    monkeypatch.delenv("UMKIT_LANG", raising=False)
    monkeypatch.chdir(tmp_path)
    lang.set_language(None)
    yield
    lang.set_language(None)


def _row(p, key):
    return {k: (g, m, c) for k, g, m, c in p.rows()}[key]


@pytest.mark.parametrize("g, m", [(2, 2), (8, 8.0), (64, 64), (16384, 16384), (4, 4), (0, 0)])
def test_an_equal_number_is_exact_and_prints_whole(g, m):
    ex.predict("eq", {"n": g})
    p = ex.reveal("eq", {"n": m}, profile="sim-test")
    guess, shown, comparison = _row(p, "n")
    assert comparison == "exact"
    assert shown == str(int(m)) and guess == str(int(g))


def test_near_and_far_numbers_keep_their_words():
    assert ex.reveal(ex.predict("n1", {"n": 9}), {"n": 10}, profile="x").rows()[0][3] \
        == "close (within 25 %)"
    assert ex.reveal(ex.predict("n2", {"n": 30}), {"n": 10}, profile="x").rows()[0][3] \
        == "3x the result"
    assert _row(ex.reveal(ex.predict("n3", {"n": 0.5}), {"n": 0.1234}, profile="x"), "n")[1] \
        == "0.123"


@pytest.mark.parametrize("guess, result, word", [
    ("device", "device = managed", "right"),                        # one of a tie
    ("managed", "device = managed", "right"),
    ("pinned", "device = managed", "different"),
    ("split", "split: the CPU's updates in their own buffer", "right"),   # leading words
    ("merged", "split: the CPU's updates in their own buffer", "different"),
    ("a; b", "b; a", "right"),                                      # a set, any order
    ("a", "a; b", "partly: 1 of 2 right"),
    ("a; c", "a; b", "partly: 1 of 2 right, 1 not in the result"),
    ("c", "a; b", "different"),
    ("Yes", "yes", "right"),
])
def test_sets_ties_and_leading_words(guess, result, word):
    p = ex.reveal(ex.predict("s", {"k": guess}), {"k": result}, profile="x")
    assert _row(p, "k")[2] == word


def test_the_chinese_table_lines_up_and_translates_values_and_the_mixed_label():
    lang.set_language("zh")
    p = ex.reveal(ex.predict("zh", {"a 步": "flat", "b": "spiky"}),
                  {"a 步": "spiky", "b": "spiky"}, profile="each row's card")
    text = repr(p)
    assert "每行各自的卡" in p.source and "each row" not in p.source
    assert "平坦" in text and "有毛刺" in text and "flat" not in text
    lines = text.splitlines()
    ends = {_display_width(line[:line.rindex("有毛刺") + 3]) for line in lines[1:]}
    assert len(ends) == 1, text                     # the result column ends at one display column
    starts = {_display_width(line[:line.index(w)]) for line, w in zip(lines[1:], ("不同", "正确"))}
    assert len(starts) == 1, text                   # and the comparison starts at one


def test_a_long_column_title_widens_its_column():
    p = ex.reveal(ex.predict("wide", {"h200": 1.0}), {"h200": 1.58},
                  profile="a profile label much longer than sixteen columns")
    head, row = repr(p).splitlines()
    title_end = head.index("columns)") + len("columns)")
    assert row.index("1.58") + len("1.58") == title_end, repr(p)
