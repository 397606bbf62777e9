"""Summarise a GPU CI run (.ci/gpu) into summary.json + summary.md, and keep
benchmarks/results/INDEX.md, which marks a result STALE when the GPU-facing code it describes
has changed since (a content hash of those files, so no git is needed on the GPU machine).

    python .ci/gpu_summary.py RESULTS_DIR --free-before N --free-after N --steps a=0:1.2,b=1:3.4
    python .ci/gpu_summary.py --index          # rewrite benchmarks/results/INDEX.md
"""
import argparse
import hashlib
import json
import platform
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GPU_FACING = ["umkit/backends", "umkit/memory", "umkit/api.py", "umkit/runtime",
              "umkit/measure", "umkit/workloads", "kernels", "benchmarks/core_bench.py",
              "umkit/user_kernels.py", "benchmarks/unified_memory_perf.py",
              "benchmarks/pool_bench.py",
              # the model the calibrate / umperf comparison predicts with (issue 11)
              "umkit/sim", "umkit/sim/profiles/h200-pcie5.json"]


def code_hash() -> str:
    h = hashlib.sha256()
    for rel in GPU_FACING:
        p = ROOT / rel
        files = sorted(p.rglob("*.py")) + sorted(p.rglob("*.cu")) if p.is_dir() else [p]
        for f in files:
            h.update(str(f.relative_to(ROOT)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _load(p):
    try:
        return json.loads(Path(p).read_text())
    except Exception:  # noqa: BLE001
        return None


def _tail_count(log: Path, pattern=r"(\d+) passed"):
    if not log.exists():
        return None
    text = log.read_text(errors="replace")
    last = [ln for ln in text.splitlines() if re.search(r"passed|failed|error", ln)]
    return last[-1].strip("= ") if last else None


def summarise(res: Path, free0: int, free1: int, steps: str):
    import umkit
    b = umkit.backend()
    st = {}
    for item in filter(None, steps.split(",")):
        k, v = item.split("=")
        rc, t = v.split(":")
        st[k] = dict(rc=int(rc), seconds=float(t))
    bench = _load(res / "core_bench.json") or {}
    pool = (_load(res / "pool_bench.json") or {}).get("results") or {}     # umkit vs CuPy's pool
    bench.update({f"poolbench_{k}": {x: y for x, y in v.items() if x != "raw_us"}
                  for k, v in pool.items() if isinstance(v, dict) and "met" in v})
    comp = _load(res / "calibrate_compare.json") or {}
    leak = abs(free0 - free1)
    s = dict(date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), backend=b.name,
             device=b.device_name(0), device_count=b.device_count(), versions=b.versions(),
             python=platform.python_version(), code_hash=code_hash(), steps=st,
             tests=_tail_count(res / "tests.log"), notebooks=_tail_count(res / "nbval.log"),
             leak_bytes=leak, leak_ok=leak <= (1 << 20), free_before=free0, free_after=free1,
             benchmarks={k: {kk: v.get(kk) for kk in ("speed_ratio", "ratio_umkit_over_cupy", "target", "met", "error")
                             if kk in v} for k, v in bench.items() if isinstance(v, dict) and k != "versions"},
             calibrate=dict(within=comp.get("within"), total=comp.get("total"), profile=comp.get("profile"),
                            host_speed=comp.get("host_speed"), host=comp.get("host"),
                            **{k: {kk: comp[k].get(kk) for kk in ("within", "within_1_5", "total", "ordering")}
                               for k in ("fit", "validation") if isinstance(comp.get(k), dict)},
                            as_stored={k: {kk: v.get(kk) for kk in ("within", "within_1_5", "total", "ordering")}
                                       for k, v in (comp.get("as_stored") or {}).items()}),
             umperf=_load(res / "umperf.json") and {k: v for k, v in _load(res / "umperf.json").items()
                                                    if k in ("summary", "device", "host_speed")})
    (res / "summary.json").write_text(json.dumps(s, indent=1, default=str))
    lines = [f"# GPU CI run: {s['device']} ({s['backend']}), {s['date']}", "",
             f"- devices: {s['device_count']}; versions: {s['versions']}; python {s['python']}",
             f"- code hash (GPU-facing files): `{s['code_hash']}`", "",
             "| step | exit | seconds |", "|---|---|---|"]
    lines += [f"| {k} | {v['rc']} | {v['seconds']} |" for k, v in st.items()]
    lines += ["", f"- tests: {s['tests']}", f"- notebooks (nbval-lax): {s['notebooks']}",
              f"- leak check: free memory before {free0} B, after {free1} B, "
              f"difference {leak} B -> {'OK' if s['leak_ok'] else 'LEAK'} (limit 1 MiB)", ""]
    for k, v in s["benchmarks"].items():
        lines.append(f"- benchmark {k}: {v}")
    if comp:
        sections = [(k, comp[k]) for k in ("fit", "validation") if isinstance(comp.get(k), dict)] \
            or [("fit", comp)]
        lines += [""]
        if all(isinstance(comp.get(k), dict) and "ordering" in comp[k] for k in ("fit", "validation")):
            from umkit.measure import calibrate          # the same lines `umkit calibrate --compare` prints
            lines += [f"- {x}" for x in calibrate.summary_lines(comp)]
        else:                                    # a comparison without the two sets
            lines.append(f"- calibrate: {comp.get('within')}/{comp.get('total')} within x/÷1.25")
        for name, sec in sections:
            lines += ["", f"## calibrate --compare, {name} set ({sec.get('within')}/{sec.get('total')} "
                      f"within x/÷1.25, {sec.get('within_1_5', '?')}/{sec.get('total')} within x/÷1.5)", "",
                      "| workload | measured ms | sim ms | sim/real | x/÷1.25 | x/÷1.5 |",
                      "|---|---|---|---|---|---|"]
            lines += [f"| {r['workload']} | {r['measured_ms']} | {r['predicted_ms']} | {r['ratio']} | "
                      f"{'yes' if r['within'] else 'NO'} | {'yes' if r.get('within_1_5') else 'NO'} |"
                      for r in sec.get("rows", [])]
            for p in (sec.get("ordering") or {}).get("wrong_pairs", []):
                lines.append(f"- ordering wrong: the card has {p}")
            for p in (sec.get("ordering") or {}).get("unsettled_pairs", []):
                lines.append(f"- not counted, the card's repeats overlap: {p}")
    um = _load(res / "umperf.json") or {}
    if um.get("summary"):
        lines += ["", f"- {um['summary']}"]
    if (res / "umperf.md").exists():
        lines += ["", (res / "umperf.md").read_text()]
    (res / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    ok = all(v["rc"] == 0 for v in st.values()) and s["leak_ok"]
    print(f"\nGPU CI: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


def index():
    now = code_hash()
    rows = []
    for p in sorted((ROOT / "benchmarks/results").glob("*/summary.json")):
        s = _load(p) or {}
        state = "current" if s.get("code_hash") == now else "STALE (code changed since)"
        rows.append(f"| [{p.parent.name}]({p.parent.name}/summary.md) | {s.get('device')} | "
                    f"{s.get('backend')} | {s.get('date')} | {state} |")
    text = ("# GPU results\n\nEach run of `.ci/gpu`; a run whose GPU-facing code has changed since "
            f"is marked STALE (current code hash `{now}`).\n\n| run | device | backend | date | state |\n"
            "|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    (ROOT / "benchmarks/results/INDEX.md").write_text(text)
    print(text)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("res", nargs="?")
    ap.add_argument("--free-before", type=int, default=0)
    ap.add_argument("--free-after", type=int, default=0)
    ap.add_argument("--steps", default="")
    ap.add_argument("--index", action="store_true")
    a = ap.parse_args()
    if a.index:
        index()
        sys.exit(0)
    sys.exit(summarise(Path(a.res), a.free_before, a.free_after, a.steps))
