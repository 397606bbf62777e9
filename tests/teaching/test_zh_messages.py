"""The language of what umkit prints (umkit.runtime.lang): how it is chosen, how the catalogue
turns finished English messages into Chinese, and that the exercises' checks, in all three hint
tiers, speak Chinese when the learner's language is Chinese -- with English the default."""
from __future__ import annotations

import re

import pytest

import umkit
from umkit.errors import InvalidArgument
from umkit.runtime import lang

MESSAGES = lang.catalogue("zh")          # umkit/i18n/zh.po: English template -> Chinese


@pytest.fixture(autouse=True)
def _english_after(monkeypatch, tmp_path):
    monkeypatch.delenv("UMKIT_LANG", raising=False)
    monkeypatch.chdir(tmp_path)                  # no .umkit-lang marker above the test's folder
    lang.set_language(None)
    yield
    lang.set_language(None)


def _fields(template: str) -> set:
    """The ``{field}``s lang.tr fills (``lang._FIELD``: a word in braces); braces around other
    text (``{buffer name: 'device' | ...}``, a dict shown to the learner) are text, translated."""
    return set(re.findall(r"\{(\w+)\}", template))


def _han(text: str) -> bool:
    return bool(re.search(r"[\u4e00-\u9fff]", text))


# -- choosing the language --------------------------------------------------------------------------
def test_english_is_the_default():
    assert lang.language() == "en"
    assert lang.tr("concept") == "concept"


def test_set_language_env_and_marker_in_that_order(monkeypatch, tmp_path):
    work = tmp_path / "workspace-zh" / "workshop"
    work.mkdir(parents=True)
    (tmp_path / "workspace-zh" / ".umkit-lang").write_text("zh\n")
    monkeypatch.chdir(work)                      # a notebook one folder below the marker
    assert lang.language() == "zh"
    monkeypatch.setenv("UMKIT_LANG", "en")
    assert lang.language() == "en"               # the environment beats the marker
    assert lang.set_language("zh-CN") == "zh"    # an explicit choice beats both
    assert lang.set_language(None) == "en"


def test_use_takes_lang_and_a_bad_language_is_refused():
    umkit.use("sim", quiet=True, lang="zh")
    assert lang.language() == "zh"
    with pytest.raises(InvalidArgument) as e:
        lang.set_language("klingon")
    assert e.value.argument == "lang"
    with pytest.raises(InvalidArgument):
        umkit.use("sim", quiet=True, lang=3)
    umkit.use("sim", quiet=True, lang="en")
    assert lang.language() == "en"


# -- the catalogue ----------------------------------------------------------------------------------
@pytest.mark.parametrize("en", sorted(MESSAGES), ids=lambda s: s[:50])
def test_an_entry_uses_the_fields_of_its_english(en):
    zh = MESSAGES[en]
    assert _fields(zh) <= _fields(en), f"{zh!r} uses fields its English does not have"
    assert _han(zh) or ("：" in zh or zh != en), f"the entry for {en[:60]!r} is not Chinese"


def test_templates_fill_in_values_and_translate_them():
    assert lang.tr("transitions(1, 256) returned 0, expected 1: no faults, no trip into the kernel",
                   "zh") == "transitions(1, 256) 返回了 0，应为 1：没有缺页，就不用进内核"
    assert lang.tr("PASS: ", "zh") == "通过："            # no space after a full-width colon
    assert lang.tr("  PASS:", "zh") == "  通过："          # the padding of a text is kept
    assert lang.tr("a message nobody translated", "zh") == "a message nobody translated"
    assert lang.tr(None, "zh") is None


