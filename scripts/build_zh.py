"""Build the Chinese edition (notebooks/zh/) from the English notebooks and the translation
catalogues in i18n/zh/, and report what the catalogues lack.

    .venv/bin/python scripts/build_zh.py --check         # stale and missing entries; exit 1 if any
    .venv/bin/python scripts/build_zh.py --update        # merge the English into the catalogues:
                                                          # new cells get an empty entry, changed
                                                          # ones are marked fuzzy with the old
                                                          # English kept (#| msgid), gone ones
                                                          # become obsolete (#~), as msgmerge does
    UMKIT_BACKEND=sim PYTHONHASHSEED=0 .venv/bin/python scripts/build_zh.py [NOTEBOOK ...]
    ... scripts/build_zh.py --no-execute [NOTEBOOK ...]   # markdown only: outputs kept where the
                                                          # code cell is unchanged

A Chinese notebook is the English one with each markdown cell's text taken from its catalogue
(``i18n/zh/<path under notebooks/, "/" -> "__", no .ipynb>.po``, a gettext catalogue: msgctxt the
cell's id, msgid its English, msgstr the Chinese; format in i18n/zh/README.md);
its code cells are the English cells themselves (same ids, same order, same code), their comments
translated from ``i18n/zh/comments.po`` (see :func:`comment_units`; a comment without an entry
stays English and ``--check`` reports it).  Its outputs
come from executing it on sim in notebooks/zh/, whose ``.umkit-lang`` marker makes umkit print
Chinese there.  A markdown cell with no entry keeps its English text; an entry whose msgid is not
the English cell's text, or that is marked fuzzy (the English changed since it was translated),
is used but reported as stale.  The presenter guide (notebooks/workshop/README.md) is built the same way,
block by heading.  NOTEBOOK arguments are English notebooks (notebooks/03_....ipynb)."""
from __future__ import annotations

import argparse
import copy
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
ZH = NOTEBOOKS / "zh"
CATALOGUES = ROOT / "i18n" / "zh"
MARKDOWN_FILES = ("workshop/README.md",)


def source(cell) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def english_notebooks() -> list[Path]:
    """Every English notebook: notebooks/*.ipynb and the folders below, notebooks/zh/ excepted."""
    return sorted(p for p in NOTEBOOKS.rglob("*.ipynb")
                  if ZH not in p.parents and ".ipynb_checkpoints" not in p.parts)


def rel_of(path: Path) -> str:
    return path.resolve().relative_to(NOTEBOOKS).as_posix()


def catalogue_path(rel: str) -> Path:
    """``03_migration.ipynb`` -> i18n/zh/03_migration.po; ``workshop/README.md`` ->
    i18n/zh/workshop__README.po."""
    stem = rel[:-len(".ipynb")] if rel.endswith(".ipynb") else rel.rsplit(".", 1)[0]
    return CATALOGUES / (stem.replace("/", "__") + ".po")


def load_catalogue(rel: str) -> dict | None:
    """{cell or block id: {"en": the English it was translated from, "zh": its translation,
    "fuzzy": marked as made for older English}} of ``rel``'s catalogue; None without one."""
    from umkit.i18n import POError, read_po
    p = catalogue_path(rel)
    if not p.exists():
        return None
    try:
        entries = read_po(p)
    except POError as e:
        raise SystemExit(f"{p.relative_to(ROOT)}: {e} (format: i18n/zh/README.md)") from None
    return {e.msgctxt: {"en": e.msgid, "zh": e.msgstr, "fuzzy": e.fuzzy}
            for e in entries if e.msgctxt is not None and not e.obsolete}


