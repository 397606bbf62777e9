"""One fitter for a simulator profile, driven by a manifest (``umkit measure fit MANIFEST``).

A manifest is a JSON file that says what a profile is made of: the values taken as stated (a
driver constant, a page size, a one-off measurement, each with its source) and, per fit stage,
the committed data it reads.  The stages, in the order they run:

``direct``       (:mod:`.direct`) what one measurement isolates: rates, call times, host speeds;
``advice``       (:mod:`.advice`) the costs of advice calls;
``cold_path``    (:mod:`.cold_path`) a fault service whose host data left the CPU's caches;
``duplex``       how much of a zero-copy kernel's writes cross the link beside its reads;
``through_sim``  (:mod:`.through_sim`) the fault path and the deferred work, through the simulator.

``fit_profile`` returns the profile document; ``render`` its text, byte for byte what a profile
file holds.  A profile shipped with umkit is what its manifest produces from the committed data
(a test checks it), so what a user refits is what ships.

Manifest fields (paths are relative to ``root``, which is relative to the manifest's folder)::

    manifest_version   1
    root               the folder the paths start from (the repository: "../..")
    writes             the profile file the fit is for
    header             name, title, vendor, mode, teaching: the profile's own fields
    who                who measured, on what (each source says it, with the date)
    params             {name: unit}, in the order the profile lists them
    stated             {name: {value, source}}: values no stage fits
    notes              {name: text}: added to a fitted parameter's source
    direct             {calibrate: [run dirs], small_bench: [files], fit_probe: [files], date}
    advice             {class_probe: [{file, host_speed}], statistic, baseline_us, baseline_note,
                       date, note}
    cold_path          {class_probe: [{file, host_speed}], dates, note}
    duplex             {fit_probe: file, date, run}
    through_sim        {design: file}
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from ...errors import InvalidArgument

MANIFEST_VERSION = 1
HINT = "give the path of a fit manifest, e.g. benchmarks/fits/h200-pcie5.json"
#: the largest manifest or data file a fit reads
MAX_BYTES = 256 << 20
STAGES = ("direct", "advice", "cold_path", "duplex", "through_sim")
FIELDS = ("manifest_version", "root", "writes", "header", "who", "params", "stated", "notes") + STAGES
HEADER = ("name", "title", "vendor", "mode", "teaching")
STAGE_FIELDS = {"direct": ("calibrate", "small_bench", "fit_probe", "date"),
                "advice": ("class_probe", "statistic", "baseline_us", "baseline_note", "date", "note"),
                "cold_path": ("class_probe", "dates", "note"),
                "duplex": ("fit_probe", "date"),
                "through_sim": ("design",)}
#: a lease's host speed a manifest may give (calibrate --compare fits 0.5 - 2.5)
HOST_SPEEDS = (0.2, 5.0)
#: what a data file that is not what its stage expects raises while it is read and fitted
DATA_ERRORS = (KeyError, TypeError, ValueError, OSError, IndexError, AttributeError,
               RecursionError, ZeroDivisionError, OverflowError)
MS, US = 1e-3, 1e-6


class Manifest:
    """A manifest read and checked: ``doc`` its fields, ``root`` the folder its paths start from."""

    def __init__(self, path):
        from ... import validate as V
        self.path = V.path(path, "manifest", hint=HINT)
        why = V.not_a_file(self.path, "manifest")
        if why:
            raise InvalidArgument(why, argument="manifest", hint=HINT)
        if self.path.stat().st_size > MAX_BYTES:
            raise InvalidArgument(f"the manifest {self.path} is larger than {MAX_BYTES >> 20} MiB",
                                  argument="manifest", hint=HINT)
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
        except OSError as e:
            raise InvalidArgument(f"cannot read the manifest {self.path}: {e.strerror or e}",
                                  argument="manifest", hint=HINT) from None
        except (ValueError, RecursionError) as e:
            raise InvalidArgument(f"the manifest {self.path} is not JSON ({e})",
                                  argument="manifest", hint="fix the file's syntax") from None
        if not isinstance(doc, dict):
            raise self.bad("the manifest", "is not a JSON object")
        unknown = sorted(set(doc) - set(FIELDS))
        if unknown:
            raise self.bad(unknown[0], "is not a manifest field", hint="the fields are " +
                           ", ".join(FIELDS))
        v = doc.get("manifest_version")
        if not isinstance(v, int) or isinstance(v, bool) or v != MANIFEST_VERSION:
            raise self.bad("manifest_version", f"is {doc.get('manifest_version')!r}; this umkit "
                           f"reads version {MANIFEST_VERSION}")
        for f, kind in (("root", str), ("writes", str), ("who", str), ("header", dict),
                        ("params", dict), ("stated", dict), ("notes", dict)):
            if not isinstance(doc.get(f, {} if f == "notes" else None), kind):
                raise self.bad(f, f"must be a {'string' if kind is str else 'JSON object'}")
        for f in ("root", "writes", "who"):
            if not doc[f] or not _text(doc[f]):
                raise self.bad(f, "must be a non-empty text without control characters")
        h = doc["header"]
        missing = [k for k in HEADER if k not in h]
        if missing or set(h) - set(HEADER):
            raise self.bad("header", f"must hold exactly {', '.join(HEADER)}")
        if not (all(isinstance(h[k], str) and h[k] and _text(h[k])
                    for k in ("name", "title", "vendor", "mode"))
                and isinstance(h["teaching"], bool)):
            raise self.bad("header", "name, title, vendor and mode must be texts, teaching true "
                           "or false")
        for name, unit in doc["params"].items():
            if not isinstance(unit, str) or not _plain(name):
                raise self.bad(f"params.{_shown(name)}", "must be a parameter's name (letters, "
                               "digits, _) and its unit, a string")
        for name, e in doc["stated"].items():
            if name not in doc["params"]:
                raise self.bad(f"stated.{_shown(name)}", "is not in params")
            if not (isinstance(e, dict) and set(e) == {"value", "source"}
                    and isinstance(e["source"], str) and _text(e["source"])
                    and _number(e["value"]) and e["value"] >= 0):
                raise self.bad(f"stated.{name}", "must be {value: a number >= 0, source: a text}")
        for name, text in doc.get("notes", {}).items():
            if name not in doc["params"] or not isinstance(text, str) or not _text(text):
                raise self.bad(f"notes.{_shown(name)}", "must name a parameter of params and "
                               "hold a text")
        self.doc = doc
        self.root = (self.path.parent / doc["root"]).resolve()
        target = (self.root / doc["writes"]).resolve()
        if Path(doc["writes"]).is_absolute() or not target.is_relative_to(self.root) \
                or target.suffix != ".json" or target == self.path.resolve():
            raise self.bad("writes", f"names {_shown(doc['writes'])}: the profile's file, a "
                           ".json path relative to the root and inside it (not the manifest)")
        self.target = target

    def bad(self, field: str, what: str, hint: str = "") -> InvalidArgument:
        return InvalidArgument(f"manifest {self.path.name}: {field} {what}", argument=field,
                               hint=hint or "see umkit.measure.fitting.manifest for the fields")

    def stage(self, name: str) -> dict | None:
        s = self.doc.get(name)
        if s is None:
            return None
        if not isinstance(s, dict):
            raise self.bad(name, "must be a JSON object")
        unknown = sorted(set(s) - set(STAGE_FIELDS[name]))
        if unknown:
            raise self.bad(f"{name}.{_shown(unknown[0])}", f"is not a field of the stage; its "
                           f"fields are {', '.join(STAGE_FIELDS[name])}")
        for k in ("date", "dates", "note", "baseline_note", "statistic"):
            if k in s and not (isinstance(s[k], str) and _text(s[k])):
                raise self.bad(f"{name}.{k}", "must be a text without control characters")
        return s

    def inputs(self) -> set[Path]:
        """Every file the manifest reads (resolved): itself, each stage's files, the design."""
        out = {self.path.resolve()}
        for name in STAGES:
            st = self.doc.get(name)
            if not isinstance(st, dict):
                continue
            for key in ("calibrate", "small_bench", "fit_probe", "class_probe", "design"):
                v = st.get(key)
                for item in (v if isinstance(v, list) else [v]):
                    rel = item.get("file") if isinstance(item, dict) else item
                    if not (isinstance(rel, str) and rel and "\x00" not in rel):
                        continue
                    try:
                        p = (self.root / rel).resolve()
                        out |= {p, (p / "calibrate_compare.json").resolve()} if p.is_dir() else {p}
                    except OSError:           # a name no file can have: nothing is read there
                        continue
        return out

    def file(self, field: str, rel, folder_ok: bool = False) -> Path:
        """A data file the manifest names (``rel`` relative to the root): a regular file there
        (or, with ``folder_ok``, a folder), of at most :data:`MAX_BYTES`."""
        from ... import validate as V
        if not isinstance(rel, str) or not rel or "\x00" in rel or Path(rel).is_absolute() \
                or ".." in Path(rel).parts:
            raise self.bad(field, f"names {V.short(rel)}: a path relative to the root, inside it")
        p = self.root / rel
        if not p.resolve().is_relative_to(self.root):
            raise self.bad(field, f"names {V.short(rel)}, which leads outside the root (a link)")
        if folder_ok and p.is_dir():
            return p
        why = V.not_a_file(p, field)
        if why:
            raise self.bad(field, f"names {V.short(rel)}, which is no file there (root "
                           f"{self.doc['root']}): {why}")
        if p.stat().st_size > MAX_BYTES:
            raise self.bad(field, f"names {V.short(rel)}, larger than {MAX_BYTES >> 20} MiB")
        return p

    def files(self, field: str, stage: dict, key: str, folder_ok: bool = False) -> list[tuple[str, Path]]:
        rels = stage.get(key)
        if not isinstance(rels, list) or not rels:
            raise self.bad(f"{field}.{key}", "must be a non-empty list of paths")
        return [(r, self.file(f"{field}.{key}", r, folder_ok)) for r in rels]

    def probes(self, field: str, stage: dict) -> list[tuple[str, Path, float]]:
        items = stage.get("class_probe")
        if not isinstance(items, list) or not items:
            raise self.bad(f"{field}.class_probe", "must be a non-empty list of {file, host_speed}")
        out = []
        for it in items:
            hs = it.get("host_speed", 1.0) if isinstance(it, dict) else None
            if not (isinstance(it, dict) and set(it) <= {"file", "host_speed"} and _number(hs)
                    and HOST_SPEEDS[0] <= hs <= HOST_SPEEDS[1]):
                raise self.bad(f"{field}.class_probe", "items must be {file, host_speed}, the "
                               f"lease's host speed {HOST_SPEEDS[0]} - {HOST_SPEEDS[1]} (calibrate "
                               "--compare fits it; 1.0 where none was)")
            out.append((it.get("file"), self.file(f"{field}.class_probe", it.get("file")), float(hs)))
        return out


