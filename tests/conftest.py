"""Shared by every test folder: the helpers beside this file (``repo_tools``) import by name."""
import gc
import signal
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

# A suite started in the background (`bash test.sh &`) inherits SIGINT ignored, and so would
# every program the tests start: the Ctrl-C tests would then see their interrupts ignored. The
# tests run with Python's own handler, as from a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


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


def pytest_collection_finish(session):
    """What collection made (the test items, the imported modules) lives to the end of the run:
    frozen, it is left out of every later full collection, which ``umkit.use`` makes at each
    switch of backend (a test worker's heap would otherwise cost ~44 ms a switch)."""
    gc.collect()
    gc.freeze()
