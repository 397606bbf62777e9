"""What the learner walk-through of issue 42 found printed in English in the Chinese edition:
umkit.why(), the names table notebook 08 shows, the port-check report, the plan and ECG tables,
examples.info's titles -- each now goes through lang.tr where it prints (conventions of
test_zh_messages.py: the language set per test, English the default and restored after)."""
from __future__ import annotations

import re

import pytest

import umkit
from umkit.runtime import lang


@pytest.fixture(autouse=True)
def _english_after(monkeypatch, tmp_path):
    monkeypatch.delenv("UMKIT_LANG", raising=False)
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    monkeypatch.chdir(tmp_path)                  # no .umkit-lang marker above the test's folder
    lang.set_language(None)
    yield
    lang.set_language(None)


def _han(text: str) -> bool:
    return bool(re.search(r"[\u4e00-\u9fff]", text))


def test_why_says_why_in_chinese_and_english_stays_english(monkeypatch):
    umkit.use("sim", quiet=True)
    assert umkit.why() == "requested: the CPU model always runs"
    lang.set_language("zh")
    assert umkit.why() == "按 umkit.use 的指定：CPU 模型总能运行"
    monkeypatch.setenv("UMKIT_BACKEND", "sim")
    umkit.use(quiet=True)
    assert umkit.why().startswith("UMKIT_BACKEND：") and "CPU 模型总能运行" in umkit.why()


def test_the_names_table_speaks_chinese_and_keeps_the_names():
    en = umkit.names.as_markdown("function")
    lang.set_language("zh")
    zh = umkit.names.as_markdown("function")
    assert en.splitlines()[0] == "| concept | CUDA | HIP | kind | note |"
    assert zh.splitlines()[0] == "| 概念 | CUDA | HIP | 类别 | 说明 |"
    en_rows, zh_rows = en.splitlines()[2:], zh.splitlines()[2:]
    assert len(en_rows) == len(zh_rows) and en_rows
    for e, z in zip(en_rows, zh_rows):
        ec, zc = e.split(" | "), z.split(" | ")
        assert ec[1:3] == zc[1:3], "the CUDA and HIP names stay as they are"
        assert _han(zc[0]), f"concept left in English: {zc[0]}"
        note = zc[4].rstrip(" |")
        assert not note or _han(note), f"note left in English: {note[:60]}"
