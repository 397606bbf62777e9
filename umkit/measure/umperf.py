"""A port of NVIDIA's cuda-samples UnifiedMemoryPerf (Samples/6_Performance/UnifiedMemoryPerf:
matrixMultiplyPerf.cu + commonKernels.cu) to umkit's public API.

The sample multiplies two square float matrices with a 32x32 shared-memory tiled kernel, for
matrices of 4 KB to 16 MB (32x32 .. 2048x2048), under eight memory strategies, and prints the
average "overall time" per iteration: the CPU writing A and B, moving data to the GPU (or not),
the kernel, moving C back (or not), and the CPU checking C.

    strategy   sample name                                  here
    UMhint     Managed_Memory_With_Hints                    managed, prefetch to GPU / back to CPU, waits
    UMhntAs    Managed_Memory_With_Hints_FullyAsync         same, one wait at the end
    UMeasy     Managed_Memory_NoHints                       managed, page faults both ways
    0Copy      Zero_Copy                                    pinned (mapped) host memory read by the kernel
    MemCopy    Memcpy_HostMalloc_DeviceCudaMalloc           NumPy (pageable) <-> device, synchronous copies
    CpAsync    MemcpyAsync_HostMalloc_DeviceCudaMalloc      same, copies on the stream
    CpHpglk    Memcpy_HostCudaHostAlloc_DeviceCudaMalloc    pinned <-> device, synchronous copies
    CpPglAs    MemcpyAsync_HostCudaHostAlloc_DeviceCudaMalloc  same, one wait at the end

The CPU's check of C is the sample's: every element compared exactly (``np.array_equal``) with
the product the same kernel computed on device memory before the loop (until 2026-12-01 this
port checked with ``np.allclose`` against NumPy's product, whose temporaries made the "CPU
access" stage several times the sample's).

Differences from the sample, on purpose: timing is ``umkit.now()`` (a wall clock on GPUs, model
time on sim) around the same regions, in Python, so the smallest sizes carry Python's call
overhead (tens of microseconds); the FullyAsync variant doesn't hold the stream with a spin
kernel on a pinned latch (it only delays the start of the enqueued work); on sim without
arithmetic (``compute=False``) the comparison runs on the model's data and its answer is not
checked.

The same program runs on ``cuda``/``hip`` (the kernel from its CUDA source through CuPy) and on
``sim`` (a NumPy twin that declares the kernel's cost: each input re-read ``n / 32`` times,
``2 n^3`` flops).  ``--compare-sim`` runs it on the GPU and then on sim and prints both tables
with sim/real per cell and the order of the strategies per size.

The command-line run (the GPU CI's umperf step) is ``umkit measure run umperf``:

    umkit measure run umperf [--runs 20] [--out umperf.json] [--md umperf.md] [--compare-sim]

:func:`published` loads the newest committed run (``benchmarks/results/<run>/umperf.json``) and
:func:`side_by_side` puts it beside the same program run on sim now (notebook 07b, section 5).
"""
from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np

from .. import api as umkit
from ..user_kernels import kernel as _kernel
from ..errors import InvalidArgument
from ..results import RESULTS, newest  # noqa: F401 - RESULTS: where the runs are
from ..runtime import backend as _backend, backend_name as _backend_name
from ..runtime.lang import text, tr

TILE = 32
STRATEGIES = ("UMhint", "UMhntAs", "UMeasy", "0Copy", "MemCopy", "CpAsync", "CpHpglk", "CpPglAs")
DIMS = (32, 64, 128, 256, 512, 1024, 2048)          # 4 KB .. 16 MB per matrix

SOURCE = r"""
#define TILE 32
extern "C" __global__ void matrixMultiplyKernel(float *C, const float *A, const float *B,
                                                unsigned int n)
{
    // one 32x32 tile of C per block; walk the tiles of A's row band and B's column band
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    unsigned int row0 = n * TILE * blockIdx.y;        // first element of A's band
    unsigned int col0 = TILE * blockIdx.x;            // first element of B's band
    float acc = 0.0f;
    for (unsigned int a = row0, b = col0; a <= row0 + n - 1; a += TILE, b += TILE * n) {
        As[ty][tx] = A[a + n * ty + tx];
        Bs[ty][tx] = B[b + n * ty + tx];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[n * TILE * blockIdx.y + TILE * blockIdx.x + n * ty + tx] = acc;
}
"""


