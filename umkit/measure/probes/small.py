"""Size sweeps for the model's fixed costs and small-size rates (part of the FIT data, like
benchmarks/investigations/h200_microbench.py; never the validation set of umkit/validation.py).

Each sweep times one operation over sizes from 4 KiB to 256 MiB through umkit's public API, so
a fixed cost (the intercept) and a rate (the slope) can be read off:

* host memory: the CPU filling / copying / summing NumPy (pageable) and pinned memory;
* pinned copies h2d / d2h, zero-copy GPU reads of pinned memory;
* prefetch h2d / d2h of managed memory;
* GPU fault reads of freshly CPU-written managed buffers (one buffer per size);
* the host-side cost of one small kernel launch + synchronize (what a host-timed loop pays);
* read-mostly: after the CPU writes k bytes of a duplicated 16 MiB buffer, the GPU re-read.

Fit-only additions (2026-12-01, issue 11), all at sizes the validation set and UnifiedMemoryPerf
do not use (16 KiB, 128 KiB, 512 KiB, 2 MiB, 8 MiB, 32 MiB; matrices 96 .. 3072):

* ``timer``: device events around nothing (what ``umkit.timer`` adds by itself), the host's time
  to submit a copy and a prefetch;
* ``first_use``: the first GPU use of a freshly allocated pinned / device buffer vs the second;
* ``small_managed``: where consecutive small managed allocations land (address deltas: does the
  driver pack them?), alloc and free timed apart per kind, many small CPU-written managed
  buffers each read once by the GPU (host-timed loop and one event-timed read);
* ``matmul``: the UnifiedMemoryPerf tiled SGEMM kernel on device memory (achieved FLOP rate);
* ``host_verify``: the CPU comparing an array with a NumPy reference (np.array_equal), pageable /
  pinned / CPU-resident managed memory.

    umkit measure run small [--out small_bench.json]     (sim: UMKIT_BACKEND=sim)
"""
from __future__ import annotations

import datetime as dt

import numpy as np

import umkit
from umkit.measure.timing import gpu_ms, host_ms

KiB, MiB = 1 << 10, 1 << 20
SIZES = [4 * KiB, 64 * KiB, 256 * KiB, MiB, 4 * MiB, 16 * MiB, 64 * MiB, 256 * MiB]


def med(fn, n=5):
    return float(np.median([fn() for _ in range(n)]))


def sweep_host(sizes=SIZES):
    out = {}
    for nb in sizes:
        n = nb // 4
        src = np.ones(n, np.float32)
        pg = umkit.pageable(n)
        p = umkit.pinned(n)
        ph = p.host
        ph[:] = 0
        out[nb] = dict(
            pageable_fill_ms=med(lambda: host_ms(lambda: pg.fill(2.0))),
            pageable_copy_ms=med(lambda: host_ms(lambda: np.copyto(pg, src))),
            pageable_sum_ms=med(lambda: host_ms(lambda: float(pg.sum()))),
            pinned_fill_ms=med(lambda: host_ms(lambda: ph.fill(2.0))),
            pinned_copy_ms=med(lambda: host_ms(lambda: np.copyto(ph, src))),
            pinned_sum_ms=med(lambda: host_ms(lambda: float(ph.sum()))))
        p.free()
    return out


def sweep_copies():
    out = {}
    sink = umkit.device_array(1)
    for nb in SIZES:
        n = nb // 4
        h, d = umkit.pinned(n), umkit.device_array(n)
        h.host[:] = 1.0
        pg = umkit.pageable(n)                       # pageable (malloc'd) host memory
        pg[:] = 1.0
        umkit.copy(d, h)
        umkit.copy(h, d)
        umkit.touch(h, 4, sink=sink)
        umkit.synchronize()
        out[nb] = dict(
            pinned_h2d_ms=med(lambda: gpu_ms(lambda: umkit.copy(d, h))),
            pinned_d2h_ms=med(lambda: gpu_ms(lambda: umkit.copy(h, d))),
            zero_copy_read_ms=med(lambda: gpu_ms(lambda: umkit.touch(h, 4, sink=sink))),
            device_read_ms=med(lambda: gpu_ms(lambda: umkit.touch(d, 4, sink=sink))),
            pageable_h2d_host_ms=med(lambda: host_ms(lambda: umkit.copy(d, pg))),
            read_back_device_host_ms=med(lambda: host_ms(lambda: umkit.read_back(d))))
        h.free()
        d.free()
    sink.free()
    return out