def _number(v) -> bool:
    try:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    except OverflowError:                    # an int too large for a float
        return False


def _text(value: str) -> bool:
    """A text a profile's source may hold: no control characters."""
    return not any(ord(c) < 32 or 0x7f <= ord(c) < 0xa0 for c in value)


def _plain(name) -> bool:
    return isinstance(name, str) and name.isidentifier() and name.isascii()


def _shown(value) -> str:
    """A name or a path as a message shows it: a plain name as it is, anything else quoted
    with its control characters escaped."""
    from ...validate import shown
    return value if _plain(value) else shown(str(value), 80)


def _json(path: Path) -> dict:
    return json.loads(path.read_text())


def _direct_data(man: Manifest, st: dict) -> dict:
    """The direct stage's files, read and pooled: the fit set ``m``, the size sweeps ``sb``
    (and each file's document, ``sb_docs``), the fit-only probes ``fp`` (None without), the
    files as the sources name them, and the fit set's date."""
    from . import direct as dr
    cal = man.files("direct", st, "calibrate", folder_ok=True)
    sbs = man.files("direct", st, "small_bench")
    fps = man.files("direct", st, "fit_probe") if st.get("fit_probe") else []
    meas = [_json(man.file("direct.calibrate", r.rstrip("/") + "/calibrate_compare.json")
                  if p.is_dir() else p)["measured"] for r, p in cal]
    sb_docs = [_json(p) for _, p in sbs]
    return {"m": dr.pool([x["fit"] for x in meas]), "sb": dr.pool(sb_docs), "sb_docs": sb_docs,
            "fp": dr.pool([_json(p) for _, p in fps]) if fps else None,
            "calibrate": [(r.rstrip("/") + "/calibrate_compare.json") if p.is_dir() else r
                          for r, p in cal],
            "small_bench": [r for r, _ in sbs], "fit_probe": [r for r, _ in fps],
            "date": meas[-1].get("date")}


