"""How ``umkit port-check`` scales: each pathological pattern is written out to a 1 MiB and a
2 MiB file (the largest file port-check reads) and timed; linear time means the 2 MiB file takes
about twice as long as the 1 MiB one.  The shapes are the ones a hostile review found slow or
quadratic: kernels with atomics (every kernel looked at every call), one factory name (every
returned pointer took every caller's name), object-like macros (every call scanned every
macro), raw string literals (each opening matched against a copy of the rest of the file),
``a<b<c`` chains (every ``name <`` scanned up to 64 tokens for a ``>``) and a variadic macro
naming ``__VA_ARGS__`` many times (its body built whole before the expansion budget was
checked).

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
    # raw string literals (each opening was matched against a copy of the rest of the file)
    "raw_strings": ("", 'const char* s{k} = R"x(text)x"; auto t{k} = R"(x)";\n'),
    # one long `a<b<c<...` chain (every `name <` scanned up to 64 tokens for a `>`)
    "template_chain": ("int x = ", "a<"),
    # many short `a<b<c<...` chains
    "template_chains": ("", "int v{k} = a<b<c<d<e<f<g<h;\n"),
    # a variadic macro naming __VA_ARGS__ 64 times, used once over a long argument list (the
    # body was built whole before the expansion budget was checked)
    "variadic_many_uses": ("#define V(...) f(" + ", ".join(["__VA_ARGS__"] * 64) + ")\n"
                           "void g() { V(cudaMallocManaged", ", a{k}"),
    # a variadic macro used many times
    "variadic_calls": ("#define CALL(f, ...) f(__VA_ARGS__)\n",
                       "void g{k}() {{ float* p{k}; CALL(cudaMallocManaged, &p{k}, 64); }}\n"),
    # variadic macro uses nested 100 deep (each use's expansion holds the uses inside it:
    # the expansion budget, 4 tokens per token of the file, is what bounds it)
    "variadic_nested": ("#define V(...) g(__VA_ARGS__)\n",
                        "void f{k}() {{ " + "V(" * 100 + "p" + ")" * 100 + "; }}\n"),
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


def time_one(text: str) -> tuple[float, float]:
    """(wall seconds, processor seconds) to read and check ``text``."""
    from umkit.diagnostics.portcheck.cxx import Source
    from umkit.diagnostics.portcheck.rules import check_source, platform as plat
    p = plat("mi250x", False)
    t0, c0 = time.perf_counter(), time.process_time()
    check_source(Source.parse(text, "bench.cu"), p, "bench.cu")
    return time.perf_counter() - t0, time.process_time() - c0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="where to write the JSON result "
                    "(default: print it only)")
    ap.add_argument("--sizes", default="1048576,2097152",
                    help="file sizes in bytes, comma-separated (default 1 MiB, 2 MiB)")
    ap.add_argument("--patterns", default=None,
                    help="pattern names, comma-separated (default: all): " + ", ".join(PATTERNS))
    args = ap.parse_args(argv)
    unknown = set(args.patterns.split(",")) - set(PATTERNS) if args.patterns else set()
    if unknown:
        ap.error("unknown pattern(s): " + ", ".join(sorted(unknown)))
    sizes = [int(x) for x in args.sizes.split(",")]
    rows = []
    for name in args.patterns.split(",") if args.patterns else PATTERNS:
        times, cpu = {}, {}
        for size in sizes:
            wall, proc = time_one(source(name, size))
            times[size], cpu[size] = round(wall, 3), round(proc, 3)
        growth = cpu[sizes[-1]] / max(cpu[sizes[0]], 1e-9)
        rows.append({"pattern": name, "seconds": {str(s): t for s, t in times.items()},
                     "cpu_seconds": {str(s): t for s, t in cpu.items()},
                     "growth": round(growth, 2), "size_ratio": sizes[-1] / sizes[0]})
        print(f"{name:22s} " + "  ".join(f"{s >> 10} KiB {t:6.2f} s (cpu {cpu[s]:.2f})"
                                         for s, t in times.items())
              + f"   x{growth:.2f}", flush=True)
    doc = {"benchmark": "portcheck_scale", "date": datetime.datetime.now(
               datetime.timezone.utc).isoformat(timespec="seconds"),
           "machine": {"platform": platform.platform(), "python": platform.python_version(),
                       "cpus": os.cpu_count(), "processor": platform.processor()},
           "what": "seconds to read and check one file (Source.parse + check_source), "
                   "target mi250x, XNACK off; seconds: wall clock, cpu_seconds: processor "
                   "time of this process (the machine may be shared); growth: cpu time of "
                   "the largest size over the smallest",
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
