"""Chrome / Perfetto trace-event JSON out: open the model's story beside the profiler's in
ui.perfetto.dev (or chrome://tracing).

The format (Google, "Trace Event Format", the JSON Perfetto's legacy importer reads): a document
``{"traceEvents": [...], "displayTimeUnit": "ms"}``; every event has ``name``, ``ph`` (phase),
``pid``, ``tid`` and ``ts`` in **microseconds**; ``X`` (complete) events carry ``dur`` (µs);
``i`` (instant) events a scope ``s`` (``t`` thread); ``C`` (counter) events ``args`` of numbers,
one counter track per name; ``M`` (metadata) events name processes and threads
(``process_name``, ``thread_name``, ``args: {"name": ...}``) and order them
(``process_sort_index``, ``thread_sort_index``).

What becomes what:

* a profiler file (:class:`~umkit.ecg.traces.model.ProfilerTrace`): process ``measured
  (SOURCE: DEVICE)``; a track of steps; a track per kind of record (migrations to GPU / to
  CPU, GPU / CPU page faults); counter tracks ``faults`` and ``MiB moved`` per step (a
  rocprof-sys summary, which has no timeline: its totals at time 0);
* a recorded ECG (``RecordResult``) or an ECG dict (``umkit.ecg.record``): one process a
  curve, steps back to back on a ``steps`` track, counters per step;
* a sim run (the list ``umkit.trace()`` returns): one track per stream and one per driver
  layer (``umd`` user-mode, ``kmd`` kernel-mode) with an instant per operation, and cumulative
  counter tracks of faults and bytes moved;
* a plan (``umkit.plan.PlanResult``): its steps (the recorded step times) and, inside each, one
  instant per operation on the processor's track (``gpu``, ``cpu``, ``copy``, ``sync``) in the
  recorded order (the plan keeps the order, not the times: the instants are spaced evenly).

Model output is labelled ``model (PROFILE)`` in the process name and in ``otherData``;
measurements ``measured (...)``; a file that says it was not recorded (read with
``example=``, backend :data:`~umkit.ecg.traces.model.EXAMPLE_BACKEND`) ``example, not
recorded (...)``: invented numbers are never called measured.
"""
from __future__ import annotations

import json
import math
import re

from ... import validate as V
from ...errors import InvalidArgument, InvalidType
from ...results import files

COUNTER_KEYS = (("faults", ("gpu_faults", "cpu_faults")),
                ("MiB moved", ("bytes_h2d", "bytes_d2h")))


class Doc:
    def __init__(self, label: str):
        self.events, self.label, self.pids, self.tids = [], label, {}, {}

    def pid(self, name: str) -> int:
        if name not in self.pids:
            self.pids[name] = len(self.pids) + 1
            self.events.append(dict(name="process_name", ph="M", pid=self.pids[name], tid=0,
                                    args={"name": name}))
            self.events.append(dict(name="process_sort_index", ph="M", pid=self.pids[name], tid=0,
                                    args={"sort_index": self.pids[name]}))
        return self.pids[name]

    def tid(self, pid: int, name: str) -> int:
        key = (pid, name)
        if key not in self.tids:
            self.tids[key] = sum(1 for p, _ in self.tids if p == pid) + 1
            self.events.append(dict(name="thread_name", ph="M", pid=pid, tid=self.tids[key],
                                    args={"name": name}))
            self.events.append(dict(name="thread_sort_index", ph="M", pid=pid,
                                    tid=self.tids[key], args={"sort_index": self.tids[key]}))
        return self.tids[key]

    def slice(self, pid, track, name, ts_us, dur_us, args=None):
        self.events.append(dict(name=name, cat="umkit", ph="X", pid=pid, tid=self.tid(pid, track),
                                ts=round(ts_us, 3), dur=round(max(0.0, dur_us), 3),
                                args=args or {}))

    def instant(self, pid, track, name, ts_us, args=None):
        self.events.append(dict(name=name, cat="umkit", ph="i", s="t", pid=pid,
                                tid=self.tid(pid, track), ts=round(ts_us, 3), args=args or {}))

    def counter(self, pid, name, ts_us, values: dict):
        self.events.append(dict(name=name, cat="umkit", ph="C", pid=pid, tid=0,
                                ts=round(ts_us, 3),
                                args={k: float(v) for k, v in values.items()}))

    def document(self, **other) -> dict:
        return {"traceEvents": self.events, "displayTimeUnit": "ms",
                "otherData": {"producer": "umkit", "label": self.label, **other}}


def step_counters(doc, pid, t0_us, dur_us, counters: dict):
    for title, keys in COUNTER_KEYS:
        scale = 1 / 2**20 if title == "MiB moved" else 1
        doc.counter(pid, title, t0_us, {k: counters.get(k, 0) * scale for k in keys})
    end = t0_us + dur_us
    return end


