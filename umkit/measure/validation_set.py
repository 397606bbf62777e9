"""The model's *validation set*: workloads the sim profile is never fitted to.

``umkit calibrate`` fits the profile to the 20 workloads of :mod:`umkit.measure.calibrate` (the *fit
set*).  The workloads here are kept apart: written only against the public API (managed /
pinned / device arrays, prefetch, advise, touch and the kit's kernels, copy, read_back, streams,
synchronize, :mod:`umkit.workloads` strategies), they run unchanged on any backend, and
``umkit calibrate --compare`` reports how close sim comes to the card on them *separately* from
the fit set.  Nothing in :func:`umkit.measure.calibrate.fit` reads them.

Each workload returns milliseconds: device events around GPU work (model time on sim), or
``umkit.now()`` around a synchronized host region.  Workloads in one ``group`` do the same task
with different strategies; the comparison checks that sim orders them as the card does.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import api
from .. import runtime
from .. import workloads
from .fit_set import w_prefetch             # the fit set's prefetch workload, here at 1 MiB
from .timing import Sink, cpu_written, free_all, gpu_ms, host_ms, warm_up, written   # both sets time alike

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


@dataclass(frozen=True)
class Workload:
    name: str
    group: str            # same task, different strategy: sim must order them as the card does
    fn: Callable[[], float]
    gpus: int = 1         # GPUs it needs (skipped where fewer)
    note: str = ""


# -- helpers (public API only) --------------------------------------------------------------------
def _median(fn, n=3):
    return float(np.median([fn() for _ in range(n)]))


# -- one GPU read of data the CPU wrote, by strategy --------------------------------------------------
def read_faults(nbytes, stride=4):
    """managed, no hints: the GPU faults the pages in."""
    with written(nbytes) as a:
        with Sink() as s:
            return gpu_ms(lambda: api.touch(a, stride, sink=s))


def read_prefetch(nbytes):
    """managed + prefetch on a stream, then the read (both timed)."""
    a = cpu_written(nbytes)
    st = api.Stream()
    try:
        with Sink() as s:
            def go():
                a.prefetch("gpu", stream=st)
                api.touch(a, 4, sink=s, stream=st)
            return gpu_ms(go, st)
    finally:
        a.free()


def read_zero_copy(nbytes):
    """pinned host memory read in place by the GPU (zero-copy)."""
    h = api.pinned(max(1, nbytes // 4))
    try:
        h.host[:] = 1.0
        with Sink() as s:
            return gpu_ms(lambda: api.touch(h, 4, sink=s))
    finally:
        h.free()


def read_copy(nbytes):
    """explicit: pinned staging -> device copy, then the read from device memory (both timed)."""
    h, d = api.pinned(max(1, nbytes // 4)), api.device_array(max(1, nbytes // 4))
    try:
        h.host[:] = 1.0
        with Sink() as s:
            def go():
                api.copy(d, h)
                api.touch(d, 4, sink=s)
            return gpu_ms(go)
    finally:
        free_all(h, d)


def read_accessed_by(nbytes):
    """preferred location CPU + accessed-by GPU: the first read maps the pages (timed)."""
    with written(nbytes) as a:
        a.advise("preferred_location", "cpu")
        a.advise("accessed_by", "gpu")
        with Sink() as s:
            return gpu_ms(lambda: api.touch(a, 4, sink=s))


def read_read_mostly(nbytes):
    """read-mostly advice: the first GPU read copies the pages (the CPU keeps its copy)."""
    with written(nbytes) as a:
        a.advise("read_mostly")
        with Sink() as s:
            return gpu_ms(lambda: api.touch(a, 4, sink=s))


def read_preferred_gpu(nbytes):
    """preferred location GPU, no prefetch: the read faults the pages over."""
    with written(nbytes) as a:
        a.advise("preferred_location", "gpu")
        with Sink() as s:
            return gpu_ms(lambda: api.touch(a, 4, sink=s))


# -- small transfers ------------------------------------------------------------------------------
def pinned_copy(nbytes, direction):
    h, d = api.pinned(max(1, nbytes // 4)), api.device_array(max(1, nbytes // 4))
    try:
        h.host[:] = 1.0
        src, dst = (h, d) if direction == "h2d" else (d, h)
        api.copy(dst, src)          # warm the path (first copy of a size pays set-up)
        api.synchronize()
        return _median(lambda: gpu_ms(lambda: api.copy(dst, src)))
    finally:
        free_all(h, d)


def cpu_fill(nbytes, kind):
    """The CPU writes a buffer that is already resident in host memory (second write)."""
    a = api.empty(max(1, nbytes // 4), "float32", kind)
    try:
        a.host[:] = 0.0
        h = a.host
        return _median(lambda: host_ms(lambda: h.__setitem__(slice(None), 2.0)))
    finally:
        a.free()


# -- allocation-heavy code ---------------------------------------------------------------------------
def many_buffers_touched(count, nbytes):
    """``count`` small managed buffers, CPU-written, each read once by the GPU (host-timed)."""
    bufs = [cpu_written(nbytes) for _ in range(count)]
    try:
        with Sink() as s:
            def go():
                for b in bufs:
                    api.touch(b, 4, sink=s)
            return host_ms(go)
    finally:
        free_all(*bufs)


def allocfree_all(count, nbytes, kind):
    """Allocate and free ``count`` buffers (host-timed)."""
    def go():
        xs = [api.empty(max(1, nbytes // 4), "float32", kind) for _ in range(count)]
        for x in xs:
            x.free()
    return host_ms(go)


# -- read-mostly, a small CPU write, a GPU re-read -------------------------------------------------------
def read_mostly_write_reread(nbytes, write_bytes):
    with written(nbytes) as a:
        a.advise("read_mostly")
        with Sink() as s:
            api.touch(a, 4, sink=s)
            api.synchronize()
            a.host[: max(1, write_bytes // 4)] = 3.0     # the CPU writes a little
            api.synchronize()
            return gpu_ms(lambda: api.touch(a, 4, sink=s))


def read_mostly_reread(nbytes):
    """read-mostly: GPU read, CPU read (no write), GPU re-read (local copies) -- the re-read timed."""
    with written(nbytes) as a:
        a.advise("read_mostly")
        with Sink() as s:
            api.touch(a, 4, sink=s)
            api.synchronize()
            float(a.host[::1024].sum())
            api.synchronize()
            return gpu_ms(lambda: api.touch(a, 4, sink=s))


# -- round trips: GPU update, then the host gets the result ------------------------------------------------
def roundtrip_read_back(nbytes, kind):
    """GPU increments the array, ``read_back`` copies it to the host (per-iteration host ms)."""
    a = api.empty(max(1, nbytes // 4), "float32", kind)
    try:
        api.fill(a, 1.0)
        api.synchronize()
        api.read_back(a)                # allocates the reused pinned staging buffer: untimed

        def one():
            api.increment(a)
            api.read_back(a)
        one()
        return _median(lambda: host_ms(one))
    finally:
        a.free()


def roundtrip_cpu_faults(nbytes):
    """GPU increments a managed array, the CPU reads all of it through its mapping (faults back)."""
    with written(nbytes) as a:
        h = a.host

        def one():
            api.increment(a)
            api.synchronize()
            float(h.sum())
        one()
        return _median(lambda: host_ms(one))


def roundtrip_prefetch_back(nbytes):
    """GPU increments, the array is prefetched back to the CPU, then the CPU reads it."""
    a = cpu_written(nbytes)
    st = api.Stream()
    try:
        h = a.host

        def one():
            a.prefetch("gpu", stream=st)
            api.increment(a, stream=st)
            a.prefetch("cpu", stream=st)
            st.synchronize()
            float(h.sum())
        one()
        return _median(lambda: host_ms(one))
    finally:
        a.free()


def pingpong_sparse(nbytes, stride_bytes):
    """GPU increments everything, the CPU reads one float per ``stride_bytes`` (host ms/iter)."""
    with written(nbytes) as a:
        h = a.host

        def one():
            api.increment(a)
            api.synchronize()
            float(h[::stride_bytes // 4].sum())
        one()
        return _median(lambda: host_ms(one))


# -- streams and overlap -------------------------------------------------------------------------------
def two_streams_prefetch_read(nbytes):
    """Two arrays of half the size, each prefetched and read on its own stream (host-timed:
    the streams overlap)."""
    a, b = cpu_written(nbytes // 2), cpu_written(nbytes // 2)
    s1, s2 = api.Stream(), api.Stream()
    try:
        with Sink() as k1, Sink() as k2:
            def go():
                a.prefetch("gpu", stream=s1)
                b.prefetch("gpu", stream=s2)
                api.touch(a, 4, sink=k1, stream=s1)
                api.touch(b, 4, sink=k2, stream=s2)
                s1.synchronize()
                s2.synchronize()
            return host_ms(go)
    finally:
        free_all(a, b)


def one_stream_prefetch_read(nbytes):
    """The same two arrays, one after the other on one stream (host-timed)."""
    a, b = cpu_written(nbytes // 2), cpu_written(nbytes // 2)
    s1 = api.Stream()
    try:
        with Sink() as k1:
            def go():
                for x in (a, b):
                    x.prefetch("gpu", stream=s1)
                    api.touch(x, 4, sink=k1, stream=s1)
                s1.synchronize()
            return host_ms(go)
    finally:
        free_all(a, b)


def copy_compute_overlap(nbytes):
    """A pinned->device copy on one stream while a kernel reads another device array on a
    second stream (host-timed)."""
    h, d, w = api.pinned(nbytes // 4), api.device_array(nbytes // 4), api.device_array(nbytes // 4)
    s1, s2 = api.Stream(), api.Stream()
    try:
        h.host[:] = 1.0
        api.fill(w, 1.0)
        api.synchronize()
        with Sink() as k:
            def go():
                api.copy(d, h, stream=s1)
                for _ in range(8):
                    api.touch(w, 4, sink=k, stream=s2)
                s1.synchronize()
                s2.synchronize()
            return host_ms(go)
    finally:
        free_all(h, d, w)


# -- partial prefetch -----------------------------------------------------------------------------------
def partial_prefetch_read(nbytes, fraction):
    """Prefetch the first ``fraction`` to the GPU, then read all of it (the rest faults)."""
    a = cpu_written(nbytes)
    st = api.Stream()
    try:
        with Sink() as s:
            part = int(a.nbytes * fraction) // 65536 * 65536

            def go():
                api.prefetch(a, "gpu", stream=st, offset=0, nbytes=part)
                api.touch(a, 4, sink=s, stream=st)
            return gpu_ms(go, st)
    finally:
        a.free()


def partial_prefetch_back(nbytes, fraction):
    """GPU-resident pages; prefetch ``fraction`` back to the CPU, then the CPU reads all of it."""
    with written(nbytes) as a:
        a.prefetch("gpu")
        api.synchronize()
        part = int(a.nbytes * fraction) // 65536 * 65536
        h = a.host

        def go():
            api.prefetch(a, "cpu", offset=0, nbytes=part)
            api.synchronize()
            float(h.sum())
        return host_ms(go)


def preferred_gpu_cpu_read(nbytes):
    """preferred location GPU + prefetched; the CPU then reads it all (faults back anyway)."""
    with written(nbytes) as a:
        a.advise("preferred_location", "gpu")
        a.prefetch("gpu")
        api.synchronize()
        h = a.host
        return host_ms(lambda: float(h.sum()))


# -- the workloads module's training step -----------------------------------------------------------------
def training(strat, patt, nbytes, steps=6):
    r = workloads.run(strat, workloads.Pattern(patt, every=2) if patt == "cpu_stats" else patt,
                      steps=steps, nbytes=nbytes)
    return r.summary()["median_ms"]


def epoch_loop_edit(nbytes, use_prefetch):
    r = workloads.epoch_loop(nbytes // 4, epochs=3, use_prefetch=use_prefetch, cpu_edit=True)
    return float(np.median(r["epoch_ms"][1:]))


# -- two GPUs --------------------------------------------------------------------------------------------
def peer_prefetch(nbytes):
    a = cpu_written(nbytes)
    st = api.Stream(1)
    try:
        a.prefetch("gpu0")
        api.synchronize()
        return gpu_ms(lambda: a.prefetch("gpu1", stream=st), st)
    finally:
        a.free()


def kernel_on_array_device(nbytes, advice=None):
    """An array allocated with device=1 whose pages sit on GPU 0, read by a default-stream
    kernel: the kernel runs on the array's device (GPU 1) and pulls the pages across."""
    a = api.managed(nbytes // 4, device=1)
    try:
        a.host[:] = 1.0
        if advice == "accessed_by":
            a.advise("accessed_by", "gpu1")
        a.prefetch("gpu0")
        api.synchronize()
        sink = api.device_array(1, device=1)
        try:
            return host_ms(lambda: api.touch(a, 4, sink=sink))
        finally:
            sink.free()
    finally:
        a.free()


def peer_copy(nbytes):
    d0, d1 = api.device_array(nbytes // 4, device=0), api.device_array(nbytes // 4, device=1)
    try:
        api.fill(d0, 1.0)
        api.synchronize()
        return host_ms(lambda: api.copy(d1, d0))
    finally:
        free_all(d0, d1)


# -- advice, strided faults by buffer size, small buffers (issue 27's three classes) ------------------
def advise_cost(nbytes, advice, where, resident, unset=False):
    """The host time of one ``advise`` call on a managed range the CPU wrote ('cpu'), then
    prefetched to the GPU ('gpu'); ``unset``: the unset that follows a set."""
    a = cpu_written(nbytes)
    try:
        if resident == "gpu":
            a.prefetch("gpu")
            api.synchronize()
        if unset:
            a.advise(advice, where)
            return host_ms(lambda: a.advise(advice, where, unset=True))
        return host_ms(lambda: a.advise(advice, where))
    finally:
        a.free()


def small_read(nbytes):
    """A fresh CPU-written managed buffer read once by the GPU by faults, host-timed (launch,
    faults and the synchronize, as a training loop's step sees it)."""
    with written(nbytes) as a:
        with Sink() as s:
            return host_ms(lambda: api.touch(a, 4, sink=s))


def small_roundtrip(nbytes, iters=6):
    """The CPU writes a managed buffer, the GPU increments it, the CPU sums it: the median of
    ``iters`` host-timed round trips after the first."""
    with written(nbytes) as a:
        def one():
            a.host[:] = 2.0
            api.increment(a)
            api.synchronize()
            float(a.host.sum())
        one()
        return _median(lambda: host_ms(one), iters)


# -- the set ---------------------------------------------------------------------------------------------
def _w(name, group, fn, gpus=1, note=""):
    return Workload(name, group, fn, gpus, note)


def workloads_list() -> list[Workload]:
    W = []
    # one GPU read of CPU-written data: 6 strategies at 4 MiB and 64 MiB
    for size, tag in ((4 * MiB, "4m"), (64 * MiB, "64m")):
        g = f"gpu_read_{tag}"
        W += [_w(f"read_faults_{tag}", g, lambda s=size: read_faults(s)),
              _w(f"read_prefetch_{tag}", g, lambda s=size: read_prefetch(s)),
              _w(f"read_zero_copy_{tag}", g, lambda s=size: read_zero_copy(s)),
              _w(f"read_copy_{tag}", g, lambda s=size: read_copy(s)),
              _w(f"read_accessed_by_{tag}", g, lambda s=size: read_accessed_by(s)),
              _w(f"read_read_mostly_{tag}", g, lambda s=size: read_read_mostly(s))]
    W += [_w("read_preferred_gpu_64m", "gpu_read_64m", lambda: read_preferred_gpu(64 * MiB)),
          # small and large
          _w("read_faults_4k", "gpu_read_4k", lambda: read_faults(4 * KiB)),
          _w("read_zero_copy_4k", "gpu_read_4k", lambda: read_zero_copy(4 * KiB)),
          _w("read_copy_4k", "gpu_read_4k", lambda: read_copy(4 * KiB)),
          _w("read_faults_2m", "gpu_read_2m", lambda: read_faults(2 * MiB)),
          _w("read_zero_copy_2m", "gpu_read_2m", lambda: read_zero_copy(2 * MiB)),
          _w("read_faults_1g", "gpu_read_1g", lambda: read_faults(GiB)),
          _w("read_prefetch_1g", "gpu_read_1g", lambda: read_prefetch(GiB)),
          # small transfers (<= 4 MiB)
          _w("pinned_h2d_64k", "pinned_copy_64k", lambda: pinned_copy(64 * KiB, "h2d")),
          _w("pinned_d2h_64k", "pinned_copy_64k", lambda: pinned_copy(64 * KiB, "d2h")),
          _w("pinned_h2d_1m", "pinned_copy_1m", lambda: pinned_copy(MiB, "h2d")),
          _w("pinned_d2h_1m", "pinned_copy_1m", lambda: pinned_copy(MiB, "d2h")),
          _w("pinned_h2d_4m", "pinned_copy_4m", lambda: pinned_copy(4 * MiB, "h2d")),
          _w("prefetch_h2d_1m", "prefetch_1m", lambda: w_prefetch(MiB, "h2d")),
          _w("prefetch_d2h_1m", "prefetch_1m", lambda: w_prefetch(MiB, "d2h")),
          _w("cpu_fill_pinned_1m", "cpu_fill_1m", lambda: cpu_fill(MiB, "pinned")),
          _w("cpu_fill_managed_1m", "cpu_fill_1m", lambda: cpu_fill(MiB, "managed")),
          _w("cpu_fill_pinned_4m", "cpu_fill_4m", lambda: cpu_fill(4 * MiB, "pinned")),
          _w("cpu_fill_managed_64m", "cpu_fill_64m", lambda: cpu_fill(64 * MiB, "managed")),
          # allocation-heavy
          _w("many_200x64k_touched", "many_buffers", lambda: many_buffers_touched(200, 64 * KiB)),
          _w("many_200x4k_touched", "many_buffers_4k", lambda: many_buffers_touched(200, 4 * KiB)),
          _w("alloc_free_200_managed_1m", "alloc_200", lambda: allocfree_all(200, MiB, "managed")),
          _w("alloc_free_200_device_1m", "alloc_200", lambda: allocfree_all(200, MiB, "device")),
          # read-mostly, small CPU write, GPU re-read
          _w("rm_write_reread_64m", "rm_reread_64m",
             lambda: read_mostly_write_reread(64 * MiB, 64 * KiB)),
          _w("rm_reread_64m", "rm_reread_64m", lambda: read_mostly_reread(64 * MiB)),
          _w("rm_write_reread_16m", "rm_reread_16m",
             lambda: read_mostly_write_reread(16 * MiB, 4 * KiB)),
          # round trips
          _w("roundtrip_read_back_managed_4m", "roundtrip_4m", lambda: roundtrip_read_back(4 * MiB, "managed")),
          _w("roundtrip_cpu_faults_4m", "roundtrip_4m", lambda: roundtrip_cpu_faults(4 * MiB)),
          _w("roundtrip_read_back_device_16m", "roundtrip_16m", lambda: roundtrip_read_back(16 * MiB, "device")),
          _w("roundtrip_read_back_managed_16m", "roundtrip_16m", lambda: roundtrip_read_back(16 * MiB, "managed")),
          _w("roundtrip_cpu_faults_16m", "roundtrip_16m", lambda: roundtrip_cpu_faults(16 * MiB)),
          _w("roundtrip_prefetch_back_16m", "roundtrip_16m", lambda: roundtrip_prefetch_back(16 * MiB)),
          # CPU <-> GPU cycles
          _w("pingpong_64m_stride_1m", "pingpong_64m", lambda: pingpong_sparse(64 * MiB, MiB)),
          _w("pingpong_64m_stride_4k", "pingpong_64m", lambda: pingpong_sparse(64 * MiB, 4 * KiB)),
          _w("epoch_edit_16m_prefetch", "epoch_edit_16m", lambda: epoch_loop_edit(16 * MiB, True)),
          _w("epoch_edit_16m_faults", "epoch_edit_16m", lambda: epoch_loop_edit(16 * MiB, False)),
          # streams, overlap, partial prefetch, advice
          _w("two_streams_prefetch_read_64m", "streams", lambda: two_streams_prefetch_read(64 * MiB)),
          _w("one_stream_prefetch_read_64m", "streams", lambda: one_stream_prefetch_read(64 * MiB)),
          _w("copy_compute_overlap_64m", "overlap", lambda: copy_compute_overlap(64 * MiB)),
          _w("partial_prefetch_half_64m", "partial_64m", lambda: partial_prefetch_read(64 * MiB, 0.5)),
          _w("partial_prefetch_quarter_64m", "partial_64m", lambda: partial_prefetch_read(64 * MiB, 0.25)),
          _w("partial_prefetch_back_half_64m", "partial_back_64m", lambda: partial_prefetch_back(64 * MiB, 0.5)),
          _w("preferred_gpu_cpu_read_64m", "partial_back_64m", lambda: preferred_gpu_cpu_read(64 * MiB)),
          ]
    # advice is not free: one call's host time, by advice, residency and size
    W += [_w("advise_read_mostly_cpu_32m", "advise_rm_by_size",
             lambda: advise_cost(32 * MiB, "read_mostly", "gpu", "cpu")),
          _w("advise_read_mostly_cpu_256m", "advise_rm_by_size",
             lambda: advise_cost(256 * MiB, "read_mostly", "gpu", "cpu")),
          _w("advise_read_mostly_gpu_256m", "advise_256m",
             lambda: advise_cost(256 * MiB, "read_mostly", "gpu", "gpu")),
          _w("advise_preferred_gpu_cpu_256m", "advise_256m",
             lambda: advise_cost(256 * MiB, "preferred_location", "gpu", "cpu")),
          _w("advise_accessed_by_gpu_cpu_256m", "advise_256m",
             lambda: advise_cost(256 * MiB, "accessed_by", "gpu", "cpu")),
          _w("advise_unset_read_mostly_gpu_256m", "advise_256m",
             lambda: advise_cost(256 * MiB, "read_mostly", "gpu", "gpu", unset=True)),
          # strided GPU faults in a larger buffer (the fit set reads 256 MiB at these strides)
          _w("touch_4k_1g", "touch_4k_by_size", lambda: read_faults(GiB, 4 * KiB)),
          _w("touch_64k_384m", "touch_64k_by_size", lambda: read_faults(384 * MiB, 64 * KiB)),
          _w("touch_64k_1g", "touch_64k_by_size", lambda: read_faults(GiB, 64 * KiB)),
          # small buffers, host-timed
          _w("small_read_64k", "small_read", lambda: small_read(64 * KiB)),
          _w("small_read_1m", "small_read", lambda: small_read(MiB)),
          _w("small_read_4m", "small_read", lambda: small_read(4 * MiB)),
          _w("small_roundtrip_256k", "small_roundtrip", lambda: small_roundtrip(256 * KiB)),
          _w("small_roundtrip_16k", "small_roundtrip", lambda: small_roundtrip(16 * KiB)),
          ]
    # the workloads module's strategies (training step, CPU statistics every 2 steps)
    for s in workloads.STRATEGIES:
        W.append(_w(f"train_{s}_cpu_stats_16m", "train_cpu_stats",
                    lambda s=s: training(s, "cpu_stats", 16 * MiB)))
    for s in ("managed", "managed+prefetch", "pinned"):
        W.append(_w(f"train_{s}_cpu_edits_16m", "train_cpu_edits",
                    lambda s=s: training(s, "cpu_edits", 16 * MiB)))
    # two GPUs
    W += [_w("peer_prefetch_64m", "peer", lambda: peer_prefetch(64 * MiB), gpus=2),
          _w("peer_copy_device_64m", "peer", lambda: peer_copy(64 * MiB), gpus=2),
          _w("kernel_on_array_device_64m", "peer_kernel", lambda: kernel_on_array_device(64 * MiB), gpus=2),
          _w("kernel_on_array_device_accessed_by_64m", "peer_kernel",
             lambda: kernel_on_array_device(64 * MiB, "accessed_by"), gpus=2)]
    return W


#: how often each workload runs on a GPU (fresh buffers each time); the median is reported.
#: One run is one cold measurement, and cold single shots on the H200 move by more than the
#: x/÷1.5 the model is judged by (docs/model-history.md, "Rounds and host speed").  sim is
#: deterministic: once.
REPEATS = 3


def run_validation(progress=None, only=None, repeats: int | None = None, raw: dict | None = None) -> dict:
    """Run the validation set on the active backend: {name: ms}, the median of ``repeats``
    runs of each workload (default :data:`REPEATS` on a GPU, 1 on sim; ``raw``, when given, gets
    every run's value); workloads needing more GPUs than the backend has are left out (see
    :func:`skipped`)."""
    n_gpus = api.device_count()
    if repeats is None:
        repeats = 1 if runtime.backend_name() == "sim" else REPEATS
    todo = [w for w in workloads_list() if w.gpus <= n_gpus and (only is None or w.name in only)]
    warm_up(min(n_gpus, 2))
    out = {}
    for i, w in enumerate(todo):
        vals = [round(float(w.fn()), 6) for _ in range(max(1, int(repeats)))]
        out[w.name] = round(float(np.median(vals)), 6)
        if raw is not None:
            raw[w.name] = vals
        if progress:
            progress(i + 1, len(todo), w.name)
    return out


def skipped(n_gpus: int) -> list[str]:
    return [w.name for w in workloads_list() if w.gpus > n_gpus]


def groups() -> dict:
    g: dict = {}
    for w in workloads_list():
        g.setdefault(w.group, []).append(w.name)
    return g
