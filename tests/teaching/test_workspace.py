"""The learner workspace: copies of the notebooks with no outputs (the predictions are not spoiled),
refreshed when untouched, never overwriting a learner's edits; and ``bash run.sh lab`` serving it
on a fresh copy of the repository (as root when the tests run as root)."""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from repo_tools import copy_repo, stop_group

from umkit import InvalidArgument
from umkit.teaching import workspace

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"


def _outputs(path: Path) -> int:
    nb = nbformat.read(str(path), as_version=4)
    return sum(len(c.get("outputs", [])) + (c.get("execution_count") is not None)
               for c in nb.cells if c.cell_type == "code")


def test_committed_notebooks_have_outputs_the_copies_none(tmp_path):
    dest = tmp_path / "ws"
    rep = workspace.sync(NOTEBOOKS, dest)
    nbs = sorted(NOTEBOOKS.rglob("*.ipynb"))
    english = lambda p: p.relative_to(NOTEBOOKS).parts[0] != "zh"   # zh/: the Chinese workspace's
    nbs = [p for p in nbs if ".ipynb_checkpoints" not in p.parts and english(p)]
    assert sorted(rep.written) == sorted(
        [p.relative_to(NOTEBOOKS).as_posix() for p in nbs]
        + [p.relative_to(NOTEBOOKS).as_posix() for p in NOTEBOOKS.rglob("*")
           if p.is_file() and english(p)
           and (p.suffix == ".md" or (p.parent.name == "solutions" and p.suffix == ".py")
                or p.parent.name == "data")]
        + [f"docs/{n}" for n in workspace.LEARNER_DOCS])
    assert sum(_outputs(p) for p in nbs) > 0              # nbval's reference outputs are there
    for p in nbs:
        copy = dest / p.relative_to(NOTEBOOKS)
        assert _outputs(copy) == 0, copy
        a, b = nbformat.read(str(p), 4), nbformat.read(str(copy), 4)
        assert [workspace.for_learner(workspace.relinked(c.source, 0, False)
                                      if c.cell_type == "markdown" else c.source, c.cell_type, 0)
                for c in a.cells] == [c.source for c in b.cells]   # same text, docs/ links local
        assert "widgets" not in b.metadata
    assert (dest / "solutions" / "00_start_here.py").exists()
    assert "](docs/primer.md)" in (dest / "00_start_here.ipynb").read_text()  # served by the lab
    assert (dest / "docs" / "primer.md").is_file()
    assert (dest / "data" / "rocpd_example.db").read_bytes() == (
        NOTEBOOKS / "data" / "rocpd_example.db").read_bytes()     # binary example files too


