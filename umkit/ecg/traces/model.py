"""What a profiler file says, in the kit's own terms (a leaf of :mod:`umkit.ecg.traces`).

A reader (:mod:`.rocpd`, :mod:`.nsys`, :mod:`.cupti_file`) streams the file's rows into one
:class:`Collector`: each row is binned into a step as it arrives (the steps are known first),
summed into umkit's counter keys, attributed to the buffer (allocation) whose address range holds
it, and painted into that buffer's page map.  Nothing grows with the file's length except what is
bounded (at most :data:`MAX_SLICES` events kept for the Perfetto export, :data:`MAX_STEPS` steps,
:data:`MAX_BUFFERS` buffers, :data:`MAX_PAGES` cells of page map a buffer), so a 10 GB database is
read in bounded memory.  :meth:`Collector.finish` gives a :class:`ProfilerTrace`: an ECG
(:meth:`ProfilerTrace.to_ecg`), a residency picture per buffer (:meth:`ProfilerTrace.residency`)
and the access-owner table of :mod:`umkit.plan` (:meth:`ProfilerTrace.access_table`,
:meth:`ProfilerTrace.plan_dict`, which ``umkit.plan.PlanResult.from_dict`` reads).
"""
from __future__ import annotations

import bisect
import json
import math
import re
from dataclasses import dataclass, field

import numpy as np

from ...errors import InvalidArgument
from ..model import EXAMPLE_BACKEND

MAX_STEPS = 100_000        # the ECG's bound
MAX_BUFFERS = 512          # umkit.plan's bound (the rest: one "other" buffer)
MAX_PAGES = 1 << 20        # cells of page map kept per buffer (coarser pages beyond)
MAX_SLICES = 10_000       # events kept for the Perfetto export (the rest are counted)
MAX_CELLS = 1 << 25        # cells of page map kept over all buffers (32 MiB; coarser beyond)
HOST_PAGE = 4096
#: what a file's values may be: times in ns (SQLite's 64-bit integers), addresses (64-bit),
#: one allocation (``umkit.validate.MAX_BYTES``, beyond any machine) and one step (at most
#: ``umkit.plan``'s 1e9 ms)
MAX_NS = (1 << 63) - 1
MAX_ADDRESS = (1 << 64) - 1
MAX_ALLOCATION = 1 << 48
MAX_STEP_NS = 10 ** 15
DECIMAL = re.compile(r"-?[0-9]{1,20}")
#: the counter keys a reader fills (the simulator's and CUPTI's names where they mean the same)
KEYS = ("gpu_faults", "gpu_fault_groups", "cpu_faults", "bytes_h2d", "bytes_d2h",
        "prefetch_bytes_h2d", "prefetch_bytes_d2h", "prefetcher_bytes", "evicted_bytes",
        "fault_bytes_h2d", "gpu_unmaps", "dropped_records")
#: per-buffer totals, in umkit.plan's names (umkit.plan.model.MOVED)
MOVED = ("bytes_h2d", "bytes_d2h", "gpu_faults", "cpu_faults", "remote_bytes",
         "prefetch_bytes_h2d", "prefetch_bytes_d2h", "evicted_bytes")


class ProfilerFileError(InvalidArgument):
    """A profiler file umkit does not understand: an unknown format or schema version, a
    table or column the reader needs that is not there, or a value that cannot be what the
    format says (a time that is text, an address past 64 bits, a database that cannot be read
    to its end).  ``missing`` names what is missing or wrong (a table, ``table.column``, the
    schema version seen); ``argument`` is ``path``."""

    def __init__(self, message: str, *, hint: str = "", missing: str | None = None):
        super().__init__(message, hint=hint, argument="path")
        self.missing = missing


def shown(v) -> str:
    """A file's value as an error message quotes it: short, no control characters."""
    r = repr(v)
    r = r if len(r) <= 60 else r[:57] + "..."
    return "".join(c if c.isprintable() else "?" for c in r)


