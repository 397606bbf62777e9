#!/usr/bin/env python3
"""Unified-memory microbenchmarks for one NVIDIA GPU (written for the H200).

Standalone: needs numpy, cupy (RawKernel only) and cuda-bindings >= 13
(``from cuda.bindings import runtime as cudart``).  It does not import umkit.

What it measures (each a median of >= 5 repeats after a warm-up, CUDA events
unless it says "wall"):
  pinned H2D/D2H copies, managed prefetch H2D/D2H, fault-driven GPU reads
  (contiguous and one float per 4 KiB / 64 KiB / 2 MiB), CPU-fault reads,
  zero-copy reads (mapped pinned, managed + AccessedBy/PreferredLocation=host),
  read-mostly, device-resident bandwidth, allocation cost, launch latency,
  synchronisation cost, a GPU/CPU ping-pong, and the device attributes.

Safety: checks cudaMemGetInfo first; every buffer <= 1 GiB and at most 4 GiB of
managed memory is live at once; it never changes clocks, power or modes.

Usage:  python3 benchmarks/investigations/h200_microbench.py [--out DIR]   (default: $OUT or .)
Writes DIR/microbench.json and prints a table last.
"""

from __future__ import annotations

import argparse
import ctypes
import datetime as _dt
import json
import os
import platform
import subprocess
import sys
import time
import traceback

import numpy as np

T_START = time.perf_counter()
TIME_BUDGET_S = 200.0          # skip what is left after this (whole run must stay < 4 min)
MiB = 1 << 20
GiB = 1 << 30
SIZE = 256 * MiB               # the standard buffer
MAX_BUF = 1 * GiB
MAX_MANAGED = 4 * GiB
REPS = 7

try:
    from cuda.bindings import runtime as cudart
    import cuda.bindings as _cb
    CB_VERSION = getattr(_cb, "__version__", "?")
except Exception as e:  # pragma: no cover - reported in the JSON
    cudart = None
    CB_VERSION = f"import failed: {e!r}"

try:
    import cupy as cp
    CUPY_VERSION = cp.__version__
except Exception as e:  # pragma: no cover
    cp = None
    CUPY_VERSION = f"import failed: {e!r}"


# ----------------------------------------------------------------------------
# CUDA helpers
# ----------------------------------------------------------------------------
class CudaError(RuntimeError):
    pass


def ck(res, what=""):
    """Check a cuda-bindings result tuple (err, *values); return the values."""
    if isinstance(res, tuple):
        err, vals = res[0], res[1:]
    else:
        err, vals = res, ()
    if err != cudart.cudaError_t.cudaSuccess:
        try:
            name = cudart.cudaGetErrorName(err)[1].decode()
        except Exception:
            name = str(err)
        raise CudaError(f"{what}: {name} ({int(err)})")
    if len(vals) == 0:
        return None
    if len(vals) == 1:
        return vals[0]
    return vals


def loc_device(dev=0):
    loc = cudart.cudaMemLocation()
    loc.type = cudart.cudaMemLocationType.cudaMemLocationTypeDevice
    loc.id = dev
    return loc


def loc_host():
    loc = cudart.cudaMemLocation()
    loc.type = cudart.cudaMemLocationType.cudaMemLocationTypeHost
    loc.id = 0
    return loc


def prefetch(ptr, n, loc, stream=0):
    ck(cudart.cudaMemPrefetchAsync(ptr, n, loc, 0, stream), "cudaMemPrefetchAsync")


def advise(ptr, n, advice, loc):
    ck(cudart.cudaMemAdvise(ptr, n, advice, loc), f"cudaMemAdvise({advice})")


def range_attr(ptr, n, attr):
    """Query a 4-byte range attribute; never raises (returns the error text instead)."""
    try:
        return ck(cudart.cudaMemRangeGetAttribute(4, attr, ptr, n), f"cudaMemRangeGetAttribute({attr})")
    except Exception as e:
        return f"error: {e}"


def dsync():
    ck(cudart.cudaDeviceSynchronize(), "cudaDeviceSynchronize")


_managed_live = {}


def malloc_managed(n):
    assert n <= MAX_BUF, "buffer over 1 GiB"
    if sum(_managed_live.values()) + n > MAX_MANAGED:
        raise RuntimeError("refusing: would exceed 4 GiB of managed memory")
    ptr = ck(cudart.cudaMallocManaged(n, cudart.cudaMemAttachGlobal), "cudaMallocManaged")
    _managed_live[ptr] = n
    return ptr


def free_managed(ptr):
    ck(cudart.cudaFree(ptr), "cudaFree(managed)")
    _managed_live.pop(ptr, None)


def host_view(ptr, n, dtype=np.uint8):
    """NumPy view of n bytes at ptr (does not touch the memory)."""
    buf = (ctypes.c_uint8 * n).from_address(ptr)
    return np.frombuffer(buf, dtype=np.uint8).view(dtype)


class Events:
    """A pair of CUDA events on the legacy default stream (the one CuPy launches on)."""

    def __init__(self):
        self.a = ck(cudart.cudaEventCreate(), "cudaEventCreate")
        self.b = ck(cudart.cudaEventCreate(), "cudaEventCreate")

    def time_ms(self, fn):
        ck(cudart.cudaEventRecord(self.a, 0), "cudaEventRecord")
        fn()
        ck(cudart.cudaEventRecord(self.b, 0), "cudaEventRecord")
        ck(cudart.cudaEventSynchronize(self.b), "cudaEventSynchronize")
        return float(ck(cudart.cudaEventElapsedTime(self.a, self.b), "cudaEventElapsedTime"))


def med(xs):
    return float(np.median(np.asarray(xs, dtype=float)))


