"""Fit-only probes for three classes of workload the model missed on the H200 (issue 27, §2).

FIT data, like ``small_bench.py`` and ``fit_probe.py``: the sizes here are ones the validation
set's workloads for these classes (``umkit/measure/validation_set.py``: ``advise_*``,
``touch_*_1g`` / ``touch_64k_384m``, ``small_*``) do not use.  Sections:

* ``advice``: the host time of one ``advise`` call (set, and unset after a set) for read-mostly,
  preferred location GPU / CPU and accessed-by GPU, on managed ranges of 8, 64 and 512 MiB whose
  pages the CPU wrote (resident on the CPU), that were then prefetched to the GPU (resident on
  the GPU), or that nothing touched yet (no pages);
* ``faultsize``: a GPU reading one float per 4 KiB or 64 KiB of CPU-written managed buffers of
  64 MiB, 128 MiB, 512 MiB and 2 GiB: the first read (faults), the second read (the pages are
  resident by then), and the same stride over device memory of the same size (the GPU's own
  cost of that access pattern, with no driver in it);
* ``smallpair``: the same fresh-buffer GPU fault read of 16 KiB .. 1 MiB timed both ways in
  turns -- device events around the kernel, and the host clock around launch + synchronize --
  and a host-timed kernel on GPU-resident managed memory (no faults): what a host-timed fault
  read pays beyond the kernel's own time;
* ``small``: host-timed GPU fault reads of freshly CPU-written managed buffers of 32 KiB,
  128 KiB, 512 KiB, 2 MiB and 8 MiB (allocation and the CPU write untimed), and host-timed round
  trips -- the CPU writes a managed buffer, the GPU increments it, the CPU sums it -- of 128 KiB,
  1 MiB and 4 MiB, the first one and the median of the later ones;
* ``context``: the same host-timed small fault read (32 KiB and 128 KiB), five fresh buffers in
  a row, right after one of: nothing; freeing a 512 MiB managed buffer the CPU wrote; freeing one
  the GPU then read every 64 KiB (pages on the GPU, as the validation set's ``touch_64k_*`` leave
  them); freeing a 512 MiB device array; or with such a GPU-read managed buffer still alive --
  whether the driver's work after a large free or a large GPU-resident range slows the next
  small faults (the validation set's ``small_read_64k`` follows ``touch_64k_1g``);
* ``faultshape``: 64 KiB-stride fault reads by one kernel over 512 MiB .. 3 GiB, the same 2 GiB
  as four kernels of 512 MiB or as one kernel over its first 512 MiB only, and strides of 32 and
  128 KiB: whether the per-touch cost follows the buffer, the span or the touches in flight;
* ``context2``: ``context``'s small reads after the host wrote a fresh 512 MiB NumPy array,
  rewrote one already touched (512, 64 or 8 MiB: the last under the cache size the profile
  fitted, 24 MiB) or read one, or with a CPU-written managed buffer of 512 or 64 MiB alive:
  whether the slow first fault follows the host's caches or the driver;
* ``tripparts``: ``small``'s round trips (128 KiB, 1 MiB, 4 MiB) taken apart, each piece timed
  on the host clock: the CPU's write, the same write again, the GPU's increment with its
  synchronize, the CPU's sum, the same sum again -- which piece the model under-charges;
* ``thrash``: 16 back-to-back round trips (``small``'s) of 32 KiB, 128 KiB and 1 MiB, each
  piece timed,
  then the same 16 with the driver's unified-memory counters on, read once before and once
  after (cuda: CUPTI's thrashing and throttling records; sim: its ``throttles``): whether the
  naps every few trips are NVIDIA UVM's thrashing throttle (``uvm_perf_thrashing.c``: a page
  migrated by faults again within 500 us, three times, is thrashing, and the processors then
  take turns on it); at 32 KiB also what a trip costs below 128 KiB (the validation set's
  ``small_roundtrip_16k`` uses 16 KiB);
* ``pinning``: ``thrash``'s round trips, 150 of them on one 128 KiB buffer, then 150 counted
  (``remote_maps`` too): whether the driver pins the pages after their tenth throttling period
  (``uvm_perf_thrashing.c``: a page's throttling count survives ``thrashing_reset_page``; at
  ``uvm_perf_thrashing_pin_threshold``, 10, the processor not throttled gets a PIN hint, and the
  page stays where it is for 300 lapses while the other maps it), which sim does not model;
* ``allocs``: 20, 100 and 400 managed or device buffers of 512 KiB and 2 MiB allocated in a row
  and then freed, each half host-timed: whether a cudaMalloc / cudaFree costs more with more
  allocations alive (the validation set's ``alloc_free_200_*`` hold 200 of 1 MiB); then one
  device buffer of 8, 64 and 256 MiB at a time (``count`` 1): whether past 8 MiB, where the
  profile holds the size, an allocation and its free cost what 8 MiB does.

    umkit measure run classes [--out class_probe.json] [--sections advice,faultsize,small]
"""
from __future__ import annotations


