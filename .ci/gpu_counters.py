"""GPU CI step `counters`: CUPTI's unified-memory counters read back through umkit.counters().

    python3 .ci/gpu_counters.py [results-dir]

Checks (exit 0 only when all hold; every check prints what it saw):
  1. umkit.counters_on() starts CUPTI (cupti-python) on the cuda backend;
  2. a 64 MiB managed array written on the CPU, then read by a GPU kernel: bytes_h2d within
     5% of 64 MiB, gpu_faults > 0 (fault-driven migration);
  3. prefetch of the (GPU-resident) array to the CPU: bytes_d2h and prefetch_bytes_d2h within
     5% of 64 MiB;
  4. prefetch back to the GPU: prefetch_bytes_h2d within 5% of 64 MiB;
  5. CPU reads of GPU-resident pages: cpu_faults > 0 and bytes_d2h > 0;
  6. the recorder gets per-step counters on cuda;
  7. a 512 MiB fault-driven burst, which can overflow the driver's event queue to CUPTI: counted
     exactly, or said to be incomplete by umkit.backends.counters.cupti.incomplete (never silently low).
Why 64 MiB per fault phase: benchmarks/results/2026-12-01-h200-counters-diag/ (64/128 MiB counted
right 12 of 12 times in fresh CUPTI sessions, 256 MiB 5 of 15, 512 MiB 0 of 3).
The same sequence is replayed on sim (h200-pcie5 profile) and both sets of counters are written
side by side to counters.json (the second fidelity axis of `umkit calibrate --compare`).
"""
from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MiB = 1 << 20
N = 64 * MiB
BURST = 512 * MiB
TOL = 0.05
sys.path.insert(0, str(Path(__file__).resolve().parent))
from gpu_checks import Checks  # noqa: E402

C = Checks()
check = C.check


def near(v, want):
    return abs(v - want) <= TOL * want