def gbps(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9 if ms > 0 else float("nan")


# ----------------------------------------------------------------------------
# Kernels (CuPy RawKernel; pointers passed as 64-bit integers)
# ----------------------------------------------------------------------------
KSRC = r"""
extern "C" __global__ void read_f4(const unsigned long long p, const unsigned long long n4,
                                   float* __restrict__ out) {
    const float4* a = (const float4*)p;
    float acc = 0.f;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
         i < n4; i += (unsigned long long)gridDim.x * blockDim.x) {
        float4 v = a[i];
        acc += (v.x + v.y) + (v.z + v.w);
    }
    __shared__ float s[256];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
extern "C" __global__ void touch(const unsigned long long p, const unsigned long long ntouch,
                                 const unsigned long long stride_floats, float* __restrict__ out) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < ntouch) out[i] = ((const float*)p)[i * stride_floats];
}
extern "C" __global__ void inc_f4(const unsigned long long p, const unsigned long long n4) {
    float4* a = (float4*)p;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
         i < n4; i += (unsigned long long)gridDim.x * blockDim.x) {
        float4 v = a[i];
        v.x += 1.f; v.y += 1.f; v.z += 1.f; v.w += 1.f;
        a[i] = v;
    }
}
extern "C" __global__ void empty_k() {}
"""

K = {}
GRID = 132 * 16
BLOCK = 256
_out = None


def kernels():
    global _out, GRID
    if not K:
        mod = cp.RawModule(code=KSRC)
        for name in ("read_f4", "touch", "inc_f4", "empty_k"):
            K[name] = mod.get_function(name)
        sms = ck(cudart.cudaDeviceGetAttribute(cudart.cudaDeviceAttr.cudaDevAttrMultiProcessorCount, 0))
        GRID = int(sms) * 16
        _out = cp.zeros(max(GRID, SIZE // (4 * 1024)), dtype=cp.float32)
    return K


def k_read(ptr, nbytes):
    kernels()["read_f4"]((GRID,), (BLOCK,), (np.uint64(ptr), np.uint64(nbytes // 16), _out))


def k_read_sum():
    return float(cp.asnumpy(_out[:GRID]).astype(np.float64).sum())


def k_touch(ptr, nbytes, stride):
    nt = nbytes // stride
    kernels()["touch"](((nt + BLOCK - 1) // BLOCK,), (BLOCK,),
                       (np.uint64(ptr), np.uint64(nt), np.uint64(stride // 4), _out))
    return nt


def k_inc(ptr, nbytes):
    kernels()["inc_f4"]((GRID,), (BLOCK,), (np.uint64(ptr), np.uint64(nbytes // 16)))


def k_empty():
    kernels()["empty_k"]((1,), (1,), ())


# ----------------------------------------------------------------------------
# Benchmark sections
# ----------------------------------------------------------------------------
FILL = 1.5  # never time on zeros


def cpu_fill(ptr, n, value=FILL):
    host_view(ptr, n, np.float32)[:] = value


def sec_env():
    r = {}
    r["date_utc"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    r["python"] = sys.version.split()[0]
    r["numpy"] = np.__version__
    r["cupy"] = CUPY_VERSION
    r["cuda_bindings"] = CB_VERSION
    r["platform"] = platform.platform()
    r["host_page_size"] = os.sysconf("SC_PAGE_SIZE")

    def sh(cmd):
        try:
            return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=30).stdout.strip()
        except Exception as e:
            return f"failed: {e!r}"

    r["lscpu"] = sh("lscpu")
    r["cpu_model"] = sh("lscpu | grep -i 'model name' | head -1 | sed 's/.*: *//'")
    r["nproc"] = os.cpu_count()
    r["meminfo"] = sh("grep -E 'MemTotal|MemFree|MemAvailable|HugePages_Total|Hugepagesize' /proc/meminfo")
    r["thp_enabled"] = sh("cat /sys/kernel/mm/transparent_hugepage/enabled")
    r["nvidia_smi_query"] = sh(
        "nvidia-smi --query-gpu=name,driver_version,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,"
        "pcie.link.width.current,pcie.link.width.max,clocks.sm,clocks.mem,clocks.max.sm,power.draw,"
        "power.limit,temperature.gpu,memory.total,memory.used,compute_mode,persistence_mode "
        "--format=csv")
    r["nvidia_smi_link"] = sh("nvidia-smi -q | grep -i -A3 'Link'")
    r["nvidia_smi_topo"] = sh("nvidia-smi topo -m")
    r["nvidia_smi_bar1"] = sh("nvidia-smi -q | grep -i -A3 'BAR1'")
    r["nvidia_smi_addressing"] = sh("nvidia-smi -q | grep -i -E 'Addressing Mode|Virtualization|Host VGPU'")
    return r


def sec_device():
    r = {}
    r["cuda_driver_version"] = ck(cudart.cudaDriverGetVersion())
    r["cuda_runtime_version"] = ck(cudart.cudaRuntimeGetVersion())
    r["device_count"] = ck(cudart.cudaGetDeviceCount())
    ck(cudart.cudaSetDevice(0), "cudaSetDevice")
    props = ck(cudart.cudaGetDeviceProperties(0))
    name = props.name
    r["name"] = name.split(b"\0")[0].decode() if isinstance(name, (bytes, bytearray)) else str(name)
    r["cc"] = f"{props.major}.{props.minor}"
    r["total_global_mem"] = int(props.totalGlobalMem)
    try:
        r["pci_bus_id"] = ck(cudart.cudaDeviceGetPCIBusId(32, 0)).split(b"\0")[0].decode()
    except Exception as e:
        r["pci_bus_id"] = f"error: {e}"
    free, total = ck(cudart.cudaMemGetInfo(), "cudaMemGetInfo")
    r["mem_free"], r["mem_total"] = int(free), int(total)
    attrs = {}
    for a in ["ConcurrentManagedAccess", "ManagedMemory", "PageableMemoryAccess",
              "PageableMemoryAccessUsesHostPageTables", "DirectManagedMemAccessFromHost",
              "CanMapHostMemory", "CanUseHostPointerForRegisteredMem", "HostNativeAtomicSupported",
              "UnifiedAddressing", "MultiProcessorCount", "L2CacheSize", "GlobalMemoryBusWidth",
              "MemoryClockRate", "ClockRate", "PciBusId", "PciDeviceId", "HostRegisterSupported",
              "ComputeMode", "HostNumaId", "GPUDirectRDMASupported"]:
        try:
            attrs[a] = int(ck(cudart.cudaDeviceGetAttribute(getattr(cudart.cudaDeviceAttr, "cudaDevAttr" + a), 0)))
        except Exception as e:
            attrs[a] = f"error: {e}"
    r["attributes"] = attrs
    return r


def sec_api():
    """First line of each docstring: the signatures this cuda-bindings build exposes."""
    r = {}
    for n in ["cudaMemPrefetchAsync", "cudaMemAdvise", "cudaMemRangeGetAttribute",
              "cudaHostGetDevicePointer", "cudaHostAlloc", "cudaMallocManaged", "cudaMallocHost",
              "cudaMemcpyAsync", "cudaEventElapsedTime", "cudaStreamSynchronize"]:
        f = getattr(cudart, n, None)
        r[n] = ((f.__doc__ or "").strip().splitlines() or ["(no docstring)"])[0] if f is not None else "missing"
    loc = cudart.cudaMemLocation()
    r["cudaMemLocation_fields"] = [x for x in dir(loc) if not x.startswith("_")]
    r["cudaMemLocationType"] = [x for x in dir(cudart.cudaMemLocationType) if x.startswith("cudaMem")]
    r["cudaMemRangeAttribute"] = [x for x in dir(cudart.cudaMemRangeAttribute) if x.startswith("cudaMem")]
    r["cudaCpuDeviceId"] = int(cudart.cudaCpuDeviceId)
    try:
        r["cupy_current_stream"] = repr(cp.cuda.get_current_stream())
    except Exception as e:
        r["cupy_current_stream"] = f"error: {e}"
    return r


def sec_cupy_prefetch_check():
    """Record what CuPy's own memPrefetchAsync / memAdvise do on this CUDA."""
    r = {}
    n = 2 * MiB
    ptr = malloc_managed(n)
    try:
        cpu_fill(ptr, n)
        for label, dev in (("to_device0", 0), ("to_host_-1", -1)):
            try:
                cp.cuda.runtime.memPrefetchAsync(ptr, n, dev, 0)
                cp.cuda.runtime.deviceSynchronize()
                r["memPrefetchAsync_" + label] = "ok"
            except Exception as e:
                r["memPrefetchAsync_" + label] = f"{type(e).__name__}: {e}"
        try:
            cp.cuda.runtime.memAdvise(ptr, n, 1, 0)  # 1 = SetReadMostly
            r["memAdvise_SetReadMostly"] = "ok"
        except Exception as e:
            r["memAdvise_SetReadMostly"] = f"{type(e).__name__}: {e}"
    finally:
        dsync()
        free_managed(ptr)
    return r


def sec_pinned_copy():
    r = {}
    ev = Events()
    h = ck(cudart.cudaMallocHost(SIZE), "cudaMallocHost")
    d = ck(cudart.cudaMalloc(SIZE), "cudaMalloc")
    try:
        host_view(h, SIZE, np.float32)[:] = FILL
        H2D = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
        D2H = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost
        for name, dst, src, kind in (("h2d", d, h, H2D), ("d2h", h, d, D2H)):
            fn = lambda: ck(cudart.cudaMemcpyAsync(dst, src, SIZE, kind, 0), "cudaMemcpyAsync")
            for _ in range(2):
                ev.time_ms(fn)
            ts = [ev.time_ms(fn) for _ in range(10)]
            r[name + "_ms"] = med(ts)
            r[name + "_GBps"] = gbps(SIZE, med(ts))
            r[name + "_GBps_max"] = gbps(SIZE, min(ts))
        r["bytes"] = SIZE
    finally:
        ck(cudart.cudaFreeHost(h), "cudaFreeHost")
        ck(cudart.cudaFree(d), "cudaFree")
    return r


def sec_prefetch():
    r = {}
    ev = Events()
    ptr = malloc_managed(SIZE)
    try:
        cpu_fill(ptr, SIZE)
        LP = cudart.cudaMemRangeAttribute.cudaMemRangeAttributeLastPrefetchLocation
        h2d, d2h = [], []
        for i in range(1 + REPS):  # first round trip is warm-up
            t1 = ev.time_ms(lambda: prefetch(ptr, SIZE, loc_device(0)))
            if i == 0:
                r["last_prefetch_location_after_h2d"] = repr(range_attr(ptr, SIZE, LP))
            t2 = ev.time_ms(lambda: prefetch(ptr, SIZE, loc_host()))
            if i == 0:
                r["last_prefetch_location_after_d2h"] = repr(range_attr(ptr, SIZE, LP))
                r["first_h2d_ms"], r["first_d2h_ms"] = t1, t2
            else:
                h2d.append(t1)
                d2h.append(t2)
        r["h2d_ms"], r["d2h_ms"] = med(h2d), med(d2h)
        r["h2d_GBps"], r["d2h_GBps"] = gbps(SIZE, med(h2d)), gbps(SIZE, med(d2h))
        r["h2d_all_ms"], r["d2h_all_ms"] = h2d, d2h
        # check data survived the round trips
        v = host_view(ptr, SIZE, np.float32)
        r["data_ok"] = bool(v[0] == FILL and v[-1] == FILL and v[len(v) // 2] == FILL)
        # fixed cost per prefetch call: small sizes
        for sz in (64 * 1024, 2 * MiB):
            a, b = [], []
            for i in range(1 + REPS):
                t1 = ev.time_ms(lambda: prefetch(ptr, sz, loc_device(0)))
                t2 = ev.time_ms(lambda: prefetch(ptr, sz, loc_host()))
                if i:
                    a.append(t1)
                    b.append(t2)
            r[f"h2d_{sz // 1024}KiB_us"] = med(a) * 1e3
            r[f"d2h_{sz // 1024}KiB_us"] = med(b) * 1e3
        # prefetch of pages already resident at the target (no-op cost)
        prefetch(ptr, SIZE, loc_device(0))
        dsync()
        r["h2d_already_resident_256MiB_us"] = med(
            [ev.time_ms(lambda: prefetch(ptr, SIZE, loc_device(0))) for _ in range(REPS)]) * 1e3
    finally:
        dsync()
        free_managed(ptr)
    return r


def sec_gpu_fault_read():
    """GPU kernel reads a managed buffer that the CPU wrote (resident on the host)."""
    r = {}
    ev = Events()
    kernels()
    ptr = malloc_managed(SIZE)
    try:
        cpu_fill(ptr, SIZE)
        variants = [("contiguous", None), ("stride_4KiB", 4096), ("stride_64KiB", 65536),
                    ("stride_2MiB", 2 * MiB)]
        for name, stride in variants:
            ts = []
            for i in range(1 + 5):
                prefetch(ptr, SIZE, loc_host())  # pages back to the CPU before each repeat
                dsync()
                if stride is None:
                    t = ev.time_ms(lambda: k_read(ptr, SIZE))
                    if i == 1:
                        s = k_read_sum()
                        r["contiguous_sum_ok"] = abs(s - FILL * SIZE / 4) < 1e-3 * FILL * SIZE / 4
                else:
                    t = ev.time_ms(lambda: k_touch(ptr, SIZE, stride))
                if i:
                    ts.append(t)
            m = med(ts)
            d = {"ms": m, "all_ms": ts, "eff_GBps_whole_buffer": gbps(SIZE, m)}
            if stride is not None:
                nt = SIZE // stride
                d["touches"] = nt
                d["us_per_touch"] = m * 1e3 / nt
            else:
                d["us_per_4KiB_page"] = m * 1e3 / (SIZE // 4096)
                d["us_per_64KiB"] = m * 1e3 / (SIZE // 65536)
                d["us_per_2MiB"] = m * 1e3 / (SIZE // (2 * MiB))
            r[name] = d
        # second read straight after a contiguous fault read: resident now (HBM speed)
        prefetch(ptr, SIZE, loc_host())
        dsync()
        ev.time_ms(lambda: k_read(ptr, SIZE))
        r["second_read_after_faults_ms"] = med([ev.time_ms(lambda: k_read(ptr, SIZE)) for _ in range(5)])
        r["bytes"] = SIZE
    finally:
        dsync()
        free_managed(ptr)
    return r


def _cpu_read_all(v64):
    t0 = time.perf_counter()
    s = int(v64.sum())
    return (time.perf_counter() - t0) * 1e3, s


def sec_cpu_fault_read():
    """Buffer resident on the GPU (prefetched), CPU reads it through a NumPy view."""
    r = {}
    ptr = malloc_managed(SIZE)
    try:
        cpu_fill(ptr, SIZE)
        v64 = host_view(ptr, SIZE, np.uint64)
        v8 = host_view(ptr, SIZE, np.uint8)
        full, resident = [], []
        for i in range(1 + 5):
            prefetch(ptr, SIZE, loc_device(0))
            dsync()
            t, _ = _cpu_read_all(v64)
            t2, _ = _cpu_read_all(v64)       # again: now host-resident
            if i:
                full.append(t)
                resident.append(t2)
        r["full_read_ms"] = med(full)
        r["full_read_GBps"] = gbps(SIZE, med(full))
        r["full_read_all_ms"] = full
        r["host_resident_read_ms"] = med(resident)
        r["host_resident_read_GBps"] = gbps(SIZE, med(resident))
        for stride in (4096, 65536, 2 * MiB):
            ts = []
            for i in range(1 + 5):
                prefetch(ptr, SIZE, loc_device(0))
                dsync()
                t0 = time.perf_counter()
                int(v8[::stride].sum())
                ts.append((time.perf_counter() - t0) * 1e3)
            ts = ts[1:]
            nt = SIZE // stride
            r[f"stride_{stride // 1024}KiB"] = {"ms": med(ts), "touches": nt,
                                                "us_per_touch": med(ts) * 1e3 / nt, "all_ms": ts}
        r["bytes"] = SIZE
    finally:
        dsync()
        free_managed(ptr)
    return r


def sec_zero_copy():
    r = {}
    ev = Events()
    kernels()
    # (a) mapped pinned host memory
    h = ck(cudart.cudaHostAlloc(SIZE, cudart.cudaHostAllocMapped), "cudaHostAlloc(Mapped)")
    try:
        host_view(h, SIZE, np.float32)[:] = FILL
        dptr = ck(cudart.cudaHostGetDevicePointer(h, 0), "cudaHostGetDevicePointer")
        r["pinned_dev_ptr_equals_host_ptr"] = bool(int(dptr) == int(h))
        for _ in range(2):
            ev.time_ms(lambda: k_read(dptr, SIZE))
        ts = [ev.time_ms(lambda: k_read(dptr, SIZE)) for _ in range(REPS)]
        r["pinned_mapped_read_ms"] = med(ts)
        r["pinned_mapped_read_GBps"] = gbps(SIZE, med(ts))
        r["pinned_sum_ok"] = abs(k_read_sum() - FILL * SIZE / 4) < 1e-3 * FILL * SIZE / 4
    finally:
        ck(cudart.cudaFreeHost(h), "cudaFreeHost")
    # (b) managed + SetPreferredLocation(host) + SetAccessedBy(device 0)
    ptr = malloc_managed(SIZE)
    try:
        cpu_fill(ptr, SIZE)
        advise(ptr, SIZE, cudart.cudaMemoryAdvise.cudaMemAdviseSetPreferredLocation, loc_host())
        advise(ptr, SIZE, cudart.cudaMemoryAdvise.cudaMemAdviseSetAccessedBy, loc_device(0))
        PL = cudart.cudaMemRangeAttribute.cudaMemRangeAttributePreferredLocation
        LP = cudart.cudaMemRangeAttribute.cudaMemRangeAttributeLastPrefetchLocation
        r["managed_preferred_location_attr"] = repr(range_attr(ptr, SIZE, PL))
        first = ev.time_ms(lambda: k_read(ptr, SIZE))
        ts = [ev.time_ms(lambda: k_read(ptr, SIZE)) for _ in range(REPS)]
        r["managed_remote_first_read_ms"] = first
        r["managed_remote_read_ms"] = med(ts)
        r["managed_remote_read_GBps"] = gbps(SIZE, med(ts))
        r["managed_remote_first_read_GBps"] = gbps(SIZE, first)
        r["managed_last_prefetch_location_attr"] = repr(range_attr(ptr, SIZE, LP))
        # did pages migrate?  a CPU read afterwards is fast (no faults) if they stayed on the host,
        # and repeated GPU reads would reach HBM speed if they had moved.
        t_cpu, _ = _cpu_read_all(host_view(ptr, SIZE, np.uint64))
        r["managed_cpu_read_after_gpu_reads_ms"] = t_cpu
        r["managed_pages_migrated_to_gpu"] = bool(med(ts) < first / 5 or gbps(SIZE, med(ts)) > 500)
    finally:
        dsync()
        free_managed(ptr)
    r["bytes"] = SIZE
    return r


def sec_read_mostly():
    r = {}
    ev = Events()
    kernels()
    ptr = malloc_managed(SIZE)
    try:
        cpu_fill(ptr, SIZE)
        advise(ptr, SIZE, cudart.cudaMemoryAdvise.cudaMemAdviseSetReadMostly, loc_device(0))
        RM = cudart.cudaMemRangeAttribute.cudaMemRangeAttributeReadMostly
        r["read_mostly_attr"] = repr(range_attr(ptr, SIZE, RM))
        v64 = host_view(ptr, SIZE, np.uint64)
        g1 = ev.time_ms(lambda: k_read(ptr, SIZE))
        c1, _ = _cpu_read_all(v64)
        g2 = ev.time_ms(lambda: k_read(ptr, SIZE))
        g3 = [ev.time_ms(lambda: k_read(ptr, SIZE)) for _ in range(5)]
        r["gpu_read1_ms"], r["gpu_read1_GBps"] = g1, gbps(SIZE, g1)
        r["cpu_read_ms"], r["cpu_read_GBps"] = c1, gbps(SIZE, c1)
        r["gpu_read2_ms"], r["gpu_read2_GBps"] = g2, gbps(SIZE, g2)
        r["gpu_read_more_median_ms"] = med(g3)
        r["sum_ok"] = abs(k_read_sum() - FILL * SIZE / 4) < 1e-3 * FILL * SIZE / 4
        # a CPU write invalidates the GPU copy: next GPU read faults again
        host_view(ptr, SIZE, np.float32)[:: 1024] = FILL
        r["gpu_read_after_cpu_write_ms"] = ev.time_ms(lambda: k_read(ptr, SIZE))
    finally:
        dsync()
        free_managed(ptr)
    r["bytes"] = SIZE
    return r


def sec_device_bw():
    r = {}
    ev = Events()
    kernels()
    for sz in (SIZE, 1 * GiB):
        d = ck(cudart.cudaMalloc(sz), "cudaMalloc")
        try:
            ck(cudart.cudaMemset(d, 0x3F, sz), "cudaMemset")  # 0x3F3F3F3F = 0.747f, not zero
            for _ in range(3):
                ev.time_ms(lambda: k_read(d, sz))
            ts = [ev.time_ms(lambda: k_read(d, sz)) for _ in range(10)]
            r[f"cudaMalloc_{sz // MiB}MiB_read_ms"] = med(ts)
            r[f"cudaMalloc_{sz // MiB}MiB_read_GBps"] = gbps(sz, med(ts))
        finally:
            ck(cudart.cudaFree(d), "cudaFree")
    ptr = malloc_managed(SIZE)
    try:
        cpu_fill(ptr, SIZE)
        prefetch(ptr, SIZE, loc_device(0))
        dsync()
        for _ in range(3):
            ev.time_ms(lambda: k_read(ptr, SIZE))
        ts = [ev.time_ms(lambda: k_read(ptr, SIZE)) for _ in range(10)]
        r["managed_prefetched_256MiB_read_ms"] = med(ts)
        r["managed_prefetched_256MiB_read_GBps"] = gbps(SIZE, med(ts))
        r["managed_sum_ok"] = abs(k_read_sum() - FILL * SIZE / 4) < 1e-3 * FILL * SIZE / 4
    finally:
        dsync()
        free_managed(ptr)
    return r


def sec_alloc():
    r = {}
    dsync()
    kinds = {
        "managed": (lambda n: malloc_managed(n), lambda p: free_managed(p)),
        "device": (lambda n: ck(cudart.cudaMalloc(n), "cudaMalloc"), lambda p: ck(cudart.cudaFree(p), "cudaFree")),
        "pinned": (lambda n: ck(cudart.cudaMallocHost(n), "cudaMallocHost"),
                   lambda p: ck(cudart.cudaFreeHost(p), "cudaFreeHost")),
    }
    for kind, (alloc, free) in kinds.items():
        for sz in (1 * MiB, 64 * MiB, 256 * MiB):
            ta, tf = [], []
            for i in range(1 + REPS):
                t0 = time.perf_counter()
                p = alloc(sz)
                t1 = time.perf_counter()
                free(p)
                t2 = time.perf_counter()
                if i:
                    ta.append((t1 - t0) * 1e6)
                    tf.append((t2 - t1) * 1e6)
            r[f"{kind}_{sz // MiB}MiB_alloc_us"] = med(ta)
            r[f"{kind}_{sz // MiB}MiB_free_us"] = med(tf)
    r["pinned_alloc_us_per_MiB_slope"] = (r["pinned_256MiB_alloc_us"] - r["pinned_1MiB_alloc_us"]) / 255.0
    return r


def sec_launch_sync():
    r = {}
    ev = Events()
    kernels()
    for _ in range(100):
        k_empty()
    dsync()
    N = 2000
    r["empty_kernel_events_us_per_launch"] = ev.time_ms(lambda: [k_empty() for _ in range(N)]) * 1e3 / N
    host = []
    for _ in range(N):
        t0 = time.perf_counter()
        k_empty()
        host.append((time.perf_counter() - t0) * 1e6)
    dsync()
    r["empty_kernel_host_call_us"] = med(host)
    rt = []
    for _ in range(500):
        t0 = time.perf_counter()
        k_empty()
        ck(cudart.cudaDeviceSynchronize())
        rt.append((time.perf_counter() - t0) * 1e6)
    r["empty_kernel_launch_plus_sync_us"] = med(rt)

    def wall(fn, n=2000):
        ts = []
        for _ in range(n):
            t0 = time.perf_counter()
            fn()
            ts.append((time.perf_counter() - t0) * 1e6)
        return med(ts)

    r["python_binding_call_baseline_us"] = wall(lambda: ck(cudart.cudaGetDevice()))
    r["cudaDeviceSynchronize_idle_us"] = wall(lambda: ck(cudart.cudaDeviceSynchronize()))
    r["cudaStreamSynchronize_null_idle_us"] = wall(lambda: ck(cudart.cudaStreamSynchronize(0)))
    s = ck(cudart.cudaStreamCreate())
    try:
        r["cudaStreamSynchronize_created_idle_us"] = wall(lambda: ck(cudart.cudaStreamSynchronize(s)))
    finally:
        ck(cudart.cudaStreamDestroy(s))
    e = ck(cudart.cudaEventCreate())
    ck(cudart.cudaEventRecord(e, 0))
    ck(cudart.cudaEventSynchronize(e))
    r["cudaEventSynchronize_idle_us"] = wall(lambda: ck(cudart.cudaEventSynchronize(e)))
    r["note"] = "wall-clock medians through Python (cuda-bindings / CuPy); subtract the baseline for the C cost"
    return r


def sec_pingpong():
    r = {}
    kernels()
    ptr = malloc_managed(SIZE)
    try:
        cpu_fill(ptr, SIZE, 0.5)
        prefetch(ptr, SIZE, loc_device(0))
        dsync()
        k_inc(ptr, SIZE)
        dsync()
        f32 = host_view(ptr, SIZE, np.float32)
        step = 65536 // 4
        iters = 10
        no_cpu, with_cpu, gpu_part, cpu_part = [], [], [], []
        for _ in range(iters):
            t0 = time.perf_counter()
            k_inc(ptr, SIZE)
            ck(cudart.cudaDeviceSynchronize())
            no_cpu.append((time.perf_counter() - t0) * 1e3)
        for _ in range(iters):
            t0 = time.perf_counter()
            k_inc(ptr, SIZE)
            ck(cudart.cudaDeviceSynchronize())
            t1 = time.perf_counter()
            float(f32[::step].sum())
            t2 = time.perf_counter()
            with_cpu.append((t2 - t0) * 1e3)
            gpu_part.append((t1 - t0) * 1e3)
            cpu_part.append((t2 - t1) * 1e3)
        expect = 0.5 + 1 + 2 * iters
        r["values_ok"] = bool(f32[0] == expect and f32[-1] == expect and f32[len(f32) // 3] == expect)
        r["no_cpu_reads_ms_per_iter"] = med(no_cpu)
        r["with_cpu_reads_ms_per_iter"] = med(with_cpu)
        r["with_cpu_reads_gpu_part_ms"] = med(gpu_part)
        r["with_cpu_reads_cpu_part_ms"] = med(cpu_part)
        r["no_cpu_all_ms"], r["with_cpu_all_ms"] = no_cpu, with_cpu
        r["cpu_touches_per_iter"] = SIZE // 65536
        r["iterations"] = iters
    finally:
        dsync()
        free_managed(ptr)
    return r


# ----------------------------------------------------------------------------
SECTIONS = [
    ("device", sec_device),
    ("api", sec_api),
    ("pinned_copy", sec_pinned_copy),
    ("prefetch", sec_prefetch),
    ("gpu_fault_read", sec_gpu_fault_read),
    ("cpu_fault_read", sec_cpu_fault_read),
    ("zero_copy", sec_zero_copy),
    ("read_mostly", sec_read_mostly),
    ("device_bw", sec_device_bw),
    ("alloc", sec_alloc),
    ("launch_sync", sec_launch_sync),
    ("pingpong", sec_pingpong),
    ("cupy_prefetch_check", sec_cupy_prefetch_check),
]


def summary_rows(res):
    def g(*path):
        d = res
        for p in path:
            if not isinstance(d, dict) or p not in d:
                return None
            d = d[p]
        return d

    rows = [
        ("pinned copy H2D 256 MiB", g("pinned_copy", "h2d_GBps"), "GB/s"),
        ("pinned copy D2H 256 MiB", g("pinned_copy", "d2h_GBps"), "GB/s"),
        ("prefetch H2D 256 MiB", g("prefetch", "h2d_GBps"), "GB/s"),
        ("prefetch D2H 256 MiB", g("prefetch", "d2h_GBps"), "GB/s"),
        ("prefetch H2D 64 KiB", g("prefetch", "h2d_64KiB_us"), "us"),
        ("prefetch D2H 64 KiB", g("prefetch", "d2h_64KiB_us"), "us"),
        ("prefetch H2D 2 MiB", g("prefetch", "h2d_2048KiB_us"), "us"),
        ("prefetch D2H 2 MiB", g("prefetch", "d2h_2048KiB_us"), "us"),
        ("prefetch H2D already resident 256 MiB", g("prefetch", "h2d_already_resident_256MiB_us"), "us"),
        ("GPU fault read contiguous 256 MiB", g("gpu_fault_read", "contiguous", "ms"), "ms"),
        ("GPU fault read contiguous (eff.)", g("gpu_fault_read", "contiguous", "eff_GBps_whole_buffer"), "GB/s"),
        ("GPU fault read per 4 KiB page", g("gpu_fault_read", "contiguous", "us_per_4KiB_page"), "us"),
        ("GPU touch 4 KiB stride", g("gpu_fault_read", "stride_4KiB", "ms"), "ms"),
        ("GPU touch 4 KiB stride per touch", g("gpu_fault_read", "stride_4KiB", "us_per_touch"), "us"),
        ("GPU touch 4 KiB stride (eff.)", g("gpu_fault_read", "stride_4KiB", "eff_GBps_whole_buffer"), "GB/s"),
        ("GPU touch 64 KiB stride", g("gpu_fault_read", "stride_64KiB", "ms"), "ms"),
        ("GPU touch 64 KiB stride per touch", g("gpu_fault_read", "stride_64KiB", "us_per_touch"), "us"),
        ("GPU touch 64 KiB stride (eff.)", g("gpu_fault_read", "stride_64KiB", "eff_GBps_whole_buffer"), "GB/s"),
        ("GPU touch 2 MiB stride", g("gpu_fault_read", "stride_2MiB", "ms"), "ms"),
        ("GPU touch 2 MiB stride per touch", g("gpu_fault_read", "stride_2MiB", "us_per_touch"), "us"),
        ("GPU touch 2 MiB stride (eff.)", g("gpu_fault_read", "stride_2MiB", "eff_GBps_whole_buffer"), "GB/s"),
        ("GPU re-read after faults 256 MiB", g("gpu_fault_read", "second_read_after_faults_ms"), "ms"),
        ("CPU fault read 256 MiB", g("cpu_fault_read", "full_read_ms"), "ms"),
        ("CPU fault read 256 MiB", g("cpu_fault_read", "full_read_GBps"), "GB/s"),
        ("CPU read host-resident 256 MiB", g("cpu_fault_read", "host_resident_read_GBps"), "GB/s"),
        ("CPU strided read 4 KiB per touch", g("cpu_fault_read", "stride_4KiB", "us_per_touch"), "us"),
        ("CPU strided read 64 KiB per touch", g("cpu_fault_read", "stride_64KiB", "us_per_touch"), "us"),
        ("CPU strided read 64 KiB total", g("cpu_fault_read", "stride_64KiB", "ms"), "ms"),
        ("CPU strided read 2 MiB per touch", g("cpu_fault_read", "stride_2048KiB", "us_per_touch"), "us"),
        ("zero-copy pinned mapped GPU read", g("zero_copy", "pinned_mapped_read_GBps"), "GB/s"),
        ("managed AccessedBy+Pref=host 1st read", g("zero_copy", "managed_remote_first_read_GBps"), "GB/s"),
        ("managed AccessedBy+Pref=host read", g("zero_copy", "managed_remote_read_GBps"), "GB/s"),
        ("  pages migrated to GPU?", g("zero_copy", "managed_pages_migrated_to_gpu"), ""),
        ("read-mostly GPU read 1", g("read_mostly", "gpu_read1_ms"), "ms"),
        ("read-mostly CPU read", g("read_mostly", "cpu_read_ms"), "ms"),
        ("read-mostly GPU read 2", g("read_mostly", "gpu_read2_ms"), "ms"),
        ("read-mostly GPU read after CPU write", g("read_mostly", "gpu_read_after_cpu_write_ms"), "ms"),
        ("HBM read cudaMalloc 256 MiB", g("device_bw", "cudaMalloc_256MiB_read_GBps"), "GB/s"),
        ("HBM read cudaMalloc 1 GiB", g("device_bw", "cudaMalloc_1024MiB_read_GBps"), "GB/s"),
        ("HBM read managed prefetched 256 MiB", g("device_bw", "managed_prefetched_256MiB_read_GBps"), "GB/s"),
    ]
    for kind in ("managed", "device", "pinned"):
        for sz in (1, 64, 256):
            rows.append((f"{kind} alloc {sz} MiB", g("alloc", f"{kind}_{sz}MiB_alloc_us"), "us"))
            rows.append((f"{kind} free {sz} MiB", g("alloc", f"{kind}_{sz}MiB_free_us"), "us"))
    rows += [
        ("pinned alloc slope", g("alloc", "pinned_alloc_us_per_MiB_slope"), "us/MiB"),
        ("empty kernel (events, per launch)", g("launch_sync", "empty_kernel_events_us_per_launch"), "us"),
        ("empty kernel host call (CuPy)", g("launch_sync", "empty_kernel_host_call_us"), "us"),
        ("empty kernel launch+sync", g("launch_sync", "empty_kernel_launch_plus_sync_us"), "us"),
        ("binding call baseline", g("launch_sync", "python_binding_call_baseline_us"), "us"),
        ("cudaDeviceSynchronize idle", g("launch_sync", "cudaDeviceSynchronize_idle_us"), "us"),
        ("cudaStreamSynchronize idle (null)", g("launch_sync", "cudaStreamSynchronize_null_idle_us"), "us"),
        ("cudaStreamSynchronize idle (created)", g("launch_sync", "cudaStreamSynchronize_created_idle_us"), "us"),
        ("cudaEventSynchronize idle", g("launch_sync", "cudaEventSynchronize_idle_us"), "us"),
        ("ping-pong, no CPU reads", g("pingpong", "no_cpu_reads_ms_per_iter"), "ms/iter"),
        ("ping-pong, CPU reads 1 float/64 KiB", g("pingpong", "with_cpu_reads_ms_per_iter"), "ms/iter"),
        ("  of which GPU kernel+sync", g("pingpong", "with_cpu_reads_gpu_part_ms"), "ms"),
        ("  of which CPU reads", g("pingpong", "with_cpu_reads_cpu_part_ms"), "ms"),
    ]
    return rows


def fmt(v):
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) < 1e5 else f"{v:.0f}"
    return str(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    out_path = os.path.join(args.out, "microbench.json")

    doc = {"benchmark": "umkit h200_microbench", "units": "GB/s = 1e9 B/s; ms, us wall or CUDA events",
           "env": {}, "results": {}, "errors": {}, "skipped": []}

    def save():
        doc["elapsed_s"] = time.perf_counter() - T_START
        with open(out_path, "w") as f:
            json.dump(doc, f, indent=1, default=str)

    try:
        doc["env"] = sec_env()
    except Exception:
        doc["errors"]["env"] = traceback.format_exc()
    if cudart is None or cp is None:
        doc["errors"]["imports"] = f"cuda.bindings: {CB_VERSION}; cupy: {CUPY_VERSION}"
        save()
        print(json.dumps(doc["errors"], indent=1))
        return 1

    # Safety first: how much device memory is free?
    try:
        free, total = ck(cudart.cudaMemGetInfo(), "cudaMemGetInfo")
        doc["env"]["mem_free_at_start"], doc["env"]["mem_total"] = int(free), int(total)
        if free < 8 * GiB:
            doc["errors"]["safety"] = f"only {free} B free on the device: not running managed-memory tests"
            save()
            print(doc["errors"]["safety"])
            return 1
    except Exception:
        doc["errors"]["safety"] = traceback.format_exc()
        save()
        print(doc["errors"]["safety"])
        return 1

    for name, fn in SECTIONS:
        el = time.perf_counter() - T_START
        if el > TIME_BUDGET_S:
            doc["skipped"].append(name)
            print(f"[skip] {name}: time budget spent ({el:.0f} s)", flush=True)
            continue
        t0 = time.perf_counter()
        try:
            doc["results"][name] = fn()
            print(f"[ok]   {name} ({time.perf_counter() - t0:.1f} s)", flush=True)
        except Exception:
            doc["errors"][name] = traceback.format_exc()
            print(f"[FAIL] {name}: {doc['errors'][name].strip().splitlines()[-1]}", flush=True)
            try:
                ck(cudart.cudaDeviceSynchronize())
            except Exception as e:
                doc["errors"][name] += f"\n(sync after failure: {e})"
        doc["results"].setdefault("managed_live_bytes_after_" + name, sum(_managed_live.values()))
        save()
    for k in [k for k in doc["results"] if k.startswith("managed_live_bytes_after_")]:
        v = doc["results"].pop(k)
        if v:
            doc["errors"]["leak_" + k] = f"{v} B of managed memory still live"
    dev = doc["results"].get("device", {})
    doc["date"] = doc["env"].get("date_utc")
    doc["device_name"] = dev.get("name")
    doc["driver"] = (doc["env"].get("nvidia_smi_query", "").splitlines()[1:2] or ["?"])[0]
    doc["versions"] = {"cuda_driver": dev.get("cuda_driver_version"), "cuda_runtime": dev.get("cuda_runtime_version"),
                       "cupy": CUPY_VERSION, "cuda_bindings": CB_VERSION, "numpy": np.__version__,
                       "python": sys.version.split()[0]}
    doc["table"] = [{"what": a, "value": b, "unit": c} for a, b, c in summary_rows(doc["results"])]
    save()

    # Readable table last
    print()
    print(f"device: {doc['device_name']}   driver/cuda: {doc['versions']}   date: {doc['date']}")
    print(f"attributes: {dev.get('attributes')}")
    print(f"{'measurement':44s} {'value':>12s}  unit")
    print("-" * 66)
    for row in doc["table"]:
        print(f"{row['what']:44s} {fmt(row['value']):>12s}  {row['unit']}")
    if doc["errors"]:
        print("\nERRORS:")
        for k, v in doc["errors"].items():
            print(f"  {k}: {v.strip().splitlines()[-1]}")
    print(f"\nwrote {out_path}  ({doc['elapsed_s']:.1f} s)")
    return 0 if not doc["errors"] else 2


if __name__ == "__main__":
    sys.exit(main())
