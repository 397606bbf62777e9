"""The learner workspace: a git-ignored copy of the notebooks with every output cleared, so the
measurement is not already sitting under each "predict" prompt.

``bash run.sh`` (JupyterLab) opens ``workspace/``, made or refreshed from ``notebooks/`` by
:func:`sync`.  The committed notebooks keep their outputs (nbval checks them exactly); the copies
start empty.  A copy the learner has changed is never overwritten: :func:`sync` only writes copies
that are new, or that are still exactly what it wrote last time (a manifest of their hashes lives
in ``workspace/.umkit-workspace.json``).

    umkit workspace                  # notebooks/ -> workspace/, from the repository root
    umkit workspace --src notebooks --dest my-workspace
"""
from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InvalidArgument

MANIFEST = ".umkit-workspace.json"
#: files besides notebooks that travel along: the exercise solutions and markdown guides


def _extra(rel: Path) -> bool:
    return rel.suffix == ".md" or (rel.parts[0] == "solutions" and rel.suffix == ".py")


SKIP_DIRS = {".ipynb_checkpoints", "__pycache__"}


@dataclass
class SyncReport:
    """What :func:`sync` did, by relative path."""
    dest: Path
    written: list = field(default_factory=list)     # new copies
    updated: list = field(default_factory=list)     # untouched copies refreshed from a newer source
    kept: list = field(default_factory=list)        # edited by the learner: left alone
    same: list = field(default_factory=list)        # already up to date

    def summary(self) -> str:
        parts = [f"{len(self.written)} new", f"{len(self.updated)} updated",
                 f"{len(self.same)} unchanged"]
        if self.kept:
            parts.append(f"{len(self.kept)} kept as you edited them ({', '.join(self.kept)})")
        return f"workspace {self.dest}: " + ", ".join(parts)


def cleared(src) -> str:
    """The notebook at ``src`` as JSON text with every output, execution count and widget state
    removed (what a learner should open: nothing measured yet)."""
    import nbformat
    nb = nbformat.read(str(src), as_version=4)
    for cell in nb.cells:
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


def _sources(src: Path):
    for p in sorted(src.rglob("*")):
        if not p.is_file() or SKIP_DIRS.intersection(p.relative_to(src).parts):
            continue
        rel = p.relative_to(src).as_posix()
        if p.suffix == ".ipynb":
            yield rel, p, True
        elif _extra(p.relative_to(src)):
            yield rel, p, False


def sync(src="notebooks", dest="workspace") -> SyncReport:
    """Make or refresh ``dest`` from the notebooks under ``src`` (outputs cleared).  New copies are
    written; a copy still exactly as written last time is refreshed when its source changed; a
    copy the learner changed is kept as it is.  Returns a :class:`SyncReport`."""
    from . import validators as V
    src, dest = V.path(src, "src"), V.path(dest, "dest")
    if not src.is_dir():
        raise InvalidArgument(f"src={str(src)!r} is not a directory", argument="src",
                              hint="run from the repository root, or pass src='path/to/notebooks'")
    if dest.resolve() == src.resolve() or src.resolve() in dest.resolve().parents:
        raise InvalidArgument(f"dest={str(dest)!r} must lie outside src={str(src)!r}",
                              argument="dest", hint="e.g. dest='workspace'")
    if dest.exists() and not dest.is_dir():
        raise InvalidArgument(f"dest={str(dest)!r} exists and is not a directory",
                              argument="dest", hint="e.g. dest='workspace'")
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InvalidArgument(f"dest={str(dest)!r} cannot be made ({e.strerror})",
                              argument="dest", hint="pick a folder you can write") from None
    mpath = dest / MANIFEST
    try:
        manifest = json.loads(mpath.read_text()) if mpath.exists() else {}
    except (OSError, ValueError):
        manifest = {}
    rep = SyncReport(dest)
    for rel, path, is_nb in _sources(src):
        new = cleared(path) if is_nb else path.read_bytes()
        new_sha = _sha(new)
        out = dest / rel
        if not out.exists():
            out.parent.mkdir(parents=True, exist_ok=True)
            (out.write_text(new) if is_nb else shutil.copyfile(path, out))
            manifest[rel] = new_sha
            rep.written.append(rel)
            continue
        have = _sha(out.read_bytes())
        if have == new_sha:
            manifest[rel] = new_sha
            rep.same.append(rel)
        elif manifest.get(rel) == have:           # untouched since we wrote it: refresh
            out.write_text(new) if is_nb else shutil.copyfile(path, out)
            manifest[rel] = new_sha
            rep.updated.append(rel)
        else:
            rep.kept.append(rel)
    mpath.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return rep


def main(args) -> int:
    rep = sync(args.src, args.dest)
    if not args.quiet or rep.kept:
        print(rep.summary())
    return 0
