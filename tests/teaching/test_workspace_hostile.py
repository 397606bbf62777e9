"""``umkit workspace`` against what a real disk holds: a FIFO, a directory or a link where a copy
or the manifest goes, a corrupt source notebook, a write cut short.  Each is reported and left
alone, the other copies still sync, nothing hangs, nothing is written outside the workspace."""
from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from umkit.teaching import workspace

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
FIRST, SECOND = "00_start_here.ipynb", "01_umd_and_kmd.ipynb"


@pytest.fixture
def src(tmp_path):
    d = tmp_path / "src"
    d.mkdir()
    for name in (FIRST, SECOND):
        shutil.copy(NOTEBOOKS / name, d / name)
    return d


def _sync_bounded(src, dest, seconds=20):
    """sync() in a thread: a hang (a FIFO opened for reading) fails the test instead of the run."""
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("rep", workspace.sync(src, dest)),
                         daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "workspace.sync hung"
    return out["rep"]


def _problem(rep, rel):
    return dict(rep.problems).get(rel, "")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_at_a_copy_path_is_left_alone(src, tmp_path):
    dest = tmp_path / "ws"
    dest.mkdir()
    os.mkfifo(dest / FIRST)
    rep = _sync_bounded(src, dest)
    assert "not a regular file" in _problem(rep, FIRST)
    assert rep.written == [SECOND] and (dest / SECOND).is_file()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_at_the_manifest_path_does_not_hang(src, tmp_path):
    dest = tmp_path / "ws"
    dest.mkdir()
    os.mkfifo(dest / workspace.MANIFEST)
    rep = _sync_bounded(src, dest)
    assert sorted(rep.written) == [FIRST, SECOND]
    assert "not saved" in _problem(rep, workspace.MANIFEST)


def test_a_directory_at_a_copy_path_and_a_corrupt_source(src, tmp_path):
    dest = tmp_path / "ws"
    (dest / FIRST).mkdir(parents=True)
    (src / "99_broken.ipynb").write_text("{ not json")
    rep = _sync_bounded(src, dest)
    assert "a directory" in _problem(rep, FIRST)
    assert "could not be read" in _problem(rep, "99_broken.ipynb")
    assert rep.written == [SECOND]
    assert "2 skipped" in rep.summary()


def test_a_dangling_link_never_leads_the_write_outside(src, tmp_path):
    dest = tmp_path / "ws"
    dest.mkdir()
    outside = tmp_path / "outside.ipynb"
    os.symlink(outside, dest / FIRST)
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", dest / "solutions")
    (src / "solutions").mkdir()
    (src / "solutions" / "nb00.py").write_text("x = 1\n")
    rep = _sync_bounded(src, dest)
    assert "symbolic link" in _problem(rep, FIRST) and not outside.exists()
    assert "outside the workspace" in _problem(rep, "solutions/nb00.py")
    assert list((tmp_path / "elsewhere").iterdir()) == []
    assert SECOND in rep.written


def test_a_refresh_cut_short_leaves_the_old_copy_and_refreshes_next_time(src, tmp_path,
                                                                         monkeypatch):
    dest = tmp_path / "ws"
    workspace.sync(src, dest)
    before = (dest / FIRST).read_bytes()
    nb = json.loads((src / FIRST).read_text())
    nb["cells"][0]["source"] = ["# changed upstream\n"]
    (src / FIRST).write_text(json.dumps(nb))

    def cut_short(a, b):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(workspace.os, "replace", cut_short)
    rep = workspace.sync(src, dest)
    assert "No space left" in _problem(rep, FIRST)
    assert (dest / FIRST).read_bytes() == before                 # whole, as it was
    assert not [p for p in dest.iterdir() if p.name.endswith(".tmp")]   # no temporary left
    monkeypatch.undo()
    rep = workspace.sync(src, dest)                              # next time: refreshed, not "kept"
    assert rep.updated == [FIRST] and rep.kept == []
    assert "changed upstream" in (dest / FIRST).read_text()


def test_a_manifest_that_is_not_an_object_is_ignored(src, tmp_path):
    dest = tmp_path / "ws"
    dest.mkdir()
    (dest / workspace.MANIFEST).write_text("[1, 2]")
    rep = _sync_bounded(src, dest)
    assert sorted(rep.written) == [FIRST, SECOND] and rep.problems == []
