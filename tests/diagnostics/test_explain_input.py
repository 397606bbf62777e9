"""``umkit.explain`` never raises on text (its promise): codes with a leading zero, hex in either
case, and digit strings longer than any runtime's code get an answer; ``umkit.use``'s ``quiet``
is a real bool like every other flag."""
from __future__ import annotations

import io

import pytest

import umkit
from umkit import InvalidType


@pytest.mark.parametrize("text, code", [("0123", 123), ("0x1F", 31), ("0X1f", 31), (" 701 ", 701),
                                        ("-1", -1)])
def test_numeric_text_is_read_as_a_code(text, code):
    out = umkit.explain(text, file=io.StringIO())
    assert f"code {code}" in out.lower() or f"Code {code}:" in out


def test_a_digit_string_longer_than_any_code_gets_the_usage_text():
    out = umkit.explain("9" * 5000, file=io.StringIO())
    assert "at most" in out and len(out) < 2000


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_quiet_must_be_a_bool(bad, monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    with pytest.raises(InvalidType) as err:
        umkit.use("sim", quiet=bad)
    assert err.value.argument == "quiet"
