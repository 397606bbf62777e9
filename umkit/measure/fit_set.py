"""The model's *fit set*: the workloads a sim profile is fitted to (``umkit calibrate``).

Every workload runs through the public API only, so the *same code* is timed on the real backend
and predicted by sim.  Each returns milliseconds (or a dict of them)."""
from __future__ import annotations

import numpy as np

from .. import api
from .. import workloads
from .timing import MiB, cpu_written, gpu_ms, host_ms, warm_up, written


def w_gpu_touch(nbytes, stride):
    a = cpu_written(nbytes)
    sink = api.device_array(1)
    try:
        return gpu_ms(lambda: api.touch(a, stride, sink=sink))
    finally:
        a.free()
        sink.free()


def w_prefetch(nbytes, direction):
    with written(nbytes) as a:
        s = api.Stream()
        if direction == "d2h":
            a.prefetch("gpu", stream=s)
            s.synchronize()
        return gpu_ms(lambda: a.prefetch("gpu" if direction == "h2d" else "cpu", stream=s), s)


def w_cpu_read(nbytes, stride):
    """GPU-resident managed pages read by the CPU: all of it (stride 0) or one float per stride."""
    with written(nbytes) as a:
        a.prefetch("gpu")
        api.synchronize()
        h = a.host
        if stride:
            return host_ms(lambda: float(h[::stride // 4].sum()))
        return host_ms(lambda: float(h.sum()))


def w_cpu_first_touch(nbytes):
    """The CPU writes fresh managed memory: every page is born on a first-touch fault."""
    a = api.managed(nbytes // 4)
    try:
        h = a.host
        return host_ms(lambda: h.__setitem__(slice(None), 1.0))
    finally:
        a.free()


def w_host_read(nbytes):
    with written(nbytes) as a:
        h = a.host
        return host_ms(lambda: float(h.sum()))


def w_read_mostly(nbytes):
    """read-mostly: GPU read (copies in), CPU read (no migration back), GPU re-read (local)."""
    a = cpu_written(nbytes)
    sink = api.device_array(1)
    try:
        a.advise("read_mostly")
        first = gpu_ms(lambda: api.touch(a, 4, sink=sink))
        cpu = host_ms(lambda: float(a.host.sum()))
        again = gpu_ms(lambda: api.touch(a, 4, sink=sink))
        return {"first": first, "cpu": cpu, "reread": again}
    finally:
        a.free()
        sink.free()


def w_accessed_by(nbytes):
    a = cpu_written(nbytes)
    sink = api.device_array(1)
    try:
        a.advise("preferred_location", "cpu")
        a.advise("accessed_by", "gpu")
        api.touch(a, 4, sink=sink)          # first read establishes the mapping
        api.synchronize()
        return gpu_ms(lambda: api.touch(a, 4, sink=sink))
    finally:
        a.free()
        sink.free()


def w_pinned_copy(nbytes, direction):
    h, d = api.pinned(nbytes // 4), api.device_array(nbytes // 4)
    try:
        h.host[:] = 1.0
        src, dst = (h, d) if direction == "h2d" else (d, h)
        return gpu_ms(lambda: api.copy(dst, src))
    finally:
        h.free()
        d.free()


def w_pingpong(nbytes, iters=5):
    """GPU increments everything; the CPU reads one float per 64 KiB; repeat (§4.3)."""
    with written(nbytes) as a:
        h = a.host
        api.increment(a)
        api.synchronize()

        def one():
            api.increment(a)
            api.synchronize()
            float(h[::16384].sum())
        one()
        return float(np.median([host_ms(one) for _ in range(iters)]))


def w_epoch_loop(nbytes):
    n = nbytes // 4
    t0 = api.now()
    workloads.epoch_loop(n, epochs=3, use_prefetch=True)
    return (api.now() - t0) * 1e3


def w_device_read(nbytes):
    d = api.device_array(nbytes // 4)
    sink = api.device_array(1)
    try:
        api.fill(d, 1.0)
        api.synchronize()
        return gpu_ms(lambda: api.touch(d, 4, sink=sink))
    finally:
        d.free()
        sink.free()


def run_workloads(nbytes: int = 256 * MiB, progress=None) -> dict:
    """Run every calibration/compare workload on the active backend; returns {name: ms}."""
    jobs = [
        ("pinned_h2d", lambda: w_pinned_copy(nbytes, "h2d")),
        ("pinned_d2h", lambda: w_pinned_copy(nbytes, "d2h")),
        ("prefetch_h2d", lambda: w_prefetch(nbytes, "h2d")),
        ("prefetch_d2h", lambda: w_prefetch(nbytes, "d2h")),
        ("gpu_fault_read", lambda: w_gpu_touch(nbytes, 4)),
        ("gpu_touch_4k", lambda: w_gpu_touch(nbytes, 4096)),
        ("gpu_touch_64k", lambda: w_gpu_touch(nbytes, 65536)),
        ("gpu_touch_2m", lambda: w_gpu_touch(nbytes, 2 * MiB)),
        ("cpu_read_full", lambda: w_cpu_read(nbytes, 0)),
        ("cpu_touch_64k", lambda: w_cpu_read(nbytes, 65536)),
        ("cpu_touch_2m", lambda: w_cpu_read(nbytes, 2 * MiB)),
        ("host_read", lambda: w_host_read(nbytes)),
        ("cpu_first_touch", lambda: w_cpu_first_touch(nbytes)),
        ("read_mostly", lambda: w_read_mostly(nbytes)),
        ("accessed_by", lambda: w_accessed_by(nbytes)),
        ("device_read", lambda: w_device_read(nbytes)),
        ("pingpong", lambda: w_pingpong(nbytes)),
        ("epoch_loop", lambda: w_epoch_loop(min(nbytes, 64 * MiB))),
    ]
    warm_up()
    out = {}
    for i, (name, fn) in enumerate(jobs):
        r = fn()
        if isinstance(r, dict):
            for k, v in r.items():
                out[f"{name}_{k}"] = round(float(v), 6)
        else:
            out[name] = round(float(r), 6)
        if progress:
            progress(i + 1, len(jobs), name)
    return out


