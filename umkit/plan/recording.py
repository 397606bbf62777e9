"""Recording the access pattern of *your* loop, buffer by buffer.

    with umkit.plan.recorder() as rec:
        for batch in loader:
            train_step(batch)
            rec.step()
    print(rec.result().table())

or, for a loop that already has an ECG recorder, ``umkit.plan.recorder(ecg=that_recorder)``:
the ECG recorder's ``step()`` then marks the steps of both.

Where the numbers come from:

* **sim**: the simulator's own accounting, operation by operation (the engine's ``watcher``
  seam): each kernel, CPU access, copy, prefetch, advice, allocation and free, the buffers it
  touched and how many pages of each.  The counters an operation changed are shared among the
  buffers it touched by what happened to each one's pages (pages that came to the GPU, pages
  that came back to the CPU, pages evicted), so the buffers' totals add up to the run's.
* **cuda**: CUPTI's unified-memory records (``umkit.counters_on()`` first), each of which names
  an address; a record belongs to the buffer whose address range holds it, and to the step
  whose end it precedes on its own timeline: the step's end event on the GPU (the start of the
  recording plus the device time of the steps so far) for what the GPU did, the step's
  ``rec.step()`` call for the CPU's faults and what they pulled back.  The records see
  *movement* only: a kernel reading memory that is already on the GPU leaves none, so the GPU's
  touches of PyTorch's parameters, gradients, optimizer state and activations, and of CUDA
  tensors in device memory, are known from what they are (``rec.name_torch(...)``), and of
  other buffers from the faults they took.  Without counters (no cupti-python, or ``hip``)
  the table still has every named buffer, with those inferred touches only.
"""
from __future__ import annotations

import bisect
from collections.abc import Mapping

import numpy as np

from .. import validate as V
from ..errors import BackendUnavailable, InvalidArgument, InvalidType
from ..runtime import backend
from .model import (CHOICES, HOST_PAGE, MAX_BUFFERS, MAX_OPS, MAX_PATTERNS, MAX_STEPS, MOVED,
                    ROLES, TORCH_ROLES, Buffer)
from .instrumentation import MODES, WARMUP, CuptiSwitch, SimSwitch, Switch, schedule
from .result import PlanResult

GPU_BITS = np.uint8(0xFE)
CPU_BIT = np.uint8(1)


def share(total: int, weights: list) -> list:
    """``total`` split in proportion to ``weights`` into whole numbers that add up to it
    (largest remainders first; all to the first when every weight is 0)."""
    total = int(total)
    if not weights:
        return []
    s = float(sum(weights))
    if s <= 0:
        return [total] + [0] * (len(weights) - 1)
    raw = [total * w / s for w in weights]
    out = [int(r) for r in raw]
    rest = total - sum(out)
    order = sorted(range(len(raw)), key=lambda i: raw[i] - out[i], reverse=True)
    for i in order[:rest]:
        out[i] += 1
    return out


class Book:
    """The logical buffers of one recording, their per-step operations and the patterns."""

    def __init__(self, name: str):
        self.name = name
        self.buffers: list[Buffer] = []
        self.step = 0
        self.ops: list = []
        self.patterns: list = []
        self.index: dict = {}
        self.step_pattern: list[int] = []
        self.notes: list[str] = []
        self.overflow: Buffer | None = None

    def new(self, name: str, role: str, kind: str, nbytes: int, born) -> Buffer:
        if len(self.buffers) >= MAX_BUFFERS:
            if self.overflow is None:
                self.overflow = Buffer(len(self.buffers), "(other allocations)", "other", kind,
                                       1, born)
                self.buffers.append(self.overflow)
                self.notes.append(f"more than {MAX_BUFFERS} buffers: the rest are counted "
                                  "together as '(other allocations)' and not replayed")
            self.overflow.nbytes = max(self.overflow.nbytes, int(nbytes))
            self.overflow.instances += 1
            return self.overflow
        b = Buffer(len(self.buffers), name, role, kind, int(nbytes), born)
        self.buffers.append(b)
        return b

    def op(self, kind: str, flops: float, tag: str, accesses: list) -> None:
        if len(self.ops) < MAX_OPS:
            self.ops.append((kind, float(flops), tag, tuple(accesses)))
        elif len(self.ops) == MAX_OPS:
            self.ops.append(None)          # marks the step as cut (once)
            self.notes.append(f"a step had more than {MAX_OPS} operations: its pattern keeps "
                              f"the first {MAX_OPS}")

    def end_step(self) -> None:
        ops = tuple(o for o in self.ops if o is not None)
        self.ops = []
        if len(self.step_pattern) >= MAX_STEPS:
            return
        k = self.index.get(ops)
        if k is None:
            if len(self.patterns) >= MAX_PATTERNS:
                if self.step_pattern and self.step_pattern[-1] != -1 and -1 not in self.step_pattern:
                    self.notes.append(f"more than {MAX_PATTERNS} different steps: the later "
                                      "new ones are not kept (the replay stops before them)")
                self.step_pattern.append(-1)
                self.step += 1
                return
            k = self.index[ops] = len(self.patterns)
            self.patterns.append(ops)
        self.step_pattern.append(k)
        self.step += 1

    def patterns_as_lists(self) -> list:
        return [[[o[0], o[1], o[2], [list(a) for a in o[3]]] for o in ops]
                for ops in self.patterns]


