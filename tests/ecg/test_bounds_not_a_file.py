"""A loader given a folder, a named pipe, a device or a loop of links says what it is (never
"no such file", never waiting on a FIFO for a writer)."""
import os
import subprocess
import sys

import pytest

import umkit.ecg
from umkit.errors import InvalidArgument

KINDS = {"folder": "is a folder", "fifo": "is a named pipe (FIFO)",
         "loop": "is a loop of symbolic links", "dangling": "symbolic link to a file that "
         "does not exist", "missing": "no such file", "device": "is a device"}


@pytest.fixture
def things(tmp_path):
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "fifo")
    os.symlink("loop", tmp_path / "loop")
    os.symlink("nothing", tmp_path / "dangling")
    out = {k: str(tmp_path / k) for k in KINDS}
    out["device"] = "/dev/null"
    return out


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_ecg_loaders_say_what_it_is(things, kind):
    for load in (umkit.ecg.load, umkit.ecg.read):
        with pytest.raises(InvalidArgument) as e:
            load(things[kind])
        assert KINDS[kind] in e.value.message, (load, e.value.message)
        if kind != "missing":
            assert "no such file" not in e.value.message


@pytest.mark.parametrize("kind", ["folder", "fifo", "loop", "device"])
def test_the_command_lines_say_what_it_is(things, kind):
    env = dict(os.environ, UMKIT_BACKEND="sim")
    for args in (["plan", things[kind]], ["calibrate", "--compare", "--measured", things[kind]]):
        r = subprocess.run([sys.executable, "-m", "umkit.cli", *args], capture_output=True,
                           text=True, timeout=120, env=env)
        assert r.returncode == 2, r.stderr
        assert KINDS[kind] in r.stderr and "no such file" not in r.stderr, r.stderr
