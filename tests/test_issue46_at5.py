"""Issue 46, the independent attacker's round AT5: each test failed before its fix.

- a learner's own text is never translated: another library's exception text, a path holding
  " | " or "; ";
- whole-model costing is bounded for models of many small buffers, and a strategy named twice is
  costed once;
- a published-run folder named with a non-ASCII digit, and a name holding a lone surrogate, give
  typed answers;
- an English sync of a Chinese workspace takes back the marker the kit wrote;
- Ctrl-C that reaches the CLI wrapped in another exception still ends with one line and 130."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import umkit
from umkit import cli
from umkit.errors import InvalidArgument
from umkit.teaching import workspace
from umkit.workloads import whole_model as WM

ROOT = Path(__file__).resolve().parents[1]


pytestmark = pytest.mark.usefixtures("sim_english")


def test_another_librarys_exception_text_is_not_translated():
    umkit.use("sim", quiet=True, lang="zh")
    assert umkit.explain(RuntimeError("prefetch")).splitlines()[0] == "RuntimeError: prefetch"


@pytest.mark.parametrize("name", ["a | prefetch | b.json", "x; prefetch"])
def test_a_path_holding_a_separator_is_shown_as_it_is(name, tmp_path):
    umkit.use("sim", quiet=True, lang="zh")
    with pytest.raises(InvalidArgument) as err:
        umkit.ecg.load(str(tmp_path / name))
    assert name in str(err.value) and "预取" not in str(err.value)


def test_many_small_buffers_count_as_work_and_are_refused_before_running():
    tiny = WM.ModelSpec("t", 1, 1000, 1, 1, "bf16", 1, 1, "full")
    every = [WM.strategy(n) for n in WM.STRATEGIES]
    assert WM.step_work(tiny, every, 2) > WM.MAX_STEP_WORK
    with pytest.raises(InvalidArgument, match="GB-uses"):
        WM.model_step_costs(tiny, steps=2)


def test_a_strategy_named_twice_is_costed_once():
    rows = WM.model_step_costs("7b", strategies=["managed", "managed", "device"], steps=1)
    assert [r.strategy for r in rows] == ["managed", "device"]


def test_a_run_folder_named_with_a_superscript_digit_is_read(tmp_path):
    src = ROOT / "benchmarks" / "results"
    found = sorted(src.glob("*/torch_training/torch_training.json"))
    if not found:
        pytest.skip("no committed torch_training run")
    dest = tmp_path / "²" / "torch_training"
    dest.mkdir(parents=True)
    shutil.copy(found[-1], dest / "torch_training.json")
    got = umkit.ecg.published("torch_training", tmp_path)
    assert got is not None and got["runs"]


def test_a_name_holding_a_lone_surrogate_is_refused_with_a_typed_error():
    with pytest.raises(InvalidArgument, match="not text"):
        umkit.ecg.recorder("\udcff")


def test_an_english_sync_takes_back_the_marker_a_chinese_sync_wrote(tmp_path):
    src = tmp_path / "notebooks"
    for rel, text in (("00_start.ipynb", "# Start"), ("zh/00_start.ipynb", "# 开始")):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4,
                                           "nbformat_minor": 5, "x": text}))
    dest = tmp_path / "ws"
    workspace.sync(src, dest, lang="zh")
    assert (dest / ".umkit-lang").read_text() == "zh\n"
    workspace.sync(src, dest, lang="en")
    assert (dest / ".umkit-lang").read_text() == "en\n"
    (dest / ".umkit-lang").write_text("zh  # mine\n")      # a learner's own marker is kept
    workspace.sync(src, dest, lang="en")
    assert (dest / ".umkit-lang").read_text() == "zh  # mine\n"


def test_ctrl_c_wrapped_in_another_exception_ends_with_130(monkeypatch, capsys):
    def wrapped(args):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as k:
            raise RuntimeError("Error calling __set_name__") from k

    import argparse

    class Parser:
        def parse_args(self, argv):
            return argparse.Namespace(cmd="doctor", func=wrapped)

    monkeypatch.setattr(cli, "parser", Parser)
    assert cli.main(["doctor"]) == 130
    assert "interrupted (Ctrl-C)" in capsys.readouterr().err


def test_using_names_lang_as_use_s_not_a_profile_override():
    with pytest.raises(InvalidArgument) as err:
        with umkit.using("sim", lang="zh"):
            pass
    assert err.value.argument == "lang" and "profile" not in err.value.message


def test_an_empty_profile_on_the_command_line_is_refused(tmp_path):
    out = tmp_path / "e.png"
    assert cli.main(["ecg", "--profile", "", "--steps", "2", "--size", "1", "--quiet",
                     "--out", str(out)]) == 2
    assert not out.exists()


def test_a_saved_run_with_negative_counter_totals_is_not_a_run(tmp_path):
    with umkit.ecg.recorder("r") as rec:
        a = umkit.managed(1024)
        umkit.increment(a)
        rec.step()
    d = rec.result().to_dict()
    d["counters"] = {"kernels": -5}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(d))
    with pytest.raises(InvalidArgument, match=">= 0"):
        umkit.ecg.load(str(path))


def test_a_utf16_source_is_told_to_be_saved_as_utf8(tmp_path):
    from umkit.diagnostics import portcheck
    src = tmp_path / "utf16.cu"
    src.write_bytes("int main() { return 0; }\n".encode("utf-16"))
    with pytest.raises(InvalidArgument) as err:
        portcheck.port_check([str(src)])
    assert "UTF-16" in err.value.hint


def test_explain_refuses_megabytes_of_text_at_once():
    with pytest.raises(InvalidArgument) as err:       # refused up front, not searched
        umkit.explain("slow " * 1_000_000)
    assert err.value.argument == "error_or_code"
    umkit.use("sim", quiet=True, lang="zh")
    with pytest.raises(InvalidArgument) as err:
        umkit.explain("slow " * 10_000)
    assert "个字符" in str(err.value)


def test_a_step_note_is_a_label_not_a_megabyte(tmp_path):
    a = umkit.managed(1024)
    with umkit.ecg.recorder("r") as rec:
        umkit.increment(a)
        with pytest.raises(InvalidArgument) as err:
            rec.step(note="x" * 100_000)
        assert err.value.argument == "note"
        rec.step(note="cpu stats")
    d = rec.result().to_dict()
    d["steps"][0]["note"] = "x" * 100_000
    path = tmp_path / "r.json"
    path.write_text(json.dumps(d))
    with pytest.raises(InvalidArgument, match="at most"):
        umkit.ecg.load(str(path))


def test_copy_to_a_numpy_array_of_another_dtype_is_refused_not_reinterpreted():
    import numpy as np
    a = umkit.managed(1024)
    a.host[:] = 1
    d = np.arange(3)
    with pytest.raises(InvalidArgument, match="does not convert"):
        umkit.copy(d, a)
    assert list(d) == [0, 1, 2]
    f = np.zeros(1024, np.float32)
    umkit.copy(f, a)
    assert f.sum() == 1024


def test_doctor_refuses_a_backend_name_that_is_not_text(tmp_path):
    with open(tmp_path / "r.txt", "w", encoding="utf-8") as f, \
            pytest.raises(InvalidArgument, match="not text"):
        umkit.doctor(backend="\udcff", file=f)
