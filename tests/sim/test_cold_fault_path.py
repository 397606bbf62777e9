"""The cold fault path (umkit/sim/host.py, FaultPathCache): after the CPU swept memory, the next
fault service's wake-up pays for refilling the CPU's caches, less on each wake-up after it."""
import math

import pytest

import umkit
from umkit.errors import InvalidArgument
from umkit.measure.timing import Sink, cpu_written, host_ms

KiB, MiB = 1 << 10, 1 << 20


@pytest.fixture(autouse=True)
def _no_env_backend(monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    yield
    umkit.use("sim", quiet=True)            # leave the default sim behind, whatever a test set


def fresh_read() -> float:
    """One host-timed GPU fault read of a fresh CPU-written 64 KiB managed buffer (ms)."""
    a = cpu_written(64 * KiB)
    try:
        with Sink() as s:
            return host_ms(lambda: umkit.touch(a, 4, sink=s))
    finally:
        a.free()


def sweep(nbytes: int) -> None:
    """The CPU writes ``nbytes`` of a pinned buffer (no GPU work, nothing to fault)."""
    h = umkit.pinned(nbytes // 4)
    h.host[:] = 1.0
    h.free()


def reference(p: dict, events) -> list:
    """The model written out: ``events`` are ("sweep", bytes) or ("wake",); returns what each
    wake-up pays (ms)."""
    c, r, size = p["fault_cold_latency"], p["fault_cold_decay"], p["fault_cold_bytes"]
    cold, swept, out = 0.0, 0, []
    for ev in events:
        if ev[0] == "sweep":
            swept += ev[1]
        else:
            cold += (c - cold) * (1 - math.exp(-swept / size)) if swept else 0.0
            swept = 0
            out.append(cold * 1e3)
            cold *= r
    return out


def run_twice(steps, **options):
    """``steps()`` on a fresh sim with the cold path and on one without it (its latency 0):
    (profile params, times with it - times without it)."""
    times = {}
    for c in (None, 0.0):
        extra = {} if c is None else {"fault_cold_latency": c}
        sim = umkit.use("sim", quiet=True, **options, **extra)
        times[c] = steps()
        if c is None:
            p = dict(sim.profile.p)
    return p, [a - b for a, b in zip(times[None], times[0.0])]


def test_reads_after_a_sweep_pay_the_cold_cost_then_less_each_time():
    def steps():
        out = [fresh_read() for _ in range(3)]
        sweep(16 * MiB)
        return out + [fresh_read() for _ in range(4)]
    p, got = run_twice(steps, fault_cold_bytes=MiB)
    assert p["fault_cold_latency"] > 0 and 0 < p["fault_cold_decay"] < 1
    read = [("sweep", 64 * KiB), ("wake",)]
    want = reference(p, read * 3 + [("sweep", 16 * MiB)] + read * 4)
    assert got == pytest.approx(want, rel=1e-6, abs=1e-9)
    # the sweep's read pays (nearly) all of it, each next read the decay's part of the one before
    assert got[3] == pytest.approx(p["fault_cold_latency"] * 1e3, rel=1e-3)
    # (plus what each read's own 64 KiB write pushes out: 1 - exp(-1/16) of the rest)
    assert p["fault_cold_decay"] < got[4] / got[3] < p["fault_cold_decay"] + 0.07


def test_the_part_pushed_out_follows_the_size_of_the_sweep():
    sizes = (1 * MiB, 8 * MiB, 32 * MiB, 256 * MiB)

    def steps():
        out = []
        for n in sizes:
            for _ in range(30):                 # let what is left of the last sweep fade
                fresh_read()
            sweep(n)
            out.append(fresh_read())
        return out
    p, got = run_twice(steps)
    read = [("sweep", 64 * KiB), ("wake",)]
    events = []
    for n in sizes:
        events += read * 30 + [("sweep", n)] + read
    want = reference(p, events)[30::31]
    assert got == pytest.approx(want, rel=1e-6)
    c, size = p["fault_cold_latency"] * 1e3, p["fault_cold_bytes"]
    for n, g in zip(sizes, got):        # what is left of earlier sweeps: under 1 us
        assert g == pytest.approx(c * -math.expm1(-n / size), rel=0.1, abs=1e-3), n
    assert 0 < got[0] < got[1] < got[2] < got[3] < c


def test_kernels_queued_behind_a_faulting_one_find_the_path_warm():
    def steps():
        bufs = [cpu_written(64 * KiB) for _ in range(3)]
        sweep(16 * MiB)
        with Sink() as s:
            t = host_ms(lambda: [umkit.touch(b, 4, sink=s) for b in bufs])
        for b in bufs:
            b.free()
        return [t]
    p, got = run_twice(steps, fault_cold_bytes=MiB)
    # one wake-up for the three queued reads: the first pays, the others find the path warm
    assert got == pytest.approx(reference(p, [("sweep", 3 * 64 * KiB + 16 * MiB), ("wake",)]),
                                rel=1e-6)


def test_a_strided_sweep_counts_the_pages_it_spans_not_a_line_per_element():
    def steps():
        out = []
        for view in (lambda h: h.host, lambda h: h.host[::2]):
            for _ in range(40):
                fresh_read()
            h = umkit.pinned(64 * MiB // 4)
            float(view(h).sum())
            h.free()
            out.append(fresh_read())
        return out
    p, got = run_twice(steps)
    # every other float of 64 MiB pulls the same 64 MiB of lines through the cache
    assert got[1] == pytest.approx(got[0], rel=1e-6)
    assert got[0] == pytest.approx(p["fault_cold_latency"] * 1e3
                                   * -math.expm1(-(64 * MiB + 64 * KiB) / p["fault_cold_bytes"]),
                                   rel=0.01)


def test_a_profile_without_it_has_no_cold_path():
    umkit.use("sim", quiet=True, profile="teaching")
    fresh_read()
    base = fresh_read()
    sweep(64 * MiB)
    assert fresh_read() == pytest.approx(base)


def test_the_cold_cost_is_the_hosts_and_scales_with_host_speed():
    a = umkit.use("sim", quiet=True).profile.p["fault_cold_latency"]
    b = umkit.use("sim", quiet=True, host_speed=2.0).profile.p["fault_cold_latency"]
    assert b == pytest.approx(2 * a)


def test_a_decay_above_one_is_refused():
    with pytest.raises(InvalidArgument, match="fault_cold_decay"):
        umkit.use("sim", quiet=True, fault_cold_decay=1.5)
