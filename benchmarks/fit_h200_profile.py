"""Fit the shipped ``h200-pcie5`` sim profile from our own H200 micro-benchmark results.

    python benchmarks/fit_h200_profile.py benchmarks/results/2026-11-29-h200-microbench.json

Maps the micro-benchmark JSON onto umkit.measure.calibrate's workload names, fits the fault-path
parameters with ``umkit.measure.calibrate.fit`` (the same code ``umkit calibrate`` uses), takes the
directly measured numbers as they are, and rewrites umkit/sim/profiles/h200-pcie5.json with every
value's source.  Then predicts each workload on sim and prints predicted/measured.
"""
import json
import sys
from pathlib import Path

import umkit
from umkit.measure import calibrate

MiB = 1 << 20


def measurements(raw: dict) -> dict:
    r = raw["results"]
    g, c, rm = r["gpu_fault_read"], r["cpu_fault_read"], r["read_mostly"]
    return {
        "pinned_h2d": r["pinned_copy"]["h2d_ms"], "pinned_d2h": r["pinned_copy"]["d2h_ms"],
        "prefetch_h2d": r["prefetch"]["h2d_ms"], "prefetch_d2h": r["prefetch"]["d2h_ms"],
        "gpu_fault_read": g["contiguous"]["ms"], "gpu_touch_4k": g["stride_4KiB"]["ms"],
        "gpu_touch_64k": g["stride_64KiB"]["ms"], "gpu_touch_2m": g["stride_2MiB"]["ms"],
        "cpu_read_full": c["full_read_ms"], "cpu_touch_64k": c["stride_64KiB"]["ms"],
        "cpu_touch_2m": c["stride_2048KiB"]["ms"], "host_read": c["host_resident_read_ms"],
        "read_mostly_first": rm["gpu_read1_ms"], "read_mostly_cpu": rm["cpu_read_ms"],
        "read_mostly_reread": rm["gpu_read2_ms"],
        "accessed_by": r["zero_copy"]["managed_remote_read_ms"],
        "device_read": r["device_bw"]["cudaMalloc_256MiB_read_ms"],
        "pingpong": r["pingpong"]["with_cpu_reads_ms_per_iter"],
    }


def main(path, calib=None):
    raw = json.loads(Path(path).read_text())
    m = measurements(raw)
    if calib:        # umkit's own calibration workloads (umkit calibrate --compare's "measured")
        c = json.loads(Path(calib).read_text())
        m = {r["workload"]: r["measured_ms"] for r in c["rows"]}
    p = calibrate.fit(m, 256 * MiB)
    if calib:        # a kernel launched from Python is in device_read; keep the kernel-only HBM rate
        p.pop("hbm_bw", None)
    r = raw["results"]
    ls, al = r["launch_sync"], r["alloc"]
    pf = r["prefetch"]
    direct = dict(
        kernel_launch=ls["empty_kernel_events_us_per_launch"],
        sync_device=ls["cudaDeviceSynchronize_idle_us"],
        sync_stream=ls["cudaStreamSynchronize_created_idle_us"],
        sync_event=ls["cudaEventSynchronize_idle_us"],
        alloc_managed=al["managed_1MiB_alloc_us"], alloc_device=al["device_64MiB_alloc_us"],
        alloc_pinned_per_mib=al["pinned_alloc_us_per_MiB_slope"],
        prefetch_latency=pf["h2d_64KiB_us"] - 65536 / (p["prefetch_h2d_bw"] * 1e3),
        vram=r["device"]["mem_total"],
    )
    src = (f"umkit team, lent NVIDIA H200 (PCIe Gen5 x16, driver 580.159.04, CUDA 13.0), "
           f"{raw['env']['date_utc'][:10]}: benchmarks/results/{Path(path).name}")
    src_cal = (f"umkit team, lent NVIDIA H200 (PCIe Gen5 x16, driver 580.159.04, CUDA 13.0), "
               f"2026-11-29, umkit's calibration workloads: {calib}") if calib else src
    from umkit.sim.costs import PROFILE_DIR
    prof = PROFILE_DIR / "h200-pcie5.json"
    d = json.loads(prof.read_text())
    fitted = {"fault_batch_latency", "fault_unmap_latency", "fault_region_latency", "fault_bw",
              "cpu_fault_latency", "cpu_region_latency"}
    for k, v in {**p, **direct}.items():
        how = ("measured (prefetch device->host bandwidth, the rate CPU-fault migration is modelled at): "
               if k == "cpu_fault_bw" else "fitted by umkit.measure.calibrate.fit (fault-path model, relative least squares) to " if k in fitted
               else "measured: ") + (src_cal if k in p else src)
        d["params"][k]["value"] = round(float(v), 4)
        d["params"][k]["source"] = how
    d["params"]["fault_granularity"] = {"value": 4096, "unit": "B", "source":
        "fitted: one GPU fault per 4 KiB page touched reproduces the contiguous vs 64 KiB-stride "
        "fault-read times (24.0 vs 12.9 ms) of " + src}
    d["title"] = "NVIDIA H200 (141 GB HBM3e) on a PCIe Gen5 x16 host, CUDA 13"
    prof.write_text(json.dumps(d, indent=1) + "\n")
    print(f"wrote {prof}")
    umkit.use("sim", quiet=True, compute=False)
    pred = calibrate.run_workloads(256 * MiB)
    print(f"{'workload':<22}{'H200 ms':>10}{'sim ms':>10}{'ratio':>8}")
    for k, v in m.items():
        pv = pred.get(k)
        print(f"{k:<22}{v:>10.3f}{pv:>10.3f}{pv / v:>8.2f}{'' if 0.8 <= pv / v <= 1.25 else '  <-- off'}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "benchmarks/results/2026-11-29-h200-microbench.json",
         sys.argv[2] if len(sys.argv) > 2 else None)
