"""Fit-only probes for the mechanisms the model lacked (issue 11, 2026-12-01, second pass).

FIT data, like ``small_bench.py``: every size here is one the validation set
(``umkit/validation.py``) and the UnifiedMemoryPerf table (4 KB .. 16 MB per matrix, n = 32 ..
2048) do not use.  Sections:

* ``packing``: small managed buffers allocated back to back, CPU-written, then read by the GPU
  one by one in allocation order, each read event-timed -- which of them fault (if the driver
  packs small allocations into one VA block, its prefetcher brings neighbours in with the first
  faults and the later buffers need none) -- and the same as one host-timed loop;
* ``fresh``: the validation set's pattern -- allocate, CPU-write, read once -- with a fresh
  one-element sink and stream per read vs kept ones, for zero-copy, copy+read, fault and
  prefetch reads: what the first use of freshly allocated memory costs;
* ``host``: the CPU filling / copying / summing pinned and pageable memory at sizes between the
  small_bench sweep's (128 KiB .. 32 MiB): where the CPU's caches end;
* ``partial``: prefetch a fraction of a buffer to the GPU, then read all of it (16, 256 MiB);
* ``pingpong``: the GPU increments a managed buffer, the CPU reads one float per stride;
* ``umperf``: the UnifiedMemoryPerf port at matrix sizes the sample does not use
  (n = 96, 192, 352, 736, 1504: 36 KB .. 8.6 MB);
* ``back`` (third pass): GPU-resident managed memory at 8 and 128 MiB read by the CPU after a
  prefetch of a quarter or all of it back to the CPU (the prefetch and the read timed apart),
  by faults alone, by faults with preferred location GPU, and CPU-resident memory summed in the
  same lease (the host's rate there);
* ``edits``: an 8 MiB GPU-resident managed buffer; the CPU writes its first 256 KiB or 1 MiB,
  then the GPU reads it by faults, after a prefetch of the written part, after a prefetch of
  the whole buffer; a prefetch of an already resident buffer (nothing to move) timed alone;
* ``fresh_pinned``: zero-copy vs copy + read at 8 and 512 KiB where the pinned buffer itself is
  freshly allocated (``fresh`` reuses the zero-copy read's pinned buffer for its copy);
* ``cycles`` (fourth pass): three managed buffers of 1.5 or 6 MiB taken round the
  UnifiedMemoryPerf loop six times -- the CPU writes two from a NumPy array and sums the third,
  all three are prefetched to the GPU, touched there, prefetched back -- each step timed apart;
  the first lap (fresh buffers) and the median of the later laps (buffers that have been round
  the loop) are kept apart; the same CPU steps on managed buffers that never left the CPU and
  on pinned buffers, for the host's rates in the same lease.
* ``duplex`` (fifth pass): zero-copy kernels on pinned memory that only read, only write, or
  read and write (increment) 6 and 48 MiB, and the same on device memory: whether the link
  carries a kernel's reads and writes one after the other or in its two directions at once.
* ``loop`` (sixth pass): ``edits`` repeated -- an 8 MiB GPU-resident managed buffer, the CPU
  writes its first 256 KiB or 1 MiB, the GPU reads the whole buffer by faults or after a
  prefetch of the written part, 8 rounds -- back to back, and with 2 ms of host sleep between
  the rounds (past NVIDIA UVM's thrashing lapse, 500 us: ``uvm_perf_thrashing.c``,
  ``UVM_PERF_THRASHING_LAPSE_USEC_DEFAULT``; a page migrated again within it counts a
  thrashing event, and 3 of them start the driver's thrashing mitigation).  Each round's CPU
  write (host) and GPU read (events) apart; then the same loops again with the driver's
  unified-memory counters on (cuda: CUPTI -- thrashing, throttling, remote maps, faults) per
  round, where the backend has them (the timed pass runs without them: recording costs time).

    umkit measure run fit [--out fit_probe.json] [--quick]   (sim: UMKIT_BACKEND=sim)
"""
from __future__ import annotations


import numpy as np

import umkit
from .small import gpu_ms, host_ms, med, sweep_host

KiB, MiB = 1 << 10, 1 << 20


