"""Replaying a recorded access pattern on sim under another plan.

A fresh simulator of the chosen profile (model only: no arithmetic on the bytes) allocates
every buffer as the plan says, gives it the plan's hints, and runs the recorded steps
operation by operation: each kernel touches the pages it touched in the recording (the same
count, between the same first and last page, evenly spread), each CPU access likewise, each
synchronize waits.  The CPU's touches of a buffer that the plan puts in device memory become
what code must do then: a copy of the bytes it touched through a pinned staging buffer (out
before a read, in after a write).  Step times are model times between events at the step
boundaries, as the ECG recorder measures them.  What the engine held before the recording
started is not in it: a replay starts from a fresh engine, so on a profile with the cold fault
path (sim/host.py ``FaultPathCache``) a CPU sweep made before ``recorder()`` leaves the first
steps' fault wake-ups a little dearer in the recording than in the replay.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..backends import registry
from ..errors import InvalidArgument, OutOfMemory, RaceWarning
from .model import CHOICES, HOST_PAGE

#: choice -> allocation kind
KIND_OF = {"device": "device", "pinned": "pinned", "managed": "managed",
           "managed+prefetch": "managed", "managed+advice": "managed",
           "managed+advice-cpu": "managed"}


def spread(pages: int, first: int, last: int, npages: int) -> np.ndarray:
    """``pages`` page indices from ``first`` to ``last`` (all of them when they are
    contiguous, else evenly spread), clipped to the buffer."""
    last = min(last, npages - 1)
    first = min(first, last)
    span = last - first + 1
    if pages >= span:
        return np.arange(first, last + 1, dtype=np.intp)
    if pages <= 0:
        return np.zeros(0, dtype=np.intp)
    return np.unique(np.linspace(first, last, pages).astype(np.intp))


#: the CPU's touches of managed memory a replay models, in 2 MiB blocks over all the steps it
#: replays (4 GiB): the CPU faults them one block at a time, each answered before the next (as
#: the driver does), at a few milliseconds a block on a laptop-class CPU -- and a
#: recommendation replays the loop once per plan it weighs.  A recording past it (or past
#: MAX_REPLAY_OPS) is refused before any replay.
MAX_CPU_BLOCKS = 2048
#: operations (kernels, copies, CPU touches, synchronizes) a replay runs over all its steps:
#: about a quarter of a millisecond each here, once per plan a recommendation weighs
MAX_REPLAY_OPS = 16_384
BLOCK = 2 << 20


def step_order(result, steps: int) -> list:
    """The recorded patterns of the first ``steps`` steps, as replayed (up to a step the
    recording could not name)."""
    order = list(result.step_pattern[:steps])
    return order[:order.index(-1)] if -1 in order else order


#: page touches a replay works through over all its steps (:func:`replay_work`): sim keeps each
#: operation's pages as an array of page numbers, and the work of a replay grows with them --
#: picking the pages, faulting or reading them, and keeping the pages of the work still in
#: flight (operations of one stream not yet waited for are merged, their pages united), about
#: 60-90 ns a page touch on a laptop-class CPU, once per plan a recommendation weighs: about
#: 2 s a replay at the bound.  The benchmarks' recordings (``umkit measure run plan_validate``)
#: need about 22 million.
MAX_REPLAY_PAGES = 24 << 20


def _pattern_work(result) -> list:
    """Per recorded pattern: (operations, an upper bound of the 2 MiB blocks its CPU touches
    fault whatever the plan -- at most one block per page a touch names, at most the blocks
    its first to last page span, its rows: (buffer id, pages it touches, the buffer's pages,
    "cpu" | "gpu" | "sync"))."""
    per = max(1, BLOCK // HOST_PAGE)
    npages = {b.id: max(1, -(-int(b.nbytes) // HOST_PAGE)) for b in result.buffers}
    out = []
    for ops in result.patterns:
        blocks = 0
        rows = []
        for op in ops:
            if op[0] in ("gpu", "copy", "cpu"):
                for row in op[3]:
                    pages, first, last = int(row[1]), int(row[2]), int(row[3])
                    if op[0] == "cpu":
                        blocks += max(0, min(pages, max(0, last - first) // per + 2))
                    n = npages.get(row[0], 1)
                    rows.append((row[0], max(0, min(pages, last - first + 1, n)), n,
                                 "cpu" if op[0] == "cpu" else "gpu"))
            else:
                rows.append((None, 0, 0, "sync"))
        out.append((len(ops), blocks, rows))
    return out


def replay_work(result, steps: int) -> tuple[int, int, int, int]:
    """(operations, CPU fault blocks, page touches) a replay of ``steps`` steps runs at most,
    and the most steps a replay within the bounds could take.  Page touches: the pages each
    operation names, and for GPU work also the pages of the same buffer that earlier work not
    yet waited for holds (sim unites them; at most the buffer's pages) -- an upper bound of the
    replay's per-page work (:data:`MAX_REPLAY_PAGES`)."""
    work = _pattern_work(result)
    order = step_order(result, steps)
    ops = blocks = touches = 0
    fit = None
    pending: dict = {}          # buffer id -> pages held by GPU work not yet waited for
    for i, k in enumerate(order):
        ops += work[k][0]
        blocks += work[k][1]
        if ops <= MAX_REPLAY_OPS:       # past it the replay is refused for its operations
            for bid, t, n, kind in work[k][2]:
                if kind == "sync":
                    pending.clear()
                    continue
                touches += t
                if kind == "gpu":
                    pending[bid] = held = min(n, pending.get(bid, 0) + t)
                    touches += held
        if fit is None and (ops > MAX_REPLAY_OPS or blocks > MAX_CPU_BLOCKS
                            or touches > MAX_REPLAY_PAGES):
            fit = i
    return ops, blocks, touches, (len(order) if fit is None else fit)


#: whole-buffer page operations a replay works through over all its steps
#: (:func:`whole_buffer_work`): the hints the plans give every page of a buffer (advice, the
#: prefetch to the CPU of ``managed+advice-cpu``) and the prefetch of every page of a buffer
#: before a step's kernels use it (``managed+prefetch``, ``managed+advice``) -- work the
#: recording's operations do not name, about 15-60 ns a page here (sim keeps the pages of each
#: as an array of page numbers), once per plan a recommendation weighs: 2-8 s a replay at the
#: bound.  The benchmarks' recordings (2.1 GiB, 20 steps) need about 12 million.
MAX_WHOLE_PAGES = 128 << 20


def _prefetches(result) -> list:
    """Per recorded pattern: {buffer id: how many times a replay prefetches the whole buffer
    in a step of it} under a plan that prefetches every buffer a kernel or copy uses: before the
    first kernel of the step that uses it, and again after each CPU touch of it that a kernel
    follows (:func:`replay`'s ``inhale``)."""
    out = []
    for ops in result.patterns:
        count: dict = {}
        fresh: set = set()                # prefetched since the step began, not touched since
        for op in ops:
            if op[0] in ("gpu", "copy"):
                for row in op[3]:
                    bid = row[0]
                    if bid not in fresh:
                        count[bid] = count.get(bid, 0) + 1
                        fresh.add(bid)
            elif op[0] == "cpu":
                fresh.difference_update(row[0] for row in op[3])
        out.append(count)
    return out


def whole_buffer_work(result, steps: int) -> tuple[int, int]:
    """(whole-buffer page operations, the most steps within :data:`MAX_WHOLE_PAGES`) of a
    replay of ``steps`` steps under the costliest plan a recommendation weighs: three passes
    over every page of each buffer for its hints (two pieces of advice and a prefetch), again
    at each step for a temporary made every step, and the prefetches of :func:`_prefetches`."""
    npages = {b.id: max(1, -(-int(b.nbytes) // HOST_PAGE)) for b in result.buffers}
    transient = [b.id for b in result.buffers if b.born is not None and b.instances > 1]
    work = 3 * sum(npages.values())
    per = [sum(npages.get(bid, 0) * k for bid, k in c.items())
           for c in _prefetches(result)]
    fit = None if work <= MAX_WHOLE_PAGES else 0
    for i, k in enumerate(step_order(result, steps)):
        work += per[k] + (3 * sum(npages[b] for b in transient) if i else 0)
        if fit is None and work > MAX_WHOLE_PAGES:
            fit = i
    return work, (len(step_order(result, steps)) if fit is None else fit)


def check_work(result, steps: int) -> None:
    """InvalidArgument (before any work) when a replay of ``steps`` steps would run more than
    :data:`MAX_REPLAY_OPS` operations, model more than :data:`MAX_CPU_BLOCKS` blocks of CPU
    faults, work through more than :data:`MAX_REPLAY_PAGES` page touches or more than
    :data:`MAX_WHOLE_PAGES` whole-buffer page operations."""
    ops, n, touches, fit = replay_work(result, steps)
    whole, wfit = whole_buffer_work(result, steps)
    if ops <= MAX_REPLAY_OPS and n <= MAX_CPU_BLOCKS and touches <= MAX_REPLAY_PAGES and \
            whole <= MAX_WHOLE_PAGES:
        return
    fit = min(fit, wfit)
    fewer = (f"replay fewer steps (steps={fit} fits; the steady steps repeat), or "
             if fit else "")
    steps_run = len(step_order(result, steps))
    if whole > MAX_WHOLE_PAGES and ops <= MAX_REPLAY_OPS and n <= MAX_CPU_BLOCKS and \
            touches <= MAX_REPLAY_PAGES:
        raise InvalidArgument(
            f"replaying {steps_run} steps works through {whole:,} whole-buffer page operations "
            f"(the plans' advice and prefetches over every page of the recording's "
            f"{sum(int(b.nbytes) for b in result.buffers) / (1 << 30):,.1f} GiB of buffers, "
            f"step after step); a replay works through at most {MAX_WHOLE_PAGES:,}, so that a "
            "recommendation, which replays the loop once per plan, ends in seconds",
            argument="steps",
            hint=fewer + "record the loop with smaller buffers (the same access pattern at a "
                         "smaller size predicts the same choices)")
    if ops > MAX_REPLAY_OPS:
        raise InvalidArgument(
            f"replaying {steps_run} steps runs {ops:,} operations; a replay runs at most "
            f"{MAX_REPLAY_OPS:,}, so that a recommendation, which replays the loop once per "
            "plan, ends in seconds", argument="steps",
            hint=fewer + "record a loop with fewer operations a step")
    if n > MAX_CPU_BLOCKS:
        raise InvalidArgument(
            f"replaying {steps_run} steps models up to {n:,} CPU faults of 2 MiB blocks "
            f"({n * BLOCK / (1 << 30):,.1f} GiB the CPU touches); a replay models at most "
            f"{MAX_CPU_BLOCKS:,} ({MAX_CPU_BLOCKS * BLOCK >> 30} GiB), so that a recommendation, "
            "which replays the loop once per plan, ends in seconds", argument="steps",
            hint=fewer + "record the loop with smaller buffers (the same access pattern at a "
                         "smaller size predicts the same choices)")
    raise InvalidArgument(
        f"replaying {steps_run} steps works through {touches:,} page touches "
        f"({touches * HOST_PAGE / (1 << 30):,.1f} GiB of 4 KiB pages that its operations touch "
        f"or that work in flight holds); a replay works through at most {MAX_REPLAY_PAGES:,}, "
        "so that a recommendation, which replays the loop once per plan, ends in seconds",
        argument="steps",
        hint=fewer + "record the loop with smaller buffers or fewer kernels a step (the same "
                     "access pattern at a smaller size predicts the same choices)")


def replay(result, plan: dict, profile: str, steps: int) -> dict:
    """Run ``steps`` recorded steps under ``plan`` ({buffer id: choice}) on ``profile``;
    returns ``dict(step_ms=[...], fits=True)`` or ``dict(step_ms=[], fits=False, why=...)``
    when the plan's device memory does not fit the profile's VRAM.  A recording whose CPU
    touches are too many to model in seconds is refused first (:func:`check_work`)."""
    check_work(result, steps)
    from ..sim import CPU_ID, Access, SimEvent
    b = registry.create("sim", profile=profile, compute=False)
    eng = b.engine
    s = eng.default_stream(0)
    live = {}
    stage = [0, 0]                    # pinned staging (pointer, bytes) for device buffers
    skip = {x.id for x in result.buffers if x.role == "other" and x.name.startswith("(other allocations")}
    try:
        for bf in result.buffers:
            if bf.id in skip:
                continue
            choice = plan.get(bf.id, "managed")
            assert choice in CHOICES, choice
            ptr = eng.malloc(int(bf.nbytes), KIND_OF[choice], 0)
            a, _ = eng.find(ptr)
            live[bf.id] = (a, choice)
    except OutOfMemory as e:
        return dict(step_ms=[], fits=False, why=f"the plan's device memory does not fit on "
                                                  f"{profile}: {e.message}")
    def hints(a, choice):
        allp = np.arange(a.npages, dtype=np.intp)
        if choice == "managed+advice":
            eng.advise(a, allp, "preferred_location", 0, False)
            eng.advise(a, allp, "accessed_by", CPU_ID, False)
        elif choice == "managed+advice-cpu":
            eng.advise(a, allp, "preferred_location", CPU_ID, False)
            eng.advise(a, allp, "accessed_by", 0, False)
            eng.prefetch(a, allp, CPU_ID, s, "replay prefetch->cpu")
    for bid, (a, choice) in live.items():
        hints(a, choice)
    # a temporary made and freed every step is made again at each step's start
    transient = [x.id for x in result.buffers if x.id in live and x.born is not None
                 and x.instances > 1]

    def remake(bid):
        a, choice = live[bid]
        eng.free(a.ptr)
        ptr = eng.malloc(int(a.nbytes), KIND_OF[choice], 0)
        na, _ = eng.find(ptr)
        live[bid] = (na, choice)
        hints(na, choice)
        if bid in prefetched:
            prefetched[bid] = (na, np.arange(na.npages, dtype=np.intp))
    gpu_used = set()
    for ops in result.patterns:
        for op in ops:
            if op[0] in ("gpu", "copy"):
                gpu_used.update(x[0] for x in op[3])
    # prefetched before the first kernel of each step that uses it, and again before a
    # kernel that follows a CPU touch of it (the CPU's touch brought pages back)
    prefetched = {bid: (a, np.arange(a.npages, dtype=np.intp)) for bid, (a, c) in live.items()
                  if c in ("managed+prefetch", "managed+advice") and bid in gpu_used}
    stale: set = set()

    def inhale(rows):
        for row in rows:
            bid = row[0]
            if bid in stale:
                a, allp = prefetched[bid]
                eng.prefetch(a, allp, 0, s, "replay prefetch->gpu")
                stale.discard(bid)

    def accesses(rows):
        out = []
        for bid, pages, first, last, nbytes, write in rows:
            if bid not in live:
                continue
            a = live[bid][0]
            out.append(Access(a, spread(pages, first, last, a.npages), bool(write),
                              max(1, int(nbytes))))
        return out

    def staging(nbytes):
        if stage[1] < nbytes:
            if stage[0]:
                eng.free(stage[0])
            stage[0], stage[1] = eng.malloc(nbytes, "pinned", 0), nbytes
        return stage[0]

    def cpu(op):
        direct, rows = [], op[3]
        for row in rows:
            bid = row[0]
            if bid not in live:
                continue
            a, choice = live[bid]
            if choice != "device":
                direct.append(row)
                continue
            # device memory: the bytes the CPU touches go through pinned staging
            nbytes = max(1, min(int(row[4]), a.nbytes, max(int(row[1]), 1) * HOST_PAGE))
            st = staging(nbytes)
            sa, _ = eng.find(st)
            pages = sa.page_range(0, nbytes)
            if row[5]:
                eng.cpu_access([Access(sa, pages, True, nbytes)], streaming=False)
                eng.memcpy(a.ptr, st, nbytes, s)
            else:
                eng.memcpy(st, a.ptr, nbytes, s)
                eng.synchronize(None)
                eng.cpu_access([Access(sa, pages, False, nbytes)], streaming=False)
        if direct:
            streaming = "fill" if op[2] == "fill" else op[2] == "stream"
            eng.cpu_access(accesses(direct), streaming=streaming)

    order = step_order(result, steps)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RaceWarning)     # the recording raced where it raced
        prev = SimEvent()
        eng.record_event(prev, s)
        for i, k in enumerate(order):
            if i:
                for bid in transient:
                    remake(bid)
            stale = set(prefetched)
            for op in result.patterns[k]:
                kind = op[0]
                if kind in ("gpu", "copy"):
                    inhale(op[3])
                if kind == "gpu":
                    accs = accesses(op[3])
                    if accs:
                        submit = None if op[2] == "none" else (
                            "user" if op[2] == "user" else "launch_overhead")
                        eng.launch("replay", s, lambda find, accs=accs: (accs, None),
                                   flops=op[1], submit=submit, compute=False)
                elif kind == "copy":
                    accs = accesses(op[3])
                    if accs:
                        eng.launch("replay copy", s, lambda find, accs=accs: (accs, None),
                                   submit="copy_submit", compute=False)
                elif kind == "cpu":
                    cpu(op)
                    stale.update(row[0] for row in op[3] if row[0] in prefetched)
                else:
                    eng.synchronize(None)
            ev = SimEvent()
            eng.record_event(ev, s)
            out.append(round((ev.time - prev.time) * 1e3, 6))
            prev = ev
        eng.synchronize(None)
    return dict(step_ms=out, fits=True)


def mean_ms(step_ms: list) -> float:
    """The loop's step time: the mean of the steady steps (step 0, the warm-up, left out when
    there are more), as the whole loop's time divided by its steps."""
    ms = step_ms[1:] if len(step_ms) > 1 else step_ms
    if not ms:
        return 0.0
    with np.errstate(over="ignore"):
        m = float(np.mean(ms))
    if math.isinf(m):       # the sum passed the float range (steps near 1e308 ms): scale first
        a = np.asarray(ms, dtype=float)
        big = float(np.max(np.abs(a)))
        m = float(np.mean(a / big)) * big
    return m