# -- sim: the engine's operations, one by one ----------------------------------------------------------
class SimWatcher:
    """Installed as ``engine.watcher`` while a recording runs (see the module docstring)."""

    SEEN = frozenset({"kernel_cost", "cpu_access", "prefetch", "memcpy", "memcpy_pageable",
                      "malloc", "free", "advise", "synchronize", "launch"})

    def __init__(self, engine, book: Book):
        self.engine, self.book = engine, book
        self.stack: list = []
        self.track: dict = {}          # id(allocation) -> [allocation, buffer, where copy]
        self.born_here: dict = {}      # (kind, nbytes) -> allocations of that shape this step
        self.shapes: dict = {}         # (kind, nbytes, k) -> buffer (a temporary's slot)
        self.submit = "launch_overhead"
        self.names: dict = {}          # ptr -> (name, role)
        self.gpu_seen: dict = {}       # buffer id -> last step the GPU touched it
        for a in list(engine.allocs.values()):
            self.adopt(a, None)

    # the engine's seam ------------------------------------------------------------------------------
    def before(self, op, args, kwargs):
        if op not in self.SEEN:
            return
        if op == "launch":
            self.submit = kwargs.get("submit", args[4] if len(args) > 4 else "launch_overhead")
        self.stack.append((op, dict(self.engine.counters)))

    def after(self, op, args, kwargs, out):
        if op not in self.SEEN:
            return
        while self.stack and self.stack[-1][0] != op:   # an operation that raised
            self.stack.pop()
        if not self.stack:
            return
        _, c0 = self.stack.pop()
        c1 = self.engine.counters
        delta = {k: c1.get(k, 0) - c0.get(k, 0) for k in MOVED + ("evictions",)
                 if c1.get(k, 0) != c0.get(k, 0)}
        handler = getattr(self, "on_" + op)
        handler(args, kwargs, out, delta)

    # allocations ------------------------------------------------------------------------------------
    def adopt(self, a, born):
        """Start tracking allocation ``a`` (made at step ``born``; None: before the recording)."""
        if a.kind == "pageable":
            role, name = "array", f"host array {len(self.book.buffers)}"
        else:
            role, name = "array", f"{a.kind} {len(self.book.buffers)}"
        nm = self.names.get(a.ptr)
        if nm:
            name, role = nm
        b = None
        if born is not None:
            shape = (a.kind, a.nbytes)
            k = self.born_here.get(shape, 0)
            self.born_here[shape] = k + 1
            b = self.shapes.get(shape + (k,))
            if b is not None and b.died is not None:
                b.instances += 1           # the same temporary, made again
                b.died = None
            elif b is not None:
                b = None
        if b is None:
            b = self.book.new(name, role, a.kind, a.nbytes, born)
            if born is not None:
                self.shapes[(a.kind, a.nbytes, self.born_here[(a.kind, a.nbytes)] - 1)] = b
        self.track[id(a)] = [a, b, a.where.copy()]
        return b

    def entry(self, a):
        e = self.track.get(id(a))
        if e is None or e[0] is not a:
            self.adopt(a, None)
            e = self.track[id(a)]
        return e

    def on_malloc(self, args, kwargs, out, delta):
        a, _ = self.engine.find(out)
        self.adopt(a, self.book.step)
        self.attribute(delta, [])

    def on_free(self, args, kwargs, out, delta):
        e = self.track.pop(id(out), None)
        if e is not None:
            e[1].died = self.book.step

    # movement -----------------------------------------------------------------------------------------
    def attribute(self, delta: dict, entries: list, accesses=None) -> None:
        """Share ``delta`` among the buffers: movement by what each one's pages did, faults among
        the buffers the operation touched, remote bytes by the bytes each access read."""
        if not delta and not entries:
            return
        diff = list(entries)
        if delta.get("evictions") or delta.get("evicted_bytes") or (
                delta.get("bytes_d2h") and not entries):
            seen = {id(e[0]) for e in diff}
            diff += [e for e in self.track.values() if id(e[0]) not in seen]
        h2d, d2h, gpu_new, cpu_new, evicted = [], [], [], [], []
        for e in diff:
            a, old = e[0], e[2]
            now = a.where
            if now.shape != old.shape:
                old = np.zeros_like(now)
            og, ng = (old & GPU_BITS) != 0, (now & GPU_BITS) != 0
            oc, nc = (old & CPU_BIT) != 0, (now & CPU_BIT) != 0
            came_gpu = ng & ~og
            came_cpu = nc & ~oc
            h2d.append(int(np.count_nonzero(came_gpu & oc)))
            d2h.append(int(np.count_nonzero(came_cpu & og)))
            gpu_new.append(int(np.count_nonzero(came_gpu)))
            cpu_new.append(int(np.count_nonzero(came_cpu)))
            evicted.append(int(np.count_nonzero(og & ~ng & nc)))
            e[2] = now.copy()
        n = len(entries)
        touched_pages = [int(x.pages.size) for x in accesses] if accesses else [1] * n
        touched_bytes = [int(x.nbytes) for x in accesses] if accesses else [1] * n

        def give(key, weights, among):
            v = delta.get(key, 0)
            if not v or not among:
                return
            w = weights if sum(weights) else [1] * len(among)
            for e, part in zip(among, share(v, w)):
                e[1].moved[key] = e[1].moved.get(key, 0) + part
        give("bytes_h2d", h2d, diff)
        give("bytes_d2h", d2h, diff)
        give("evicted_bytes", evicted, diff)
        give("prefetch_bytes_h2d", h2d, diff)
        give("prefetch_bytes_d2h", d2h, diff)
        give("gpu_faults", gpu_new[:n] if sum(gpu_new[:n]) else touched_pages, entries)
        give("cpu_faults", cpu_new[:n] if sum(cpu_new[:n]) else touched_pages, entries)
        give("remote_bytes", touched_bytes, entries)

    def access_list(self, accesses) -> tuple[list, list, list]:
        entries, rows, accs = [], [], []
        for acc in accesses:
            e = self.entry(acc.alloc)
            pg = acc.pages
            first = int(pg[0]) if pg.size else 0
            last = int(pg[-1]) if pg.size else 0
            entries.append(e)
            accs.append(acc)
            rows.append((e[1].id, int(pg.size), first, last, int(acc.nbytes), bool(acc.write)))
        return entries, rows, accs

    def on_kernel_cost(self, args, kwargs, out, delta):
        accesses = args[0] if args else kwargs.get("accesses", [])
        flops = kwargs.get("flops", args[2] if len(args) > 2 else 0.0)
        entries, rows, accs = self.access_list(accesses)
        for e in entries:
            e[1].gpu_ops += 1
        submit = self.submit if self.submit is not None else "none"
        self.submit = "launch_overhead"
        self.book.op("gpu", flops or 0.0, str(submit), rows)
        self.attribute(delta, entries, accs)

    def on_launch(self, args, kwargs, out, delta):
        pass                       # its kernel_cost was the operation

    def on_cpu_access(self, args, kwargs, out, delta):
        accesses = args[0] if args else kwargs.get("accesses", [])
        streaming = kwargs.get("streaming", args[2] if len(args) > 2 else False)
        entries, rows, accs = self.access_list(accesses)
        for e in entries:
            e[1].cpu_ops += 1
        tag = "fill" if streaming == "fill" else "stream" if streaming else ""
        self.book.op("cpu", 0.0, tag, rows)
        self.attribute(delta, entries, accs)

    def on_prefetch(self, args, kwargs, out, delta):
        a, dest = args[0], args[2]          # args[1]: the pages (the delta counts them)
        e = self.entry(a)
        key = "prefetch_cpu" if dest < 0 else "prefetch_gpu"
        h = e[1].hints
        last = h.get(key + "_step")
        if last != self.book.step:
            h[key] = h.get(key, 0) + 1
            h[key + "_step"] = self.book.step
        self.attribute(delta, [e])

    def on_advise(self, args, kwargs, out, delta):
        a, advice, dev, unset = args[0], args[2], args[3], args[4]
        e = self.entry(a)
        name = advice if advice == "read_mostly" else f"{advice}:{'cpu' if dev < 0 else 'gpu'}"
        adv = e[1].hints.setdefault("advice", [])
        if unset and name in adv:
            adv.remove(name)
        elif not unset and name not in adv:
            adv.append(name)

    def on_memcpy(self, args, kwargs, out, delta):
        dst, src, nbytes = args[0], args[1], args[2]
        (da, do), (sa, so) = self.engine.find(dst), self.engine.find(src)
        rows, entries = [], []
        for a, off, w in ((da, do, True), (sa, so, False)):
            e = self.entry(a)
            pg = a.page_range(off, off + nbytes)
            entries.append(e)
            e[1].gpu_ops += 1
            rows.append((e[1].id, int(pg.size), int(pg[0]) if pg.size else 0,
                         int(pg[-1]) if pg.size else 0, int(nbytes), w))
        self.book.op("copy", 0.0, "", rows)
        self.attribute(delta, entries)

    def on_memcpy_pageable(self, args, kwargs, out, delta):
        ptr, nbytes, to_array = args[0], args[2], args[3]
        a, off = self.engine.find(ptr)
        e = self.entry(a)
        e[1].gpu_ops += 1
        pg = a.page_range(off, off + nbytes)
        self.book.op("copy", 0.0, "pageable", [(e[1].id, int(pg.size), int(pg[0]) if pg.size else 0,
                                                int(pg[-1]) if pg.size else 0, int(nbytes),
                                                bool(to_array))])
        self.attribute(delta, [e])

    def on_synchronize(self, args, kwargs, out, delta):
        self.book.op("sync", 0.0, "", [])

    def end_step(self):
        self.born_here = {}


