"""Interop without a GPU: the DLPack exporter (checked with NumPy and, where installed, a CPU
PyTorch), the device-type choice for each memory kind, the CUPTI record tally, the counter
fidelity rows, and umkit.torch's parts that need no GPU (the allocator shim compiles)."""
from __future__ import annotations

import ctypes
import gc
import shutil

import numpy as np
import pytest

import umkit
from umkit.backends.counters import cupti
from umkit.errors import DLPackUnsupported
from umkit.memory import dlpack


class Producer:
    """A stand-in producer exporting a NumPy buffer through umkit's exporter as kDLCPU."""

    def __init__(self, buf, shape):
        self.buf, self.shape = buf, shape

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        v = max_version is not None and tuple(max_version)[:1] >= (1,)
        return dlpack.capsule(self.buf, self.buf.ctypes.data, self.shape, self.buf.dtype,
                              (dlpack.kDLCPU, 0), versioned=v)

    def __dlpack_device__(self):
        return (dlpack.kDLCPU, 0)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint16", "int64", "complex64",
                                   "bool"])
def test_numpy_consumes_the_capsule_without_copy(dtype):
    buf = (np.arange(24) % 2 if dtype == "bool" else np.arange(24)).astype(dtype)
    before = dlpack.live_count()
    x = np.from_dlpack(Producer(buf, (2, 3, 4)))
    assert x.shape == (2, 3, 4) and x.dtype == buf.dtype
    assert x.ctypes.data == buf.ctypes.data                  # same bytes
    np.testing.assert_array_equal(x.reshape(-1), buf)
    assert dlpack.live_count() == before + 1
    del x
    gc.collect()
    assert dlpack.live_count() == before                     # the consumer's deleter ran


def test_unconsumed_capsule_releases_its_owner():
    buf = np.zeros(8, np.float32)
    before = dlpack.live_count()
    for versioned in (False, True):
        c = dlpack.capsule(buf, buf.ctypes.data, (8,), buf.dtype, (1, 0), versioned=versioned)
        assert dlpack.live_count() == before + 1
        del c
        gc.collect()
        assert dlpack.live_count() == before


def test_torch_cpu_consumes_the_capsule():
    torch = pytest.importorskip("torch", reason="PyTorch not installed (CI does not need it)")
    buf = np.arange(12, dtype=np.float32)
    t = torch.from_dlpack(Producer(buf, (3, 4)))
    assert t.data_ptr() == buf.ctypes.data and tuple(t.shape) == (3, 4)
    t[0, 0] = 42.0
    assert buf[0] == 42.0                                    # no copy: one set of bytes


def test_choose_device_defaults_and_requests():
    c = dlpack.choose_device
    assert c("managed", "cuda", 1) == (dlpack.kDLCUDA, 1)          # torch refuses 13
    assert c("device", "cuda", 0) == (dlpack.kDLCUDA, 0)
    assert c("pinned", "cuda", 0) == (dlpack.kDLCUDAHost, 0)
    assert c("managed", "hip", 0) == (dlpack.kDLROCM, 0)
    assert c("pinned", "hip", 0) == (dlpack.kDLROCMHost, 0)
    assert c("managed", "cuda", 0, (13, 0)) == (13, 0)              # honoured on request
    assert c("managed", "cuda", 0, (1, 0)) == (1, 0)                # host view, no copy
    assert c("pinned", "cuda", 0, (1, 0)) == (1, 0)
    for kind, vendor, req in (("device", "cuda", (1, 0)), ("managed", "hip", (13, 0)),
                              ("managed", "cuda", (2, 1)), ("device", "cuda", (13, 0))):
        with pytest.raises(DLPackUnsupported) as e:
            c(kind, vendor, 0, req)
        assert isinstance(e.value, BufferError) and e.value.hint
    with pytest.raises(DLPackUnsupported):
        c("managed", "cuda", 0, "cuda")


def test_bad_dtype_has_no_dlpack_type():
    with pytest.raises(DLPackUnsupported):
        dlpack.dtype_code(np.dtype("datetime64[s]"))


def test_sim_arrays_keep_the_numpy_twin_interop():
    umkit.use("sim", quiet=True)
    a = umkit.managed(16)
    a.host[:] = 3
    x = np.from_dlpack(a)
    assert x.shape == (16,) and float(x.sum()) == 48.0
    with pytest.raises(AttributeError):
        a.__cuda_array_interface__                          # sim has no GPU pointer to offer