def integer(v, what: str, path: str, hint: str, lo: int = 0, hi: int = MAX_NS, *,
            text: bool = False) -> int:
    """A file's value as a whole number in [lo, hi], or a ProfilerFileError naming the file
    and the field.  Integers, integral finite floats, and (``text``: where the format writes
    numbers as strings) decimal strings; never bools, NULLs, blobs, NaN or infinities."""
    x = None
    if isinstance(v, int) and not isinstance(v, bool):
        x = v
    elif isinstance(v, float) and math.isfinite(v) and v.is_integer():
        x = int(v)
    elif text and isinstance(v, str) and DECIMAL.fullmatch(v.strip()):
        x = int(v.strip())
    if x is None or not lo <= x <= hi:
        raise ProfilerFileError(f"{path}: {what} is {shown(v)}, not a whole number in "
                                f"[{lo}, {hi}]", missing=what, hint=hint)
    return x


def text(v, limit: int = 200) -> str:
    """A file's text as umkit shows it: one printable line of at most ``limit`` characters
    (a name printed to a terminal must not carry escape codes)."""
    if v is None:
        return ""
    if isinstance(v, (bytes, bytearray, memoryview)):
        v = bytes(v[:4 * limit]).decode("utf-8", "replace")
    elif not isinstance(v, str):
        v = str(v)
    return "".join(c if c.isprintable() else "?" for c in v[:limit])


def json_object(v) -> dict:
    """A JSON column (``extdata``) as a dict; {} for anything else (NULL, not JSON, too deep,
    not an object)."""
    if isinstance(v, (bytes, bytearray)):
        v = bytes(v).decode("utf-8", "replace")
    if not isinstance(v, str) or len(v) > (1 << 20):
        return {}
    try:
        d = json.loads(v)
    except (ValueError, RecursionError):
        return {}
    return d if isinstance(d, dict) else {}


