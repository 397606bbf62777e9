"""read_back's pinned staging buffers are freed, not only bounded (issue 10: 2,000 sizes kept
1.95 GiB pinned).  Bounded and reused: tests/runtime/test_runtime_context.py; streams and freed arrays released
promptly: tests/sim/test_threads_resources.py."""
from __future__ import annotations

import numpy as np

import umkit
from umkit import api

KiB = 1 << 10


def _pinned(b) -> list:
    return [a for a in b.allocations() if a.kind == "pinned"]


def test_staging_beyond_the_cap_goes_back_at_once(monkeypatch):
    monkeypatch.setattr(api, "STAGING_CACHE", 64 * KiB)   # read when the staging is made
    b = umkit.use("sim", quiet=True)
    x = umkit.managed(64 * KiB, "uint8")                   # 64 KiB: fits the cap, kept
    x.host[:] = 7
    assert (umkit.read_back(x) == 7).all()
    kept = _pinned(b)
    assert [a.nbytes for a in kept] == [64 * KiB]
    y = umkit.managed(256 * KiB, "uint8")                  # 256 KiB: over the cap, freed
    y.host[:] = 9
    assert (umkit.read_back(y) == 9).all()
    assert _pinned(b) == kept
    st = api.staging_buffers(b, 0)
    assert st.cached == 64 * KiB and st.upstream_frees == 1


def test_two_thousand_sizes_keep_at_most_the_cap(monkeypatch):
    monkeypatch.setattr(api, "STAGING_CACHE", 256 * KiB)
    b = umkit.use("sim", quiet=True)
    for n in range(1, 2001):
        x = umkit.managed(n * 97, "uint8")                 # 97 B .. 194 KiB, 2,000 sizes
        out = umkit.read_back(x)
        assert out.nbytes == n * 97
        x.free()
    pinned = sum(a.nbytes for a in _pinned(b))
    assert pinned <= 256 * KiB
    assert api.staging_buffers(b, 0).cached == pinned
    np.testing.assert_array_equal(umkit.read_back(umkit.managed(4, "uint8")), np.zeros(4, np.uint8))
