"""A recorded loop (:class:`PlanResult`): the article's table, the recommendation and the
prediction (:mod:`.advice`), the picture (:mod:`.picture`), and the file format (bounded in
size, every field checked on reading)."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .. import validate as V
from ..ecg.model import display_width
from ..errors import InvalidArgument, InvalidType
from ..results import files
from ..runtime.lang import tr
from . import advice, picture
from .model import (MAX_BUFFERS, MAX_OPS, MAX_PATTERNS, MAX_STEPS, MOVED, OPS, KINDS,
                    ROLES, Buffer, cadence, mib, recorded_choice)

MAX_FILE = 64 << 20     # a recorded plan is KiB to a few MiB as JSON
FILE_HINT = "pass what PlanResult.save() / .to_dict() wrote"


@dataclass
class PlanResult:
    """What :func:`umkit.plan.recorder` recorded: see the module docstring.  ``step_ms``: the
    measured step times (model time on sim, device events on GPUs)."""
    backend: str
    device: str
    profile: str | None
    steps: int
    step_ms: list
    buffers: list
    patterns: list
    step_pattern: list
    notes: list = field(default_factory=list)
    meta: dict = field(default_factory=dict)

    # -- who touched what, and when --------------------------------------------------------------
    def buffer(self, key) -> Buffer:
        """A buffer by id or by name."""
        return _find(self, key, "key")

    def touch_steps(self) -> dict:
        """{buffer id: (steps the GPU touched it in, steps the CPU touched it in)}."""
        per_pattern = []
        for ops in self.patterns:
            g, c = set(), set()
            for op in ops:
                if op[0] in ("gpu", "copy"):
                    g.update(a[0] for a in op[3])
                elif op[0] == "cpu":
                    c.update(a[0] for a in op[3])
            per_pattern.append((g, c))
        out = {b.id: ([], []) for b in self.buffers}
        for i, k in enumerate(self.step_pattern):
            if k < 0:
                continue
            g, c = per_pattern[k]
            for bid in g:
                if bid in out:
                    out[bid][0].append(i)
            for bid in c:
                if bid in out:
                    out[bid][1].append(i)
        return out

    def owner(self, b: Buffer, touched=None) -> str:
        """The access owner (访问主人) of ``b`` (a Buffer, or a buffer's name or id): who
        touches it and how often.  ``touched``: :meth:`touch_steps`, when already made."""
        b = _find(self, b, "b")
        if touched is None:
            touched = self.touch_steps()
        elif not isinstance(touched, dict) or b.id not in touched \
                or not _pair_of_lists(touched[b.id]):
            raise InvalidType(f"touched={V.short(touched)} is not this recording's "
                              "touch_steps()", argument="touched",
                              hint="leave it out, or pass r.touch_steps()")
        g, c = touched[b.id]
        n = max(1, len(self.step_pattern))
        parts = []
        if g:
            parts.append("GPU every step" if len(g) == n else f"GPU in {len(g)}/{n} steps")
        if c:
            parts.append("CPU " + cadence(c, n))
        if not parts:
            return "nobody (in the recorded steps)"
        return "; ".join(parts)

    def lifetime(self, b: Buffer) -> str:
        """How long ``b`` (a Buffer, or a buffer's name or id) lives, in recorded steps."""
        b = _find(self, b, "b")
        if b.instances > 1 and b.born is not None:
            return f"one step, made {b.instances}x"
        start = "before" if b.born is None else f"step {b.born}"
        end = "the end" if b.died is None else f"step {b.died}"
        if b.born is None and b.died is None:
            return f"whole loop ({self.steps} steps)"
        return f"{start} -> {end}"

    def rows(self) -> list[dict]:
        """The table's rows (one dict a buffer)."""
        touched = self.touch_steps()
        return [dict(id=b.id, name=b.name, role=b.role, kind=b.kind, nbytes=b.nbytes,
                     lifetime=self.lifetime(b), owner=self.owner(b, touched),
                     gpu_ops=b.gpu_ops, cpu_ops=b.cpu_ops, recorded=recorded_choice(b),
                     **{k: int(b.moved.get(k, 0)) for k in MOVED})
                for b in self.buffers]

    def table(self) -> str:
        """The article's table (§5.3, §7): memory budget, lifetime and access owner (访问主人)
        of every buffer, and what moved."""
        rows = self.rows()
        total = sum(r["nbytes"] for r in rows)
        head = tr(f"access-owner table of {self.meta.get('name', 'your loop')}: {len(rows)} "
                  f"buffers, {mib(total)} MiB, {self.steps} steps, backend {self.backend}"
                  + (f" [{self.profile}]" if self.profile else ""))
        w = max([display_width(tr("buffer"))] + [display_width(r["name"]) for r in rows])
        # in the learner's language (lang.tr), padded by display width (a CJK character takes
        # two columns); the buffers' names and kinds (the allocators' names) are values and stay
        # as they are, a role is a description and is translated
        lines = [head,
                 pad(tr("buffer"), w) + "  " + pad(tr("role"), 15) + " " + pad("MiB", 7, True)
                 + "  " + pad(tr("kind"), 8) + " " + pad(tr("lifetime"), 22) + " "
                 + pad(tr("access owner (访问主人)"), 34) + " " + pad(tr("to GPU MiB"), 10, True)
                 + " " + pad(tr("to CPU MiB"), 10, True) + " " + pad(tr("GPU faults"), 10, True)
                 + " " + pad(tr("CPU faults"), 10, True)]
        for r in rows:
            lines.append(pad(r["name"], w) + "  " + pad(tr(r["role"]), 15)
                         + f" {mib(r['nbytes']):>7}  "
                         f"{r['kind']:<8} " + pad(tr(r["lifetime"]), 22) + " "
                         + pad(tr(r["owner"]), 34)
                         + f" {mib(r['bytes_h2d']):>10} {mib(r['bytes_d2h']):>10} "
                         f"{r['gpu_faults']:>10} {r['cpu_faults']:>10}")
        for n in self.notes:
            lines.append(tr("note: {note}").format(note=tr(n)))
        return "\n".join(lines)

    def _repr_pretty_(self, p, cycle):
        p.text(f"<recorded plan: {len(self.buffers)} buffers, {self.steps} steps on "
               f"{self.backend}; see .table(), .recommend(), .plot()>")

    # -- what each choice would cost -------------------------------------------------------------
    def recommend(self, profiles=None, *, choices=None, plans=None, steps=None, workers=1):
        """Per buffer: device / managed + prefetch / managed + advice / pinned ..., and the
        predicted step time of the whole loop under each plan on each profile in ``profiles``
        (default: the recording's own, or ``h200-pcie5``), by replaying the recorded access
        pattern on sim (:mod:`umkit.plan.advice`).  ``choices``: the choices allowed;
        ``plans``: more plans to predict, ``{name: {buffer name or role: choice}}``;
        ``steps``: how many recorded steps to replay (default up to 30); ``workers``: how
        many replays to run side by side, each in a process of its own (1: one by one; a script
        without an ``if __name__ == "__main__":`` guard gets one, with a warning, because each
        worker process would run the whole script again)."""
        return advice.recommend(self, profiles, choices=choices, plans=plans, steps=steps,
                                workers=workers)

    def predict(self, plan, profile: str | None = None, *, steps=None) -> dict:
        """The predicted step times of the loop under ``plan`` ({buffer name, id or role:
        choice}; buffers not named keep their recorded choice) on ``profile``."""
        return advice.predict(self, plan, profile, steps=steps)

    def plot(self, ax=None):
        """Who touched each buffer in each step, and what moved (:mod:`umkit.plan.picture`)."""
        return picture.pattern(self, ax=ax)

    # -- the file ---------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        d = asdict(self)
        d["format"] = "umkit.plan/1"
        return d

    def save(self, path, *, force: bool = False) -> Path:
        """Write the recording as JSON (:func:`umkit.plan.load` reads it back; a recording too
        large for it to read is refused here, before anything is written).  A file already at
        ``path`` is kept: :class:`umkit.results.files.AlreadyExists` (argument ``path``) unless
        ``force=True``, which replaces it.  Written beside and renamed into place
        (:func:`umkit.results.files.write`): a full disk leaves the old file and raises
        ``WriteFailed``.  A name, tag or note holding control characters is saved with them
        escaped (``\\x1b``), so the file loads back; what load() would refuse is refused here."""
        V.flag(force, "force")
        p = V.output_path(path, "path", (".json",))
        try:
            d = self.to_dict()
            _printable_labels(d)
            text = json.dumps(d, separators=(",", ":")) + "\n"
        except (TypeError, ValueError, RecursionError) as e:   # meta nested too deep, a set ...
            raise InvalidArgument(f"this recording cannot be saved as JSON ({type(e).__name__}: "
                                  f"{V.clean(e, 120)})", argument="path",
                                  hint="keep meta to plain, shallow JSON values") from None
        if len(text) > MAX_FILE:
            raise InvalidArgument(f"this recording is {len(text) >> 20} MiB as JSON; load() "
                                  f"reads at most {MAX_FILE >> 20} MiB", argument="path",
                                  hint="record fewer steps (e.g. one recorder per epoch)")
        from_dict(json.loads(text))             # what load() would refuse: refused now
        return files.write(p, text, argument="path", force=force)

    @classmethod
    def from_dict(cls, d) -> "PlanResult":
        """A recording from :meth:`to_dict`'s dict, every field checked (a typed error naming
        what is wrong, never a crash later in table() or the replay)."""
        return from_dict(d)

    @classmethod
    def load(cls, path) -> "PlanResult":
        return load(path)


def _printable_labels(d: dict) -> None:
    """The texts of :meth:`PlanResult.to_dict`'s dict that :func:`from_dict` checks (names,
    tags, notes, the device) with control characters escaped (``\\x1b``), in place: a file
    holding them raw would not load (a table printed to a terminal would act on them)."""
    def fix(x):
        return V.clean(x, V.MAX_LABEL) if isinstance(x, str) and V.has_control(x) else x

    for k in ("backend", "device", "profile"):
        d[k] = fix(d.get(k))
    d["notes"] = [fix(n) for n in d.get("notes") or []]
    meta = d.get("meta")
    if isinstance(meta, dict):
        for k in ("name", "instrumentation", "recorded_on"):
            if k in meta:
                meta[k] = fix(meta[k])
    for b in d.get("buffers") or []:
        for k in ("name", "inferred"):
            b[k] = fix(b.get(k))
        hints = b.get("hints")
        if isinstance(hints, dict) and isinstance(hints.get("advice"), list):
            hints["advice"] = [fix(a) for a in hints["advice"]]
    for ops in d.get("patterns") or []:
        for op in ops:
            if isinstance(op, list) and len(op) > 2:
                op[2] = fix(op[2])


# -- reading a file back -----------------------------------------------------------------------------
def bad(why: str) -> InvalidArgument:
    return InvalidArgument(f"not a recorded plan: {why}", argument="d", hint=FILE_HINT)


#: the largest whole number a recording holds (a count, a byte total, a step)
MAX_WHOLE = (1 << 63) - 1


def whole(v, what: str, lo: int = 0, hi: int | None = None, none: bool = False):
    if v is None and none:
        return None
    hi = MAX_WHOLE if hi is None else hi
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or v > hi:
        raise bad(f"{what}={V.short(v)} is not a whole number in [{lo}, {hi}]")
    return v


#: the largest flops of one operation, ms of one step a recording may hold (beyond: not a
#: recording, and tables of 300-digit times)
MAX_FLOPS, MAX_MS = 1e21, 1e9


def number(v, what: str, hi: float = float("inf")) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not V.finite(v) or v < 0 \
            or v > hi:
        raise bad(f"{what}={V.short(v)} is not a finite number in [0, {hi:g}]")
    return float(v)


def words(v, what: str, options=None) -> str:
    if not isinstance(v, str) or (options is not None and v not in options):
        raise bad(f"{what}={V.short(v)} is not " + (f"one of {options}" if options else "a text"))
    if len(v) > V.MAX_LABEL:
        raise bad(f"{what} is longer than {V.MAX_LABEL} characters")
    if V.has_control(v) or V.has_surrogate(v):
        # a table printed to a terminal would act on them (escape sequences, carriage returns);
        # a lone surrogate cannot be drawn or saved as UTF-8
        raise bad(f"{what}={V.short(v)} holds control characters or a character that is not "
                  "text")
    return v


def profile_name(v, what: str) -> str:
    """A sim profile's name as a recording keeps it: a name, never a path (a shared file must
    not steer which file a replay reads)."""
    v = words(v, what)
    if "/" in v or "\\" in v or v.endswith(".json"):
        raise bad(f"{what}={V.short(v)} is a path, not a profile name")
    return v


def _find(result, key, name: str) -> Buffer:
    """The buffer ``key`` names (an id, a name, or a Buffer of this recording); typed errors
    naming ``name`` otherwise."""
    if isinstance(key, Buffer):
        for b in result.buffers:
            if b.id == key.id:
                return b
        raise InvalidArgument(f"{name}: buffer {V.shown(key.name)} (id {key.id}) is not in this "
                              "recording", argument=name,
                              hint=f"one of {[b.name for b in result.buffers][:8]}")
    if isinstance(key, bool) or not isinstance(key, (int, str)):
        raise InvalidType(f"{name}={V.short(key)} is not a buffer's name or id", argument=name,
                          hint=f"a name, one of {[b.name for b in result.buffers][:8]}, "
                               "or an id (an int)")
    for b in result.buffers:
        if b.id == key or b.name == key:
            return b
    raise InvalidArgument(f"no buffer {V.shown(key)} in this recording", argument=name,
                          hint=f"one of {[b.name for b in result.buffers][:8]}")


def _pair_of_lists(x) -> bool:
    return isinstance(x, (tuple, list)) and len(x) == 2 \
        and all(isinstance(y, (list, tuple, set)) for y in x)


def buffer_from(x, i: int) -> Buffer:
    if not isinstance(x, dict):
        raise bad(f"buffers[{i}] is not an object")
    moved = x.get("moved") or {}
    if not isinstance(moved, dict):
        raise bad(f"buffers[{i}].moved is not an object")
    hints = x.get("hints") or {}
    if not isinstance(hints, dict):
        raise bad(f"buffers[{i}].hints is not an object")
    adv = hints.get("advice", [])
    if not isinstance(adv, list) or len(adv) > 16:
        raise bad(f"buffers[{i}].hints.advice is not a list of at most 16 texts")
    for j, a in enumerate(adv):
        words(a, f"buffers[{i}].hints.advice[{j}]")
    for k in ("prefetch_gpu", "prefetch_cpu"):
        whole(hints.get(k, 0), f"buffers[{i}].hints.{k}")
    return Buffer(
        id=whole(x.get("id"), f"buffers[{i}].id", 0, MAX_BUFFERS),
        name=words(x.get("name"), f"buffers[{i}].name"),
        role=words(x.get("role"), f"buffers[{i}].role", ROLES),
        kind=words(x.get("kind"), f"buffers[{i}].kind", KINDS),
        nbytes=whole(x.get("nbytes"), f"buffers[{i}].nbytes", 1, V.MAX_BYTES),
        born=whole(x.get("born"), f"buffers[{i}].born", none=True),
        died=whole(x.get("died"), f"buffers[{i}].died", none=True),
        instances=whole(x.get("instances", 1), f"buffers[{i}].instances", 1),
        gpu_ops=whole(x.get("gpu_ops", 0), f"buffers[{i}].gpu_ops"),
        cpu_ops=whole(x.get("cpu_ops", 0), f"buffers[{i}].cpu_ops"),
        moved={k: whole(moved.get(k, 0), f"buffers[{i}].moved.{k}") for k in MOVED},
        hints=dict(hints), inferred=words(x.get("inferred", ""), f"buffers[{i}].inferred"))


def op_from(op, where: str, ids: set) -> list:
    if not isinstance(op, list) or len(op) != 4:
        raise bad(f"{where} is not [kind, flops, tag, accesses]")
    kind = words(op[0], f"{where} kind", OPS)
    flops = number(op[1], f"{where} flops", MAX_FLOPS)
    tag = words(op[2], f"{where} tag")
    if not isinstance(op[3], list) or len(op[3]) > MAX_BUFFERS * 4:
        raise bad(f"{where} accesses is not a list")
    accs = []
    for j, a in enumerate(op[3]):
        w = f"{where} access {j}"
        if not isinstance(a, list) or len(a) != 6:
            raise bad(f"{w} is not [buffer, pages, first, last, nbytes, write]")
        bid = whole(a[0], f"{w} buffer")
        if bid not in ids:
            raise bad(f"{w} names buffer {bid}, which is not in buffers")
        pages, first, last = (whole(a[k], f"{w} {n}") for k, n in ((1, "pages"), (2, "first"),
                                                                      (3, "last")))
        if not isinstance(a[5], bool):
            raise bad(f"{w} write={V.short(a[5])} is not true/false")
        if last < first or (pages and pages > last - first + 1):
            raise bad(f"{w} has pages={pages} between {first} and {last}")
        accs.append([bid, pages, first, last, whole(a[4], f"{w} nbytes", 0, V.MAX_BYTES), a[5]])
    return [kind, flops, tag, accs]


def from_dict(d) -> PlanResult:
    if not isinstance(d, dict):
        raise InvalidType(f"d: {type(d).__name__} is not a recorded plan", argument="d",
                          hint=FILE_HINT)
    if d.get("format") != "umkit.plan/1":
        raise bad(f"format={V.short(d.get('format'))} (expected 'umkit.plan/1')")
    raw = d.get("buffers")
    if not isinstance(raw, list) or len(raw) > MAX_BUFFERS + 1:
        raise bad(f"buffers is not a list of at most {MAX_BUFFERS + 1}")
    buffers = [buffer_from(x, i) for i, x in enumerate(raw)]
    ids = {b.id for b in buffers}
    if len(ids) != len(buffers):
        raise bad("two buffers share an id")
    pats = d.get("patterns")
    if not isinstance(pats, list) or len(pats) > MAX_PATTERNS:
        raise bad(f"patterns is not a list of at most {MAX_PATTERNS}")
    patterns, by_id = [], {b.id: b for b in buffers}
    for k, ops in enumerate(pats):
        if not isinstance(ops, list) or len(ops) > MAX_OPS:
            raise bad(f"patterns[{k}] is not a list of at most {MAX_OPS} operations")
        patterns.append([op_from(op, f"patterns[{k}][{j}]", ids) for j, op in enumerate(ops)])
        for op in patterns[-1]:
            for a in op[3]:
                nb = by_id[a[0]]
                if a[3] >= nb.pages:
                    raise bad(f"patterns[{k}] touches page {a[3]} of buffer {a[0]}, which has "
                              f"{nb.pages}")
    sp = d.get("step_pattern")
    if not isinstance(sp, list) or len(sp) > MAX_STEPS:
        raise bad(f"step_pattern is not a list of at most {MAX_STEPS}")
    sp = [whole(k, f"step_pattern[{i}]", -1, len(patterns) - 1) for i, k in enumerate(sp)]
    ms = d.get("step_ms")
    if not isinstance(ms, list) or len(ms) > MAX_STEPS:
        raise bad(f"step_ms is not a list of at most {MAX_STEPS}")
    ms = [number(v, f"step_ms[{i}]", MAX_MS) for i, v in enumerate(ms)]
    steps = whole(d.get("steps"), "steps", 0, MAX_STEPS)
    if len(sp) != steps or len(ms) != steps:
        raise bad(f"steps={steps} but {len(sp)} step patterns and {len(ms)} step times")
    notes = d.get("notes") or []
    if not isinstance(notes, list) or len(notes) > MAX_PATTERNS:
        raise bad(f"notes is not a list of at most {MAX_PATTERNS} texts")
    notes = [words(n, f"notes[{i}]") for i, n in enumerate(notes)]
    meta = d.get("meta") or {}
    if not isinstance(meta, dict):
        raise bad("meta is not an object")
    if "name" in meta:
        words(meta["name"], "meta.name")
    if meta.get("recorded_on") is not None:
        profile_name(meta["recorded_on"], "meta.recorded_on")
    if meta.get("instrumented") is not None:     # per step: were the counters on (1) or off (0)
        flags = meta["instrumented"]
        if not isinstance(flags, list) or len(flags) != steps:
            raise bad(f"meta.instrumented is not a list of {steps} flags (one a step)")
        meta["instrumented"] = [whole(f, f"meta.instrumented[{i}]", 0, 1)
                                for i, f in enumerate(flags)]
    if meta.get("instrument_warmup") is not None:
        whole(meta["instrument_warmup"], "meta.instrument_warmup", 0, MAX_STEPS)
    if meta.get("instrumentation") is not None:
        words(meta["instrumentation"], "meta.instrumentation")
    return PlanResult(backend=words(d.get("backend"), "backend"),
                      device=words(d.get("device", ""), "device"),
                      profile=None if d.get("profile") is None else profile_name(d["profile"], "profile"),
                      steps=steps, step_ms=ms, buffers=buffers, patterns=patterns,
                      step_pattern=sp, notes=list(notes), meta=dict(meta))


def load(path) -> PlanResult:
    """Read a recording that :meth:`PlanResult.save` wrote."""
    from ..validate import not_a_file
    p = V.path(path, "path", hint="pass the path PlanResult.save() wrote")
    what = not_a_file(p, "path")          # a folder or a FIFO is said as such, never opened
    if what:
        raise InvalidArgument(what, argument="path", hint="pass the path PlanResult.save() wrote")
    if p.stat().st_size > MAX_FILE:
        raise InvalidArgument(f"path={str(p)!r} is larger than {MAX_FILE >> 20} MiB: not a "
                              "recorded plan", argument="path",
                              hint="pass the path PlanResult.save() wrote")
    try:
        d = json.loads(p.read_bytes().decode("utf-8"))
    except (ValueError, RecursionError) as e:     # ValueError: also a number of > 4300 digits
        raise InvalidArgument(f"path={str(p)!r} is not JSON ({type(e).__name__})",
                              argument="path", hint="pass the path PlanResult.save() wrote") from None
    except OSError as e:
        raise InvalidArgument(f"path={str(p)!r} cannot be read ({e.strerror})",
                              argument="path", hint="pass the path PlanResult.save() wrote") from None
    if not isinstance(d, dict):
        raise InvalidArgument(f"path={str(p)!r} holds no recorded plan (a JSON "
                              f"{type(d).__name__})", argument="path",
                              hint="pass the path PlanResult.save() wrote")
    try:
        return from_dict(d)
    except (InvalidArgument, InvalidType) as e:    # the caller passed a path: the file is wrong
        raise InvalidArgument(e.message, argument="path", hint=e.hint) from None


def recommend(result, profiles=None, *, choices=None, plans=None, steps=None, workers=1):
    """:meth:`PlanResult.recommend` as a function."""
    if not isinstance(result, PlanResult):
        raise InvalidType(f"result={V.short(result)} is not a PlanResult", argument="result",
                          hint="pass rec.result() or umkit.plan.load(path)")
    return result.recommend(profiles, choices=choices, plans=plans, steps=steps,
                            workers=workers)


def predict(result, plan, profile=None, *, steps=None) -> dict:
    """:meth:`PlanResult.predict` as a function."""
    if not isinstance(result, PlanResult):
        raise InvalidType(f"result={V.short(result)} is not a PlanResult", argument="result",
                          hint="pass rec.result() or umkit.plan.load(path)")
    return result.predict(plan, profile, steps=steps)


def pad(text: str, width: int, right: bool = False) -> str:
    """``text`` padded to ``width`` columns of a fixed-width font (a CJK character takes two)."""
    fill = " " * max(0, width - display_width(text))
    return fill + text if right else text + fill
