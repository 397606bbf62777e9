"""The direct stage of a profile fit: every parameter that one measurement isolates, read off it in
the model's own terms (the formulas are those of ``umkit/sim/costs.py``, ``faults.py``,
``host.py`` and ``address_space.py``):

* host time per call: ``launch_overhead`` (100 kernel submits, host-timed), ``event_overhead``
  (events around nothing), ``copy_submit`` (100 copy submits); ``kernel_launch`` = one kernel +
  synchronize minus its submit;
* device rates and fixed costs from size sweeps: an event-timed operation takes
  ``event_overhead + submit + fixed + bytes / rate``, so ``hbm_bw``, ``copy_latency`` and the
  copy and prefetch rates come from the sweep points that the rate dominates;
* the CPU fault path as :func:`umkit.measure.calibrate.fit`; host rates in and out of the CPU's
  cache from the host sweep; ``first_touch_latency`` from the fit set's first CPU write;
* ``dup_refault_latency``: the slope, per 4 KiB page, of the GPU re-read of a read-mostly buffer
  after the CPU wrote k bytes of it;
* ``free_*`` and ``alloc_*`` from the alloc/free microbenchmark, ``fp32_flops`` from the
  UnifiedMemoryPerf kernel on device memory at sizes the sample does not use.

Its inputs are FIT data only: the fit set of ``umkit calibrate`` (a run's
``calibrate_compare.json``, "measured" -> "fit") and the size sweeps and fit-only probes
(``small_bench.json``, ``fit_probe.json``).  The validation set and the UnifiedMemoryPerf
tables are never read here.  Several files of one kind are pooled (:func:`pool`).

The GPU fault path's starting values computed here are replaced by the ``through_sim`` stage
(:mod:`.through_sim`), which fits them through the simulator.
"""
from __future__ import annotations

import numpy as np

from ...sim import device_size_term
from .. import calibrate

KiB, MiB = 1 << 10, 1 << 20
US, MS = 1e-6, 1e-3


def by_size(d: dict, size: int):
    return d.get(str(size), d.get(size))


def pool(docs: list[dict]):
    """One small_bench document from several runs: every number is the mean over the runs that
    have it (the lent machine varies from run to run; pooling the fit data averages that out)."""
    docs = [d for d in docs if d is not None]
    if all(isinstance(d, dict) for d in docs):
        keys = []
        for d in docs:
            keys += [k for k in d if k not in keys]
        return {k: pool([d.get(k) for d in docs if k in d]) for k in keys}
    if all(isinstance(d, (int, float)) and not isinstance(d, bool) for d in docs):
        return float(np.mean(docs))
    if all(isinstance(d, list) for d in docs) and len({len(d) for d in docs}) == 1 and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for d in docs for x in d):
        return [float(np.mean(col)) for col in zip(*docs)]
    return docs[-1]


def fit_device_memory(rows: list) -> dict:
    """``alloc_device`` + ``alloc_device_per_sqrt_mib`` (and ``free_device`` ...) from
    small_bench's device rows, [(bytes, {alloc_ms, free_ms})]: relative least squares of
    a + b * sqrt(MiB) over the sizes measured (``device_size_term``, as the model charges it);
    {key: (value in us, how)}."""
    pts = sorted((n, r) for n, r in rows if all(
        np.isfinite(r[f"{op}_ms"]) and r[f"{op}_ms"] > 0 for op in ("alloc", "free")))
    x = np.array([device_size_term(n) for n, _ in pts])
    if len(set(x.tolist())) < 2:
        raise ValueError(f"small_bench has device allocation times at {len(pts)} usable sizes: "
                         "the fit needs two or more, each with alloc_ms and free_ms > 0")
    sizes = ", ".join(f"{n // 1024} KiB" if n < MiB else f"{n // MiB} MiB" for n, _ in pts)
    out = {}
    for op, what in (("alloc", "device allocation"), ("free", "free of device allocations")):
        y = np.array([r[f"{op}_ms"] * MS / US for _, r in pts])
        a, b = calibrate.nnls(np.c_[np.ones_like(x), x] / y[:, None], np.ones_like(y))
        how = (f"{what} of {sizes} (20 each, host-timed): relative least squares of a + b * "
               f"sqrt(size in MiB), rms {np.sqrt(np.mean(((a + b * x) / y - 1) ** 2)):.1%}")
        out[f"{op}_device"] = (a, how + "; this is a")
        out[f"{op}_device_per_sqrt_mib"] = (
            b, how + "; this is b, in us per sqrt(MiB). The size is held to 16 KiB - 8 MiB, where "
            "it was measured; beyond 8 MiB that is an extrapolation no small_bench run checked")
    return out


