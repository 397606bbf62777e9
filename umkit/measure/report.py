"""A GPU CI run's summary (``umkit measure report RESULTS``: ``summary.json`` and ``summary.md``)
and the results index (``umkit measure report --index``: ``benchmarks/results/INDEX.md``, and
the targets table of ``benchmarks/README.md`` from ``benchmarks/targets.json``).

The index marks a run STALE when the *measurement* code it ran has changed since: a content
hash of the files that run on the GPU (:data:`MEASURING`), so no git is needed on the GPU
machine.  The model is not among them: a run's measurements stay current when the simulator or
a profile changes, and ``umkit measure evaluate RUN`` re-predicts them with the model of the day.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import time
from pathlib import Path

#: the checkout the package sits in (the results and the kernels live there)
ROOT = Path(__file__).resolve().parents[2]
#: what a GPU run executes: the backends, memory, the public API, the runtime, the measurement
#: programs and probes, the workloads, the kernels -- not the simulator, the profiles or the fitter
MEASURING = ["umkit/backends", "umkit/memory", "umkit/api.py", "umkit/runtime",
             "umkit/measure", "umkit/workloads", "umkit/user_kernels.py", "kernels"]
NOT_MEASURING = ["umkit/measure/fitting", "umkit/measure/evaluate.py", "umkit/measure/report.py",
                 "umkit/measure/command.py"]


def code_hash() -> str:
    """The measurement code's content hash (16 hex digits)."""
    h = hashlib.sha256()
    skip = [ROOT / s for s in NOT_MEASURING]
    for rel in MEASURING:
        p = ROOT / rel
        if not p.exists():
            continue
        files = sorted(p.rglob("*.py")) + sorted(p.rglob("*.cu")) + sorted(p.rglob("*.hip")) \
            if p.is_dir() else [p]
        for f in files:
            if any(f == s or s in f.parents for s in skip):
                continue
            h.update(f.relative_to(ROOT).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


#: what a data file of the wrong form raises while a section of the report is made from it
DATA_ERRORS = (AttributeError, TypeError, KeyError, ValueError, IndexError, RecursionError)


def _load(p) -> dict | None:
    """A results file as a JSON object (:func:`umkit.results.read_json`); None when it is
    missing, not a regular file, too large, not JSON or not an object."""
    from ..errors import InvalidArgument
    from ..results import read_json
    try:
        doc = read_json(p)
    except InvalidArgument:
        return None
    return doc if isinstance(doc, dict) else None


def _tail_count(log: Path):
    """The last line of a pytest log that counts passed / failed / errors (its last 1 MiB)."""
    from ..validate import not_a_file
    if not_a_file(log):
        return None
    with open(log, "rb") as f:
        f.seek(max(0, f.seek(0, 2) - (1 << 20)))
        text = f.read().decode("utf-8", errors="replace")
    last = [ln for ln in text.splitlines() if re.search(r"passed|failed|error", ln)]
    return last[-1].strip("= ")[:300] if last else None


def steps(text: str) -> dict:
    """``NAME=EXIT:SECONDS,...`` (what .ci/gpu passes) -> {name: {rc, seconds}}."""
    import math

    from ..errors import InvalidArgument
    st = {}
    for item in filter(None, str(text).split(",")):
        k, _, v = item.partition("=")
        rc, _, t = v.partition(":")
        try:
            rc_, t_ = int(rc), float(t)
        except ValueError:
            rc_, t_ = None, math.nan
        if not k.strip() or not k.strip().replace("-", "_").isidentifier() or rc_ is None \
                or not math.isfinite(t_) or not 0 <= t_ < 1e7:
            raise InvalidArgument(f"--steps: {item[:80]!r} is not NAME=EXIT:SECONDS",
                                  argument="--steps", hint="e.g. --steps doctor=0:1.2,notebooks=0:40.5")
        if k.strip() in st:
            raise InvalidArgument(f"--steps names {k.strip()} twice", argument="--steps",
                                  hint="one NAME=EXIT:SECONDS per step")
        st[k.strip()] = dict(rc=rc_, seconds=t_)
    return st


def summarise(res: Path, free0: int, free1: int, st: dict) -> int:
    """Write the run's summary.json and summary.md and print the summary (``st`` the steps'
    exit codes and seconds, :func:`steps`); 0 when every step exited 0 and no memory leaked.
    ``res`` is a ``.ci/gpu`` results folder (it holds the doctor's report); a results file that
    is not in the form its step writes is named in the summary and left out."""
    from .. import runtime
    from .. import validate as V
    from ..errors import InvalidArgument
    from ..results import files
    hint = "give the folder .ci/gpu wrote (it holds doctor.txt)"
    res = V.path(res, "results", hint=hint)
    if not res.is_dir() or V.not_a_file(res / "doctor.txt"):
        raise InvalidArgument(f"results={V.shown(str(res), 200)} is not a .ci/gpu results folder",
                              argument="results", hint=hint)
    for name, v in (("free_before", free0), ("free_after", free1)):
        V.integer(v, name, lo=0, hi=1 << 50)
    if not (isinstance(st, dict) and all(
            isinstance(k, str) and k.replace("-", "_").isidentifier() and isinstance(v, dict)
            and type(v.get("rc")) is int and isinstance(v.get("seconds"), float)
            and 0 <= v["seconds"] < 1e7 for k, v in st.items())):
        raise InvalidArgument("steps must be what report.steps() returns", argument="steps",
                              hint="e.g. steps('doctor=0:1.2')")
    b = runtime.backend()
    docs = {name: _load(res / name) for name in ("core_bench.json", "pool_bench.json",
                                                 "calibrate_compare.json", "umperf.json")}
    # a results file that is there but no JSON object is named, as one of the wrong form is
    unreadable = [name for name, doc in docs.items() if doc is None and os.path.lexists(res / name)]
    bench = docs["core_bench.json"] or {}
    try:
        pool = (docs["pool_bench.json"] or {}).get("results") or {}   # umkit vs CuPy's pool
        bench.update({f"poolbench_{k}": {x: y for x, y in v.items() if x != "raw_us"}
                      for k, v in pool.items() if isinstance(v, dict) and "met" in v})
        benchmarks = {k: {kk: v.get(kk) for kk in ("speed_ratio", "ratio_umkit_over_cupy", "target",
                                                   "met", "error") if kk in v}
                      for k, v in bench.items() if isinstance(v, dict) and k != "versions"}
    except DATA_ERRORS:
        benchmarks = {}
        unreadable.append("core_bench.json / pool_bench.json")
    comp = docs["calibrate_compare.json"] or {}
    um = docs["umperf.json"] or {}
    leak = abs(free0 - free1)
    s = dict(date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), backend=b.name,
             device=b.device_name(0), device_count=b.device_count(), versions=b.versions(),
             python=platform.python_version(), code_hash=code_hash(), steps=st,
             tests=_tail_count(res / "tests.log"), notebooks=_tail_count(res / "nbval.log"),
             leak_bytes=leak, leak_ok=leak <= (1 << 20), free_before=free0, free_after=free1,
             benchmarks=benchmarks,
             umperf={k: v for k, v in um.items() if k in ("summary", "device", "host_speed")} or None)
    try:
        s["calibrate"] = dict(
            within=comp.get("within"), total=comp.get("total"), profile=comp.get("profile"),
            host_speed=comp.get("host_speed"), host=comp.get("host"),
            **{k: {kk: comp[k].get(kk) for kk in ("within", "within_1_5", "total", "ordering")}
               for k in ("fit", "validation") if isinstance(comp.get(k), dict)},
            as_stored={k: {kk: v.get(kk) for kk in ("within", "within_1_5", "total", "ordering")}
                       for k, v in (comp.get("as_stored") or {}).items()})
        cal_lines = _calibrate_lines(comp) if comp else []
    except DATA_ERRORS:
        s["calibrate"], cal_lines = {}, []
        unreadable.append("calibrate_compare.json")
    s["unreadable"] = unreadable
    files.write(res / "summary.json", json.dumps(s, indent=1, default=str), argument="results",
                exists="replace")
    lines = [f"# GPU CI run: {s['device']} ({s['backend']}), {s['date']}", "",
             f"- devices: {s['device_count']}; versions: {s['versions']}; python {s['python']}",
             f"- code hash (GPU-facing files): `{s['code_hash']}`", "",
             "| step | exit | seconds |", "|---|---|---|"]
    lines += [f"| {k} | {v['rc']} | {v['seconds']} |" for k, v in st.items()]
    lines += ["", f"- tests: {s['tests']}", f"- notebooks (nbval-lax): {s['notebooks']}",
              f"- leak check: free memory before {free0} B, after {free1} B, "
              f"difference {leak} B -> {'OK' if s['leak_ok'] else 'LEAK'} (limit 1 MiB)", ""]
    for k, v in s["benchmarks"].items():
        lines.append(f"- benchmark {k}: {v}")
    lines += cal_lines
    lines += [f"- {name}: not in the form its step writes (left out)" for name in unreadable]
    if isinstance(um.get("summary"), str):
        lines += ["", f"- {um['summary']}"]
    from ..results import MAX_RESULT
    if not V.not_a_file(res / "umperf.md") and (res / "umperf.md").stat().st_size < MAX_RESULT:
        lines += ["", (res / "umperf.md").read_bytes().decode("utf-8", errors="replace")]
    # every line as the terminal and the file will show it: control characters escaped
    lines = [V.clean(part, 10_000) for ln in lines for part in str(ln).split("\n")]
    files.write(res / "summary.md", "\n".join(lines) + "\n", argument="results", exists="replace")
    print("\n".join(lines))
    ok = all(v["rc"] == 0 for v in st.values()) and s["leak_ok"]
    print(f"\nGPU CI: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


def _calibrate_lines(comp: dict) -> list[str]:
    """The summary's calibrate --compare part: the sets' summary lines and their tables."""
    lines = []
    sections = [(k, comp[k]) for k in ("fit", "validation") if isinstance(comp.get(k), dict)] \
        or [("fit", comp)]
    lines += [""]
    if all(isinstance(comp.get(k), dict) and "ordering" in comp[k] for k in ("fit", "validation")):
        from . import calibrate          # the same lines `umkit calibrate --compare` prints
        lines += [f"- {x}" for x in calibrate.summary_lines(comp)]
    else:                                    # a comparison without the two sets
        lines.append(f"- calibrate: {comp.get('within')}/{comp.get('total')} within x/÷1.25")
    for name, sec in sections:
        lines += ["", f"## calibrate --compare, {name} set ({sec.get('within')}/{sec.get('total')} "
                  f"within x/÷1.25, {sec.get('within_1_5', '?')}/{sec.get('total')} within x/÷1.5)", "",
                  "| workload | measured ms | sim ms | sim/real | x/÷1.25 | x/÷1.5 |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| {r['workload']} | {r['measured_ms']} | {r['predicted_ms']} | {r['ratio']} | "
                  f"{'yes' if r['within'] else 'NO'} | {'yes' if r.get('within_1_5') else 'NO'} |"
                  for r in sec.get("rows", [])]
        for p in (sec.get("ordering") or {}).get("wrong_pairs", []):
            lines.append(f"- ordering wrong: the card has {p}")
        for p in (sec.get("ordering") or {}).get("unsettled_pairs", []):
            lines.append(f"- not counted, the card's repeats overlap: {p}")
    return lines


def _cell(value) -> str:
    """A value as one cell of a markdown table: control characters escaped, no '|'."""
    from ..validate import clean
    return clean(value, 120).replace("|", "/")


def index() -> str:
    """Rewrite benchmarks/results/INDEX.md and the targets table of benchmarks/README.md; return
    the index's text."""
    from ..errors import InvalidArgument
    from ..results import files
    if not (ROOT / "benchmarks" / "results").is_dir():
        raise InvalidArgument("--index needs the repository checkout (benchmarks/results/ beside "
                              "the umkit package); this umkit is installed without it",
                              argument="--index", hint="run it from a clone of the repository")
    now = code_hash()
    rows = []
    for p in sorted((ROOT / "benchmarks/results").glob("*/summary.json")):
        s = _load(p) or {}
        state = "current" if s.get("code_hash") == now else "STALE (code changed since)"
        rows.append(f"| [{p.parent.name}]({p.parent.name}/summary.md) | {_cell(s.get('device'))} | "
                    f"{_cell(s.get('backend'))} | {_cell(s.get('date'))} | {state} |")
    text = ("# GPU results\n\nEach run of `.ci/gpu`; a run whose measurement code (what runs on the GPU: "
            "`umkit measure report`'s MEASURING, not the simulator or its profiles) has changed since "
            f"is marked STALE (current code hash `{now}`). `umkit measure evaluate RUN` re-predicts a "
            "run with today's model.\n\n| run | device | backend | date | state |\n"
            "|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    readme = _readme_update()          # checked before anything is written
    files.write(ROOT / "benchmarks/results/INDEX.md", text, argument="--index", exists="replace")
    if readme is not None:
        files.write(ROOT / README, readme, argument="--index", exists="replace")
    return text


#: the kit's own targets (what, the limit, where the latest measurement is) and the README whose
#: section is written from them, under the checkout's root
TARGETS = "benchmarks/targets.json"
README = "benchmarks/README.md"
BEGIN = "<!-- the targets table: written by `umkit measure report --index` from targets.json -->"
END = "<!-- end of the targets table -->"


def _run_number(p: Path) -> int:
    m = re.search(r"-run(\d+)$", p.name)
    return int(m.group(1)) if m else -1


def _value(doc, path):
    for key in path:
        doc = doc[key]
    if isinstance(doc, bool) or not isinstance(doc, (int, float)):
        raise TypeError(f"not a number: {doc!r}")
    return float(doc)


def _amount(v: float, unit: str) -> str:
    if unit == "B":
        return f"{v / (1 << 20):g} MiB" if v >= 1 << 20 else f"{int(v)} B"
    return f"{v:.3f}x" if unit == "x" else f"{v:.4g} {unit}"


def met(value: float, op: str, limit: float) -> bool:
    """Whether ``value`` meets a target ``op limit`` (``op``: ``>=`` or ``<=``, as in
    benchmarks/targets.json)."""
    return value >= limit if op == ">=" else value <= limit


UNITS = ("x", "%", "B", "ms", "s")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,119}")


def targets() -> list[dict]:
    """``benchmarks/targets.json``'s targets, each checked: ``target`` (text), ``op`` (``>=`` or
    ``<=``), ``limit`` (a finite number), ``unit`` (one of :data:`UNITS`), ``path`` (the keys to
    the value) and one of ``file`` (a file in ``benchmarks/results/``) or ``gpu_run`` (a file of
    a ``.ci/gpu`` run's folder), both plain file names. Anything else is an
    :class:`InvalidArgument` naming the target and the field."""
    import math
    from ..errors import InvalidArgument
    from ..results import read_json
    hint = "benchmarks/targets.json lists the targets (see its first lines); restore it from git"
    spec = read_json(ROOT / TARGETS, "targets", argument="--index", hint=hint)

    def bad(where, why):
        return InvalidArgument(f"benchmarks/targets.json: {where} {why}", argument="--index",
                               hint=hint)
    items = spec.get("targets") if isinstance(spec, dict) else None
    if not isinstance(items, list) or not 0 < len(items) <= 200:
        raise bad("'targets'", "must be a list of 1 to 200 targets")
    for i, t in enumerate(items):
        where = f"target {i + 1}"
        if not isinstance(t, dict):
            raise bad(where, "must be an object")
        text = t.get("target")
        if not isinstance(text, str) or not 0 < len(text) <= 200 or \
                any(ord(c) < 32 or ord(c) == 127 for c in text):
            raise bad(where, "needs 'target': one line of text (at most 200 characters)")
        if t.get("op") not in (">=", "<="):
            raise bad(where, "needs 'op': '>=' or '<='")
        lim = t.get("limit")
        if isinstance(lim, bool) or not isinstance(lim, (int, float)) or not math.isfinite(lim):
            raise bad(where, "needs 'limit': a finite number")
        if t.get("unit") not in UNITS:
            raise bad(where, f"needs 'unit': one of {', '.join(UNITS)}")
        path = t.get("path")
        if not isinstance(path, list) or not 0 < len(path) <= 8 or \
                not all(isinstance(k, str) and len(k) <= 100 or type(k) is int for k in path):
            raise bad(where, "needs 'path': a list of 1 to 8 keys (text) or indexes")
        names = [k for k in ("file", "gpu_run") if k in t]
        if len(names) != 1:
            raise bad(where, "needs one of 'file' and 'gpu_run'")
        name = t[names[0]]
        if not isinstance(name, str) or not _NAME.fullmatch(name) or ".." in name:
            raise bad(where, f"'{names[0]}' must be a plain file name (letters, digits, '.', "
                             "'_', '-'; no folder)")
    return items


def targets_table() -> str:
    """The targets table in markdown: each target of ``benchmarks/targets.json`` with its latest
    measurement (a GPU target: the newest run holding its file; any other: the file it names)
    and whether it meets the target."""
    spec = targets()
    results = ROOT / "benchmarks" / "results"
    # the GPU runs, newest (highest number) first; each file read once however many targets use it
    runs = sorted((p for p in results.iterdir() if p.is_dir() and _run_number(p) >= 0),
                  key=_run_number, reverse=True)
    loaded: dict[Path, dict | None] = {}

    def load(p: Path) -> dict | None:
        if p not in loaded:
            loaded[p] = _load(p)
        return loaded[p]
    out = ["| target | wanted | latest | outcome | measured |", "|---|---|---|---|---|"]
    for t in spec:
        unit, limit, op = t["unit"], float(t["limit"]), t["op"]
        if "gpu_run" in t:
            run = next((r for r in runs if (r / t["gpu_run"]).is_file()), None)
            src = run / t["gpu_run"] if run else None
            s = (load(run / "summary.json") or {}) if run else {}
            where = (f"[{run.name}](results/{run.name}/summary.md), {_cell(s.get('device'))}, "
                     f"{_cell(s.get('date'))}") if run else "no GPU run holds " + _cell(t["gpu_run"])
            doc = load(src) if src is not None else None
        else:
            src = results / t["file"]
            doc = load(src)
            where = f"[{_cell(t['file'])}](results/{t['file']}), {_cell((doc or {}).get('date'))}"
        try:
            v = _value(doc, t["path"])
        except DATA_ERRORS:
            v = None
        if v is None:
            latest, outcome = "-", "not measured"
        else:
            latest = _amount(v, unit)
            outcome = "**met**" if met(v, op, limit) else "**missed**"
        wanted = ("≥ " if op == ">=" else "≤ ") + _amount(limit, unit)
        out.append(f"| {_cell(t['target'])} | {wanted} | {latest} | {outcome} | {where} |")
    return "\n".join(out) + "\n"


def readme_with_targets(text: str) -> str:
    """``text`` (benchmarks/README.md) with the section between its markers replaced by
    :func:`targets_table`."""
    from ..errors import InvalidArgument
    i, j = text.find(BEGIN), text.find(END)
    if i < 0 or j < i:
        raise InvalidArgument("benchmarks/README.md has lost the markers of its targets table",
                              argument="--index", hint=f"put back the lines {BEGIN} and {END}")
    return text[:i + len(BEGIN)] + "\n" + targets_table() + text[j:]


def _readme_update() -> str | None:
    """The checkout's benchmarks/README.md with its targets table rewritten, or None where it
    has no README or the table is already what the data say."""
    readme = ROOT / README
    if not readme.is_file():
        return None
    text = readme.read_text(encoding="utf-8")
    new = readme_with_targets(text)
    return None if new == text else new