# -- cuda: CUPTI's records by address ------------------------------------------------------------------
class Ranges:
    """Named address ranges (buffers) and the lookup of an address in them."""

    def __init__(self):
        self.items: list = []          # (ptr, nbytes, name, role, kind)

    def add(self, ptr: int, nbytes: int, name: str, role: str, kind: str) -> bool:
        ptr, nbytes = int(ptr), int(nbytes)
        for p, n, *_ in self.items:
            if p == ptr and n == nbytes:
                return False
        self.items.append((ptr, nbytes, name, role, kind))
        return True

    def finder(self):
        """(the ranges sorted by address, find(address) -> (index, range) or None)."""
        items = sorted(self.items)
        starts = [it[0] for it in items]

        def find(addr: int):
            i = bisect.bisect_right(starts, addr) - 1
            if i >= 0 and addr < items[i][0] + items[i][1]:
                return i, items[i]
            return None
        return items, find


#: the name in the table of umkit's own small buffers that a loop's calls make
OWN_NAMES = {"touch_sinks": "umkit touch sink"}


def own_buffers(b) -> dict:
    """{pointer: name} of umkit's own buffers on backend ``b`` (the sink umkit.touch adds
    into), so that the table does not show them as the loop's anonymous arrays."""
    from ..runtime import RUNTIME
    out = {}
    for key, name in OWN_NAMES.items():
        for arr in dict(RUNTIME.resources_of(b).get(key) or {}).values():
            if not getattr(arr, "freed", True):
                out[int(arr.ptr)] = name
    return out