def update_catalogue(rel: str) -> dict:
    """Merge ``rel``'s English into its catalogue, as msgmerge does: a new unit gets an empty
    entry -- or, when an obsolete entry has its id, or another entry nobody uses any more has
    exactly its English, that translation back (marked fuzzy if the English differs, or if it
    came from another id); a changed one keeps its translation marked fuzzy with the old English
    in ``#| msgid``; a unit the English no longer has becomes obsolete (``#~``, its flags and old
    English kept).  The file is replaced whole (umkit.i18n.write_po).  Returns the counts."""
    from umkit.i18n import Entry, POError, read_po, write_po
    from umkit.i18n.po import header
    p = catalogue_path(rel)
    try:
        old = read_po(p) if p.exists() else [header("zh_CN")]
    except POError as e:
        raise SystemExit(f"{p.relative_to(ROOT)}: {e} (format: i18n/zh/README.md)") from None
    head = [e for e in old if e.msgctxt is None and not e.obsolete]
    live = {e.msgctxt: e for e in old if e.msgctxt is not None and not e.obsolete}
    dead = {e.msgctxt: e for e in old if e.msgctxt is not None and e.obsolete}
    current = units(rel)
    ids = {uid for uid, _ in current}
    # translations no unit of the English will claim by id: a renamed cell may find its own here
    spare = {}
    for e in list(dead.values()) + [e for uid, e in live.items() if uid not in ids]:
        if e.msgstr.strip() and e.msgid not in spare:
            spare[e.msgid] = e
    out, counts = list(head), {"new": 0, "fuzzy": 0, "obsolete": 0, "revived": 0}

    def changed(e, text):
        if e.msgid != text:
            if e.msgstr and not e.fuzzy:
                e.previous = e.msgid
                e.flags = ["fuzzy"] + [f for f in e.flags if f != "fuzzy"]
            e.msgid = text
            counts["fuzzy"] += 1

    for uid, text in current:
        e = live.pop(uid, None)
        if e is None and uid in dead:                  # a cell that came back: its translation too
            e = dead.pop(uid)
            e.obsolete = False
            counts["revived"] += 1
        if e is None and text in spare:                 # a renamed cell: the same English elsewhere
            src = spare.pop(text)
            e = Entry(msgid=text, msgstr=src.msgstr, msgctxt=uid, flags=["fuzzy"],
                      comments=[f"translation carried over from {src.msgctxt}: check it"])
            counts["revived"] += 1
        if e is None:
            out.append(Entry(msgid=text, msgctxt=uid))
            counts["new"] += 1
            continue
        changed(e, text)
        out.append(e)
    for e in live.values():                             # the English no longer has these units
        e.obsolete = True
        counts["obsolete"] += 1
        out.append(e)
    out += list(dead.values())                          # obsolete before, and still not used
    write_po(p, out)
    return counts


# -- markdown files: blocks cut at headings -------------------------------------------------------
def markdown_blocks(text: str) -> list[tuple[str, str]]:
    """``text`` as (id, block) pairs, cut before every heading line outside fenced code; the
    blocks joined give ``text`` back exactly."""
    blocks, cur, fenced = [], [], False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if not fenced and re.match(r"#{1,6}\s", line) and cur:
            blocks.append("".join(cur))
            cur = []
        cur.append(line)
    if cur:
        blocks.append("".join(cur))
    out, seen = [], {}
    for b in blocks:
        first = b.splitlines()[0] if b.strip() else ""
        if re.match(r"#{1,6}\s", first):
            slug = re.sub(r"[^a-z0-9]+", "-", first.lstrip("#").strip().lower()).strip("-") or "s"
        else:
            slug = "top"
        seen[slug] = seen.get(slug, 0) + 1
        out.append((slug if seen[slug] == 1 else f"{slug}-{seen[slug]}", b))
    return out


# -- the report ------------------------------------------------------------------------------------
def units(rel: str) -> list[tuple[str, str]]:
    """The translatable units of an English source: (cell id, text) of its markdown cells, or
    (block id, text) of a markdown file's blocks."""
    path = NOTEBOOKS / rel
    if rel.endswith(".md"):
        return markdown_blocks(path.read_text(encoding="utf-8"))
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [(c["id"], source(c)) for c in nb["cells"] if c["cell_type"] == "markdown"]


def report(rels) -> dict:
    """{rel: {"catalogue": bool, "missing": [ids], "stale": [ids], "extra": [ids]}}: entries
    the English has and the catalogue lacks, entries translated from an older English text, and
    entries for cells the English no longer has."""
    out = {}
    for rel in rels:
        cat = load_catalogue(rel)
        us = units(rel)
        if cat is None:
            out[rel] = {"catalogue": False, "missing": [i for i, _ in us], "stale": [], "extra": []}
            continue
        ids = {i for i, _ in us}
        out[rel] = {
            "catalogue": True,
            "missing": [i for i, t in us if i not in cat or not str(cat[i].get("zh", "")).strip()],
            "stale": [i for i, t in us if i in cat and (cat[i]["fuzzy"] or cat[i]["en"] != t)],
            "extra": sorted(set(cat) - ids),
        }
    return out