def steps_track(doc, pid, steps, label_note=""):
    """steps: [(ms, counters, note)] laid back to back from 0."""
    t = 0.0
    for i, (ms, counters, note) in enumerate(steps):
        dur = ms * 1000.0
        doc.slice(pid, "steps", f"step {i}" + (f" ({note})" if note else ""), t, dur,
                  dict(ms=ms, **{k: v for k, v in (counters or {}).items()
                                 if isinstance(v, (int, float))}))
        step_counters(doc, pid, t, dur, counters or {})
        t += dur
    for title, keys in COUNTER_KEYS:
        doc.counter(pid, title, t, {k: 0.0 for k in keys})


def label_of(model: bool, profile, device, backend=None) -> str:
    from .model import EXAMPLE_BACKEND
    if backend == EXAMPLE_BACKEND:
        return f"example, not recorded ({device or 'no device'})"
    return f"model ({profile})" if model else f"measured ({device or 'device'})"


def from_trace(tr) -> dict:
    label = (f"example, not recorded ({tr.source}: {tr.device or 'no device'})" if tr.example
             else f"measured ({tr.source}: {tr.device or tr.backend})")
    doc = Doc(label)
    pid = doc.pid(label)
    if not tr.steps:                          # a summary: its totals, at time 0
        step_counters(doc, pid, 0.0, 0.0, tr.counters)
        return doc.document(source=tr.source, steps_from=tr.step_kind, events_left_out=0)
    t0 = min([tr.steps[0][0]] + [sl[2] for sl in tr.slices])     # records before the first step too
    for i, ((s, e, lab), c) in enumerate(zip(tr.steps, tr.per_step)):
        doc.slice(pid, "steps", f"step {i}" + (f" ({lab})" if lab != "step" else ""),
                  (s - t0) / 1e3, (e - s) / 1e3, dict(c))
        step_counters(doc, pid, (s - t0) / 1e3, (e - s) / 1e3, c)
    for track, name, ts, dur, args in tr.slices:
        if dur > 0:
            doc.slice(pid, track, name, (ts - t0) / 1e3, dur / 1e3, args)
        else:
            doc.instant(pid, track, name, (ts - t0) / 1e3, args)
    return doc.document(source=tr.source, steps_from=tr.step_kind,
                        events_left_out=tr.slices_dropped)


def from_record(r) -> dict:
    label = label_of(r.model_time, r.profile, r.device, r.backend)
    doc = Doc(label)
    pid = doc.pid(f"{label}: {r.name}")
    steps_track(doc, pid, [(s.ms, s.counters, s.note) for s in r.steps])
    return doc.document(backend=r.backend)


def from_ecg(ecg: dict) -> dict:
    from ..model import check
    ecg = check(ecg)
    model = ecg.get("backend") == "sim"
    label = label_of(model, ecg.get("profile"), ecg.get("device"), ecg.get("backend"))
    doc = Doc(label)
    for name, curve in ecg["curves"].items():
        pid = doc.pid(f"{label}: {name}")
        per = ecg.get("counters", {}).get(name)
        per = per if isinstance(per, list) else []
        notes = ecg.get("notes", {}).get(name, {})
        steps_track(doc, pid, [(float(ms), per[i] if i < len(per) and isinstance(per[i], dict)
                                else {}, notes.get(i, notes.get(str(i), "")))
                               for i, ms in enumerate(curve)])
    return doc.document(backend=ecg.get("backend"))


STREAM = re.compile(r"stream (\d+)")


#: the most entries a trace list may hold (umkit.trace() keeps 2,000 by default)
MAX_TRACE_ENTRIES = 1_000_000
#: the largest count a trace entry's ``faults`` or ``bytes`` may hold
MAX_COUNT = 1 << 62


def trace_entry(e, i: int) -> dict:
    """Entry ``i`` of a sim run's ``umkit.trace()`` list, checked field by field (a typed error
    naming the field): ``t`` finite model seconds >= 0, ``op`` and ``layer`` text, ``detail``
    text, ``faults`` and ``bytes`` counts >= 0, any other field a plain JSON value."""
    hint = "pass what umkit.trace() returns (a list of its dicts)"
    V.mapping(e, f"obj[{i}]", ("t", "op", "layer"), hint=hint)
    V.real(e["t"], f"obj[{i}]['t']", lo=0.0, hi=1e9, hint=hint)   # model seconds
    for k in ("op", "layer"):
        V.string(e[k], f"obj[{i}][{k!r}]", hint=hint)
    for k, v in e.items():
        where = f"obj[{i}][{V.short(k)}]"
        if not isinstance(k, str):
            raise InvalidType(f"obj[{i}] has a key {V.short(k)}: a trace field's name is text",
                              argument="obj", hint=hint)
        if k == "detail":
            V.string(v, where, hint=hint)
        elif k in ("faults", "bytes"):
            V.integer(v, where, lo=0, hi=MAX_COUNT, hint=hint)
        elif k != "t" and not (v is None or isinstance(v, (str, bool))
                               or (isinstance(v, int) and abs(v) <= MAX_COUNT)
                               or (isinstance(v, float) and math.isfinite(v))):
            raise InvalidType(f"{where}={V.short(v)} is not a plain value (text, a number, "
                              "true/false or null)", argument="obj", hint=hint)
    return e


