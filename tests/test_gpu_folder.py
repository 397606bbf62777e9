"""``tests/gpu`` on a machine without the GPU: every test is collected and skipped, saying why;
where the run requires the GPU (``UMKIT_GPU_REQUIRED=1``, as ``.ci/gpu`` sets it) the same
tests fail instead of passing by being skipped."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(**env):
    e = {k: v for k, v in os.environ.items() if not k.startswith("UMKIT_GPU")}
    e.update(env)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o",
                           "addopts=", "-rs", "tests/gpu"], cwd=ROOT, env=e, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.slow
def test_on_sim_every_gpu_test_is_skipped_with_its_reason():
    r = _run(UMKIT_BACKEND="sim")
    assert r.returncode == 0, r.stdout[-2000:]
    assert " skipped" in r.stdout and " passed" not in r.stdout and "error" not in r.stdout
    assert "UMKIT_BACKEND=sim: these checks read NVIDIA's driver" in r.stdout


@pytest.mark.slow
def test_where_the_gpu_is_required_a_skip_is_a_failure():
    r = _run(UMKIT_BACKEND="sim", UMKIT_GPU_REQUIRED="1")
    assert r.returncode == 1, r.stdout[-2000:]
    assert " skipped" not in r.stdout and "UMKIT_GPU_REQUIRED=1, but" in r.stdout


def test_every_gpu_test_module_carries_the_gpu_marker():
    """``.ci/gpu`` selects them with ``-m gpu``: a module without the marker would be left out
    of the GPU run without a word."""
    import ast
    mods = sorted((ROOT / "tests" / "gpu").glob("test_*.py"))
    assert mods
    for m in mods:
        marks = [n for n in ast.parse(m.read_text()).body if isinstance(n, ast.Assign)
                 and any(getattr(t, "id", "") == "pytestmark" for t in n.targets)]
        assert marks and ast.unparse(marks[0].value) == "pytest.mark.gpu", m.name