def print_report(rep: dict) -> int:
    bad = 0
    for rel, r in rep.items():
        n = len(units(rel))
        if not r["catalogue"]:
            print(f"{rel}: no catalogue ({catalogue_path(rel).relative_to(ROOT)}), {n} to translate")
            bad += 1
            continue
        state = []
        if r["missing"]:
            state.append(f"missing {', '.join(r['missing'])}")
        if r["stale"]:
            state.append(f"stale {', '.join(r['stale'])}")
        if r["extra"]:
            state.append(f"no longer in the English {', '.join(r['extra'])}")
        print(f"{rel}: " + ("; ".join(state) if state else f"all {n} translated and current"))
        bad += bool(r["missing"] or r["stale"] or r["extra"])
    return bad


# -- code comments ---------------------------------------------------------------------------------
COMMENTS = ROOT / "i18n" / "zh" / "comments.po"


def comment_units(source: str) -> list[tuple[str, int, int, str]]:
    """The comments of a code cell as units a translator sees whole: (English text, first line,
    last line, indentation).  A run of full-line comments at one indentation is one unit, its
    lines joined by newlines (a sentence that wraps stays one sentence); a comment after code is a
    unit of its own (its line's indentation is then the code before it).  ``# NBVAL`` markers are
    no comments to translate.  Line numbers count from 0."""
    import io
    import tokenize
    lines = source.splitlines()
    units: list[list] = []
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
                  if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    for t in tokens:
        row, col = t.start[0] - 1, t.start[1]
        if t.string.startswith("# NBVAL"):
            continue
        full = not lines[row][:col].strip()
        prev = units[-1] if units else None
        if full and prev and prev[4] and prev[2] == row - 1 and prev[3] == col:
            prev[0] += "\n" + t.string
            prev[2] = row
        else:
            units.append([t.string, row, row, col, full])
    return [(u[0], u[1], u[2], lines[u[1]][:u[3]]) for u in units]


def translate_comments(source: str, table: dict) -> tuple[str, list[str]]:
    """``source`` with every comment unit that ``table`` (English unit -> Chinese, its lines
    joined by newlines, each line a ``# ...`` comment) translates replaced; returns it and the
    English units without an entry."""
    lines = source.splitlines()
    missing = []
    for text, first, last, indent in reversed(comment_units(source)):
        zh = table.get(text)
        if not zh:
            missing.append(text)
            continue
        zh_lines = [ln if ln.lstrip().startswith("#") else "# " + ln for ln in zh.split("\n")]
        if first == last and lines[first][:len(indent)].strip():      # after code: one line
            lines[first] = lines[first][:len(indent)] + " ".join(zh_lines)
        else:
            lines[first:last + 1] = [indent + ln for ln in zh_lines]
    out = "\n".join(lines) + ("\n" if source.endswith("\n") else "")
    return out, list(reversed(missing))


def comment_report() -> tuple[list[str], list[str]]:
    """(English comment units of the notebooks' code cells without an entry in COMMENTS, entries
    no notebook has any more)."""
    import nbformat
    table = load_comments()
    seen, missing = set(), []
    for path in english_notebooks():
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                for text, *_ in comment_units(cell.source):
                    seen.add(text)
                    if not table.get(text) and text not in missing:
                        missing.append(text)
    return missing, sorted(set(table) - seen)


def load_comments() -> dict:
    """English comment unit -> Chinese, from COMMENTS (fuzzy and empty entries left out)."""
    from umkit.i18n import read_po
    if not COMMENTS.exists():
        return {}
    return {e.msgid: e.msgstr for e in read_po(COMMENTS)
            if e.msgid and e.msgstr and not e.fuzzy and not e.obsolete}


