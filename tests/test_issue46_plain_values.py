"""Issue 46, plain values: a huge int, a list or dict nested 100,000 deep, a long text and
control characters reach umkit's messages and loaders as typed errors (never Python's own
ValueError/RecursionError/OSError/AttributeError), and nothing a file holds reaches a terminal
as an escape code."""
from __future__ import annotations

import json

import pytest

import umkit
from umkit import validate as V
from umkit.errors import InvalidArgument, InvalidType, UmkitError

HUGE = 10 ** 5000          # more digits than Python's int -> str limit (4300)


def deep(n=100_000, kind=list):
    x = kind()
    for _ in range(n):
        x = [x] if kind is list else {"a": x}
    return x


PLAIN = {"huge": lambda: HUGE, "-huge": lambda: -HUGE, "deep-list": deep,
         "deep-dict": lambda: deep(kind=dict), "long": lambda: "x" * 100_000,
         "control": lambda: "a\x1b[31mred\x00\r\n\u202e", "long-cjk": lambda: "数" * 5000}


@pytest.mark.parametrize("label", list(PLAIN))
def test_shown_never_raises_and_is_short_and_printable(label):
    value = PLAIN[label]()
    for text in (V.shown(value), V.short(value), V.clean(value)):
        assert len(text) <= 200
        assert text.isprintable(), text


def test_integer_and_real_name_a_huge_int():
    with pytest.raises(InvalidArgument) as e:
        V.integer(HUGE, "n", lo=0, hi=10)
    assert e.value.argument == "n" and "digits" in e.value.message
    with pytest.raises(InvalidArgument):
        V.real(HUGE, "x")
    with pytest.raises(InvalidType) as e:
        V.reals([1.0, 10 ** 400], "step_ms")          # float(10**400) overflows
    assert e.value.argument == "step_ms"


@pytest.mark.parametrize("label", ["huge", "deep-list", "deep-dict"])
def test_validators_with_deep_or_huge_values(label):
    value = PLAIN[label]()
    for call in (lambda: V.choice(value, "pattern", ("a", "b")),
                 lambda: V.reals(value, "step_ms"), lambda: V.string(value, "name"),
                 lambda: V.device(value, umkit.backend()),
                 lambda: V.location(value, "to", 1), lambda: V.dtype(value)):
        with pytest.raises(UmkitError):
            call()


def test_location_names_a_huge_device():
    with pytest.raises(InvalidArgument) as e:
        V.location(HUGE, "to", 1)
    assert "digits" in e.value.message


def _published_dir(tmp_path, doc):
    d = tmp_path / "run1" / "torch_training"
    d.mkdir(parents=True)
    (d / "torch_training.json").write_text(json.dumps(doc))
    return tmp_path


def _run_dict(**over):
    rec = umkit.ecg.recorder("r")
    with rec:
        rec.step()
        rec.step()
    return dict(rec.result().to_dict(), **over)


def test_published_long_kind_is_typed():
    with pytest.raises(InvalidArgument) as e:
        umkit.ecg.published("a" * 100_000)
    assert e.value.argument == "kind"


def test_published_long_results_dir_is_typed():
    with pytest.raises(InvalidArgument) as e:
        umkit.ecg.published(results_dir="x" * 5000)
    assert e.value.argument == "results_dir"
    with pytest.raises(InvalidType):
        umkit.ecg.published(results_dir=5)


def test_published_env_that_is_a_list_is_typed(tmp_path):
    root = _published_dir(tmp_path, {"env": [1], "results": {"a": {"run": _run_dict()}}})
    with pytest.raises(InvalidArgument) as e:
        umkit.ecg.published(results_dir=root)
    assert "env" in e.value.message


def test_published_escape_codes_never_reach_the_table(tmp_path):
    root = _published_dir(tmp_path, {"env": {"device": "\x1b[2J\x1b[31mRED", "date": "\x07"},
                                     "results": {"a": {"run": _run_dict()}}})
    got = umkit.ecg.published(results_dir=root)
    text = umkit.ecg.table(got["ecg"])
    assert "\x1b" not in text and "\x07" not in text
    assert "\\x1b[31mRED" in text


def test_table_escapes_a_hand_made_ecg():
    e = {"title": "t\x1b[31m", "curves": {"s": [1.0]},
         "summary": [{"strategy": "s\x1b[0m", "median_ms": 1.0, "p95_ms": 1.0,
                      "max_over_median": 1.0, "verdict": "flat\x1b[5m"}]}
    text = umkit.ecg.table(e)
    assert "\x1b" not in text
    with pytest.raises(InvalidType):
        umkit.ecg.table(dict(e, summary=[dict(e["summary"][0], strategy=[1])]))


@pytest.mark.parametrize("args", [(1, 2, 3, 4, 5, 6, 7), ("sim", 0, 4, (1,), "f4", "managed", 0),
                                  (None,) * 7])
def test_array_constructor_refuses_plain_values(args):
    with pytest.raises(InvalidType) as e:
        umkit.Array(*args)
    assert "umkit.managed" in e.value.hint


@pytest.mark.parametrize("name, label", [("ptr", "long"), ("nbytes", "huge"), ("shape", "deep-list"),
                                          ("kind", "control"), ("device", "-huge"),
                                          ("dtype", "deep-list")])
def test_array_constructor_refuses_each_bad_field(name, label):
    value = PLAIN[label]()
    args = dict(backend=umkit.backend(), ptr=0, nbytes=16, shape=(4,), dtype="float32",
                kind="managed", device=0)
    args[name] = value
    with pytest.raises(InvalidType) as e:
        umkit.Array(**args)
    assert e.value.argument == name


def test_output_path_escapes_the_path_it_names(tmp_path):
    bad = str(tmp_path / "a\x1b[31m.txt")
    with pytest.raises(InvalidArgument) as e:
        V.output_path(bad, "path", (".json",))
    assert "\x1b" not in str(e.value)


@pytest.fixture(autouse=True)
def _sim(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    with umkit.using("sim"):
        yield


def test_a_path_with_a_nul_byte_is_typed():
    with pytest.raises(InvalidArgument) as e:
        V.path("a\x00b", "dest")
    assert e.value.argument == "dest" and "NUL" in e.value.message
