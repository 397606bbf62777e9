"""CUPTI's unified-memory counters read back through ``umkit.counters()`` on the cuda backend
(``.ci/gpu``'s ``counters`` step).

One fault-driven sequence (:func:`umkit.measure.fidelity.sequence`) runs on the card with the
counters on: a 64 MiB managed array written by the CPU and read by a GPU kernel, prefetched to the
CPU and back, then read by the CPU one float a page; then the recorder with per-step counters and
a 512 MiB burst.  The same sequence runs on sim (``h200-pcie5``) and both sets of counters are
written side by side to ``counters.json`` (the second fidelity axis of ``umkit calibrate
--compare``).  Why 64 MiB a fault phase: ``benchmarks/results/2026-12-01-h200-counters-diag/``
(64/128 MiB counted right 12 of 12 times in fresh CUPTI sessions, 256 MiB 5 of 15, 512 MiB 0 of 3).
"""
from __future__ import annotations

import json
import time
import traceback
from importlib import metadata

import pytest

import umkit

pytestmark = pytest.mark.gpu

MiB = 1 << 20
N = 64 * MiB
BURST = 512 * MiB
TOL = 0.05


def near(v, want):
    return abs(v - want) <= TOL * want


def _versions() -> dict:
    out = {}
    for dist in ("cupti-python", "nvidia-cuda-cupti", "cuda-bindings", "cupy-cuda13x"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    from umkit.backends.counters import cupti as ucupti
    out["libcupti_on_sys_path"] = ucupti.find_libcupti()
    try:
        import cupti.cupti as cc
        out["cupti_module"] = getattr(cc, "__file__", "?")
        out["cupti_version"] = int(cc.get_version())
    except Exception as e:  # noqa: BLE001 - what is there is recorded, whatever failed
        out["cupti_import_error"] = f"{type(e).__name__}: {e}"
    return out


@pytest.fixture(scope="module")
def observed(cuda_backend, results):
    """The sequence on the card (counters on), the recorder, the burst; then the same sequence
    on sim; ``counters.json`` in the results folder (written however far it got)."""
    doc = {"versions": _versions()}
    try:
        _observe(doc)
    except BaseException:
        doc["error"] = traceback.format_exc()
        raise
    finally:       # what was seen is kept, a failure's traceback with it
        (results / "counters.json").write_text(json.dumps(doc, indent=1, default=str) + "\n")
    return doc


def _observe(doc):
    from umkit.backends.counters.cupti import incomplete
    from umkit.measure import fidelity
    t0 = time.perf_counter()
    doc["first"] = umkit.counters_on()
    doc["counters_on_s"] = round(time.perf_counter() - t0, 4)
    try:
        doc["cuda"] = fidelity.sequence(N)
        a = umkit.managed(64 * MiB // 4)
        with umkit.ecg.recorder("counters check") as rec:
            for i in range(6):
                if i % 2 == 0:
                    a.host[::1024] = float(i)               # CPU touches: pages go back
                umkit.increment(a)
                rec.step()
        rr = rec.result()
        a.free()
        doc["recorder"] = rr.to_dict()
        doc["recorder_steps"] = [s.counters for s in rr.steps]
        big = umkit.managed(BURST // 4)
        big.host[:] = 1.0
        umkit.synchronize()
        b0 = fidelity.settled_counters()
        umkit.touch(big, 4)
        umkit.synchronize()
        b1 = fidelity.settled_counters()
        big.free()
        d = fidelity.counter_delta(b0, b1)
        doc["burst"] = dict(nbytes=BURST, counters=d, incomplete=incomplete(d))
    finally:
        umkit.counters_off()
    with umkit.using("sim", profile="h200-pcie5"):
        doc["sim"] = fidelity.sequence(N)
    doc["fidelity"] = fidelity.counter_fidelity(doc["sim"], doc["cuda"])


def test_counters_on_starts_cupti(observed):
    first = observed["first"]
    assert isinstance(first, dict) and "bytes_h2d" in first, first


def test_a_gpu_read_of_cpu_written_pages_migrates_them_by_faults(observed):
    g = observed["cuda"]["gpu_read"]
    assert near(g.get("bytes_h2d", 0), N), g
    assert g.get("gpu_faults", 0) > 0, g


def test_a_prefetch_to_the_cpu_is_counted_as_a_prefetch(observed):
    p = observed["cuda"]["prefetch_to_cpu"]
    assert near(p.get("bytes_d2h", 0), N), p
    assert near(p.get("prefetch_bytes_d2h", 0), N), p       # migration cause: USER


def test_a_prefetch_to_the_gpu_is_counted_as_a_prefetch(observed):
    q = observed["cuda"]["prefetch_to_gpu"]
    assert near(q.get("prefetch_bytes_h2d", 0), N), q


def test_cpu_reads_of_gpu_pages_fault_and_move_bytes_back(observed):
    r = observed["cuda"]["cpu_read_strided"]
    assert r.get("cpu_faults", 0) > 0 and r.get("bytes_d2h", 0) > 0, r


def test_the_recorder_gets_counters_per_step(observed):
    per = observed["recorder_steps"]
    assert len(per) == 6 and any(per), per


def test_a_burst_past_the_event_queue_is_counted_exactly_or_flagged(observed):
    """Never silently low: the driver's event queue to CUPTI can overflow in a 512 MiB burst."""
    b = observed["burst"]
    assert near(b["counters"].get("bytes_h2d", 0), BURST) or b["incomplete"] is not None, b


def test_the_fidelity_file_holds_the_card_and_sim_side_by_side(observed, results):
    doc = json.loads((results / "counters.json").read_text())
    assert set(doc["sim"]) >= set(doc["cuda"]) and doc["fidelity"], doc.keys()
    assert {r["phase"] for r in doc["fidelity"]} >= {"gpu_read", "prefetch_to_cpu"}, doc["fidelity"]