# -- strings a learner sees: figure text, printed lines, prediction keys ---------------------------
STRINGS = ROOT / "i18n" / "zh" / "strings.po"
ENGLISH_WORDS = re.compile(r"[A-Za-z]{2,}[ ,:;()/+-]+[A-Za-z]{2,}")
DISPLAY_CALLS = {"print", "set_title", "set_xlabel", "set_ylabel", "suptitle", "text", "annotate",
                 "predict", "reveal", "residency_map", "combine"}
DISPLAY_KEYWORDS = {"label", "title", "xlabel", "ylabel", "unit"}


def _parse(source: str):
    """``source`` parsed, IPython's ``%magic`` and ``!shell`` lines blanked to comments of the same
    length (offsets stay those of ``source``); None if it is no Python."""
    import ast
    lines = [("#" + ln.lstrip()[1:]).rjust(len(ln)) if ln.lstrip().startswith(("%", "!")) else ln
             for ln in source.split("\n")]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def _string_nodes(tree):
    """The outermost string literals of ``tree`` (an f-string is one literal, the strings inside
    its braces are part of it); a docstring is one too: a learner reads it as a comment."""
    import ast
    inner = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.JoinedStr):
            inner |= {id(m) for m in ast.walk(n) if m is not n}
    return [n for n in ast.walk(tree) if id(n) not in inner and
            (isinstance(n, ast.JoinedStr) or (isinstance(n, ast.Constant) and isinstance(n.value, str)))]


def _literals(source: str):
    """``source``'s syntax tree and its string literals as written: (tree, [(node, text, start,
    end)]) with character offsets into ``source``, in order; (None, []) if it is no Python."""
    tree = _parse(source)
    if tree is None:
        return None, []
    lines = source.split("\n")
    starts, pos = [], 0
    for ln in lines:
        starts.append(pos)
        pos += len(ln) + 1

    def at(row, col_bytes):                       # ast's columns count UTF-8 bytes
        return starts[row - 1] + len(lines[row - 1].encode()[:col_bytes].decode())
    out = []
    for n in _string_nodes(tree):
        a, b = at(n.lineno, n.col_offset), at(n.end_lineno, n.end_col_offset)
        out.append((n, source[a:b], a, b))
    return tree, sorted(out, key=lambda u: u[2])


def string_units(source: str) -> list[tuple[str, int, int]]:
    """The string literals of a code cell, as written: (source text, start, end) with character
    offsets into ``source``, in order.  An f-string is one unit, braces and all; so is an implicit
    concatenation over several lines."""
    return [(text, a, b) for _, text, a, b in _literals(source)[1]]


def _words(node) -> str:
    """The words of a literal a reader sees: its constant parts (and the strings in its braces)."""
    import ast
    return " ".join(m.value for m in ast.walk(node)
                    if isinstance(m, ast.Constant) and isinstance(m.value, str))


def display_units(source: str) -> list[str]:
    """The literals of a code cell that a learner reads in an output: English words in an argument
    of print, a figure's title, label or text, a prediction's name and keys (the calls and keywords
    in DISPLAY_CALLS and DISPLAY_KEYWORDS, and anything else with two English words in a row)."""
    import ast
    tree, literals = _literals(source)
    if tree is None:
        return []
    shown = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            f = n.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            args = list(n.args) if name in DISPLAY_CALLS else []
            args += [k.value for k in n.keywords if k.arg in DISPLAY_KEYWORDS]
            for a in args:
                shown |= {id(m) for m in ast.walk(a)}
    out = []
    for n, unit, _, _ in literals:
        words = _words(n)
        if ENGLISH_WORDS.search(words) or (id(n) in shown and re.search(r"[A-Za-z]{3,}", words)):
            out.append(unit)
    return out


