"""The GPU checks of ``.ci/gpu``'s ``counters`` and ``torch`` steps, as tests under the ``gpu``
marker.  They need the cuda backend (``UMKIT_BACKEND``, default ``cuda``) and skip with the
reason where it is not usable, so on a CPU machine they are collected and skipped.

What they observe goes to ``$UMKIT_GPU_RESULTS`` (a folder: ``.ci/gpu`` points it at its results)
or, without it, to a temporary folder.  ``UMKIT_GPU_REQUIRED=1`` (``.ci/gpu`` sets it) turns each
skip into a failure: on the GPU machine a missing driver, CUPTI or PyTorch is what the check is for.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import umkit
from umkit.backends import registry
from gpu_required import missing


@pytest.fixture(scope="session")
def cuda_backend():
    """``umkit.use`` of the GPU backend the run names; a skip that says why where it is not
    usable (the sim backend counts by model, so these checks have nothing to read there)."""
    name = os.environ.get(registry.ENV, "cuda").strip().lower() or "cuda"
    if name != "cuda":
        missing(f"{registry.ENV}={name}: these checks read NVIDIA's driver (CUPTI, PyTorch "
                    "CUDA); run them with UMKIT_BACKEND=cuda on an NVIDIA GPU")
    ok, reason = registry.probe(name)
    if not ok:
        missing(f"cuda: {reason}")
    return umkit.use(name, quiet=True)


@pytest.fixture(scope="session")
def results(tmp_path_factory) -> Path:
    where = os.environ.get("UMKIT_GPU_RESULTS")
    path = Path(where) if where else tmp_path_factory.mktemp("gpu-results")
    path.mkdir(parents=True, exist_ok=True)
    return path