# -- CUPTI records -> umkit keys -------------------------------------------------------------------
def test_tally_maps_every_counter_kind():
    t = cupti.Tally()
    t.add("BYTES_TRANSFER_HTOD", 65536, "COHERENCE")        # fault-driven
    t.add("BYTES_TRANSFER_HTOD", 2 << 20, "USER")            # cudaMemPrefetchAsync
    t.add("BYTES_TRANSFER_HTOD", 1 << 20, "PREFETCH")        # the driver's speculation
    t.add("BYTES_TRANSFER_DTOH", 4096, "COHERENCE")
    t.add("BYTES_TRANSFER_DTOH", 8192, "USER")
    t.add("BYTES_TRANSFER_DTOH", 1 << 21, "EVICTION")
    t.add("BYTES_TRANSFER_DTOD", 100)
    t.add("CPU_PAGE_FAULT_COUNT", 0x401000)                  # value is a PC: counted once
    t.add("CPU_PAGE_FAULT_COUNT", 0x401008)
    t.add("GPU_PAGE_FAULT", 3)
    t.add("THRASHING", 4096)
    t.add("THROTTLING", 0)
    t.add("REMOTE_MAP", 65536)
    t.add("SOMETHING_NEW", 7)                                # unknown kinds are ignored
    want = dict.fromkeys(cupti.KEYS, 0)
    want.update(bytes_h2d=65536 + (2 << 20) + (1 << 20), prefetch_bytes_h2d=2 << 20,
                prefetcher_bytes=1 << 20, bytes_d2h=4096 + 8192 + (1 << 21),
                prefetch_bytes_d2h=8192, evicted_bytes=1 << 21, bytes_peer=100, cpu_faults=2,
                gpu_faults=1, gpu_fault_groups=3, thrashing=1, thrashing_bytes=4096,
                throttling=1, remote_maps=1, remote_map_bytes=65536, fault_bytes_h2d=65536)
    assert t.totals == want and t.records == 14
    t.reset()
    assert t.totals == dict.fromkeys(cupti.KEYS, 0)


def test_incomplete_flags_fault_bytes_without_fault_records():
    # the H200's lost records (counters-diag): bytes moved by GPU faults, no GPU-fault record
    lost = {"bytes_h2d": 227811328, "fault_bytes_h2d": 17 << 20, "prefetcher_bytes": 210518016}
    why = cupti.incomplete(lost)
    assert why and "17 MiB" in why and "128 MiB" in why
    # fault records present but over 128 MiB moved by faults: may be short (2x H200: a 512 MiB
    # read came back as 382 MiB with 97 fault records)
    part = {"gpu_faults": 97, "bytes_h2d": 400867328, "fault_bytes_h2d": 31514624,
            "prefetcher_bytes": 369352704}
    assert "382 MiB" in cupti.incomplete(part) and "may be too low" in cupti.incomplete(part)
    whole = {"gpu_faults": 34, "bytes_h2d": 64 << 20, "fault_bytes_h2d": 6074368,
             "prefetcher_bytes": 61034496}                              # run 20's 64 MiB read
    assert cupti.incomplete(whole) is None
    assert cupti.incomplete({"bytes_h2d": 1 << 28, "prefetch_bytes_h2d": 1 << 28}) is None
    assert cupti.incomplete({}) is None                                 # sim keys, nothing moved


def test_cupti_keys_are_sims_where_they_mean_the_same():
    from umkit.sim.engine import COUNTERS
    shared = {"gpu_faults", "cpu_faults", "bytes_h2d", "bytes_d2h", "bytes_peer",
              "prefetch_bytes_h2d", "prefetch_bytes_d2h", "prefetcher_bytes", "evicted_bytes"}
    assert shared <= set(COUNTERS) and shared <= set(cupti.KEYS)


