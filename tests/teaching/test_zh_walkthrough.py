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


def test_examples_info_titles_and_summaries_follow_the_language():
    names = umkit.examples.list()
    en = {n: umkit.examples.info(n) for n in names}
    lang.set_language("zh")
    for n in names:
        z = umkit.examples.info(n)
        assert (z.name, z.section) == (en[n].name, en[n].section)
        assert _han(z.title) and _han(z.summary), n
        assert z.title != en[n].title
    lang.set_language("en")
    assert umkit.examples.info(names[0]) == en[names[0]]


def test_the_port_check_report_speaks_chinese_and_json_stays_english():
    r = umkit.port_check(umkit.examples.source_dir().parent / "cuda", target="mi250x", xnack="off")
    en, js = r.text().splitlines(), r.json()
    lang.set_language("zh")
    zh = r.text().splitlines()
    assert en[0].startswith("umkit port-check: mi250x (AMD MI250X") and "XNACK off" in en[0]
    assert zh[0].startswith("umkit port-check: mi250x（") and "XNACK 关闭" in zh[0] and _han(zh[0])
    assert zh[-2].startswith("小结：") and "出错 0" in zh[-2] and _han(zh[-1])
    sev = {"breaks": "出错", "slower": "变慢", "differs": "有差异", "same": "相同"}
    for f in r.findings:                                  # every severity tag is in Chinese
        assert any(f"[{sev[f.severity]}] {f.cuda}" in line for line in zh), f.cuda
    assert sum("出处台账：" in line for line in zh) == len(r.findings)
    md = r.markdown().splitlines()
    assert md[2].startswith("| 位置 | CUDA | HIP | 严重程度 |")
    assert r.json() == js                                  # for programs: English, unchanged


def _recorded_plan():
    umkit.use("sim", profile="mi250x-xnack1", quiet=True)
    w, b = umkit.managed(1 << 20), umkit.managed(1 << 18)
    with umkit.plan.recorder("train_step") as rec:
        rec.name_buffer(w, "weights")
        rec.name_buffer(b, "batch")
        for i in range(8):
            b.host[:] = i
            umkit.increment(w)
            umkit.increment(b)
            umkit.synchronize()
            if i % 4 == 0:
                float(w.host[0])
            rec.step()
    return rec.result()


def test_the_plan_tables_speak_chinese_and_keep_their_columns():
    from umkit.ecg.model import display_width
    res = _recorded_plan()
    adv = res.recommend(profiles=["mi250x-xnack1", "h200-pcie5"])
    en_t, en_a = res.table().splitlines(), adv.table().splitlines()
    lang.set_language("zh")
    zh_t, zh_a = res.table().splitlines(), adv.table().splitlines()
    assert zh_t[0].startswith("train_step 的访问主人表：2 块缓冲区")
    assert zh_t[1].split()[:3] == ["缓冲区", "角色", "MiB"]
    assert "GPU 每步；CPU 每 4 步" in zh_t[2] and "整个循环（8 步）" in zh_t[2]
    for e, z in zip(en_t[1:], zh_t[1:]):                  # columns line up in a fixed-width font
        assert display_width(z) == display_width(e), (e, z)
        assert e.split()[-4:] == z.split()[-4:] or not e.split()[-1].isdigit()   # the numbers
    assert zh_a[0] == "推荐方案，逐块缓冲区（mi250x-xnack1, h200-pcie5）"
    assert "理由" in zh_a[1] and all(_han(z.split("  ")[-1]) for z in zh_a[2:4])
    assert "按录制的原样" in "\n".join(zh_a) and "推荐（混合）" in "\n".join(zh_a)
    nums = lambda lines: [ln.split()[-2:] for ln in lines if ln[-1:].isdigit()]  # noqa: E731
    assert nums(zh_a) == nums(en_a)                        # the predictions themselves unchanged


def test_a_recorded_loop_s_ecg_heading_speaks_chinese():
    umkit.use("sim", profile="mi250x-xnack1", quiet=True)
    x = umkit.managed(1 << 18)
    with umkit.ecg.recorder("my loop") as rec:
        for i in range(4):
            x.host[:] = i
            umkit.increment(x)
            umkit.synchronize()
            rec.step()
    r = rec.result()
    assert r.table().splitlines()[0] == "memory ECG of my loop: 4 steps, backend sim [mi250x-xnack1] (model time)"
    lang.set_language("zh")
    assert r.table().splitlines()[0] == "my loop 的显存心电图：4 步，后端 sim [mi250x-xnack1]（模型时间）"