def stage_data(man: Manifest) -> tuple:
    """(fit set, size sweeps, fit-only probes) of the manifest's direct stage, pooled."""
    d = _direct_data(man, man.stage("direct"))
    return d["m"], d["sb"], d["fp"]


def fit_profile(manifest, *, redesign: bool = False, log=None, keep: dict | None = None) -> dict:
    """The profile document the manifest's stages make from its data.  ``redesign=True``
    computes the simulator's responses of the ``through_sim`` stage again with the simulator
    as it is now (minutes) instead of reading the stored design; ``log`` takes progress lines;
    ``keep`` (a dict), if given, receives the design the fit used under ``"design"``."""
    from ...errors import InvalidType
    from . import advice as adv
    from . import cold_path as cold
    from . import direct as dr
    from . import through_sim as ts
    for name, ok in (("redesign", isinstance(redesign, bool)), ("log", log is None or callable(log)),
                     ("keep", keep is None or isinstance(keep, dict))):
        if not ok:
            raise InvalidType(f"fit_profile: {name} must be "
                              + {"redesign": "True or False", "log": "a function of one line, or None",
                                 "keep": "a dict, or None"}[name], argument=name,
                              hint="see umkit.measure.fitting.fit_profile")
    man = manifest if isinstance(manifest, Manifest) else Manifest(manifest)
    say = log or (lambda line: None)
    d = man.doc
    who = d["who"]
    values = {k: e["value"] for k, e in d["stated"].items()}
    sources = {k: e["source"] for k, e in d["stated"].items()}

    def stage_error(name, e):
        return man.bad(name, f"cannot be fitted from its data: {type(e).__name__}: {e}",
                       hint="check that each file the stage names is the kind of file it reads")

    def fitted(stage: str, new: dict) -> None:
        """Take a stage's values: each a parameter no value is stated for, a finite number >= 0."""
        for k, val in new.items():
            if k in d["stated"]:
                raise man.bad(f"stated.{k}", f"is fitted by stage {stage}: state it or fit it, "
                              "not both")
            if not (_number(val) and val >= 0):
                raise man.bad(stage, f"fits {k} = {val!r} from its data, not a number >= 0",
                              hint="check the files the stage names (a size or a time that is "
                                   "not a positive number)")
        values.update(new)

    # -- direct ---------------------------------------------------------------------------------
    st = man.stage("direct")
    m = sb = fp = None
    names = None
    if st is not None:
        try:
            data = _direct_data(man, st)
            m, sb, fp = data["m"], data["sb"], data["fp"]
            names = dr.sources(data["calibrate"], data["small_bench"], data["fit_probe"])
            date = str(st.get("date") or data["date"])
            v, src, _ = dr.fit(m, sb, values, names, f"{who}, {date}", fp)
            if fp:
                v_, s_ = dr.stream_first(fp, names[2], f"{who}, {date}")
                v.update(v_)
                src.update(s_)
            if "alloc_pinned_per_mib" in src:
                src["alloc_pinned_per_mib"] += dr.pinned_note(data["sb_docs"], data["small_bench"])
        except DATA_ERRORS as e:
            if isinstance(e, InvalidArgument):
                raise
            raise stage_error("direct", e) from None
        fitted("direct", v)
        sources.update(src)
        say(f"direct: {len(v)} parameters")

    # -- advice ---------------------------------------------------------------------------------
    st = man.stage("advice")
    if st is not None:
        probes = man.probes("advice", st)
        base = st.get("baseline_us")
        if not (_number(base) and base >= 0):
            raise man.bad("advice.baseline_us", "must be a number >= 0 (what the simulator's host "
                          "timing adds around a free call, in us)")
        if redesign:
            base = adv.sim_baseline_us()
        statistic = st.get("statistic", "median")
        if statistic not in ("median", "min"):
            raise man.bad("advice.statistic", "must be 'median' or 'min'")
        try:
            v, lines = adv.fit(adv.rows([(p, hs) for _, p, hs in probes]), base, statistic)
        except DATA_ERRORS as e:
            raise stage_error("advice", e) from None
        files = ", ".join(r for r, _, _ in probes)
        speeds = ", ".join(f"{hs:g}" for _, _, hs in probes)
        src = ("fitted on fit data only: the class probe's 'advice' section (one call's host time, "
               "set and unset, on managed ranges of 8, 64 and 512 MiB that the CPU wrote, that were "
               f"then prefetched to the GPU, or that nothing touched; 3 fresh buffers each, {statistic}; "
               f"each lease's times divided by its host speed, {speeds}, from calibrate --compare on "
               f"the same lease), minus {base:.4f} us that the simulator's host timing adds around a "
               f"call" + (f" ({st['baseline_note']})" if st.get("baseline_note") and not redesign else "")
               + f"; umkit measure fit, stage advice; {who}, {st.get('date', '')} ({files})")
        if st.get("note"):
            src += ". " + str(st["note"])
        fitted("advice", v)
        for k in v:
            sources[k] = src
        for ln in lines:
            say("advice: " + ln)

    # -- cold path ------------------------------------------------------------------------------
    st = man.stage("cold_path")
    if st is not None:
        probes = man.probes("cold_path", st)
        try:
            pooled = []
            for r, p, hs in probes:
                pts = cold.extras(p, hs)
                C, r_, S, rms = cold.fit(pts)
                say(f"cold_path: {r}: C {C:.3f} ms, r {r_:.2f}, S {S / (1 << 20):.0f} MiB, rms "
                    f"{rms:.3f} ms over {len(pts)} reads")
                pooled += pts
            C, r_, S, rms = cold.fit(pooled)
        except DATA_ERRORS as e:
            raise stage_error("cold_path", e) from None
        speeds = sorted({hs for _, _, hs in probes})
        src = ("fitted: five fresh 32 / 128 KiB GPU fault reads in a row after the host wrote or "
               "read 8, 64 or 512 MiB (NumPy or managed), less the same reads after nothing; "
               "least squares of extra = fault_cold_latency * (1 - exp(-swept / "
               "fault_cold_bytes)) * fault_cold_decay**(k-1) over reads k = 1..5 (one step more "
               f"where the GPU read the swept buffer between; rms {rms:.3f} ms over {len(pooled)} "
               f"reads; each file's times divided by its lease's host speed: "
               f"{', '.join(f'{s:g}' for s in speeds)}); umkit measure fit, stage cold_path; {who}, "
               f"{st.get('dates', '')}, the class probe's sections context and context2 "
               f"({', '.join(r for r, _, _ in probes)})")
        if st.get("note"):
            src += ". " + str(st["note"])
        fitted("cold_path", {"fault_cold_latency": round(C * 1e3, 1), "fault_cold_decay": r_,
                             "fault_cold_bytes": int(S)})
        for k in ("fault_cold_latency", "fault_cold_decay", "fault_cold_bytes"):
            sources[k] = src

    # -- duplex ---------------------------------------------------------------------------------
    st = man.stage("duplex")
    if st is not None:
        rel = st.get("fit_probe")
        p = man.file("duplex.fit_probe", rel)
        try:
            dx = _json(p)["duplex"]
            if "zero_copy_bw" not in values:
                raise man.bad("duplex", "needs zero_copy_bw, from the direct stage or stated")
            zc = values["zero_copy_bw"] * 1e9
            parts, shown = [], []
            for size in sorted(dx, key=int):
                r = dx[size]
                if int(size) <= 0 or not all(_number(r.get(k)) and r[k] > 0 for k in
                                             ("pinned_read_write_ms", "pinned_read_ms")):
                    raise ValueError(f"size {size!r}: needs a positive size and positive finite "
                                     "pinned_read_ms and pinned_read_write_ms")
                write_ms = int(size) / zc / MS
                extra = r["pinned_read_write_ms"] - r["pinned_read_ms"]
                parts.append(1 - extra / write_ms)
                shown.append((int(size) >> 20, extra, r["pinned_read_ms"], write_ms))
        except DATA_ERRORS as e:
            raise stage_error("duplex", e) from None
        if not parts or not all(0 <= x <= 1 for x in parts):
            raise man.bad("duplex", "gives a share of writes crossing beside reads outside 0..1 "
                          f"({', '.join(f'{x:.3g}' for x in parts) or 'no sizes'})",
                          hint="duplex.fit_probe must be a fit probe's duplex section")
        fitted("duplex", {"link_duplex": round(float(np.mean(parts)), 2)})
        sources["link_duplex"] = (
            "fitted: a zero-copy increment of " + " / ".join(f"{s[0]}" for s in shown) +
            " MiB of pinned memory (every element read and written) took " +
            " / ".join(f"{s[1]:.3f}" for s in shown) + " ms longer than the read alone (" +
            " / ".join(f"{s[2]:.3f}" for s in shown) + " ms), where reads then writes one after "
            "the other would add the whole write (" + " / ".join(f"{s[3]:.2f}" for s in shown) +
            " ms at zero_copy_bw): " + " and ".join(f"1 - {1 - x:.3f}" for x in parts) +
            f" of the writes cross alongside the reads (mean, to two places); umkit measure fit, "
            f"stage duplex; {who}, {st.get('date', '')}, the fit probe's section duplex (3 "
            f"repeats, medians; {rel})")

    # -- through the simulator --------------------------------------------------------------------
    st = man.stage("through_sim")
    if st is not None:
        if m is None or fp is None:
            raise man.bad("through_sim", "needs the direct stage with its fit_probe files (their "
                          "data are the observations)")
        dpath = man.file("through_sim.design", st.get("design"))
        obs = ts.observations(m, sb, fp)
        if redesign:
            say("through_sim: computing the simulator's responses (21 runs of the fit workloads)")
            des = ts.design(_document(man, values, sources, partial=True), values, obs, fp is not None)
            des["model"] = f"the simulator of umkit {_version()}"
        else:
            try:
                des = ts.read_design(dpath)
            except DATA_ERRORS as e:
                raise stage_error("through_sim", e) from None
        if keep is not None:
            keep["design"] = des
        try:
            v, rows = ts.solve(des, obs)
        except DATA_ERRORS as e:
            raise stage_error("through_sim", e) from None
        how = ("fitted through the simulator: relative non-negative least squares over the fit "
               "workloads that fault or follow an allocation, a free or a new stream -- the fit set's "
               "GPU fault reads, the fault-read sweep 4 KiB - 256 MiB, and fit_probe's packed small "
               "buffers read one by one and fresh-buffer reads (zero copy, copy + read, fault, "
               "prefetch + read; fresh or kept sink and stream) at 8 KiB, 512 KiB and 8 MiB, CPU "
               "reads after a prefetch back at 8 and 128 MiB, a small CPU write then fault or "
               "prefetch reads of an 8 MiB buffer, copies from freshly pinned buffers, managed buffers "
               "taken round the UnifiedMemoryPerf loop (CPU write and sum, prefetch there and back), the "
               "small-CPU-write-then-fault-or-prefetch pattern repeated back to back -- each "
               "parameter's share read off sim runs with it alone at one unit "
               f"({des.get('model', 'the simulator')}; {st.get('design')})")
        date = str((d.get("direct") or {}).get("date", ""))
        fp_src = names[2][:-len(", pooled)")] + ", pooled: each number the mean over the runs)"
        fitted("through_sim", {k: float(val) for k, val in v.items()})
        for k in v:
            sources[k] = f"{how}; {who}, {date}, {names[0]}; {names[1]}; {fp_src}"
        worst = max((abs(math.log(p / y)) for _, y, p in rows if y > 0 and p > 0), default=0.0)
        say(f"through_sim: {len(v)} parameters over {len(rows)} observations (worst ratio "
            f"x/÷{math.exp(worst):.2f})")
    doc = _document(man, values, sources)
    _loads(man, doc)
    return doc