_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _relative_links(text: str):
    for target in _LINK.findall(text):
        if not re.match(r"[a-z][a-z0-9+.-]*:|#", target):     # not a URL, not this file's anchor
            yield target.split("#")[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_relative_link_in_the_workspace_resolves(tmp_path, lang):
    """The lab serves only the workspace: every link of a copied notebook or doc (the primer's
    link back to notebook 00, the glossary's to amd-sources.md) names a file inside it."""
    dest = tmp_path / "ws"
    rep = workspace.sync(NOTEBOOKS, dest, lang=lang)
    assert not rep.problems
    dead = []
    for f in sorted(dest.rglob("*")):
        if f.suffix == ".ipynb":
            text = "\n".join(c.source for c in nbformat.read(str(f), 4).cells if c.cell_type == "markdown")
        elif f.suffix == ".md":
            text = f.read_text(encoding="utf-8")
        else:
            continue
        for target in _relative_links(text):
            t = (f.parent / target).resolve()
            if not t.is_relative_to(dest.resolve()) or not t.exists():
                dead.append(f"{f.relative_to(dest)} -> {target}")
    assert not dead, dead
    primer = (dest / "docs" / "primer.md").read_text(encoding="utf-8")
    assert "](../00_start_here.ipynb)" in primer
    assert (dest / "docs" / "amd-sources.md").is_file()


def test_copies_name_solutions_where_the_workspace_has_them_and_hide_nbval_markers(tmp_path):
    dest = tmp_path / "ws"
    workspace.sync(NOTEBOOKS, dest)
    originals = [p for p in NOTEBOOKS.glob("*.ipynb")]
    assert any("# NBVAL_IGNORE_OUTPUT" in p.read_text(encoding="utf-8") for p in originals)
    assert any("notebooks/solutions/" in p.read_text(encoding="utf-8") for p in originals)
    for p in originals:
        copy = nbformat.read(str(dest / p.name), 4)
        for c in copy.cells:
            assert "NBVAL_" not in c.source, (p.name, c.source[:80])
            assert "notebooks/solutions/" not in c.source, p.name
            for name in re.findall(r"solutions/([\w.]+\.py)", c.source):
                assert (dest / "solutions" / name).is_file(), (p.name, name)
    # the committed notebooks keep the marker (nbval reads it), and the copy keeps the code below it
    cell = "# NBVAL_IGNORE_OUTPUT\nx = 1\n"
    assert workspace.for_learner(cell, "code", 0) == "x = 1\n"
    assert workspace.for_learner(cell, "markdown", 0) == cell
    assert workspace.for_learner("see `notebooks/solutions/06_x.py`", "markdown", 1) == "see `../solutions/06_x.py`"


def test_edited_copies_are_kept_untouched_ones_refreshed(tmp_path):
    src, dest = tmp_path / "src", tmp_path / "ws"
    src.mkdir()
    for name in ("a.ipynb", "b.ipynb"):
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell("1 + 1", outputs=[nbformat.v4.new_output(
            "execute_result", {"text/plain": "2"}, execution_count=1)], execution_count=1)]
        nbformat.write(nb, str(src / name))
    assert sorted(workspace.sync(src, dest).written) == ["a.ipynb", "b.ipynb"]
    # the learner edits a.ipynb; then both sources change
    edited = nbformat.read(str(dest / "a.ipynb"), 4)
    edited.cells[0].source = "my guess = 3"
    nbformat.write(edited, str(dest / "a.ipynb"))
    for name in ("a.ipynb", "b.ipynb"):
        nb = nbformat.read(str(src / name), 4)
        nb.cells.append(nbformat.v4.new_markdown_cell("new text"))
        nbformat.write(nb, str(src / name))
    rep = workspace.sync(src, dest)
    assert rep.kept == ["a.ipynb"] and rep.updated == ["b.ipynb"]
    assert nbformat.read(str(dest / "a.ipynb"), 4).cells[0].source == "my guess = 3"
    assert nbformat.read(str(dest / "b.ipynb"), 4).cells[-1].source == "new text"
    assert "kept as you edited them" in rep.summary()
    # a deleted copy comes back
    (dest / "b.ipynb").unlink()
    assert workspace.sync(src, dest).written == ["b.ipynb"]


def test_bad_paths_are_typed_errors(tmp_path):
    with pytest.raises(InvalidArgument, match="src="):
        workspace.sync(tmp_path / "missing", tmp_path / "ws")
    with pytest.raises(InvalidArgument, match="outside"):
        workspace.sync(NOTEBOOKS, NOTEBOOKS / "ws")


