"""How long nbval takes over the notebooks on the machine that runs it (issue 27's "nbval over
the notebooks <= 60 s"), on the sim backend as test.sh runs them: the English notebooks
(``notebooks/*.ipynb``) and both editions (``notebooks/``, the Chinese one in ``notebooks/zh/``),
each in a fresh pytest process; wall time, the cells' summed time per notebook, passes and
failures.

Run it the way test.sh runs the notebooks (the doctor cells expect HIP 5.2's runtime hidden):

    bash -c '. scripts/setup_test_packages.sh; umkit_hide_hip_runtime; \\
             .venv/bin/python benchmarks/nbval_time.py --out benchmarks/results/DATE-nbval-time-HOST.json'
"""
import argparse
import collections
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 60.0
SETS = {"english": sorted(str(p.relative_to(ROOT)) for p in (ROOT / "notebooks").glob("*.ipynb")),
        "both_editions": ["notebooks"]}


def run(paths: list[str]) -> dict:
    with tempfile.TemporaryDirectory() as d:
        xml = Path(d) / "nbval.xml"
        env = dict(os.environ, UMKIT_BACKEND="sim", PYTHONHASHSEED="0")
        env.pop("MPLBACKEND", None)          # the kernel draws inline, as in Jupyter
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "pytest", "--nbval", *paths, "-p",
                            "no:cacheprovider", "-q", "-o", "addopts=", f"--junitxml={xml}"],
                           cwd=ROOT, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        per = collections.Counter()
        passed = failed = 0
        if xml.exists():
            for tc in ET.parse(xml).getroot().iter("testcase"):
                per[tc.get("classname", "?")] += float(tc.get("time", 0))
                if tc.find("failure") is not None or tc.find("error") is not None:
                    failed += 1
                elif tc.find("skipped") is None:
                    passed += 1
    return dict(wall_s=round(wall, 2), cells_s=round(sum(per.values()), 2), passed=passed,
                failed=failed, returncode=r.returncode, target_s=TARGET_S,
                met=r.returncode == 0 and wall <= TARGET_S,
                notebooks={k: round(v, 2) for k, v in per.most_common()},
                tail=r.stdout.strip().splitlines()[-1:] if r.stdout.strip() else [])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--sets", default=",".join(SETS), help="english,both_editions")
    a = ap.parse_args(argv)
    res = dict(date=time.strftime("%Y-%m-%d"), backend="sim", host=platform.node(),
               cpu=platform.processor() or platform.machine(), cores=os.cpu_count(),
               python=platform.python_version())
    for name in [s for s in a.sets.split(",") if s]:
        res[name] = run(SETS[name])
        print(f"{name}: {res[name]['wall_s']} s wall, {res[name]['passed']} cells passed, "
              f"{res[name]['failed']} failed (target {TARGET_S:.0f} s: "
              f"{'met' if res[name]['met'] else 'not met'})", flush=True)
    if a.out:
        Path(a.out).write_text(json.dumps(res, indent=1) + "\n")
    return 0 if all(res[s]["returncode"] == 0 for s in SETS if s in res) else 1


if __name__ == "__main__":
    sys.exit(main())
