"""The sim engine under threads (one lock over its shared state), and its resources: streams
released when dropped, freed allocations released promptly."""
from __future__ import annotations

import gc
import sys
import threading
import time
import warnings
import weakref

import numpy as np
import pytest

import umkit
from umkit.errors import RaceWarning

MiB = 1 << 20


@pytest.fixture(autouse=True)
def _no_env_backend(monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)


@pytest.fixture
def tiny_switch_interval():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)          # switch threads as often as CPython allows
    yield
    sys.setswitchinterval(old)


def _worker(tid: int, rounds: int, errors: list, ptrs: list, barrier):
    try:
        barrier.wait()
        rng = np.random.default_rng(tid)
        s = umkit.Stream()
        for r in range(rounds):
            n = int(rng.integers(1, 64)) * 1024          # 4 KiB .. 256 KiB of float32
            a = umkit.managed(n)
            ptrs.append((a.ptr, a.nbytes, tid, r))
            v = float(tid * 1000 + r)
            a.host[:] = v                                # CPU writes
            umkit.increment(a, stream=s)                 # GPU reads and writes
            umkit.touch(a, 4096, stream=s)
            s.synchronize()
            a.prefetch("cpu", stream=s)
            s.synchronize()
            got = a.host[:: max(1, n // 7)].copy()
            if not np.all(got == v + 1):
                errors.append(f"thread {tid} round {r}: read {got[:3]} expected {v + 1}")
            if r % 3:
                a.free()                                 # explicit free; else garbage-collected
    except Exception as e:                               # noqa: BLE001 - reported below
        errors.append(f"thread {tid}: {type(e).__name__}: {e}")


def test_threads_allocating_touching_freeing_get_their_own_data(tiny_switch_interval):
    umkit.use("sim", strict=True)        # strict: a spurious race would raise
    errors: list = []
    ptrs: list = []
    nthreads, rounds = 6, 25
    barrier = threading.Barrier(nthreads)
    threads = [threading.Thread(target=_worker, args=(t, rounds, errors, ptrs, barrier))
               for t in range(nthreads)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RaceWarning)
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert len(ptrs) == nthreads * rounds
    # pointers handed out are unique, and no two allocations ever overlapped
    starts = [p for p, *_ in ptrs]
    assert len(set(starts)) == len(starts)
    spans = sorted((p, p + n) for p, n, *_ in ptrs)
    assert all(b0 >= a1 for (_, a1), (b0, _) in zip(spans, spans[1:]))
    assert umkit.counters()["race_flags"] == 0


def test_engine_state_is_consistent_after_threads(tiny_switch_interval):
    b = umkit.use("sim")
    eng = b.engine

    def churn(k):
        live = []
        for i in range(200):
            live.append(umkit.managed(1024 * (1 + (i + k) % 5)))
            if len(live) > 4:
                live.pop(0).free()
            umkit.touch(live[-1], 4096)
            if i % 10 == 0:
                umkit.synchronize()
                b.mem_info(0)            # sums over all allocations while others change them
        for x in live:
            x.free()

    threads = [threading.Thread(target=churn, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    gc.collect()
    assert eng.space.starts == sorted(eng.allocs)
    assert len(eng.allocs) <= 1          # only the cached touch sink may remain


# -- streams -------------------------------------------------------------------------------------------
def test_dropped_streams_are_released_and_synchronize_stays_cheap():
    b = umkit.use("sim")
    eng = b.engine
    base = len(eng.streams)
    a = umkit.managed(MiB // 4)
    a.host[:] = 0.0
    s = umkit.Stream()
    umkit.increment(a, stream=s)
    end = s.handle.ready
    del s                                # its work is still queued ...
    for _ in range(20_000):
        umkit.Stream()
    gc.collect()
    assert len(eng.streams) <= base + 1  # ... but no stream object is kept
    umkit.synchronize()                  # a device synchronize still waits for that work
    assert umkit.now() >= end
    np.testing.assert_array_equal(a.host[:4], 1.0)
    t0 = time.perf_counter()
    for _ in range(1000):
        umkit.synchronize()
    per_sync = (time.perf_counter() - t0) / 1000
    assert per_sync < 1e-3, per_sync    # O(live work), not O(streams ever made)


# -- freed allocations -----------------------------------------------------------------------------
def test_freed_array_is_released_before_any_synchronize():
    b = umkit.use("sim")
    a = umkit.managed(MiB // 4)
    a.host[:] = 1.0
    s = umkit.Stream()
    umkit.increment(a, stream=s)         # work in flight refers to a's pages
    alloc = weakref.ref(b.engine.find(a.ptr)[0])
    a.free()
    gc.collect()
    assert alloc() is None               # no synchronize yet, and the bytes are gone
    s.synchronize()
