"""Classes of bad input, swept: numbers too long to print (over 4300 digits), dtype strings
NumPy's parser chokes on, profiles nested past the recursion limit, profile overrides beyond any
machine -- each a typed umkit error, never ValueError, SyntaxError or RecursionError."""
from __future__ import annotations

import io

import pytest

import umkit
from umkit import validate as V
from umkit.errors import UmkitError

HUGE = 10 ** 5000


@pytest.fixture(autouse=True)
def _sim(monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    umkit.use("sim", quiet=True)


@pytest.mark.parametrize("call", [
    lambda: umkit.managed(HUGE), lambda: umkit.managed((HUGE, 2)), lambda: V.real(HUGE, "x"),
    lambda: V.flag(HUGE, "quiet"), lambda: umkit.use("sim", gpus=HUGE),
    lambda: umkit.use("sim", vram=HUGE), lambda: umkit.managed(4, dtype="9" * 5000),
    lambda: umkit.managed(4, dtype="float32; import os"), lambda: umkit.use("sim", quiet=HUGE),
    lambda: umkit.use("sim", host_page=1e300), lambda: umkit.use("sim", vram=1e300),
    lambda: umkit.use("sim", hbm_bw=1e300), lambda: umkit.use("sim", sync_device=1e9),
], ids=["shape", "shape tuple", "real", "flag", "gpus", "vram int", "dtype digits",
        "dtype text", "quiet", "host_page", "vram", "hbm_bw", "sync_device"])
def test_a_typed_error(call):
    with pytest.raises(UmkitError):
        call()


def test_shown_never_raises_and_stays_short():
    class Bad:
        def __repr__(self):
            raise RuntimeError("no")
    assert "digits" in V.shown(HUGE) and len(V.shown("x" * 10000)) <= 80
    assert "repr raised" in V.shown(Bad())


def test_explain_answers_any_int():
    out = io.StringIO()
    text = umkit.explain(HUGE, file=out)
    assert "no entry" in text and "64 bits" in text


@pytest.mark.parametrize("doc", ["[" * 100000 + "]" * 100000,
                                 '{"a":' * 50000 + "1" + "}" * 50000])
def test_a_deeply_nested_profile_is_refused(tmp_path, doc):
    p = tmp_path / "deep.json"
    p.write_text(doc)
    with pytest.raises(umkit.errors.InvalidArgument, match="nests too deeply"):
        umkit.use("sim", profile=str(p), quiet=True)
