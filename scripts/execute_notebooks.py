"""Re-execute the committed notebooks in place on the sim backend, so their stored outputs (what
nbval checks exactly) follow the code: ``UMKIT_BACKEND=sim PYTHONHASHSEED=0 .venv/bin/python
scripts/execute_notebooks.py [NOTEBOOK ...]`` (default: every notebook under notebooks/)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]


def main(paths) -> int:
    if os.environ.get("UMKIT_BACKEND") != "sim" or os.environ.get("PYTHONHASHSEED") != "0":
        print("set UMKIT_BACKEND=sim PYTHONHASHSEED=0 (the outputs nbval compares)", file=sys.stderr)
        return 2
    # the exercises open with the notebook's own sets (a learner's kernel draws its own), as nbval
    # runs them (the repository's conftest.py)
    os.environ["UMKIT_EXERCISE_ATTEMPTS"] = "0"
    nbs = [Path(p).resolve() for p in paths] or sorted((ROOT / "notebooks").glob("[0-9]*.ipynb"))
    for p in nbs:
        nb = nbformat.read(p, as_version=4)
        NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=False,
                       resources={"metadata": {"path": str(p.parent)}}).execute()
        nbformat.write(nb, p)
        print(f"executed {p.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
