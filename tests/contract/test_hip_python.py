"""Contract tests against the real hip-python 10 package (no ROCm needed).

hip-python imports without ROCm; a call type-checks its arguments (enums must be members of the
right enum class, pointers must convert, the arity must match) and only then opens
libamdhip64, which raises RuntimeError("failed to dlopen ...") here.  So calling the real
functions with the hip adapter's real arguments checks its call forms, and the dlopen failure
proves the arguments got past hip-python.
"""
from __future__ import annotations

import ast
import ctypes
import inspect
import itertools
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

hip_pkg = pytest.importorskip("hip", reason="hip-python not installed (pip install umkit[rocm])")
from hip import hip  # noqa: E402

from umkit.backends import registry as detect
from umkit.backends import names  # noqa: E402
from umkit.backends.contract import ADVICE, CPU, gpu  # noqa: E402
from umkit.errors import BackendError, BackendUnavailable, InvalidArgument, OutOfMemory  # noqa: E402

BACKENDS_DIR = Path(names.__file__).resolve().parent
IDENT = re.compile(r"^(cuda|hip)[A-Z][A-Za-z0-9_]*$")


def _rocm_missing() -> bool:
    try:
        hip.hipGetDeviceCount()
    except RuntimeError as e:
        return "dlopen" in str(e)
    return False


ROCM_MISSING = _rocm_missing()
needs_no_rocm = pytest.mark.skipif(not ROCM_MISSING,
                                   reason="ROCm is installed: these tests answer for its absence")


