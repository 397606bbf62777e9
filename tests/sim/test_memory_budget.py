"""VRAM is a budget: a device allocation evicts managed pages to make room (CUDA: UVM's PMA
eviction callbacks; AMD: TTM evicts SVM buffer objects), and OutOfMemory comes only when device
allocations alone would exceed VRAM.  Managed pages never push residency past VRAM either."""
from __future__ import annotations

import numpy as np
import pytest

import umkit
from umkit.errors import OutOfMemory

MiB = 1 << 20
F32 = 4


@pytest.fixture(autouse=True)
def _no_env_backend(monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)


def gpu_resident(b) -> int:
    return b.engine.gpu_resident_bytes(0)


def managed_on_gpu(nbytes, value=1.0):
    a = umkit.managed(nbytes // F32)
    a.host[:] = value
    a.prefetch("gpu")
    umkit.synchronize()
    return a


def test_device_allocation_evicts_managed_pages_to_make_room():
    b = umkit.use("sim", vram=16 * MiB)
    m = managed_on_gpu(14 * MiB, 3.0)
    assert gpu_resident(b) == 14 * MiB
    umkit.reset_counters()
    t0 = umkit.now()
    d = umkit.device_array(8 * MiB // F32)               # needs 8 MiB; only 2 MiB free
    c = umkit.counters()
    assert c["evictions"] >= 1
    assert c["bytes_d2h"] == c["evicted_bytes"] >= 6 * MiB
    assert gpu_resident(b) <= 16 * MiB                   # never more than VRAM
    assert umkit.now() - t0 >= 6 * MiB / b.profile.prefetch_d2h_bw   # eviction takes time
    np.testing.assert_array_equal(m.host, 3.0)           # evicted pages keep their data
    free, total = umkit.mem_info()
    assert total == 16 * MiB and free == total - gpu_resident(b)
    d.free()


def test_out_of_memory_only_when_device_allocations_alone_exceed_vram():
    umkit.use("sim", vram=16 * MiB)
    managed_on_gpu(12 * MiB)
    d1 = umkit.device_array(10 * MiB // F32)             # fits: managed pages move out
    with pytest.raises(OutOfMemory, match="exceeds the simulated VRAM") as e:
        umkit.device_array(8 * MiB // F32)               # 10 + 8 MiB of device memory > 16
    err = e.value
    assert (err.requested, err.free, err.total, err.device, err.kind) == (8 * MiB, 6 * MiB, 16 * MiB,
                                                                      0, "device")
    assert "managed memory" in err.hint
    d1.free()
    umkit.device_array(8 * MiB // F32)                   # after the free it fits


def test_pinned_memory_is_host_memory_and_takes_no_vram():
    b = umkit.use("sim", vram=16 * MiB)
    p = umkit.pinned(32 * MiB // F32)                    # twice VRAM: pinned is host RAM
    d = umkit.device_array(12 * MiB // F32)
    assert gpu_resident(b) == 12 * MiB
    p.free(), d.free()


def test_managed_faults_never_push_residency_past_vram():
    """Device memory fills most of VRAM; a kernel touching more managed memory than is left
    keeps residency within VRAM: the pages that don't fit stay on the CPU and are read over
    the link (AMD: svm_range_restore_pages falls back to system memory)."""
    b = umkit.use("sim", vram=16 * MiB)
    d = umkit.device_array(14 * MiB // F32)              # 2 MiB of VRAM left
    m = umkit.managed(8 * MiB // F32)
    m.host[:] = 2.0
    umkit.synchronize()
    umkit.reset_counters()
    umkit.increment(m)
    umkit.synchronize()
    assert gpu_resident(b) <= 16 * MiB
    c = umkit.counters()
    assert c["remote_bytes"] > 0                         # the rest was read in place
    np.testing.assert_array_equal(m.host, 3.0)           # and the result is right
    umkit.prefetch(m, "gpu")
    umkit.synchronize()
    assert gpu_resident(b) <= 16 * MiB                   # a prefetch can't overfill either
    d.free()
