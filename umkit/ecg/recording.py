"""The memory ECG (显存心电图) of *your own* loop: one heartbeat per step, any loop.

    with umkit.ecg.recorder() as rec:
        for batch in loader:
            train_step(batch)      # yours, PyTorch's, CuPy's, umkit's
            rec.step()             # one heartbeat
    r = rec.result()               # r.step_ms, r.steps[i].counters, r.summary()
    r.plot()                       # the same picture and verdict as `umkit ecg`

How a step is timed:

* **sim**: model time.  An event is recorded at each ``rec.step()`` on the recorder's stream
  (default: the default stream); a step is the model time between two events.  Exact and
  deterministic: the same loop gives the same numbers anywhere.
* **GPUs** (cuda, hip): a device event at each step boundary, on the legacy default stream
  unless you pass ``stream=`` -- work on ordinary (blocking) streams is ordered with it, so the
  event marks the end of everything queued so far.  There is no device-wide synchronize per
  step: at step *i* the recorder waits only for step *i-1*'s end event (which the GPU has
  normally reached already), so the CPU may run at most one step ahead.  Timing work on
  non-blocking streams (e.g. a PyTorch side stream) needs ``stream=`` naming it.

Counters (faults, bytes each way, ...) are recorded per step where the backend has them: sim
always; cuda when hardware counters are on (``umkit.counters_on()``, CUPTI).  On GPUs the
recorder notes CUPTI's clock when it sees each step's end event reached and, when the block
ends, sorts the driver's records into steps by their timestamps (one flush in all: a forced
flush per step cost ~13 ms on the H200), so work of the next step that had already run by then
may be counted in the earlier step.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .. import api
from .. import validate as V
from ..errors import InvalidArgument, InvalidType
from ..validate import not_a_file
from ..results import RESULTS, files, newest  # noqa: F401 - RESULTS: where the runs are
from ..runtime import backend
from ..workloads import RunResult, StepRecord, counter_delta
from . import picture
from .model import EXAMPLE_BACKEND, table, verdict

MAX_FILE = 128 << 20      # a recorded run is a few KiB to a few MiB; refuse to read a huge file
#: the largest step number and step time (ms: about 11.6 days) a saved run may hold
MAX_STEP_NUMBER, MAX_STEP_MS = (1 << 63) - 1, 1e9


def _steps_from(raw) -> list:
    """The steps of a saved run, each checked: a step number (an int, not a bool) that grows
    from step to step, a finite time >= 0 in ms, counters a mapping of names to numbers, a text
    note.  Anything else is an InvalidArgument naming the step (not a crash in plot() later)."""

    def bad(i, why):
        return InvalidArgument(f"not a recorded run: steps[{i}] {why}", argument="d",
                               hint="pass what RecordResult.to_dict() / .save() wrote")
    if not isinstance(raw, list):
        raise InvalidArgument("not a recorded run: 'steps' is not a list", argument="d",
                              hint="pass what RecordResult.to_dict() / .save() wrote")
    out, last = [], -1
    for i, s in enumerate(raw):
        if not isinstance(s, dict):
            raise bad(i, "is not an object")
        n, ms = s.get("step"), s.get("ms")
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_STEP_NUMBER:
            raise bad(i, f"has step={V.shown(n)}: a whole number from 0 to {MAX_STEP_NUMBER}")
        if n <= last:
            raise bad(i, f"has step={n} after step {last}: steps grow")
        if isinstance(ms, bool) or not isinstance(ms, (int, float)) or not V.finite(ms) \
                or not 0 <= ms <= MAX_STEP_MS:
            raise bad(i, f"has ms={V.shown(ms)}: a finite time from 0 to {MAX_STEP_MS:g} ms")
        note = s.get("note", "")
        if not isinstance(note, str) or len(note) > V.MAX_LABEL or V.has_surrogate(note):
            raise bad(i, f"has note={V.shown(note)}: a text of at most {V.MAX_LABEL} characters")
        counters = s.get("counters") or {}
        if not isinstance(counters, dict) or not all(
                isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool)
                and V.finite(v) for k, v in counters.items()):
            raise bad(i, "has counters that are not names -> numbers (finite ones)")
        out.append(StepRecord(n, float(ms), dict(counters), note))
        last = n
    return out


def _not_run(why: str) -> InvalidArgument:
    return InvalidArgument(f"not a recorded run: {why}", argument="d",
                           hint="pass what RecordResult.to_dict() / .save() wrote")


def _label(v, what: str, empty: bool = False) -> str:
    """A text field of a saved run: printable, one line, at most ``V.MAX_LABEL`` characters."""
    if not isinstance(v, str):
        raise _not_run(f"{what}={V.shown(v)} is not a text")
    if not v.strip() and not empty:
        raise _not_run(f"{what} is empty")
    if len(v) > V.MAX_LABEL:
        raise _not_run(f"{what} is {len(v)} characters long (at most {V.MAX_LABEL})")
    if V.has_control(v) or V.has_surrogate(v):
        raise _not_run(f"{what}={V.shown(v)} holds control characters (escape codes, newlines) "
                       "or a character that is not text")
    return v


def _truth(v, what: str) -> bool:
    if not isinstance(v, bool):          # JSON's true/false only: "false" is not True
        raise _not_run(f"{what}={V.shown(v)} is not true or false")
    return v


def _count(v, what: str):
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= V.MAX_BYTES:
        raise _not_run(f"{what}={V.shown(v)} is not a whole number of bytes (0 to {V.MAX_BYTES})")
    return v


def _numbers(v, what: str, *, counts: bool = False) -> dict:
    """A mapping of names to finite numbers; ``counts``: each one >= 0 (a run's counter
    totals: bytes, faults, kernels)."""
    v = {} if v is None else v
    if not isinstance(v, dict) or not all(
            isinstance(k, str) and not V.has_control(k) and isinstance(x, (int, float))
            and not isinstance(x, bool) and V.finite(x) and (x >= 0 or not counts)
            for k, x in v.items()):
        raise _not_run(f"{what} is not a mapping of names to finite numbers"
                       + (" >= 0" if counts else ""))
    return dict(v)


def _meta(v) -> dict:
    v = {} if v is None else v
    if not isinstance(v, dict):
        raise _not_run(f"meta={V.shown(v)} is not an object")
    return dict(v)


@dataclass
class RecordResult(RunResult):
    """What :class:`Recorder` recorded: ``steps`` (one :class:`~umkit.workloads.StepRecord` per
    ``rec.step()``: ``ms``, ``counters``, ``note``), ``counters`` (totals), ``step_ms``."""
    device: str = ""
    profile: str | None = None
    model_time: bool = False
    meta: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.strategy

    def summary(self) -> dict:
        """median, p95, max/median of the steady state (step 0 left out) and the ECG's verdict
        (:func:`umkit.ecg.verdict`: the same rule as ``umkit ecg``)."""
        row = super().summary()
        row["verdict"] = verdict(self.step_ms, row) if self.steps else "empty"
        return row

    def incomplete(self) -> dict:
        """{step: why} for the steps whose hardware counters lost records (a fault burst that
        overflowed the driver's event queue to CUPTI: :func:`umkit.backends.counters.cupti.incomplete`);
        {} on sim, which loses nothing, and when every step's counts are whole."""
        from ..backends.counters import incomplete
        out = {}
        for s in self.steps:
            why = incomplete(s.counters or {})
            if why:
                out[s.step] = why
        return out

    def to_ecg(self) -> dict:
        """This run as an ECG dict (the shape :func:`umkit.ecg.record` returns), so the ECG's
        table, picture and widget draw it."""
        row = self.summary()
        unit = _unit(self)
        return dict(backend=self.backend, device=self.device, profile=self.profile,
                    pattern=self.pattern, every=None, nbytes=self.nbytes, steps=len(self.steps),
                    curves={self.name: self.step_ms}, counters={self.name: self.counters},
                    notes={self.name: {s.step: s.note for s in self.steps if s.note}},
                    summary=[row],
                    title=f"memory ECG of {self.name}: {len(self.steps)} steps, backend "
                          f"{self.backend}" + (f" [{self.profile}]" if self.profile else "")
                          + f" ({unit})")

    def table(self) -> str:
        return table(self.to_ecg())

    def plot(self, ax=None, log: bool = True):
        """The ECG picture (:func:`umkit.ecg.plot`)."""
        return picture.ecg(self.to_ecg(), ax=ax, log=log)

    def to_dict(self) -> dict:
        d = super().to_dict()
        d["name"] = self.name
        return d

    def save(self, path, *, force: bool = False) -> Path:
        """Write the run as JSON (``RecordResult.load`` reads it back: a run too large for it to
        read is refused here, before anything is written).  A file already at ``path`` is kept:
        :class:`umkit.results.files.AlreadyExists` (argument ``path``) unless ``force=True``,
        which replaces it.  The file is written beside and renamed into place
        (:func:`umkit.results.files.write`): a full disk leaves the old file and raises
        ``WriteFailed``."""
        V.flag(force, "force")
        p = V.output_path(path, "path", (".json",))
        try:
            d = self.to_dict()
        except RecursionError:                        # meta nested deeper than Python goes
            raise InvalidArgument("this run cannot be saved: its meta is nested too deep",
                                  argument="path", hint="keep meta to plain, shallow JSON values"
                                  ) from None
        # what load() refuses is never written: a text field holding control characters (a
        # device name, a counter's name) is saved with them escaped (\x1b), so the file loads
        for k in ("name", "strategy", "pattern", "backend", "device", "profile"):
            if isinstance(d.get(k), str) and V.has_control(d[k]):
                d[k] = V.clean(d[k], V.MAX_LABEL)
        if isinstance(d.get("counters"), dict):
            d["counters"] = {V.clean(k, V.MAX_LABEL) if isinstance(k, str) else k: v
                             for k, v in d["counters"].items()}
        try:
            text = json.dumps(d, separators=(",", ":")) + "\n"
        except (TypeError, ValueError, RecursionError) as e:   # meta nested too deep, a set ...
            raise InvalidArgument(f"this run cannot be saved as JSON ({type(e).__name__}: "
                                  f"{V.clean(e, 120)})", argument="path",
                                  hint="keep meta to plain, shallow JSON values") from None
        type(self).from_dict(json.loads(text))      # what load() would refuse: refused now
        if len(text) > MAX_FILE:
            raise InvalidArgument(f"this run is {len(text) >> 20} MiB as JSON; load() reads at most "
                                  f"{MAX_FILE >> 20} MiB", argument="path",
                                  hint="record fewer steps per run (e.g. one recorder per epoch)")
        return files.write(p, text, argument="path", force=force)

    @classmethod
    def from_dict(cls, d: dict) -> "RecordResult":
        """A run from :meth:`to_dict`'s dict, the whole document checked (every field, not only
        the steps): a typed error naming the field, never a crash later in table() or plot().
        Texts must be printable (no escape codes: a table printed to a terminal would act on
        them), flags real JSON true/false (``"false"`` is not True)."""
        V.mapping(d, "d", ("steps", "backend"), hint="pass what RecordResult.to_dict() returned")
        steps = _steps_from(d["steps"])
        if d.get("name") is not None and d.get("strategy") is not None:
            _label(d["strategy"], "strategy")      # an older file's name for it: checked too
        name = d.get("name") if d.get("name") is not None else d.get("strategy")
        return cls(strategy=_label(name, "name"),
                   pattern=_label(d.get("pattern", "your loop"), "pattern"),
                   nbytes=_count(d.get("nbytes"), "nbytes"),
                   backend=_label(d["backend"], "backend"), steps=steps,
                   counters=_numbers(d.get("counters"), "counters", counts=True),
                   stopped=_truth(d.get("stopped", False), "stopped"),
                   device=_label(d.get("device", ""), "device", empty=True),
                   profile=None if d.get("profile") is None else _label(d["profile"], "profile"),
                   model_time=_truth(d.get("model_time", False), "model_time"),
                   meta=_meta(d.get("meta")))

    @classmethod
    def load(cls, path) -> "RecordResult":
        p = V.path(path, "path", hint="pass the path .save() wrote")
        why = not_a_file(p)
        if why:
            raise InvalidArgument(why, argument="path", hint="pass the path .save() wrote")
        if p.stat().st_size > MAX_FILE:
            raise InvalidArgument(f"path={V.shown(str(p), 200)} is larger than {MAX_FILE >> 20} MiB: not a "
                                  "recorded run", argument="path", hint="pass the path .save() wrote")
        try:
            d = json.loads(p.read_bytes().decode("utf-8"))
        except (ValueError, RecursionError) as e:    # ValueError: also an int of > 4300 digits
            raise InvalidArgument(f"path={V.shown(str(p), 200)} is not JSON ({type(e).__name__})",
                                  argument="path", hint="pass the path .save() wrote") from None
        except OSError as e:
            raise InvalidArgument(f"path={V.shown(str(p), 200)} cannot be read ({e.strerror})",
                                  argument="path", hint="pass the path .save() wrote") from None
        try:
            return cls.from_dict(d)
        except (InvalidArgument, InvalidType) as e:    # the caller passed a path: the file is wrong
            raise InvalidArgument(e.message, argument="path", hint=e.hint) from None

    def _repr_pretty_(self, p, cycle):
        p.text(f"<recorded run {V.shown(self.name)}: {len(self.steps)} steps on {self.backend}; "
               f"see .summary(), .table(), .plot()>")


class Recorder:
    """``with umkit.ecg.recorder() as rec: ... rec.step()``: see the module docstring.

    ``name``: the curve's label.  ``stream``: a :class:`umkit.Stream` to mark the steps on
    (default: the default stream).  ``counters``: record per-step counter deltas where the
    backend has counters.  ``on_step(record)``: called with each finished step (live widgets);
    on GPUs one step late, when its end event has been reached."""

    RING = 3          # events in flight: the last resolved one, the pending one, the new one

    def __init__(self, name: str = "your loop", *, stream=None, counters: bool = True,
                 on_step=None):
        V.label(name, "name", hint="e.g. umkit.ecg.recorder('my training loop')")
        if stream is not None and not isinstance(stream, api.Stream):
            raise InvalidType(f"stream={V.shown(stream)} is not a umkit.Stream", argument="stream",
                              hint="leave it out (default stream) or pass umkit.Stream()")
        V.flag(counters, "counters")
        V.callback(on_step, "on_step")
        self.name, self.stream, self.want_counters, self.on_step = name, stream, counters, on_step
        self._result: RecordResult | None = None
        self._active = False

    # -- the with block --------------------------------------------------------------------------
    def __enter__(self) -> "Recorder":
        if self._active:
            raise InvalidArgument("this recorder is already recording",
                                  hint="use one `with umkit.ecg.recorder() as rec:` block at a time")
        b = backend()
        self._b = b
        self._h = api.stream_handle(self.stream, b)
        self._lag = 0 if b.supports("model_time") else 1
        c0 = api.counters() if self.want_counters else {}
        self._count = bool(c0)
        self._c_start = self._c_prev = c0
        # GPUs with hardware counters: per-step counts from the records' timestamps (one flush at
        # the end) instead of reading the counters -- a forced CUPTI flush -- at every step
        self._stamps = None
        if self._count and self._lag and b.supports("counters_log") and \
                b.counters_clock() is not None:
            b.counters_log(True)
            self._stamps = []
        self._free: list = []
        self._pending: list = []          # (event, note, counters-at-step or None)
        self._steps: list[StepRecord] = []
        self._prev = self._event()
        b.event_record(self._prev, self._h)
        self._active = True
        return self

    def _event(self):
        return self._free.pop() if self._free else self._b.event_create()

    def step(self, note: str = "") -> None:
        """One heartbeat: the end of a step (and the start of the next)."""
        if not self._active:
            raise InvalidArgument("rec.step() called outside its `with` block",
                                  hint="call rec.step() inside `with umkit.ecg.recorder() as rec:`")
        V.short_text(note, "note", hint="a label for this step, e.g. note='cpu stats'")
        ev = self._event()
        self._b.event_record(ev, self._h)
        # sim (lag 0): counters now are exactly this step's; GPUs: read once the event is reached
        c = api.counters() if self._count and self._lag == 0 else None
        self._pending.append((ev, note, c))
        self._resolve(self._lag)

    def _resolve(self, keep: int) -> None:
        b = self._b
        while len(self._pending) > keep:
            ev, note, c = self._pending.pop(0)
            ms = b.event_elapsed_ms(self._prev, ev)          # waits for ev (GPUs) only
            self._free.append(self._prev)
            self._prev = ev
            if self._stamps is not None:
                self._stamps.append(b.counters_clock())     # binned at the end
                delta = {}
            elif self._count:
                c = api.counters() if c is None else c
                delta, self._c_prev = counter_delta(self._c_prev, c), c
            else:
                delta = {}
            rec = StepRecord(len(self._steps), round(float(ms), 6), delta, note)
            self._steps.append(rec)
            if self.on_step is not None:
                self.on_step(rec)

    def __exit__(self, *exc) -> bool:
        if not self._active:
            return False
        try:
            if exc[0] is None:
                self._resolve(0)
        finally:
            self._active = False
            destroy = self._b.event_destroy       # GPU events hold driver objects
            for ev in self._free + [self._prev] + [p[0] for p in self._pending]:
                try:
                    destroy(ev)
                except Exception:  # noqa: BLE001 - cleanup must not hide the loop's error
                    pass
            self._free, self._pending = [], []
            b = self._b
            if self._stamps is not None:
                per = b.counters_log(False, self._stamps[:len(self._steps)])
                for st, c in zip(self._steps, per):
                    st.counters = c
            total = counter_delta(self._c_start, api.counters()) if self._count else {}
            prof = b.model_profile() if b.supports("model_time") else None
            self._result = RecordResult(
                strategy=self.name, pattern="your loop", nbytes=None, backend=b.name,
                steps=self._steps, counters=total, stopped=exc[0] is not None,
                device=_device_name(b), profile=None if prof is None else prof.name,
                model_time=bool(b.supports("model_time")))
        return False

    def result(self) -> RecordResult:
        """The recorded run (after the ``with`` block)."""
        if self._active:
            raise InvalidArgument("rec.result() inside the `with` block",
                                  hint="call it after the block ends")
        if self._result is None:
            raise InvalidArgument("nothing recorded yet",
                                  hint="use `with umkit.ecg.recorder() as rec:` and rec.step()")
        return self._result

    @property
    def steps_so_far(self) -> list[StepRecord]:
        """The steps resolved so far (for live pictures)."""
        return list(self._steps) if hasattr(self, "_steps") else []


def _device_name(b) -> str:
    try:
        return b.device_name(0)
    except Exception:  # noqa: BLE001 - a name is a nicety
        return ""


def load(path) -> RecordResult:
    """Read a run that ``RecordResult.save`` wrote."""
    return RecordResult.load(path)


def _unit(run) -> str:
    """What a run's times are, for its ECG's title: the model's clock, a card's events, or an
    example file's invented numbers (``umkit.ecg.read(..., example=...)``)."""
    if run.model_time:
        return "model time"
    return "invented example, not recorded" if run.backend == EXAMPLE_BACKEND else "device events"


def combine(runs, title: str | None = None) -> dict:
    """Several recorded runs as one ECG dict (one curve each): for :func:`umkit.ecg.plot`,
    :func:`umkit.ecg.table` and the ECG widget's summary."""
    runs = V.sequence(runs, "runs", hint="e.g. [rec.result() for rec in recorders]")
    if not runs or not all(isinstance(r, RecordResult) for r in runs):
        raise InvalidType("combine() takes a non-empty list of RecordResult", argument="runs",
                          hint="e.g. [rec.result() for rec in recorders]")
    V.optional_string(title, "title")
    first = runs[0]
    unit = _unit(first)
    return dict(backend=first.backend, device=first.device, profile=first.profile,
                pattern="your loop", every=None, nbytes=first.nbytes,
                steps=max(len(r.steps) for r in runs),
                curves={r.name: r.step_ms for r in runs},
                counters={r.name: r.counters for r in runs},
                notes={r.name: {s.step: s.note for s in r.steps if s.note} for r in runs},
                summary=[r.summary() for r in runs],
                title=title or f"memory ECG of {len(runs)} recorded runs, {first.backend}"
                               f" ({first.device}, {unit})")


def published(kind: str = "torch_training", results_dir=None) -> dict | None:
    """The newest committed GPU run of ``benchmarks/<kind>.py`` (the GPU CI writes it to
    ``<run>/<kind>/<kind>.json``; the lead commits runs under ``benchmarks/results/``), as
    ``dict(path, env, runs={variant: RecordResult}, ecg=<combined ECG dict>)`` -- or None when
    no such run has been recorded yet (then there is nothing to show, and nothing is made up)."""
    if not isinstance(kind, str) or not kind.replace("_", "").isalnum() or len(kind) > 100 \
            or not kind.isascii():
        raise (InvalidArgument if isinstance(kind, str) else InvalidType)(
            f"kind={V.shown(kind)} is not a benchmark name", argument="kind",
            hint="e.g. 'torch_training'")
    if results_dir is not None:
        results_dir = V.path(results_dir, "results_dir",
                             hint="the folder the GPU runs are committed in, or leave it out")

    def pick(doc):
        env = doc.get("env") if isinstance(doc, dict) else None
        return (env.get("date", "") if isinstance(env, dict) else ""), doc
    hit = newest(f"*/{kind}/{kind}.json", pick, results_dir, kind,
                 "it is written by benchmarks/torch_training.py")
    if hit is None:
        return None
    shown, _, doc, path = hit
    try:
        runs = {v: RecordResult.from_dict(x["run"]) for v, x in doc["results"].items()
                if isinstance(x, dict) and "run" in x}
    except (KeyError, TypeError, AttributeError) as e:
        raise InvalidArgument(f"{V.clean(path)} is not a {kind} result ({type(e).__name__}: "
                              f"{V.clean(e)})", argument="results_dir",
                              hint="it is written by benchmarks/torch_training.py") from None
    if not runs:
        return None
    env = doc.get("env", {})
    if not isinstance(env, dict):
        raise InvalidArgument(f"{V.clean(path)} is not a {kind} result (env={V.shown(env)} is "
                              "not an object)", argument="results_dir",
                              hint="it is written by benchmarks/torch_training.py")

    def field(key):            # a text of the file, shown: never an escape code, never a page
        v = env.get(key, "?")
        return V.clean(v if isinstance(v, str) else V.shown(v), 80)
    title = (f"memory ECG of a PyTorch training loop on {field('device')} "
             f"({field('date')}, torch {field('torch')})")
    return dict(path=shown, env=env, runs=runs, ecg=combine(list(runs.values()), title))
