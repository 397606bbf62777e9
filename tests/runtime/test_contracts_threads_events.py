"""The runtime's promises, as tests: ``umkit.use(...)`` in one thread does not disturb work that
another thread runs on the previous backend (its timer's events stay on its stream's backend),
and an event or a timer on GPU 1 waits for GPU 1's work."""
from __future__ import annotations

import threading

import pytest

import umkit
from umkit.workloads import run as run_workload

MiB = 1 << 20


pytestmark = pytest.mark.usefixtures("fresh_sim")


def test_use_in_another_thread_does_not_break_a_running_timer():
    umkit.use("sim", quiet=True)
    a = umkit.managed(MiB // 4)
    s = umkit.Stream()
    started, switched, errors, times = threading.Event(), threading.Event(), [], []

    def worker():
        try:
            with umkit.timer(s) as t:
                umkit.increment(a, stream=s)
                started.set()
                switched.wait(10)
                umkit.increment(a, stream=s)
            times.append(t.ms)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    th = threading.Thread(target=worker)
    th.start()
    started.wait(10)
    umkit.use("sim", quiet=True, profile="mi250x-xnack1")    # the notebook switches meanwhile
    switched.set()
    th.join(20)
    assert not errors, errors
    assert times and times[0] > 0


def test_a_workload_in_a_thread_survives_use_in_the_main_thread():
    """The main thread switches the process-wide backend after a run in another thread made its
    buffers and before its first step (a handshake makes the order certain): the run keeps the
    backend it started on."""
    errors, out = [], []
    umkit.use("sim", quiet=True)
    stepped, switched = threading.Event(), threading.Event()

    def should_stop():              # asked before each step: the first time, before step 0
        if not stepped.is_set():
            stepped.set()
            switched.wait(30)
        return False

    def worker():
        try:
            out.append(run_workload("managed+prefetch", nbytes=2 * MiB, steps=3,
                                    should_stop=should_stop))
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    th = threading.Thread(target=worker)
    th.start()
    assert stepped.wait(30)
    first = umkit.backend()
    umkit.use("sim", quiet=True)                     # a new process-wide backend mid-run
    assert umkit.backend() is not first
    switched.set()
    th.join(60)
    assert not errors, errors
    assert len(out) == 1 and len(out[0].steps) == 3


def test_event_of_gpu1_with_no_stream_waits_for_gpu1():
    umkit.use("sim", gpus=2, strict=True, quiet=True)
    a = umkit.managed(8 * MiB // 4, device=1)
    a.host[:] = 1.0
    umkit.synchronize()
    umkit.increment(a)                                   # GPU 1's default stream
    ev = umkit.Event(device=1).record()
    ev.synchronize()
    assert float(a.host[0]) == 2.0                       # no race: the event waited for GPU 1


def test_timer_with_no_stream_times_and_waits_for_every_gpu():
    umkit.use("sim", gpus=2, strict=True, quiet=True)
    a = umkit.managed(8 * MiB // 4, device=1)
    a.host[:] = 1.0
    umkit.synchronize()
    with umkit.timer() as t:
        umkit.increment(a)                               # on GPU 1
    assert t.ms > 0.01                                    # GPU 1's kernel is in the time
    assert float(a.host[0]) == 2.0                       # and was waited for (strict: no race)


def test_event_rejects_a_non_backend():
    with pytest.raises(umkit.errors.InvalidType, match="backend"):
        umkit.Event(backend="sim")