def check_string_entry(msgid: str, msgstr: str) -> str | None:
    """Why ``msgstr`` cannot stand for the literal ``msgid`` in code (None: it can): it must be
    one string literal with the same expressions in its braces, format specs and conversions
    included (in any order: a translation may reorder them); a quoted label in braces, such as a
    table header's ``{'step':>4}``, is text: its words and width may change."""
    import ast
    from collections import Counter

    def shape(text):
        try:
            node = ast.parse("(" + text.strip() + "\n)", mode="eval").body
        except SyntaxError as e:
            return f"not Python ({e.msg})"
        if not (isinstance(node, ast.JoinedStr) or
                (isinstance(node, ast.Constant) and isinstance(node.value, str))):
            return "not one string literal"
        def sig(v):                     # a padded label such as {'step':>4} is text
            if isinstance(v.value, ast.Constant) and isinstance(v.value.value, str):
                return "<a quoted label>"
            return ast.unparse(ast.JoinedStr([v]))
        return Counter(sig(v) for v in getattr(node, "values", ())
                       if isinstance(v, ast.FormattedValue))
    en, zh = shape(msgid), shape(msgstr)
    if isinstance(en, str):
        return f"the English {en}"
    if isinstance(zh, str):
        return f"the translation is {zh}"
    if en != zh:
        return (f"the braces differ: {sorted(en.elements())} in the English, "
                f"{sorted(zh.elements())} in the translation")
    return None


def strings_context(rel: str) -> str:
    """An entry's msgctxt in STRINGS: the notebook, as its catalogue is named."""
    return catalogue_path(rel).stem


def load_strings(rel: str) -> dict:
    """English literal -> Chinese literal for notebook ``rel``, from STRINGS (fuzzy, empty and
    obsolete entries left out; an entry whose translation is no literal with the English's
    braces stops the build)."""
    from umkit.i18n import POError, read_po
    if not STRINGS.exists():
        return {}
    try:
        entries = read_po(STRINGS)
    except POError as e:
        raise SystemExit(f"{STRINGS.relative_to(ROOT)}: {e} (format: i18n/zh/README.md)") from None
    table = {}
    for e in entries:
        if e.msgctxt == strings_context(rel) and e.msgstr and not e.fuzzy and not e.obsolete:
            why = check_string_entry(e.msgid, e.msgstr)
            if why:
                raise SystemExit(f"{STRINGS.relative_to(ROOT)}, {e.msgctxt}, {e.msgid!r}: {why}")
            table[e.msgid] = e.msgstr
    return table


def translate_strings(source: str, table: dict) -> str:
    """``source`` with each string literal that ``table`` (English literal as written -> Chinese
    literal) has replaced; the rest of the code untouched."""
    for unit, a, b in reversed(string_units(source)):
        if unit in table:
            source = source[:a] + table[unit] + source[b:]
    return source


def translate_code(source: str, comments: dict, strings: dict) -> str:
    """A code cell of the Chinese edition: the English code, its shown strings and comments
    translated."""
    return translate_comments(translate_strings(source, strings), comments)[0]


def string_report() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """((notebook, English literal) shown to a learner without an entry in STRINGS, entries no
    notebook has any more)."""
    import nbformat
    from umkit.i18n import read_po
    entries = [e for e in (read_po(STRINGS) if STRINGS.exists() else ())
               if e.msgctxt and not e.obsolete]
    have = {(e.msgctxt, e.msgid) for e in entries}
    done = {(e.msgctxt, e.msgid) for e in entries if e.msgstr and not e.fuzzy}
    seen, missing = set(), []
    for path in english_notebooks():
        ctx = strings_context(rel_of(path))
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            for unit, *_ in string_units(cell.source):
                seen.add((ctx, unit))
            for unit in display_units(cell.source):
                if (ctx, unit) not in done and (ctx, unit) not in missing:
                    missing.append((ctx, unit))
    return missing, sorted(have - seen)


