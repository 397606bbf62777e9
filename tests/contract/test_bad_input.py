"""Bad input: every case raises umkit's exception class (never a bare TypeError/ValueError/
AttributeError from deep inside, never a crash), the message names the argument or the problem,
and the text says what to do instead (the hint, or the message itself where umkit has none).

Runs on the sim backend (the checks are in the API, above every backend).
"""
from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pytest

import umkit
from umkit import (BackendUnavailable, InvalidArgument, InvalidType, NotManaged, OutOfMemory,
                   UmkitError, UseAfterFree)
from umkit.backends import registry as detect

MiB = 1 << 20


@pytest.fixture
def k(monkeypatch):
    """A fresh sim backend and one array of each kind, plus a freed one."""
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    umkit.use("sim")
    f = umkit.managed(1024)
    f.free()
    return SimpleNamespace(a=umkit.managed(1024), b64=umkit.managed(1024, "float64"),
                           d=umkit.device_array(1024), p=umkit.pinned(1024), f=f,
                           pool=umkit.MemoryPool())


def _old_stream(k):
    s = umkit.Stream()
    umkit.use("sim")                          # a new backend: s belongs to the old one
    return umkit.increment(umkit.managed(16), stream=s)


def _old_array(k):
    old = k.a
    umkit.use("sim")
    fresh = umkit.managed(1024)
    return umkit.add(fresh, fresh, old)


def _copy_across_backends(k):
    old = k.a
    umkit.use("sim")
    return umkit.copy(umkit.managed(1024), old)


def _env_backend(value):
    def run(k, mp):
        mp.setenv("UMKIT_BACKEND", value)
        return umkit.use()
    return run


def _pool_double_free(k):
    q = k.pool.allocate(100)
    k.pool.free(q)
    return k.pool.free(q)


def _use_sim(**kw):
    return lambda k: umkit.use("sim", **kw)


