"""How to install what a backend needs (a leaf: the adapters, the registry and the doctor all
quote it)."""
from __future__ import annotations

from pathlib import Path


def install_hint(extra: str) -> str:
    """How to add a GPU extra (``cuda`` or ``rocm``) where umkit runs: into the checkout's own
    venv when umkit runs from a checkout (``bash run.sh`` does it on a GPU machine), else pip."""
    repo = Path(__file__).resolve().parents[2]
    if (repo / "pyproject.toml").is_file() and (repo / "run.sh").is_file():
        return (f"in the umkit checkout: .venv/bin/pip install -e '.[{extra}]', or bash run.sh "
                "(it installs the GPU extras when it finds the driver)")
    return f"python -m pip install 'umkit[{extra}]'"
