"""rocprof-sys's unified-memory report, ``unified_memory-<pid>.json``: whole-run totals (no
timeline, no addresses), read strictly.

The format, from AMD's writer (ROCm/rocm-systems, MIT licence,
``projects/rocprofiler-systems/source/lib/core/trace_cache/unified_memory_processor.cpp`` at
commit e17cb164ceac18dbae6b5dd5c4c9573e5618ab65, ``write_json_output``)::

    {"devices": [{"device_id": N, "device_name": "...",
                  "migrations": {"host_to_device": {"count", "avg_size_bytes",
                                 "min_size_bytes", "max_size_bytes", "total_size_bytes",
                                 "total_time_ns", "migration_throughput_gbps"},
                                 "device_to_host": {...}, "device_to_device": {...}}}],
     "summary": {"total_page_faults": N, "xnack_enabled": true/false,
                 "migration_triggers": {"gpu_page_fault", "cpu_page_fault", "prefetch",
                                        "ttm_eviction", "unknown"}}}

(an earlier version of the same file names the throughput ``bandwidth_gbps``; neither is
read.)  ``total_page_faults`` counts the ``rocm_kfd_page_fault`` samples (GPU page faults);
``migration_triggers.cpu_page_fault`` the migrations a CPU fault triggered (``handle``).
What umkit makes of it: the totals as counters (``bytes_h2d``, ``bytes_d2h``, ``bytes_peer``,
``gpu_faults``, ``cpu_faults``, and the trigger counts); asking it for an ECG, a residency
picture or a plan is a typed error (it has no steps and no addresses).
"""
from __future__ import annotations

import json
import math

from .model import MAX_NS, ProfilerFileError, ProfilerTrace, as_example, shown, text

MAX_BYTES = 16 << 20          # a summary is a few KiB
DIRECTIONS = {"host_to_device": "bytes_h2d", "device_to_host": "bytes_d2h",
              "device_to_device": "bytes_peer"}
FIELDS = ("count", "total_size_bytes", "total_time_ns")
HINT = "pass the unified_memory-<pid>.json rocprof-sys wrote"


MAX_DEVICES, MAX_TRIGGERS = 4096, 64       # a node's GPUs; the writer has 5 triggers


def count(v, where: str, path: str) -> int:
    """A count or a byte total: a whole number (an integral float too: the writer's JSON
    library may write one) in [0, 2**63)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or \
            (isinstance(v, float) and not (math.isfinite(v) and v.is_integer())) or \
            not 0 <= v <= MAX_NS:
        raise ProfilerFileError(f"{path}: {where}={shown(v)} is not a count", missing=where,
                                hint=HINT)
    return int(v)


def read(path: str, *, step=None, name: str | None = None,
         example: str | None = None) -> ProfilerTrace:
    from pathlib import Path
    p = Path(path)
    try:
        if p.stat().st_size > MAX_BYTES:
            raise ProfilerFileError(f"{path}: larger than {MAX_BYTES >> 20} MiB: not a "
                                    "rocprof-sys unified-memory summary", missing="a summary",
                                    hint=HINT)
        raw = p.read_bytes()
    except OSError as e:
        raise ProfilerFileError(f"{path}: cannot be read ({e.strerror or type(e).__name__})",
                                missing="a readable file", hint=HINT) from None
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ProfilerFileError(f"{path}: not JSON", missing="JSON", hint=HINT) from None
    if not isinstance(doc, dict):
        raise ProfilerFileError(f"{path}: not a JSON object", missing="devices", hint=HINT)
    for key in ("devices", "summary"):
        if key not in doc:
            raise ProfilerFileError(f"{path}: no {key!r}", missing=key, hint=HINT)
    devices, summary = doc["devices"], doc["summary"]
    if not isinstance(devices, list) or not isinstance(summary, dict):
        raise ProfilerFileError(f"{path}: 'devices' is not a list or 'summary' not an object",
                                missing="devices", hint=HINT)
    if len(devices) > MAX_DEVICES:
        raise ProfilerFileError(f"{path}: {len(devices)} devices, more than {MAX_DEVICES}",
                                missing="devices", hint=HINT)
    totals = dict.fromkeys(DIRECTIONS.values(), 0)
    names = []
    for i, d in enumerate(devices):
        w = f"devices[{i}]"
        if not isinstance(d, dict) or not isinstance(d.get("migrations"), dict):
            raise ProfilerFileError(f"{path}: {w} has no 'migrations'", missing=f"{w}.migrations",
                                    hint=HINT)
        if isinstance(d.get("device_name"), str) and len(names) < 8:
            names.append(text(d["device_name"], 100))
        for direction, key in DIRECTIONS.items():
            m = d["migrations"].get(direction)
            if not isinstance(m, dict):
                raise ProfilerFileError(f"{path}: {w}.migrations has no {direction!r}",
                                        missing=f"{w}.migrations.{direction}", hint=HINT)
            for f in FIELDS:
                count(m.get(f), f"{w}.migrations.{direction}.{f}", path)
            totals[key] += count(m["total_size_bytes"], direction, path)
    totals["gpu_faults"] = count(summary.get("total_page_faults"), "summary.total_page_faults",
                                 path)
    trig = summary.get("migration_triggers")
    if not isinstance(trig, dict):
        raise ProfilerFileError(f"{path}: summary has no 'migration_triggers'",
                                missing="summary.migration_triggers", hint=HINT)
    if len(trig) > MAX_TRIGGERS:
        raise ProfilerFileError(f"{path}: {len(trig)} migration triggers, more than "
                                f"{MAX_TRIGGERS}", missing="summary.migration_triggers",
                                hint=HINT)
    for k, v in trig.items():
        key = text(f"migrations_{k}", 64)
        totals[key] = count(v, f"summary.migration_triggers.{text(k, 40)}", path)
    totals["cpu_faults"] = totals.get("migrations_cpu_page_fault", 0)
    xnack = summary.get("xnack_enabled")
    tr = ProfilerTrace(name=name or ("example file built from the documented rocprof-sys "
                                     "report format" if example else "rocprof-sys recording"),
                       source="rocprof-sys unified-memory summary", backend="hip",
                       device="; ".join(names), path=str(path), steps=[],
                       step_kind="none (whole-run totals)", per_step=[], buffers=[], slices=[],
                       slices_dropped=0, rows=len(devices),
                       meta={"xnack_enabled": xnack if isinstance(xnack, bool) else None},
                       totals=totals)
    return as_example(tr, example) if example else tr