def _loads(man: Manifest, doc: dict) -> None:
    """The fitted profile must be one the simulator loads (every value and field checked as
    :func:`umkit.sim.load_profile` checks a profile file)."""
    import tempfile

    from ...errors import UmkitError
    from ...sim import load_profile
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "fitted.json"
        f.write_text(render(doc), encoding="utf-8")
        try:
            load_profile(f)
        except UmkitError as e:
            raise man.bad("params", f"make a profile the simulator refuses: {e.message}",
                          hint="check the stated values and the stages' data") from None


def _version() -> str:
    from ...version import __version__
    return __version__


def _document(man: Manifest, values: dict, sources: dict, partial: bool = False) -> dict:
    """The profile document: the header, then every parameter in the manifest's order with its
    unit, its value (rounded as a profile keeps it) and its source."""
    d = man.doc
    params = {}
    for k, unit in d["params"].items():
        if k not in values:
            if partial:
                continue
            raise man.bad(f"params.{k}", "is neither stated nor fitted by a stage")
        val = values[k]
        if k not in d["stated"]:
            val = int(val) if unit == "B" else round(float(val), 4)
        src = sources[k]
        if k in (d.get("notes") or {}):
            src += ". " + d["notes"][k]
        params[k] = {"value": val, "unit": unit, "source": src}
    extra = sorted(set(values) - set(d["params"]))
    if extra and not partial:
        raise man.bad("params", f"lacks {', '.join(extra)}, which a stage fits")
    return {**{h: d["header"][h] for h in HEADER}, "params": params}


