"""The whole-model training step: buffers at 16 bytes per parameter (mixed-precision Adam),
which of them must breathe on a card, and each strategy's cost per step on model-only sim."""
from __future__ import annotations

import pytest

from umkit import workloads as W
from umkit.errors import InvalidArgument

GB = 10**9
#: a small model of the same make (8 layers, 0.5 B parameters) for the runs: seconds, not minutes
SMALL = W.ModelSpec("small", 500_000_000, 8, 2048, 16, seq=1024)


def test_a_step_holds_16_bytes_per_parameter_plus_activations_and_batch():
    for name, m in W.MODELS.items():
        bufs = W.model_buffers(m)
        by = {}
        for b in bufs:
            by[b.kind] = by.get(b.kind, 0) + b.nbytes
        assert by["weights"] == by["gradients"] == 2 * m.params
        assert by["optimizer"] == 12 * m.params
        assert by["weights"] + by["gradients"] + by["optimizer"] == 16 * m.params
        assert by["activations"] == m.layers * 2 * m.seq * m.micro_batch * m.hidden
        assert by["batch"] == 8 * m.seq * m.micro_batch
    full = W.model_buffers(W.ModelSpec("x", 10**9, 10, 1024, 8, seq=2048, recompute="none"))
    act = [b.nbytes for b in full if b.kind == "activations"]
    assert act[0] == int(2048 * 1024 * (34 + 5 * 8 * 2048 / 1024))      # Korthikanti et al.


def test_which_buffers_must_breathe_on_each_card():
    p = W.plan_model("7b", "H200")
    assert p.fits and p.breathing == []
    p = W.plan_model("13b", "H200")
    assert not p.fits and p.breathing == ["optimizer"]
    k = p.kinds["optimizer"]
    assert k["resident"] + k["breathes"] == k["bytes"] and k["breathes"] > 0
    assert sum(v["resident"] for v in p.kinds.values()) <= p.vram
    assert W.plan_model("13b", "MI300X").kinds["optimizer"]["breathes"] < k["breathes"]
    p70 = W.plan_model("70b", "MI250X GCD")
    assert p70.breathing == ["weights", "gradients", "optimizer"]
    assert "breathes" in p70.table() and "70b on MI250X GCD" in p70.table()


def test_bad_models_get_typed_errors():
    with pytest.raises(InvalidArgument, match="unknown"):
        W.plan_model("8x7b")
    with pytest.raises(InvalidArgument):
        W.ModelSpec("x", 10**9, 10, 1024, 8, dtype="int3")
    with pytest.raises(InvalidArgument):
        W.ModelSpec("x", 0, 10, 1024, 8)


def test_strategies_cost_what_their_traffic_says_on_an_oversubscribed_card():
    vram = 6 * GB                        # the small model holds 8 GB: its optimizer breathes
    plan = W.plan_model(SMALL, "H200", vram=vram)
    assert plan.breathing == ["optimizer"]
    rows = {r.strategy: r for r in W.model_step_costs(SMALL, "H200", vram=vram)}
    assert set(rows) == set(W.STRATEGIES)
    assert not rows["device"].fits and rows["device"].ms is None
    assert "does not fit" in rows["device"].note
    m, mp = rows["managed"], rows["managed+prefetch"]
    assert m.fits and m.gpu_faults > 0 and m.evictions > 0        # faults, and it breathes
    assert mp.gpu_faults == 0 and mp.ms < m.ms                     # prefetch: no faults
    assert rows["pinned"].bytes_h2d == 0 and rows["pinned"].remote_bytes > 0
    mixed = rows["mixed"]
    assert mixed.bytes_h2d < m.bytes_h2d                           # only the cold part moves
    assert all(r.ms > 0 for r in rows.values() if r.fits)


def test_a_model_that_fits_moves_nothing_in_its_steady_step():
    rows = {r.strategy: r for r in W.model_step_costs(SMALL, "MI300X",
                                                      ["device", "managed+prefetch"])}
    assert rows["device"].fits and rows["device"].bytes_h2d == 0
    assert rows["managed+prefetch"].bytes_h2d == 0 and rows["managed+prefetch"].evictions == 0
    assert rows["managed+prefetch"].ms == pytest.approx(rows["device"].ms, rel=0.5)
