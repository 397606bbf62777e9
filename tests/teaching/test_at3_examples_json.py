"""python -m umkit.examples build|run --json FILE writes its summary as the kit's other result
writers do: atomically (umkit.results.files), an existing results file kept (checked before the
build starts; --force replaces it, --numbered writes NAME-2.json beside it), and a path that
cannot take the file or a failed write is one line and exit 2, never a traceback."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from umkit.results import files
from umkit.teaching import examples


@pytest.fixture
def fake_build(monkeypatch):
    """build() without a compiler: one example that compiled, and a count of the calls."""
    calls = []

    def build(vendor="amd", out_dir=None, which=None, **kw):
        calls.append(vendor)
        return [examples.Built("first_touch", ["hipcc", "-c", "x.hip"], True, Path("x.o"), "", 0.1)]
    monkeypatch.setattr(examples, "build", build)
    return calls


def test_an_existing_results_file_is_kept(tmp_path, fake_build, capsys):
    res = tmp_path / "res.json"
    res.write_text('{"precious": "GPU run 50 results"}')
    rc = examples.main(["build", "--vendor", "amd", "--json", str(res)])
    err = capsys.readouterr().err
    assert rc == 2 and "--force" in err and "kept" in err
    assert res.read_text() == '{"precious": "GPU run 50 results"}'
    assert fake_build == []                      # refused before the build, not after it


def test_force_replaces_and_numbered_keeps(tmp_path, fake_build, capsys):
    res = tmp_path / "res.json"
    res.write_text('{"precious": 1}')
    assert examples.main(["build", "--vendor", "amd", "--json", str(res), "--numbered"]) == 0
    assert res.read_text() == '{"precious": 1}'
    new = json.loads((tmp_path / "res-2.json").read_text())
    assert new["examples"][0]["name"] == "first_touch" and new["all_ok"] is True
    assert "wrote " in capsys.readouterr().out
    assert examples.main(["build", "--vendor", "amd", "--json", str(res), "--force"]) == 0
    assert json.loads(res.read_text())["vendor"] == "amd"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res-2.json", "res.json"]  # no temp
    assert examples.main(["build", "--json", str(res), "--force", "--numbered"]) == 2


def test_a_failed_write_is_one_line_and_exit_1(tmp_path, fake_build, monkeypatch, capsys):
    """The action failed (a full disk): exit 1, as umkit's CLI (2 is for a bad argument)."""
    res = tmp_path / "res.json"

    def full(path, data, **kw):
        raise files.WriteFailed(f"{path}: No space left on device", argument="--json",
                                path=str(path), code=28)
    monkeypatch.setattr(files, "write", full)
    assert examples.main(["build", "--vendor", "amd", "--json", str(res)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "No space left" in err and "Traceback" not in err


@pytest.mark.parametrize("target", ["/dev/full", "{tmp}/missing/res.json", "{tmp}/res.txt"])
def test_a_path_that_cannot_take_the_file_exit_2(tmp_path, target):
    r = subprocess.run([sys.executable, "-m", "umkit.examples", "build", "--vendor", "amd",
                        "--json", target.format(tmp=tmp_path)], capture_output=True, text=True,
                       timeout=120, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "--json" in r.stderr
    assert not (tmp_path / "missing").exists()
