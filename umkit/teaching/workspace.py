"""The learner workspace: a git-ignored copy of the notebooks with every output cleared, so the
measurement is not already sitting under each "predict" prompt.

``bash run.sh`` (JupyterLab) opens ``workspace/``, made or refreshed from ``notebooks/`` by
:func:`sync`.  The committed notebooks keep their outputs (nbval checks them exactly); the copies
start empty.  A copy the learner has changed is never overwritten: :func:`sync` only writes copies
that are new, or that are still exactly what it wrote last time (a manifest of their hashes lives
in ``workspace/.umkit-workspace.json``).

    umkit workspace                  # notebooks/ -> workspace/, from the repository root
    umkit workspace --src notebooks --dest my-workspace
    umkit workspace --lang zh --dest workspace-zh   # the Chinese edition (notebooks/zh/)

The Chinese workspace takes each notebook and guide from ``notebooks/zh/`` where the Chinese
edition has it (the English one elsewhere), and writes a ``.umkit-lang`` marker so that umkit
prints Chinese there (:mod:`umkit.runtime.lang`); the English workspace leaves ``zh/`` out.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InvalidArgument
from ..results import files

MANIFEST = ".umkit-workspace.json"
#: files besides notebooks that travel along: the exercise solutions, markdown guides and the
#: example files under data/ (a recorded-format profiler file notebook 11 reads)


def _extra(rel: Path) -> bool:
    return (rel.suffix == ".md" or (rel.parts[0] == "solutions" and rel.suffix == ".py")
            or (rel.parts[0] == "data" and len(rel.parts) == 2))


SKIP_DIRS = {".ipynb_checkpoints", "__pycache__"}
#: the editions besides English: the folder under src that holds each
EDITIONS = {"zh": "zh"}


@dataclass
class SyncReport:
    """What :func:`sync` did, by relative path."""
    dest: Path
    written: list = field(default_factory=list)     # new copies
    updated: list = field(default_factory=list)     # untouched copies refreshed from a newer source
    kept: list = field(default_factory=list)        # edited by the learner: left alone
    same: list = field(default_factory=list)        # already up to date
    problems: list = field(default_factory=list)    # (path, why): left alone, the rest synced

    def summary(self) -> str:
        parts = [f"{len(self.written)} new", f"{len(self.updated)} updated",
                 f"{len(self.same)} unchanged"]
        from ..validate import clean          # a file's name is shown, never obeyed
        if self.kept:
            parts.append(f"{len(self.kept)} kept as you edited them "
                         f"({', '.join(clean(k, 300) for k in self.kept)})")
        if self.problems:
            parts.append(f"{len(self.problems)} skipped: " +
                         "; ".join(f"{clean(rel, 300)} ({clean(why, 300)})"
                                   for rel, why in self.problems))
        return f"workspace {clean(self.dest, 300)}: " + ", ".join(parts)


#: the learner docs the notebooks link (the primer, the glossary, the column's notes with its
#: errata, and the AMD source trail the glossary links): copied into the workspace's docs/, since JupyterLab serves only the workspace
#: (a link out of it opens nothing)
LEARNER_DOCS = ("primer.md", "primer.zh-CN.md", "glossary.md", "amd-sources.md", "article.md")
#: a line nbval reads (``# NBVAL_IGNORE_OUTPUT`` ...): for the committed notebooks' tests, not
#: for the learner, so the copies leave it out
_NBVAL_LINE = re.compile(r"^[ \t]*#[ \t]*NBVAL_[A-Z_]+[ \t]*(?:\r?\n|$)", re.M)


def relinked(text: str, depth: int, edition: bool = True) -> str:
    """Markdown ``text`` of a file ``depth`` folders below the workspace's root, with its links
    to the repository's ``docs/`` (``../docs/`` from notebooks/, ``../../docs/`` from an
    edition's notebooks/zh/) pointing at the workspace's own ``docs/`` copy instead."""
    up = "../" * (depth + (2 if edition else 1))
    return text.replace(f"]({up}docs/", f"]({'../' * depth}docs/")


def relinked_doc(text: str) -> str:
    """A learner doc copied into the workspace's ``docs/``: its links to the repository's
    notebooks (``../notebooks/X``, ``../notebooks/zh/X``) point at the workspace's copies, which
    sit at its root (``../X``)."""
    return text.replace("](../notebooks/zh/", "](../").replace("](../notebooks/", "](../")


def for_learner(source: str, cell_type: str, depth: int) -> str:
    """A cell's text as the learner's copy shows it, ``depth`` folders below the workspace's
    root: a solution named by its repository path (``notebooks/solutions/X``) is named where the
    workspace holds it (``solutions/X``), and a code cell loses nbval's marker lines."""
    source = source.replace("notebooks/solutions/", "../" * depth + "solutions/")
    if cell_type == "code":
        source = _NBVAL_LINE.sub("", source)
    return source


