"""The race detector decides by ordering -- was the work waited for? -- never by model time, and
follows the host paths NumPy takes with no hook: a slice or a derived view handed to C code,
``.data``, ``.flat``, ``.base``, ``.view(np.ndarray)``, ``struct`` / ``hashlib`` / ``BytesIO`` on
slices; it refuses raw pointers (``.ctypes``) while work is in flight; and a write-write race
through a kept view (the kernel's +1 overwritten by C code) is reported, never silently lost."""
from __future__ import annotations

import ctypes
import hashlib
import io
import struct

import numpy as np
import pytest

import umkit

MiB = 1 << 20
N = MiB // 4


@pytest.fixture(autouse=True)
def _no_env_backend(monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)


def writer_in_flight():
    umkit.use("sim", strict=True, quiet=True)
    a = umkit.managed(N)
    a.host[:] = 1.0
    umkit.synchronize()
    s = umkit.Stream()
    umkit.increment(a, stream=s)
    return a, s


ESCAPES = {
    "np.array(a.host[:n])": lambda a: np.array(a.host[:100]),
    "bytes(a.host.data)": lambda a: bytes(a.host.data),
    "a.host.flat[i]": lambda a: a.host.flat[3],
    "np.array(a.host.view(np.ndarray))": lambda a: np.array(a.host.view(np.ndarray)),
    "np.array(a.host.reshape(...))": lambda a: np.array(a.host.reshape(2, -1)),
    "np.array(a.host.base)": lambda a: np.array(a.host.base),
    "struct on a slice": lambda a: struct.unpack_from("f", a.host[:4]),
    "hashlib on a slice": lambda a: hashlib.sha1(a.host[:1000]).digest(),
    "BytesIO on a slice": lambda a: io.BytesIO(a.host[:1000]).read(),
    "ctypes pointer": lambda a: ctypes.c_float.from_address(a.host.ctypes.data).value,
    "__array_interface__": lambda a: a.host.__array_interface__["data"],
}


@pytest.mark.parametrize("how", sorted(ESCAPES))
def test_c_paths_while_a_kernel_writes_are_flagged(how):
    a, s = writer_in_flight()
    with pytest.raises(umkit.RaceDetected):
        ESCAPES[how](a)


@pytest.mark.parametrize("how", sorted(ESCAPES))
def test_the_same_paths_after_the_wait_are_quiet(how):
    a, s = writer_in_flight()
    s.synchronize()
    ESCAPES[how](a)
    assert umkit.counters()["race_flags"] == 0


def test_unrelated_host_work_does_not_end_a_race():
    """Model time passing is no wait: the kernel is in flight until the host waits for it."""
    a, s = writer_in_flight()
    b = umkit.managed(4 * MiB)
    for i in range(20):
        b.host[:] = i                                     # advances the model clock far past it
    assert umkit.now() > umkit.backend().engine.inflight[0].end
    with pytest.raises(umkit.RaceDetected):
        float(a.host[0])


def test_an_event_after_the_work_ends_the_race_and_one_before_does_not():
    umkit.use("sim", strict=True, quiet=True)
    a = umkit.managed(N)
    a.host[:] = 1.0
    umkit.synchronize()
    s = umkit.Stream()
    before = umkit.Event().record(s)
    umkit.increment(a, stream=s)
    before.synchronize()
    with pytest.raises(umkit.RaceDetected):
        float(a.host[0])
    after = umkit.Event().record(s)
    after.synchronize()
    assert float(a.host[0]) == 2.0


def test_a_write_write_race_through_a_kept_view_is_reported():
    """``h = a.host``; a kernel writes ``a``; C code writes through ``h`` meanwhile: the kernel's
    +1 would be lost -- reported at the wait."""
    umkit.use("sim", strict=True, quiet=True)
    a = umkit.managed(N)
    a.host[:] = 1.0
    umkit.synchronize()
    h = a.host
    s = umkit.Stream()
    umkit.increment(a, stream=s)
    memoryview(h).cast("B")[0:4] = np.float32(7.0).tobytes()
    with pytest.raises(umkit.RaceDetected, match="does not dispatch"):
        s.synchronize()


def test_the_watch_lets_go_when_the_view_dies():
    import gc
    umkit.use("sim", quiet=True)
    a = umkit.managed(N)
    a.host[:] = 1.0
    umkit.synchronize()
    h = a.host
    s = umkit.Stream()
    det = umkit.backend().engine.detector
    alloc = umkit.backend().engine.find(a.ptr)[0]
    umkit.touch(a, 4096, stream=s)
    assert det.watching(alloc)
    s.synchronize()
    del h
    gc.collect()
    umkit.touch(a, 4096, stream=s)
    assert not det.watching(alloc)
    s.synchronize()


def test_a_stream_nobody_waits_for_holds_a_bounded_number_of_operations():
    from umkit.sim.races import STREAM_INFLIGHT
    umkit.use("sim", strict=True, quiet=True)
    a = umkit.managed(N)
    a.host[:] = 1.0
    umkit.synchronize()
    s = umkit.Stream()
    for _ in range(3 * STREAM_INFLIGHT):
        umkit.touch(a, 4096, stream=s)
    assert len(umkit.backend().engine.inflight) <= STREAM_INFLIGHT + 1
    with pytest.raises(umkit.RaceDetected):
        a.host[0] = 5.0                                   # still in flight: merged, not lost
    s.synchronize()
    a.host[0] = 5.0