# -- bash run.sh lab, on a fresh copy of the repository ---------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_run_sh_lab_serves_the_cleared_workspace(tmp_path):
    """``bash run.sh lab --no-browser --port N --IdentityProvider.token=''`` (as root when the tests run
    as root: run.sh must add --allow-root) serves workspace/, and the notebooks it serves carry no
    outputs.  The venv is this interpreter's (UMKIT_SKIP_INSTALL: the install itself is what
    ``bash test.sh`` just did)."""
    if shutil.which("git") is None:
        pytest.skip("git is needed to copy the repository's files")
    pytest.importorskip("jupyterlab")
    repo = copy_repo(tmp_path / "repo")
    venv = Path(sys.executable).parent.parent
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH")}
    env.update(UMKIT_VENV=str(venv), UMKIT_SKIP_INSTALL="1", HOME=str(tmp_path / "home"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    log = open(tmp_path / "lab.log", "w+")
    proc = subprocess.Popen(["bash", "run.sh", "lab", "--no-browser", f"--port={port}",
                             "--IdentityProvider.token=", "--ServerApp.port_retries=0",
                             "--ServerApp.ip=127.0.0.1"],
                            cwd=repo, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)

    def get(path):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            return json.loads(r.read())
    try:
        deadline, listing = time.monotonic() + 90, None
        while listing is None:
            if proc.poll() is not None:
                log.flush()
                pytest.fail(f"run.sh lab exited with {proc.returncode}:\n{(tmp_path / 'lab.log').read_text()[-3000:]}")
            assert time.monotonic() < deadline, (tmp_path / "lab.log").read_text()[-3000:]
            try:
                listing = get("/api/contents")
            except OSError:
                time.sleep(0.3)
        names = {c["name"] for c in listing["content"]}
        assert "00_start_here.ipynb" in names and "03_migration_prefetch_advice.ipynb" in names
        assert (repo / "workspace" / "00_start_here.ipynb").exists()
        for name in ("00_start_here.ipynb", "05_concurrent_access_pingpong.ipynb"):
            nb = get(f"/api/contents/{name}?content=1")["content"]
            code = [c for c in nb["cells"] if c["cell_type"] == "code"]
            assert code and all(not c["outputs"] and c["execution_count"] is None for c in code), name
        assert _outputs(repo / "notebooks" / "05_concurrent_access_pingpong.ipynb") > 0
        # the URL run.sh prints opens the first notebook, not the Launcher
        log.flush()
        printed = re.findall(rf"http://127\.0\.0\.1:{port}/\S*", (tmp_path / "lab.log").read_text())
        assert printed and all(u.split("?")[0].endswith("/lab/tree/00_start_here.ipynb")
                               for u in printed), printed
        with urllib.request.urlopen(printed[0], timeout=10) as r:
            assert r.status == 200 and b"JupyterLab" in r.read()
    finally:
        stop_group(proc, grace=20)
        log.close()


def test_a_sync_killed_mid_write_leaves_nothing_the_next_sync_does_not_clean(tmp_path):
    """The copies go through the kit's atomic writer: a temporary file a killed sync left
    (umkit's name, a process that is gone) is removed by the next sync; the copies are
    readable by the learner's group as a plain file would be (not 0600)."""
    src, dest = tmp_path / "src", tmp_path / "ws"
    src.mkdir()
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")]),
                   str(src / "a.ipynb"))
    dest.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    left = dest / f".a.ipynb~umkit-{dead}-x1y2.tmp"
    left.write_text("half a notebook")
    old = time.time() - 60
    os.utime(left, (old, old))
    assert workspace.sync(src, dest).written == ["a.ipynb"]
    assert not left.exists()
    assert sorted(p.name for p in dest.iterdir() if p.name.endswith(".tmp")) == []
    mode = (dest / "a.ipynb").stat().st_mode & 0o777
    assert mode == 0o666 & ~_umask(), oct(mode)


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


def test_a_save_the_learner_makes_while_the_sync_runs_is_kept(tmp_path, monkeypatch):
    """AT4: the sync read a copy, found it untouched, and renamed the refreshed notebook over a
    save the learner made in between.  The save here lands at the worst moment: just before the
    sync's write (files.write is the one writer)."""
    from umkit.results import files
    src, dest = tmp_path / "src", tmp_path / "ws"
    src.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("1 + 1")]
    nbformat.write(nb, str(src / "a.ipynb"))
    nbformat.write(nb, str(src / "new.ipynb"))
    workspace.sync(src, dest)
    (dest / "new.ipynb").unlink()
    nb.cells.append(nbformat.v4.new_markdown_cell("new text"))       # the sources change
    nbformat.write(nb, str(src / "a.ipynb"))
    nbformat.write(nb, str(src / "new.ipynb"))
    real_write = files.write

    def learner_saves_first(path, data, **kw):
        mine = nbformat.v4.new_notebook()
        mine.cells = [nbformat.v4.new_code_cell("my work")]
        tmp = Path(str(path) + ".jupyter-save")
        nbformat.write(mine, str(tmp))
        os.replace(tmp, path)                          # JupyterLab's own atomic save
        return real_write(path, data, **kw)
    monkeypatch.setattr(files, "write", learner_saves_first)
    rep = workspace.sync(src, dest)
    assert sorted(rep.kept) == ["a.ipynb", "new.ipynb"], rep
    for name in ("a.ipynb", "new.ipynb"):
        assert nbformat.read(str(dest / name), 4).cells[0].source == "my work"
    # identity: a replaced file is another one
    p = tmp_path / "x.txt"
    p.write_text("1")
    before = files.identity(p)
    p.write_text("22")
    with pytest.raises(files.AlreadyExists):
        real_write(p, "333", exists="replace", unchanged=before)
    assert p.read_text() == "22" and files.identity(tmp_path / "nothing") is None
