"""Write tests/seconds.json, the seconds each test file (and notebook) took in a lane, from the
JUnit XML files pytest wrote (``bash test.sh --all --junitxml=lane.xml``):

    python scripts/test_seconds.py lane.xml [more.xml ...]

The root conftest.py hands the files to pytest-xdist's workers longest first, so that the
workers end together instead of one waiting for another's last long file. A file missing from
the table counts as :data:`DEFAULT` seconds; a stale table only costs time, never a result.
Several XML files: each file's mean over the files that ran it (give lanes of one kind: the full
lane's, whose times the ordering is for). A session-wide fixture (a server the browser tests
share) is charged to the test that started it. Nothing is written when most test cases name no
file of this checkout (an XML of another checkout, or written with a ``junit_prefix``)."""
from __future__ import annotations

import json
import os
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "seconds.json"
#: seconds a file the table does not know is taken to need
DEFAULT = 1.0
#: files quicker than this are left out of the table (they count as DEFAULT)
SMALLEST = 1.0


def files() -> dict[str, str]:
    """JUnit's class name of each test file and notebook -> its path from the root."""
    out = {}
    for p in [*ROOT.glob("tests/**/test_*.py"), *ROOT.glob("notebooks/**/*.ipynb")]:
        if ".ipynb_checkpoints" in p.parts:
            continue
        rel = p.relative_to(ROOT).as_posix()
        out[rel[:-3].replace("/", ".") if rel.endswith(".py") else rel.replace("/", ".")] = rel
    return out


def seconds(xml_paths: list[Path]) -> tuple[dict[str, float], int, int]:
    """(the table, test cases read, test cases that named no file here)."""
    known = files()
    runs, cases, unmatched = [], 0, 0
    for x in xml_paths:
        per = defaultdict(float)
        for tc in ET.parse(x).iter("testcase"):
            cases += 1
            cls = tc.get("classname", "")
            # a test class adds ".ClassName" to its module's name: the longest known prefix
            while cls and cls not in known:
                cls = cls.rpartition(".")[0]
            if cls:
                per[known[cls]] += float(tc.get("time", 0) or 0)
            else:
                unmatched += 1
        runs.append(per)
    paths = sorted({p for r in runs for p in r})
    mean = {p: sum(r[p] for r in runs if p in r) / sum(p in r for r in runs) for p in paths}
    table = {p: round(s, 1) for p, s in sorted(mean.items(), key=lambda kv: (-kv[1], kv[0]))
             if s >= SMALLEST}
    return table, cases, unmatched


def main(argv: list[str]) -> int:
    if not argv or any(not Path(a).is_file() for a in argv):
        print("usage: python scripts/test_seconds.py LANE.xml [MORE.xml ...]  (JUnit XML files "
              "of pytest: bash test.sh --all --junitxml=/tmp/lane.xml)", file=sys.stderr)
        return 2
    try:
        table, cases, unmatched = seconds([Path(a) for a in argv])
    except ET.ParseError as err:
        print(f"test_seconds: not a JUnit XML file: {err}", file=sys.stderr)
        return 2
    if not cases or unmatched * 2 > cases:
        print(f"test_seconds: {unmatched} of {cases} test cases name no test file of this "
              f"checkout: {OUT.relative_to(ROOT)} left as it was", file=sys.stderr)
        return 1
    OUT.write_text(json.dumps({"what": "seconds per test file in the lanes it was written from, "
                                       f"on a machine of {os.cpu_count()} cores "
                                       "(scripts/test_seconds.py)", "seconds": table},
                              indent=1, ensure_ascii=False) + "\n")
    print(f"{OUT.relative_to(ROOT)}: {len(table)} files, {sum(table.values()):.0f} s"
          + (f" ({unmatched} of {cases} test cases named no file here)" if unmatched else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