def torch_buffers(model=None, optimizer=None, tensors=None) -> list:
    """(name, role, tensor) of each of PyTorch's buffers, as the plan's table names them:
    ``model``'s parameters by their names (``0.weight``), their gradients (``0.weight.grad``),
    ``optimizer``'s state tensors (``0.weight.exp_avg``; scalar counters such as Adam's
    ``step`` left out), and ``tensors`` ({name: tensor}, user tensors).  CPU tensors are left
    out: the plan is about CUDA memory."""
    out = []

    def cuda(t):
        return getattr(t, "is_cuda", False)
    if model is not None and not callable(getattr(model, "named_parameters", None)):
        raise InvalidType(f"model={V.shown(model)} is not a PyTorch module", argument="model",
                          hint="pass the torch.nn.Module the loop trains (or leave model out)")
    if optimizer is not None and not isinstance(getattr(optimizer, "state", None), Mapping):
        raise InvalidType(f"optimizer={V.shown(optimizer)} is not a PyTorch optimizer",
                          argument="optimizer", hint="pass the torch.optim optimizer the loop "
                                                     "steps (or leave optimizer out)")
    params = list(model.named_parameters()) if model is not None else []
    names = {id(p): nm for nm, p in params}
    for pname, p in params:
        if cuda(p):
            out.append((pname, "parameter", p.detach()))
        if p.grad is not None and cuda(p.grad):
            out.append((f"{pname}.grad", "gradient", p.grad))
    if optimizer is not None:
        for i, (p, st) in enumerate(optimizer.state.items()):
            for k, v in st.items():
                if cuda(v) and v.dim() > 0:
                    out.append((f"{names.get(id(p), f'param{i}')}.{k}", "optimizer state", v))
    if tensors is not None:
        V.mapping(tensors, "tensors", hint="e.g. tensors={'batch': x}")
        for nm, t in tensors.items():
            if not cuda(t):
                raise InvalidArgument(f"tensors[{nm!r}] is not a CUDA tensor",
                                      argument="tensors", hint="name the CUDA tensors the loop "
                                                               "uses (the batch on the GPU)")
            out.append((str(nm), "user tensor", t.detach()))
    return out


#: the records the CPU's own accesses cause (binned by the CPU's step ends, not the GPU's)
CPU_SIDE = (("CPU_PAGE_FAULT_COUNT", None), ("BYTES_TRANSFER_DTOH", "COHERENCE"))
#: PyTorch's buffers that its kernels read and write every step (when the records cannot see it)
HOT_ROLES = ("parameter", "gradient", "optimizer state", "activation")


def cpu_side(kind: str, cause: str) -> bool:
    return any(kind == k and (c is None or cause == c) for k, c in CPU_SIDE)