# -- building --------------------------------------------------------------------------------------
def build_notebook(rel: str, execute: bool) -> Path | None:
    import nbformat
    cat = load_catalogue(rel)
    if cat is None:
        return None
    src = NOTEBOOKS / rel
    out = ZH / rel
    nb = nbformat.read(src, as_version=4)
    old, old_meta = {}, None
    if out.exists():
        prev_nb = nbformat.read(out, as_version=4)
        old = {c.get("id"): c for c in prev_nb.cells if c.cell_type == "code"}
        old_meta = prev_nb.metadata
    comments, strings = load_comments(), load_strings(rel)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            entry = cat.get(cell.get("id"))
            if entry and str(entry.get("zh", "")).strip():
                cell.source = entry["zh"]
            continue
        english = cell.source
        if cell.cell_type == "code":
            cell.source = translate_code(cell.source, comments, strings)
        if cell.cell_type == "code" and not execute:
            prev = old.get(cell.get("id"))
            # a comment is no code: outputs made before its translation still belong to the cell
            if prev is not None and prev.source in (cell.source, english):
                cell.outputs = copy.deepcopy(prev.outputs)
                cell.execution_count = prev.get("execution_count")
    if not execute and old_meta is not None:
        # the outputs kept are the Chinese notebook's, so is the metadata that goes with them
        # (widget state, kernel info): never the English notebook's
        nb.metadata = copy.deepcopy(old_meta)
    nb.metadata["umkit"] = {"lang": "zh", "english": os.path.relpath(src, out.parent)}
    out.parent.mkdir(parents=True, exist_ok=True)
    if execute:
        from nbclient import NotebookClient
        NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=False,
                       resources={"metadata": {"path": str(out.parent)}}).execute()
    nbformat.write(nb, out)
    return out


def build_markdown(rel: str) -> Path | None:
    cat = load_catalogue(rel)
    if cat is None:
        return None
    out = ZH / rel
    text = "".join((cat[i]["zh"] if i in cat and str(cat[i].get("zh", "")).strip() else b)
                   for i, b in markdown_blocks((NOTEBOOKS / rel).read_text(encoding="utf-8")))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebooks", nargs="*", help="English notebooks (default: all)")
    ap.add_argument("--check", action="store_true", help="report stale and missing entries only")
    ap.add_argument("--update", action="store_true",
                    help="merge the English into the catalogues (new, fuzzy, obsolete entries)")
    ap.add_argument("--no-execute", action="store_true",
                    help="do not execute: keep the stored outputs of code cells whose code is "
                         "unchanged (comments aside)")
    args = ap.parse_args(argv)
    if args.notebooks:
        rels = [rel_of(Path(p)) for p in args.notebooks]
    else:
        rels = [rel_of(p) for p in english_notebooks()] + list(MARKDOWN_FILES)
    if args.update:
        for rel in rels:
            c = update_catalogue(rel)
            if any(c.values()):
                print(f"{catalogue_path(rel).relative_to(ROOT)}: {c['new']} new, {c['fuzzy']} fuzzy, "
                      f"{c['obsolete']} obsolete, {c['revived']} translations brought back")
        return 0
    bad = print_report(report(rels))
    missing, unused = comment_report()
    if missing or unused:
        print(f"{COMMENTS.relative_to(ROOT)}: {len(missing)} code comments untranslated"
              + "".join(f"\n  missing: {m!r}" for m in missing[:20])
              + "".join(f"\n  no longer in a notebook: {u!r}" for u in unused))
        bad += 1
    else:
        print(f"{COMMENTS.relative_to(ROOT)}: every code comment translated")
    missing_s, unused_s = string_report()
    if missing_s or unused_s:
        print(f"{STRINGS.relative_to(ROOT)}: {len(missing_s)} shown strings untranslated"
              + "".join(f"\n  missing: {c}: {m}" for c, m in missing_s[:20])
              + "".join(f"\n  no longer in a notebook: {c}: {m}" for c, m in unused_s))
        bad += 1
    else:
        print(f"{STRINGS.relative_to(ROOT)}: every shown string translated")
    if args.check:
        return 1 if bad else 0
    execute = not args.no_execute
    if execute and (os.environ.get("UMKIT_BACKEND") != "sim" or
                    os.environ.get("PYTHONHASHSEED") != "0"):
        print("set UMKIT_BACKEND=sim PYTHONHASHSEED=0 (the outputs nbval compares)", file=sys.stderr)
        return 2
    # the exercises open with the notebook's own sets (a learner's kernel draws its own), as nbval
    # runs them (the repository's conftest.py)
    os.environ["UMKIT_EXERCISE_ATTEMPTS"] = "0"
    for rel in rels:
        out = build_markdown(rel) if rel.endswith(".md") else build_notebook(rel, execute)
        if out is not None:
            print(f"built {out.relative_to(ROOT)}" + ("" if execute or rel.endswith(".md")
                                                      else " (not executed)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