def docs_source(src: Path) -> Path | None:
    """Where the learner docs are: ``docs/`` beside the notebooks' folder (the repository), else
    the copy installed with umkit (``umkit/_docs``)."""
    for d in (Path(src).parent / "docs", Path(__file__).resolve().parents[1] / "_docs"):
        if d.is_dir():
            return d
    return None


def cleared(src, relink_depth: int | None = None, edition: bool = True) -> str:
    """The notebook at ``src`` as JSON text with every output, execution count and widget state
    removed (what a learner should open: nothing measured yet).  ``relink_depth``: the copy lies
    that many folders below the workspace's root (``edition``: it comes from notebooks/zh/); its
    markdown links to ``docs/`` are rewritten to the workspace's docs/ (:func:`relinked`), and
    each cell reads as the workspace has it (:func:`for_learner`)."""
    import nbformat
    nb = nbformat.read(str(src), as_version=4)
    for cell in nb.cells:
        if relink_depth is not None and cell.cell_type == "markdown":
            cell.source = relinked(cell.source, relink_depth, edition)
        if relink_depth is not None and cell.cell_type in ("markdown", "code"):
            cell.source = for_learner(cell.source, cell.cell_type, relink_depth)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        for key in ("execution", "collapsed", "scrolled"):
            cell.metadata.pop(key, None)
    nb.metadata.pop("widgets", None)
    return nbformat.writes(nb) + "\n"


def _sha(text: str | bytes) -> str:
    data = text.encode() if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def _sources(src: Path, lang: str = "en"):
    for p in sorted(src.rglob("*")):
        rel_parts = p.relative_to(src).parts
        if SKIP_DIRS.intersection(rel_parts) or p.is_symlink() or not p.is_file():
            continue         # only regular files of the source tree itself (no links, no FIFOs)
        if rel_parts[0] in EDITIONS.values():
            continue         # another edition's copy: taken in its place below, never as itself
        rel = p.relative_to(src).as_posix()
        if lang in EDITIONS:
            other = src / EDITIONS[lang] / rel
            if other.is_file() and not other.is_symlink():
                p = other
        if p.suffix == ".ipynb":
            yield rel, p, True
        elif _extra(p.relative_to(src)):
            yield rel, p, False