def sweep_managed():
    out = {}
    sink = umkit.device_array(1)
    s = umkit.Stream()
    for nb in SIZES:
        n = nb // 4
        r = {}
        for key, fn in (("fault_read_ms", None), ("prefetch_h2d_ms", "h2d"), ("prefetch_d2h_ms", "d2h")):
            vals = []
            for _ in range(3):
                a = umkit.managed(n)
                a.host[:] = 1.0
                umkit.synchronize()
                if fn is None:
                    vals.append(gpu_ms(lambda: umkit.touch(a, 4, sink=sink)))
                elif fn == "h2d":
                    vals.append(gpu_ms(lambda: a.prefetch("gpu", stream=s), s))
                else:
                    a.prefetch("gpu", stream=s)
                    s.synchronize()
                    vals.append(gpu_ms(lambda: a.prefetch("cpu", stream=s), s))
                a.free()
            r[key] = float(np.median(vals))
        out[nb] = r
    sink.free()
    return out


def launch_sync():
    w = umkit.device_array(1024)
    sink = umkit.device_array(1)
    umkit.touch(w, 4, sink=sink)
    umkit.synchronize()
    r = dict(touch_4k_plus_sync_host_ms=med(lambda: host_ms(lambda: umkit.touch(w, 4, sink=sink)), 21),
             touch_4k_x100_host_ms=med(lambda: host_ms(
                 lambda: [umkit.touch(w, 4, sink=sink) for _ in range(100)]), 5),
             alloc_free_managed_64k_x100_host_ms=med(lambda: host_ms(
                 lambda: [umkit.managed(16384).free() for _ in range(100)]), 5))
    w.free()
    sink.free()
    return r