def gpu_book(name: str, ranges: Ranges, records: list, stamps: list, step_ms: list,
             lost: int, cpu_stamps: list | None = None, instrumented: list | None = None) -> Book:
    """The buffers and patterns of a cuda recording from CUPTI's records (see module
    docstring).  ``stamps``: the CUPTI clock at each step's end on the GPU (the step's end
    event); ``cpu_stamps``: at each step's end on the CPU (its ``rec.step()`` call), for the
    records of the CPU's own accesses (its faults and what they pulled back), which happen on
    the CPU's timeline while the GPU may still be a step behind (default: ``stamps``).
    ``instrumented``: per step, whether the counters were on (:mod:`.instrumentation`); a step
    without them is taken to access what the commonest instrumented steady step did."""
    book = Book(name)
    items, find = ranges.finder()
    bufs = [book.new(nm, role, kind, n, None) for _, n, nm, role, kind in items]
    other = None
    nsteps = len(stamps)
    cpu_stamps = list(cpu_stamps) if cpu_stamps is not None and len(cpu_stamps) == nsteps \
        else stamps
    per_step = [dict() for _ in range(nsteps)]      # step -> buffer id -> counts
    for t, kind, value, cause, addr in records:
        if not nsteps:
            break
        s = min(bisect.bisect_left(cpu_stamps if cpu_side(kind, cause) else stamps, t),
                nsteps - 1)
        hit = find(addr) if addr else None
        if hit is None:
            if other is None:
                other = book.new("(other managed memory)", "other", "managed", HOST_PAGE, None)
            b = other
        else:
            b = bufs[hit[0]]
        c = per_step[s].setdefault(b.id, dict.fromkeys(("h2d", "d2h", "gf", "cf", "ph2d"), 0))
        v = int(value)
        if kind == "BYTES_TRANSFER_HTOD":
            b.moved["bytes_h2d"] += v
            c["h2d"] += v
            if cause == "USER":
                b.moved["prefetch_bytes_h2d"] += v
                c["ph2d"] += v
        elif kind == "BYTES_TRANSFER_DTOH":
            b.moved["bytes_d2h"] += v
            c["d2h"] += v
            if cause == "USER":
                b.moved["prefetch_bytes_d2h"] += v
            elif cause == "EVICTION":
                b.moved["evicted_bytes"] += v
        elif kind == "GPU_PAGE_FAULT":
            b.moved["gpu_faults"] += 1
            c["gf"] += 1
        elif kind == "CPU_PAGE_FAULT_COUNT":
            b.moved["cpu_faults"] += 1
            c["cf"] += 1
        elif kind == "REMOTE_MAP":
            b.moved["remote_bytes"] += v
    if other is not None:       # its size is not known: what moved of it, at least a page
        other.nbytes = max(HOST_PAGE, other.moved["bytes_h2d"], other.moved["bytes_d2h"])
    hot = {b.id for b in book.buffers
           if b.role in HOT_ROLES or (b.kind == "device" and b.role in TORCH_ROLES)}
    for b in book.buffers:
        if b.role in HOT_ROLES:
            b.inferred = "GPU touches: every step (what PyTorch does with it)"
        elif b.id in hot:
            b.inferred = ("GPU touches: every step (a CUDA tensor in device memory: the records "
                          "cannot see it, and only the GPU reaches it)")
        else:
            b.inferred = "GPU touches: the steps in which it faulted or moved to the GPU"
    flags = list(instrumented or [])[:nsteps]
    flags += [True] * (nsteps - len(flags))
    step_ops = []
    for s in range(nsteps):
        gpu, cpu, ops = [], [], []
        if not flags[s]:
            step_ops.append(None)
            continue
        for b in book.buffers:
            c = per_step[s].get(b.id)
            if c and c["ph2d"] and b.hints.get("prefetch_gpu_step") != s:
                b.hints["prefetch_gpu"] = b.hints.get("prefetch_gpu", 0) + 1
                b.hints["prefetch_gpu_step"] = s
            if b.id in hot or (c and (c["gf"] or c["h2d"] - c["ph2d"] > 0)):
                write = b.role in HOT_ROLES
                gpu.append((b.id, b.pages, 0, b.pages - 1, b.nbytes * (2 if write else 1), write))
            if c and c["cf"]:
                n = min(b.pages, c["cf"])
                cpu.append((b.id, n, 0, b.pages - 1, n * HOST_PAGE, False))
        if gpu:
            ops.append(("gpu", 0.0, "launch_overhead", gpu))
        if cpu:
            ops += [("sync", 0.0, "", []), ("cpu", 0.0, "", cpu)]
        step_ops.append(ops)
    # an uninstrumented step: the commonest instrumented steady step (step 0 only if alone)
    seen = [tuple(map(repr, o)) for o in step_ops[1:] if o is not None] or \
        [tuple(map(repr, o)) for o in step_ops[:1] if o is not None]
    if seen and None in step_ops:
        common = max(set(seen), key=lambda k: (seen.count(k), -seen.index(k)))
        usual = next(o for o in step_ops if o is not None and tuple(map(repr, o)) == common)
        step_ops = [usual if o is None else o for o in step_ops]
        book.notes.append(f"{flags.count(False)} steps ran without "
                          "counters (their time measures the rest of a step without the "
                          "instrumentation); their accesses are taken as the commonest "
                          "instrumented step's")
    for ops in step_ops:
        for kind, flops, tag, acc in ops or []:
            for a in acc:
                if kind == "gpu":
                    book.buffers[a[0]].gpu_ops += 1
                elif kind == "cpu":
                    book.buffers[a[0]].cpu_ops += 1
            book.op(kind, flops, tag, acc)
        book.end_step()
    if lost:
        book.notes.append(f"{lost} CUPTI records were not kept (the address log was full)")
    return book


