"""The simulator's own speed targets, as pytest-benchmark tests (wall clock on the machine that
runs them; the limits are benchmarks/targets.json's, where the README's table comes from):

1. a 1 GiB managed buffer at 4 KiB pages, fault-migrated to the GPU once (the engine's work:
   page table, faults, batches, prefetcher; not the NumPy arithmetic that fills it);
2. 50 steps of a 256 MiB training-style loop under 4 strategies, in total.

    .venv/bin/python -m pytest benchmarks/test_sim_speed.py \\
        --benchmark-json=benchmarks/results/DATE-sim-speed-HOST.json

The JSON holds pytest-benchmark's statistics and machine facts and, beside them, each target's
summary (``fault_1gib``, ``loop_4_strategies``: benchmarks/conftest.py). A missed target fails
its test. With ``--benchmark-disable`` each runs once, untimed (the test suite does this, so the
benchmarks keep running)."""
from __future__ import annotations

import pytest

pytest.importorskip("pytest_benchmark")

import umkit  # noqa: E402
from umkit import workloads  # noqa: E402
from umkit.measure.report import met, targets  # noqa: E402

GiB = 1 << 30


def _limit(key: str) -> dict:
    """The target of benchmarks/targets.json whose value is ``<this file's JSON>[key]``."""
    for t in targets():
        if "sim-speed" in t.get("file", "") and t["path"][0] == key:
            return t
    raise LookupError(f"benchmarks/targets.json has no sim-speed target for {key!r}")


def _check(benchmark, key: str, value: float):
    t = _limit(key)
    benchmark.extra_info.update(key=key, value=value, unit=t["unit"], op=t["op"], limit=t["limit"])
    assert met(value, t["op"], t["limit"]), \
        f"{key}: {value:.4g} {t['unit']}, the target is {t['op']} {t['limit']} {t['unit']}"


def test_fault_1gib(benchmark):
    state = {}

    def setup():
        umkit.use("sim", quiet=True, compute=False)
        a = umkit.managed(GiB // 4)
        a.host[:] = 1.0                      # populate on the CPU (NumPy work, not timed)
        umkit.synchronize()
        state["a"] = a
        return (), {}

    def fault_in():
        umkit.touch(state["a"], 4)           # every page faults and migrates
        umkit.synchronize()

    try:
        benchmark.pedantic(fault_in, setup=setup, rounds=5, iterations=1)
        c = umkit.counters()
        assert c["bytes_h2d"] >= GiB and c["gpu_faults"] == GiB // 4096, c
    finally:
        if "a" in state:
            state["a"].free()
        umkit.use("sim", quiet=True)
    if benchmark.enabled:
        _check(benchmark, "fault_1gib", benchmark.stats.stats.median * 1e3)


def test_loop_4_strategies(benchmark):
    def setup():
        umkit.use("sim", quiet=True, compute=False)     # a fresh model-only backend, not timed

    def loop():
        for s in ("device", "managed", "managed+prefetch", "mixed"):
            workloads.run(s, workloads.Pattern("cpu_stats", 10), 50, 256 << 20)

    try:
        benchmark.pedantic(loop, setup=setup, rounds=3, iterations=1)
    finally:
        umkit.use("sim", quiet=True)
    if benchmark.enabled:
        _check(benchmark, "loop_4_strategies", benchmark.stats.stats.median)