def _cpu_written(nb):
    a = umkit.managed(max(1, nb // 4))
    a.host[:] = 1.0
    umkit.synchronize()
    return a


def packing():
    out = {}
    sink = umkit.device_array(1)
    for count, nb in ((32, 8 * KiB), (32, 32 * KiB), (32, 128 * KiB), (16, 1 * MiB)):
        reps = []
        for _ in range(3):
            bufs = [umkit.managed(nb // 4) for _ in range(count)]
            for b in bufs:
                b.host[:] = 1.0
            umkit.synchronize()
            reps.append([gpu_ms(lambda: umkit.touch(b, 4, sink=sink)) for b in bufs])
            for b in bufs:
                b.free()
        loops = []
        for _ in range(3):
            bufs = [umkit.managed(nb // 4) for _ in range(count * 4)]
            for b in bufs:
                b.host[:] = 1.0
            umkit.synchronize()
            loops.append(host_ms(lambda: [umkit.touch(b, 4, sink=sink) for b in bufs]))
            for b in bufs:
                b.free()
        out[f"{count}x{nb}"] = dict(each_event_ms=[float(np.median(c)) for c in zip(*reps)],
                                    loop_count=count * 4, loop_host_ms=float(np.median(loops)))
    sink.free()
    return out


def fresh():
    out = {}
    for nb in (8 * KiB, 512 * KiB, 8 * MiB):
        n = nb // 4
        r: dict = {}
        keep = umkit.device_array(1)
        kst = umkit.Stream()
        for _ in range(3):
            for sink_kind in ("fresh", "kept"):
                def sink():
                    return umkit.device_array(1) if sink_kind == "fresh" else keep

                h = umkit.pinned(n)
                h.host[:] = 1.0
                s = sink()
                r.setdefault(f"zero_copy_{sink_kind}_sink_ms", []).append(
                    gpu_ms(lambda: umkit.touch(h, 4, sink=s)))
                if s is not keep:
                    s.free()
                d = umkit.device_array(n)
                s = sink()
                r.setdefault(f"copy_read_{sink_kind}_sink_ms", []).append(
                    gpu_ms(lambda: (umkit.copy(d, h), umkit.touch(d, 4, sink=s))))
                r.setdefault(f"copy_read_again_{sink_kind}_sink_ms", []).append(
                    gpu_ms(lambda: (umkit.copy(d, h), umkit.touch(d, 4, sink=s))))
                if s is not keep:
                    s.free()
                d.free()
                h.free()
                a = _cpu_written(nb)
                s = sink()
                r.setdefault(f"fault_read_{sink_kind}_sink_ms", []).append(
                    gpu_ms(lambda: umkit.touch(a, 4, sink=s)))
                if s is not keep:
                    s.free()
                a.free()
            for st_kind in ("fresh", "kept"):
                a = _cpu_written(nb)
                st = umkit.Stream() if st_kind == "fresh" else kst

                def go():
                    a.prefetch("gpu", stream=st)
                    umkit.touch(a, 4, sink=keep, stream=st)
                r.setdefault(f"prefetch_read_{st_kind}_stream_ms", []).append(gpu_ms(go, st))
                a.free()
        keep.free()
        out[nb] = {k: float(np.median(v)) for k, v in r.items()}
    return out


def host():
    # small_bench's host sweep at the sizes between its own (run 14 stored a scalar with
    # h[:] = 2.0 where small_bench calls h.fill(2.0): the same memset)
    return sweep_host((128 * KiB, 512 * KiB, 2 * MiB, 8 * MiB, 32 * MiB))

def partial():
    out = {}
    for nb in (16 * MiB, 256 * MiB):
        r = {}
        for frac in (0.0, 0.25, 0.5, 1.0):
            vals = []
            for _ in range(3):
                a = _cpu_written(nb)
                st = umkit.Stream()
                sink = umkit.device_array(1)
                part = int(nb * frac) // 65536 * 65536

                def go():
                    if part:
                        umkit.prefetch(a, "gpu", stream=st, offset=0, nbytes=part)
                    umkit.touch(a, 4, sink=sink, stream=st)
                vals.append(gpu_ms(go, st))
                sink.free()
                a.free()
            r[f"prefetch_{frac}_then_read_ms"] = float(np.median(vals))
        out[nb] = r
    return out


def pingpong():
    out = {}
    for nb, stride in ((16 * MiB, 256 * KiB), (16 * MiB, 64 * KiB), (256 * MiB, 4 * MiB),
                       (256 * MiB, 512 * KiB)):
        a = _cpu_written(nb)
        h = a.host

        def one():
            umkit.increment(a)
            umkit.synchronize()
            float(h[::stride // 4].sum())
        one()
        gpu_part = []

        def gpu_only():
            umkit.increment(a)
            umkit.synchronize()
        cpu_part = []
        for _ in range(3):
            gpu_part.append(host_ms(gpu_only))
            cpu_part.append(host_ms(lambda: float(h[::stride // 4].sum())))
        out[f"{nb}_stride_{stride}"] = dict(iter_ms=med(lambda: host_ms(one), 3),
                                            gpu_increment_ms=float(np.median(gpu_part)),
                                            cpu_read_ms=float(np.median(cpu_part)))
        a.free()
    return out


def back():
    out = {}
    for nb in (8 * MiB, 128 * MiB):
        r: dict = {}
        for _ in range(3):
            for case in ("back_0.25", "back_1.0", "faults", "preferred_gpu", "resident"):
                a = _cpu_written(nb)
                h = a.host
                if case == "preferred_gpu":
                    a.advise("preferred_location", "gpu")
                if case != "resident":
                    a.prefetch("gpu")
                umkit.synchronize()
                t0 = umkit.now()
                if case.startswith("back_"):
                    part = int(nb * float(case[5:])) // 65536 * 65536
                    umkit.prefetch(a, "cpu", offset=0, nbytes=part)
                    umkit.synchronize()
                t1 = umkit.now()
                float(h.sum())
                t2 = umkit.now()
                if case.startswith("back_"):
                    r.setdefault(f"{case}_prefetch_ms", []).append((t1 - t0) * 1e3)
                r.setdefault(f"{case}_read_ms", []).append((t2 - t1) * 1e3)
                a.free()
        out[nb] = {k: float(np.median(v)) for k, v in r.items()}
    return out


def edits():
    out = {}
    nb = 8 * MiB
    sink = umkit.device_array(1)
    st = umkit.Stream()
    for part in (256 * KiB, MiB):
        r: dict = {}
        for _ in range(3):
            for case in ("faults", "prefetch_part", "prefetch_whole"):
                a = _cpu_written(nb)
                a.prefetch("gpu", stream=st)
                umkit.touch(a, 4, sink=sink, stream=st)
                st.synchronize()
                h = a.host
                r.setdefault(f"{case}_cpu_write_ms", []).append(
                    host_ms(lambda: h.__setitem__(slice(0, part // 4), 2.0)))

                def go():
                    if case == "prefetch_part":
                        umkit.prefetch(a, "gpu", stream=st, offset=0, nbytes=part)
                    elif case == "prefetch_whole":
                        a.prefetch("gpu", stream=st)
                    umkit.touch(a, 4, sink=sink, stream=st)
                r.setdefault(f"{case}_read_ms", []).append(gpu_ms(go, st))
                if case == "prefetch_whole":
                    # everything is on the GPU now: a prefetch with nothing to move
                    r.setdefault("prefetch_resident_host_ms", []).append(
                        host_ms(lambda: a.prefetch("gpu", stream=st)))
                    r.setdefault("prefetch_resident_event_ms", []).append(
                        gpu_ms(lambda: a.prefetch("gpu", stream=st), st))
                a.free()
        out[part] = {k: float(np.median(v)) for k, v in r.items()}
    st.synchronize()
    sink.free()
    return out


def fresh_pinned():
    out = {}
    for nb in (8 * KiB, 512 * KiB):
        n = nb // 4
        r: dict = {}
        for i in range(6):
            for case in (("zero_copy", "copy_read") if i % 2 else ("copy_read", "zero_copy")):
                h = umkit.pinned(n)
                h.host[:] = 1.0
                d = umkit.device_array(n) if case == "copy_read" else None
                s = umkit.device_array(1)
                if d is None:
                    r.setdefault(case + "_ms", []).append(
                        gpu_ms(lambda: umkit.touch(h, 4, sink=s)))
                else:
                    r.setdefault(case + "_ms", []).append(
                        gpu_ms(lambda: (umkit.copy(d, h), umkit.touch(d, 4, sink=s))))
                    d.free()
                s.free()
                h.free()
        out[nb] = {k: float(np.median(v)) for k, v in r.items()}
    return out


def cycles(laps=6):
    out = {}
    st = umkit.Stream()
    sink = umkit.device_array(1)
    for nb in (3 * MiB // 2, 6 * MiB):
        n = nb // 4
        X = np.arange(n, dtype=np.float32)
        r: dict = {}
        for kind in ("managed", "resident", "pinned"):
            bufs = [umkit.empty(n, "float32", "pinned" if kind == "pinned" else "managed")
                    for _ in range(3)]
            hA, hB, hC = (b.host for b in bufs)
            for h in (hA, hB, hC):
                h[:] = 0.0
            umkit.synchronize()
            steps: dict = {}
            for lap in range(laps):
                def write():
                    hA[:] = X
                    hB[:] = X
                steps.setdefault("cpu_write", []).append(host_ms(write))
                steps.setdefault("cpu_sum", []).append(host_ms(lambda: float(hC.sum())))
                if kind == "managed":
                    def to_gpu():
                        for b in bufs:
                            b.prefetch("gpu", stream=st)
                        st.synchronize()

                    def touch():
                        for b in bufs:
                            umkit.touch(b, 4, sink=sink, stream=st)
                        st.synchronize()

                    def back():
                        for b in bufs:
                            b.prefetch("cpu", stream=st)
                        st.synchronize()
                    steps.setdefault("to_gpu", []).append(host_ms(to_gpu))
                    steps.setdefault("touch", []).append(host_ms(touch))
                    steps.setdefault("back", []).append(host_ms(back))
            for k, v in steps.items():
                r[f"{kind}_{k}_first_ms"] = float(v[0])
                r[f"{kind}_{k}_later_ms"] = float(np.median(v[1:]))
            for b in bufs:
                b.free()
        out[nb] = r
    sink.free()
    return out


def duplex(reps=5):
    """Zero-copy kernels on pinned memory that only read (touch), only write (fill), or read
    and write every element (increment), at 6 and 48 MiB, and the same kernels on device memory
    (HBM baseline): whether the link carries a kernel's reads and its writes one after the other
    (increment = read + fill) or at once, in its two directions (increment ~ max(read, fill))."""
    out = {}
    for nb in (6 * MiB, 48 * MiB):
        n = nb // 4
        r: dict = {}
        for kind in ("pinned", "device"):
            a = umkit.empty(n, "float32", kind)
            sink = umkit.device_array(1)
            umkit.fill(a, 1.0)
            umkit.synchronize()
            for i in range(reps):
                for case, fn in (("read", lambda: umkit.touch(a, 4, sink=sink)),
                                 ("write", lambda: umkit.fill(a, 2.0)),
                                 ("read_write", lambda: umkit.increment(a))):
                    r.setdefault(f"{kind}_{case}_ms", []).append(gpu_ms(fn))
            a.free()
            sink.free()
        out[nb] = {k: float(np.median(v)) for k, v in r.items()}
    return out


def loop(rounds=8, gap_s=0.002):
    """See the module docstring (``loop``)."""
    import time
    out = {}
    nb = 8 * MiB
    sink = umkit.device_array(1)
    st = umkit.Stream()
    model_time = umkit.backend().supports("model_time")

    def one(part, case, gap, counted):
        a = _cpu_written(nb)
        a.prefetch("gpu", stream=st)
        umkit.touch(a, 4, sink=sink, stream=st)
        st.synchronize()
        h = a.host
        r: dict = {}
        for _ in range(rounds):
            if gap and not model_time:      # (sim: the model's clock does not see the host sleep)
                time.sleep(gap)
            c0 = umkit.counters() if counted else None
            r.setdefault("cpu_write_ms", []).append(
                host_ms(lambda: h.__setitem__(slice(0, part // 4), 2.0)))

            def go():
                if case == "prefetch":
                    umkit.prefetch(a, "gpu", stream=st, offset=0, nbytes=part)
                umkit.touch(a, 4, sink=sink, stream=st)
            r.setdefault("read_ms", []).append(gpu_ms(go, st))
            if counted:
                c1 = umkit.counters()
                for k in ("thrashing", "throttling", "remote_maps", "gpu_faults", "cpu_faults",
                          "bytes_h2d", "bytes_d2h"):
                    r.setdefault(k, []).append(int(c1.get(k, 0)) - int(c0.get(k, 0)))
        a.free()
        return r

    counted = False
    if umkit.backend().name != "sim":       # sim counts always, but has no thrashing counters
        try:
            umkit.counters_on()
            counted = True
            umkit.counters_off()
        except umkit.UmkitError as e:
            out["counters_unavailable"] = f"{type(e).__name__}: {e}"
    for part in (256 * KiB, MiB):
        for case in ("faults", "prefetch"):
            for gap in (0.0, gap_s):
                key = f"{part}_{case}_{'spaced' if gap else 'tight'}"
                out[key] = one(part, case, gap, False)
                if counted:
                    umkit.counters_on()
                    out[key]["counted"] = one(part, case, gap, True)
                    umkit.counters_off()
    st.synchronize()
    sink.free()
    out["counters"] = counted
    return out


SECTIONS = ("packing", "fresh", "host", "partial", "pingpong", "umperf", "back", "edits",
            "fresh_pinned", "cycles", "duplex", "loop")


def umperf(quick=False):
    from umkit.measure import umperf as u
    # multiples of the kernel's 32-wide tile that are not the sample's powers of two
    dims = (96, 192) if quick else (96, 192, 352, 736, 1504)
    return u.run_all(5 if quick else 20, dims, progress=False)