# -- the checks speak Chinese ---------------------------------------------------------------------------
def _verdicts():
    from umkit.exercises import nb00, nb01, nb02, nb03, nb04, nb05

    def waits_for_all(a, s, next_batch):
        umkit.increment(a, stream=s)
        next_batch()
        umkit.synchronize()
        return float(a.host.sum())
    return [
        ("nb00", lambda h: nb00.check_prefetch_model(
            lambda p, mib, to_gpu=True: mib * 2**20 / p.prefetch_h2d_bw * 1e3, hint=h)),
        ("nb01 trips", lambda h: nb01.check_transitions(lambda n, b: n // b, hint=h)),
        ("nb01 layers", lambda h: nb01.check_layers({"first_touch": "umd"}, hint=h)),
        ("nb02", lambda h: nb02.check_allocators({"fc_weights": "managed"}, hint=h)),
        ("nb03", lambda h: nb03.check_prepare(lambda a: a.prefetch("gpu"), hint=h)),
        ("nb04", lambda h: nb04.check_step(waits_for_all, hint=h)),
        # the notebook's first question, where {"a"} is wrong (an earlier test may have left a
        # question drawn at random open)
        ("nb05", lambda h: (nb05.ipc_first_question(), nb05.check_ipc({"a"}, hint=h))[1]),
    ]


@pytest.mark.parametrize("name,run", _verdicts(), ids=[n for n, _ in _verdicts()])
def test_a_failed_check_shows_every_tier_in_chinese(name, run):
    umkit.use("sim", quiet=True)
    english = repr(run(3))
    assert english.startswith("NOT YET: "), english
    lang.set_language("zh")
    v = run(3)
    text = repr(v)
    assert text.startswith("还没通过："), text
    head, *tiers = re.split(r"\n  (?=概念|答案|（)", text)
    assert _han(head) and head != english.split("\n")[0]
    assert any(t.startswith("概念") for t in tiers), text
    assert any(t.startswith("答案") for t in tiers), text
    assert all(_han(t) for t in tiers if not t.startswith("答案：def")), text   # code stays code
    assert "  (" not in text and "概念: " not in text, text    # full-width marks in Chinese
    assert "还没通过" in v._repr_html_() or _han(v._repr_html_())


def test_a_passed_check_and_a_prediction_in_chinese():
    from umkit.exercises import nb01, predict, reveal
    lang.set_language("zh")
    assert repr(nb01.check_transitions(lambda n, b: -(-n // b))).startswith("通过：")
    g = predict("zh test", {"a": 1.0, "b": None}, unit="ms")
    assert "已记下" in repr(g)
    table = repr(reveal(g, {"a": 2.0, "b": 1.0}))
    assert "你的猜测" in table and "没有写猜测" in table and "1/2" in table


# -- the widgets, explain and the doctor ------------------------------------------------------------
def _texts(w, out=None):
    out = [] if out is None else out
    for attr in ("description", "tooltip"):
        v = getattr(w, attr, None)
        if isinstance(v, str) and v:
            out.append(v)
    if type(w).__name__ == "HTML" and isinstance(w.value, str):
        out.append(w.value)
    for c in getattr(w, "children", ()) or ():
        _texts(c, out)
    return out


def test_the_workshop_dashboard_labels_follow_the_language():
    import umkit.widgets
    umkit.use("sim", compute=False, quiet=True)
    english = _texts(umkit.widgets.workshop().widget)
    assert "Projector mode" in english and "▶ Run" in english
    lang.set_language("zh")
    chinese = _texts(umkit.widgets.workshop().widget)
    assert "投影模式" in chinese and "▶ 运行" in chinese and "内存" in chinese
    assert "Projector mode" not in chinese
    panel = umkit.widgets.panel(static=False)
    assert any("策略面板" in t for t in _texts(panel.widget))
    assert panel.controls["memory"].value == "managed"       # the choices' values are untouched


def test_explain_and_the_doctor_in_chinese():
    import io
    umkit.use("sim", quiet=True)
    lang.set_language("zh")
    text = umkit.explain("HSA_STATUS_ERROR_INVALID_MEMORY", file=io.StringIO())
    assert "含义" in text and "托管指针不能跨进程" in text
    assert "HSA_STATUS_ERROR_INVALID_MEMORY" in text           # the names stay
    out = io.StringIO()
    assert umkit.doctor(file=out) == 0
    assert "环境检查" in out.getvalue() and "检查清单" in out.getvalue()
    lang.set_language("en")
    assert "What it means" in umkit.explain("HSA_STATUS_ERROR_INVALID_MEMORY", file=io.StringIO())


_FUNCTION_WORDS = {"the", "a", "an", "of", "to", "and", "is", "are", "in", "on", "for", "with", "that",
                   "it", "by", "not", "be", "this", "from", "when", "its", "as", "at", "or", "you",
                   "your", "which", "can", "has", "have", "does", "do", "than", "so", "then", "one"}


def _english_left(en: str, zh: str) -> list[str]:
    """Runs of seven words of the English still in the translation that read as prose (two
    function words or more; quoted output, code and names have fewer): a part of a joined text,
    such as a shared hint behind a ``{hint}`` template, that no entry translated."""
    w = en.split()
    runs = (" ".join(w[i:i + 7]) for i in range(len(w) - 6))
    return [r for r in runs if r in zh and
            sum(x.strip(".,;:()'").lower() in _FUNCTION_WORDS for x in r.split()) >= 2]


def _explain_texts():
    """Every text ``umkit.explain`` prints from the error table: each row's meaning, note and what
    to do, and each symptom's title, cause, advice, tools and see-also."""
    from umkit.errors.table import ERRORS, SYMPTOMS
    out = [(f"{r.key}.{f}", getattr(r, f)) for r in ERRORS for f in ("message", "note", "hint")
           if getattr(r, f)]
    out += [(f"{s.key}.{f}", getattr(s, f)) for s in SYMPTOMS
            for f in ("title", "cause", "hint", "tools", "see_also") if getattr(s, f)]
    return out


@pytest.mark.parametrize("where,en", _explain_texts(), ids=[w for w, _ in _explain_texts()])
def test_every_text_of_the_error_table_is_in_chinese(where, en):
    """A row added to umkit/errors/table.py (or reworded there) needs its entry in umkit/i18n/zh.po:
    otherwise the Chinese learner reads a Chinese label followed by English."""
    zh = lang.tr(en, "zh")
    assert zh != en and _han(zh), f"{where}: no Chinese entry in umkit/i18n/zh.po for {en[:90]!r}"
    left = _english_left(en, zh)
    assert not left, (f"{where}: English left in the Chinese (a part joined by a {{hint}} template "
                      f"without an entry of its own?): {left[:2]}")


def test_the_coverage_check_sees_an_untranslated_part():
    assert _english_left("Do this first. Then look at the kernel log for the driver's faults.",
                         "先做这个。Then look at the kernel log for the driver's faults.")
    assert not _english_left("ROCm prints 'Memory access fault by GPU node-N ... Reason:' here",
                             "ROCm 会打印 'Memory access fault by GPU node-N ... Reason:'")


def test_explain_prints_a_row_in_chinese():
    import io
    from umkit.errors.table import lookup
    lang.set_language("zh")
    text = umkit.explain(700, file=io.StringIO())
    assert "kernel 读写了一个不属于它的地址" in text and "粘性错误" in text
    assert "hipErrorIllegalAddress" in text and "CUDA_LAUNCH_BLOCKING=1" in text   # names stay
    assert not _english_left(lookup("hipErrorIllegalAddress").hint, text)


@pytest.mark.parametrize("cls", ["UseAfterFree", "NotManaged", "BackendUnavailable"])
def test_explain_of_umkit_s_own_errors_says_what_it_means_in_chinese(cls):
    import io
    import umkit.errors
    lang.set_language("zh")
    text = umkit.explain(getattr(umkit.errors, cls)("a test"), file=io.StringIO())
    means = next(ln for ln in text.splitlines() if "含义" in ln)
    assert _han(means.replace("含义", "")) and not re.search(r"[a-z]+ [a-z]+ [a-z]+ [a-z]+", means), means


def _source_shingles() -> set:
    """Every run of three words in the string literals of umkit's source (this catalogue aside),
    of the English notebooks' code cells, and in the titles of the sim profiles (umkit/sim/profiles/*.json: the modelled card's name,
    which the panel and the doctor print)."""
    import ast
    import json
    from pathlib import Path
    words, out = (lambda s: re.findall(r"[A-Za-z_][\w'.-]*|\d+", s)), set()
    texts = []
    for p in Path(umkit.__file__).parent.rglob("*.py"):
        texts += [n.value for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
                  if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    root = Path(__file__).resolve().parents[2]
    for nb in (root / "notebooks").glob("*.ipynb"):      # text a code cell prints through tr()
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":
                try:
                    tree = ast.parse("".join(cell["source"]))
                except SyntaxError:
                    continue
                texts += [n.value for n in ast.walk(tree)
                          if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    for p in (Path(umkit.__file__).parent / "sim" / "profiles").glob("*.json"):
        title = json.loads(p.read_text(encoding="utf-8")).get("title")
        if isinstance(title, str):
            texts.append(title)
    for t in texts:
        w = words(t)
        out.update(tuple(w[i:i + 3]) for i in range(len(w) - 2))
    return out


def test_every_entry_still_has_its_english_in_the_source():
    """An English message reworded where it is made no longer matches its entry (it is shown in
    English): such an entry has lost most of its three-word runs from the source's literals."""
    src = _source_shingles()
    words = lambda s: re.findall(r"[A-Za-z_][\w'.-]*|\d+", s)
    stale = []
    for en in MESSAGES:
        runs = [tuple(w[i:i + 3]) for part in re.split(r"\{\w+\}", en)
                for w in [words(part)] for i in range(len(w) - 2)]
        if len(runs) >= 4 and sum(r in src for r in runs) / len(runs) < 0.4:
            stale.append(en[:70])
    assert not stale, f"catalogue entries whose English is gone from the source: {stale}"


def test_the_staleness_check_sees_a_reworded_message():
    src = _source_shingles()
    words = lambda s: re.findall(r"[A-Za-z_][\w'.-]*|\d+", s)
    w = words("the kernel launch puts a packet in a queue and rings the doorbell twice per step")
    runs = [tuple(w[i:i + 3]) for i in range(len(w) - 2)]
    assert sum(r in src for r in runs) / len(runs) < 0.4


def test_the_exercise_data_a_notebook_prints_follows_the_language():
    """nb08.BUFFERS and nb09.CASES / FIXES are printed by the notebooks' code cells: Chinese in the
    Chinese workspace, the English untouched otherwise (the checks read the same dicts)."""
    from umkit.teaching.exercises import nb08, nb09
    for d in (nb08.BUFFERS, nb09.CASES, nb09.FIXES):
        english = {k: dict.__getitem__(d, k) for k in d}
        assert dict(d.items()) == english and d[next(iter(d))] == english[next(iter(d))]
        lang.set_language("zh")
        shown = dict(d.items())
        assert list(shown) == list(english) and all(_han(v) for v in shown.values()), shown
        assert d.get(next(iter(d))) == shown[next(iter(d))] and "{" in repr(d)
        lang.set_language("en")


# -- the workshop dashboard, the residency map, explain's header and usage, the sim notice --------
def _shown(w, out=None):
    """Every text a widget tree shows: descriptions, tooltips, the labels of a dropdown's options,
    and the text of its HTML (markup and style sheets left out)."""
    out = [] if out is None else out
    for attr in ("description", "tooltip"):
        v = getattr(w, attr, None)
        if isinstance(v, str) and v:
            out.append(v)
    for o in getattr(w, "options", ()) or ():
        out.append(o[0] if isinstance(o, tuple) else str(o))
    if type(w).__name__ == "HTML" and isinstance(w.value, str):
        out.append(re.sub(r"<[^>]+>", " ", re.sub(r"<style>.*?</style>", "", w.value, flags=re.S)))
    for c in getattr(w, "children", ()) or ():
        _shown(c, out)
    return out


def _prose(texts) -> list[str]:
    """The texts with a run of three lower-case English words (prose, not a name or a unit)."""
    return [t for t in texts if re.search(r"\b[a-z]{2,}[,:]? [a-z]{2,} [a-z]{2,}\b", t)]


def test_the_whole_workshop_dashboard_speaks_chinese(monkeypatch):
    """What the screenshot of the Chinese dashboard showed in English: the backend line, the demo
    picker and its presets, the controls' choices, the status line, the residency map (header,
    legend, breath, caption) and the ECG box."""
    import umkit.widgets
    monkeypatch.setenv("UMKIT_WIDGETS", "1")             # drawn as in Voila, not the static fallback
    umkit.use("sim", compute=False, quiet=True)
    lang.set_language("zh")
    ws = umkit.widgets.workshop()
    ws.apply("pingpong")
    ws.breathe("gpu")
    ws.panel.run_once(steps=3)
    shown = _shown(ws.widget)
    assert not _prose(shown), _prose(shown)[:5]
    joined = "\n".join(shown)
    for zh in ("被建模的显卡", "按实测拟合", "（选择一个演示）", "1. 乒乓", "托管内存（hipMallocManaged）",
               "CPU 每 k 步读一次统计量", "一个 16 MiB 的托管数组", "每格 2 个页面", "吸气", "请台下回答",
               "完成：3 步", "中位数"):
        assert zh in joined, zh
    assert "running #" not in joined and "unpopulated" not in joined
    # only the labels changed: the values the code reads are the English ones
    assert [o[1] for o in ws.preset_picker.options][1] == "pingpong"
    assert [v for _, v in ws.panel.controls["memory"].options] == ["device", "managed", "pinned", "mixed"]
    assert ws.panel.settings()["pattern"] == "cpu_stats"
    assert ws.panel.model.status().startswith("#1 done: 3 steps")       # the model stays English


def test_the_status_line_translates_part_by_part():
    assert lang.tr_parts("running #1: step 14 / 40 · median 0.0852 ms", lang="zh") == \
        "正在运行 #1：第 14 / 40 步 · 中位数 0.0852 ms"
    assert lang.tr_parts("running #1: step 14 / 40 · median 0.0852 ms", lang="en") == \
        "running #1: step 14 / 40 · median 0.0852 ms"


def test_the_residency_map_speaks_chinese_and_its_data_stays_english():
    import umkit.widgets
    umkit.use("sim", compute=False, quiet=True)
    a = umkit.managed(1 << 20)
    english = umkit.widgets.residency_map(a, static=False)
    assert "unpopulated" in english.footer.value and "Breathing" in english.footer.value
    lang.set_language("zh")
    m = umkit.widgets.residency_map(a, static=False)
    text = "\n".join(_shown(m.widget))
    assert not _prose([text]), text
    assert "未填充" in text and "GPU 上" in text and "呼吸" in text and "吸气" in text
    assert m.caption == "0% of the pages are on the GPU"                # the data a test reads
    m.static = True
    assert m._repr_mimebundle_()["text/plain"].startswith("驻留图：")
    a.free()


def test_the_ecg_widget_table_speaks_chinese():
    from umkit.teaching.widgets.ecg_widget import summary_html
    row = dict(strategy="managed", median_ms=1.0, p95_ms=2.0, max_over_median=9.0, verdict="spiky")
    assert "verdict" in summary_html({"summary": [row]})
    lang.set_language("zh")
    html = summary_html({"summary": [row]})
    assert "结论" in html and "有毛刺" in html and "managed" in html and "verdict" not in html


def test_explain_header_usage_and_did_you_mean_in_chinese():
    import io
    lang.set_language("zh")
    head = umkit.explain(700, file=io.StringIO()).splitlines()[0]
    assert head.startswith("错误码 700：") and "hipErrorIllegalAddress" in head, head
    usage = umkit.explain("hipErrorIlegalAddress", file=io.StringIO())
    assert "没有" in usage and "你是不是想找：hipErrorIllegalAddress" in usage, usage
    assert not _prose(usage.splitlines()), _prose(usage.splitlines())
    assert "umkit.explain(e)" in usage                                    # the code stays code
    assert "错误码 123456" in umkit.explain(123456, file=io.StringIO())
    lang.set_language("en")
    assert umkit.explain(700, file=io.StringIO()).startswith("Code 700: HIP 700 = ")


def test_the_doctor_s_session_line_and_the_sim_notice_in_chinese(monkeypatch, capsys):
    import io
    umkit.use("sim", quiet=True)
    lang.set_language("zh")
    out = io.StringIO()
    umkit.doctor(file=out)
    assert "  本会话当前使用：sim" in out.getvalue()
    assert "active in this session" not in out.getvalue()
    monkeypatch.setenv("UMKIT_BACKEND", "sim")
    umkit.use()
    said = capsys.readouterr().out
    assert said.startswith("umkit：正在使用 sim 后端（") and "CPU 模型总能运行" in said, said
    lang.set_language("en")
    umkit.use()
    assert capsys.readouterr().out.startswith("umkit: using the sim backend (UMKIT_BACKEND")


def test_the_ecg_text_table_speaks_chinese_and_keeps_its_columns():
    umkit.use("sim", quiet=True)
    e = umkit.ecg.record(steps=12, nbytes=8 << 20, progress=None, strategies=["device", "managed"])
    en = umkit.ecg.table(e).splitlines()
    assert en[0].startswith("memory ECG: 12 steps of 8 MiB") and en[1].endswith("verdict")
    lang.set_language("zh")
    zh = umkit.ecg.table(e).splitlines()
    assert zh[0].startswith("显存心电图：12 步") and "结论" in zh[1] and "最大/中位数" in zh[1]
    assert all(z.split()[0] == x.split()[0] for z, x in zip(zh[2:], en[2:]))   # strategy names
    assert {z.split()[-1] for z in zh[2:]} <= {"平坦", "有毛刺"}
    assert [z.split()[1:4] for z in zh[2:]] == [x.split()[1:4] for x in en[2:]]  # the numbers
    # the columns line up in a fixed-width font: a CJK character takes two columns
    from umkit.ecg.model import display_width as _width
    assert _width(zh[1]) == _width(en[1]) - len("verdict") + _width("结论")


# -- umkit's typed errors: str(err) in the learner's language, the fields English -----------------
def _mistakes():
    import numpy as np

    def freed():
        a = umkit.managed(8)
        a.free()
        umkit.fill(a, 1.0)

    def race():
        umkit.use("sim", strict=True, quiet=True)
        a = umkit.managed(1 << 20)
        umkit.increment(a, stream=umkit.Stream())
        a.host[:16] = 0.0

    def oom():
        umkit.use("sim", vram=64 << 20, quiet=True)
        umkit.device_array((128 << 20) // 4)

    def two_streams():
        umkit.use("sim", strict=True, quiet=True)
        a = umkit.managed(1 << 20)
        umkit.increment(a, stream=umkit.Stream())
        umkit.increment(a, stream=umkit.Stream())

    def view_in_flight():
        umkit.use("sim", strict=True, quiet=True)
        a = umkit.managed(1 << 20)
        umkit.increment(a, stream=umkit.Stream())
        np.array(a.host)

    def freed_view():
        a = umkit.managed(16)
        h = a.host
        a.free()
        h[0]

    return {
        "two streams race": two_streams,
        "a view taken during a kernel": view_in_flight,
        "a view of freed memory": freed_view,
        "prefetch of device memory (method)": lambda: umkit.device_array(8).prefetch("gpu"),
        "indexing an array": lambda: umkit.managed(8)[0],
        "a profile override out of range": lambda: umkit.use("sim", vram=-1),
        "an unknown profile": lambda: umkit.use("sim", profile="nope"),
        "too many simulated GPUs": lambda: umkit.use("sim", gpus=9),
        "a device that is not there": lambda: umkit.managed(4, device=3),
        "a byte range past the end": lambda: umkit.managed(1024).prefetch("gpu", nbytes=10**6),
        "too large for this machine": lambda: umkit.managed(1 << 40),
        "negative size": lambda: umkit.managed(-1),
        "size as text": lambda: umkit.managed("x"),
        "data as a shape": lambda: umkit.managed(np.ones(3)),
        "host view of device memory": lambda: umkit.device_array(8).host,
        "object dtype": lambda: umkit.managed(8, dtype="object"),
        "prefetch of device memory": lambda: umkit.prefetch(umkit.device_array(8), "gpu"),
        "unknown location": lambda: umkit.prefetch(umkit.managed(8), "tpu"),
        "unknown advice": lambda: umkit.advise(umkit.managed(8), "fast"),
        "arithmetic on an array": lambda: umkit.managed(8) + 1,
        "unknown backend": lambda: umkit.use("nope"),
        "bad stride": lambda: umkit.touch(umkit.managed(8), 3),
        "use after free": freed,
        "race": race,
        "out of memory": oom,
    }


#: lowercase words a Chinese error may keep: code, names of umkit's and NumPy's things
CODE_WORDS = {"kernel", "getitem", "prefetch", "advise", "profile", "offset", "nbytes", "managed",
              "sim", "cuda", "hip", "auto", "tuple", "shape", "dtype", "bool", "int", "uint",
              "float", "complex", "ptr"}


def _raised(fn):
    umkit.use("sim", quiet=True)
    with pytest.raises(umkit.UmkitError) as e:
        fn()
    return e.value


@pytest.mark.parametrize("mistake", sorted(_mistakes()))
def test_a_learner_s_mistake_reads_in_chinese_and_its_fields_stay_english(mistake):
    """The errors a learner meets first (bad sizes, device memory read on the host, a freed array,
    a race, out of memory): str(err) -- what a traceback and print(err) show -- is Chinese in the
    Chinese workspace; err.message and err.hint, which code reads, are the English they were."""
    english = _raised(_mistakes()[mistake])
    assert str(english) == english.message + (f"\n  -> {english.hint}" if english.hint else "")
    lang.set_language("zh")
    err = _raised(_mistakes()[mistake])
    # the same English fields (the free memory a message may name moves between two calls on a
    # shared machine: numbers aside)
    num = lambda t: re.sub(r"\d+(\.\d+)?", "#", t or "")
    assert (num(err.message), num(err.hint)) == (num(english.message), num(english.hint))
    shown = str(err)
    assert _han(shown.split("\n")[0]), shown
    if err.hint:
        assert _han(shown.split("\n  -> ")[1]), shown
    # nothing of the English message is left but names, numbers and code
    words = set(re.findall(r"(?<![\w'.(=/\-`])[a-z]{3,}(?![\w'.(=/\-`])", shown))
    assert words <= CODE_WORDS, (words - CODE_WORDS, shown)
    if getattr(err, "argument", None):
        assert err.argument in shown                   # the argument's name is code: kept as is


def test_an_argument_s_name_is_kept_even_where_it_is_a_catalogue_word():
    """``advice`` and ``read`` are catalogue entries (建议, 读); as the name of an argument they
    are code and stay English."""
    lang.set_language("zh")
    err = _raised(lambda: umkit.advise(umkit.managed(8), "fast"))
    assert str(err).startswith("advice='fast' 未知")
    assert lang.tr("read=3 must be an int", "zh") == "read=3 必须是整数"


def test_explain_finds_the_row_of_a_chinese_error():
    """explain searches its tables in the English the error was made in: the OOM and race rows
    are found in the Chinese workspace too, under a Chinese first line."""
    import io
    lang.set_language("zh")
    for mistake, marker in (("out of memory", "hipErrorOutOfMemory"), ("race", "症状")):
        err = _raised(_mistakes()[mistake])
        text = umkit.explain(err, file=io.StringIO())
        first = text.splitlines()[0]
        assert first.startswith(type(err).__name__ + ": ") and _han(first), first
        assert marker in text and "怎么办" in text, text


def test_a_catalogue_field_used_twice_matches_the_same_text_twice():
    lang.set_language("zh")
    assert lang.tr("pass flag=True or flag=False", "zh") == "请传入 flag=True 或 flag=False"
    assert lang.tr("pass flag=True or other=False", "zh") == "pass flag=True or other=False"


def test_the_ipython_traceback_of_an_error_is_chinese_in_the_chinese_workspace():
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output
    from umkit.runtime import tracebacks
    shell = InteractiveShell.instance()          # the one shell of this process, as IPython's
    shell.set_custom_exc((), None)
    try:
        assert tracebacks.install(shell)
        lang.set_language("zh")
        with capture_output() as out:
            shell.run_cell("import umkit; umkit.use('sim', quiet=True); umkit.managed(-1)")
    finally:
        shell.set_custom_exc((), None)
    text = out.stdout + out.stderr
    assert "InvalidArgument" in text and "每个维度都必须 > 0" in text and "至少分配一个元素" in text


def test_a_race_warning_reads_in_chinese_and_its_text_stays_english():
    """Outside strict mode a race is a RaceWarning: what the warning shows is Chinese in the
    Chinese workspace, its args the English (code that sorts warnings should test the category,
    as a `message=` filter matches the shown text)."""
    import warnings

    def race():
        umkit.use("sim", quiet=True)
        a = umkit.managed(1 << 20)
        umkit.increment(a, stream=umkit.Stream())
        a.host[:16] = 0.0

    for language in ("en", "zh"):
        lang.set_language(language)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            race()
        (w,) = [w for w in seen if issubclass(w.category, umkit.errors.RaceWarning)]
        assert w.message.args[0].startswith("race: host writes bytes [0x0, 0x1000)")
        if language == "en":
            assert str(w.message) == w.message.args[0] and ". Fix: synchronize first" in str(w.message)
        else:
            assert str(w.message).startswith("数据竞争：主机写入了分配") and "。修复：请先同步" in str(w.message)
        import io
        shown = umkit.explain(w.message, file=io.StringIO())      # the symptom is found either way
        assert ("症状" if language == "zh" else "Symptom") in shown, shown


def test_a_code_field_takes_one_word_and_a_list_field_a_bracketed_list():
    """A field named code* matches one word of code, list* a bracketed list: a message those
    templates were not written for stays English rather than coming out half translated."""
    lang.set_language("zh")
    assert lang.tr("gpus=9 must be between 1 and 7") == "gpus=9 必须在 1 到 7 之间"
    assert lang.tr("profile override vram=-1 must be between 1 and 7") \
        == "profile override vram=-1 must be between 1 and 7"
    assert lang.tr("use one of ('a', 'b')") == "请从 ('a', 'b') 中选一个"
    assert lang.tr("use one of two things") == "use one of two things"


@pytest.mark.slow
def test_a_long_text_that_almost_matches_many_templates_does_not_hang():
    """The matcher takes each literal where it first occurs, in one pass: a message whose
    values repeat the templates' own words (a name, a path, a repr the learner chose) is matched
    in time linear in its length.  The backtracking regex this replaced took minutes on 800
    characters; this guard allows 90 s for all of them at 5000 (about 15 s on an idle 2-core
    machine: the margin is for a loaded one, the guard is against minutes per text)."""
    import random
    import signal
    lang.set_language("zh")
    lang.tr("warm the tables up", "zh")
    rng = random.Random(1)
    texts = []
    for en in MESSAGES:
        parts = re.split(r"\{\w+\}", en)
        if len(parts) < 3:
            continue
        words = [p for p in parts if p] + ["x", " ", "; "]
        junk = "".join(rng.choice(words) for _ in range(600))[:5000]
        texts.append(re.sub(r"\{\w+\}", lambda m: junk, en)[:-1] + "#")   # fails only at the end

    def too_long(*_):
        raise TimeoutError("tr() backtracked")
    old = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(90)
    try:
        for t in texts:
            lang.tr(t, "zh")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert len(texts) > 100


@pytest.mark.parametrize("raw", ["zh\n".encode("utf-8-sig"), "zh\n".encode("utf-16"),
                                 b"\xff\xfe\xff garbage", b"\x80\x81 not utf-8"])
def test_a_marker_an_editor_wrote_in_another_encoding_never_breaks_an_error(raw, tmp_path,
                                                                            monkeypatch):
    """A .umkit-lang with a byte-order mark or in UTF-16 (Windows Notepad) names its language;
    bytes that are no text mean English; an error's str() never raises because of the file."""
    work = tmp_path / "w"
    work.mkdir()
    (work / ".umkit-lang").write_bytes(raw)
    monkeypatch.chdir(work)
    expected = "zh" if raw.replace(b"\x00", b"").strip().endswith(b"zh") else "en"
    assert lang.language() == expected
    assert str(InvalidArgument("x", hint="y"))


def test_a_field_value_is_never_translated_only_umkit_s_own_parts_are():
    """Templates are filled after they are translated: a learner's own exception text, a
    prediction's name or an item's value goes in as it is, even where it is a catalogue word
    ("prefetch" is 预取, "managed" 托管); a field that holds a part of umkit's own English
    message (a {why}, a {hint}) is translated in turn."""
    assert MESSAGES["prefetch"] == "预取"                  # the word is in the catalogue ...
    shown = lang.tr("check_prepare(a) raised ValueError: prefetch", "zh")
    assert shown == "check_prepare(a) 抛出了 ValueError：prefetch", shown   # ... the value is not
    assert lang.tr("prediction 'prefetch' kept: 1 of 2 guesses written (reveal(...) shows them "
                   "beside the result)", "zh").startswith("预测“prefetch”已记下")
    # a part umkit wrote in English is translated: the slip behind {why}
    assert lang.tr("12.000 ms: you left out the fixed per-call cost: add prefetch_latency", "zh") \
        == "12.000 ms：你漏掉了固定的单次调用开销：加上 prefetch_latency"
    assert lang.is_part("why") and lang.is_part("part_b") and not lang.is_part("exception")
    # every field the catalogue translates in turn is one of the declared kinds
    for en, zh in MESSAGES.items():
        for f in _fields(en):
            assert not f.startswith("part") or f in _fields(zh), (en, f)


def test_a_nums_field_takes_numbers_so_a_joined_message_translates_part_by_part():
    """nb03's rounds ("in rounds 2, 3 of 3 ...; in round 1 ..."): a field named nums* matches only
    numbers and their commas, so the first part's template cannot swallow the second part."""
    text = ("in rounds 2, 3 of 3 the GPU's read faulted pages into VRAM and the CPU's read pulled "
            "them back: ping-pong; in round 1 the CPU's read pulled back pages that were already "
            "in VRAM")
    zh = lang.tr(text, "zh")
    assert zh.startswith("在第 2、3 轮（共 3 轮）") and "；在第 1 轮，" in zh, zh
    assert not re.search(r"[a-z]{3,} [a-z]{3,}", zh), zh


# -- the native reader's review (issue 42 item 6) ------------------------------------------------
def test_the_column_is_zhuanlan_in_every_printed_message():
    # the notebooks call the article 专栏; what umkit prints must not call it 原文
    assert not [k for k, v in MESSAGES.items() if "原文" in v]
    assert lang.tr("Article:", "zh") == "专栏："


def test_lists_of_numbers_and_sections_use_the_chinese_list_separator():
    import io
    assert lang.tr("§5.1, §3.3", "zh") == "§5.1、§3.3"
    assert lang.tr("§5.1, §3.3", "en") == "§5.1, §3.3"
    filled = lang.tr("the CPU's read pulled pages back from VRAM in rounds 2, 3 of 4", "zh")
    assert "2、3" in filled and ", " not in filled
    umkit.use("sim", quiet=True)
    lang.set_language("zh")
    out = umkit.explain("hipErrorIllegalAddress", file=io.StringIO())
    assert "专栏" in out and not re.search(r"§[\d.]+, §", out), out


def test_the_doctors_why_sim_lines_are_chinese(monkeypatch):
    import io
    monkeypatch.setenv("UMKIT_BACKEND", "sim")
    umkit.use("sim", quiet=True)
    lang.set_language("zh")
    out = io.StringIO()
    umkit.doctor(file=out)
    lines = [ln.strip() for ln in out.getvalue().splitlines()
             if re.match(r"\|\s*(cuda|hip):", ln.strip())]
    assert lines, out.getvalue()
    assert all(_han(ln) for ln in lines), lines


# -- the hint tiers 2 and 3 of the exercises a Chinese learner reported English in ----------------
#: four English words in a row: prose a Chinese learner would have to read in English (a field
#: value such as "run or step" or a line of code is shorter, or not words)
_ENGLISH_PROSE = re.compile(r"[A-Za-z']+(?: [A-Za-z']+){3,}")


def _hint_runs():
    from umkit.exercises import nb02, nb07, nb08, nb09, nb10
    return [
        ("nb02", lambda h: nb02.check_allocators({k: "managed" for k in nb02.BUFFERS}, hint=h)),
        ("nb07", lambda h: nb07.check_placement({k: "managed" for k in nb07.BUFFERS}, hint=h)),
        ("nb07b", lambda h: nb07.check_breathing(
            lambda i, cold, stream: cold[i % 4].prefetch("gpu", stream=stream), hint=h)),
        ("nb08 port", lambda h: nb08.check_port("hipMallocManaged(&w, bytes);", hint=h)),
        ("nb08 owners", lambda h: nb08.check_owner_table(
            {k: dict(budget_gb=1, lifetime="run", owner="gpu", allocator="device")
             for k in nb08.BUFFERS}, hint=h)),
        ("nb09", lambda h: nb09.check_diagnosis({"A": 1, "B": 2, "C": 3, "D": 4, "E": 5}, hint=h)),
        ("nb10", lambda h: nb10.check_fixed_step(lambda params, batch, i: None, hint=h)),
    ]


@pytest.mark.parametrize("name,run", _hint_runs(), ids=[n for n, _ in _hint_runs()])
def test_the_concept_and_the_answer_have_no_english_prose(name, run):
    umkit.use("sim", profile="mi250x-xnack1", quiet=True)
    english = run(3)
    assert _ENGLISH_PROSE.search(english.hint(2)) and _ENGLISH_PROSE.search(english.hint(3))
    lang.set_language("zh")
    v = run(3)
    for tier in (v.hint(2), v.hint(3)):
        assert _han(tier), tier
        left = [m.group(0) for line in tier.split(" | ") for m in _ENGLISH_PROSE.finditer(line)]
        assert not left, (name, left)


def test_a_joined_answer_translates_line_by_line_before_a_general_template():
    """A labels answer is its lines joined by " | ": each line's own entry wins, so a template
    made for one sentence ("{x} and {y}: {part_1}; {part_2}.") cannot swallow the joined lines and
    turn the "and" of an English reason into 和."""
    from umkit.exercises import nb07
    umkit.use("sim", quiet=True)
    english = nb07.check_placement({k: "managed" for k in nb07.BUFFERS}, hint=3).hint(3)
    lines = english.split(" | ")
    assert len(lines) == len(nb07.BUFFERS) and any(" and " in line for line in lines)
    lang.set_language("zh")
    zh = lang.tr(english)
    assert zh.split(" | ") == [lang.tr(line) for line in lines]
    assert all(_han(line) and line != en for line, en in zip(zh.split(" | "), lines))
    assert "和 written" not in zh and "read 和" not in zh
    # the IPC answer's template still takes its option letters
    assert lang.tr("a and c work: the handle is not an address; the address mmap returned is "
                   "process A's: process B has mapped nothing there.").startswith("a 和 c 行得通：")


def test_the_verdict_s_first_word_has_no_space_after_the_full_width_colon():
    from umkit.exercises import nb07
    umkit.use("sim", quiet=True)
    lang.set_language("zh")
    text = repr(nb07.check_placement({k: "managed" for k in nb07.BUFFERS}))
    assert text.startswith("还没通过：") and not text.startswith("还没通过： "), text


@pytest.mark.parametrize("profile", ["mi250x-xnack1", "h200-pcie5"])
def test_every_trace_detail_of_notebook_01_s_walk_has_its_chinese(profile):
    """What each driver event did (umkit.trace()'s details, the lines notebook 01 explains) has
    a catalogue entry; the numbers stay the simulator's."""
    umkit.use("sim", profile=profile, quiet=True)
    umkit.reset_counters()
    n = (4 << 20) // 4
    a = umkit.managed(n)
    a.host[:] = 1.0
    a.advise("preferred_location", "gpu")
    a.prefetch("gpu")
    umkit.increment(a)
    umkit.synchronize()
    d = umkit.device_array(n)
    b = umkit.managed(n)
    b.host[:] = 1.0
    umkit.increment(b)               # faults in on the GPU
    umkit.synchronize()
    events = umkit.trace()
    assert any("fault" in e["detail"] for e in events)
    for e in events:
        zh = lang.tr(e["detail"], "zh")
        assert _han(zh) or re.fullmatch(r"\d+ B 到 gpu\d+", zh), (e["detail"], zh)
        assert not _ENGLISH_PROSE.search(zh), (e["detail"], zh)
        assert re.findall(r"\d+", zh) == re.findall(r"\d+", e["detail"]) or \
            sorted(re.findall(r"\d+", zh)) == sorted(re.findall(r"\d+", e["detail"]))
    for x in (a, b, d):
        x.free()
