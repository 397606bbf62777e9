"""Contract tests for the hardware-counter sources behind umkit.counters(): CUPTI (cuda) and
rocprofiler-sdk page-migration records (hip, a documented adapter: no AMD GPU here)."""
from __future__ import annotations

import pytest

import umkit
from umkit.backends.counters import cupti
from umkit.backends.counters import rocprof
from umkit.backends.cuda import CudaRuntime
from umkit.backends.gpu import GPUBackend
from umkit.backends.hip import HipRuntime
from umkit.sim.engine import COUNTERS

MiB = 1 << 20


def test_both_sources_speak_sims_keys_where_they_mean_the_same():
    for keys in (cupti.KEYS, rocprof.KEYS):
        common = {"gpu_faults", "cpu_faults", "bytes_h2d", "bytes_d2h", "prefetch_bytes_h2d",
                  "prefetch_bytes_d2h", "evicted_bytes"}
        assert common <= set(keys) and common <= set(COUNTERS)


def test_sources_have_the_same_interface():
    for col in (cupti.COLLECTOR, rocprof.COLLECTOR):
        for m in ("start", "read", "reset", "stop"):
            assert callable(getattr(col, m))
        assert col.read() == {} or col.on


def test_adapters_name_their_source():
    assert CudaRuntime.counter_source(object.__new__(CudaRuntime)) is cupti.COLLECTOR
    assert HipRuntime.counter_source(object.__new__(HipRuntime)) is rocprof.COLLECTOR


def test_rocprof_records_map_to_umkit_keys():
    t = rocprof.RocprofTally()
    base = 0x7f0000000000
    t.add_record(dict(operation="ROCPROFILER_PAGE_MIGRATION_PAGE_MIGRATE_END", start_addr=base,
                      end_addr=base + 2 * MiB - 1, to="gpu", trigger="PAGEFAULT_GPU"))
    t.add_record(dict(operation="PAGE_MIGRATE_END", start_addr=base, end_addr=base + MiB - 1,
                      to="gpu", trigger="ROCPROFILER_PAGE_MIGRATION_TRIGGER_PREFETCH"))
    t.add_record(dict(operation="PAGE_MIGRATE_END", start_addr=base, end_addr=base + 4095,
                      to="cpu", trigger="PAGEFAULT_CPU"))
    t.add_record(dict(operation="PAGE_MIGRATE_END", start_addr=base, end_addr=base + 8191,
                      to="cpu", trigger="TTM_EVICTION"))
    t.add_record(dict(operation="PAGE_MIGRATE_START", start_addr=base, end_addr=base + 4095,
                      to="gpu", trigger="PREFETCH"))            # starts are not counted twice
    for op in ("PAGE_FAULT_START", "PAGE_FAULT_START", "PAGE_FAULT_END", "QUEUE_EVICTION",
               "QUEUE_RESTORE", "UNMAP_FROM_GPU"):
        t.add_record(dict(operation=op))
    t.add_record(dict(operation="DROPPED_EVENT", dropped=3))
    want = dict.fromkeys(rocprof.KEYS, 0)
    want.update(bytes_h2d=3 * MiB, prefetch_bytes_h2d=MiB, bytes_d2h=4096 + 8192,
                evicted_bytes=8192, cpu_faults=1, gpu_faults=2, queue_evictions=1, gpu_unmaps=1,
                dropped_records=3)
    assert t.totals == want and t.records == 12


@pytest.mark.parametrize("bad", [None, {}, {"operation": "WARP_DRIVE"},
                                 {"operation": "PAGE_MIGRATE_END", "start_addr": 10,
                                  "end_addr": 5, "to": "gpu"},
                                 {"operation": "PAGE_MIGRATE_END", "start_addr": 0,
                                  "end_addr": 4095, "to": "disk"}])
def test_rocprof_bad_records_are_typed_errors(bad):
    with pytest.raises(umkit.InvalidArgument):
        rocprof.RocprofTally().add_record(bad)


