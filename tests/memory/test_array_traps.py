"""An Array is memory with two views, not a NumPy array: the NumPy-looking uses a newcomer tries
first (np.sum(a), a + 1, a[0], np.asarray(a), iterating) raise a typed error naming ``.host``,
instead of returning the Array itself or a bare TypeError; and data passed where a shape goes is
refused as data."""
from __future__ import annotations

import numpy as np
import pytest

import umkit
from umkit import InvalidType

TRAPS = {
    "np.sum(a)": lambda a: np.sum(a),
    "np.mean(a)": lambda a: np.mean(a),
    "np.asarray(a)": lambda a: np.asarray(a),
    "np.array(a)": lambda a: np.array(a),
    "np.add(a, 1)": lambda a: np.add(a, 1),
    "a + 1": lambda a: a + 1,
    "1 + a": lambda a: 1 + a,
    "a * 2": lambda a: a * 2,
    "-a": lambda a: -a,
    "a[0]": lambda a: a[0],
    "a[0] = 1": lambda a: a.__setitem__(0, 1),
    "list(a)": lambda a: list(a),
    "np.ones(4) + a": lambda a: np.ones(10, np.float32) + a,
}


@pytest.fixture
def a(monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    umkit.use("sim", quiet=True)
    x = umkit.managed(10)
    x.host[:] = 3.0
    yield x
    x.free()


@pytest.mark.parametrize("how", sorted(TRAPS))
def test_numpy_looking_use_names_the_host_view(a, how):
    with pytest.raises(InvalidType) as err:
        TRAPS[how](a)
    assert "a.host" in err.value.hint and err.value.argument == "a"
    assert float(np.sum(a.host)) == 30.0           # the fix the hint names works


def test_the_views_and_len_still_work(a):
    assert len(a) == 10 and a.size == 10
    assert float(a.host[0]) == 3.0 and float((a.host + 1)[0]) == 4.0
    assert "managed" in repr(a)


def test_data_where_a_shape_goes_is_refused_as_data():
    with pytest.raises(InvalidType, match="NumPy array") as err:
        umkit.managed(np.arange(10))
    assert err.value.argument == "shape" and "a.host[:] = x" in err.value.hint
    with pytest.raises(InvalidType):
        umkit.pinned(np.zeros((2, 3)))
