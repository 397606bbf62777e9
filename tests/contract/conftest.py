"""Fixtures of the contract tests (the fake low layer itself is in cuda_fake.py)."""
from __future__ import annotations

import pytest

from cuda_fake import make_cuda_backend


@pytest.fixture
def cuda_backend(monkeypatch):
    """The CUDA backend over cuda-bindings, every driver answer canned (cuda_fake.cuda_canned)."""
    return make_cuda_backend(monkeypatch)