def main() -> int:
    res = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("RES", "gpu-ci-results"))
    res.mkdir(parents=True, exist_ok=True)
    import umkit
    from importlib import metadata
    info = {}
    for dist in ("cupti-python", "nvidia-cuda-cupti", "cuda-bindings", "cupy-cuda13x"):
        try:
            info[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            info[dist] = None
    print("versions:", json.dumps(info), flush=True)
    from umkit.backends.counters import cupti as ucupti
    info["libcupti_on_sys_path"] = ucupti.find_libcupti()
    print("libcupti copies on sys.path:", info["libcupti_on_sys_path"], flush=True)
    try:
        import cupti.cupti as cc
        info["cupti_module"] = getattr(cc, "__file__", "?")
        info["cupti_version"] = int(cc.get_version())
    except Exception as e:  # noqa: BLE001
        info["cupti_import_error"] = f"{type(e).__name__}: {e}"
    print("cupti:", json.dumps({k: v for k, v in info.items() if k.startswith("cupti_")}),
          flush=True)

    doc = {"versions": info}
    try:
        b = umkit.use(os.environ.get("UMKIT_BACKEND", "cuda"))
        print("backend:", b, flush=True)
        if b.model_time and not os.environ.get("UMKIT_SMOKE_SIM"):
            check("a GPU backend", False, "the backend is sim: this step checks the driver's "
                  "counters (UMKIT_SMOKE_SIM=1 runs it on sim as a dry run)")
        t0 = time.perf_counter()
        first = umkit.counters_on()
        doc["counters_on_s"] = round(time.perf_counter() - t0, 4)
        check("counters_on", isinstance(first, dict) and "bytes_h2d" in first,
              f"keys {sorted(first)} in {doc['counters_on_s']} s")
        from umkit.measure import fidelity
        gpu = fidelity.sequence(N)
        doc["cuda"] = gpu
        g = gpu["gpu_read"]
        check(f"gpu read {N >> 20} MiB: bytes_h2d ~ {N >> 20} MiB", near(g.get("bytes_h2d", 0), N),
              f"bytes_h2d={g.get('bytes_h2d', 0)} ({g.get('bytes_h2d', 0) / MiB:.2f} MiB), all: {g}")
        check("gpu read: gpu_faults > 0", g.get("gpu_faults", 0) > 0,
              f"gpu_faults={g.get('gpu_faults', 0)} fault_groups={g.get('gpu_fault_groups', 0)}")
        p = gpu["prefetch_to_cpu"]
        check(f"prefetch to cpu: bytes_d2h ~ {N >> 20} MiB", near(p.get("bytes_d2h", 0), N),
              f"bytes_d2h={p.get('bytes_d2h', 0)}, all: {p}")
        check(f"prefetch to cpu: prefetch_bytes_d2h ~ {N >> 20} MiB (migration cause USER)",
              near(p.get("prefetch_bytes_d2h", 0), N), f"prefetch_bytes_d2h={p.get('prefetch_bytes_d2h', 0)}")
        q = gpu["prefetch_to_gpu"]
        check(f"prefetch to gpu: prefetch_bytes_h2d ~ {N >> 20} MiB", near(q.get("prefetch_bytes_h2d", 0), N),
              f"prefetch_bytes_h2d={q.get('prefetch_bytes_h2d', 0)}, all: {q}")
        r = gpu["cpu_read_strided"]
        check("cpu read of gpu pages: cpu_faults > 0, bytes_d2h > 0",
              r.get("cpu_faults", 0) > 0 and r.get("bytes_d2h", 0) > 0, f"all: {r}")
        # the recorder, with counters, on cuda
        a = umkit.managed(64 * MiB // 4)
        with umkit.ecg.recorder("counters check") as rec:
            for i in range(6):
                if i % 2 == 0:
                    a.host[:: 1024] = float(i)               # CPU touches: pages go back
                umkit.increment(a)
                rec.step()
        rr = rec.result()
        a.free()
        per = [s.counters for s in rr.steps]
        doc["recorder"] = rr.to_dict()
        check("recorder per-step counters on cuda", len(per) == 6 and any(per),
              f"step_ms={rr.step_ms} counters={per}")
        # a burst past what the driver's event queue holds: exact, or flagged -- never silently low
        from umkit.backends.counters.cupti import incomplete
        big = umkit.managed(BURST // 4)
        big.host[:] = 1.0
        umkit.synchronize()
        b0 = fidelity.settled_counters()
        umkit.touch(big, 4)
        umkit.synchronize()
        b1 = fidelity.settled_counters()
        big.free()
        d = fidelity.counter_delta(b0, b1)
        why = incomplete(d)
        doc["burst"] = dict(nbytes=BURST, counters=d, incomplete=why)
        check("512 MiB fault burst: counted exactly or flagged incomplete",
              near(d.get("bytes_h2d", 0), BURST) or why is not None,
              f"bytes_h2d={d.get('bytes_h2d', 0) / MiB:.1f} MiB, gpu_faults={d.get('gpu_faults', 0)}"
              f", flagged: {why or 'no'}")
        umkit.counters_off()
    except Exception:  # noqa: BLE001
        tb = traceback.format_exc()
        check("cuda counters sequence ran", False, tb)
    # sim, same sequence (the other side of the fidelity axis)
    try:
        umkit.use("sim", profile="h200-pcie5", quiet=True)
        from umkit.measure import fidelity
        doc["sim"] = fidelity.sequence(N)
        print("sim:", json.dumps(doc["sim"]), flush=True)
    except Exception:  # noqa: BLE001
        doc["sim_error"] = traceback.format_exc()
        print(doc["sim_error"], flush=True)
    if "cuda" in doc and "sim" in doc:
        from umkit.measure.fidelity import counter_fidelity
        doc["fidelity"] = counter_fidelity(doc["sim"], doc["cuda"])
        print("fidelity (sim / cuda):", json.dumps(doc["fidelity"], indent=1), flush=True)
    doc["checks"] = C.rows(limit=2000)
    (res / "counters.json").write_text(json.dumps(doc, indent=1, default=str) + "\n")
    return C.finish("counters")


if __name__ == "__main__":
    sys.exit(main())