def sources(calibrate_files: list[str], small_bench_files: list[str],
            fit_probe_files: list[str]) -> tuple[str, str, str]:
    """How the sources name the data: (the fit set, the size sweeps, the fit-only probes)."""
    fit_src = "the fit set of umkit calibrate (" + ", ".join(calibrate_files) + \
        (", pooled: each workload the mean over the runs)" if len(calibrate_files) > 1 else ")")
    sb_src = "benchmarks/small_bench.py (" + ", ".join(small_bench_files) + \
        (", pooled: each number the mean over the runs that measured it)"
         if len(small_bench_files) > 1 else ")")
    fp_src = "benchmarks/fit_probe.py (" + ", ".join(fit_probe_files) + ", pooled)"
    return fit_src, sb_src, fp_src


def fit(m: dict, sb: dict, cur: dict, data_names: tuple[str, str, str], who: str,
        fp: dict | None = None) -> tuple[dict, dict]:
    """The direct fit: ``m`` the fit set (pooled), ``sb`` the size sweeps (pooled), ``fp`` the
    fit-only probes (pooled, or None), ``cur`` the values the fit takes as given
    (``sync_device``, ``alloc_managed``), ``data_names`` what :func:`sources` returns and ``who``
    who measured on what and when.  Returns (values in the profile's units, source per
    parameter, the fault path's rows: name, measured ms, fitted ms)."""
    v, src = {}, {}
    fit_src, sb_src, fp_src = data_names

    def put(key, value, how, data):
        v[key] = float(value)
        src[key] = f"fitted: {how}; {who}, {data}"

    ls = sb["launch_sync"]
    sync = cur["sync_device"] * US
    L = ls["touch_4k_x100_host_ms"] * MS / 100
    put("launch_overhead", L / US, "host time per kernel submit (100 touches of 4 KiB, host-timed)", sb_src)
    K = ls["touch_4k_plus_sync_host_ms"] * MS - L - sync
    put("kernel_launch", K / US, "one 4 KiB touch + synchronize, host-timed, minus its submit and the "
        "synchronize", sb_src)
    cp = sb["copies"]
    tm = sb.get("timer", {})
    if "empty_timer_ms" in tm:
        E = tm["empty_timer_ms"] * MS
        put("event_overhead", E / US, "device events around nothing (umkit.timer with an empty block): "
            "the host's time between the two event records", sb_src)
    else:
        E = by_size(cp, 4 * KiB)["device_read_ms"] * MS - L - K
        put("event_overhead", E / US, "event-timed touch of 4 KiB of device memory minus the kernel "
            "submit and launch", sb_src)
    S_c = tm["copy_16k_x100_host_ms"] * MS / 100 if "copy_16k_x100_host_ms" in tm else 0.0
    if "copy_16k_x100_host_ms" in tm:
        put("copy_submit", S_c / US, "host time per copy submit (100 async 16 KiB copies)", sb_src)
    # (small_bench's prefetch_call_* times the first prefetch of a *fresh* range, 130-230 us of
    #  host time that includes the range's one-time set-up; no warm-range call is measured, so
    #  the prefetch's fixed cost stays in prefetch_*_latency, fitted from the event-timed sweep)
    S_p = 0.0

    # -- HBM: the fit set's one read of 256 MiB of freshly filled device memory (the sweep's
    #    repeated reads partly hit the GPU's 50 MB L2 and come out above the 4.8 TB/s peak)
    B = 256 * MiB
    hbm = B / (m["device_read"] * MS - E - L - K)
    put("hbm_bw", hbm / 1e9, "the fit set's event-timed read of 256 MiB of freshly filled device "
        "memory minus the timer, the submit and the kernel launch", fit_src)

    # -- copies: fixed cost + bytes/rate, relative least squares over the pinned-copy sweep
    #    (>= 4 MiB, where the bytes dominate the host's call times) and the fit set's 256 MiB
    B = 256 * MiB
    lats = []
    for d in ("h2d", "d2h"):
        rows = [(s, by_size(cp, s)[f"pinned_{d}_ms"] * MS - E - S_c) for s in (4 * MiB, 16 * MiB, 64 * MiB, 256 * MiB)]
        rows.append((B, m[f"pinned_{d}"] * MS - E - S_c))
        A = np.array([[1.0, s] for s, _ in rows])
        y = np.array([t for _, t in rows])
        x = calibrate.nnls(A / y[:, None], np.ones_like(y))
        lats.append(x[0])
        put(f"pinned_{d}_bw", (1 / x[1]) / 1e9, f"relative least squares, fixed + bytes/rate, over the "
            f"pinned {d} copy sweep 4-256 MiB and the fit set's 256 MiB copy (events), minus the event "
            "record and the submit",
            f"{sb_src}; {fit_src}")
    put("copy_latency", float(np.mean(lats)) / US, "the fixed part of the same fits (mean of h2d and d2h)",
        f"{sb_src}; {fit_src}")
    zc = B / (m["accessed_by"] * MS - E - L - K)
    put("zero_copy_bw", zc / 1e9, "GPU read of 256 MiB of CPU-preferred, accessed-by memory in place "
        "(events), minus event record, submit and kernel launch", fit_src)

    # -- GPU fault path
    ms_ = sb["managed"]
    batch, hp, gp, region = 256, 4096, 65536, 2 * MiB
    rows, y, names = [], [], []

    def nb(f):
        return -(-f // batch)
    for key, faults, nbyt, unmap, regions in (
            ("gpu_fault_read", B // hp, B, 1, B // region), ("gpu_touch_4k", B // hp, B, 1, B // region),
            ("gpu_touch_64k", B // gp, B, 1, B // region),
            ("gpu_touch_2m", B // region, (B // region) * gp, 1, B // region),
            ("read_mostly_first", B // hp, B, 0, B // region)):
        rows.append([1.0, nb(faults), nb(faults) * unmap, faults, regions, nbyt])
        y.append(m[key] * MS - E - L - K - B / hbm)
        names.append(key)
    for s in sorted(int(k) for k in ms_):
        faults = max(1, s // hp)
        rows.append([1.0, nb(faults), nb(faults), faults, max(1, -(-s // region)), max(s, gp)])
        y.append(by_size(ms_, s)["fault_read_ms"] * MS - E - L - K - s / hbm)
        names.append(f"sweep_fault_read_{s}")
    A, y = np.array(rows, float), np.array(y)
    G, Lb, U, f1, R, inv_bw = calibrate.nnls(A / y[:, None], np.ones_like(y))
    how = ("relative non-negative least squares (per kernel that faults starting on an idle GPU "
           "-- every fault read of the fit data does --, per batch, per unmapping "
           "batch, per fault, per 2 MiB region, bytes) over the fit set's GPU fault reads and the fault-read sweep 4 KiB - 256 MiB, "
           "minus event record, submit, launch and the local read")
    for key, val in (("fault_wakeup_latency", G / US), ("fault_batch_latency", Lb / US), ("fault_unmap_latency", U / US),
                     ("fault_latency", f1 / US), ("fault_region_latency", R / US),
                     ("fault_bw", (1 / inv_bw) / 1e9 if inv_bw > 0 else 1e3)):
        put(key, val, how, f"{fit_src}; {sb_src}")
    pred = A @ np.array([G, Lb, U, f1, R, inv_bw])
    fault_fit = [(n_, yy * 1e3, pp * 1e3) for n_, yy, pp in zip(names, y, pred)]

    # -- prefetch: one fixed cost per call (both directions) + bytes at each direction's rate,
    #    relative least squares over the prefetch sweeps (>= 1 MiB) and the fit set's 256 MiB
    # (each direction has its own fixed cost: at 4-64 KiB a prefetch to the GPU took ~0.12 ms
    #  and one to the CPU ~0.06 ms, events included -- one shared intercept fitted >= 1 MiB
    #  made small prefetches to the CPU 1.7x too slow)
    how = ("relative least squares, a fixed cost per call and bytes at the direction's rate, over "
           "the prefetch sweep 4 KiB - 256 MiB of that direction and the fit set's 256 MiB "
           "prefetch (events), minus the timer")
    # (starting values: the fixed part is refitted through the simulator below, with the
    #  prefetch call's host time and the range's set-up beside it)
    for d, lat_key in (("h2d", None), ("d2h", "prefetch_latency")):
        pts = [(int(s), by_size(ms_, s)[f"prefetch_{d}_ms"] * MS) for s in sorted(int(k) for k in ms_)]
        pts.append((B, m[f"prefetch_{d}"] * MS))
        A = np.array([[1.0, s_] for s_, _ in pts])
        y = np.array([t - E - S_p for _, t in pts])
        x = calibrate.nnls(A / y[:, None], np.ones_like(y))
        if lat_key:
            put(lat_key, x[0] / US, how, f"{sb_src}; {fit_src}")
        put(f"prefetch_{d}_bw", (1 / x[1]) / 1e9, how, f"{sb_src}; {fit_src}")

    # -- host: the host's own time per NumPy call (the 4 KiB points, where bytes take ~0.3 us),
    #    then rates out of cache (64, 256 MiB) and in it (256 KiB up to the knee), per kind; the
    #    sweep of small_bench and fit_probe's in-between sizes (128 KiB - 32 MiB) together
    hs = dict(sb["host"])
    for k_, r_ in (fp or {}).get("host", {}).items():
        hs.setdefault(k_, r_)
    sizes = sorted(int(k) for k in hs)
    host_ms0 = 2 * sync
    reads = ("pageable_sum_ms", "pinned_sum_ms")
    fills, copies = ("pageable_fill_ms", "pinned_fill_ms"), ("pageable_copy_ms", "pinned_copy_ms")
    hcl = float(np.median([by_size(hs, 4 * KiB)[k] * MS - host_ms0 for k in reads + fills + copies]))
    put("host_call_latency", hcl / US, "the host's time for one NumPy call on a 4 KiB view "
        "(fill, copy, sum; pageable and pinned; host-timed, minus the two synchronizes), median",
        sb_src)

    def rate(sz, keys):
        return float(np.median([s_ / (by_size(hs, s_)[k] * MS - host_ms0 - hcl) for s_ in sz for k in keys]))
    dram = [s_ for s_ in sizes if s_ >= 64 * MiB]
    best = None
    # the sweep's buffers are touched one at a time (the working set of each access is its own
    # span), and it has no size between 16 and 32 MiB: it cannot tell 16 from 24 MiB.  Ties go
    # to the larger size, which fit_probe 'cycles' asks for: a 6 MiB pinned buffer summed at
    # cache rate after two other 6 MiB buffers were written (18 MiB between two uses; the sim
    # keeps the cache as a working set, umkit.sim.host.CpuCache.span)
    for knee in (8 * MiB, 16 * MiB, 24 * MiB, 32 * MiB):
        cache = [s_ for s_ in sizes if 256 * KiB <= s_ <= knee]
        rates = {kind: (rate(cache, keys), rate(dram, keys)) for kind, keys in
                 (("mem", reads), ("copy", copies), ("fill", fills))}
        err = 0.0
        for s_ in sizes:
            if s_ < 128 * KiB:
                continue
            for kind, keys in (("mem", reads), ("copy", copies), ("fill", fills)):
                r_ = rates[kind][0 if s_ <= knee else 1]
                for k in keys:
                    err += np.log((hcl + s_ / r_) / (by_size(hs, s_)[k] * MS - host_ms0)) ** 2
        if best is None or err <= best[0] * (1 + 1e-9):
            best = (err, knee, rates, cache)
    _, knee, rates, cache = best
    cs = f"{cache[0] // KiB} KiB - {cache[-1] // MiB} MiB"
    put("host_mem_bw", rates["mem"][1] / 1e9, "CPU sum of 64 and 256 MiB of pageable and pinned "
        "memory (NumPy, one thread) minus the call's own time, median", sb_src)
    put("host_copy_bw", rates["copy"][1] / 1e9, "CPU copy (np.copyto from a NumPy array) into 64 and "
        "256 MiB of pageable and pinned memory minus the call's own time, median", sb_src)
    put("host_fill_bw", rates["fill"][1] / 1e9, "CPU fill (a scalar stored) of 64 and 256 MiB of "
        "pageable and pinned memory minus the call's own time, median", sb_src)
    fpn = f"{sb_src}; {fp_src}" if fp else sb_src
    put("host_cache_bw", rates["mem"][0] / 1e9, f"CPU sum of {cs} (in the CPU's caches) minus the "
        "call's own time, median", fpn)
    put("host_cache_copy_bw", rates["copy"][0] / 1e9, f"CPU copy into {cs} minus the call's own "
        "time, median", fpn)
    put("host_cache_fill_bw", rates["fill"][0] / 1e9, f"CPU fill of {cs} minus the call's own "
        "time, median", fpn)
    put("host_cache_bytes", knee, "the CPU cache as a working set (data stays cached until this "
        "many bytes of other allocations were touched): of 8, 16, 24 or 32 MiB, the size that fits the "
        "host sweep's fills, copies and sums from 128 KiB to 256 MiB best (least squares of log "
        "ratios); the sweep cannot tell 16 from 24 MiB (no size between), and 24 MiB keeps fit_probe "
        "'cycles' (a 6 MiB buffer summed after two other 6 MiB buffers were written: 18 MiB between "
        "two uses) at the cache rate it ran at", fpn)
    hm, hc = v["host_mem_bw"] * 1e9, v["host_fill_bw"] * 1e9
    ft = (m["cpu_first_touch"] * MS - (B // hp) * hp / hm - B / hc) / (B // hp)
    put("first_touch_latency", max(0.0, ft) / US, "the fit set's first CPU write (a fill) of 256 MiB of "
        "fresh managed memory minus a zero-fill pass at host_mem_bw and the fill at host_fill_bw, per "
        "4 KiB page", fit_src)

    # -- CPU fault path (as umkit.measure.calibrate.fit: one fault per 64 KiB block, per region, bytes at
    #    the device->host migration rate the prefetch measures)
    cbw = v["prefetch_d2h_bw"] * 1e9
    blocks = B // gp
    rows, y = [], []
    # cpu_read_full also sums what arrived: a pass at the in-cache rate (each block is copied in
    # right before the CPU reads it)
    for key, faults, nbyt, extra in (("cpu_read_full", blocks, B, B / (v["host_cache_bw"] * 1e9)),
                                     ("cpu_touch_64k", blocks, B, 0.0),
                                     ("cpu_touch_2m", B // region, (B // region) * gp, 0.0)):
        rows.append([faults, B // region, nbyt])
        y.append(m[key] * MS - extra)
    A, y = np.array(rows, float), np.array(y)
    w = 1 / y
    lat, Rc = calibrate.nnls(A[:, :2] * w[:, None], (y - A[:, 2] / cbw) * w)
    put("cpu_fault_latency", lat / US, "relative least squares over the fit set's CPU reads of "
        "GPU-resident memory (all of it, one float per 64 KiB, per 2 MiB), bytes at prefetch_d2h_bw", fit_src)
    put("cpu_region_latency", Rc / US, "as cpu_fault_latency", fit_src)
    put("cpu_fault_bw", cbw / 1e9, "the device->host prefetch rate (the rate CPU-fault migration is "
        "modelled at)", f"{sb_src}; {fit_src}")

    # -- read-mostly: the GPU re-reading its duplicates (the fit set's 256 MiB re-read)
    put("dup_read_bw", B / (m["read_mostly_reread"] * MS - E - L - K) / 1e9, "the fit set's GPU re-read of "
        "256 MiB of read-mostly duplicates (events) minus event record, submit and kernel launch", fit_src)
    # -- read-mostly: GPU re-read after the CPU wrote k bytes of a duplicated 16 MiB buffer
    rm = sb.get("read_mostly_16MiB", {})
    if rm:
        pts = sorted((min(int(k), 16 * MiB) // hp, r["reread_after_cpu_write_ms"] * MS - r["reread_ms"] * MS)
                     for k, r in rm.items())
        A = np.array([[1.0, n] for n, _ in pts])
        yy = np.array([d for _, d in pts])
        x = calibrate.nnls(A / yy[:, None], np.ones_like(yy))
        put("dup_refault_latency", x[1] / US, "slope per 4 KiB page of the GPU re-read of a read-mostly "
            "16 MiB buffer after the CPU wrote 4 KiB - 16 MiB of it, minus the re-read without the "
            "write (relative least squares, with a fixed part)", sb_src)

    # -- allocation and free, and the kernel's arithmetic
    sm = sb.get("small_managed", {})
    af = sm.get("alloc_free", {})
    for kind in ("managed", "device", "pinned"):
        rowsk = [(int(k.split("_")[1]), r) for k, r in af.items() if k.startswith(kind + "_")]
        if not rowsk:
            continue
        if kind == "pinned":          # pinning and unpinning grow with the size: per MiB at 8 MiB
            s8, r8 = max(rowsk)
            put("alloc_pinned_per_mib", r8["alloc_ms"] * MS / (s8 / MiB) / US, "cudaHostAlloc of 8 MiB "
                "(20 of them, host-timed), per MiB", sb_src)
            put("free_pinned_per_mib", r8["free_ms"] * MS / (s8 / MiB) / US, "cudaFreeHost of 8 MiB "
                "(20 of them, host-timed), per MiB", sb_src)
            continue
        if kind == "device":          # grows with the size: a fixed part and one by sqrt(MiB)
            for key, (value, how) in fit_device_memory(rowsk).items():
                put(key, value, how, sb_src)
            continue
        put(f"alloc_{kind}", np.median([r["alloc_ms"] for _, r in rowsk]) * MS / US,
            f"{kind} allocation of 16 KiB, 512 KiB, 8 MiB (20 each, host-timed), median", sb_src)
        put(f"free_{kind}", np.median([r["free_ms"] for _, r in rowsk]) * MS / US,
            f"free of {kind} allocations of 16 KiB, 512 KiB, 8 MiB (20 each, host-timed), median", sb_src)
    if not af and "alloc_free_managed_64k_x100_host_ms" in ls:
        put("free_managed", ls["alloc_free_managed_64k_x100_host_ms"] * MS / 100 / US - cur["alloc_managed"],
            "100 allocate+free pairs of 64 KiB managed memory, host-timed, minus alloc_managed", sb_src)
    mm = sb.get("matmul", {})
    if mm:
        big_n = max(int(n) for n in mm)
        r = by_size(mm, big_n)
        put("fp32_flops", r["flops"] / ((r["kernel_ms"] * MS) - E - L - K) / 1e12,
            f"achieved rate of the UnifiedMemoryPerf tiled SGEMM (32x32 shared-memory tiles) on device "
            f"memory, n = {big_n}, event-timed, minus event record, submit and launch: what a kernel that declares its flops "
            "reaches (the datasheet peak is 67 TFLOP/s)", sb_src)
    return v, src, fault_fit


def stream_first(fp: dict, fp_src: str, who: str) -> tuple[dict, dict]:
    """``stream_first_latency``, a created stream's first operation, read off directly: a
    prefetch + read on a fresh stream minus the same on a kept one (fit_probe 'fresh'); in the
    simulator fit it would be one more per-call constant beside the prefetch's own, and the
    least squares could trade one for the other."""
    d_ = [r["prefetch_read_fresh_stream_ms"] - r["prefetch_read_kept_stream_ms"]
          for r in fp["fresh"].values()]
    return ({"stream_first_latency": max(0.0, float(np.median(d_))) * MS / US},
            {"stream_first_latency": "fitted: the median, over 8 KiB, 512 KiB and 8 MiB, of a "
             "prefetch + read on a newly created stream minus the same on a kept one (events); "
             f"{who}, {fp_src}"})


def pinned_note(sb_docs: list[dict], names: list[str]) -> str:
    """Which of the pooled size-sweep files hold the pinned allocation timings the fit used
    (the largest size of each), and which hold none."""
    have, none = [], []
    for d, n in zip(sb_docs, names):
        af = (d.get("small_managed") or {}).get("alloc_free") or {}
        rows = sorted((int(k.split("_")[1]), r) for k, r in af.items() if k.startswith("pinned_"))
        if rows:
            size, r = rows[-1]
            have.append(f"{r['alloc_ms']:.2f} ms at {size >> 20} MiB in {n}")
        else:
            none.append(n)
    return ("; the pinned allocations pooled: " + ", ".join(have) +
            (f"; {', '.join(none)} {'holds' if len(none) == 1 else 'hold'} none" if none else ""))