def _kind(path: Path) -> str | None:
    """None when nothing is at ``path``; 'file' for a regular file (not a link); else what is
    there (a link, a directory, a FIFO...), which sync never opens or writes through."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def _write_atomic(out: Path, data: bytes, unchanged: tuple | None = None) -> bool:
    """Write ``data`` over ``out`` through the kit's atomic writer (a temporary file beside it,
    renamed into place): a write cut short (a kill, a full disk) leaves the old file or none,
    never half of one; a failure is a WriteFailed, an OSError.  ``unchanged``: the file's
    identity when it was read (``files.identity``; None: there was none) -- a file saved there
    meanwhile (the learner's JupyterLab) is kept, and False is returned."""
    try:
        if unchanged is None:
            files.write(out, data, argument="dest", exists="refuse")
        else:
            files.write(out, data, argument="dest", exists="replace", unchanged=unchanged)
    except files.AlreadyExists:
        return False
    return True


def _inside(path: Path, root: Path) -> bool:
    """Is ``path``'s folder, links resolved, inside ``root`` (resolved)?"""
    try:
        return path.parent.resolve().is_relative_to(root)
    except (OSError, RuntimeError):
        return False


def packaged_notebooks() -> Path:
    """The notebooks installed with umkit: ``umkit/_notebooks/`` in an installed copy (setup.py
    puts them there), ``notebooks/`` beside the package in the repository (an editable install)."""
    package = Path(__file__).resolve().parents[1]
    installed = package / "_notebooks"
    return installed if installed.is_dir() else package.parent / "notebooks"


def default_src() -> Path:
    """``notebooks/`` in the current folder when it holds the course (the repository root), else
    the notebooks installed with umkit."""
    here = Path("notebooks")
    if (here / "00_start_here.ipynb").is_file():
        return here
    return packaged_notebooks()


def sync(src=None, dest="workspace", lang: str = "en") -> SyncReport:
    """Make or refresh ``dest`` from the notebooks under ``src`` (default :func:`default_src`;
    outputs cleared).  New copies are
    written; a copy still exactly as written last time is refreshed when its source changed; a
    copy the learner changed is kept as it is.  ``lang="zh"``: the Chinese edition, with its
    language marker.  Returns a :class:`SyncReport`."""
    from .. import validate as V
    if src is None:
        src = default_src()
    src, dest = V.path(src, "src"), V.path(dest, "dest")
    V.string(lang, "lang", hint="e.g. lang='zh'")
    if lang != "en" and lang not in EDITIONS:
        raise InvalidArgument(f"lang={V.shown(lang)}: the notebooks exist in en and "
                              f"{', '.join(EDITIONS)}", argument="lang", hint="e.g. lang='zh'")
    if not src.is_dir():
        raise InvalidArgument(f"src={V.shown(str(src), 200)} is not a directory", argument="src",
                              hint="run from the repository root, or pass src='path/to/notebooks'")
    try:
        inside = dest.resolve() == src.resolve() or src.resolve() in dest.resolve().parents
    except (OSError, RuntimeError) as e:      # RuntimeError: a loop of symbolic links
        raise InvalidArgument(f"dest={V.shown(str(dest), 200)} or src={V.shown(str(src), 200)} "
                              f"cannot be followed ({getattr(e, 'strerror', None) or 'a loop of links'})",
                              argument="dest", hint="name plain folders") from None
    if inside:
        raise InvalidArgument(f"dest={V.shown(str(dest), 200)} must lie outside "
                              f"src={V.shown(str(src), 200)}",
                              argument="dest", hint="e.g. dest='workspace'")
    if dest.exists() and not dest.is_dir():
        raise InvalidArgument(f"dest={V.shown(str(dest), 200)} exists and is not a directory",
                              argument="dest", hint="e.g. dest='workspace'")
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InvalidArgument(f"dest={V.shown(str(dest), 200)} cannot be made ({e.strerror})",
                              argument="dest", hint="pick a folder you can write") from None
    mpath = dest / MANIFEST
    manifest = {}
    m_identity = None                         # the record as read (None: there was none)
    if _kind(mpath) == "file":
        m_identity = files.identity(mpath)
        try:
            manifest = json.loads(mpath.read_text())
        except (OSError, ValueError, RecursionError):     # a manifest nested too deep: none
            manifest = {}
        if not isinstance(manifest, dict):
            manifest = {}
    rep = SyncReport(dest)
    root = dest.resolve()
    edition = src / EDITIONS[lang] if lang in EDITIONS else None
    todo = list(_sources(src, lang))
    docs = docs_source(src)
    if docs is not None:                  # the primer and glossary the notebooks link
        todo += [(f"docs/{n}", docs / n, False) for n in LEARNER_DOCS if (docs / n).is_file()]
    for rel, path, is_nb in todo:
        is_doc = rel.startswith("docs/")
        depth = None if is_doc else rel.count("/")
        try:
            _sync_one(rel, path, is_nb, dest / rel, root, manifest, rep, depth,
                      edition is not None and edition in path.parents)
        except Exception as e:          # one bad file is reported; the others still sync
            rep.problems.append((rel, _why(e)))
    from ..runtime.lang import MARKER
    if lang in EDITIONS:                      # umkit prints this language in the workspace
        kind = _kind(dest / MARKER)
        if kind is None:                      # written once; a learner's edit is kept after
            try:
                files.write(dest / MARKER, f"{lang}\n", argument="dest", exists="refuse")
            except files.AlreadyExists:       # made meanwhile: that one is kept
                pass
            except OSError as e:
                rep.problems.append((MARKER, _why(e)))
        elif kind != "file":
            rep.problems.append((MARKER, "not a regular file: the language marker was not written"))
    else:                                     # English: a marker the kit wrote for another
        marker = dest / MARKER                # edition would keep umkit printing that language
        if _kind(marker) == "file":
            try:
                was = marker.read_bytes()[:64]
                if was.decode("utf-8", "replace") in {f"{x}\n" for x in EDITIONS}:
                    files.write(marker, f"{lang}\n", argument="dest", exists="replace",
                                unchanged=files.identity(marker))
            except (OSError, files.AlreadyExists) as e:
                rep.problems.append((MARKER, _why(e)))
    kind = _kind(mpath)
    if kind not in (None, "file"):
        rep.problems.append((MANIFEST, f"{kind}: the record of untouched copies was not saved"))
    else:
        try:
            # replaces the record read above (a record another sync saved meanwhile is kept)
            _write_atomic(mpath, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode(),
                          unchanged=m_identity)
        except OSError as e:
            rep.problems.append((MANIFEST, _why(e)))
    return rep


def _why(e: Exception) -> str:
    if isinstance(e, OSError):
        return e.strerror or type(e).__name__
    return f"{type(e).__name__}: {str(e)[:120]}"


def _sync_one(rel, path, is_nb, out: Path, root: Path, manifest: dict, rep: SyncReport,
              relink_depth: int | None = None, edition: bool = False):
    if not _inside(out, root):
        rep.problems.append((rel, "its folder leads outside the workspace (a link)"))
        return
    kind = _kind(out)
    if kind not in (None, "file"):
        rep.problems.append((rel, f"{kind} is there: left alone"))
        return
    try:
        if is_nb:
            new = cleared(path, relink_depth, edition).encode()
        elif relink_depth is not None and path.suffix == ".md":
            new = relinked(path.read_text(encoding="utf-8"), relink_depth, edition).encode("utf-8")
        elif rel.startswith("docs/") and path.suffix == ".md":
            new = relinked_doc(path.read_text(encoding="utf-8")).encode("utf-8")
        else:
            new = path.read_bytes()
    except Exception as e:
        rep.problems.append((rel, f"the source could not be read ({_why(e)})"))
        return
    new_sha = _sha(new)
    if kind is None:
        out.parent.mkdir(parents=True, exist_ok=True)
        if _write_atomic(out, new):
            manifest[rel] = new_sha
            rep.written.append(rel)
        else:                                  # the learner made it meanwhile: theirs
            rep.kept.append(rel)
        return
    seen = files.identity(out)
    have = _sha(out.read_bytes())
    if have == new_sha:
        manifest[rel] = new_sha
        rep.same.append(rel)
    elif manifest.get(rel) == have and seen is not None and \
            _write_atomic(out, new, unchanged=seen):  # untouched since we wrote it: refresh
        manifest[rel] = new_sha
        rep.updated.append(rel)
    else:                                      # edited (before or while we ran): theirs
        rep.kept.append(rel)


def main(args) -> int:
    rep = sync(args.src, args.dest, getattr(args, "lang", "en") or "en")
    if not args.quiet or rep.kept or rep.problems:
        print(rep.summary(), file=sys.stderr if rep.problems else sys.stdout)
    return 1 if rep.problems else 0      # a copy that could not be written is a failed action
