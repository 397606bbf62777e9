"""docs/glossary.md: every word the notebooks and the primers link lands on its own entry.

A link to ``glossary.md#ANCHOR`` needs that anchor; a link without one must name a word that has
an anchor (link text lower-cased, bold and a parenthesised translation dropped, a plural or verb
ending taken off), so a notebook can add the anchor without guessing. Every anchor is listed in
the index at the top, and the jargon the core path uses undefined has an entry.
"""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
ANCHORS = re.findall(r'<a id="([^"]+)"></a>', GLOSSARY)
LINK = re.compile(r"\[([^\]]+)\]\((?:\.\./)*(?:docs/)?glossary\.md(?:#([\w-]+))?\)")

#: the words the learner walk-through found linked or used without an entry (issue 42)
REQUIRED = {"stream", "page-table", "thrashing", "thrash", "eviction", "evict", "fault", "page-fault",
            "zero-copy", "gcd", "iommu", "doorbell", "svm-range", "large-bar", "p95", "p99", "bf16",
            "frontier", "kernel", "driver", "xnack", "pinned-memory", "hipmemcpy", "umd-kmd",
            "ping-pong", "vram", "host-memory", "managed-memory", "prefetch", "memory-ecg",
            "access-owner"}


def _texts():
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for i, c in enumerate(json.loads(nb.read_text(encoding="utf-8"))["cells"]):
            if c["cell_type"] == "markdown":
                yield f"{nb.name} cell {i}", "".join(c["source"])
    for doc in ("primer.md", "primer.zh-CN.md"):
        yield doc, (ROOT / "docs" / doc).read_text(encoding="utf-8")


LINKS = [(where, m.group(1), m.group(2)) for where, text in _texts() for m in LINK.finditer(text)]


def anchor_for(text: str) -> str | None:
    """The anchor a glossary link's English text lands on, or None."""
    word = re.sub(r"\s*\([^)]*\)\s*$", "", text.replace("*", "").strip()).lower()
    word = re.sub(r"\s+", "-", word)
    for cand in (word, re.sub(r"(es|s)$", "", word), re.sub(r"s$", "", word), re.sub(r"ing$", "", word)):
        if cand in ANCHORS:
            return cand
    return None


def test_anchors_are_unique_and_listed_at_the_top():
    assert len(ANCHORS) == len(set(ANCHORS)), "an anchor is defined twice"
    index = GLOSSARY.split("\n## ", 1)[0]
    missing = [a for a in ANCHORS if f"(#{a})" not in index]
    assert not missing, f"anchors not in the index at the top: {missing}"


def test_the_walk_through_words_have_entries():
    assert REQUIRED <= set(ANCHORS), f"no entry for {sorted(REQUIRED - set(ANCHORS))}"
    for a in REQUIRED:                                   # the anchor sits right before a bold term
        assert re.search(rf'<a id="{a}"></a>(?:<a id="[^"]+"></a>)*\*\*', GLOSSARY), a


def test_the_link_checker_refuses_a_word_without_an_entry():
    assert anchor_for("faults") == "fault" and anchor_for("evicts") == "evict"
    assert anchor_for("memory ECG (显存心电图)") == "memory-ecg" and anchor_for("**stream**") == "stream"
    assert anchor_for("page tables") in {"page-tables", "page-table"}
    assert anchor_for("flux capacitor") is None


@pytest.mark.parametrize("where,text,anchor", LINKS, ids=[f"{w}:{t}" for w, t, _ in LINKS])
def test_every_glossary_link_lands_on_an_entry(where, text, anchor):
    if anchor:
        assert anchor in ANCHORS, f"{where}: glossary.md#{anchor} has no entry"
    elif "glossary" not in text.lower() and re.search(r"[A-Za-z]", text) and not re.search(r"[\u4e00-\u9fff]", text.split("(")[0]):
        assert anchor_for(text), f"{where}: '{text}' links the glossary, which has no entry for it"
