"""The conformance fixture: every test in this folder runs once per backend.

Backends come from ``UMKIT_TEST_BACKENDS`` (comma-separated, default ``sim,cuda,hip``).  A
backend that cannot run here is skipped with the reason ``umkit.backends.registry.probe`` gives,
so a skip always says why (``cuda: CUDA driver missing (libcuda.so not found)``).
"""
from __future__ import annotations

import functools
import os

import pytest

import umkit
from umkit.backends import registry as detect

ENV = "UMKIT_TEST_BACKENDS"


def backend_names() -> list[str]:
    raw = os.environ.get(ENV, "sim,cuda,hip")
    return [n.strip().lower() for n in raw.split(",") if n.strip()]


@functools.lru_cache(maxsize=None)
def _probe(name: str) -> tuple[bool, str]:
    return detect.probe(name)


@pytest.fixture(params=backend_names())
def backend(request, monkeypatch):
    """The backend name; ``umkit.use(name)`` has been called (a fresh backend per test)."""
    name = request.param
    if name not in detect.NAMES:
        pytest.fail(f"{ENV} names {name!r}, which is not a backend ({', '.join(detect.NAMES)})")
    ok, reason = _probe(name)
    if not ok:
        pytest.skip(f"{name}: {reason}")
    monkeypatch.delenv(detect.ENV, raising=False)
    umkit.use(name)
    yield name
    umkit.synchronize()
