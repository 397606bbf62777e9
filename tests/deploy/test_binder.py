"""The Binder environment works: a clean virtual environment gets binder/requirements.txt and
binder/postBuild (as repo2docker would run them, in a fresh copy of the repository), then
notebooks/00_start_here.ipynb runs in a kernel of that environment with UMKIT_BACKEND unset, so
umkit auto-detects -- and, with no GPU, picks the sim backend.  Slow (a few minutes): it installs
NumPy, Matplotlib, ipywidgets and the Jupyter kernel machinery from the package index."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from repo_tools import copy_repo

ROOT = Path(__file__).resolve().parents[2]
BINDER = ROOT / "binder"
NOTEBOOK = "notebooks/00_start_here.ipynb"
#: what the Binder base image provides besides binder/requirements.txt: the kernel and a runner
JUPYTER_BASE = ["ipykernel", "nbclient", "nbformat"]

RUNNER = r"""
import json, sys
import nbformat
from nbclient import NotebookClient
src, out = sys.argv[1], sys.argv[2]
nb = nbformat.read(src, as_version=4)
nb.cells.append(nbformat.v4.new_code_cell(
    "import sys, json, umkit\n"
    "print('PROBE ' + json.dumps(dict(prefix=sys.prefix, umkit=umkit.__file__, backend=umkit.backend_name())))"))
NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": sys.argv[3]}}).execute()
nbformat.write(nb, out)
"""




def _text(output) -> str:
    t = output.get("text", "")
    return "".join(t) if isinstance(t, list) else t


def _run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert r.returncode == 0, f"{cmd} failed ({r.returncode}):\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


@pytest.mark.slow
def test_binder_environment_runs_start_here(tmp_path):
    assert (BINDER / "requirements.txt").exists()
    repo = copy_repo(tmp_path / "repo")
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])              # clean: no system site-packages
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    py = bindir / "python"

    env = {k: v for k, v in os.environ.items()
           if k not in ("UMKIT_BACKEND", "PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "UMKIT_WIDGETS")}
    env["PATH"] = str(bindir) + os.pathsep + env.get("PATH", "")
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    # --no-compile: no .pyc made for all of Jupyter's server side, which the test never imports
    # (what the kernel imports is compiled as it is imported); the packages are the same
    _run([str(py), "-m", "pip", "install", "-q", "--no-compile", "-r", "binder/requirements.txt"],
         cwd=repo, env=env)
    post = repo / "binder" / "postBuild"
    if post.exists():                                            # repo2docker: run from the repo root
        _run(["bash", str(post)], cwd=repo, env=env)
    _run([str(py), "-m", "pip", "install", "-q", "--no-compile", *JUPYTER_BASE], cwd=repo, env=env)

    # the kernel "python3" is this venv's interpreter, whatever kernels the machine has installed
    kernels = tmp_path / "jupyter" / "kernels" / "python3"
    kernels.mkdir(parents=True)
    (kernels / "kernel.json").write_text(json.dumps({
        "argv": [str(py), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (binder test)", "language": "python"}))
    env["JUPYTER_PATH"] = str(tmp_path / "jupyter")
    env["JUPYTER_PREFER_ENV_PATH"] = "0"

    runner = tmp_path / "run_notebook.py"
    runner.write_text(RUNNER)
    out = tmp_path / "executed.ipynb"
    _run([str(py), str(runner), str(repo / NOTEBOOK), str(out), str(repo / "notebooks")],
         cwd=repo, env=env, timeout=1200)

    nb = json.loads(out.read_text())
    errors = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors, errors
    probe = [line for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])
             if o.get("output_type") == "stream" for line in _text(o).splitlines()
             if line.startswith("PROBE ")]
    assert probe, "the probe cell printed nothing"
    info = json.loads(probe[-1][len("PROBE "):])
    assert Path(info["prefix"]).resolve() == venv.resolve(), info      # the clean venv's kernel
    assert Path(info["umkit"]).resolve().is_relative_to(venv.resolve()), info   # installed, not the checkout
    assert info["backend"] == "sim", info                               # no GPU on Binder: auto -> sim