def test_hip_counters_on_says_why_not_live():
    with pytest.raises(umkit.BackendUnavailable) as e:
        rocprof.COLLECTOR.start()
    assert "no Python bindings" in str(e.value) and "rocprofv3" in e.value.hint


def test_gpu_backend_counters_are_off_until_started():
    class Fake(GPUBackend):
        def __init__(self):                       # no runtime: only the counter plumbing
            self._counter_source = None

    b = Fake()
    assert b.counters() == {} and not b.counters_enabled()
    b.reset_counters()                            # a no-op while off
    src = cupti.CuptiCollector()
    src.on = True
    src.flush = lambda: None                      # no CUPTI here: the tally is filled by hand
    src.tally.add("BYTES_TRANSFER_HTOD", 4096, "COHERENCE")
    b._counter_source = src
    assert b.counters_enabled() and b.counters()["bytes_h2d"] == 4096
    b.reset_counters()
    assert b.counters()["bytes_h2d"] == 0


def test_records_are_binned_into_steps_by_timestamp():
    recs = [(5, "BYTES_TRANSFER_HTOD", 4096, "COHERENCE"), (10, "GPU_PAGE_FAULT", 2, "UNKNOWN"),
            (11, "CPU_PAGE_FAULT_COUNT", 0, "UNKNOWN"), (25, "BYTES_TRANSFER_DTOH", 8192, "USER"),
            (99, "BYTES_TRANSFER_HTOD", 1, "USER")]
    per = cupti.bin_records(recs, [10, 20, 30])
    assert per == [{"bytes_h2d": 4096, "fault_bytes_h2d": 4096, "gpu_faults": 1,
                    "gpu_fault_groups": 2}, {"cpu_faults": 1},
                   {"bytes_d2h": 8192, "prefetch_bytes_d2h": 8192, "bytes_h2d": 1,
                    "prefetch_bytes_h2d": 1}]
    assert cupti.bin_records(recs, []) == []


def test_recorder_on_a_counting_gpu_backend_bins_once(monkeypatch):
    """The recorder's GPU path (lag 1, events, timestamps, one flush) on a stand-in backend."""
    from umkit.backends.gpu import GpuEvent as Event
    from umkit.runtime.context import RUNTIME

    class FakeSource(cupti.CuptiCollector):
        def __init__(self):
            super().__init__()
            self.on, self.t, self.flushes = True, 0, 0

        def flush(self):
            self.flushes += 1

        def clock(self):
            self.t += 10
            return self.t

    class FakeGPU(GPUBackend):
        name, model_time = "cuda", False

        def __init__(self):
            self._counter_source = FakeSource()
            self.now_ms = 0.0

        def device_name(self, device=0):
            return "fake GPU"

        def event_create(self):
            return Event(None, 0)

        def event_record(self, ev, stream=None):
            self.now_ms += 1.5
            ev.handle = self.now_ms

        def event_elapsed_ms(self, a, b):
            return b.handle - a.handle

        def event_destroy(self, ev):
            pass

    b = FakeGPU()
    with RUNTIME.using_backend(b, "cuda", "a stand-in GPU backend for this test"):
        src = b._counter_source
        with umkit.ecg.recorder("gpu path") as rec:
            for i in range(3):
                src.um_kind, src.counter_names = 7, {1: "BYTES_TRANSFER_HTOD"}

                class R:
                    kind, counter_kind, value, flags_ = 7, 1, 4096 * (i + 1), 2
                    start = 15 + 10 * i     # between the stamps 10 (enter), 20, 30, 40
                src.buffer_completed([R()])
                rec.step()
        r = rec.result()
    assert r.step_ms == [1.5, 1.5, 1.5]
    assert [s.counters.get("bytes_h2d") for s in r.steps] == [4096, 8192, 12288]
    assert r.counters["bytes_h2d"] == 4096 * 6
    assert src.flushes <= 4                    # start, log start/stop, the totals: not per step
