"""benchmarks/class_probe.py's sections for issue 27's open classes run on sim and measure what
they say: a partial-range touch is the public touch's kernel on part of the array, and the
context sections leave nothing allocated behind."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import umkit
from umkit.measure.timing import Sink, cpu_written, gpu_ms

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
MiB = 1 << 20


@pytest.fixture()
def probe():
    import class_probe
    umkit.use("sim", quiet=True)
    return class_probe


def testtouch_part_over_the_whole_array_is_the_public_touch(probe):
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


def testtouch_part_faults_only_its_range(probe):
    a = cpu_written(8 * MiB)
    try:
        with Sink() as s:
            probe.touch_part(a, 2 * MiB, 2 * MiB, 64 << 10, s)
            umkit.synchronize()
            assert float(umkit.read_back(s)[0]) == 2 * MiB // (64 << 10)
        codes, per = umkit.residency(a).codes, 2 * MiB // umkit.residency(a).page_bytes
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


def test_context2_rows_and_nothing_left_allocated(probe):
    free0 = umkit.mem_info()[0]
    rows = probe.context2(1, u=4 * MiB)
    assert [r["context"] for r in rows] == list(probe.CONTEXTS2) * 2
    assert [r["bytes"] for r in rows] == [32 << 10] * 8 + [128 << 10] * 8
    assert all(len(r["runs_ms"]) == 1 and len(r["runs_ms"][0]) == 5 and
               all(t > 0 for t in r["runs_ms"][0]) for r in rows)
    assert umkit.mem_info()[0] == free0
