"""Write tests/seconds.json, the seconds each test file (and notebook) took in a lane, from the
JUnit XML files pytest wrote (``bash test.sh --all --junitxml=lane.xml``):

    python scripts/test_seconds.py lane.xml [more.xml ...]

The root conftest.py hands the files to pytest-xdist's workers longest first, so that the two
workers of a 2-core machine end together instead of one waiting for the other's last long file.
A file missing from the table counts as :data:`DEFAULT` seconds; a stale table only costs time,
never a result. Several XML files: each file's mean over them."""
from __future__ import annotations

import json
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


def seconds(xml_paths: list[Path]) -> dict[str, float]:
    known = files()
    runs = []
    for x in xml_paths:
        per = defaultdict(float)
        for tc in ET.parse(x).iter("testcase"):
            cls = tc.get("classname", "")
            # a test class adds ".ClassName" to its module's name: the longest known prefix
            while cls and cls not in known:
                cls = cls.rpartition(".")[0]
            if cls:
                per[known[cls]] += float(tc.get("time", 0) or 0)
        runs.append(per)
    paths = sorted({p for r in runs for p in r})
    mean = {p: sum(r.get(p, 0.0) for r in runs) / len(runs) for p in paths}
    return {p: round(s, 1) for p, s in sorted(mean.items(), key=lambda kv: (-kv[1], kv[0]))
            if s >= SMALLEST}


def main(argv: list[str]) -> int:
    if not argv or any(not Path(a).is_file() for a in argv):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        print("usage: python scripts/test_seconds.py LANE.xml [MORE.xml ...]", file=sys.stderr)
        return 2
    table = seconds([Path(a) for a in argv])
    OUT.write_text(json.dumps({"what": "seconds per test file in a lane on 2 cores "
                                       "(scripts/test_seconds.py)", "seconds": table},
                              indent=1, ensure_ascii=False) + "\n")
    print(f"{OUT.relative_to(ROOT)}: {len(table)} files, {sum(table.values()):.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
