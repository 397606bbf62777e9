"""The GPU tests' way to say what is missing (``tests/gpu``): a skip on a machine without the GPU,
a failure where the run requires it (``UMKIT_GPU_REQUIRED=1``, which ``.ci/gpu`` sets)."""
from __future__ import annotations

import os

import pytest


def missing(reason: str):
    """Skip with ``reason``; fail with it where the run requires the GPU (UMKIT_GPU_REQUIRED=1)."""
    if os.environ.get("UMKIT_GPU_REQUIRED") == "1":
        pytest.fail(f"UMKIT_GPU_REQUIRED=1, but {reason}", pytrace=False)
    pytest.skip(reason)


def need(module: str):
    """``import module``, or :func:`missing` where it is not installed."""
    try:
        return __import__(module)
    except ImportError as e:
        missing(f"{module} is not importable here ({e})")
