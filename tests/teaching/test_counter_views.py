"""Where per-page residency is unknown (real GPUs) but hardware counters are on, the residency
map shows the driver's counters since its last update (the widget draws, computes nothing)."""
from __future__ import annotations

import pytest

import umkit
from umkit.api import Residency
import importlib

rm = importlib.import_module("umkit.widgets.residency_map")


def test_residency_map_shows_counter_deltas_without_residency(monkeypatch):
    pytest.importorskip("ipywidgets")
    umkit.use("sim", quiet=True)
    feed = iter([{"gpu_faults": 10, "bytes_h2d": 1 << 20},
                 {"gpu_faults": 25, "bytes_h2d": 5 << 20, "cpu_faults": 3},
                 {"gpu_faults": 25, "bytes_h2d": 5 << 20, "cpu_faults": 3}])
    monkeypatch.setattr(rm, "counters", lambda: next(feed))
    monkeypatch.setattr(rm, "residency", lambda arr: Residency(None, 4096, "no per-page data"))
    m = rm.ResidencyMap(umkit.managed(1024), static=False)
    assert m.counter_delta == {"gpu_faults": 15, "bytes_h2d": 4 << 20, "cpu_faults": 3}
    assert "GPU faults 15, CPU faults 3, 4.0 MiB to the GPU, 0.0 MiB to the CPU" in m.caption
    assert "GPU faults 15" in m.header.value
    m.update()
    assert m.counter_delta == {} and "GPU faults 0" in m.caption
    assert "GPU faults 0" in m._repr_mimebundle_()["text/plain"]


def test_residency_map_without_counters_shows_only_the_reason(monkeypatch):
    pytest.importorskip("ipywidgets")
    umkit.use("sim", quiet=True)
    monkeypatch.setattr(rm, "counters", lambda: {})
    monkeypatch.setattr(rm, "residency", lambda arr: Residency(None, 4096, "no per-page data"))
    m = rm.ResidencyMap(umkit.managed(1024), static=True)
    assert m.caption == "no per-page data"
