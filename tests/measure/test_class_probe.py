"""``umkit measure run classes``'s sections for issue 27's open classes run on sim and measure what
they say: a partial-range touch is the public touch's kernel on part of the array, and the
context sections leave nothing allocated behind."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import umkit
from umkit.measure.timing import Sink, cpu_written, gpu_ms

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks" / "investigations"))
MiB = 1 << 20


@pytest.fixture()
def probe():
    from umkit.measure.probes import classes as class_probe
    umkit.use("sim", quiet=True)
    return class_probe


def test_touch_part_over_the_whole_array_is_the_public_touch(probe):
    # without the cold fault path, whose state one read leaves for the next (host.py)
    umkit.use("sim", quiet=True, fault_cold_latency=0.0)

    def one(fn):
        a = cpu_written(8 * MiB)
        try:
            with Sink() as s:
                return gpu_ms(lambda: fn(a, s)), float(umkit.read_back(s)[0])
        finally:
            a.free()
    one(lambda a, s: umkit.touch(a, 64 << 10, sink=s))     # the first read_back's set-up
    whole, n_whole = one(lambda a, s: umkit.touch(a, 64 << 10, sink=s))
    part, n_part = one(lambda a, s: probe.touch_part(a, 0, 8 * MiB, 64 << 10, s))
    assert part == pytest.approx(whole, rel=1e-9)
    assert n_part == n_whole == 8 * MiB // (64 << 10)    # one float of 1.0 read per 64 KiB


def test_touch_part_faults_only_its_range(probe):
    a = cpu_written(8 * MiB)
    try:
        with Sink() as s:
            probe.touch_part(a, 2 * MiB, 2 * MiB, 64 << 10, s)
            umkit.synchronize()
            assert float(umkit.read_back(s)[0]) == 2 * MiB // (64 << 10)
        res = umkit.residency(a)
        codes, per = res.codes, 2 * MiB // res.page_bytes
        assert (codes[:per] == 1).all() and (codes[2 * per:] == 1).all()   # still on the CPU
        assert (codes[per:2 * per] == 2).any()                             # read by the GPU
    finally:
        a.free()


def test_faultshape_rows_and_touch_counts(probe):
    rows = probe.faultshape(1, u=2 * MiB)
    by = {r["name"]: r for r in rows}
    assert len(rows) == len(probe.shapes()) == 10
    assert by["one_2g_64k"]["touches"] == by["four_512m_of_2g_64k"]["touches"] == 4 * 32
    assert by["first_512m_of_2g_64k"]["touches"] == 32
    assert by["one_1g_32k"]["touches"] == 2 * by["one_1g_64k"]["touches"]
    # sim today has no term that grows with the span one kernel faults over (what the card's
    # run of this section decides): per touch, a longer span costs no more, and four kernels
    # cost at least one kernel (each pays its own launch)
    us = {k: r["ms"][0] / r["touches"] for k, r in by.items()}
    assert us["one_3g_64k"] <= us["one_2g_64k"] <= us["one_1g_64k"] <= us["one_512m_64k"]
    whole, split = by["one_2g_64k"]["ms"][0], by["four_512m_of_2g_64k"]["ms"][0]
    assert split >= whole
    assert by["first_512m_of_2g_64k"]["ms"][0] < whole


def live():
    return len(umkit.backend().engine.allocs)


def test_context2_rows_and_nothing_left_allocated(probe):
    n0 = live()
    rows = probe.context2(1, u=4 * MiB)
    assert [r["context"] for r in rows] == list(probe.CONTEXTS2) * 2
    assert [r["bytes"] for r in rows] == [32 << 10] * 8 + [128 << 10] * 8
    assert all(len(r["runs_ms"]) == 1 and len(r["runs_ms"][0]) == 5 and
               all(t > 0 for t in r["runs_ms"][0]) for r in rows)
    assert live() == n0
    probe.context(1)                          # context's own setups free what they made too
    assert live() == n0


def test_every_shape_launches_what_the_public_touch_launches(probe, monkeypatch):
    """Each kernel of each shape: the launch umkit.touch makes for the same range and stride
    (kernel, grid, block, float counts), at the part's byte offset in its buffer."""
    calls = []
    real = type(umkit.backend()).launch

    def spy(self, kernel, grid, block, args, stream):
        if kernel == "touch_kernel":
            calls.append((kernel, grid, block, args))
        return real(self, kernel, grid, block, args, stream)
    monkeypatch.setattr(type(umkit.backend()), "launch", spy)

    def public(nbytes, stride):
        calls.clear()
        a = umkit.managed(nbytes // 4)
        try:
            with Sink() as s:
                umkit.touch(a, stride, sink=s)
        finally:
            a.free()
        (k, grid, block, (_, n, st, _)), = calls
        return k, grid, block, n, st

    u = 8 * MiB                               # big enough that some grids have several blocks
    want = [[public(n, stride) for _, n in parts] for _, _, stride, parts in probe.shapes(u)]
    calls.clear()
    n0 = live()
    rows = probe.faultshape(1, u=u)
    assert live() == n0                                   # every buffer freed
    it = iter(calls)
    for (name, _, stride, parts), row, w in zip(probe.shapes(u), rows, want):
        assert row["stride"] == stride, name
        launched = [next(it) for _ in parts]
        base = launched[0][3][0]
        assert [(k, g, b, n, st) for k, g, b, (_, n, st, _) in launched] == w, name
        assert [args[0] - base for *_, args in launched] == [off for off, _ in parts], name
    assert next(it, None) is None
    assert max(g for w in want for _, g, *_ in w) > 1
    with pytest.raises(ValueError, match="stride"):
        probe.touch_part(None, 0, 16, 4, None)



def test_class_span_reads_each_span_once_per_round_and_frees_it(probe):
    """benchmarks/investigations/class_span.py on sim: a row per span, its repeats, ms per GiB from the median,
    nothing left allocated."""
    import class_span
    live = len(umkit.backend().engine.allocs)
    rows = class_span.spans(2, sizes=(1, 2))
    assert [r["span_mib"] for r in rows] == [1, 2] and all(len(r["ms"]) == 2 for r in rows)
    for r in rows:
        assert r["ms_per_gib"] == round(float(np.median(r["ms"])) / (r["span_mib"] / 1024), 3)
        assert all(v > 0 for v in r["ms"])
    assert len(umkit.backend().engine.allocs) == live


def test_tripparts_times_each_piece_of_the_round_trip(probe):
    n0 = live()
    rows = probe.tripparts(1)
    assert [r["bytes"] for r in rows] == probe.SMALL_TRIPS and live() == n0
    for r in rows:
        assert all(len(r[k]) == 8 and all(t > 0 for t in r[k]) for k in probe.TRIP_PARTS)
        # the GPU took the pages: the first sum faults them back, the second reads them there
        assert np.median(r["sum"]) > np.median(r["sum_again"])
    # a piece that moves bytes costs more on a larger buffer
    assert np.median(rows[-1]["increment"]) > np.median(rows[0]["increment"])


def test_thrash_times_trips_then_counts_them(probe):
    n0 = live()
    rows = probe.thrash(1)
    assert [r["bytes"] for r in rows] == list(probe.THRASH_SIZES) and live() == n0
    for r in rows:
        for part in ("timed", "counted"):
            assert all(len(r[part][k]) == probe.THRASH_TRIPS for k in ("write", "increment", "sum"))
        c = r["counted"]["counters"]
        assert set(c) == set(probe.THRASH_COUNTERS)
        # sim's counters: the 16 counted trips take naps (its 'throttles'), and each trip moves
        # the buffer there and back
        assert c["throttles"] > 0 and c["bytes_h2d"] == c["bytes_d2h"] == 16 * r["bytes"]
        trips = np.add(np.add(r["timed"]["write"], r["timed"]["increment"]), r["timed"]["sum"])
        assert trips.max() > 1.5 * np.median(trips)       # a nap stands out of the trips


def test_pinning_times_one_long_loop_then_counts_it(probe):
    n0 = live()
    rows = probe.pinning(1)
    assert live() == n0 and len(rows) == 1 and rows[0]["bytes"] == probe.PIN_BYTES
    r = rows[0]
    for part in ("timed", "counted"):
        assert all(len(r[part][k]) == probe.PIN_TRIPS for k in ("write", "increment", "sum"))
    c = r["counted"]["counters"]
    assert set(c) == set(probe.PIN_COUNTERS) and c["remote_maps"] == 0
    # sim does not pin: it naps every few trips to the end, and never maps the pages remotely
    assert c["throttles"] > probe.PIN_TRIPS // 5
    assert c["bytes_h2d"] == c["bytes_d2h"] == probe.PIN_TRIPS * r["bytes"]


def test_allocs_times_each_count_and_frees_everything(probe):
    n0 = live()
    rows = probe.allocs(1)
    assert live() == n0
    n = 2 * len(probe.ALLOC_SIZES) * len(probe.ALLOC_COUNTS)
    assert len(rows) == n + len(probe.BIG_DEVICE_SIZES)
    for r in rows[:n]:
        assert r["kind"] in ("managed", "device") and len(r["alloc_ms"]) == len(r["free_ms"]) == 2
    for r, nbytes in zip(rows[n:], probe.BIG_DEVICE_SIZES):
        assert (r["kind"], r["bytes"], r["count"]) == ("device", nbytes, 1)
        assert len(r["alloc_ms"]) == len(r["free_ms"]) == 5
    assert all(t > 0 for r in rows for t in r["alloc_ms"] + r["free_ms"])
    # sim holds the size at 8 MiB: the larger buffers cost what 8 MiB does
    big = {r["bytes"]: (min(r["alloc_ms"]), min(r["free_ms"])) for r in rows[n:]}
    assert big[64 * MiB] == pytest.approx(big[8 * MiB]) and big[256 * MiB] == pytest.approx(
        big[8 * MiB])
    # each allocation is timed: at least what the profile charges for one
    p = umkit.backend().engine.profile
    for r in rows:
        assert min(r["alloc_ms"]) >= getattr(p, f"alloc_{r['kind']}") * 1e3 * 0.999