# -- the recorder ------------------------------------------------------------------------------------
class Recorder:
    """``with umkit.plan.recorder() as rec: ... rec.step()`` (see the module docstring).

    ``name``: the loop's label.  ``ecg``: an ``umkit.ecg.recorder()`` the loop already uses
    (its ``step()`` marks the steps; use the two ``with`` blocks together).  ``stream``,
    ``counters``: as for ``umkit.ecg.recorder``.  ``instrument``: ``"alternate"`` (after
    ``warmup`` steps, every other step runs with the counters off, so that their cost is
    measured and taken out of the predictions: :mod:`.instrumentation`) or ``"always"``
    (every step instrumented; the predictions are then order only).  ``switch``: what turns
    the instrumentation on and off (default: the backend's; tests pass their own)."""

    def __init__(self, name: str = "your loop", *, ecg=None, stream=None, counters: bool = True,
                 instrument: str = "alternate", warmup: int = WARMUP, switch=None):
        from ..ecg import Recorder as EcgRecorder
        V.label(name, "name", hint="e.g. umkit.plan.recorder('my training loop')")
        if ecg is not None and not isinstance(ecg, EcgRecorder):
            raise InvalidType(f"ecg={V.short(ecg)} is not an umkit.ecg.recorder()",
                              argument="ecg", hint="pass the recorder of `with umkit.ecg.recorder() "
                                                   "as rec:`, or leave it out")
        from ..runtime import Stream
        if stream is not None and not isinstance(stream, Stream):
            raise InvalidType(f"stream={V.short(stream)} is not a umkit.Stream",
                              argument="stream", hint="pass umkit.Stream(), or leave it out "
                                                      "(the default stream)")
        V.flag(counters, "counters")
        V.choice(instrument, "instrument", MODES)
        if switch is not None and not (callable(getattr(switch, "set", None))
                                       and callable(getattr(switch, "close", None))):
            raise InvalidType(f"switch={V.short(switch)} has no set(on) and close()",
                              argument="switch", hint="leave it out: the backend's own is used")
        warmup = V.integer(warmup, "warmup", lo=1, hi=MAX_STEPS,
                           hint="instrumented steps before the alternation starts (e.g. 2)")
        self.name, self.stream, self.counters = name, stream, counters
        self.mode, self.warmup, self.user_switch = instrument, warmup, switch
        self.ecg = ecg
        self.own = ecg is None
        self.active = False
        self.flags: list = []          # per step begun: instrumented or not (set by __enter__)
        self.switched = False          # umkit.use() switched the backend inside the block
        self.done: PlanResult | None = None
        self.ranges = Ranges()
        self.pending_names: list = []

    # naming --------------------------------------------------------------------------------------------
    def name_buffer(self, obj, name: str, role: str = "array") -> None:
        """Call a buffer ``name`` in the table: a umkit Array, or (cuda) a torch tensor."""
        V.label(name, "name", hint="e.g. rec.name_buffer(weights, 'weights')")
        V.choice(role, "role", ROLES)
        ptr, nbytes, kind = self.range_of(obj)
        self.ranges.add(ptr, nbytes, name, role, kind)
        if self.active and getattr(self, "watcher", None) is not None:
            self.watcher.names[ptr] = (name, role)
            for e in self.watcher.track.values():
                if e[0].ptr == ptr:
                    e[1].name, e[1].role = name, role
        else:
            self.pending_names.append((ptr, name, role))

    @staticmethod
    def range_of(obj):
        from ..memory import Array
        if isinstance(obj, Array):
            return obj.ptr, obj.nbytes, obj.kind
        try:
            from ..interop.torch import storage_ranges
            (p, n), = storage_ranges(obj)
        except (ImportError, ValueError, InvalidType, InvalidArgument, BackendUnavailable):
            raise InvalidType(f"obj={V.short(obj)} is neither a umkit Array nor one CUDA tensor",
                              argument="obj", hint="pass a umkit array, or a torch tensor "
                                                   "(cuda)") from None
        return p, n, "managed"

    def name_torch(self, model=None, optimizer=None, tensors=None) -> int:
        """Name PyTorch's buffers (cuda): ``model``'s parameters and their gradients,
        ``optimizer``'s state, ``tensors`` ({name: tensor}: user tensors, e.g. the batch), as
        :func:`torch_buffers` names them; each one's kind (managed or device) is asked of the
        driver.  Returns how many were named.  (Activations come and go inside the step; what
        the records show outside every named range is '(other managed memory)'.)"""
        from ..interop import torch as ut
        n = 0
        for name, role, t in torch_buffers(model, optimizer, tensors):
            kind = "managed" if ut.is_managed(t) else "device"
            for ptr, nb in ut.storage_ranges(t):
                n += self.ranges.add(ptr, nb, name, role, kind)
        return n

    # the with block ---------------------------------------------------------------------------------------
    def __enter__(self) -> "Recorder":
        from ..ecg import Recorder as EcgRecorder
        if self.active:
            raise InvalidArgument("this plan recorder is already recording",
                                  hint="one `with umkit.plan.recorder() as rec:` block at a time")
        b = backend()
        self.b = b
        self.switched = False          # a new block starts on this backend
        self.book = Book(self.name)
        self.watcher = None
        self.stamps: list = []         # GPU timeline: the CUPTI clock at each step's end event
        self.cpu_stamps: list = []     # CPU timeline: the CUPTI clock at each rec.step() call
        self.gpu_log = False
        self.gpu = not b.supports("model_time")
        if b.supports("model_time"):
            eng = b.engine
            if getattr(eng, "watcher", None) is not None:
                raise InvalidArgument("another umkit.plan recorder is recording on this backend",
                                      hint="end it first: one plan recording at a time")
            self.watcher = SimWatcher(eng, self.book)
            for ptr, name, role in self.pending_names:
                self.watcher.names[ptr] = (name, role)
                for e in self.watcher.track.values():
                    if e[0].ptr == ptr:
                        e[1].name, e[1].role = name, role
        elif b.name == "cuda" and b.supports("counters_log") and b.counters_clock() is not None:
            from ..backends.counters import COLLECTOR
            b.synchronize()            # the GPU idle: the first step starts now on both clocks
            self.clock0 = b.counters_clock()
            COLLECTOR.address_log_start()
            self.gpu_log = True
        else:
            self.book.notes.append(
                f"backend {b.name} without unified-memory counters on: only the named buffers' "
                "sizes are known, and PyTorch's by their role (umkit.counters_on() first, on "
                "cuda)")
        if self.own:
            self.ecg = EcgRecorder(self.name, stream=self.stream, counters=self.counters,
                                   on_step=self.on_step)
            self.ecg.__enter__()
        else:
            self.chained = self.ecg.on_step
            self.ecg.on_step = self.on_step
        if self.watcher is not None:
            b.engine.watcher = self.watcher
        if not self.own:                   # the ECG recorder's steps: every step instrumented
            self.mode = "always"
        self.switch = self.user_switch or (
            SimSwitch() if self.watcher is not None else
            CuptiSwitch(COLLECTOR, b.synchronize) if self.gpu_log else Switch())
        self.flags: list = []
        self.active = True
        self.begin()
        return self

    def _inside(self, what: str) -> None:
        """A typed error for a step method called before the ``with`` block began it."""
        if not hasattr(self, "switch"):
            raise InvalidArgument(f"rec.{what}() called before its `with` block",
                                  argument="rec",
                                  hint="use it as `with umkit.plan.recorder() as rec:`")

    def begin(self) -> None:
        """The start of a step: the instrumentation on or off for it (:func:`schedule`)."""
        self._inside("begin")
        on = schedule(len(self.flags), self.warmup, self.mode)
        now = self.switch.set(on)
        self.flags.append(on if now is None else bool(now))

    @property
    def instrumented(self) -> bool:
        """Whether the step running now is instrumented (see ``instrument``)."""
        return bool(self.flags and self.flags[-1])

    def on_step(self, rec) -> None:
        self._inside("on_step")
        if self.watcher is not None:
            self.book.end_step()
            self.watcher.end_step()
        elif self.gpu:
            # the end event of this step, on the CUPTI clock: the start plus the device time
            # of every step so far (the recorder resolves steps one late, after the GPU has
            # begun the next one, so the clock read now would be late)
            last = self.stamps[-1] if self.stamps else getattr(self, "clock0", 0) or 0
            self.stamps.append(last + int(round(float(rec.ms) * 1e6)))
        else:
            self.book.end_step()
        if not self.own and self.chained is not None:
            self.chained(rec)

    def step(self, note: str = "") -> None:
        """One heartbeat: the end of a step (as ``umkit.ecg.recorder``'s ``step``)."""
        if not self.active:
            raise InvalidArgument("rec.step() called outside its `with` block",
                                  hint="call rec.step() inside `with umkit.plan.recorder() as rec:`")
        if not self.own:
            raise InvalidArgument("this plan recorder follows an ECG recorder's steps",
                                  hint="call the ECG recorder's step(), as the loop does")
        self.same_backend()
        if self.gpu_log:
            self.cpu_stamps.append(self.b.counters_clock())
        self.ecg.step(note)
        self.begin()

    def same_backend(self) -> None:
        """The recording watches the backend of its ``with``; after ``umkit.use()`` inside the
        block the steps would go on without the new backend's work: refused."""
        self._inside("same_backend")
        if self.switched or backend() is not self.b:
            self.switched = True
            raise InvalidArgument("umkit.use() switched the backend inside this plan recording: "
                                  "what runs on the new backend is not recorded",
                                  argument="rec", hint="call umkit.use() before "
                                  "`with umkit.plan.recorder() as rec:`, and record again")

    def __exit__(self, *exc) -> bool:
        if not self.active:
            return False
        self.active = False
        try:
            self.switched = self.switched or backend() is not self.b
        except BackendUnavailable:         # no backend at all now: as switched
            self.switched = True
        try:
            if self.own:
                self.ecg.__exit__(*exc)
        finally:
            if self.watcher is not None:
                self.b.engine.watcher = None
            if not self.own:
                self.ecg.on_step = self.chained
            try:
                self.switch.close()
            except Exception:  # noqa: BLE001 - the loop's own error, if any, comes first
                if exc[0] is None:
                    raise
            records, lost = [], 0
            if self.gpu_log:
                from ..backends.counters import COLLECTOR
                records, lost = COLLECTOR.address_log_stop()
        own = own_buffers(self.b)
        if self.watcher is not None:
            for a, buf, *_ in self.watcher.track.values():
                if a.ptr in own and buf.role == "array":
                    buf.name, buf.role = own[a.ptr], "other"
        if self.gpu:
            for a in self.b.allocations():
                self.ranges.add(a.ptr, a.nbytes, own.get(a.ptr, f"{a.kind} array {a.ptr:#x}"),
                                "other" if a.ptr in own else "array", a.kind)
            notes = self.book.notes
            self.book = gpu_book(self.name, self.ranges, records, self.stamps, [], lost,
                                 cpu_stamps=self.cpu_stamps if self.own else None,
                                 instrumented=self.flags if self.gpu_log else None)
            self.book.notes[:0] = notes
        if getattr(self.switch, "failed", None):
            self.book.notes.append(f"the counters could not be turned off for a step "
                                   f"({V.short(self.switch.failed)}): every later step is "
                                   "instrumented")
        self.book.instrumented = [bool(f) for f in self.flags]
        self.book.warmup = self.warmup if self.mode == "alternate" else 0
        self.book.instrumentation = self.switch.what
        self.finish()
        return False

    def finish(self) -> None:
        self._inside("finish")
        book = self.book
        if self.own:
            ecg = self.ecg.result()
            self.done = build(book, ecg, self.b, self.name)
        else:
            self.done = None               # built on result(), once the ECG block has ended

    def result(self) -> PlanResult:
        """The recording (after the ``with`` block; with ``ecg=``, after both blocks)."""
        if self.active:
            raise InvalidArgument("rec.result() inside the `with` block",
                                  hint="call it after the block ends")
        if self.switched:
            self.same_backend()
        if self.done is None:
            if not hasattr(self, "book"):
                raise InvalidArgument("nothing recorded yet",
                                      hint="use `with umkit.plan.recorder() as rec:` and rec.step()")
            try:
                ecg = self.ecg.result()
            except InvalidArgument:
                raise InvalidArgument("the ECG recorder's block has not ended",
                                      hint="call rec.result() after both `with` blocks") from None
            self.done = build(self.book, ecg, self.b, self.name)
        return self.done