def _twin(C, A, B, n):
    np.matmul(A.reshape(int(n), int(n)), B.reshape(int(n), int(n)), out=C.reshape(int(n), int(n)))


MATMUL = None


def matmul(C, A, B, n, stream):
    global MATMUL
    if MATMUL is None or MATMUL._backend is not _backend():
        MATMUL = _kernel("matrixMultiplyKernel", SOURCE, sim=_twin)
        MATMUL._backend = _backend()
    MATMUL((n // TILE, n // TILE), (TILE, TILE), (C, A, B, np.uint32(n)), stream=stream,
           reads={A: n / TILE, B: n / TILE}, writes=[C], flops=2.0 * n ** 3)


def run_cell(n: int, strat: str, runs: int, X, Y, expect, check: bool) -> dict:
    """The sample's runMatrixMultiplyKernel for one size and strategy: mean ms per stage."""
    size = n * n
    kind = {"UMhint": "managed", "UMhntAs": "managed", "UMeasy": "managed", "0Copy": "pinned",
            "MemCopy": "numpy", "CpAsync": "numpy", "CpHpglk": "pinned", "CpPglAs": "pinned"}[strat]
    copy = strat.startswith(("Mem", "Cp"))
    hints = strat.startswith("UMh")
    is_async = strat in ("UMhntAs", "CpAsync", "CpPglAs")
    s = umkit.Stream()
    host_arrays, dev = [], None
    if kind == "numpy":
        hA, hB, hC = (umkit.pageable(size) for _ in range(3))      # malloc'd host memory
        cA, cB, cC = hA, hB, hC                                     # copies use the arrays
    else:
        host_arrays = [umkit.empty(size, "float32", kind) for _ in range(3)]
        hA, hB, hC = (x.host for x in host_arrays)                  # the CPU's view
        cA, cB, cC = host_arrays                                    # copies use the allocations
    if copy:
        dev = [umkit.device_array(size) for _ in range(3)]
        dA, dB, dC = dev
    else:
        dA, dB, dC = host_arrays
    if hints:
        for x in host_arrays:
            x.prefetch("cpu")
    # the sample fills the host buffers with 0 first, so no first-access faults are timed
    for h in (hA, hB, hC):
        h[:] = 0.0
    umkit.synchronize()
    stages = {k: [] for k in ("cpu", "to_gpu", "kernel", "from_gpu", "sync", "overall")}
    now = umkit.now
    try:
        for i in range(runs):
            t0 = now()
            hA[:] = X
            hB[:] = Y
            t1 = now()
            if copy:
                if is_async:
                    umkit.copy(dA, cA, stream=s)
                    umkit.copy(dB, cB, stream=s)
                else:
                    umkit.copy(dA, cA, stream=s)
                    s.synchronize()
                    umkit.copy(dB, cB, stream=s)
                    s.synchronize()
            if hints:
                for x in (dA, dB, dC):
                    x.prefetch("gpu", stream=s)
                if not is_async:
                    s.synchronize()
            t2 = now()
            matmul(dC, dA, dB, n, s)
            if not is_async:
                s.synchronize()
            t3 = now()
            if hints:
                for x in (dA, dB, dC):
                    x.prefetch("cpu", stream=s)
                if not is_async:
                    s.synchronize()
            if copy:
                umkit.copy(cC, dC, stream=s)
                if not is_async:
                    s.synchronize()
            t4 = now()
            if is_async:
                s.synchronize()
            t5 = now()
            # the sample's verifyMatrixData: every element of C compared exactly with the
            # product the same kernel computed on device memory before the loop
            same = np.array_equal(hC, expect)
            if check and not same:
                raise AssertionError(f"{strat} n={n}: wrong product")
            t6 = now()
            for k, v in (("cpu", (t1 - t0) + (t6 - t5)), ("to_gpu", t2 - t1), ("kernel", t3 - t2),
                         ("from_gpu", t4 - t3), ("sync", t5 - t4), ("overall", t6 - t0)):
                stages[k].append(v * 1e3)
    finally:
        for x in host_arrays + (dev or []):
            x.free()
    return {k: round(float(np.mean(v)), 5) for k, v in stages.items()}


def reference(X, Y, n) -> np.ndarray:
    """The product by the same kernel on device memory (the sample computes its reference this
    way, before the timed loop), so the check compares exactly, as verifyMatrixData does."""
    dA, dB, dC = (umkit.device_array(n * n) for _ in range(3))
    hX, hY = umkit.pinned(n * n), umkit.pinned(n * n)
    try:
        hX.host[:] = X
        hY.host[:] = Y
        umkit.copy(dA, hX)
        umkit.copy(dB, hY)
        matmul(dC, dA, dB, n, None)
        umkit.synchronize()
        return umkit.read_back(dC).ravel()
    finally:
        for x in (dA, dB, dC, hX, hY):
            x.free()


def run_all(runs: int, dims=DIMS, progress=True) -> dict:
    b = _backend()
    sim = b.name == "sim"
    check = not sim or getattr(b, "compute", True)
    rng = np.random.default_rng(0)
    table = {}
    w = [umkit.device_array(TILE * TILE) for _ in range(3)]    # compile + load the kernel: untimed
    matmul(w[0], w[1], w[2], TILE, None)
    umkit.synchronize()
    for x in w:
        x.free()
    for n in dims:
        X = rng.uniform(0, 10, n * n).astype(np.float32)
        Y = rng.uniform(0, 10, n * n).astype(np.float32)
        expect = reference(X, Y, n) if check else np.zeros(n * n, np.float32)
        for strat in STRATEGIES:
            table[f"{n * n * 4}:{strat}"] = run_cell(n, strat, runs, X, Y, expect, check)
            if progress:
                print(".", end="", flush=True)
    if progress:
        print()
    return dict(backend=_backend_name(), device=b.device_name(0), runs=runs,
                date=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                dims=list(dims), strategies=list(STRATEGIES), cells=table)


def combine_tables(tables: list[dict], how: str = "min") -> dict:
    """One table from several rounds of :func:`run_all`: each cell's stages combined over the
    rounds by ``how`` ("min": the fastest round, as ``umkit.measure.calibrate.STATISTIC``; or
    "median"); each round's own table is kept by the caller."""
    from .calibrate import reducer
    f = reducer(how)
    first = tables[0]
    cells = {k: {st: round(float(f([t["cells"][k][st] for t in tables])), 5) for st in v}
             for k, v in first["cells"].items()}
    return dict(first, cells=cells, rounds=len(tables), date=tables[-1]["date"],
                note=f"{'fastest' if how == 'min' else 'median'} of {len(tables)} rounds per cell")


def measure_with_fit(runs: int, dims=DIMS, rounds: int = 4, fit_nbytes: int = 256 << 20,
                     progress=False) -> dict:
    """The card's table taken in turns with ``umkit calibrate``'s fit set: each round runs the
    fit set once, then the whole table; each cell and each fit workload is combined over the
    rounds as ``calibrate`` combines its own (:data:`umkit.measure.calibrate.STATISTIC`, the fastest
    round).  The fit set, taken over the same minutes, is what sim's host speed is fitted on
    (:func:`umkit.measure.calibrate.fit_host_speed`), so a host that slows down for a while weighs
    on both alike."""
    from . import calibrate
    from .. import validate as V
    rounds = V.integer(rounds, "rounds", lo=1, hi=100, hint="e.g. rounds=4")
    fit_runs, tables = calibrate.in_turns(rounds, fit_nbytes, lambda: run_all(runs, dims, progress=progress))
    return dict(table=combine_tables(tables, calibrate.STATISTIC), rounds=tables,
                fit=calibrate.combine(fit_runs), fit_runs=fit_runs, fit_nbytes=fit_nbytes,
                statistic=calibrate.STATISTIC)


def size_label(nbytes):
    return f"{nbytes >> 10} KB" if nbytes < (1 << 20) else f"{nbytes >> 20} MB"


def table_md(res: dict, title: str) -> str:
    """The table of ``res`` as Markdown under a heading in the learner's language
    (``lang.text``: the template is translated, then filled; the numbers stay, and a device's
    name is translated only where it is umkit's own, a sim profile's title)."""
    lines = ["### " + text("{title}: average overall time (ms) of {runs} iterations, {device} "
                           "({backend})", title=title, runs=res["runs"], device=tr(res["device"]),
                           backend=res["backend"]), "",
             f"| {tr('size')} | " + " | ".join(STRATEGIES) + " |", "|---|" + "---|" * len(STRATEGIES)]
    for n in res["dims"]:
        nb = n * n * 4
        lines.append(f"| {size_label(nb)} | " + " | ".join(
            f"{res['cells'][f'{nb}:{s}']['overall']:.4f}" for s in STRATEGIES) + " |")
    return "\n".join(lines)


def order(res: dict, nb: int) -> list[str]:
    return sorted(STRATEGIES, key=lambda s: res["cells"][f"{nb}:{s}"]["overall"])


def compare(real: dict, sim: dict, tol=1.5, min_bytes=256 << 10, margin=1.10) -> dict:
    """sim/real per cell; cells >= 256 KB within x/÷tol; per size, the pairs of strategies the
    card separates by more than ``margin`` that sim orders the same way."""
    cells, within, total, right, wrong, wrong_pairs = {}, 0, 0, 0, 0, []
    for n in real["dims"]:
        nb = n * n * 4
        for s in STRATEGIES:
            r, p = real["cells"][f"{nb}:{s}"]["overall"], sim["cells"][f"{nb}:{s}"]["overall"]
            ratio = p / r if r > 0 else float("nan")
            cells[f"{nb}:{s}"] = round(ratio, 3)
            if nb >= min_bytes:
                total += 1
                within += bool(1 / tol <= ratio <= tol)
        if nb < min_bytes:
            continue
        for i, x in enumerate(STRATEGIES):
            for y in STRATEGIES[i + 1:]:
                rx, ry = real["cells"][f"{nb}:{x}"]["overall"], real["cells"][f"{nb}:{y}"]["overall"]
                px, py = sim["cells"][f"{nb}:{x}"]["overall"], sim["cells"][f"{nb}:{y}"]["overall"]
                lo, hi = sorted((rx, ry))
                if lo <= 0 or hi / lo < margin:
                    continue
                if (rx < ry) == (px < py):
                    right += 1
                else:
                    wrong += 1
                    f, sl = (x, y) if rx < ry else (y, x)
                    wrong_pairs.append(f"{size_label(nb)}: {f} < {sl}")
    return dict(ratio=cells, within=within, total=total, tolerance=tol, min_bytes=min_bytes,
                ordering_right=right, ordering_wrong=wrong, wrong_pairs=wrong_pairs)


def ratio_md(real, c) -> str:
    lines = ["### " + text("sim / real per cell (cells >= 256 KB within x/÷{tol}: {within}/{total}; "
                           "strategy pairs ordered right {right}, wrong {wrong})",
                           tol=c["tolerance"], within=c["within"], total=c["total"],
                           right=c["ordering_right"], wrong=c["ordering_wrong"]), "",
             f"| {tr('size')} | " + " | ".join(STRATEGIES) + " |", "|---|" + "---|" * len(STRATEGIES)]
    for n in real["dims"]:
        nb = n * n * 4
        lines.append(f"| {size_label(nb)} | " + " | ".join(f"{c['ratio'][f'{nb}:{s}']:.2f}" for s in STRATEGIES) + " |")
    lines += ["- " + text("ordering wrong: {pair}", pair=p) for p in c["wrong_pairs"]]
    return "\n".join(lines)


def published(results_dir=None) -> dict | None:
    """The newest committed UnifiedMemoryPerf run measured on a GPU (``<run>/umperf.json`` under
    ``benchmarks/results/``, written by the GPU CI's umperf step), as
    ``dict(path, run, measured)`` -- ``measured`` holds the card's table (device, date, runs,
    dims, cells) -- or None when no run has been recorded (then nothing is shown, nothing is
    made up)."""
    def pick(doc):
        m = doc.get("measured") if isinstance(doc, dict) else None
        if isinstance(m, dict) and m.get("backend") != "sim" and "cells" in m:
            return m.get("date", ""), doc        # a card's table ("YYYY-MM-DD HH:MM UTC")
        return None
    hit = newest("*/umperf.json", pick, results_dir, "umperf",
                 "it is written by umkit measure run umperf")
    if hit is None:
        return None
    shown, run, doc, path = hit
    return dict(path=shown, run=run, measured=doc["measured"], **_host_speed_of(doc, Path(path)))


def _valid_host_speed(v) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None


def _host_speed_of(doc: dict, umperf_json: Path) -> dict:
    """The host speed sim should run with beside a recorded card table: the one its run's
    ``calibrate --compare`` fitted on the fit set (kept in the umperf document ``doc`` since it
    was measured on the same machine the same day, or in calibrate_compare.json beside it); 1.0 when none was
    recorded."""
    def beside() -> dict:
        try:
            d = json.loads((umperf_json.parent / "calibrate_compare.json").read_text())
        except (OSError, ValueError):
            return {}
        return d if isinstance(d, dict) else {}
    for source in (lambda: doc, beside):
        v = _valid_host_speed(source().get("host_speed"))
        if v is not None:
            return dict(host_speed=v,
                        host_speed_source="fitted by calibrate --compare on that run's fit set")
    return dict(host_speed=1.0, host_speed_source="the profile's own host (none recorded)")


def host_speed_from(path) -> dict:
    """The host speed a ``calibrate --compare`` JSON fitted on its fit set, as
    ``{host_speed, host_speed_source}``; 1.0 (and a source that says why) when the file is
    missing.  A file that is not such a JSON object, or holds no usable host speed, is an
    :class:`~umkit.errors.InvalidArgument` naming ``path``."""
    from ..validate import not_a_file
    p = Path(path)
    if not p.exists():
        return dict(host_speed=1.0, host_speed_source=f"{p.name} not found: the profile's own host")
    why = not_a_file(p, "--host-speed-from")
    if why or p.stat().st_size > 64 << 20:
        raise InvalidArgument(why or f"host speed from {p.name}: larger than 64 MiB",
                              argument="--host-speed-from",
                              hint="pass the calibrate_compare.json of a GPU run")
    try:
        d = json.loads(p.read_text())
    except (OSError, ValueError, RecursionError) as e:
        raise InvalidArgument(f"host speed from {p.name}: not readable JSON ({type(e).__name__})",
                              hint="pass the calibrate_compare.json of a GPU run") from None
    v = _valid_host_speed(d.get("host_speed")) if isinstance(d, dict) else None
    if v is None:
        raise InvalidArgument(f"host speed from {p.name}: no positive 'host_speed' in it "
                              "(it is not a calibrate --compare JSON)",
                              hint="pass the calibrate_compare.json of a GPU run, or --host-speed X")
    return dict(host_speed=v, host_speed_source=f"fitted by calibrate --compare on the fit set ({p.name})")


def side_by_side(rec: dict | None = None, runs: int | None = None,
                 profile: str | None = None, host_speed: float | None = None) -> dict | None:
    """The recorded card table (:func:`published`, or ``rec``) beside the same program run on sim
    now (``runs`` iterations per cell, by default as many as the card ran: the first iteration
    of a cell differs from the rest, so the means compare only over the same count), with
    sim/real per cell and the order of the strategies per size.  sim runs with the host speed
    recorded for that machine (``rec['host_speed']``; ``host_speed`` overrides it, 1.0 is the
    profile's own host).  None when nothing is recorded.  The active backend is restored
    afterwards."""
    from ..runtime import using
    rec = rec if rec is not None else published()
    if rec is None:
        return None
    real = rec["measured"]
    host = float(rec.get("host_speed", 1.0)) if host_speed is None else float(host_speed)
    with using("sim", compute=False, host_speed=host, **({"profile": profile} if profile else {})):
        sim = run_all(runs or int(real.get("runs", 20)), tuple(real["dims"]), progress=False)
    c = compare(real, sim)
    how = (text("host speed {speed}: {source}", speed=f"{host:.2f}",
                source=tr(rec.get("host_speed_source", "given"))) if host != 1.0
           else tr("the profile's own host"))
    return dict(run=rec.get("run"), real=real, sim=sim, comparison=c, host_speed=host,
                text="\n\n".join([table_md(real, text("measured on the card ({run}, {date})",
                                                       run=rec.get("run"), date=real["date"])),
                                   table_md(sim, text("the same program on sim now (the model's "
                                                      "prediction; {how})", how=how)),
                                   ratio_md(real, c)]))