import numpy as np

import umkit
from umkit.errors import BackendUnavailable
from umkit.measure.timing import (Sink, cpu_written, gpu_ms, host_ms, round_trips)

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30

ADVICE = [("read_mostly", "gpu"), ("preferred_location", "gpu"), ("preferred_location", "cpu"),
          ("accessed_by", "gpu")]
ADVICE_SIZES = [8 * MiB, 64 * MiB, 512 * MiB]
FAULT_SIZES = [64 * MiB, 128 * MiB, 512 * MiB, 2 * GiB]
SMALL_READS = [32 * KiB, 128 * KiB, 512 * KiB, 2 * MiB, 8 * MiB]
SMALL_TRIPS = [128 * KiB, MiB, 4 * MiB]


def _buffer(nbytes, resident):
    """A managed buffer: 'cpu' (the CPU wrote it), 'gpu' (then prefetched to the GPU) or
    'none' (never touched)."""
    if resident == "none":
        return umkit.managed(nbytes // 4)
    a = cpu_written(nbytes)
    if resident == "gpu":
        a.prefetch("gpu")
        umkit.synchronize()
    return a


def advice(reps):
    rows = []
    for nbytes in ADVICE_SIZES:
        for resident in ("cpu", "gpu", "none"):
            for adv, where in ADVICE:
                sets, unsets = [], []
                for _ in range(reps):
                    a = _buffer(nbytes, resident)
                    try:
                        sets.append(host_ms(lambda: a.advise(adv, where)))
                        unsets.append(host_ms(lambda: a.advise(adv, where, unset=True)))
                    finally:
                        a.free()
                rows.append({"advice": adv, "where": where, "resident": resident, "bytes": nbytes,
                             "set_ms": sets, "unset_ms": unsets})
                print(f"advice {adv}:{where} {resident} {nbytes // MiB} MiB: set "
                      f"{np.median(sets):.3f} ms, unset {np.median(unsets):.3f} ms", flush=True)
    return rows


def faultsize(reps):
    rows = []
    for nbytes in FAULT_SIZES:
        for stride in (4 * KiB, 64 * KiB):
            first, second, dev = [], [], []
            for _ in range(reps):
                a = cpu_written(nbytes)
                try:
                    with Sink() as s:
                        first.append(gpu_ms(lambda: umkit.touch(a, stride, sink=s)))
                        second.append(gpu_ms(lambda: umkit.touch(a, stride, sink=s)))
                finally:
                    a.free()
                d = umkit.device_array(nbytes // 4)
                try:
                    umkit.fill(d, 1.0)
                    umkit.synchronize()
                    with Sink() as s:
                        umkit.touch(d, stride, sink=s)
                        dev.append(gpu_ms(lambda: umkit.touch(d, stride, sink=s)))
                finally:
                    d.free()
            rows.append({"bytes": nbytes, "stride": stride, "first_ms": first, "second_ms": second,
                         "device_ms": dev})
            print(f"faultsize {nbytes // MiB} MiB stride {stride // KiB} KiB: first "
                  f"{np.median(first):.3f} ms ({np.median(first) / (nbytes // stride) * 1e3:.3f} "
                  f"us/touch), resident {np.median(second):.3f}, device {np.median(dev):.3f}",
                  flush=True)
    return rows


def fresh_read_ms(nbytes):
    """One host-timed GPU fault read of a freshly CPU-written managed buffer (allocation and the
    CPU write untimed)."""
    a = cpu_written(nbytes)
    try:
        with Sink() as s:
            return host_ms(lambda: umkit.touch(a, 4, sink=s))
    finally:
        a.free()


def small(reps):
    reads, trips = [], []
    for nbytes in SMALL_READS:
        vals = [fresh_read_ms(nbytes) for _ in range(reps)]
        reads.append({"bytes": nbytes, "host_ms": vals})
        print(f"small read {nbytes // KiB} KiB: {np.median(vals):.4f} ms", flush=True)
    for nbytes in SMALL_TRIPS:
        a = cpu_written(nbytes)
        try:
            def one():
                a.host[:] = 2.0
                umkit.increment(a)
                umkit.synchronize()
                float(a.host.sum())
            vals = [host_ms(one) for _ in range(max(4, 2 * reps))]
        finally:
            a.free()
        trips.append({"bytes": nbytes, "first_ms": vals[0], "later_ms": vals[1:]})
        print(f"small round trip {nbytes // KiB} KiB: first {vals[0]:.4f} ms, later median "
              f"{np.median(vals[1:]):.4f} ms", flush=True)
    return {"reads": reads, "trips": trips}


def smallpair(reps):
    rows = []
    for nbytes in (16 * KiB, 64 * KiB, 256 * KiB, MiB):
        ev, ho, res = [], [], []
        for _ in range(max(6, 2 * reps)):
            for kind in ("event", "host"):
                a = cpu_written(nbytes)
                try:
                    with Sink() as s:
                        if kind == "event":
                            ev.append(gpu_ms(lambda: umkit.touch(a, 4, sink=s)))
                        else:
                            ho.append(host_ms(lambda: umkit.touch(a, 4, sink=s)))
                            res.append(host_ms(lambda: umkit.touch(a, 4, sink=s)))
                finally:
                    a.free()
        rows.append({"bytes": nbytes, "event_ms": ev, "host_ms": ho, "resident_host_ms": res})
        print(f"smallpair {nbytes // KiB} KiB: event {np.median(ev):.4f} (min {min(ev):.4f}), host "
              f"{np.median(ho):.4f} (min {min(ho):.4f}), resident host {np.median(res):.4f} ms",
              flush=True)
    return rows


CONTEXTS = ("none", "free_cpu_managed", "free_gpu_managed", "free_device", "alive_gpu_managed")


def _context(kind, nbytes=512 * MiB):
    """Set up one context; returns what to free once the small reads are done."""
    if kind == "none":
        return None
    if kind == "free_device":
        d = umkit.device_array(nbytes // 4)
        umkit.fill(d, 1.0)
        umkit.synchronize()
        d.free()
        return None
    a = cpu_written(nbytes)
    try:
        if kind in ("free_gpu_managed", "alive_gpu_managed"):
            with Sink() as s:
                umkit.touch(a, 64 * KiB, sink=s)
                umkit.synchronize()
    except BaseException:
        a.free()
        raise
    if kind == "alive_gpu_managed":
        return a
    a.free()
    return None


def _context_rows(section, kinds, setup, reps):
    """Five fresh small fault reads (32 and 128 KiB) right after ``setup(kind)`` for each kind;
    ``setup`` returns an array to free once the reads are done, or None."""
    rows = []
    for nbytes in (32 * KiB, 128 * KiB):
        for kind in kinds:
            runs = []
            for _ in range(reps):
                keep = setup(kind)
                try:
                    runs.append([fresh_read_ms(nbytes) for _ in range(5)])
                finally:
                    if keep is not None:
                        keep.free()
            rows.append({"bytes": nbytes, "context": kind, "runs_ms": runs})
            print(f"{section} {kind:<24} {nbytes // KiB:>4} KiB: first read "
                  f"{np.median([r[0] for r in runs]):.4f} ms, next four "
                  f"{np.median([x for r in runs for x in r[1:]]):.4f} ms", flush=True)
    return rows


def context(reps):
    return _context_rows("context", CONTEXTS, _context, reps)


def touch_part(a, offset, nbytes, stride, sink):
    """``umkit.touch`` over bytes [offset, offset + nbytes) of ``a`` only: the same kernel,
    launched on a pointer into the array (a probe's own launch; the public touch has no range).
    For strides of 8 bytes and more (at 4, ``umkit.touch`` runs its read kernel instead)."""
    if stride < 8:
        raise ValueError(f"stride={stride}: touch_part is for strides of 8 bytes and more")
    from umkit.api import BLOCK
    from umkit.runtime.streams import kernel_stream
    n = nbytes // 4
    s = stride // 4
    count = -(-n // s)                                 # one thread per touched float, as touch()
    grid = max(1, -(-count // BLOCK))
    a.backend.launch("touch_kernel", grid, BLOCK, (a.ptr + offset, n, s, sink.ptr),
                     kernel_stream(None, a))


def shapes(u=512 * MiB):
    """(name, buffer bytes, stride, [(offset, bytes) per kernel]); the names are for u = 512 MiB
    (a test runs the same shapes at a smaller u)."""
    s = 64 * KiB
    return [
        ("one_512m_64k", u, s, [(0, u)]),
        ("one_1g_64k", 2 * u, s, [(0, 2 * u)]),
        ("one_1536m_64k", 3 * u, s, [(0, 3 * u)]),
        ("one_2g_64k", 4 * u, s, [(0, 4 * u)]),
        ("one_3g_64k", 6 * u, s, [(0, 6 * u)]),
        ("four_512m_of_2g_64k", 4 * u, s, [(i * u, u) for i in range(4)]),
        ("first_512m_of_2g_64k", 4 * u, s, [(0, u)]),
        ("one_2g_128k", 4 * u, 2 * s, [(0, 4 * u)]),
        ("one_1g_32k", 2 * u, s // 2, [(0, 2 * u)]),
        ("one_1g_128k", 2 * u, 2 * s, [(0, 2 * u)]),
    ]


def fault_read_ms(nbytes, stride, parts=None):
    """A device-timed GPU fault read of a freshly CPU-written managed buffer of ``nbytes``: one
    float every ``stride`` bytes, by ``umkit.touch``, or by one kernel per ``(offset, bytes)`` of
    ``parts`` (allocation and the CPU write untimed)."""
    a = cpu_written(nbytes)
    try:
        with Sink() as s:
            if parts is None:
                return gpu_ms(lambda: umkit.touch(a, stride, sink=s))
            return gpu_ms(lambda: [touch_part(a, o, n, stride, s) for o, n in parts])
    finally:
        a.free()


def faultshape(reps, u=512 * MiB):
    """What the per-touch cost of a 64 KiB-stride fault read follows: the buffer's size, the
    span one kernel faults over, or the number of touches one kernel has in flight."""
    rows = []
    for name, nbytes, stride, parts in shapes(u):
        vals = [fault_read_ms(nbytes, stride, parts) for _ in range(reps)]
        touches = sum(n // stride for _, n in parts)
        rows.append({"name": name, "bytes": nbytes, "stride": stride, "kernels": len(parts),
                     "touches": touches, "ms": vals})
        print(f"faultshape {name:<22} {np.median(vals):9.3f} ms, "
              f"{np.median(vals) / touches * 1e3:.3f} us/touch ({[round(v, 2) for v in vals]})",
              flush=True)
    return rows


CONTEXTS2 = ("none", "numpy_fresh_512m", "numpy_rewrite_512m", "numpy_rewrite_64m",
             "numpy_rewrite_8m", "numpy_read_512m", "managed_cpu_512m_alive",
             "managed_cpu_64m_alive")


def context2(reps, u=512 * MiB):
    """The first small fault read after the host swept memory that is not managed (a fresh
    NumPy array, a rewrite or a read of one already touched) against after a CPU-written
    managed buffer: is the slow first fault about the host's caches or about the driver?
    (The names are for u = 512 MiB; a test runs the same contexts at a smaller u.)"""
    big = np.ones(u // 8)              # touched once, before anything is timed
    small = np.ones(u // 64)
    tiny = np.ones(u // 512)           # 8 MiB: under the profile's host_cache_bytes (24 MiB)

    def setup(kind):
        if kind == "numpy_fresh_512m":
            x = np.empty(u // 8)
            x[:] = 2.0
        elif kind == "numpy_rewrite_512m":
            big[:] = 3.0
        elif kind == "numpy_rewrite_64m":
            small[:] = 3.0
        elif kind == "numpy_rewrite_8m":
            tiny[:] = 3.0
        elif kind == "numpy_read_512m":
            float(big.sum())
        elif kind.startswith("managed_cpu_"):
            return cpu_written(u if "512m" in kind else u // 8)
        return None
    return _context_rows("context2", CONTEXTS2, setup, reps)


TRIP_PARTS = ("write", "write_again", "increment", "sum", "sum_again")


def tripparts(reps):
    """``small``'s round trip with each piece host-timed: {bytes, piece: [ms per trip]}, the
    first trip (its pages arrive from the CPU write of ``cpu_written``) left out."""
    rows = []
    for nbytes in SMALL_TRIPS:
        a = cpu_written(nbytes)
        try:
            def piece(fn):
                t0 = umkit.now()
                fn()
                return (umkit.now() - t0) * 1e3

            def write():
                a.host[:] = 2.0

            def inc():
                umkit.increment(a)
                umkit.synchronize()

            def add():
                float(a.host.sum())
            runs = {k: [] for k in TRIP_PARTS}
            for i in range(max(8, 2 * reps) + 1):
                umkit.synchronize()
                vals = dict(zip(TRIP_PARTS, (piece(write), piece(write), piece(inc), piece(add),
                                             piece(add))))
                if i:
                    for k, v in vals.items():
                        runs[k].append(v)
        finally:
            a.free()
        rows.append({"bytes": nbytes, **runs})
        print(f"tripparts {nbytes // KiB:>5} KiB: " + ", ".join(
            f"{k} {np.median(v):.4f}" for k, v in runs.items()) + " ms (medians)", flush=True)
    return rows


THRASH_TRIPS = 16
THRASH_SIZES = (32 * KiB, 128 * KiB, MiB)
#: the counters the ``thrash`` section reads (those a backend lacks read 0)
THRASH_COUNTERS = ("thrashing", "throttling", "throttles", "cpu_faults", "gpu_faults",
                   "bytes_h2d", "bytes_d2h")


def _timed_and_counted(nbytes, trips, counters):
    """{bytes, timed: {piece: [ms per trip]}, counted: {piece: [...], counters: {k: n}}}:
    ``trips`` back-to-back round trips on a fresh buffer, each piece host-timed, then the same on
    another fresh buffer with the unified-memory counters on, read once before and once after."""
    row = {"bytes": nbytes}
    for part in ("timed", "counted"):
        a = cpu_written(nbytes)
        counted = False
        try:
            if part == "counted":
                try:
                    umkit.counters_on()
                    counted = True
                except BackendUnavailable as e:     # a backend without counters
                    row["counters_error"] = str(e)
            c0 = umkit.counters() if counted else {}
            out = round_trips(a, trips)
            if counted:
                c1 = umkit.counters()
                out["counters"] = {k: int(c1.get(k, 0)) - int(c0.get(k, 0)) for k in counters}
        finally:
            if counted:
                umkit.counters_off()
            a.free()
        row[part] = out
    return row


def _trip_ms(part):
    """Each trip's whole time (write + increment + sum, ms) of a :func:`round_trips` result."""
    return [w + i + s for w, i, s in zip(part["write"], part["increment"], part["sum"])]


def thrash(reps):
    """[{bytes, timed, counted}] per size (see :func:`_timed_and_counted`)."""
    rows = []
    for nbytes in THRASH_SIZES:
        row = _timed_and_counted(nbytes, THRASH_TRIPS, THRASH_COUNTERS)
        rows.append(row)
        print(f"thrash {nbytes // KiB:>5} KiB: trips "
              + " ".join(f"{t:.2f}" for t in _trip_ms(row["timed"]))
              + f" ms; counted: {row['counted'].get('counters', 'n/a')}", flush=True)
    return rows


PIN_BYTES, PIN_TRIPS = 128 * KiB, 150
#: ``remote_maps``: pages a processor mapped where they are instead of migrating them
PIN_COUNTERS = THRASH_COUNTERS + ("remote_maps",)


def pinning(reps):
    """[{bytes, timed, counted}]: ``thrash``'s round trips, 150 of them on one 128 KiB buffer
    (see :func:`_timed_and_counted`)."""
    row = _timed_and_counted(PIN_BYTES, PIN_TRIPS, PIN_COUNTERS)
    trips = _trip_ms(row["timed"])
    print(f"pinning {PIN_BYTES // KiB} KiB x{PIN_TRIPS}: median of trips 4-20 "
          f"{np.median(trips[3:20]):.3f} ms, of trips 61-{PIN_TRIPS} "
          f"{np.median(trips[60:]):.3f} ms; counted: {row['counted'].get('counters', 'n/a')}",
          flush=True)
    return [row]


ALLOC_COUNTS = (20, 100, 400)
ALLOC_SIZES = (512 * KiB, 2 * MiB)
BIG_DEVICE_SIZES = (8 * MiB, 64 * MiB, 256 * MiB)


def allocs(reps):
    """[{kind, bytes, count, alloc_ms: [per allocation, per rep], free_ms: [...]}]: ``count``
    buffers allocated in a row, then freed in a row, each half host-timed."""
    rows = []
    for kind in ("managed", "device"):
        for nbytes in ALLOC_SIZES:
            for count in ALLOC_COUNTS:
                ta, tf = [], []
                for _ in range(max(2, reps)):
                    xs: list = []
                    ta.append(host_ms(lambda: xs.extend(
                        umkit.empty(nbytes // 4, "float32", kind) for _ in range(count))) / count)
                    tf.append(host_ms(lambda: [x.free() for x in xs]) / count)
                rows.append({"kind": kind, "bytes": nbytes, "count": count,
                             "alloc_ms": ta, "free_ms": tf})
                print(f"allocs {kind:<7} {nbytes // KiB:>5} KiB x{count:<4}: alloc "
                      f"{np.median(ta) * 1e3:.1f} us, free {np.median(tf) * 1e3:.1f} us each",
                      flush=True)
    for nbytes in BIG_DEVICE_SIZES:
        # one device buffer at a time, allocated then freed: whether past 8 MiB a cudaMalloc /
        # cudaFree costs what 8 MiB does (the sim profile holds the size there)
        ta, tf = [], []
        for _ in range(max(5, reps)):
            xs = []
            ta.append(host_ms(lambda: xs.append(umkit.empty(nbytes // 4, "float32", "device"))))
            tf.append(host_ms(lambda: xs.pop().free()))
        rows.append({"kind": "device", "bytes": nbytes, "count": 1, "alloc_ms": ta,
                     "free_ms": tf})
        print(f"allocs device  {nbytes // MiB:>5} MiB x1   : alloc {np.median(ta) * 1e3:.1f} us, "
              f"free {np.median(tf) * 1e3:.1f} us", flush=True)
    return rows
