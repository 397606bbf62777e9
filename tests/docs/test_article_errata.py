"""docs/article.md's Errata (issue 42, item 5): every correction of the column the kit makes is
listed there, quotes the column, says why it is wrong and cites a source; the quotes are the
column's own words where the column is at hand."""
import re
from pathlib import Path

import pytest

import umkit.ledger as L

ROOT = Path(__file__).resolve().parents[2]
ARTICLE = (ROOT / "docs/article.md").read_text(encoding="utf-8")
ERRATA = ARTICLE.split("\n## Errata\n", 1)[1] if "\n## Errata\n" in ARTICLE else ""
ITEMS = re.findall(r"^- \*\*(E\d+),(.*?)(?=^- \*\*E\d+,|\n\n[A-Z]|\Z)", ERRATA, re.M | re.S)
#: the column (outside the repository, read only); the quote check runs where it is present
COLUMN = ROOT.parent / "shared" / "article" / "unified-memory-article.zh.txt"

#: the corrections issue 42 asks for, by a phrase of the column each one quotes
REQUIRED = {"整机": "I9", "不一定一致": "W4", "预取到当前GPU": "I10", "第二个参数": "I10",
            "均匀共享": "I10", "均摊": "I10", "大规模回迁": "I10", "老卡": "I10"}


def test_the_article_has_an_errata_section_with_numbered_items():
    assert ERRATA, "docs/article.md has no '## Errata' section"
    assert [n for n, _ in ITEMS] == [f"E{i}" for i in range(1, len(ITEMS) + 1)]
    assert len(ITEMS) >= 8


@pytest.mark.parametrize("phrase", sorted(REQUIRED))
def test_each_required_correction_is_listed(phrase):
    assert any(phrase in body for _, body in ITEMS), (phrase, REQUIRED[phrase])


@pytest.mark.parametrize("item", ITEMS, ids=lambda it: it[0])
def test_each_item_quotes_the_column_says_why_and_cites_a_source(item):
    name, body = item
    assert re.search(r"[\u4e00-\u9fff]", body), f"{name} quotes no Chinese text of the column"
    flat = re.sub(r"\s+", " ", body)
    assert re.search(r"[Tt]he column(?:'s comment)? says .+?; .*?(?:wrong|overstated|imprecise) "
                     r"because", flat), f"{name}: not 'the column says X; that is wrong because Y'"
    ids = L.cited(body)
    assert ids or re.search(r"ROCm/[\w-]+|kfd_\w+\.c|pytorch/pytorch `[^`]+`", body), f"{name} cites no source"
    for i in ids:
        L.entry(i)                                  # every cited ledger entry exists


@pytest.mark.skipif(not COLUMN.exists(), reason="the column is not at ../shared/article here")
def test_the_quotes_are_the_columns_words():
    text = re.sub(r"\s+", "", COLUMN.read_text(encoding="utf-8"))
    for name, body in ITEMS:
        for q in re.findall(r"\"([^\"]*[\u4e00-\u9fff][^\"]*)\"", body):
            for part in (p.strip() for p in q.split("…")):
                assert re.sub(r"\s+", "", part.replace("// ", "//")) in text, (name, part)