# (id, call, exception class, regex the message must match (the argument / the problem),
#  regex for what to do: searched in the hint when there is one, else in the message)
CASES = [
    # -- sizes and shapes --------------------------------------------------------------------
    ("size-zero", lambda k: umkit.managed(0), InvalidArgument, r"shape=\(0,\)", r"at least one"),
    ("size-negative", lambda k: umkit.managed(-5), InvalidArgument, r"shape=\(-5,\)", r"at least one"),
    ("size-float", lambda k: umkit.managed(3.5), InvalidType, r"shape=3\.5", r"int"),
    ("size-integral-float", lambda k: umkit.managed(4.0), InvalidType, r"shape=4\.0", r"int"),
    ("size-bool", lambda k: umkit.managed(True), InvalidType, r"shape=True", r"int"),
    ("size-str", lambda k: umkit.managed("1024"), InvalidType, r"shape='1024' is not a size", r"int"),
    ("size-none", lambda k: umkit.managed(None), InvalidType, r"shape=None", r"int"),
    ("size-huge", lambda k: umkit.managed(2**60), InvalidArgument, r"larger than any machine",
     r"elements, not bytes"),
    ("shape-huge", lambda k: umkit.managed((2**30, 2**30)), InvalidArgument,
     r"larger than any machine", r"check the shape"),
    ("shape-empty", lambda k: umkit.managed(()), InvalidArgument, r"shape=\(\)", r"shape=1"),
    ("shape-zero-dim", lambda k: umkit.managed((4, 0)), InvalidArgument, r"shape=\(4, 0\)",
     r"at least one"),
    ("shape-negative-dim", lambda k: umkit.managed((2, -1)), InvalidArgument, r"got -1",
     r"at least one"),
    ("shape-float-dim", lambda k: umkit.managed([2, 2.0]), InvalidType, r"2\.0 is not an integer",
     r"ints"),
    ("device-oom", lambda k: (umkit.use("sim", vram=8 * MiB), umkit.device_array(4 * MiB)),
     OutOfMemory, r"exceeds the simulated VRAM", r"managed memory"),
    # -- dtypes --------------------------------------------------------------------------------
    ("dtype-object", lambda k: umkit.managed(4, object), InvalidType, r"dtype=object",
     r"numeric dtype"),
    ("dtype-str", lambda k: umkit.managed(4, str), InvalidType, r"dtype=<U0", r"numeric dtype"),
    ("dtype-unicode", lambda k: umkit.managed(4, "U4"), InvalidType, r"dtype=<U4", r"numeric"),
    ("dtype-structured", lambda k: umkit.managed(4, [("a", "f4"), ("b", "i4")]), InvalidType,
     r"dtype=\[\('a'", r"numeric dtype"),
    ("dtype-unknown", lambda k: umkit.managed(4, "floaty"), InvalidType,
     r"dtype='floaty' is not a NumPy dtype", r"float32"),
    ("dtype-datetime", lambda k: umkit.managed(4, "M8[ns]"), InvalidType, r"datetime64",
     r"numeric dtype"),
    # -- kernel arguments -------------------------------------------------------------------------
    ("add-dtype", lambda k: umkit.add(k.a, k.a, k.b64), InvalidType, r"b must be float32.*float64",
     r"dtype='float32'"),
    ("add-out-dtype", lambda k: umkit.add(k.b64, k.a, k.a), InvalidType, r"out must be float32",
     r"dtype='float32'"),
    ("add-size", lambda k: umkit.add(k.a, k.a, umkit.managed(512)), InvalidArgument,
     r"sizes differ: out 1024, a 1024, b 512", r"equal sizes"),
    ("add-not-array", lambda k: umkit.add(k.a, k.a, np.zeros(1024, np.float32)), InvalidType,
     r"b needs a umkit.Array, got ndarray", r"umkit.managed"),
    ("increment-dtype", lambda k: umkit.increment(umkit.managed(4, "int32")), InvalidType,
     r"a must be float32 \(got int32\)", r"float32"),
    ("fill-dtype", lambda k: umkit.fill(k.b64, 1.0), InvalidType, r"float64", r"float32"),
    ("fill-value-str", lambda k: umkit.fill(k.a, "x"), InvalidType, r"value='x'", r"fill\(a, 1\.0\)"),
    ("fill-value-none", lambda k: umkit.fill(k.a, None), InvalidType, r"value=None", r"fill"),
    ("touch-dtype", lambda k: umkit.touch(k.b64), InvalidType, r"float64", r"float32"),
    ("touch-sink-not-array", lambda k: umkit.touch(k.a, sink=np.zeros(1, np.float32)),
     InvalidType, r"sink needs a umkit.Array", r"umkit"),
    # -- devices -------------------------------------------------------------------------------------
    ("device-negative", lambda k: umkit.managed(4, device=-1), InvalidArgument, r"device=-1",
     r"0\.\.0"),
    ("device-too-large", lambda k: umkit.managed(4, device=1), InvalidArgument,
     r"device=1 does not exist \(1 GPU", r"0\.\.0"),
    ("device-float", lambda k: umkit.managed(4, device=1.0), InvalidType, r"device=1\.0", r"use 0"),
    ("device-str", lambda k: umkit.managed(4, device="0"), InvalidType, r"device='0'", r"use 0"),
    ("device-bool", lambda k: umkit.managed(4, device=True), InvalidType, r"device=True", r"use 0"),
    ("capabilities-device", lambda k: umkit.capabilities(3), InvalidArgument, r"device=3",
     r"gpus=4"),
    ("mem-info-negative", lambda k: umkit.mem_info(-1), InvalidArgument, r"device=-1",
     r"umkit\.CPU"),
    ("stream-device", lambda k: umkit.Stream(5), InvalidArgument, r"device=5", r"0\.\.0"),
    ("stream-device-str", lambda k: umkit.Stream("a"), InvalidType, r"device='a'", r"0\.\.0"),
    ("kind-unknown", lambda k: umkit.empty(4, kind="shared"), InvalidArgument, r"kind='shared'",
     r"'managed'"),
    ("pool-kind-unknown", lambda k: umkit.MemoryPool(kind="x"), InvalidArgument, r"kind='x'",
     r"managed"),
    # -- advice ------------------------------------------------------------------------------------------
    ("advice-unknown", lambda k: umkit.advise(k.a, "read_rarely"), InvalidArgument,
     r"advice='read_rarely' is unknown", r"read_mostly"),
    ("advice-empty", lambda k: umkit.advise(k.a, ""), InvalidArgument, r"advice=''", r"read_mostly"),
    ("advice-int", lambda k: umkit.advise(k.a, 3), InvalidType, r"advice=3 must be a string",
     r"preferred_location"),
    ("advice-none", lambda k: umkit.advise(k.a, None), InvalidType, r"advice=None", r"accessed_by"),
    # -- locations --------------------------------------------------------------------------------------------
    ("loc-tpu", lambda k: umkit.prefetch(k.a, "tpu"), InvalidArgument, r"to='tpu' is not a location",
     r"'cpu'"),
    ("loc-gpu-minus-1", lambda k: umkit.prefetch(k.a, "gpu-1"), InvalidArgument, r"to='gpu-1'",
     r"'gpu'"),
    ("loc-float", lambda k: umkit.prefetch(k.a, 3.5), InvalidArgument, r"to=3\.5", r"device number"),
    ("loc-none", lambda k: umkit.prefetch(k.a, None), InvalidArgument, r"to=None", r"umkit\.CPU"),
    ("loc-bool", lambda k: umkit.prefetch(k.a, True), InvalidType, r"to=True", r"'gpu'"),
    ("loc-gpu3", lambda k: umkit.prefetch(k.a, "gpu3"), InvalidArgument,
     r"to='gpu3': device 3 does not exist", r"valid device"),
    ("loc-int-too-large", lambda k: umkit.prefetch(k.a, 7), InvalidArgument, r"device 7",
     r"valid device"),
    ("loc-int-negative", lambda k: umkit.prefetch(k.a, -3), InvalidArgument, r"device -3",
     r"-1 means the CPU"),
    ("loc-bad-location-object", lambda k: umkit.prefetch(k.a, umkit.Location("tpu", 0)),
     InvalidArgument, r"Location\(kind='tpu'", r"umkit\.gpu\(i\)"),
    ("advise-where-tpu", lambda k: umkit.advise(k.a, "accessed_by", "tpu"), InvalidArgument,
     r"where='tpu'", r"'cpu'"),
    ("advise-where-gpu9", lambda k: umkit.advise(k.a, "preferred_location", "gpu9"),
     InvalidArgument, r"where='gpu9'", r"valid device"),
    # -- not managed --------------------------------------------------------------------------------------------
    ("prefetch-device", lambda k: umkit.prefetch(k.d, "gpu"), NotManaged, r"device memory",
     r"umkit\.managed"),
    ("prefetch-pinned", lambda k: umkit.prefetch(k.p, "gpu"), NotManaged, r"pinned memory",
     r"umkit\.managed"),
    ("advise-device", lambda k: umkit.advise(k.d, "read_mostly"), NotManaged, r"advise.*device",
     r"umkit\.managed"),
    ("advise-pinned", lambda k: k.p.advise("accessed_by", "gpu"), NotManaged, r"advise.*pinned",
     r"umkit\.managed"),
    ("attributes-device", lambda k: umkit.attributes(k.d), NotManaged, r"attributes.*device",
     r"umkit\.managed"),
    ("prefetch-not-array", lambda k: umkit.prefetch(np.zeros(4), "gpu"), InvalidType,
     r"prefetch needs a umkit.Array, got ndarray", r"umkit\.managed"),
    ("device-host-view", lambda k: k.d.host, InvalidArgument, r"no host view", r"read_back"),
    # -- freed memory ---------------------------------------------------------------------------------------------
    ("prefetch-freed", lambda k: umkit.prefetch(k.f, "gpu"), UseAfterFree,
     r"prefetch on a freed array", r"allocate a new array"),
    ("advise-freed", lambda k: umkit.advise(k.f, "read_mostly"), UseAfterFree,
     r"advise on a freed array", r"allocate a new array"),
    ("double-free", lambda k: k.f.free(), UseAfterFree, r"double free", r"free each array once"),
    ("host-freed", lambda k: k.f.host, UseAfterFree, r"host access on a freed array",
     r"allocate a new"),
    ("device-freed", lambda k: k.f.device, UseAfterFree, r"device access on a freed array",
     r"allocate a new"),
    ("add-freed", lambda k: umkit.add(k.a, k.a, k.f), UseAfterFree, r"\bb on a freed array",
     r"allocate a new"),
    ("increment-freed", lambda k: umkit.increment(k.f), UseAfterFree, r"freed array",
     r"allocate a new"),
    ("read-back-freed", lambda k: umkit.read_back(k.f), UseAfterFree, r"read_back on a freed",
     r"allocate a new"),
    ("attributes-freed", lambda k: umkit.attributes(k.f), UseAfterFree, r"attributes on a freed",
     r"allocate a new"),
    ("pool-free-foreign", lambda k: k.pool.free(k.a.ptr), UseAfterFree,
     r"not a live block of this pool", r"another allocator"),
    ("pool-double-free", _pool_double_free, UseAfterFree, r"not a live block", r"double free"),
    # -- pool sizes ---------------------------------------------------------------------------------------------------
    ("pool-zero", lambda k: k.pool.allocate(0), InvalidArgument, r"nbytes=0", r"at least 1 byte"),
    ("pool-negative", lambda k: k.pool.allocate(-1), InvalidArgument, r"nbytes=-1", r"at least 1"),
    ("pool-float", lambda k: k.pool.allocate(1.5), InvalidType, r"nbytes=1\.5", r"bytes"),
    ("pool-huge", lambda k: k.pool.allocate(2**60), InvalidArgument, r"larger than any machine",
     r"bytes"),
    # -- byte ranges and strides ----------------------------------------------------------------------------------------
    ("offset-negative", lambda k: umkit.prefetch(k.a, "gpu", offset=-1), InvalidArgument,
     r"offset=-1", r"0 <= offset"),
    ("offset-at-end", lambda k: umkit.prefetch(k.a, "gpu", offset=4096), InvalidArgument,
     r"offset=4096.*4096 B", r"arr\.nbytes"),
    ("nbytes-past-end", lambda k: umkit.prefetch(k.a, "gpu", nbytes=5000), InvalidArgument,
     r"nbytes=5000", r"arr\.nbytes"),
    ("nbytes-zero", lambda k: umkit.prefetch(k.a, "gpu", nbytes=0), InvalidArgument, r"nbytes=0",
     r"offset\+nbytes"),
    ("offset-plus-nbytes", lambda k: umkit.advise(k.a, "read_mostly", offset=4000, nbytes=100),
     InvalidArgument, r"offset=4000, nbytes=100", r"arr\.nbytes"),
    ("offset-float", lambda k: umkit.prefetch(k.a, "gpu", offset=1.5), InvalidType,
     r"offset=1\.5 must be an int", r"whole numbers of bytes"),
    ("nbytes-bool", lambda k: umkit.prefetch(k.a, "gpu", nbytes=True), InvalidType,
     r"nbytes=True", r"whole numbers"),
    ("stride-not-multiple-of-4", lambda k: umkit.touch(k.a, 6), InvalidArgument,
     r"stride_bytes=6 must be a positive multiple of 4", r"4096"),
    ("stride-zero", lambda k: umkit.touch(k.a, 0), InvalidArgument, r"stride_bytes=0", r"4096"),
    ("stride-negative", lambda k: umkit.touch(k.a, -4), InvalidArgument, r"stride_bytes=-4",
     r"4096"),
    ("stride-float", lambda k: umkit.touch(k.a, 4.0), InvalidType, r"stride_bytes=4\.0",
     r"multiple of 4"),
    ("stride-bool", lambda k: umkit.touch(k.a, True), InvalidType, r"stride_bytes=True",
     r"multiple of 4"),
    # -- streams and events -------------------------------------------------------------------------------------------------
    ("stream-str", lambda k: umkit.increment(k.a, stream="s0"), InvalidType,
     r"stream='s0' is not a umkit.Stream", r"umkit\.Stream\(\)"),
    ("stream-int", lambda k: umkit.prefetch(k.a, "gpu", stream=0), InvalidType, r"stream=0",
     r"umkit\.Stream\(\)"),
    ("stream-event", lambda k: umkit.add(k.a, k.a, k.a, stream=umkit.Event()), InvalidType,
     r"Event.*is not a umkit.Stream", r"umkit\.Stream\(\)"),
    ("stream-of-old-backend", _old_stream, InvalidArgument, r"belongs to another backend",
     r"after umkit\.use"),
    ("array-of-old-backend", _old_array, InvalidArgument, r"b was allocated on another (backend|instance of the sim backend)",
     r"after the last umkit\.use"),
    ("copy-across-backends", _copy_across_backends, InvalidArgument,
     r"src was allocated on another (backend|instance of the sim backend)", r"after the last umkit\.use"),
    ("copy-nbytes-too-large", lambda k: umkit.copy(k.a, k.p, nbytes=8192), InvalidArgument,
     r"nbytes=8192", r"1\.\.4096"),
    ("copy-nbytes-zero", lambda k: umkit.copy(k.a, k.p, nbytes=0), InvalidArgument, r"nbytes=0",
     r"1\.\.4096"),
    ("copy-not-array", lambda k: umkit.copy(k.a, [1, 2]), InvalidType, r"copy src needs a umkit",
     r"umkit\.managed"),
    ("read-back-out-not-pinned", lambda k: umkit.read_back(k.a, out=k.b64), InvalidArgument,
     r"out must be a pinned umkit.Array", r"umkit\.pinned"),
    ("synchronize-str", lambda k: umkit.synchronize("all"), InvalidType,
     r"cannot synchronize on 'all'", r"a Stream or an Event"),
    ("event-record-str", lambda k: umkit.Event().record("x"), InvalidType, r"stream='x'",
     r"umkit\.Stream\(\)"),
    ("event-unrecorded", lambda k: umkit.Event().elapsed_ms(umkit.Event()), InvalidArgument,
     r"not recorded", r"record both"),
    ("event-elapsed-int", lambda k: umkit.Event().record().elapsed_ms(3), InvalidType,
     r"end=3 is not a umkit.Event", r"elapsed_ms\(end\)"),
    ("timer-stream-str", lambda k: umkit.timer("x").__enter__(), InvalidType, r"stream='x'",
     r"umkit\.Stream\(\)"),
    # -- backends -------------------------------------------------------------------------------------------------------------
    ("use-unknown", lambda k: umkit.use("opencl"), InvalidArgument, r"'opencl' is not a backend",
     r"cuda, hip, sim"),
    ("use-int", lambda k: umkit.use(3), InvalidArgument, r"backend name 3 must be a string",
     r"'sim'"),
    ("env-unknown", _env_backend("vulkan"), InvalidArgument,
     r"UMKIT_BACKEND='vulkan' is not a backend", r"cuda, hip, sim"),
    # -- sim profiles and options --------------------------------------------------------------------------------------------
    ("profile-unknown", _use_sim(profile="h100-nope"), InvalidArgument,
     r"profile 'h100-nope' not found", r"h200-pcie5"),
    ("profile-int", _use_sim(profile=3), InvalidType, r"profile=3", r"h200-pcie5"),
    ("override-unknown", _use_sim(vramm=1), InvalidArgument, r"unknown profile override 'vramm'",
     r"'vram'"),
    ("override-negative", _use_sim(vram=-1), InvalidArgument, r"vram=-1", r"vram="),
    ("override-str", _use_sim(vram="8MiB"), InvalidArgument, r"vram='8MiB'", r"SI units"),
    ("override-bool", _use_sim(vram=True), InvalidArgument, r"vram=True", r"SI units"),
    ("override-nan", _use_sim(fault_bw=float("nan")), InvalidArgument, r"fault_bw=nan",
     r"SI units"),
    ("override-zero-bandwidth", _use_sim(fault_bw=0), InvalidArgument, r"fault_bw=0 must be > 0",
     r"positive number"),
    ("override-page-not-nested", _use_sim(gpu_page=6000), InvalidArgument,
     r"page sizes must nest", r"65536"),
    ("sim-gpus-0", _use_sim(gpus=0), InvalidArgument, r"gpus=0", r"between 1 and 7"),
    ("sim-gpus-8", _use_sim(gpus=8), InvalidArgument, r"gpus=8", r"between 1 and 7"),
    ("sim-gpus-float", _use_sim(gpus=2.0), InvalidType, r"gpus=2\.0 must be an int", r"gpus=2"),
    ("sim-gpus-str", _use_sim(gpus="2"), InvalidType, r"gpus='2'", r"gpus=2"),
    ("sim-strict-str", _use_sim(strict="no"), InvalidType, r"strict='no' must be True or False",
     r"strict=True"),
    ("sim-prefetcher-int", _use_sim(prefetcher=0), InvalidType, r"prefetcher=0", r"prefetcher="),
    # -- issue 10's findings -------------------------------------------------------------------------------------------------
    ("prefetch-offset-none", lambda k: umkit.prefetch(k.a, "gpu", offset=None), InvalidType,
     r"offset=None must be an int", r"whole numbers of bytes"),
    ("prefetch-offset-2**64", lambda k: umkit.prefetch(k.a, "gpu", offset=2**64 - 8),
     InvalidArgument, r"offset=18446744073709551608", r"arr\.nbytes"),
    ("fill-huge-int", lambda k: umkit.fill(k.a, 10**400), InvalidArgument,
     r"value=1000.* too large", r"fill\(a, 1\.0\)"),
    ("fill-beyond-float32", lambda k: umkit.fill(k.a, 1e300), InvalidArgument,
     r"does not fit a float32", r"within"),
    ("pool-free-str", lambda k: k.pool.free("x"), InvalidType, r"ptr='x' must be an int",
     r"pool\.allocate"),
    ("pool-backend-int", lambda k: umkit.MemoryPool(backend=3), InvalidType,
     r"backend=3 is not a umkit backend", r"umkit\.backend\(\)"),
    ("pool-owner-int", lambda k: k.pool.allocate(16, owner=3), InvalidType, r"owner=3", r"owner="),
    ("trace-last-float", lambda k: umkit.trace(last=1.5), InvalidType, r"last=1\.5", r"last=20"),
    ("trace-last-negative", lambda k: umkit.trace(last=-1), InvalidArgument, r"last=-1",
     r"last=20"),
    ("shape-65-dims", lambda k: umkit.managed((1,) * 65), InvalidArgument, r"65 dimensions",
     r"fewer dimensions"),
    ("shape-bytes", lambda k: umkit.managed(b"4"), InvalidType, r"shape=b'4'", r"int"),
    ("advise-unset-str", lambda k: umkit.advise(k.a, "read_mostly", unset="no"), InvalidType,
     r"unset='no' must be True or False", r"unset=True"),
    ("advise-unset-int", lambda k: umkit.advise(k.a, "read_mostly", unset=1), InvalidType,
     r"unset=1", r"unset=True"),
    ("oversubscription-str", lambda k: umkit.allow_oversubscription("no"), InvalidType,
     r"flag='no'", r"flag=True"),
    ("ecg-steps-none", lambda k: umkit.ecg.record(steps=None), InvalidType, r"steps=None",
     r"steps=50"),
    ("ecg-steps-huge", lambda k: umkit.ecg.record(steps=10**9), InvalidArgument,
     r"steps=1000000000", r"steps=50"),
    ("ecg-strategies-str", lambda k: umkit.ecg.record(strategies="managed"), InvalidType,
     r"strategies='managed' must be a list or tuple", r"strategy names"),
    ("ecg-strategies-unknown", lambda k: umkit.ecg.record(strategies=("managd",)),
     InvalidArgument, r"strategies='managd' is unknown", r"managed"),
    ("ecg-pattern-int", lambda k: umkit.ecg.record(pattern=3), InvalidType, r"pattern=3",
     r"cpu_stats"),
    ("ecg-progress-str", lambda k: umkit.ecg.record(steps=1, progress="bar"), InvalidType,
     r"progress='bar' is not callable", r"pass a function"),
    ("workloads-run-list", lambda k: umkit.workloads.run([1]), InvalidType,
     r"strategy \[1\] must be a name", r"managed"),
    ("workloads-run-steps", lambda k: umkit.workloads.run("managed", steps=2.0), InvalidType,
     r"steps=2\.0", r"steps=50"),
    ("workloads-pattern-int", lambda k: umkit.workloads.run("managed", 5), InvalidType,
     r"pattern 5", r"gpu_only"),
    ("read-back-out-int32", lambda k: umkit.read_back(k.a, out=np.zeros(1024, np.int32)),
     InvalidArgument, r"does not\s+convert", r"np\.empty"),
    ("read-back-out-read-only", lambda k: umkit.read_back(k.a, out=_ro(1024)), InvalidArgument, r"read-only", r"writable"),
    ("read-back-out-list", lambda k: umkit.read_back(k.a, out=[0] * 1024), InvalidType,
     r"out=list", r"NumPy"),
    ("stream-device-bool", lambda k: umkit.Stream(True), InvalidType, r"device=True", r"0"),
    ("use-counters-str", lambda k: umkit.use("sim", counters="yes"), InvalidArgument,
     r"counters='yes'", r"counters=True"),
]


