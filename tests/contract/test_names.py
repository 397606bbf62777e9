"""Contract tests for the CUDA<->HIP name table (umkit.backends.names) and for the cuda adapter
against the real cuda-bindings package.

cuda-bindings imports without a GPU or driver: its calls then return cudaErrorInsufficientDriver
*after* converting their arguments, so calling each function with the adapter's real arguments
checks the call forms (wrong arity or types raise TypeError first).
"""
from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

from umkit.backends import names
from umkit.backends.contract import ADVICE, CPU, gpu
from umkit.errors import BackendError, InvalidArgument, OutOfMemory

BACKENDS_DIR = Path(names.__file__).resolve().parent
IDENT = re.compile(r"^(cuda|hip)[A-Z][A-Za-z0-9_]*$")


def names_used_in(*files: str) -> set[str]:
    """Every string literal in these modules that looks like a CUDA/HIP identifier."""
    found = set()
    for f in files:
        tree = ast.parse((BACKENDS_DIR / f).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and IDENT.match(node.value):
                found.add(node.value)
    return found


# -- the table itself -------------------------------------------------------------------------------
def test_rows_are_well_formed():
    assert len(names.TABLE) > 60
    for r in names.TABLE:
        assert isinstance(r, names.Row)
        assert r.kind in names.KINDS, r
        assert r.concept and r.concept.strip() == r.concept, r
        assert r.cuda or r.hip, r
        if r.cuda is not None:
            assert r.cuda.startswith("cuda"), r
        if r.hip is not None:
            assert r.hip.startswith(("hip", "HIP")), r
        if r.cuda is None or r.hip is None:
            assert r.note, f"a one-sided row must say why: {r}"
        if r.kind in ("enum", "attribute"):
            assert r.enum is not None, r
            enum_row = names.row(r.enum)
            assert enum_row.kind == "type", (r, enum_row)
        else:
            assert r.enum is None, r


def test_no_duplicates():
    assert len(set(names.TABLE)) == len(names.TABLE)
    counts = Counter(r.concept for r in names.TABLE)
    assert [k for k, n in counts.items() if n > 1] == []
    # one CUDA 13 call has two HIP forms (the classic int device, HIP 7's _v2 location), and
    # only these two; the classic form comes first, so cuda_to_hip gives it
    cuda_counts = Counter(r.cuda for r in names.TABLE if r.cuda is not None)
    assert {k for k, n in cuda_counts.items() if n > 1} == {"cudaMemPrefetchAsync", "cudaMemAdvise"}
    assert names.cuda_to_hip("cudaMemPrefetchAsync") == "hipMemPrefetchAsync"
    assert names.cuda_to_hip("cudaMemAdvise") == "hipMemAdvise"
    assert names.hip_to_cuda("hipMemPrefetchAsync_v2") == "cudaMemPrefetchAsync"
    assert names.hip_to_cuda("hipMemAdvise_v2") == "cudaMemAdvise"
    # one HIP call stands for two CUDA calls, and only this one
    hip_counts = Counter(r.hip for r in names.TABLE if r.hip is not None)
    assert {k for k, n in hip_counts.items() if n > 1} == {"hipHostMalloc"}
    assert names.hip_to_cuda("hipHostMalloc") == "cudaMallocHost"  # first row wins


TWO_HIP_FORMS = {"hipMemPrefetchAsync_v2", "hipMemAdvise_v2"}     # the CUDA name gives the classic


def test_round_trips():
    for r in names.TABLE:
        if r.cuda is not None:
            assert names.cuda_to_hip(r.cuda) == r.hip or r.hip in TWO_HIP_FORMS
            assert names.for_backend("cuda", r.cuda) == r.cuda
        if r.hip is not None:
            back = names.hip_to_cuda(r.hip)
            assert names.for_backend("hip", r.hip) == r.hip
            if back is not None and r.hip not in TWO_HIP_FORMS:
                assert names.cuda_to_hip(back) == r.hip
        if r.cuda and r.hip and r.hip not in TWO_HIP_FORMS:
            assert names.for_backend("hip", r.cuda) == r.hip
            assert names.for_backend("cuda", r.hip) in (r.cuda, names.hip_to_cuda(r.hip))


@pytest.mark.parametrize("cuda,hip", [
    ("cudaMallocManaged", "hipMallocManaged"),
    ("cudaMalloc", "hipMalloc"),
    ("cudaMallocHost", "hipHostMalloc"),
    ("cudaHostAlloc", "hipHostMalloc"),
    ("cudaFreeHost", "hipHostFree"),
    ("cudaMemPrefetchAsync", "hipMemPrefetchAsync"),
    ("cudaMemAdvise", "hipMemAdvise"),
    ("cudaMemAdviseSetReadMostly", "hipMemAdviseSetReadMostly"),
    ("cudaMemAdviseUnsetReadMostly", "hipMemAdviseUnsetReadMostly"),
    ("cudaMemAdviseSetPreferredLocation", "hipMemAdviseSetPreferredLocation"),
    ("cudaMemAdviseUnsetPreferredLocation", "hipMemAdviseUnsetPreferredLocation"),
    ("cudaMemAdviseSetAccessedBy", "hipMemAdviseSetAccessedBy"),
    ("cudaMemAdviseUnsetAccessedBy", "hipMemAdviseUnsetAccessedBy"),
    ("cudaMemRangeGetAttribute", "hipMemRangeGetAttribute"),
    ("cudaMemRangeAttributeReadMostly", "hipMemRangeAttributeReadMostly"),
    ("cudaMemRangeAttributePreferredLocation", "hipMemRangeAttributePreferredLocation"),
    ("cudaMemRangeAttributeAccessedBy", "hipMemRangeAttributeAccessedBy"),
    ("cudaMemRangeAttributeLastPrefetchLocation", "hipMemRangeAttributeLastPrefetchLocation"),
    ("cudaCpuDeviceId", "hipCpuDeviceId"),
    ("cudaDeviceGetAttribute", "hipDeviceGetAttribute"),
    ("cudaDevAttrConcurrentManagedAccess", "hipDeviceAttributeConcurrentManagedAccess"),
    ("cudaDevAttrManagedMemory", "hipDeviceAttributeManagedMemory"),
    ("cudaDevAttrPageableMemoryAccess", "hipDeviceAttributePageableMemoryAccess"),
    ("cudaStreamCreate", "hipStreamCreate"),
    ("cudaEventElapsedTime", "hipEventElapsedTime"),
    ("cudaDeviceSynchronize", "hipDeviceSynchronize"),
    ("cudaMemcpyAsync", "hipMemcpyAsync"),
    ("cudaMemGetInfo", "hipMemGetInfo"),
    ("cudaErrorMemoryAllocation", "hipErrorOutOfMemory"),
    ("cudaErrorInvalidValue", "hipErrorInvalidValue"),
    ("cudaMemcpyDefault", "hipMemcpyDefault"),
])
def test_teaching_pairs(cuda, hip):
    assert names.cuda_to_hip(cuda) == hip
    assert names.for_backend("hip", cuda) == hip


def test_one_sided_rows_explain_themselves():
    assert names.hip_to_cuda("hipMemAdviseSetCoarseGrain") is None
    assert "HIP-only" in names.row("hipMemAdviseSetCoarseGrain").note
    with pytest.raises(LookupError, match="HIP-only"):
        names.for_backend("cuda", "hipMemAdviseSetCoarseGrain")
    with pytest.raises(KeyError):
        names.cuda_to_hip("cudaNoSuchCall")
    with pytest.raises(KeyError):
        names.hip_to_cuda("cudaMalloc")  # a CUDA name is not a HIP name


def test_rows_by_kind_partition_the_table():
    parts = [names.rows(k) for k in names.KINDS]
    assert sum(len(p) for p in parts) == len(names.TABLE)
    assert names.rows() == names.TABLE
    assert all(r.kind == "function" for r in names.rows("function"))
    with pytest.raises(ValueError):
        names.rows("struct")


def test_markdown_has_every_row():
    md = names.as_markdown()
    lines = md.splitlines()
    assert lines[0].startswith("| concept | CUDA | HIP |")
    assert len(lines) == 2 + len(names.TABLE)
    for r, line in zip(names.TABLE, lines[2:]):
        for n in (r.cuda, r.hip):
            if n:
                assert f"`{n}`" in line
    assert len(names.as_markdown("constant").splitlines()) == 2 + len(names.rows("constant"))


def test_every_name_the_adapters_use_is_in_the_table():
    used = names_used_in("gpu.py", "cuda.py", "hip.py")
    assert "cudaMallocManaged" in used and "cudaMemRangeAttributeAccessedBy" in used
    missing = sorted(n for n in used if n not in names.BY_CUDA and n not in names.BY_HIP)
    assert missing == []


def test_advice_names_cover_the_contract():
    from umkit.backends.gpu import ADVICE_NAMES
    assert {a for a, _ in ADVICE_NAMES} == set(ADVICE)
    for (advice, unset), n in ADVICE_NAMES.items():
        r = names.row(n)
        assert r.enum == "cudaMemoryAdvise"
        assert ("Unset" in n) == unset
        if advice == "coarse_grain":
            assert r.cuda is None and r.hip == n
        else:
            assert r.cuda == n and r.hip is not None


# -- against the real cuda-bindings -------------------------------------------------------------
try:
    from cuda.bindings import runtime as rt
except ImportError:  # the table tests above still run
    rt = None
pytestmark_cuda = pytest.mark.skipif(
    rt is None, reason="cuda-bindings not installed (pip install 'cuda-bindings==13.*')")


@pytestmark_cuda
def test_every_cuda_name_exists_in_cuda_bindings():
    for r in names.TABLE:
        if r.cuda is None:
            continue
        obj = names.resolve(rt, "cuda", r.cuda)
        if r.kind == "function":
            assert callable(obj), r
        elif r.kind in ("enum", "attribute"):
            assert obj in getattr(rt, r.enum), r
        elif r.kind == "constant":
            assert isinstance(obj, int), r
        else:
            assert isinstance(obj, type), r


@pytestmark_cuda
def test_cuda_constants_have_the_documented_values():
    assert rt.cudaCpuDeviceId == -1
    assert rt.cudaInvalidDeviceId == -2
    assert int(rt.cudaError_t.cudaErrorMemoryAllocation) == 2
    assert int(rt.cudaHostAllocMapped) == 2 and int(rt.cudaHostAllocPortable) == 1


@pytestmark_cuda
def test_enum_numbers_in_notes_match_both_runtimes():
    hip_mod = pytest.importorskip("hip").hip
    checked = 0
    for r in names.TABLE:
        m = re.search(r"CUDA (\d+), HIP (\d+)", r.note)
        if not m:
            continue
        assert int(names.resolve(rt, "cuda", r.cuda)) == int(m.group(1)), r
        assert int(names.resolve(hip_mod, "hip", r.hip)) == int(m.group(2)), r
        checked += 1
    assert checked >= 9


@pytestmark_cuda
def test_cuda_signatures_match_the_adapter():
    import inspect
    expected = {
        "cudaMallocManaged": 2, "cudaMalloc": 1, "cudaHostAlloc": 2, "cudaFree": 1,
        "cudaFreeHost": 1, "cudaMemPrefetchAsync": 5, "cudaMemAdvise": 4,
        "cudaMemRangeGetAttribute": 4, "cudaDeviceGetAttribute": 2, "cudaMemcpyAsync": 5,
        "cudaEventElapsedTime": 2, "cudaEventRecord": 2, "cudaStreamCreate": 0,
        "cudaMemGetInfo": 0, "cudaGetDeviceProperties": 1, "cudaSetDevice": 1,
    }
    for fn, n in expected.items():
        assert len(inspect.signature(getattr(rt, fn)).parameters) == n, fn
    params = list(inspect.signature(rt.cudaMemPrefetchAsync).parameters)
    assert params[2] == "location"   # CUDA 13: a cudaMemLocation, not an int device


# -- the whole GPU backend over cuda-bindings, with the driver's answers canned ------------------
# (the fake low layer is in cuda_fake.py, the ``cuda_backend`` fixture in conftest.py)


def test_cuda_backend_call_forms(cuda_backend):
    b, log = cuda_backend, cuda_backend.rt.rt
    assert b.device_count() == 2
    assert b.device_name(0) == "NVIDIA Test GPU"
    assert b.mem_info(0) == (8 << 30, 16 << 30)
    p = b.malloc(1 << 20, "managed", 0)
    (size, flags), = log.called("cudaMallocManaged")
    assert size == 1 << 20 and flags == rt.cudaMemAttachGlobal
    pin = b.malloc(4096, "pinned", 0)
    assert log.called("cudaHostAlloc")[0][1] == rt.cudaHostAllocMapped | rt.cudaHostAllocPortable
    dev = b.malloc(4096, "device", 0)

    b.prefetch(p, 1 << 20, gpu(1))
    b.prefetch(p, 1 << 20, CPU)
    (ptr, n, loc, fl, st), (_, _, loc2, _, _) = log.called("cudaMemPrefetchAsync")
    assert (ptr, n, fl, st) == (p, 1 << 20, 0, 0)
    assert loc.type == rt.cudaMemLocationType.cudaMemLocationTypeDevice and loc.id == 1
    assert loc2.type == rt.cudaMemLocationType.cudaMemLocationTypeHost

    b.advise(p, 1 << 20, "read_mostly")
    b.advise(p, 1 << 20, "preferred_location", gpu(0))
    b.advise(p, 1 << 20, "accessed_by", CPU, unset=True)
    advs = log.called("cudaMemAdvise")
    assert [a[2] for a in advs] == [rt.cudaMemoryAdvise.cudaMemAdviseSetReadMostly,
                                    rt.cudaMemoryAdvise.cudaMemAdviseSetPreferredLocation,
                                    rt.cudaMemoryAdvise.cudaMemAdviseUnsetAccessedBy]
    assert advs[1][3].id == 0
    with pytest.raises(InvalidArgument, match="HIP-only"):
        b.advise(p, 1 << 20, "coarse_grain")
    with pytest.raises(InvalidArgument, match="needs where"):
        b.advise(p, 1 << 20, "preferred_location")

    attrs = b.range_attributes(p, 1 << 20)
    assert attrs == {"read_mostly": True, "preferred_location": gpu(0),
                     "last_prefetch_location": CPU, "accessed_by": [gpu(0), CPU]}
    sizes = {a[1].name: a[0] for a in log.called("cudaMemRangeGetAttribute")}
    assert sizes == {"cudaMemRangeAttributeReadMostly": 4,
                     "cudaMemRangeAttributePreferredLocation": 4,
                     "cudaMemRangeAttributeLastPrefetchLocation": 4,
                     "cudaMemRangeAttributeAccessedBy": 4 * 3}  # 2 GPUs + the CPU

    caps = b.capabilities(0)
    assert caps["managed_memory"] and caps["concurrent_managed_access"]
    assert caps["hmm"] is True and caps["ats"] is False
    v = b.versions()
    assert v["driver"] == "13.0" and v["runtime_raw"] == 13000 and v["backend"] == "cuda"

    s = b.stream_create(0)
    e0, e1 = b.event_create(), b.event_create()
    b.event_record(e0, s)
    b.memcpy(dev, p, 4096, s)
    b.event_record(e1, s)
    assert b.event_elapsed_ms(e0, e1) == 2.5
    b.synchronize(s)
    b.synchronize(e1)
    b.synchronize()
    assert log.called("cudaMemcpyAsync")[0][3] == rt.cudaMemcpyKind.cudaMemcpyDefault
    assert int(log.called("cudaStreamSynchronize")[0][0]) == 0x5000
    b.stream_destroy(s)
    for q in (p, dev):
        b.free(q)
    b.free(pin, "pinned")
    assert [a[0] for a in log.called("cudaFree")] == [p, dev]
    assert log.called("cudaFreeHost") == [(pin,)]


def test_cuda_oversubscription_guard_refuses_before_allocating(cuda_backend, monkeypatch):
    b, log = cuda_backend, cuda_backend.rt.rt
    with pytest.raises(OutOfMemory) as ei:
        b.malloc(9 << 30, "managed", 0)          # free is 8 GiB
    msg = str(ei.value)
    assert "up to 100x" in msg and "unresponsive" not in msg and "hang" not in msg
    assert "allow_oversubscription(True)" in msg
    assert "UMKIT_ALLOW_OVERSUBSCRIPTION=1" in msg
    assert log.called("cudaMallocManaged") == []
    b.malloc(9 << 30, "device", 0)               # the guard is for managed memory only
    monkeypatch.setenv("UMKIT_ALLOW_OVERSUBSCRIPTION", "1")
    b.malloc(9 << 30, "managed", 0)
    monkeypatch.delenv("UMKIT_ALLOW_OVERSUBSCRIPTION")
    b.allow_oversubscription = True               # what umkit.allow_oversubscription sets
    b.malloc(9 << 30, "managed", 0)
    assert len(log.called("cudaMallocManaged")) == 2


def test_cuda_errors_become_backend_errors(cuda_backend):
    from umkit.backends.gpu import RuntimeOutOfMemory
    b = cuda_backend
    with pytest.raises(RuntimeOutOfMemory) as ei:
        b.malloc(3 << 30, "device", 0)           # canned: cudaErrorMemoryAllocation
    err = ei.value
    assert isinstance(err, BackendError) and isinstance(err, OutOfMemory)
    assert (err.call, err.code, err.name) == ("cudaMalloc", 2, "cudaErrorMemoryAllocation")
    # CuPy-style fields, not text to parse: what was asked, what the GPU had, which memory, where
    assert (err.requested, err.free, err.total, err.kind, err.device) == \
        (3 << 30, 8 << 30, 16 << 30, "device", 0)
    assert isinstance(err, MemoryError) and str(err).startswith(
        "Out of memory allocating 3,221,225,472 bytes of device memory on gpu0; "
        "8.00 GiB of 16.00 GiB free (cudaMalloc failed: cudaErrorMemoryAllocation (2)")
    assert err.hint                              # the article's hint from the error table
    with pytest.raises(RuntimeOutOfMemory) as ei:
        b.malloc(3 << 30, "pinned", 0)           # host memory: the GPU's free bytes don't apply
    assert (ei.value.call, ei.value.requested, ei.value.free, ei.value.kind) == \
        ("cudaHostAlloc", 3 << 30, None, "pinned")
    assert "bytes of pinned memory on host" in str(ei.value)
    b.allow_oversubscription = True              # past the guard, the runtime refuses
    with pytest.raises(RuntimeOutOfMemory) as ei:
        b.malloc(3 << 30, "managed", 1)
    assert (ei.value.call, ei.value.kind, ei.value.device) == ("cudaMallocManaged", "managed", 1)
    b.allow_oversubscription = False
    with pytest.raises(OutOfMemory) as ei:       # the guard's refusal has the same fields
        b.malloc(9 << 30, "managed", 0)
    assert (ei.value.requested, ei.value.free, ei.value.kind, ei.value.device) == \
        (9 << 30, 8 << 30, "managed", 0)
    import pickle
    back = pickle.loads(pickle.dumps(err))
    assert (type(back), back.requested, back.kind, str(back)) == \
        (type(err), err.requested, err.kind, str(err))
    p = b.malloc(1 << 20, "managed", 0)
    with pytest.raises(BackendError) as ei:
        b.prefetch(p, 12345, gpu(0))             # canned: cudaErrorInvalidValue
    assert (ei.value.call, ei.value.name, ei.value.code) == \
        ("cudaMemPrefetchAsync", "cudaErrorInvalidValue", 1)
    assert "invalid argument" in str(ei.value)


def test_not_managed_and_use_after_free(cuda_backend):
    from umkit.errors import NotManaged, UseAfterFree
    b = cuda_backend
    d = b.malloc(4096, "device", 0)
    with pytest.raises(NotManaged):
        b.prefetch(d, 4096, gpu(0))
    with pytest.raises(NotManaged):
        b.advise(d + 16, 16, "read_mostly")
    with pytest.raises(InvalidArgument, match="device memory"):
        b.host_view(d, 4096)
    b.free(d)
    with pytest.raises(UseAfterFree):
        b.free(d)
    m = b.malloc(4096, "managed", 0)
    b.free(m)
    with pytest.raises(UseAfterFree):
        b.range_attributes(m, 4096)


def test_freed_address_handed_to_another_allocator(cuda_backend):
    # 2x H200, GPU CI: PyTorch's allocator (umkit.torch's shim) got an address umkit had freed
    # earlier, and umkit.torch.is_managed() on that tensor was refused as a use after free
    from umkit.errors import UseAfterFree
    from cuda_fake import FOREIGN
    b = cuda_backend
    m = b.malloc(4096, "managed", 0)
    b.free(m)
    FOREIGN.add(m)                              # the driver now hands m to someone else
    try:
        attrs = b.range_attributes(m, 4096)     # not ours, live: the runtime answers
        assert attrs["read_mostly"] in (0, 1)
        b.prefetch(m, 4096, gpu(0))
        assert b.rt.rt.called("cudaPointerGetAttributes")
    finally:
        FOREIGN.discard(m)
    b.prefetch(m, 4096, gpu(0))                 # the stale record went: the runtime judges
    d = b.malloc(4096, "device", 0)
    b.free(d)
    with pytest.raises(UseAfterFree):           # nobody holds d: still a use after free
        b.free(d)
    with pytest.raises(InvalidArgument):
        b.malloc(0, "managed", 0)
    with pytest.raises(InvalidArgument):
        b.malloc(16, "shared", 0)


def test_calls_on_another_gpu_give_the_current_device_back(cuda_backend):
    # 2x H200, GPU CI: allocating on GPU 1 left GPU 1 current, and the next stream-less kernel
    # on a GPU 0 array ran on GPU 1 (cudaErrorIllegalAddress: GPU 0 memory, no peer access)
    from types import SimpleNamespace

    from umkit.backends.gpu import GpuStream
    from umkit.runtime.streams import kernel_stream
    b, log = cuda_backend, cuda_backend.rt.rt
    for call in (lambda: b.malloc(4096, "device", 1), lambda: b.malloc(4096, "managed", 1),
                 lambda: b.stream_create(1), lambda: b.event_create(1), lambda: b.mem_info(1)):
        call()
        assert log.called("cudaSetDevice")[-2:] == [(1,), (0,)]
    # and a kernel on an array of GPU 0 with no stream names GPU 0, not "the current device"
    s = kernel_stream(None, SimpleNamespace(device_id=0, backend=b))
    assert isinstance(s, GpuStream) and (s.handle, s.device) == (0, 0)
