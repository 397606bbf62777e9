"""Core benchmarks of issue #2 on a real GPU backend (targets are checked here, not in tests).

    UMKIT_BACKEND=cuda umkit measure run core --out results.json

1. pool alloc/free cycle of 1 MiB: umkit.MemoryPool (CuPy allocator convention) vs CuPy's own
   MemoryPool(malloc_managed)                                    target: umkit/cupy <= 1.1
2. umkit.prefetch host->device vs a pinned copy of the same bytes    target: >= 0.92 of copy speed,
   and (cuda) vs the raw cudaMemPrefetchAsync of the same bytes       target: >= 0.95 of its speed
3. umkit.read_back (fast path, into pinned) vs a pinned copy        target: >= 0.9 of copy speed
(+ exploratory: prefetch split into chunks on several streams, to see if it closes gap 2)
"""
import argparse
import json
import statistics
import time

import numpy as np

import umkit
from .registry import output, write

MiB = 1 << 20


def med(xs):
    return float(statistics.median(xs))


def pool_cycle(n=20000, size=MiB):
    import cupy
    pool = umkit.MemoryPool(kind="managed")
    cp_pool = cupy.cuda.MemoryPool(cupy.cuda.malloc_managed)
    res = {}
    for name, malloc in (("umkit", pool.malloc), ("cupy", cp_pool.malloc)):
        for _ in range(200):
            m = malloc(size)
            del m
        runs = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(n):
                m = malloc(size)
                del m
            runs.append((time.perf_counter() - t0) / n * 1e6)
        res[f"{name}_us_per_cycle"] = med(runs)
    t0 = time.perf_counter()
    for _ in range(n):
        pool.free(pool.allocate(size))
    res["umkit_raw_allocate_free_us"] = (time.perf_counter() - t0) / n * 1e6
    res["ratio_umkit_over_cupy"] = res["umkit_us_per_cycle"] / res["cupy_us_per_cycle"]
    res["target"] = "<= 1.1"
    res["met"] = res["ratio_umkit_over_cupy"] <= 1.1
    pool.close()
    cp_pool.free_all_blocks()
    return res


