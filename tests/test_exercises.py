"""Every notebook exercise: the solution in notebooks/solutions/ passes its check, and the check
fails -- saying what is wrong -- on wrong answers (GPU-Puzzles style).

A solution file is a plain script that leaves a list ``verdicts`` of the checks it ran."""
from __future__ import annotations

import runpy
from pathlib import Path

import pytest

import umkit
from umkit.exercises import Verdict

SOLUTIONS = Path(__file__).resolve().parents[1] / "notebooks" / "solutions"


@pytest.fixture(autouse=True)
def sim():
    umkit.use("sim", quiet=True)
    yield
    umkit.use("sim", quiet=True)


#: notebooks 00-04: each solution file leaves a list ``verdicts`` of the checks it ran
VERDICT_SOLUTIONS = ("00_start_here", "01_umd_and_kmd", "02_allocation",
                     "03_migration_prefetch_advice", "04_synchronization")


def _solution_files():
    return [SOLUTIONS / f"{name}.py" for name in VERDICT_SOLUTIONS]


def test_there_are_solutions():
    for p in _solution_files():
        assert p.exists(), p


@pytest.mark.parametrize("path", _solution_files(), ids=lambda p: p.stem)
def test_solution_passes(path):
    ns = runpy.run_path(str(path), run_name="solution")
    verdicts = ns.get("verdicts")
    assert verdicts, f"{path.name} leaves no `verdicts` list"
    for v in verdicts:
        assert isinstance(v, Verdict), v
        assert v.ok, f"{path.name}: {v}"


def _not_yet(v, *fragments):
    assert isinstance(v, Verdict) and not v.ok, v
    assert repr(v).startswith("NOT YET: ")
    for f in fragments:
        assert f in v.message, (f, v.message)


# -- notebook 00 -----------------------------------------------------------------------------
def test_nb00_wrong_answers():
    from umkit.exercises import nb00
    from umkit.sim.costs import load_profile
    p = load_profile("mi250x-xnack1")
    right = nb00.expected_prefetch_ms()
    _not_yet(nb00.check_prefetch_time(None), "None")
    _not_yet(nb00.check_prefetch_time("11"), "number")
    _not_yet(nb00.check_prefetch_time(right / 1e3), "seconds")
    _not_yet(nb00.check_prefetch_time((64 << 20) / p.prefetch_h2d_bw * 1e3), "prefetch_latency")
    _not_yet(nb00.check_prefetch_time((p.prefetch_latency + (64 << 20) / p.prefetch_d2h_bw) * 1e3),
             "prefetch_d2h_bw")
    _not_yet(nb00.check_prefetch_time(right * 3), "factor")
    assert nb00.check_prefetch_time(right)


# -- notebook 01 -----------------------------------------------------------------------------
def test_nb01_wrong_answers():
    from umkit.exercises import nb01
    _not_yet(nb01.check_layers({k: None for k in nb01.LAYERS}), "None")
    _not_yet(nb01.check_layers({k: "umd" for k in nb01.LAYERS}), "fault_batch is KMD")
    _not_yet(nb01.check_layers({"nonsense": "umd"}), "unknown")
    half = {k: v for k, (v, _) in nb01.LAYERS.items()}
    half["malloc_device"] = None
    _not_yet(nb01.check_layers(half), "still None", "malloc_device")
    _not_yet(nb01.check_transitions(None), "None")
    _not_yet(nb01.check_transitions(lambda n, b: n // b), "rounded down")
    _not_yet(nb01.check_transitions(lambda n, b: n / b), "whole number")
    _not_yet(nb01.check_transitions(lambda n, b: n), "one trip per fault")
    _not_yet(nb01.check_transitions(lambda n, b: 1 / 0), "ZeroDivisionError")


# -- notebook 02 -----------------------------------------------------------------------------
def test_nb02_wrong_answers():
    from umkit.exercises import nb02
    _not_yet(nb02.check_allocators({k: None for k in nb02.BUFFERS}), "None")
    _not_yet(nb02.check_allocators({k: "managed" for k in nb02.BUFFERS}),
             "weights -> device", "lr_schedule -> pinned", "request_pool -> device")
    _not_yet(nb02.check_allocators({"weights": "malloc"}), "not an allocator")
    assert nb02.check_allocators({"weights": "hipMalloc", "checkpoint": "hipMallocManaged",
                                  "epoch_preprocessing": "managed", "lr_schedule": "hipHostMalloc",
                                  "request_pool": "device"})


# -- notebook 03 -----------------------------------------------------------------------------
def test_nb03_wrong_answers():
    from umkit.exercises import nb03

    def prefetch_then_advice(a):
        a.prefetch("gpu")
        a.advise("read_mostly")

    def prefetch_only(a):
        a.prefetch("gpu")

    def advice_only(a):
        a.advise("read_mostly")

    _not_yet(nb03.check_prepare(None), "None")
    _not_yet(nb03.check_prepare(prefetch_then_advice), "Advice first, then prefetch")
    _not_yet(nb03.check_prepare(prefetch_only), "read_mostly")
    _not_yet(nb03.check_prepare(advice_only), "inhale first")
    _not_yet(nb03.check_prepare(lambda a: a.prefetch("nowhere")), "raised")


# -- notebook 04 -----------------------------------------------------------------------------
def test_nb04_wrong_answers():
    from umkit.exercises import nb04

    def no_sync(a, stream):
        umkit.increment(a, stream=stream)
        return float(a.host.sum())

    def device_sync(a, stream):
        umkit.increment(a, stream=stream)
        umkit.synchronize()
        return float(a.host.sum())

    def wrong_stream(a, stream):
        umkit.increment(a)                 # on the default stream ...
        stream.synchronize()               # ... but waits for another one
        return float(a.host.sum())

    def event_sync(a, stream):
        umkit.increment(a, stream=stream)
        umkit.Event().record(stream).synchronize()
        return float(a.host.sum())

    _not_yet(nb04.check_step(None), "None")
    _not_yet(nb04.check_step(no_sync), "race")
    _not_yet(nb04.check_step(device_sync), "hipDeviceSynchronize")
    _not_yet(nb04.check_step(wrong_stream), "race")
    _not_yet(nb04.check_step(lambda a, s: None), "None")
    assert nb04.check_step(event_sync)
    umkit.use("sim", quiet=True, strict=True)
    _not_yet(nb04.check_step(no_sync), "while the kernel was running")