def hip_names_used() -> set[str]:
    """HIP spellings of every CUDA/HIP identifier literal in gpu.py and hip.py."""
    out = set()
    for f in ("gpu.py", "hip.py"):
        for node in ast.walk(ast.parse((BACKENDS_DIR / f).read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and IDENT.match(node.value):
                r = names.row(node.value)
                if r.hip is not None:
                    out.add(r.hip)
    return out


# -- names and signatures ------------------------------------------------------------------------
def test_every_hip_name_in_the_table_exists():
    for r in names.TABLE:
        if r.hip is None or r.kind == "macro":   # macros live in the C++ headers only
            continue
        obj = names.resolve(hip, "hip", r.hip)
        if r.kind == "function":
            assert callable(obj) and not isinstance(obj, type), r
        elif r.kind in ("enum", "attribute"):
            enum_cls = getattr(hip, names.for_backend("hip", r.enum))
            assert isinstance(obj, enum_cls), r
        elif r.kind == "constant":
            assert isinstance(obj, int), r
        else:
            assert isinstance(obj, type), r


# The hip-python signatures the hip adapter is written against (parameter names as the Cython
# functions embed them).  A new hip-python that changes one of these must fail here first.
HIP_SIGNATURES = {
    "hipGetDeviceCount": [],
    "hipSetDevice": ["deviceId"],
    "hipGetDevice": [],
    "hipGetDeviceProperties": ["deviceId"],
    "hipDeviceGetAttribute": ["attr", "deviceId"],
    "hipMemGetInfo": [],
    "hipDriverGetVersion": [],
    "hipRuntimeGetVersion": [],
    "hipMallocManaged": ["size", "flags"],
    "hipMalloc": ["size"],
    "hipHostMalloc": ["size", "flags"],
    "hipFree": ["ptr"],
    "hipHostFree": ["ptr"],
    "hipMemPrefetchAsync": ["dev_ptr", "count", "device", "stream"],
    "hipMemAdvise": ["dev_ptr", "count", "advice", "device"],
    "hipMemRangeGetAttribute": ["data", "data_size", "attribute", "dev_ptr", "count"],
    "hipStreamCreate": [],
    "hipStreamDestroy": ["stream"],
    "hipStreamSynchronize": ["stream"],
    "hipDeviceSynchronize": [],
    "hipEventCreate": [],
    "hipEventRecord": ["event", "stream"],
    "hipEventSynchronize": ["event"],
    "hipEventElapsedTime": ["start", "stop"],
    "hipEventDestroy": ["event"],
    "hipMemcpyAsync": ["dst", "src", "sizeBytes", "kind", "stream"],
    "hipGetErrorName": ["hip_error"],
    "hipGetErrorString": ["hipError"],
}


def test_the_adapter_uses_only_functions_with_known_signatures():
    used_functions = {n for n in hip_names_used() if names.row(n).kind == "function"}
    assert "hipMemPrefetchAsync" in used_functions and "hipMemRangeGetAttribute" in used_functions
    assert used_functions <= set(HIP_SIGNATURES), used_functions - set(HIP_SIGNATURES)


@pytest.mark.parametrize("fn", sorted(HIP_SIGNATURES))
def test_hip_signature(fn):
    assert list(inspect.signature(getattr(hip, fn)).parameters) == HIP_SIGNATURES[fn]
    assert "tuple" in getattr(hip, fn).__doc__  # every call returns (hipError_t, ...)


def test_hip_constants():
    assert hip.hipCpuDeviceId == -1
    assert hip.hipInvalidDeviceId == -2
    assert int(hip.hipMemAttachGlobal) == 1
    assert int(hip.hipHostMallocMapped) == 2 and int(hip.hipHostMallocPortable) == 1
    assert int(hip.hipError_t.hipSuccess) == 0
    assert hip.hipError_t.hipErrorMemoryAllocation is hip.hipError_t.hipErrorOutOfMemory


def test_hip_enums_have_the_members_used():
    from umkit.backends.gpu import ADVICE_NAMES
    advice_members = {m.name for m in hip.hipMemoryAdvise}
    for n in ADVICE_NAMES.values():
        assert names.for_backend("hip", n) in advice_members
    assert {"hipMemAdviseSetCoarseGrain", "hipMemAdviseUnsetCoarseGrain"} <= advice_members
    range_members = {m.name for m in hip.hipMemRangeAttribute}
    assert {"hipMemRangeAttributeReadMostly", "hipMemRangeAttributePreferredLocation",
            "hipMemRangeAttributeAccessedBy",
            "hipMemRangeAttributeLastPrefetchLocation"} <= range_members
    attrs = {m.name for m in hip.hipDeviceAttribute_t}
    for n in hip_names_used():
        if names.row(n).enum == "cudaDeviceAttr":
            assert n in attrs
    # the numbers are not CUDA's: the reason the table maps names, never values
    assert int(hip.hipDeviceAttribute_t.hipDeviceAttributeConcurrentManagedAccess) == 9


def test_hip_python_type_checks_enums():
    with pytest.raises(TypeError, match="hipMemoryAdvise"):
        hip.hipMemAdvise(0, 4096, 1, 0)  # a bare int is refused before any runtime call
    with pytest.raises(TypeError, match="hipMemRangeAttribute"):
        hip.hipMemRangeGetAttribute(0, 4, 1, 0, 4096)


# -- without ROCm: a clean failure, and detect explains it ----------------------------------------
@needs_no_rocm
def test_without_rocm_calls_fail_cleanly_and_probe_says_why():
    with pytest.raises(RuntimeError, match="libamdhip64"):
        hip.hipGetDeviceCount()
    usable, reason = detect.probe("hip")
    assert usable is False
    assert reason == "hip-python installed but could not load libamdhip64.so (ROCm not installed, or its lib folder not on the loader path)"


@needs_no_rocm
def test_hip_backend_without_rocm_raises_backend_unavailable():
    from umkit.backends.hip import HipBackend
    b = HipBackend()  # constructing needs only hip-python
    with pytest.raises(BackendUnavailable, match="libamdhip64"):
        b.device_count()


@needs_no_rocm
def test_choose(monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    with pytest.raises(InvalidArgument) as ei:
        detect.choose("rocm")
    assert all(n in str(ei.value) for n in ("cuda", "hip", "sim"))
    monkeypatch.setenv("UMKIT_BACKEND", "metal")
    with pytest.raises(InvalidArgument, match="UMKIT_BACKEND"):
        detect.choose()
    monkeypatch.setenv("UMKIT_BACKEND", "hip")
    with pytest.raises(BackendUnavailable, match="could not load libamdhip64"):
        detect.choose()
    monkeypatch.setenv("UMKIT_BACKEND", "SIM")
    assert detect.choose()[0] == "sim"
    assert detect.choose("sim")[0] == "sim"  # the argument wins over the environment
    monkeypatch.delenv("UMKIT_BACKEND")
    if not detect.probe("cuda")[0]:
        name, reason = detect.choose()
        assert name == "sim"
        assert "could not load libamdhip64" in reason and "cuda:" in reason
    assert detect.probe("sim")[0] is True
    with pytest.raises(InvalidArgument):
        detect.probe("opencl")


# -- the whole GPU backend over hip-python, ROCm's answers canned ---------------------------------
class CheckedHip:
    """``hip.hip`` whose functions are really called (so hip-python checks arity, enum types and
    pointer conversions), then answered from ``canned`` once the dlopen of libamdhip64 fails.
    The error-text calls return a ``const char*`` and cannot raise (without ROCm they warn and
    return None), so they go straight to ``canned``."""

    NOT_CALLED = {"hipGetErrorName", "hipGetErrorString"}

    def __init__(self, canned):
        self.calls: list[tuple[str, tuple]] = []
        self.canned = canned

    def __getattr__(self, name):
        obj = getattr(hip, name)
        if not name.startswith("hip") or isinstance(obj, type) or not callable(obj):
            return obj

        def checked(*args):
            self.calls.append((name, args))
            if name in self.NOT_CALLED:
                assert isinstance(args[0], hip.hipError_t)
                return self.canned(name, args)
            try:
                obj(*args)  # TypeError here = the adapter's call form is wrong
            except RuntimeError as e:
                assert "dlopen" in str(e), e
            else:
                raise AssertionError(f"{name} ran: is ROCm installed?")
            return self.canned(name, args)
        return checked

    def called(self, name):
        return [a for n, a in self.calls if n == name]


_addresses = itertools.count(1)


def hip_canned(name, args):
    ok = hip.hipError_t.hipSuccess
    A = hip.hipMemRangeAttribute
    if name in ("hipMallocManaged", "hipMalloc", "hipHostMalloc"):
        if args[0] == 3 << 30:
            return (hip.hipError_t.hipErrorOutOfMemory, None)
        from rocm.bindings.util.types import Pointer
        return (ok, Pointer.fromObj(0x10000000 + (next(_addresses) << 32)))
    if name == "hipMemRangeGetAttribute":
        data, size, attr = args[0], args[1], args[2]
        values = {A.hipMemRangeAttributeReadMostly: [1],
                  A.hipMemRangeAttributePreferredLocation: [-1],
                  A.hipMemRangeAttributeLastPrefetchLocation: [1],
                  A.hipMemRangeAttributeAccessedBy: [1, 0, -2, -2]}[attr]
        out = (ctypes.c_int32 * (size // 4)).from_address(data)  # HIP fills the caller's buffer
        for i, v in enumerate(values[: size // 4]):
            out[i] = v
        return (ok,)
    if name == "hipDeviceGetAttribute":
        on = {"hipDeviceAttributeManagedMemory", "hipDeviceAttributeConcurrentManagedAccess"}
        return (ok, 1 if args[0].name in on else 0)
    if name == "hipGetErrorName":
        return (ok, args[0].name.encode())
    if name == "hipGetErrorString":
        return (ok, b"canned message")
    if name == "hipMemPrefetchAsync" and args[1] == 12345:
        return (hip.hipError_t.hipErrorInvalidValue,)
    return {
        "hipGetDeviceCount": (ok, 2),
        "hipMemGetInfo": (ok, 8 << 30, 16 << 30),
        "hipDriverGetVersion": (ok, 70_051_831),
        "hipRuntimeGetVersion": (ok, 70_051_831),
        "hipGetDeviceProperties": (ok, SimpleNamespace(name="AMD Instinct MI300A",
                                                       gcnArchName="gfx942:sramecc+:xnack+")),
        "hipStreamCreate": (ok, hip.ihipStream_t.fromObj(0x5000)),
        "hipEventCreate": (ok, hip.ihipEvent_t.fromObj(0x6000)),
        "hipGetDevice": (ok, 0),
        "hipEventElapsedTime": (ok, 1.25),
    }.get(name, (ok,))


@pytest.fixture
def hip_backend(monkeypatch):
    if not ROCM_MISSING:
        pytest.skip("ROCm is installed: these tests answer for its absence")
    from umkit.backends.hip import HipBackend
    b = HipBackend()
    b.rt.rt = CheckedHip(hip_canned)
    return b


def test_hip_backend_call_forms(hip_backend, monkeypatch):
    b, log = hip_backend, hip_backend.rt.rt
    assert b.device_count() == 2
    assert b.device_name(0) == "AMD Instinct MI300A"
    assert b.mem_info(1) == (8 << 30, 16 << 30)
    # asked on device 1, then the caller's current device (0) given back
    assert log.called("hipSetDevice")[-2:] == [(1,), (0,)]

    p = b.malloc(1 << 20, "managed", 0)
    assert log.called("hipMallocManaged") == [(1 << 20, hip.hipMemAttachGlobal)]
    pin = b.malloc(8192, "pinned", 0)
    assert log.called("hipHostMalloc") == [(8192, hip.hipHostMallocMapped | hip.hipHostMallocPortable)]
    dev = b.malloc(8192, "device", 0)

    b.prefetch(p, 1 << 20, gpu(1))
    b.prefetch(p, 1 << 20, CPU)
    assert log.called("hipMemPrefetchAsync") == [(p, 1 << 20, 1, 0), (p, 1 << 20, -1, 0)]

    for advice in ADVICE:
        where = gpu(0) if advice in ("preferred_location", "accessed_by") else None
        b.advise(p, 1 << 20, advice, where)
        b.advise(p, 1 << 20, advice, where, unset=True)
    M = hip.hipMemoryAdvise
    got = [(a[2], a[3]) for a in log.called("hipMemAdvise")]
    assert got == [(M.hipMemAdviseSetReadMostly, -1), (M.hipMemAdviseUnsetReadMostly, -1),
                   (M.hipMemAdviseSetPreferredLocation, 0),
                   (M.hipMemAdviseUnsetPreferredLocation, 0),
                   (M.hipMemAdviseSetAccessedBy, 0), (M.hipMemAdviseUnsetAccessedBy, 0),
                   (M.hipMemAdviseSetCoarseGrain, -1), (M.hipMemAdviseUnsetCoarseGrain, -1)]
    assert all(type(a) is M for a, _ in got)

    assert b.range_attributes(p, 1 << 20) == {
        "read_mostly": True, "preferred_location": CPU, "last_prefetch_location": gpu(1),
        "accessed_by": [gpu(1), gpu(0)]}
    sizes = sorted(a[1] for a in log.called("hipMemRangeGetAttribute"))
    assert sizes == [4, 4, 4, 12]  # the accessed-by buffer has a slot per GPU and the CPU

    monkeypatch.setenv("HSA_XNACK", "1")
    caps = b.capabilities(0)
    assert caps["managed_memory"] and caps["concurrent_managed_access"]
    assert not caps["pageable_memory_access"]
    assert caps["xnack"] == {"env": "1", "target": True, "arch": "gfx942:sramecc+:xnack+"}
    assert caps["hmm"] is True
    v = b.versions()
    assert v["driver"] == "7.0.51831" and v["bindings"].startswith("hip-python")

    s = b.stream_create(0)
    e0, e1 = b.event_create(), b.event_create()
    b.event_record(e0, s)
    b.memcpy(pin, p, 4096, s)
    b.event_record(e1, s)
    assert b.event_elapsed_ms(e0, e1) == 1.25
    b.synchronize(s)
    b.synchronize(e0)
    b.synchronize(None)
    (dst, src, n, kind, st), = log.called("hipMemcpyAsync")
    assert (dst, src, n, kind) == (pin, p, 4096, hip.hipMemcpyKind.hipMemcpyDefault)
    assert int(st) == 0x5000
    assert [int(a[0]) for a in log.called("hipEventSynchronize")] == [0x6000, 0x6000]
    b.event_destroy(e0)
    b.stream_destroy(s)
    b.free(p)
    b.free(dev)
    b.free(pin)
    assert log.called("hipFree") == [(p,), (dev,)] and log.called("hipHostFree") == [(pin,)]


def test_hip_has_no_nvidia_oversubscription_guard(hip_backend):
    b, log = hip_backend, hip_backend.rt.rt
    b.malloc(9 << 30, "managed", 0)  # more than the canned 8 GiB free: allowed on AMD
    assert log.called("hipMallocManaged") and not log.called("hipMemGetInfo")


def test_hip_errors_become_backend_errors(hip_backend):
    from umkit.backends.gpu import RuntimeOutOfMemory
    b = hip_backend
    with pytest.raises(RuntimeOutOfMemory) as ei:
        b.malloc(3 << 30, "managed", 0)
    e = ei.value
    assert isinstance(e, OutOfMemory) and isinstance(e, BackendError)
    assert (e.call, e.code, e.name) == ("hipMallocManaged", 2, "hipErrorOutOfMemory")
    assert (e.requested, e.free, e.total, e.kind, e.device) == \
        (3 << 30, 8 << 30, 16 << 30, "managed", 0)
    assert str(e).startswith("Out of memory allocating 3,221,225,472 bytes of managed memory "
                             "on gpu0; 8.00 GiB of 16.00 GiB free (hipMallocManaged failed")
    p = b.malloc(4096, "managed", 0)
    with pytest.raises(BackendError) as ei:
        b.prefetch(p, 12345, gpu(0))
    assert (ei.value.call, ei.value.name, ei.value.code) == \
        ("hipMemPrefetchAsync", "hipErrorInvalidValue", 1)
    assert "canned message" in str(ei.value)
