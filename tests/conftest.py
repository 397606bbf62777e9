"""Shared by every test folder: the helpers beside this file (``repo_tools``) import by name."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture
def fresh_sim(monkeypatch):
    """A fresh sim backend for the test and after it, whatever UMKIT_BACKEND says (tests that
    switch backends use it: ``pytestmark = pytest.mark.usefixtures("fresh_sim")``)."""
    import umkit
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    umkit.use("sim", quiet=True)
    yield
    umkit.use("sim", quiet=True)


@pytest.fixture
def sim_english():
    """The sim backend for the test, and English again after it (tests that switch to Chinese)."""
    import umkit
    umkit.use("sim", quiet=True)
    yield
    umkit.use("sim", quiet=True, lang="en")