def _ro(n):
    x = np.zeros(n, np.float32)
    x.flags.writeable = False
    return x
assert len(CASES) >= 40
assert len({c[0] for c in CASES}) == len(CASES), "duplicate case ids"


def _call(fn, k, monkeypatch):
    import inspect
    if len(inspect.signature(fn).parameters) == 2:
        return fn(k, monkeypatch)
    return fn(k)


@pytest.mark.parametrize("call, exc, what, todo", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_input(k, monkeypatch, call, exc, what, todo):
    with pytest.raises(UmkitError) as info:
        _call(call, k, monkeypatch)
    e = info.value
    assert type(e) is exc, f"expected {exc.__name__}, got {type(e).__name__}: {e}"
    text = str(e)
    message = text.split("\n  -> ")[0]
    assert re.search(what, message), f"message {message!r} does not name {what!r}"
    where = e.hint if e.hint else message
    assert re.search(todo, where), f"{'hint' if e.hint else 'message'} {where!r} lacks {todo!r}"
    # one exception hierarchy, still catchable as the matching built-in
    if isinstance(e, (InvalidArgument, NotManaged)):
        assert isinstance(e, ValueError)
    if isinstance(e, InvalidType):
        assert isinstance(e, TypeError)


def test_bad_input_keeps_the_backend_usable(k):
    """After a rejected call, the same backend still computes correctly."""
    for call in (lambda: umkit.prefetch(k.a, "tpu"), lambda: umkit.touch(k.a, 6),
                 lambda: umkit.add(k.a, k.a, k.b64), lambda: umkit.managed(0)):
        with pytest.raises(UmkitError):
            call()
    k.a.host[:] = 1
    umkit.increment(k.a)
    np.testing.assert_array_equal(umkit.read_back(k.a), np.full(1024, 2, np.float32))


def test_read_back_of_an_array_from_an_earlier_backend(k):
    """A umkit.use(...) in between must not make read_back copy through the new backend."""
    k.a.host[:] = 3.0
    umkit.use("sim")
    fresh = umkit.managed(1024)
    fresh.host[:] = 7.0
    np.testing.assert_array_equal(umkit.read_back(k.a), 3.0)
    np.testing.assert_array_equal(umkit.read_back(fresh), 7.0)


# -- backends that cannot run here: the reason is in the error ------------------------------------------------
@pytest.mark.parametrize("name", ["hip", "cuda"])
def test_unusable_backend_names_the_reason(k, name):
    ok, reason = detect.probe(name)
    if ok:
        pytest.skip(f"{name} is usable on this machine: nothing to refuse")
    with pytest.raises(BackendUnavailable) as info:
        umkit.use(name)
    assert f"backend {name!r}" in str(info.value)
    assert reason in str(info.value)
    assert umkit.backend_name() == "sim"         # the refused switch left the backend alone


@pytest.mark.parametrize("name", ["hip", "cuda"])
def test_unusable_backend_from_the_environment(k, monkeypatch, name):
    ok, reason = detect.probe(name)
    if ok:
        pytest.skip(f"{name} is usable on this machine: nothing to refuse")
    monkeypatch.setenv("UMKIT_BACKEND", name)
    with pytest.raises(BackendUnavailable) as info:
        umkit.use()
    assert "UMKIT_BACKEND" in str(info.value) and reason in str(info.value)
