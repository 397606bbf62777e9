"""python -m umkit.examples build with --out under a regular file or at /dev/full: one message
naming out_dir, exit 2 (it was a NotADirectoryError traceback)."""
import subprocess
import sys

import pytest

from umkit.errors import InvalidArgument
from umkit.teaching import examples


@pytest.mark.parametrize("where", ["file", "under_file"])
def test_out_dir_that_cannot_be_a_folder(tmp_path, where):
    f = tmp_path / "regular"
    f.write_text("x")
    out = f if where == "file" else f / "build"
    with pytest.raises(InvalidArgument) as e:
        examples.build(vendor="nvidia", out_dir=out, compiler=sys.executable)
    assert e.value.argument == "out_dir"


def test_cli_one_line_exit_2(tmp_path):
    if examples.find_compiler("nvidia") is None:
        pytest.skip("no nvcc: the build stops at the missing compiler before the folder")
    f = tmp_path / "regular"
    f.write_text("x")
    r = subprocess.run([sys.executable, "-m", "umkit.examples", "build", "--vendor", "nvidia",
                        "--out", str(f / "b")], capture_output=True, text=True, timeout=120,
                       env={"UMKIT_BACKEND": "sim", "PATH": __import__("os").environ["PATH"]})
    assert r.returncode == 2 and "Traceback" not in r.stderr and "out_dir" in r.stderr