def prefetch_vs_copy(nbytes=256 * MiB, reps=7):
    a = umkit.managed(nbytes // 4)
    a.host[:] = 1.0
    h, d = umkit.pinned(nbytes // 4), umkit.device_array(nbytes // 4)
    h.host[:] = 1.0
    s = umkit.Stream()
    pf, cp = [], []
    for _ in range(reps):
        a.prefetch("cpu", stream=s)
        s.synchronize()
        with umkit.timer(s) as t:
            a.prefetch("gpu", stream=s)
        pf.append(t.ms)
        with umkit.timer(s) as t:
            umkit.copy(d, h, stream=s)
        cp.append(t.ms)
    res = dict(bytes=nbytes, prefetch_ms=med(pf), copy_ms=med(cp),
               prefetch_GBps=nbytes / med(pf) / 1e6, copy_GBps=nbytes / med(cp) / 1e6)
    res["speed_ratio"] = res["prefetch_GBps"] / res["copy_GBps"]
    res["target"] = ">= 0.92"
    res["met"] = res["speed_ratio"] >= 0.92
    res["chunked"] = chunked_prefetch(a, s, nbytes)
    for x in (a, h, d):
        x.free()
    if umkit.backend_name() == "cuda":
        # the same two operations through cuda-bindings alone: what the driver gives without umkit,
        # so umkit's ratio is judged against the card's own (the 0.92 target was set before this)
        res["raw_driver"] = raw_prefetch_vs_copy(nbytes, reps)
        res["umkit_over_raw_prefetch"] = res["prefetch_GBps"] / res["raw_driver"]["prefetch_GBps"]
        res["target_vs_raw"] = ">= 0.95 of the raw cudaMemPrefetchAsync's speed"
        res["met_vs_raw"] = res["umkit_over_raw_prefetch"] >= 0.95
    return res


def raw_prefetch_vs_copy(nbytes, reps):
    """cudaMemPrefetchAsync of a host-born managed buffer to device 0, and cudaMemcpyAsync of the
    same bytes from pinned to device memory, timed with CUDA events on one stream (cuda-bindings
    only, no umkit)."""
    import ctypes
    import numpy as np
    from cuda.bindings import runtime as rt

    def ok(r):
        r = r if isinstance(r, tuple) else (r,)
        if int(r[0]) != 0:
            raise RuntimeError(f"CUDA error {r[0]}")
        return r[1] if len(r) == 2 else r[1:]

    def loc(kind):
        x = rt.cudaMemLocation()
        x.type = (rt.cudaMemLocationType.cudaMemLocationTypeHost if kind == "host"
                  else rt.cudaMemLocationType.cudaMemLocationTypeDevice)
        x.id = 0
        return x

    m = ok(rt.cudaMallocManaged(nbytes, rt.cudaMemAttachGlobal))
    hp, dp = ok(rt.cudaMallocHost(nbytes)), ok(rt.cudaMalloc(nbytes))
    for p in (m, hp):
        np.ctypeslib.as_array(ctypes.cast(int(p), ctypes.POINTER(ctypes.c_float)),
                              (nbytes // 4,))[:] = 1.0
    st = ok(rt.cudaStreamCreate())
    e0, e1 = ok(rt.cudaEventCreate()), ok(rt.cudaEventCreate())

    def timed(fn):
        ok(rt.cudaEventRecord(e0, st))
        fn()
        ok(rt.cudaEventRecord(e1, st))
        ok(rt.cudaEventSynchronize(e1))
        return float(ok(rt.cudaEventElapsedTime(e0, e1)))

    pf, cp = [], []
    try:
        for _ in range(reps):
            ok(rt.cudaMemPrefetchAsync(m, nbytes, loc("host"), 0, st))
            ok(rt.cudaStreamSynchronize(st))
            pf.append(timed(lambda: ok(rt.cudaMemPrefetchAsync(m, nbytes, loc("device"), 0, st))))
            cp.append(timed(lambda: ok(rt.cudaMemcpyAsync(
                dp, hp, nbytes, rt.cudaMemcpyKind.cudaMemcpyHostToDevice, st))))
    finally:
        ok(rt.cudaStreamSynchronize(st))
        for e in (e0, e1):
            rt.cudaEventDestroy(e)
        rt.cudaStreamDestroy(st)
        rt.cudaFree(m), rt.cudaFreeHost(hp), rt.cudaFree(dp)
    out = dict(prefetch_ms=med(pf), copy_ms=med(cp), prefetch_GBps=nbytes / med(pf) / 1e6,
               copy_GBps=nbytes / med(cp) / 1e6)
    out["speed_ratio"] = out["prefetch_GBps"] / out["copy_GBps"]
    return out


def chunked_prefetch(a, s, nbytes, reps=5):
    """Exploration: split one prefetch into k chunks on k streams (joined by events)."""
    out = {}
    for k in (2, 4, 8):
        streams = [umkit.Stream() for _ in range(k)]
        step = nbytes // k
        times = []
        for _ in range(reps):
            a.prefetch("cpu", stream=s)
            s.synchronize()
            start = umkit.Event().record(s)
            start.synchronize()
            for i, st in enumerate(streams):
                umkit.prefetch(a, "gpu", stream=st, offset=i * step, nbytes=step)
            ends = [umkit.Event().record(st) for st in streams]
            for e in ends:
                e.synchronize()
            times.append(max(start.elapsed_ms(e) for e in ends))
        out[f"{k}_streams_GBps"] = nbytes / med(times) / 1e6
    return out


def readback_vs_copy(nbytes=256 * MiB, reps=7):
    a = umkit.managed(nbytes // 4)
    a.host[:] = 2.0
    a.prefetch("gpu")
    umkit.synchronize()
    out = umkit.pinned(nbytes // 4)
    d = umkit.device_array(nbytes // 4)
    umkit.fill(d, 2.0)
    umkit.synchronize()
    rb, cp, mig = [], [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        v = umkit.read_back(a, out=out)
        rb.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        umkit.copy(out, d)
        umkit.synchronize()
        cp.append(time.perf_counter() - t0)
    ok = bool(np.all(np.asarray(v)[:: 1 << 16] == 2.0))
    # the slow way, for the record: CPU faults migrate the pages back
    t0 = time.perf_counter()
    float(np.asarray(a.host).sum())
    mig.append(time.perf_counter() - t0)
    res = dict(bytes=nbytes, read_back_ms=med(rb) * 1e3, copy_ms=med(cp) * 1e3,
               read_back_GBps=nbytes / med(rb) / 1e9, copy_GBps=nbytes / med(cp) / 1e9,
               migrate_by_cpu_faults_GBps=nbytes / mig[0] / 1e9, values_ok=ok)
    res["speed_ratio"] = res["read_back_GBps"] / res["copy_GBps"]
    res["target"] = ">= 0.9"
    res["met"] = res["speed_ratio"] >= 0.9
    for x in (a, out, d):
        x.free()
    return res


def peer(nbytes=256 * MiB, reps=5):
    """Two GPUs (the article's §6.2): a managed array prefetched gpu0 -> gpu1 vs an explicit
    device-to-device copy of the same bytes.  Calibrates the sim profiles' peer_bw."""
    if umkit.device_count() < 2:
        return {"skipped": "needs 2 GPUs"}
    a = umkit.managed(nbytes // 4)
    a.host[:] = 1.0
    d0, d1 = umkit.device_array(nbytes // 4, device=0), umkit.device_array(nbytes // 4, device=1)
    s = umkit.Stream()
    pf, cp = [], []
    for _ in range(reps):
        a.prefetch("gpu0", stream=s)
        s.synchronize()
        with umkit.timer(s) as t:
            a.prefetch("gpu1", stream=s)
        pf.append(t.ms)
        with umkit.timer(s) as t:
            umkit.copy(d1, d0, stream=s)
        cp.append(t.ms)
    ok = float(umkit.read_back(a)[:: 1 << 16].sum()) == float(len(range(0, nbytes // 4, 1 << 16)))
    for x in (a, d0, d1):
        x.free()
    return dict(bytes=nbytes, prefetch_gpu0_to_gpu1_GBps=nbytes / med(pf) / 1e6,
                copy_d2d_peer_GBps=nbytes / med(cp) / 1e6, values_ok=ok)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="umkit measure run core", description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    output(args.out, "--out")
    b = umkit.backend()
    res = dict(backend=b.name, device=b.device_name(0), versions=b.versions(),
               date=time.strftime("%Y-%m-%d"))
    for name, fn in (("pool_cycle", pool_cycle), ("prefetch_vs_copy", prefetch_vs_copy),
                     ("read_back_vs_copy", readback_vs_copy), ("peer", peer)):
        try:
            res[name] = fn()
        except Exception as e:  # noqa: BLE001 - record and go on
            res[name] = {"error": f"{type(e).__name__}: {e}"}
    print(json.dumps(res, indent=1, default=str))
    if args.out:
        write(args.out, json.dumps(res, indent=1, default=str), "--out")
    return 0

