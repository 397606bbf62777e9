"""How ``umkit port-check`` scales: each pathological pattern is written out to a 1 MiB and a
2 MiB file (the largest file port-check reads) and timed; linear time means the 2 MiB file takes
about twice as long as the 1 MiB one.  Issue 46 found two rules quadratic (a 2 MiB file took
64 s and 153 s against 5 s for linear code); the reader fixed then: the atomics rule (every
kernel looked at every call), the factory rule (every returned pointer of one function name
took every caller's name) and the object-macro lookup (every call scanned every macro).

    .venv/bin/python benchmarks/portcheck_scale.py [--out benchmarks/results/portcheck_scale.json]

The result (JSON) holds the date, the machine (platform, Python, CPU count) and, per pattern,
the size in bytes and the seconds for each size.  It times the reader and the rules only
(``Source.parse`` + ``check_source``), as ``port_check`` runs them on each file.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: pattern name -> (prefix written once, unit repeated until the size is reached)
PATTERNS = {
    # many kernels, each with an atomic, and many __managed__ variables (rule_managed_atomic)
    "kernels_with_atomics": ("", "__managed__ int m{k}; __global__ void k{k}(int* p) "
                                 "{{ atomicAdd(p, 1); atomicAdd(&m{k}, 1); }}\n"),
    # many object-like macros and calls that name one (object_macro per call)
    "macros_and_calls": ("", "#define LOC{k} cudaCpuDeviceId\n"
                             "void f{k}(float* a) {{ cudaMemPrefetchAsync(a, 64, LOC{k}, 0); "
                             "cudaMemAdvise(a, 64, cudaMemAdviseSetReadMostly, LOC{k}); }}\n"),
    # a function-like macro used many times (expansion at each use)
    "macro_uses": ("#define ALLOC(p, n) cudaMallocManaged(&p, n)\n",
                   "void g{k}() {{ float* b{k}; ALLOC(b{k}, 64); k<<<1, 1>>>(b{k}); }}\n"),
    # launches handing over system memory, and by-value arguments
    "launches": ("#include <vector>\n",
                 "void h{k}(int n) {{ std::vector<float> v{k}(n); float* x{k} = "
                 "(float*)malloc(64); k<<<1, 1>>>(v{k}.data(), v{k}.size(), x{k} + 1); }}\n"),
    # one factory name (overloads) returning many managed pointers, each assigned by a caller
    "factories": ("", "float* get() {{ float* p{k}; cudaMallocManaged(&p{k}, 1); return p{k}; }}"
                      "\nvoid u{k}() {{ float* x{k}; x{k} = get(); }}\n"),
    # ordinary code: the repository's messy test file, repeated
    "messy_file": ("", None),
}


def source(name: str, size: int) -> str:
    prefix, unit = PATTERNS[name]
    if unit is None:
        unit = (ROOT / "tests" / "diagnostics" / "data" / "portcheck" / "messy.cu").read_text()
        unit = unit.replace("int main(", "int main{k}(").replace("{", "{{").replace("}", "}}") \
            .replace("main{{k}}(", "main{k}(")
    parts, total, k = [prefix], len(prefix), 0
    while total < size:
        piece = unit.format(k=k)
        parts.append(piece)
        total += len(piece)
        k += 1
    return "".join(parts)[:size]


def time_one(text: str) -> float:
    from umkit.diagnostics.portcheck.cxx import Source
    from umkit.diagnostics.portcheck.rules import check_source, platform as plat
    p = plat("mi250x", False)
    t0 = time.perf_counter()
    check_source(Source.parse(text, "bench.cu"), p, "bench.cu")
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="where to write the JSON result "
                    "(default: print it only)")
    ap.add_argument("--sizes", default="1048576,2097152",
                    help="file sizes in bytes, comma-separated (default 1 MiB, 2 MiB)")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",")]
    rows = []
    for name in PATTERNS:
        times = {}
        for size in sizes:
            times[size] = round(time_one(source(name, size)), 3)
        growth = times[sizes[-1]] / max(times[sizes[0]], 1e-9)
        rows.append({"pattern": name, "seconds": {str(s): t for s, t in times.items()},
                     "growth": round(growth, 2), "size_ratio": sizes[-1] / sizes[0]})
        print(f"{name:22s} " + "  ".join(f"{s >> 10} KiB {t:6.2f} s" for s, t in times.items())
              + f"   x{growth:.2f}", flush=True)
    doc = {"benchmark": "portcheck_scale", "date": datetime.datetime.now(
               datetime.timezone.utc).isoformat(timespec="seconds"),
           "machine": {"platform": platform.platform(), "python": platform.python_version(),
                       "cpus": os.cpu_count(), "processor": platform.processor()},
           "what": "seconds to read and check one file (Source.parse + check_source), "
                   "target mi250x, XNACK off",
           "results": rows}
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(json.dumps(doc, indent=1) + "\n")
        os.replace(tmp, out)
        print(f"wrote {out}")
    else:
        print(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