def read_mostly_writes():
    out = {}
    sink = umkit.device_array(1)
    for k in (4 * KiB, 64 * KiB, MiB, 64 * MiB):
        a = umkit.managed(16 * MiB)
        a.host[:] = 1.0
        a.advise("read_mostly")
        umkit.touch(a, 4, sink=sink)
        umkit.synchronize()
        again = gpu_ms(lambda: umkit.touch(a, 4, sink=sink))
        a.host[: k // 4] = 2.0
        umkit.synchronize()
        after = gpu_ms(lambda: umkit.touch(a, 4, sink=sink))
        out[k] = dict(reread_ms=again, reread_after_cpu_write_ms=after)
        a.free()
    sink.free()
    return out


# -- fit-only additions (issue 11) --------------------------------------------------------------------
FIT_SIZES = [16 * KiB, 512 * KiB, 8 * MiB, 32 * MiB]      # none of them in the validation set


def timer_floor():
    s = umkit.Stream()
    out = dict(empty_timer_ms=med(lambda: gpu_ms(lambda: None), 21),
               empty_timer_stream_ms=med(lambda: gpu_ms(lambda: None, s), 21))
    h, d = umkit.pinned(4096), umkit.device_array(4096)
    h.host[:] = 1.0
    umkit.copy(d, h, stream=s)
    s.synchronize()
    out["copy_16k_x100_host_ms"] = med(lambda: host_ms(
        lambda: [umkit.copy(d, h, stream=s) for _ in range(100)]), 5)
    h.free()
    d.free()
    for nb in (128 * KiB, 8 * MiB):            # host time of the prefetch call itself (no wait)
        vals = []
        for _ in range(3):
            a = umkit.managed(nb // 4)
            a.host[:] = 1.0
            umkit.synchronize()
            t0 = umkit.now()
            a.prefetch("gpu", stream=s)
            vals.append((umkit.now() - t0) * 1e3)
            s.synchronize()
            a.free()
        out[f"prefetch_call_{nb}_host_ms"] = float(np.median(vals))
    return out


def first_use():
    out = {}
    sink = umkit.device_array(1)
    stage = umkit.pinned(max(FIT_SIZES) // 4)
    stage.host[:] = 1.0
    for nb in FIT_SIZES:
        n = nb // 4
        r = {}
        for rep in range(3):
            h = umkit.pinned(n)                    # fresh pinned buffer, CPU-written
            h.host[:] = 1.0
            umkit.synchronize()
            r.setdefault("pinned_touch_first_ms", []).append(
                gpu_ms(lambda: umkit.touch(h, 4, sink=sink)))
            r.setdefault("pinned_touch_second_ms", []).append(
                gpu_ms(lambda: umkit.touch(h, 4, sink=sink)))
            h.free()
            d = umkit.device_array(n)              # fresh device buffer
            umkit.synchronize()
            r.setdefault("device_copy_h2d_first_ms", []).append(
                gpu_ms(lambda: umkit.copy(d, stage, nbytes=nb)))
            r.setdefault("device_copy_h2d_second_ms", []).append(
                gpu_ms(lambda: umkit.copy(d, stage, nbytes=nb)))
            r.setdefault("device_touch_ms", []).append(
                gpu_ms(lambda: umkit.touch(d, 4, sink=sink)))
            d.free()
        out[nb] = {k: float(np.median(v)) for k, v in r.items()}
    stage.free()
    sink.free()
    return out


def small_managed():
    out = dict(address_delta={}, alloc_free={}, many_touched={})
    for nb in (4 * KiB, 16 * KiB, 128 * KiB, 512 * KiB, 2 * MiB):
        xs = [umkit.managed(nb // 4) for _ in range(8)]
        out["address_delta"][nb] = [int(xs[i + 1].ptr - xs[i].ptr) for i in range(7)]
        for x in xs:
            x.free()
    for kind in ("managed", "device", "pinned"):
        for nb in (16 * KiB, 512 * KiB, 8 * MiB):
            ta, tf = [], []
            for _ in range(3):
                xs = []
                ta.append(host_ms(lambda: xs.extend(umkit.empty(nb // 4, "float32", kind)
                                                    for _ in range(20))) / 20)
                tf.append(host_ms(lambda: [x.free() for x in xs]) / 20)
            out["alloc_free"][f"{kind}_{nb}"] = dict(alloc_ms=float(np.median(ta)),
                                                     free_ms=float(np.median(tf)))
    sink = umkit.device_array(1)
    for count, nb in ((100, 16 * KiB), (40, 512 * KiB), (100, 128 * KiB)):
        bufs = [umkit.managed(nb // 4) for _ in range(count)]
        for b in bufs:
            b.host[:] = 1.0
        umkit.synchronize()
        loop = host_ms(lambda: [umkit.touch(b, 4, sink=sink) for b in bufs])
        for b in bufs:
            b.free()
        bufs = [umkit.managed(nb // 4) for _ in range(8)]
        for b in bufs:
            b.host[:] = 1.0
        umkit.synchronize()
        each = [gpu_ms(lambda: umkit.touch(b, 4, sink=sink)) for b in bufs]
        for b in bufs:
            b.free()
        out["many_touched"][f"{count}x{nb}"] = dict(
            loop_host_ms=loop, per_buffer_host_ms=loop / count,
            one_read_event_ms=float(np.median(each)))
    sink.free()
    return out


def matmul_rates():
    from umkit.measure.umperf import matmul      # the UnifiedMemoryPerf kernel, same launch
    out = {}
    s = umkit.Stream()
    for n in (96, 384, 768, 1536, 3072):          # the sample's sizes are powers of two
        A, B, C = (umkit.device_array(n * n) for _ in range(3))
        umkit.fill(A, 1.0)
        umkit.fill(B, 2.0)
        matmul(C, A, B, n, s)
        s.synchronize()
        ms = med(lambda: gpu_ms(lambda: matmul(C, A, B, n, s), s), 5)
        out[n] = dict(bytes_per_matrix=n * n * 4, kernel_ms=ms, flops=2.0 * n ** 3,
                      tflops=2.0 * n ** 3 / (ms * 1e-3) / 1e12)
        for x in (A, B, C):
            x.free()
    return out


def host_verify():
    out = {}
    for nb in (512 * KiB, 2 * MiB, 8 * MiB, 32 * MiB):
        n = nb // 4
        ref = np.ones(n, np.float32)
        pg = umkit.pageable(n)
        pg[:] = 1.0
        p = umkit.pinned(n)
        ph = p.host
        ph[:] = 1.0
        m = umkit.managed(n)
        mh = m.host
        mh[:] = 1.0
        umkit.synchronize()
        out[nb] = dict(
            pageable_equal_ms=med(lambda: host_ms(lambda: np.array_equal(pg, ref))),
            pinned_equal_ms=med(lambda: host_ms(lambda: np.array_equal(ph, ref))),
            managed_equal_ms=med(lambda: host_ms(lambda: np.array_equal(mh, ref))),
            pinned_copy_in_ms=med(lambda: host_ms(lambda: ph.__setitem__(slice(None), ref))),
            managed_copy_in_ms=med(lambda: host_ms(lambda: mh.__setitem__(slice(None), ref))))
        p.free()
        m.free()
    return out


def header(name: str, note: str) -> dict:
    """The results' first fields (on sim: model time needs no arithmetic, the matmuls are big)."""
    b = umkit.backend()
    if b.name == "sim":
        umkit.use("sim", quiet=True, compute=False)
        b = umkit.backend()
    return dict(benchmark=name, backend=umkit.backend_name(), device=b.device_name(0),
                date=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), note=note)