def build(book: Book, ecg, b, name: str) -> PlanResult:
    """The :class:`PlanResult` of a finished recording (its step times from ``ecg``)."""
    steps = min(len(ecg.steps), len(book.step_pattern))
    prof = b.model_profile().name if b.supports("model_time") else None
    for bf in book.buffers:
        for k in ("prefetch_gpu_step", "prefetch_cpu_step"):
            bf.hints.pop(k, None)
        if bf.role == "array" and bf.kind == "pageable":
            bf.role = "array"
    flags = list(getattr(book, "instrumented", None) or [])[:steps]
    flags += [True] * (steps - len(flags))
    return PlanResult(backend=b.name, device=ecg.device, profile=prof, steps=steps,
                      step_ms=[float(s.ms) for s in ecg.steps[:steps]], buffers=book.buffers,
                      patterns=book.patterns_as_lists(), step_pattern=book.step_pattern[:steps],
                      notes=list(book.notes), meta=dict(
                          name=name, choices=list(CHOICES), torch_roles=list(TORCH_ROLES),
                          instrumented=[int(f) for f in flags],
                          instrument_warmup=int(getattr(book, "warmup", 0) or 0),
                          instrumentation=getattr(book, "instrumentation", "unknown")))


def recorder(name: str = "your loop", *, ecg=None, stream=None, counters: bool = True,
             instrument: str = "alternate", warmup: int = WARMUP) -> Recorder:
    """A recorder for your own loop: ``with umkit.plan.recorder() as rec: ... rec.step()``,
    then ``rec.result()`` (a :class:`PlanResult`).  ``ecg``: an ``umkit.ecg.recorder()`` the
    loop already steps (then its ``step()`` marks the steps).  ``instrument``: "alternate"
    (after ``warmup`` steps every other step runs with the counters off, so that their cost is
    measured and left out of the predictions) or "always" (:mod:`umkit.plan.instrumentation`)."""
    return Recorder(name, ecg=ecg, stream=stream, counters=counters, instrument=instrument,
                    warmup=warmup)
