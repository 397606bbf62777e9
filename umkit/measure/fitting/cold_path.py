"""The cold-path stage of a profile fit: the cost of a fault service whose host data the CPU
pushed out of its caches, from the class probe's ``context`` and ``context2`` sections (FIT data
only).

The model (``umkit/sim/host.py``, ``FaultPathCache``): the CPU touching X bytes pushes a part
``1 - exp(-X / fault_cold_bytes)`` of what the driver's fault path uses on the host out of its
caches (of what is still there); the next kernel that wakes the fault service (its first fault
on an idle GPU) pays that part of ``fault_cold_latency``, and each kernel that wakes it after that
``fault_cold_decay`` times what the one before paid.  The probe reads five fresh small buffers (32 and 128 KiB) by GPU faults in a
row after a context; in the model's terms, read k (1..5) pays

    C * (1 - exp(-X / S)) * r**(k - 1 + b)

more than the same read after nothing (the median of reads 2-5 of the ``none`` context, the
same size), where X is what the context's CPU touched (512, 64 or 8 MiB: a NumPy array written,
rewritten or read, or a managed buffer the CPU wrote; 0 for a device array the GPU filled) and b
is 1 where the GPU read the CPU-written buffer between (``free_gpu_managed``,
``alive_gpu_managed``: that read was the first fault service after the sweep), else 0.  C, r and
S are fitted by least squares over every read of every file (r and S on grids, C linear), each
time divided by its lease's host speed (the manifest's ``host_speed``, default 1.0; the cold cost is host
work, like ``host_speed``'s other times); each file's own fit is reported beside the pooled one,
so the spread between leases shows.

The validation workloads (``umkit/measure/validation_set.py``: ``small_read_*``,
``small_roundtrip_*``, and every other workload that faults after a CPU sweep) are never read
here.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

MiB = 1 << 20

#: each context: (bytes the CPU touched, fault services between that and the first small read)
CONTEXTS = {"free_cpu_managed": (512 * MiB, 0), "free_gpu_managed": (512 * MiB, 1),
            "alive_gpu_managed": (512 * MiB, 1), "free_device": (0, 0),
            "numpy_fresh_512m": (512 * MiB, 0), "numpy_rewrite_512m": (512 * MiB, 0),
            "numpy_rewrite_64m": (64 * MiB, 0), "numpy_rewrite_8m": (8 * MiB, 0),
            "numpy_read_512m": (512 * MiB, 0), "managed_cpu_512m_alive": (512 * MiB, 0),
            "managed_cpu_64m_alive": (64 * MiB, 0)}
#: the grids searched: the decay per fault service, the sweep that evicts 1 - 1/e
DECAYS = np.round(np.arange(0.0, 0.96, 0.01), 2)
SWEEPS = np.round(2.0 ** np.arange(2, 11.01, 0.125)) * MiB


def extras(path, hs: float = 1.0) -> list:
    """The points of one class probe file measured at host speed ``hs``: (file, bytes, context,
    swept bytes, faults between, read index k, extra ms at host speed 1)."""
    if not (isinstance(hs, (int, float)) and not isinstance(hs, bool) and hs > 0
            and math.isfinite(hs)):
        raise ValueError(f"{path}: the host speed must be a positive number, not {hs!r}")
    try:
        d = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: cannot read it as JSON ({e})")
    if not isinstance(d, dict):
        raise ValueError(f"{path}: not a class_probe.py file (a JSON object with sections)")
    rows = d.get("context", []) + d.get("context2", [])
    if not rows:
        raise ValueError(f"{path}: no 'context' or 'context2' section")
    try:
        for r in rows:
            runs = np.asarray(r["runs_ms"], dtype=float)
            if runs.ndim != 2 or runs.shape[1] < 2 or not np.isfinite(runs).all() \
                    or not isinstance(r["bytes"], int) or not isinstance(r["context"], str):
                raise ValueError
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"{path}: every context row needs 'bytes' (an integer), 'context' and "
                         "'runs_ms' (runs of the same number, two or more, of finite ms)")
    out = []
    for nbytes in sorted({r["bytes"] for r in rows}):
        here = [r for r in rows if r["bytes"] == nbytes]
        none = [r for r in here if r["context"] == "none"]
        if not none:
            raise ValueError(f"{path}: no 'none' context at {nbytes} B to measure against")
        base = float(np.median([x for r in none for run in r["runs_ms"] for x in run[1:]]))
        for r in here:
            if r["context"] not in CONTEXTS:
                continue
            swept, between = CONTEXTS[r["context"]]
            med = np.median(np.asarray(r["runs_ms"], dtype=float), axis=0) - base
            out += [(path, nbytes, r["context"], swept, between, k + 1, float(e) / hs)
                    for k, e in enumerate(med)]
    return out


def model(points, C, r, S) -> np.ndarray:
    """What the model adds to each point's read (ms)."""
    x = np.array([p[3] for p in points], dtype=float)
    n = np.array([p[5] - 1 + p[4] for p in points], dtype=float)
    return C * (1 - np.exp(-x / S)) * r ** n


def fit(points) -> tuple[float, float, float, float]:
    """(C ms, r, S bytes, rms ms): least squares over the points."""
    e = np.array([p[6] for p in points])
    best = None
    for S in SWEEPS:
        for r in DECAYS:
            m = model(points, 1.0, r, S)
            if not m.any():
                continue
            c = max(0.0, float(e @ m / (m @ m)))
            rms = float(np.sqrt(np.mean((e - c * m) ** 2)))
            if best is None or rms < best[3] - 1e-12:
                best = (c, float(r), float(S), rms)
    if best is None or not all(math.isfinite(x) for x in best):
        raise ValueError("nothing to fit: no context swept the CPU's caches (the fit needs the "
                         "8, 64 or 512 MiB contexts), or the reads are not finite")
    return best
