"""The ledger of vendor claims: every vendor-specific statement the kit teaches or acts on,
once, with its scope, its primary source and its status (``umkit/ledger.json``).

The error table, the doctor's checks, the simulator's policy rules, the names table's notes,
the notebooks' "under the hood" notes and the HIP programs' comments cite entries by id
(``ledger: amd.attr.pageable_xnack``); ``docs/amd-sources.md`` is rendered from it
(``python -m umkit.ledger --markdown``).

    >>> import umkit.ledger as L
    >>> L.entry("amd.attr.pageable_xnack").statement
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import InvalidArgument

PATH = Path(__file__).with_name("ledger.json")
ID = re.compile(r"^(amd|nv)\.[a-z0-9_]+(\.[a-z0-9_]+)*$")
#: how a claim was established
STATUSES = ("verified in source", "documented", "measured", "estimate")
SCOPE_KEYS = ("vendor", "arch", "xnack", "link")
#: a version scope: where behaviour changed between kernel, driver or ROCm versions, each entry of
#: ``versions`` says since (or until) which version it holds, the commit that changed it and what
#: the behaviour is there
VERSION_KEYS = ("since", "until")
COMMIT = re.compile(r"^[0-9a-f]{7,40}$")
#: a citation of an entry in text: ``ledger: amd.x.y`` (several: ``ledger: amd.a, amd.b``)
#: (a citation may run across a line break inside a Markdown quote: "> ")
CITE = re.compile(r"ledger:[\s>]*((?:(?:amd|nv)\.[a-z0-9_.]*[a-z0-9_](?:,[\s>]*)?)+)")


@dataclass(frozen=True)
class Entry:
    id: str
    statement: str
    scope: dict
    source: dict
    status: str
    note: str = ""
    see_also: tuple = ()
    versions: tuple = ()

    def version_lines(self) -> list[str]:
        """One line per version scope: 'since Linux 6.8 (torvalds/linux 18eb61bd5a6a): ...'."""
        out = []
        for v in self.versions:
            when = "; ".join(f"{k} {v[k]}" for k in VERSION_KEYS if v.get(k))
            where = " ".join(x for x in (v.get("repo", ""), v["commit"]) if x)
            out.append(f"{when} ({where}): {v['behaviour']}")
        return out

    def citation(self) -> str:
        """The source in one line: repository or document, path, function or section, commit."""
        s = self.source
        parts = [s.get("repo") or s.get("document") or "", s.get("path", ""),
                 s.get("function") or s.get("section") or ""]
        ver = s.get("commit") or s.get("version") or ""
        text = ", ".join(p for p in parts if p)
        return f"{text} ({ver})" if ver else text


def _problems(raw) -> list[str]:
    out = []
    if not isinstance(raw, dict) or not isinstance(raw.get("entries"), list):
        return ["the ledger is not {'entries': [...]}"]
    seen = set()
    for i, e in enumerate(raw["entries"]):
        where = f"entries[{i}] ({e.get('id') if isinstance(e, dict) else e!r})"
        if not isinstance(e, dict):
            out.append(f"{where} is not an object")
            continue
        if not isinstance(e.get("id"), str) or not ID.match(e["id"]):
            out.append(f"{where}: id must look like amd.topic.name or nv.topic.name")
        elif e["id"] in seen:
            out.append(f"{where}: id used twice")
        seen.add(e.get("id"))
        if not isinstance(e.get("statement"), str) or len(e["statement"].strip()) < 20:
            out.append(f"{where}: no statement")
        scope = e.get("scope")
        if not isinstance(scope, dict) or any(k not in scope for k in SCOPE_KEYS):
            out.append(f"{where}: scope needs {', '.join(SCOPE_KEYS)}")
        src = e.get("source")
        if not isinstance(src, dict) or not (src.get("repo") or src.get("document")) \
                or not (src.get("path") or src.get("section") or src.get("function")) \
                or not (src.get("commit") or src.get("version")):
            out.append(f"{where}: source needs a repository or document, a path/function/"
                       "section, and the commit or version read")
        st = e.get("status")
        if not isinstance(st, str) or not any(st.startswith(s) for s in STATUSES):
            out.append(f"{where}: status must start with one of {STATUSES}")
        vs = e.get("versions", [])
        if not isinstance(vs, list):
            out.append(f"{where}: versions must be a list")
            continue
        for j, v in enumerate(vs):
            if not isinstance(v, dict) or not any(isinstance(v.get(k), str) and v[k].strip()
                                                   for k in VERSION_KEYS) \
                    or not isinstance(v.get("commit"), str) or not COMMIT.match(v["commit"]) \
                    or not isinstance(v.get("behaviour"), str) or len(v["behaviour"].strip()) < 20:
                out.append(f"{where}: versions[{j}] needs since or until (a version), the "
                           "commit (7-40 hex digits) and the behaviour there")
    return out


@functools.lru_cache(maxsize=1)
def entries() -> dict[str, Entry]:
    """Every entry by id (the file is checked once: a malformed ledger is an error here)."""
    raw = json.loads(PATH.read_text(encoding="utf-8"))
    bad = _problems(raw)
    if bad:
        raise InvalidArgument("umkit/ledger.json: " + "; ".join(bad[:5]),
                              hint="each entry: id, statement, scope, source, status")
    return {e["id"]: Entry(e["id"], e["statement"], dict(e["scope"]), dict(e["source"]),
                           e["status"], e.get("note", ""), tuple(e.get("see_also", ())),
                           tuple(dict(v) for v in e.get("versions", ())))
            for e in raw["entries"]}


def problems(raw=None) -> list[str]:
    """What is malformed in the ledger file, or in ``raw`` (a parsed ledger) ([] when nothing)."""
    return _problems(json.loads(PATH.read_text(encoding="utf-8")) if raw is None else raw)


def entry(id: str) -> Entry:
    """The entry ``id``, or an InvalidArgument naming the closest ids."""
    es = entries()
    if id not in es:
        import difflib
        close = difflib.get_close_matches(str(id), list(es), n=3)
        raise InvalidArgument(f"no ledger entry {id!r}", argument="id",
                              hint=f"did you mean {', '.join(close)}?" if close else
                              "see umkit/ledger.json for the ids")
    return es[id]


def cited(text: str) -> list[str]:
    """The ledger ids a text cites (``ledger: amd.a, amd.b``), in order."""
    out = []
    for m in CITE.finditer(text):
        out += [s.strip(" \n>") for s in m.group(1).split(",") if s.strip(" \n>")]
    return out


def markdown() -> str:
    """``docs/amd-sources.md``: the ledger as a document, grouped by vendor and topic."""
    es = sorted(entries().values(), key=lambda e: e.id)
    lines = ["# Vendor claims and their sources", "",
             "Every vendor-specific statement umkit teaches or acts on, with where it holds, the "
             "primary source it was read in and how it was established. Generated from "
             "`umkit/ledger.json` by `python -m umkit.ledger --markdown`; do not edit by hand.", "",
             "No AMD GPU was available to the kit's authors: the AMD entries were checked by "
             "reading AMD's source code and documentation, not by running on AMD hardware.", ""]
    vendor = None
    for e in es:
        v = e.scope.get("vendor")
        if v != vendor:
            vendor = v
            lines += [f"## {'AMD (ROCm, HIP, amdkfd)' if v == 'amd' else 'NVIDIA (CUDA, UVM)'}", ""]
        scope = ", ".join(f"{k} {e.scope[k]}" for k in SCOPE_KEYS[1:] if e.scope.get(k) not in
                          (None, "any", "all"))
        lines += [f"### `{e.id}`", "", e.statement, "",
                  f"- **where it holds:** {scope or 'every platform of this vendor'}",
                  f"- **source:** {e.citation()}",
                  f"- **status:** {e.status}"]
        for v in e.version_lines():
            lines.append(f"- **version:** {v}")
        if e.note:
            lines.append(f"- **note:** {e.note}")
        for extra in e.see_also:
            lines.append(f"- **see also:** {extra}")
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    import argparse
    import sys
    ap = argparse.ArgumentParser(prog="python -m umkit.ledger",
                                 description="the ledger of vendor claims")
    ap.add_argument("--markdown", action="store_true", help="print docs/amd-sources.md")
    ap.add_argument("id", nargs="?", help="print one entry")
    a = ap.parse_args(argv)
    if a.markdown:
        print(markdown())
    elif a.id:
        try:
            e = entry(a.id)
        except InvalidArgument as err:       # one line, as a command reports a bad argument
            hint = f" ({err.hint})" if err.hint else ""
            print(f"python -m umkit.ledger: {err.message}{hint}", file=sys.stderr)
            return 2
        print(f"{e.id}: {e.statement}\n  source: {e.citation()}\n  status: {e.status}")
        for v in e.version_lines():
            print(f"  version: {v}")
    else:
        print("\n".join(sorted(entries())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