def render(doc: dict) -> str:
    """A profile document as its file holds it."""
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def differences(doc: dict, path) -> list[str]:
    """Where the profile file at ``path`` differs from ``doc``: one line per parameter, and one
    when the file's text is not what :func:`render` writes (a type, an extra field, the
    formatting); [] when the file is exactly the fit."""
    from ...validate import not_a_file, shown
    why = not_a_file(path, "writes")
    if why:
        return [why]
    if Path(path).stat().st_size > MAX_BYTES:
        return [f"{shown(str(path), 200)} is larger than {MAX_BYTES >> 20} MiB"]
    text = Path(path).read_bytes().decode("utf-8", errors="replace")
    if text == render(doc):
        return []
    try:
        have = json.loads(text)
    except (ValueError, RecursionError):
        return ["the file is not JSON"]
    if not isinstance(have, dict) or not isinstance(have.get("params"), dict):
        return ["the file is not a profile (a JSON object with params)"]
    out = [f"{h}: {shown(have.get(h), 60)} in the file, {shown(doc[h], 60)} fitted" for h in HEADER
           if have.get(h) != doc[h] or type(have.get(h)) is not type(doc[h])]
    out += [f"{shown(k, 60)}: a field the fit does not make" for k in have
            if k not in HEADER and k != "params"]
    hp, dp = have["params"], doc["params"]
    for k in list(dp) + [k for k in hp if k not in dp]:
        a, b = hp.get(k), dp.get(k)
        name = shown(k, 60)
        if not isinstance(a, dict) or b is None:
            out.append(f"{name}: {'not in the file' if a is None else 'not fitted' if b is None else 'not a parameter entry'}")
        elif a.get("value") != b["value"] or type(a.get("value")) is not type(b["value"]):
            out.append(f"{name}: {shown(a.get('value'), 40)} in the file, {b['value']!r} fitted")
        elif a != b:
            what = [f"another {f}" for f in ("unit", "source") if a.get(f) != b[f]] + \
                [f"a field the fit does not make ({shown(f, 30)})" for f in a if f not in b]
            out.append(f"{name}: the same value, {' and '.join(what)}")
    if not out:
        out.append("the file's text is not what the fit writes (its order or formatting)")
    return out
