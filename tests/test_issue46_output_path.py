"""validate.output_path checks a result's path without creating or deleting anything there: a
probe file it made and removed could delete what another saver had just written to the same new
name; a symbolic link at the target is refused (the atomic writer would replace the link)."""
import os

import pytest

from umkit import validate as V
from umkit.errors import InvalidArgument


def test_a_new_path_is_not_created_by_the_check(tmp_path):
    p = tmp_path / "r.json"
    assert V.output_path(str(p), "path", (".json",)) == p
    assert not p.exists()


def test_a_file_written_meanwhile_survives_another_check(tmp_path):
    p = tmp_path / "r.json"
    p.write_text("{}")                     # another saver's result
    V.output_path(str(p), "path", (".json",))
    assert p.read_text() == "{}"


def test_a_dangling_symlink_is_refused_and_kept(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "elsewhere" / "target.json")
    with pytest.raises(InvalidArgument, match="symbolic link") as e:
        V.output_path(str(link), "path", (".json",))
    assert e.value.argument == "path" and link.is_symlink()
    assert not (tmp_path / "elsewhere").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write a read-only folder")
def test_a_folder_without_write_permission_is_refused(tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o500)
    try:
        with pytest.raises(InvalidArgument, match="cannot be written"):
            V.output_path(str(d / "r.json"), "path", (".json",))
    finally:
        d.chmod(0o700)
