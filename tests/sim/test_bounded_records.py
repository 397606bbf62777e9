"""Structures that a long loop feeds stay bounded: the race records of warn mode keep the first
examples and count the rest; a race every step for thousands of steps does not grow them."""
from __future__ import annotations

import warnings

import pytest

import umkit
from umkit.errors import RaceWarning
from umkit.sim.races import RACE_EXAMPLES


@pytest.mark.slow
def test_race_records_stay_bounded_in_warn_mode(monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    umkit.use("sim", strict=False, quiet=True)
    a = umkit.managed(1024)
    a.host[:] = 1.0
    umkit.synchronize()
    s = umkit.Stream()
    steps = 10_000                  # a long warn-mode loop (10^4 racy steps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RaceWarning)
        for _ in range(steps):     # the host reads what a kernel nobody waited for writes
            umkit.increment(a, stream=s)
            float(a.host[0])
            s.synchronize()
    eng = umkit.backend().engine
    assert eng.races_seen >= steps                      # every race counted ...
    assert len(eng.races) == RACE_EXAMPLES              # ... the first ones kept as examples
    assert all(r["kernel"] == "increment_kernel" for r in eng.races)
    assert umkit.counters()["race_flags"] >= steps
    umkit.reset_counters()
    assert eng.races == [] and eng.races_seen == 0
