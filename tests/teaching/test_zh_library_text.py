"""Library text the Chinese notebooks print beside their prose: the simulator's trace details on
several cards, a sim device's name and every profile's title, umperf's side-by-side headings,
the plan table's roles, explain()'s labels, the doctor's packages and port-check's summary.
Each reads Chinese under ``lang.set_language("zh")`` and stays as it was in English; the numbers
and names in it are the values the English was made with."""
from __future__ import annotations

import re

import pytest

import umkit
from umkit.runtime import lang

_HAN = re.compile(r"[\u4e00-\u9fff]")
#: three English words in a row: prose a Chinese reader would stumble on
_PROSE = re.compile(r"[A-Za-z]{2,} [A-Za-z]{2,} [A-Za-z]{2,}")


@pytest.fixture(autouse=True)
def _english_after(monkeypatch, tmp_path):
    monkeypatch.delenv("UMKIT_LANG", raising=False)
    monkeypatch.chdir(tmp_path)                  # no .umkit-lang marker above the test's folder
    lang.set_language(None)
    yield
    lang.set_language(None)
    umkit.use("sim", quiet=True)


def _numbers(text: str) -> list:
    return sorted(re.findall(r"\d+", text))


def _walk(vram=None):
    """Allocations, first touches, advice, prefetches both ways, a kernel on pages the CPU
    wrote, a device allocation: the events a notebook's trace shows."""
    umkit.reset_counters()
    n = (8 << 20) // 4
    a = umkit.managed(n)
    a.host[:] = 1.0
    a.advise("read_mostly")
    umkit.increment(a)
    umkit.synchronize()
    a.host[:] = 2.0
    a.prefetch("gpu")
    a.prefetch("cpu")
    umkit.increment(a)
    umkit.synchronize()
    d = umkit.device_array(n)
    p = umkit.pinned(1024)
    events = umkit.trace()
    for x in (a, d, p):
        x.free()
    return events


@pytest.mark.parametrize("profile", ["mi250x-xnack1", "mi250x-xnack0", "h200-pcie5",
                                     "mi300a-apu", "mi300x"])
def test_every_trace_detail_reads_chinese_with_the_same_numbers(profile):
    umkit.use("sim", profile=profile, quiet=True)
    events = _walk()
    details = {e["detail"] for e in events if e["detail"]}
    assert len(details) >= 4
    for en in details:
        zh = lang.tr(en, "zh")
        assert zh != en and not _PROSE.search(zh), (profile, en, zh)
        assert _numbers(zh) == _numbers(en), (en, zh)
        assert lang.tr(en, "en") == en


