"""Diagnose the flaky first fault phase of the `counters` step (H200, runs 7-9 and repeats: the
first fault-driven 256 MiB read was counted right in 2 of 6 runs, short 175-232 MiB, with no
GPU-fault records).  Each variant runs in a fresh process (a fresh CUPTI session) and reports,
for each fault-driven read phase, the bytes counted, the GPU-fault records, dropped records and
the records' time span relative to the kernel's launch and the synchronize.

    python3 .ci/gpu_counters_diag.py [results-dir] [repeats]

Variants:  ci     -- as the counters step: warm-up 16 MiB, then 256, 256, 64 MiB reads
           sleep  -- 1 s after counters_on before the first read, then 256, 256, 64 MiB
           sizes  -- 64, 128, 256, 512 MiB reads in that order
Writes counters_diag.json: per variant, per repeat, per phase.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

MiB = 1 << 20
VARIANTS = {"ci": (0.0, True, [256, 256, 64]), "sleep": (1.0, False, [256, 256, 64]),
            "sizes": (0.0, False, [64, 128, 256, 512])}


def child(variant: str) -> dict:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import umkit
    from umkit.measure import fidelity
    from umkit.backends.counters.cupti import COLLECTOR
    umkit.use("cuda")
    pause, warm, sizes = VARIANTS[variant]
    umkit.counters_on()
    sink = umkit.device_array(1)
    if warm:
        w = umkit.managed((16 * MiB) // 4)
        w.host[:] = 1.0
        umkit.touch(w, 4, sink=sink)
        umkit.synchronize()
        w.free()
    time.sleep(pause)
    phases = []
    for mib in sizes:
        a = umkit.managed(mib * MiB // 4)
        a.host[:] = 1.0
        umkit.synchronize()
        COLLECTOR.log_start()
        before = umkit.counters()
        t_launch = COLLECTOR.clock()
        umkit.touch(a, 4, sink=sink)
        umkit.synchronize()
        t_sync = COLLECTOR.clock()
        time.sleep(0.2)
        recs = COLLECTOR.log_stop()
        after = umkit.counters()
        d = fidelity.counter_delta(before, after)
        h2d = [r for r in recs if r[1] == "BYTES_TRANSFER_HTOD"]
        faults = [r for r in recs if r[1] == "GPU_PAGE_FAULT"]
        ts = [r[0] for r in recs if r[0]]
        phases.append(dict(
            mib=mib, bytes_h2d_mib=round(d.get("bytes_h2d", 0) / MiB, 2),
            ok=abs(d.get("bytes_h2d", 0) - mib * MiB) <= 0.05 * mib * MiB and d.get("gpu_faults", 0) > 0,
            gpu_faults=d.get("gpu_faults", 0), dropped=d.get("dropped_records", 0),
            records=len(recs), h2d_records=len(h2d), fault_records=len(faults),
            unmapped=COLLECTOR.unmapped,
            first_record_us_after_launch=round((min(ts) - t_launch) / 1e3, 1) if ts else None,
            last_record_us_after_sync=round((max(ts) - t_sync) / 1e3, 1) if ts else None,
            kernel_ms=round((t_sync - t_launch) / 1e6, 3),
            causes=sorted({r[3] for r in h2d})))
        a.free()
    umkit.counters_off()
    return dict(variant=variant, phases=phases, error=COLLECTOR.error)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print("RESULT " + json.dumps(child(sys.argv[2])), flush=True)
        return 0
    res = Path(sys.argv[1] if len(sys.argv) > 1 else "gpu-ci-results")
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    res.mkdir(parents=True, exist_ok=True)
    out = []
    for rep in range(reps):
        for v in VARIANTS:
            p = subprocess.run([sys.executable, __file__, "--child", v], capture_output=True,
                               text=True, timeout=120, env=dict(os.environ))
            line = [x for x in p.stdout.splitlines() if x.startswith("RESULT ")]
            r = json.loads(line[0][7:]) if line else dict(variant=v, error=p.stderr[-2000:])
            r["repeat"] = rep
            out.append(r)
            print(v, rep, json.dumps([(ph["mib"], ph["bytes_h2d_mib"], ph["fault_records"],
                                       ph["first_record_us_after_launch"]) for ph in r.get("phases", [])]),
                  r.get("error") or "", flush=True)
    (res / "counters_diag.json").write_text(json.dumps(out, indent=1) + "\n")
    first = [r["phases"][0]["ok"] for r in out if r.get("phases")]
    print(f"first phase right in {sum(first)}/{len(first)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