def test_collector_buffer_callback_sums_records_and_never_raises():
    col = cupti.CuptiCollector()
    col.um_kind = 99
    col.counter_names = {1: "BYTES_TRANSFER_HTOD", 4: "GPU_PAGE_FAULT"}

    class Rec:
        def __init__(self, kind, ck, v, flags=0):       # cupti-python 13 spells it flags_
            self.kind, self.counter_kind, self.value, self.flags_ = kind, ck, v, flags
    col.buffer_completed([Rec(99, 1, 4096, 1), Rec(99, 4, 2), Rec(5, 1, 10**9), Rec(99, 77, 1)])
    assert col.tally.totals["bytes_h2d"] == 4096 and col.tally.totals["prefetch_bytes_h2d"] == 4096
    assert col.tally.totals["gpu_faults"] == 1
    class Broken:
        kind = 99                                        # no counter_kind: malformed
    col.buffer_completed([Broken()])                    # recorded, not raised
    assert col.error
    assert col.read() == {}                             # off: nothing to read
    assert col.buffer_requested() == (cupti.BUFFER_BYTES, 0)


def test_counters_on_without_cupti_says_why():
    ok, why = cupti.available()
    if ok:
        pytest.skip("cupti-python is installed here")
    assert "cupti" in why.lower() and cupti.INSTALL_HINT.split()[0] in str(
        pytest.raises(umkit.BackendUnavailable, cupti.COLLECTOR.start).value.hint)


def test_fidelity_rows_on_sim_against_itself():
    from umkit.measure import fidelity
    umkit.use("sim", quiet=True)
    seq = fidelity.sequence(8 << 20)
    assert seq["gpu_read"]["bytes_h2d"] == 8 << 20
    assert seq["prefetch_to_cpu"]["prefetch_bytes_d2h"] == 8 << 20
    assert seq["cpu_read_strided"]["cpu_faults"] > 0
    assert "incomplete" not in seq                     # sim loses nothing
    assert fidelity.sequence.__defaults__ == (fidelity.COUNTED_BYTES,)
    rows = fidelity.counter_fidelity(seq, seq)
    assert rows and all(r["ratio"] == 1.0 for r in rows)
    assert all(r["within"] for r in rows if r["key"] in fidelity.BYTE_KEYS)
    half = {p: {k: v // 2 for k, v in d.items()} for p, d in seq.items()}
    assert not any(r["within"] for r in fidelity.counter_fidelity(half, seq)
                   if r["within"] is not None)
    c = fidelity.compare_counters()
    assert c == {"available": False, "why": "the active backend is sim (nothing to compare with)"}
    assert "not compared" in fidelity.table(c)


# -- umkit.torch without a GPU ------------------------------------------------------------------------
@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                    reason="no C compiler here")
def test_allocator_shim_compiles_and_exports_its_functions(tmp_path, monkeypatch):
    import umkit.interop.torch as ut
    monkeypatch.setenv("UMKIT_CACHE", str(tmp_path))
    p = ut.shim_path()
    assert p.parent == tmp_path and p.is_file()
    lib = ctypes.CDLL(str(p))
    for f in (ut.ALLOC, ut.FREE, "umkit_managed_stats"):
        assert hasattr(lib, f)
    assert ut.shim_path() == p                            # cached: same file, not rebuilt
    assert ut.shim_stats() == {"allocs": 0, "frees": 0, "bytes_live": 0}
    alloc = lib.umkit_managed_alloc
    alloc.restype, alloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
    assert alloc(0, 0, None) is None                      # size 0 -> NULL, never a crash


def test_umkit_torch_says_plainly_what_it_needs():
    torch = pytest.importorskip("torch", reason="PyTorch not installed (CI does not need it)")
    import umkit.interop.torch as ut
    umkit.use("sim", quiet=True)
    with pytest.raises(umkit.InvalidArgument):
        ut.prefetch(torch.zeros(4))                       # CPU tensor
    with pytest.raises(umkit.InvalidType):
        ut.tensors(3)
    m = torch.nn.Linear(4, 4)
    assert len(ut.tensors(m)) == 2
    assert ut.storage_ranges(m) == []                      # CPU module: nothing on the GPU
    if not torch.cuda.is_available():
        with pytest.raises(umkit.BackendUnavailable):
            with ut.managed():
                pass
    a = umkit.managed(8)
    a.host[:] = 2
    t = ut.as_tensor(a)                                   # sim: the host view, same bytes
    t += 1
    assert float(a.host.sum()) == 24.0


def test_umkit_torch_is_the_torch_helper_module():
    import umkit.interop.torch as ut
    assert umkit.torch is ut and hasattr(ut, "managed_allocator")