def test_eviction_details_read_chinese():
    """A device allocation that evicts managed pages, in a VRAM the walk overfills."""
    umkit.use("sim", profile="h200-pcie5", vram=64 << 20, quiet=True)
    umkit.reset_counters()
    a = umkit.managed((48 << 20) // 4)
    umkit.increment(a)
    umkit.synchronize()
    d = umkit.device_array((48 << 20) // 4)
    details = {e["detail"] for e in umkit.trace()}
    a.free()
    d.free()
    assert any("after evicting" in t for t in details) and any(" -> cpu" in t for t in details)
    for en in details:
        zh = lang.tr(en, "zh")
        assert zh != en and not _PROSE.search(zh), (en, zh)
        assert _numbers(zh) == _numbers(en)


def test_every_sim_device_name_and_profile_title_reads_chinese():
    from umkit.sim.costs import load_profile
    for name in ("h200-pcie5", "mi250x-coherent", "mi250x-xnack0", "mi250x-xnack1",
                 "mi300a-apu", "mi300x", "teaching"):
        title = load_profile(name).title
        umkit.use("sim", profile=name, quiet=True)
        device = umkit.backend().device_name(0)
        assert device == f"sim: {title}"
        for en in (device, title, f"model ({name}): {title}"):
            zh = lang.tr(en, "zh")
            assert _HAN.search(zh) and not _PROSE.search(zh), (en, zh)
            assert lang.tr(en, "en") == en
        assert lang.tr(f"model ({name}): {title}", "zh").startswith(f"模型（{name}）：")


def test_umperf_headings_read_chinese_and_the_english_is_unchanged():
    from umkit.measure import umperf
    cells = {f"{n * n * 4}:{s}": {"overall": 0.1 * (i + 1) * n / 32, "cpu": 0.0}
             for n in (32, 64) for i, s in enumerate(umperf.STRATEGIES)}
    rec = dict(run="fake-run", host_speed=1.25,
               host_speed_source="fitted by calibrate --compare on that run's fit set",
               measured=dict(backend="cuda", device="NVIDIA H200", runs=20, dims=[32, 64],
                             strategies=list(umperf.STRATEGIES), cells=cells,
                             date="2026-12-01 00:00 UTC"))
    umkit.use("sim", quiet=True)
    en = umperf.side_by_side(rec, runs=2)["text"]
    heads = [line for line in en.splitlines() if line.startswith("### ")]
    assert heads[0] == ("### measured on the card (fake-run, 2026-12-01 00:00 UTC): average "
                        "overall time (ms) of 20 iterations, NVIDIA H200 (cuda)")
    assert heads[1].startswith("### the same program on sim now (the model's prediction; host "
                               "speed 1.25: fitted by calibrate --compare on that run's fit set)")
    lang.set_language("zh")
    zh = umperf.side_by_side(rec, runs=2)["text"]
    zheads = [line for line in zh.splitlines() if line.startswith("### ")]
    assert len(zheads) == 3
    for line in zheads + [ln for ln in zh.splitlines() if ln.startswith("- ")]:
        assert _HAN.search(line) and not _PROSE.search(line.replace("NVIDIA H200", "")), line
    assert zheads[0] == "### 真卡实测（fake-run，2026-12-01 00:00 UTC）：20 次迭代的平均总时间（ms），NVIDIA H200（cuda）"
    assert "主机速度 1.25" in zheads[1]
    assert zh.count("| 大小 |") == 3
    # the table's numbers are the English table's
    assert re.findall(r"\| [\d.]+ \|", zh) == re.findall(r"\| [\d.]+ \|", en)


def test_the_plan_table_s_roles_read_chinese_and_its_kinds_stay():
    umkit.use("sim", profile="mi250x-xnack1", quiet=True)
    a = umkit.managed(1 << 18)
    with umkit.plan.recorder("t") as rec:
        rec.name_buffer(a, "weights")
        for _ in range(2):
            a.host[:] = 1.0
            umkit.increment(a)
            umkit.synchronize()
            rec.step()
    r = rec.result()
    a.free()
    en = r.table()
    row = next(line for line in en.splitlines() if line.startswith("weights"))
    assert " array " in row and " managed " in row
    lang.set_language("zh")
    zrow = next(line for line in r.table().splitlines() if line.startswith("weights"))
    assert " 数组 " in zrow and " managed " in zrow and " array " not in zrow
    assert lang.tr("other", "zh") == "其他" and lang.tr("optimizer state", "zh") == "优化器状态"


def test_explain_puts_nothing_between_a_full_width_colon_and_its_text():
    import io
    quiet = io.StringIO()
    en = umkit.explain("HSA_STATUS_ERROR_INVALID_MEMORY", file=quiet)
    assert re.search(r"^  \w+:\s{2,}\S", en, re.M)        # English: labels padded to a column
    lang.set_language("zh")
    zh = umkit.explain("HSA_STATUS_ERROR_INVALID_MEMORY", file=quiet)
    labelled = [line for line in zh.splitlines() if re.match(r"  [^\x00-\x7f]+：", line)]
    assert len(labelled) >= 3, zh
    for line in labelled:
        assert not re.match(r"  \S+：\s", line), line


def test_the_doctor_s_packages_say_not_installed_in_chinese(monkeypatch):
    from umkit.diagnostics import doctor
    rep = doctor.report("sim", run_tools=False)
    rep["packages"] = {"numpy": "2.0", "cupy": doctor.NOT_INSTALLED}
    en = doctor.format_report(rep)
    assert "Packages: numpy 2.0, cupy not installed" in en
    lang.set_language("zh")
    zh = doctor.format_report(rep)
    assert "软件包：numpy 2.0, cupy 未安装" in zh


@pytest.mark.parametrize("files,x,word", [(1, "off", "关闭"), (2, "off", "关闭"),
                                          (1, "on", "开启"), (2, "on", "开启")])
def test_port_check_s_summary_spells_xnack_out(files, x, word):
    en = (f"19 findings in {files} file{'' if files == 1 else 's'} for mi250x (XNACK {x}): "
          "0 breaks, 11 slower, 2 differs, 6 same")
    zh = lang.tr(en, "zh")
    assert f"目标 mi250x（XNACK {word}）" in zh and f"{files} 个文件中有 19 条发现" in zh, zh


def test_strategy_panel_empty_text_reads_chinese():
    from umkit.teaching.widgets.panel import summary_text
    english = summary_text([])
    lang.set_language("zh")
    chinese = summary_text([])
    assert english == "strategy panel: no runs yet"
    assert _HAN.search(chinese) and not _PROSE.search(chinese), chinese


def test_port_check_text_in_chinese_has_its_labels_cut_summary_and_v2_glue(tmp_path):
    from umkit.diagnostics.portcheck import port_check
    src = tmp_path / "a.cu"
    src.write_text("int main(){ float*p; cudaMallocManaged(&p,4);\n"
                   "cudaMemAdvise(p,4,cudaMemAdviseSetReadMostly,0);\n"
                   "cudaIpcMemHandle_t h; cudaIpcGetMemHandle(&h,p);\n"
                   "for(int i=0;i<3;i++) cudaMemPrefetchAsync(p,4,0,0); }\n")
    r = port_check(str(tmp_path), max_findings=2)
    english = r.text()
    assert "of them not shown" in english and "ledger: " in english
    lang.set_language("zh")
    text, md = r.text(), r.markdown()
    assert "出处台账：" in text and "出处台账： " not in text
    assert "小结：" in text and "小结： " not in text
    summary = next(line for line in text.splitlines() if line.startswith("小结："))
    assert "not shown" not in summary and "shows them all" not in summary, summary
    assert "未显示" in summary and _numbers(summary) == _numbers(
        next(x for x in english.splitlines() if x.startswith("summary:")))
    v2 = [f for f in r.findings if "(HIP 7.1" in f.hip]
    for f in v2:                                  # the _v2 replacement's glue reads Chinese
        assert "same hipMemLocation" not in text and "同样接受" in text and "同样接受" in md
