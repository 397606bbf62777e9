"""The root conftest.py orders test files longest first by tests/seconds.json: whatever that file
holds, a run is never stopped by it (it falls back to pytest's own order), and with a table the
files keep their tests together and in order."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _conftest(root: Path):
    """The root conftest.py loaded as if it lay in ``root``."""
    (root / "tests").mkdir(parents=True, exist_ok=True)
    (root / "conftest.py").write_text((ROOT / "conftest.py").read_text())
    return _load(root / "conftest.py", "root_conftest_copy")


@pytest.mark.parametrize("text", [
    "not json", "[1, 2]", '{"seconds": [1, 2]}', '{"seconds": "x"}', '{"other": 1}',
    "[" * 100_000, '{"seconds": {"a.py": ' + "9" * 400 + "}}", b"\xff\xfe\x00".decode("latin-1"),
    '{"seconds": {"a.py": NaN, "b.py": Infinity, "c.py": -1, "d.py": true, "e.py": "3"}}'])
def test_a_malformed_table_gives_an_empty_table(tmp_path, text):
    mod = _conftest(tmp_path)
    (tmp_path / "tests" / "seconds.json").write_text(text, encoding="latin-1")
    assert mod.file_seconds() == {}


def test_a_missing_or_oversized_table_gives_an_empty_table(tmp_path):
    mod = _conftest(tmp_path)
    assert mod.file_seconds() == {}
    (tmp_path / "tests" / "seconds.json").write_text(
        json.dumps({"seconds": {"a.py": 1.0}, "pad": "x" * (1 << 20)}))
    assert mod.file_seconds() == {}


def test_good_entries_are_kept_and_bad_ones_dropped(tmp_path):
    mod = _conftest(tmp_path)
    (tmp_path / "tests" / "seconds.json").write_text(json.dumps(
        {"seconds": {"a.py": 2, "b.py": 0.5, "c.py": -1, "d.py": None}}))
    assert mod.file_seconds() == {"a.py": 2.0, "b.py": 0.5}


def test_files_run_longest_first_each_in_its_own_order(tmp_path):
    """Three files, the table naming the last one longest: its tests come first, in order; a
    file the table does not know counts one second."""
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "conftest.py").write_text((ROOT / "conftest.py").read_text())
    for name, n in (("test_a.py", 2), ("test_b.py", 3), ("test_c.py", 2)):
        (root / "tests" / name).write_text("".join(f"def test_{i}():\n    pass\n" for i in range(n)))
    (root / "tests" / "seconds.json").write_text(json.dumps(
        {"seconds": {"tests/test_c.py": 9.0, "tests/test_b.py": 0.2}}))
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p",
                        "no:cacheprovider", "-p", "no:xdist", "tests"], cwd=root,
                       capture_output=True, text=True, timeout=120)
    ids = [line for line in r.stdout.splitlines() if "::" in line]
    assert ids == ["tests/test_c.py::test_0", "tests/test_c.py::test_1",
                   "tests/test_a.py::test_0", "tests/test_a.py::test_1",
                   "tests/test_b.py::test_0", "tests/test_b.py::test_1",
                   "tests/test_b.py::test_2"], r.stdout + r.stderr


def _script():
    return _load(ROOT / "scripts" / "test_seconds.py", "test_seconds_script")


def _xml(path: Path, cases: list[tuple[str, str, float]]) -> Path:
    path.write_text("<testsuites><testsuite>" + "".join(
        f'<testcase classname="{c}" name="{n}" time="{t}"/>' for c, n, t in cases)
        + "</testsuite></testsuites>")
    return path


def test_the_table_maps_class_names_to_files_and_averages_where_a_file_ran(tmp_path):
    mod = _script()
    one = _xml(tmp_path / "one.xml", [
        ("tests.test_file_order", "test_x", 2.0),
        ("tests.test_file_order.SomeClass", "test_y[a.b::c]", 1.0),       # a test class
        ("notebooks.00_start_here.ipynb", "Cell 1", 4.0),
        ("tests.browser.test_site", "test_z", 3.0)])
    two = _xml(tmp_path / "two.xml", [("tests.test_file_order", "test_x", 5.0),
                                      ("elsewhere.test_q", "test_q", 9.0)])
    table, cases, unmatched = mod.seconds([one, two])
    # test_file_order ran in both (3 s, then 5 s); the others only in the first: not halved
    assert table == {"tests/test_file_order.py": 4.0, "notebooks/00_start_here.ipynb": 4.0,
                     "tests/browser/test_site.py": 3.0}
    assert (cases, unmatched) == (6, 1)


def test_xml_of_another_checkout_writes_nothing(tmp_path, capsys):
    mod = _script()
    x = _xml(tmp_path / "other.xml", [("pkg.test_a", "t", 1.0), ("pkg.test_b", "t", 1.0)])
    before = (ROOT / "tests" / "seconds.json").read_bytes()
    assert mod.main([str(x)]) == 1
    assert "name no test file" in capsys.readouterr().err
    assert (ROOT / "tests" / "seconds.json").read_bytes() == before
    assert mod.main([str(tmp_path / "missing.xml")]) == 2
