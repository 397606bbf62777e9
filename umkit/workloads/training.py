"""The one definition of "strategy", access patterns, and the training-style step.

The strategy panel, the memory ECG, ``umkit calibrate --compare`` and the notebooks all run
these, through the public API only, on whatever backend is active.

A *step* (the article's §1.2) reads a batch and reads+writes the parameters on the GPU.  The
*pattern* adds what the CPU does: nothing, sparse statistics on the parameters every k steps
(the optimizer story of §4.3), or edits to the batch between steps (§4.2).  The *strategy* says
where each buffer lives and which hints it gets (§3.4, §4.4, §6).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from .. import api
from ..errors import InvalidArgument, InvalidType
from ..runtime import RUNTIME, backend

MEMORY = ("device", "managed", "pinned", "mixed")
PREFETCH = ("off", "gpu", "gpu+back")
ADVICE = ("none", "read_mostly", "preferred_gpu", "preferred_cpu_accessed_by")
PATTERNS = ("gpu_only", "cpu_stats", "cpu_edits")
STATS_STRIDE = 65536
MAX_STEPS = 1_000_000       # a bound on one run (the ECG and the panel bound theirs lower)        # the CPU statistic reads one float every 64 KiB of parameters


@dataclass(frozen=True)
class Strategy:
    """Where the buffers live and which hints they get."""
    name: str
    memory: str = "managed"     # device | managed | pinned | mixed (hot params in device memory)
    prefetch: str = "off"       # off | gpu (before each step) | gpu+back (and back to CPU after)
    advice: str = "none"        # none | read_mostly | preferred_gpu | preferred_cpu_accessed_by

    def __post_init__(self):
        from .. import validate as V
        V.text(self.name, "name", hint="a label for the strategy, e.g. 'managed+prefetch'")
        for k, allowed in (("memory", MEMORY), ("prefetch", PREFETCH), ("advice", ADVICE)):
            V.choice(getattr(self, k), k, allowed)


STRATEGIES = {
    "device": Strategy("device", "device"),
    "managed": Strategy("managed", "managed"),
    "managed+prefetch": Strategy("managed+prefetch", "managed", prefetch="gpu"),
    "managed+advice": Strategy("managed+advice", "managed", prefetch="gpu", advice="preferred_gpu"),
    "mixed": Strategy("mixed", "mixed", prefetch="gpu"),
    "pinned": Strategy("pinned", "pinned"),
}


def strategy(s) -> Strategy:
    """A strategy by name (one of :data:`STRATEGIES`), or a :class:`Strategy` as it is."""
    return _strategy(s, "s")


def _named(value, argument: str, cls, kind: str, names, make):
    """``value`` as it is when it is a ``cls``, else the named one of ``names`` (``make(name)``
    builds it), else a typed error naming ``argument``."""
    if isinstance(value, cls):
        return value
    if not isinstance(value, str):
        from ..validate import short
        raise InvalidType(f"{kind} {short(value)} must be a name or a umkit.workloads.{cls.__name__} "
                          f"({argument})", argument=argument, hint=f"use one of {list(names)}")
    if value not in names:
        raise InvalidArgument(f"{kind} {value!r} is unknown ({argument})", argument=argument,
                              hint=f"use one of {list(names)}")
    return make(value)


def _strategy(s, argument: str) -> Strategy:
    return _named(s, argument, Strategy, "strategy", STRATEGIES, STRATEGIES.__getitem__)


@dataclass(frozen=True)
class Pattern:
    name: str = "gpu_only"      # gpu_only | cpu_stats | cpu_edits
    every: int = 10             # cpu_stats: every k steps

    def __post_init__(self):
        from .. import validate as V
        V.choice(self.name, "name", PATTERNS, hint=f"a pattern: one of {PATTERNS}")
        object.__setattr__(self, "every", V.integer(self.every, "every", lo=1, hi=MAX_EVERY,
                                                    hint="e.g. every=10"))


MAX_EVERY = 1_000_000


def pattern(p) -> Pattern:
    """A pattern by name (one of :data:`PATTERNS`), or a :class:`Pattern` as it is."""
    return _pattern(p, "p")


def _pattern(p, argument: str) -> Pattern:
    return _named(p, argument, Pattern, "pattern", PATTERNS, Pattern)


@dataclass
class StepRecord:
    step: int
    ms: float
    counters: dict              # this step's counter deltas (sim), {} on real GPUs
    note: str = ""


@dataclass
class RunResult:
    strategy: str
    pattern: str
    nbytes: int
    backend: str
    steps: list = field(default_factory=list)
    counters: dict = field(default_factory=dict)
    stopped: bool = False

    @property
    def step_ms(self) -> list[float]:
        return [s.ms for s in self.steps]

    def summary(self) -> dict:
        """median, p95 and max/median of the steady state: step 0 (warm-up: first touches,
        module loads) is left out when there is more than one step."""
        ms = self.step_ms[1:] if len(self.steps) > 1 else self.step_ms
        t = np.array(ms) if ms else np.zeros(1)
        med = float(np.median(t))
        return dict(strategy=self.strategy, pattern=self.pattern, steps=len(self.steps),
                    median_ms=round(med, 4), p95_ms=round(float(np.percentile(t, 95)), 4),
                    max_over_median=round(float(t.max() / med), 2) if med > 0 else 0.0)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["summary"] = self.summary()
        return d


def counter_delta(before: dict, after: dict, keep_zeros: bool = False) -> dict:
    """What changed between two ``umkit.counters()`` snapshots: ``{name: after - before}`` for
    every counter of ``after`` -- only those that moved, or all of them with ``keep_zeros``."""
    from .. import validate as V
    from numbers import Real
    V.mapping(before, "before", hint="a umkit.counters() snapshot")
    V.mapping(after, "after", hint="a umkit.counters() snapshot")
    keep_zeros = V.flag(keep_zeros, "keep_zeros")
    out = {}
    for k, v in after.items():
        b = before.get(k, 0)
        for where, x in (("after", v), ("before", b)):
            if isinstance(x, (bool, np.bool_)) or not isinstance(x, Real):
                raise InvalidType(f"{where}[{V.shown(k)}]={V.shown(x)} is not a count",
                                  argument=where, hint="a umkit.counters() snapshot: "
                                                       "{name: number}")
        d = v - b
        if keep_zeros or d != 0:
            out[k] = d
    return out


class TrainingStep:
    """The buffers of a small training job, laid out by a strategy, and one step over them."""

    def __init__(self, strat, patt="gpu_only", nbytes: int = 64 << 20, device: int = 0):
        from .. import validate as V
        self.strategy, self.pattern = _strategy(strat, "strat"), _pattern(patt, "patt")
        nbytes = V.integer(nbytes, "nbytes", lo=1 << 20, hi=V.MAX_BYTES,
                           hint="e.g. 64 << 20 for 64 MiB (at least 1 MiB)")
        device = V.device(device, backend())
        s, d = self.strategy, device
        n_params = (nbytes * 3 // 4) // 4
        n_batch = (nbytes // 4) // 4
        params_kind = {"device": "device", "mixed": "device", "pinned": "pinned"}.get(s.memory, "managed")
        batch_kind = {"device": "device", "pinned": "pinned"}.get(s.memory, "managed")
        self.params = api.empty(n_params, "float32", params_kind, d)
        self.batch = api.empty(n_batch, "float32", batch_kind, d)
        self.staging = api.pinned(n_batch // 8, "float32", d) if batch_kind == "device" else None
        self.stream = api.Stream(d)
        self.device = d
        # advice first, then prefetch (the article's §4.4)
        for buf in (self.params, self.batch):
            if buf.kind != "managed":
                continue
            if s.advice == "read_mostly" and buf is self.batch:
                buf.advise("read_mostly")
            elif s.advice == "preferred_gpu":
                buf.advise("preferred_location", f"gpu{d}")
                buf.advise("accessed_by", "cpu")
            elif s.advice == "preferred_cpu_accessed_by":
                buf.advise("preferred_location", "cpu")
                buf.advise("accessed_by", f"gpu{d}")
        api.fill(self.params, 0.5, stream=self.stream)
        self._write_batch(0, full=True)
        if s.prefetch != "off":
            self._prefetch_to_gpu()
        self.stream.synchronize()

    def _managed(self):
        return [b for b in (self.params, self.batch) if b.kind == "managed"]

    def _prefetch_to_gpu(self):
        for b in self._managed():
            b.prefetch(f"gpu{self.device}", stream=self.stream)

    def _write_batch(self, i: int, full: bool = False):
        """The CPU prepares data: the whole batch at start, an eighth of it between steps."""
        n = self.batch.size if full else self.batch.size // 8
        if self.batch.kind == "device":
            m = min(n, self.staging.size)
            self.staging.host[:m] = np.float32(i)
            for off in range(0, n, m):
                k = min(m, n - off)
                self.backend.memcpy(self.batch.ptr + 4 * off, self.staging.ptr, 4 * k, self.stream.handle)
        else:
            self.batch.host[:n] = np.float32(i)

    @property
    def backend(self):
        return self.params.backend

    def step(self, i: int) -> tuple[float, str]:
        s, p = self.strategy, self.pattern
        note = ""
        with api.timer(self.stream) as t:
            if p.name == "cpu_edits":
                self._write_batch(i)
                note = "cpu edits batch"
            if s.prefetch != "off":
                self._prefetch_to_gpu()
            api.touch(self.batch, 4, stream=self.stream, sink=self._sink())   # read the batch
            api.increment(self.params, stream=self.stream)                      # update weights
            if s.prefetch == "gpu+back":
                for b in self._managed():
                    b.prefetch("cpu", stream=self.stream)
            if p.name == "cpu_stats" and i % p.every == p.every - 1:
                self.stream.synchronize()
                self.stat = self._cpu_statistic()
                note = "cpu statistics"
        return t.ms, note

    def _sink(self):
        if not hasattr(self, "_sink_arr"):
            self._sink_arr = api.device_array(1, "float32", self.device)
        return self._sink_arr

    def _cpu_statistic(self) -> float:
        """Sparse statistics on the parameters (one float per 64 KiB).  On the CPU where the
        parameters are host-visible; on the GPU + a 4-byte read-back where they are not."""
        if self.params.kind == "device":
            sink = api.touch(self.params, STATS_STRIDE, stream=self.stream)
            v = float(api.read_back(sink, stream=self.stream)[0])
            sink.free()
            return v
        return float(self.params.host[::STATS_STRIDE // 4].sum())

    def close(self):
        for b in (self.params, self.batch, self.staging, getattr(self, "_sink_arr", None)):
            if b is not None and not b.freed:
                b.free()


def run(strat, patt="gpu_only", steps: int = 50, nbytes: int = 64 << 20, *, device: int = 0,
        on_step=None, should_stop=None) -> RunResult:
    """Run ``steps`` training-style steps; ``on_step(record)`` is called after each one (live
    bars); ``should_stop()`` returning True ends the run early (Stop button)."""
    from .. import validate as V
    steps = V.integer(steps, "steps", lo=1, hi=MAX_STEPS, hint=f"e.g. steps=50 (1..{MAX_STEPS})")
    V.callback(on_step, "on_step")
    V.callback(should_stop, "should_stop")
    b = backend()
    # the whole run stays on the backend it started on, even if another thread calls
    # umkit.use() meanwhile (runtime.context: a using block is per thread)
    with RUNTIME.using_backend(b, RUNTIME.active().name, "umkit.workloads.run keeps its backend"):
        return _run(b, strat, patt, steps, nbytes, device, on_step, should_stop)


def _run(b, strat, patt, steps, nbytes, device, on_step, should_stop) -> RunResult:
    job = TrainingStep(strat, patt, nbytes, device)
    res = RunResult(job.strategy.name, job.pattern.name, nbytes, b.name)
    start = api.counters()
    try:
        for i in range(steps):
            if should_stop is not None and should_stop():
                res.stopped = True
                break
            before = api.counters()
            ms, note = job.step(i)
            rec = StepRecord(i, round(ms, 6), counter_delta(before, api.counters()), note)
            res.steps.append(rec)
            if on_step is not None:
                on_step(rec)
    finally:
        job.close()
    res.counters = counter_delta(start, api.counters())
    return res


def epoch_loop(n: int = 1 << 20, epochs: int = 3, use_prefetch: bool = True,
               cpu_edit: bool = False) -> dict:
    """The article's §4.2 program: three managed arrays; CPU fills a, b; each epoch prefetch
    a, b (and out) to the GPU, add_kernel, synchronize, CPU sums out."""
    from .. import validate as V
    # add_kernel counts its elements in an int: at most 2**31 - 1
    n = V.integer(n, "n", lo=4, hi=(1 << 31) - 1, hint="elements per array, e.g. n=1 << 20")
    epochs = V.integer(epochs, "epochs", lo=1, hi=MAX_STEPS, hint="e.g. epochs=3")
    use_prefetch, cpu_edit = V.flag(use_prefetch, "use_prefetch"), V.flag(cpu_edit, "cpu_edit")
    a, b, out = api.managed(n), api.managed(n), api.managed(n)
    try:
        a.host[:] = 1.0
        b.host[:] = 2.0
        s = api.Stream()
        if use_prefetch:
            out.prefetch("gpu", stream=s)
        epoch_ms, sums = [], []
        for e in range(epochs):
            with api.timer(s) as t:
                if cpu_edit and e:
                    a.host[: n // 4] = float(e + 1)
                if use_prefetch:
                    a.prefetch("gpu", stream=s)
                    b.prefetch("gpu", stream=s)
                api.add(out, a, b, stream=s)
                s.synchronize()
                sums.append(float(out.host.sum(dtype=np.float64)))
            epoch_ms.append(round(t.ms, 6))
        return dict(epoch_ms=epoch_ms, sums=sums)
    finally:
        for x in (a, b, out):
            x.free()
