"""The Chinese workspace (``umkit workspace --lang zh``, what ``bash run.sh --lang zh`` opens): the
Chinese edition's notebooks where there is one, the English ones elsewhere, the solutions, and a
marker that makes umkit print Chinese there; the English workspace leaves the Chinese edition out."""
from __future__ import annotations

import json

import pytest

from umkit.errors import InvalidArgument
from umkit.teaching import workspace


def _nb(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": [{"cell_type": "markdown", "id": "m", "metadata": {},
                                           "source": text}],
                                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


@pytest.fixture
def src(tmp_path):
    s = tmp_path / "notebooks"
    _nb(s / "00_start.ipynb", "# Start")
    _nb(s / "01_next.ipynb", "# Next")
    _nb(s / "zh" / "00_start.ipynb", "# 开始")
    (s / "zh" / ".umkit-lang").write_text("zh\n")
    (s / "solutions").mkdir()
    (s / "solutions" / "00_start.py").write_text("x = 1\n")
    return s


def _md(path):
    return "".join(json.loads(path.read_text())["cells"][0]["source"])


def test_the_chinese_workspace_takes_the_chinese_edition(src, tmp_path):
    dest = tmp_path / "workspace-zh"
    rep = workspace.sync(src, dest, lang="zh")
    assert _md(dest / "00_start.ipynb") == "# 开始"
    assert _md(dest / "01_next.ipynb") == "# Next"            # not translated yet: English
    assert (dest / "solutions" / "00_start.py").exists()
    assert not (dest / "zh").exists()
    assert (dest / ".umkit-lang").read_text().strip() == "zh"
    assert sorted(rep.written) == ["00_start.ipynb", "01_next.ipynb", "solutions/00_start.py"]


def test_the_english_workspace_leaves_the_chinese_edition_out(src, tmp_path):
    dest = tmp_path / "workspace"
    workspace.sync(src, dest)
    assert _md(dest / "00_start.ipynb") == "# Start"
    assert not (dest / "zh").exists() and not (dest / ".umkit-lang").exists()


def test_a_language_it_does_not_have_is_refused(src, tmp_path):
    with pytest.raises(InvalidArgument) as e:
        workspace.sync(src, tmp_path / "w", lang="fr")
    assert e.value.argument == "lang"


@pytest.mark.slow
def test_run_sh_lang_zh_serves_the_chinese_workspace_in_chinese(tmp_path):
    """``bash run.sh --lang zh`` on a copy of the repository: JupyterLab serves workspace-zh/ (the
    Chinese notebooks, outputs cleared, the language marker) with its locale set to zh_CN."""
    import os
    import shutil
    import socket
    import subprocess
    import sys
    import time
    import urllib.request
    from pathlib import Path

    from repo_tools import copy_repo, stop_group
    if shutil.which("git") is None:
        pytest.skip("git is needed to copy the repository's files")
    pytest.importorskip("jupyterlab")
    repo = copy_repo(tmp_path / "repo")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k not in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH")}
    env.update(UMKIT_VENV=str(Path(sys.executable).parent.parent), UMKIT_SKIP_INSTALL="1",
               HOME=str(tmp_path / "home"), JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    log = open(tmp_path / "lab.log", "w+")
    proc = subprocess.Popen(["bash", "run.sh", "--lang", "zh", "--no-browser", f"--port={port}",
                             "--IdentityProvider.token=", "--ServerApp.port_retries=0",
                             "--ServerApp.ip=127.0.0.1"], cwd=repo, env=env, stdout=log,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True)

    def get(path):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            return json.loads(r.read())
    try:
        deadline, listing = time.monotonic() + 90, None
        while listing is None:
            if proc.poll() is not None:
                pytest.fail(f"run.sh --lang zh exited with {proc.returncode}:\n"
                            f"{(tmp_path / 'lab.log').read_text()[-3000:]}")
            assert time.monotonic() < deadline, (tmp_path / "lab.log").read_text()[-3000:]
            try:
                listing = get("/api/contents")
            except OSError:
                time.sleep(0.3)
        assert "00_start_here.ipynb" in {c["name"] for c in listing["content"]}
        assert (repo / "workspace-zh" / ".umkit-lang").read_text().strip() == "zh"
        nb = get("/api/contents/00_start_here.ipynb?content=1")["content"]
        assert "学习目标" in "".join(nb["cells"][0]["source"])
        assert all(not c["outputs"] for c in nb["cells"] if c["cell_type"] == "code")
        setting = get("/lab/api/settings/@jupyterlab/translation-extension:plugin")
        assert setting["schema"]["properties"]["locale"]["default"] == "zh_CN", setting["schema"]
    finally:
        stop_group(proc)
        log.close()


def test_a_chinese_notebook_copied_to_the_workspace_links_docs_correctly(src, tmp_path):
    # in the repository notebooks/zh/00_start.ipynb climbs two folders to docs/; JupyterLab
    # serves only the workspace, so the learner docs are copied into workspace-zh/docs/ and the
    # links point there
    _nb(src / "zh" / "00_start.ipynb",
        "见[入门](../../docs/primer.zh-CN.md)和[术语表](../../docs/glossary.md)；"
        "[下一课](01_next.ipynb)")
    _nb(src / "01_next.ipynb", "[primer](../docs/primer.md)")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "primer.zh-CN.md").write_text("入门")
    (tmp_path / "docs" / "glossary.md").write_text("glossary")
    dest = tmp_path / "workspace-zh"
    workspace.sync(src, dest, lang="zh")
    text = _md(dest / "00_start.ipynb")
    assert text == "见[入门](docs/primer.zh-CN.md)和[术语表](docs/glossary.md)；[下一课](01_next.ipynb)"
    for link in ("docs/primer.zh-CN.md", "docs/glossary.md"):
        assert (dest / link).resolve().is_file() and dest.resolve() in (dest / link).resolve().parents
    assert _md(dest / "01_next.ipynb") == "[primer](docs/primer.md)"
    assert "../../docs/" in _md(src / "zh" / "00_start.ipynb")           # the source is untouched


def test_the_english_workspace_leaves_links_alone(src, tmp_path):
    _nb(src / "01_next.ipynb", "[x](../../docs/a.md)")
    workspace.sync(src, tmp_path / "workspace")
    assert _md(tmp_path / "workspace" / "01_next.ipynb") == "[x](../../docs/a.md)"
