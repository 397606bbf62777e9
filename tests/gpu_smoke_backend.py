"""End-to-end smoke test of the cuda backend on a real NVIDIA GPU.

Not collected by pytest (no test_ prefix).  Run it as a script on a machine with a GPU:

    cd <repo> && PYTHONPATH=. python3 tests/gpu_smoke_backend.py

It never asks for more managed memory than the GPU has free (the largest buffer is 64 MiB), and
checks that the oversubscription guard refuses free + 1 GiB without calling the runtime.
Exit status 0 when every check passed.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

from umkit.backends import registry as detect
from umkit.backends import gpu as gpumod
from umkit.backends.contract import CPU, gpu
from umkit.errors import BackendError, InvalidArgument, OutOfMemory, UseAfterFree

MiB = 1 << 20
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".ci"))
from gpu_checks import Checks  # noqa: E402

C = Checks()
check = C.checked


print("probe cuda:", detect.probe("cuda"))
print("probe hip: ", detect.probe("hip"))
print("choose:    ", detect.choose())
b = detect.create(os.environ.get("UMKIT_SMOKE_BACKEND", "cuda"))  # sim: dry run of the script
N = 64 * MiB
NF = N // 4
state: dict = {}


@check("device facts")
def _():
    n = b.device_count()
    assert n >= 1
    name = b.device_name(0)
    free, total = b.mem_info(0)
    assert 0 < free <= total
    caps = b.capabilities(0)
    assert caps["managed_memory"] is True
    assert caps["concurrent_managed_access"] is True
    v = b.versions()
    assert v["driver"] and v["runtime"] and v["cupy"] and v["bindings"]
    return json.dumps({"count": n, "name": name, "free_GiB": round(free / 2**30, 1),
                       "total_GiB": round(total / 2**30, 1), "caps": caps, "versions": v})


@check("managed 64 MiB: host write, prefetch gpu0, increment_kernel, read back")
def _():
    p = b.malloc(N, "managed", 0)
    state["p"] = p
    h = b.host_view(p, N).view(np.float32)
    assert h.shape == (NF,)
    h[:] = np.arange(NF, dtype=np.float32) % 1000
    s = b.stream_create(0)
    state["s"] = s
    b.prefetch(p, N, gpu(0), s)
    b.launch("increment_kernel", (NF + 255) // 256, 256, (p, NF), s)
    b.synchronize(s)
    want = np.arange(NF, dtype=np.float32) % 1000 + 1
    assert np.array_equal(h, want), (h[:5], want[:5])
    a = b.range_attributes(p, N)
    assert a["last_prefetch_location"] == gpu(0), a
    return f"ptr={p:#x} attrs={a}"


@check("advise read_mostly / preferred_location / accessed_by -> range_attributes")
def _():
    p = state["p"]
    seen = {}
    b.advise(p, N, "read_mostly", CPU, False)
    seen["read_mostly"] = a = b.range_attributes(p, N)
    assert a["read_mostly"] is True, a
    b.advise(p, N, "read_mostly", CPU, True)
    assert b.range_attributes(p, N)["read_mostly"] is False
    b.advise(p, N, "preferred_location", gpu(0))
    seen["preferred_gpu0"] = a = b.range_attributes(p, N)
    assert a["preferred_location"] == gpu(0), a
    b.advise(p, N, "preferred_location", CPU)
    seen["preferred_cpu"] = a = b.range_attributes(p, N)
    assert a["preferred_location"] == CPU, a
    b.advise(p, N, "preferred_location", CPU, unset=True)
    assert b.range_attributes(p, N)["preferred_location"] is None
    b.advise(p, N, "accessed_by", gpu(0))
    seen["accessed_by_gpu0"] = a = b.range_attributes(p, N)
    assert a["accessed_by"] == [gpu(0)], a
    b.advise(p, N, "accessed_by", CPU)
    seen["accessed_by_gpu0_cpu"] = a = b.range_attributes(p, N)
    assert set(a["accessed_by"]) == {gpu(0), CPU}, a
    b.advise(p, N, "accessed_by", gpu(0), unset=True)
    b.advise(p, N, "accessed_by", CPU, unset=True)
    assert b.range_attributes(p, N)["accessed_by"] == []
    try:
        b.advise(p, N, "coarse_grain", CPU, False)
    except InvalidArgument as e:
        assert "HIP-only" in str(e)
    else:
        raise AssertionError("coarse_grain accepted on CUDA")
    return json.dumps({k: {kk: str(vv) for kk, vv in v.items()} for k, v in seen.items()})


@check("prefetch to CPU, device_view (CuPy) agrees with host_view")
def _():
    import cupy as cp
    p = state["p"]
    b.prefetch(p, N, CPU, state["s"])
    b.synchronize(state["s"])
    a = b.range_attributes(p, N)
    assert a["last_prefetch_location"] == CPU, a
    h = b.host_view(p, N).view(np.float32)
    host_sum = float(h.astype(np.float64).sum())
    d = b.device_view(p, N, 0).view(cp.float32)
    dev_sum = float(d.astype(cp.float64).sum())
    assert d.device.id == 0
    assert host_sum == dev_sum, (host_sum, dev_sum)
    return f"sum={host_sum:.0f} attrs={a}"


@check("add_kernel, touch_kernel, fill_kernel")
def _():
    n = 1 << 20
    pa, pb, po = (b.malloc(4 * n, "managed", 0) for _ in range(3))
    sink = b.malloc(4096, "managed", 0)
    ha, hb, ho = (b.host_view(x, 4 * n).view(np.float32) for x in (pa, pb, po))
    ha[:] = np.arange(n, dtype=np.float32)
    hb[:] = 2.0
    b.launch("add_kernel", (n + 255) // 256, 256, (po, pa, pb, n), None)
    b.synchronize()
    assert np.array_equal(ho, ha + 2.0)
    hs = b.host_view(sink, 4).view(np.float32)
    hs[0] = 0
    stride = 1024
    b.launch("touch_kernel", 64, 256, (pa, n, stride, sink), None)
    b.synchronize()
    want = float(ha[::stride].astype(np.float64).sum())
    assert abs(float(hs[0]) - want) <= 1e-6 * want, (hs[0], want)
    b.launch("fill_kernel", 128, 256, (po, 7.5, n), None)
    b.synchronize()
    assert np.all(ho == 7.5)
    touched = float(hs[0])
    del ha, hb, ho, hs  # views over memory about to be freed: reading them after free crashes
    for x in (pa, pb, po, sink):
        b.free(x, "managed")
    return f"touch sum={touched:.0f}"


@check("pinned + device allocations, memcpy both ways")
def _():
    n = 8 * MiB
    pin = b.malloc(n, "pinned", 0)
    pin2 = b.malloc(n, "pinned", 0)
    dev = b.malloc(n, "device", 0)
    src = b.host_view(pin, n)
    # finite floats only: random bytes hold NaNs, whose payload the GPU's x + 1 does not keep
    src.view(np.float32)[:] = np.random.default_rng(0).integers(0, 1 << 20, n // 4)
    s = state["s"]
    b.memcpy(dev, pin, n, s)
    b.launch("increment_kernel", (n // 4 + 255) // 256, 256, (dev, n // 4), s)
    b.memcpy(pin2, dev, n, s)
    b.synchronize(s)
    want = (src.view(np.float32) + 1).view(np.uint8)
    assert np.array_equal(b.host_view(pin2, n), want)
    try:
        b.host_view(dev, n)
    except InvalidArgument:
        pass
    else:
        raise AssertionError("host_view of device memory allowed")
    # the GPU reads mapped pinned memory directly (zero-copy)
    b.launch("increment_kernel", (n // 4 + 255) // 256, 256, (pin2, n // 4), s)
    b.synchronize(s)
    assert np.array_equal(b.host_view(pin2, n).view(np.float32), src.view(np.float32) + 2)
    for x, kind in ((pin, "pinned"), (pin2, "pinned"), (dev, "device")):
        b.free(x, kind)
    return "ok"


@check("events time a kernel")
def _():
    p, s = state["p"], state["s"]
    e0, e1 = b.event_create(), b.event_create()
    b.prefetch(p, N, gpu(0), s)
    b.event_record(e0, s)
    for _ in range(10):
        b.launch("fill_kernel", 1024, 256, (p, 1.0, NF), s)
    b.event_record(e1, s)
    ms = b.event_elapsed_ms(e0, e1)
    b.synchronize(e1)
    assert 0 < ms < 10_000, ms
    gbps = 10 * N / (ms / 1e3) / 1e9
    b.event_destroy(e0)
    b.event_destroy(e1)
    return f"10 fills of 64 MiB: {ms:.3f} ms ({gbps:.0f} GB/s written)"


@check("oversubscription guard refuses free + 1 GiB without calling the runtime")
def _():
    calls = []
    real_call = b.rt.call

    def spy(name, *args):
        calls.append(name)
        return real_call(name, *args)

    b.rt.call = spy
    try:
        free, _ = b.mem_info(0)
        ask = free + (1 << 30)
        gpumod.allow_oversubscription(False)
        os.environ.pop(gpumod.ENV_ALLOW_OVERSUBSCRIPTION, None)
        try:
            b.malloc(ask, "managed", 0)
        except OutOfMemory as e:
            msg = str(e)
        else:
            raise AssertionError("guard did not refuse")
    finally:
        b.rt.call = real_call
    assert "cudaMallocManaged" not in calls, calls
    assert "allow_oversubscription(True)" in msg and "UMKIT_ALLOW_OVERSUBSCRIPTION=1" in msg
    return f"asked {ask / 2**30:.1f} GiB; calls made: {calls}; message: {msg[:120]}..."


@check("runtime errors become BackendError with call, code and name")
def _():
    out = []
    try:
        b.rt.call("cudaSetDevice", 999)
    except BackendError as e:
        assert (e.call, e.name, e.code) == ("cudaSetDevice", "cudaErrorInvalidDevice", 101), e
        out.append(str(e))
    else:
        raise AssertionError("cudaSetDevice(999) succeeded")
    try:
        b.malloc(1 << 50, "device", 0)  # 1 PiB of plain device memory: refused, not hung
    except OutOfMemory as e:
        assert isinstance(e, BackendError)
        assert (e.call, e.name, e.code) == ("cudaMalloc", "cudaErrorMemoryAllocation", 2), e
        out.append(str(e))
    else:
        raise AssertionError("1 PiB cudaMalloc succeeded")
    b.synchronize()  # the context is still fine afterwards
    return " | ".join(x.splitlines()[0] for x in out)


@check("free, double free")
def _():
    p = state.pop("p")
    b.stream_destroy(state.pop("s"))
    b.free(p, "managed")
    try:
        b.free(p, "managed")
    except UseAfterFree:
        pass
    else:
        raise AssertionError("double free not caught")
    free, total = b.mem_info(0)
    return f"free after: {free / 2**30:.1f} GiB"


out = os.environ.get("OUT")
if out:
    with open(os.path.join(out, "gpu_smoke_backend.json"), "w") as f:
        json.dump(C.rows(limit=100_000, key="check"), f, indent=1)
sys.exit(C.finish("gpu smoke"))
