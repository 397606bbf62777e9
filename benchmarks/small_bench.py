"""Size sweeps for the model's fixed costs and small-size rates (part of the FIT data, like
benchmarks/h200_microbench.py; never the validation set of umkit/validation.py).

Each sweep times one operation over sizes from 4 KiB to 256 MiB through umkit's public API, so
a fixed cost (the intercept) and a rate (the slope) can be read off:

* host memory: the CPU filling / copying / summing NumPy (pageable) and pinned memory;
* pinned copies h2d / d2h, zero-copy GPU reads of pinned memory;
* prefetch h2d / d2h of managed memory;
* GPU fault reads of freshly CPU-written managed buffers (one buffer per size);
* the host-side cost of one small kernel launch + synchronize (what a host-timed loop pays);
* read-mostly: after the CPU writes k bytes of a duplicated 64 MiB buffer, the GPU re-read.

    python benchmarks/small_bench.py [--out small_bench.json]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import umkit  # noqa: E402

KiB, MiB = 1 << 10, 1 << 20
SIZES = [4 * KiB, 64 * KiB, 256 * KiB, MiB, 4 * MiB, 16 * MiB, 64 * MiB, 256 * MiB]


def host_ms(fn):
    umkit.synchronize()
    t0 = umkit.now()
    fn()
    umkit.synchronize()
    return (umkit.now() - t0) * 1e3


def gpu_ms(fn, stream=None):
    with umkit.timer(stream) as t:
        fn()
    return t.ms


def med(fn, n=5):
    return float(np.median([fn() for _ in range(n)]))


def sweep_host():
    out = {}
    for nb in SIZES:
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    b = umkit.backend()
    res = dict(benchmark="umkit small_bench", backend=umkit.backend_name(), device=b.device_name(0),
               date=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               note="host_ms: umkit.now() around a synchronized region (wall clock on GPUs); "
                    "gpu ms: events; medians",
               host=sweep_host(), copies=sweep_copies(), managed=sweep_managed(),
               launch_sync=launch_sync(), read_mostly_16MiB=read_mostly_writes())
    text = json.dumps(res, indent=1)
    print(text)
    if a.out:
        Path(a.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