@dataclass
class Buffer:
    """One allocation the file names (or one address range it does not)."""
    name: str
    start: int
    nbytes: int
    kind: str = "managed"
    moved: dict = field(default_factory=lambda: dict.fromkeys(MOVED, 0))
    gpu_steps: set = field(default_factory=set)      # steps the GPU touched it in
    cpu_steps: set = field(default_factory=set)
    gpu_pages: dict = field(default_factory=dict)    # step -> [first page, last page]
    cpu_pages: dict = field(default_factory=dict)
    codes: np.ndarray | None = None
    page_bytes: int = HOST_PAGE
    cells: int = MAX_PAGES                           # the most cells of page map it may keep

    def __post_init__(self):
        pages = max(1, -(-self.nbytes // HOST_PAGE))
        per = max(1, -(-pages // max(1, min(MAX_PAGES, self.cells))))
        self.page_bytes = HOST_PAGE * per
        self.codes = np.zeros(-(-pages // per), dtype=np.int8)

    def paint(self, lo: int, hi: int, code: int) -> tuple[int, int]:
        """Mark [lo, hi) (bytes, absolute) as living at ``code`` (1 CPU, 2 GPU); returns the
        first and last 4 KiB page of the buffer it covers."""
        a = max(lo, self.start) - self.start
        b = min(hi, self.start + self.nbytes) - self.start
        if b <= a:
            b = a + 1
        self.codes[a // self.page_bytes:-(-b // self.page_bytes)] = code
        return a // HOST_PAGE, (b - 1) // HOST_PAGE


class Collector:
    """The one sink every reader streams into.  ``steps``: [(start_ns, end_ns, label)],
    sorted, known before any event arrives."""

    def __init__(self, source: str, path: str, steps: list, step_kind: str, device: str = ""):
        if not steps:
            raise ProfilerFileError(f"{path}: no steps (no step markers and no kernels)",
                                    missing="steps",
                                    hint="mark each step with a ROCTx/NVTX range named 'step', or "
                                         "pass step='NAME' naming your ranges")
        if len(steps) > MAX_STEPS:
            raise ProfilerFileError(f"{path}: {len(steps)} steps, more than {MAX_STEPS}",
                                    missing="a step marker",
                                    hint="mark steps with ROCTx/NVTX ranges and pass step='NAME'")
        for s, e, _ in steps:
            if not 0 <= s <= e <= MAX_NS or e - s > MAX_STEP_NS:
                raise ProfilerFileError(f"{path}: a step from {s} to {e} ns: not a step of up to "
                                        f"{MAX_STEP_NS // 10**9} s", missing="step",
                                        hint="mark each step with a ROCTx/NVTX range")
        self.source, self.path, self.step_kind, self.device = source, path, step_kind, device
        self.steps = sorted(steps)
        self.ends = [s[1] for s in self.steps]
        self.per_step = [dict.fromkeys(KEYS, 0) for _ in self.steps]
        self.buffers: list[Buffer] = []
        self.starts: list[int] = []
        self.other: Buffer | None = None
        self.slices: list = []             # (track, name, ts_ns, dur_ns, args)
        self.slices_dropped = 0
        self.rows = 0
        self.cells_left = MAX_CELLS

    # -- buffers ---------------------------------------------------------------------------------
    def allocation(self, start: int, nbytes: int, name: str = "", kind: str = "managed") -> None:
        if nbytes <= 0 or start < 0:
            return
        if len(self.buffers) >= MAX_BUFFERS - 1:
            return                                   # attributed to "other"
        i = bisect.bisect_left(self.starts, start)
        if i < len(self.starts) and self.starts[i] == start:
            return                                   # the same allocation twice (re-use)
        b = Buffer(name or f"buffer@{start:#x}", start, int(nbytes), kind,
                   cells=max(1024, self.cells_left // 4))     # bounded over all buffers
        self.cells_left = max(0, self.cells_left - b.codes.size)
        self.buffers.insert(i, b)
        self.starts.insert(i, start)

    def buffer_at(self, addr: int) -> Buffer:
        i = bisect.bisect_right(self.starts, addr) - 1
        if i >= 0 and addr < self.buffers[i].start + self.buffers[i].nbytes:
            return self.buffers[i]
        if self.other is None:
            self.other = Buffer("other (no allocation record)", 0, HOST_PAGE, "managed")
        return self.other

    # -- events ----------------------------------------------------------------------------------
    def step_of(self, t: int) -> int:
        return min(bisect.bisect_left(self.ends, t), len(self.steps) - 1)

    def keep(self, track: str, name: str, ts: int, dur: int, args: dict) -> None:
        if len(self.slices) < MAX_SLICES:
            self.slices.append((track, name, int(ts), max(0, int(dur)), args))
        else:
            self.slices_dropped += 1

    def count(self, t: int, **deltas) -> int:
        k = self.step_of(t)
        row = self.per_step[k]
        for key, v in deltas.items():
            row[key] += int(v)
        return k

    def migration(self, t: int, dur: int, lo: int, hi: int, to_gpu: bool, trigger: str,
                  track: str) -> None:
        """``hi - lo`` bytes moved at ``t`` to the GPU (``to_gpu``) or the CPU; ``trigger``:
        PREFETCH, PAGEFAULT_GPU, PAGEFAULT_CPU, TTM_EVICTION (AMD's names) or CUPTI's
        USER, COHERENCE, PREFETCH, EVICTION."""
        self.rows += 1
        n = max(0, hi - lo)
        d = {("bytes_h2d" if to_gpu else "bytes_d2h"): n}
        amd = self.source.startswith("rocpd")
        if trigger == "USER" or (trigger == "PREFETCH" and amd):   # hip/cudaMemPrefetchAsync
            d["prefetch_bytes_h2d" if to_gpu else "prefetch_bytes_d2h"] = n
        elif trigger == "PREFETCH":                       # CUPTI: the driver's own prefetcher
            d["prefetcher_bytes"] = n
        if trigger in ("TTM_EVICTION", "EVICTION") and not to_gpu:
            d["evicted_bytes"] = n
        if trigger in ("COHERENCE", "PAGEFAULT_GPU") and to_gpu:
            d["fault_bytes_h2d"] = n
        if trigger == "PAGEFAULT_CPU":
            d["cpu_faults"] = 1
        k = self.count(t, **d)
        b = self.buffer_at(lo)
        for key, v in d.items():
            if key in b.moved:
                b.moved[key] += v
        first, last = b.paint(lo, hi, 2 if to_gpu else 1)
        pages = b.gpu_pages if to_gpu else b.cpu_pages
        (b.gpu_steps if to_gpu else b.cpu_steps).add(k)
        p = pages.setdefault(k, [first, last])
        p[0], p[1] = min(p[0], first), max(p[1], last)
        self.keep(track, f"migrate {'to GPU' if to_gpu else 'to CPU'} ({trigger})", t, dur,
                  {"bytes": n, "address": f"{lo:#x}", "buffer": b.name})

    def fault(self, t: int, dur: int, addr: int, on_gpu: bool, groups: int, track: str) -> None:
        self.rows += 1
        d = {"gpu_faults": 1, "gpu_fault_groups": groups} if on_gpu else {"cpu_faults": 1}
        k = self.count(t, **d)
        b = self.buffer_at(addr)
        b.moved["gpu_faults" if on_gpu else "cpu_faults"] += 1
        page = max(0, addr - b.start) // HOST_PAGE
        pages = b.gpu_pages if on_gpu else b.cpu_pages
        (b.gpu_steps if on_gpu else b.cpu_steps).add(k)
        p = pages.setdefault(k, [page, page])
        p[0], p[1] = min(p[0], page), max(p[1], page)
        self.keep(track, f"{'GPU' if on_gpu else 'CPU'} page fault", t, dur,
                  {"address": f"{addr:#x}", "buffer": b.name})

    def other_event(self, t: int, key: str, n: int = 1) -> None:
        self.rows += 1
        self.count(t, **{key: n})

    def finish(self, name: str, backend: str, meta: dict, example: str | None = None
               ) -> "ProfilerTrace":
        bufs = list(self.buffers) + ([self.other] if self.other else [])
        tr = ProfilerTrace(name=name, source=self.source, backend=backend, device=self.device,
                           path=self.path, steps=self.steps, step_kind=self.step_kind,
                           per_step=[{k: v for k, v in c.items() if v} for c in self.per_step],
                           buffers=bufs, slices=self.slices, slices_dropped=self.slices_dropped,
                           rows=self.rows, meta=dict(meta))
        return as_example(tr, example) if example else tr


def as_example(tr: "ProfilerTrace", what: str) -> "ProfilerTrace":
    """``tr`` labelled as what it is: a file that was not recorded on a card (``what`` says
    what it is, e.g. "built from the documented rocpd schema").  Its backend is
    :data:`EXAMPLE_BACKEND`, its source and default name say "example", and the Perfetto
    export calls it an example, not a measurement."""
    what = text(what, 120)
    tr.backend = EXAMPLE_BACKEND
    tr.source = f"example file {what} ({tr.source})"
    tr.meta["example"] = what
    return tr


@dataclass
class ProfilerTrace:
    """A profiler file, read: steps (``(start_ns, end_ns, label)``), each step's counters in
    umkit's keys (``per_step``), the buffers with what moved and where their pages ended up,
    and up to :data:`MAX_SLICES` events for :func:`umkit.ecg.traces.perfetto`."""
    name: str
    source: str
    backend: str
    device: str
    path: str
    steps: list
    step_kind: str
    per_step: list
    buffers: list
    slices: list
    slices_dropped: int
    rows: int
    meta: dict
    totals: dict | None = None       # a summary file's totals (no steps, no addresses)

    @property
    def example(self) -> bool:
        """True for a file that says it was not recorded (``umkit.ecg.read(..., example=...)``)."""
        return self.backend == EXAMPLE_BACKEND

    def need_steps(self, what: str) -> None:
        if not self.steps:
            raise ProfilerFileError(f"{self.path}: {self.source} holds whole-run totals only, "
                                    f"no steps: no {what}", missing="steps",
                                    hint="record with rocprofv3 (rocpd) or set ROCPROFSYS_USE_"
                                         "ROCPD=1 for a timeline; .counters has the totals")

    @property
    def step_ms(self) -> list:
        return [round((e - s) / 1e6, 6) for s, e, _ in self.steps]

    @property
    def counters(self) -> dict:
        if self.totals is not None:
            return dict(self.totals)
        out: dict = {}
        for c in self.per_step:
            for k, v in c.items():
                out[k] = out.get(k, 0) + v
        return out

    def record(self):
        """The file as a :class:`umkit.ecg.RecordResult` (measured, not model time)."""
        from ...workloads import StepRecord
        from ..recording import RecordResult
        self.need_steps("ECG")
        steps = [StepRecord(i, ms, dict(c), "")
                 for i, (ms, c) in enumerate(zip(self.step_ms, self.per_step))]
        return RecordResult(strategy=self.name, pattern="your loop", nbytes=None,
                            backend=self.backend, steps=steps, counters=self.counters,
                            device=self.device, profile=None, model_time=False,
                            meta={"source": self.source, "steps_from": self.step_kind})

    def to_ecg(self) -> dict:
        """An ECG dict: ``umkit.ecg.plot``, ``umkit.ecg.table`` and the widget draw it."""
        return self.record().to_ecg()

    def buffer(self, key) -> Buffer:
        for b in self.buffers:
            if b.name == key or b.start == key:
                return b
        raise InvalidArgument(f"no buffer {key!r} in this trace", argument="key",
                              hint=f"one of {[b.name for b in self.buffers][:8]}")

    def residency(self, key=None):
        """Where each page of a buffer was left by the recorded migrations, as
        ``umkit.residency(arr)`` gives it (draw with ``umkit.teaching.residency_plot``):
        0 never moved in the recording, 1 CPU, 2 GPU.  ``key``: a buffer's name or start
        address (default: the largest)."""
        from ...api import Residency
        if not self.buffers:
            raise ProfilerFileError(f"{self.path}: {self.source} names no addresses: no "
                                    "residency picture", missing="addresses",
                                    hint="record with rocprofv3 (rocpd), whose KFD records "
                                         "carry each migration's address range")
        b = self.buffer(key) if key is not None else max(self.buffers, key=lambda x: x.nbytes)
        return Residency(b.codes.copy(), b.page_bytes,
                         f"{self.source}: where the recorded migrations left each page")

    def access_table(self) -> list:
        """One row a buffer: bytes, what moved each way, faults, and the steps the GPU and
        the CPU touched it in (as faults and migrations show them)."""
        return [dict(name=b.name, address=b.start, nbytes=b.nbytes, kind=b.kind,
                     gpu_steps=len(b.gpu_steps), cpu_steps=len(b.cpu_steps),
                     **{k: int(b.moved.get(k, 0)) for k in MOVED})
                for b in self.buffers]

    def plan_dict(self) -> dict:
        """The recording as a ``umkit.plan/1`` document (``umkit.plan.PlanResult.from_dict``
        reads it: its table, and what each choice would cost on sim).  A touch is what a fault
        or a migration shows: a buffer the GPU used without faulting or moving is not seen."""
        self.need_steps("plan")
        bufs = [b for b in self.buffers][:MAX_BUFFERS]
        ids = {id(b): i for i, b in enumerate(bufs)}
        patterns, index, step_pattern = [], {}, []
        for k in range(len(self.steps)):
            ops = []
            for who, attr in (("gpu", "gpu_pages"), ("cpu", "cpu_pages")):
                acc = []
                for b in bufs:
                    p = getattr(b, attr).get(k)
                    if p:
                        pages = -(-b.nbytes // HOST_PAGE)
                        first, last = min(p[0], pages - 1), min(p[1], pages - 1)
                        acc.append([ids[id(b)], last - first + 1, first, last,
                                    (last - first + 1) * HOST_PAGE, False])
                if acc:
                    ops.append([who, 0.0, "" if who == "cpu" else "none", acc])
            key = repr(ops)
            if key not in index and len(patterns) < 64:
                index[key] = len(patterns)
                patterns.append(ops)
            step_pattern.append(index.get(key, -1))
        buffers = [dict(id=i, name=b.name[:200], role="array", kind=b.kind, nbytes=b.nbytes,
                        moved={k: int(v) for k, v in b.moved.items()},
                        gpu_ops=len(b.gpu_steps), cpu_ops=len(b.cpu_steps),
                        inferred=f"touches seen as faults and migrations in {self.source}")
                   for i, b in enumerate(bufs)]
        return {"format": "umkit.plan/1", "backend": self.backend, "device": self.device,
                "profile": None, "steps": len(self.steps), "step_ms": self.step_ms,
                "buffers": buffers, "patterns": patterns, "step_pattern": step_pattern,
                "notes": [f"read from {self.source}; steps from {self.step_kind}"],
                "meta": {"name": self.name}}