def from_sim_trace(entries, profile) -> dict:
    label = f"model ({profile})"
    if len(entries) > MAX_TRACE_ENTRIES:
        raise InvalidArgument(f"obj holds {len(entries):,} trace entries; at most "
                              f"{MAX_TRACE_ENTRIES:,}", argument="obj",
                              hint="pass umkit.trace() of one run, or a slice of it")
    entries = [trace_entry(e, i) for i, e in enumerate(entries)]   # all, before any output
    doc = Doc(label)
    pid = doc.pid(f"{label}: driver operations")
    faults = moved = 0
    for i, e in enumerate(entries):
        ts = float(e["t"]) * 1e6                      # model seconds -> µs
        detail = str(e.get("detail", ""))
        m = STREAM.search(detail)
        args = {k: v for k, v in e.items() if k not in ("t", "op", "layer")}
        doc.instant(pid, f"driver ({e['layer']})", str(e["op"]), ts, args)
        if m:
            doc.instant(pid, f"stream {m.group(1)}", str(e["op"]), ts, args)
        if "faults" in e or "bytes" in e:
            faults += int(e.get("faults", 0))
            moved += int(e.get("bytes", 0))
            doc.counter(pid, "faults", ts, {"faults": faults})
            doc.counter(pid, "MiB moved", ts, {"MiB": moved / 2**20})
    return doc.document(profile=profile)


def from_plan(plan) -> dict:
    model = plan.backend == "sim"
    label = label_of(model, plan.profile, plan.device, plan.backend)
    doc = Doc(label)
    pid = doc.pid(f"{label}: plan of {plan.meta.get('name', 'your loop')}")
    names = {b.id: b.name for b in plan.buffers}
    t = 0.0
    for i, ms in enumerate(plan.step_ms):
        dur = ms * 1000.0
        doc.slice(pid, "steps", f"step {i}", t, dur, {"ms": ms})
        k = plan.step_pattern[i] if i < len(plan.step_pattern) else -1
        ops = plan.patterns[k] if k >= 0 else []
        for j, op in enumerate(ops):
            doc.instant(pid, op[0], op[0] + " " + (op[2] or "op"), t + dur * (j + 0.5) / len(ops),
                        {"buffers": ", ".join(names.get(a[0], str(a[0])) for a in op[3]),
                         "bytes": sum(a[4] for a in op[3]), "order only": "not timed"})
        t += dur
    for b in plan.buffers:
        doc.counter(pid, "MiB moved per buffer", 0.0,
                    {b.name[:60]: (b.moved.get("bytes_h2d", 0) + b.moved.get("bytes_d2h", 0))
                     / 2**20})
    return doc.document(backend=plan.backend)


def perfetto(obj, path=None, *, profile: str | None = None, force: bool = False) -> dict:
    """``obj`` as a trace-event document (and written to ``path``, a ``.json``, when given).
    ``obj``: a :class:`ProfilerTrace` (``umkit.ecg.read``), a ``RecordResult``, an ECG dict,
    a ``umkit.plan.PlanResult``, or a sim run's ``umkit.trace()`` list (``profile``: the sim
    profile it ran on; default the active one)."""
    from ..recording import RecordResult
    from .model import ProfilerTrace
    V.flag(force, "force")                # checked whatever obj is (they were taken unread)
    if profile is not None:
        V.string(profile, "profile")
    if isinstance(obj, ProfilerTrace):
        doc = from_trace(obj)
    elif isinstance(obj, RecordResult):
        doc = from_record(obj)
    elif isinstance(obj, dict) and "curves" in obj:
        doc = from_ecg(obj)
    elif isinstance(obj, list):
        if profile is None:
            from ... import api
            prof = api.sim_profile()
            profile = prof.name if prof is not None else None
        if profile is None:
            raise InvalidType("a trace list needs profile= (no sim backend is active)",
                              argument="profile", hint="e.g. profile='h200-pcie5'")
        doc = from_sim_trace(obj, V.string(profile, "profile"))
    elif all(hasattr(obj, a) for a in ("buffers", "patterns", "step_pattern", "step_ms")):
        doc = from_plan(obj)
    else:
        raise InvalidType(f"obj={V.short(obj)} is not something umkit writes as a trace",
                          argument="obj", hint="a umkit.ecg.read(...) result, rec.result(), an "
                          "ECG dict, a umkit.plan recording, or umkit.trace()")
    if path is not None:
        p = V.output_path(path, "path", (".json",))
        files.write(p, json.dumps(doc, separators=(",", ":")) + "\n", argument="path",
                    force=force)
    return doc
