"""The kit's own CUPTI records, saved to a file and read back.

While ``umkit.ecg.recorder()`` runs on cuda with counters on, CUPTI's unified-memory records are
kept as ``(timestamp ns, counter kind, value, cause)`` (``CuptiCollector.log``) and binned into
steps by the recorder's stamps (:func:`umkit.backends.counters.cupti.bin_records`).
:func:`save_records` writes them as JSON lines so they can be read again, anywhere, without a
GPU: the first line is a header ``{"format": "umkit.cupti-records/1", "device": ...,
"stamps": [step end, ...]}`` (CUPTI's clock, ns), then one record a line, ``[t, kind, value,
cause]`` or ``[t, kind, value, cause, address]`` (``address_log``).  Reading streams line by
line and sums with the same :class:`~umkit.backends.counters.cupti.Tally` as the live recorder,
so a saved run gives exactly the per-step counters the live one gave.
"""
from __future__ import annotations

import json

from ... import validate as V
from ...backends.counters.cupti import KINDS, Tally
from ...results import files
from .model import MAX_STEPS, Collector, ProfilerFileError

FORMAT = "umkit.cupti-records/1"
HINT = "pass a file umkit.ecg.traces.save_records() wrote"
BYTE_KINDS = {"BYTES_TRANSFER_HTOD": True, "BYTES_TRANSFER_DTOH": False}


def save_records(path, records, stamps, *, device: str = "", force: bool = False):
    """Write CUPTI records (``(t, kind, value, cause[, address])``) and the steps' end stamps."""
    V.flag(force, "force")
    p = V.output_path(path, "path", (".jsonl",))
    stamps = [int(s) for s in V.sequence(stamps, "stamps", hint="the recorder's step stamps")]
    if not stamps or len(stamps) > MAX_STEPS or stamps != sorted(stamps):
        raise ProfilerFileError(f"stamps: 1 to {MAX_STEPS} step ends in order", missing="stamps",
                                hint="the CUPTI clock at each step's end, growing")
    lines = [json.dumps({"format": FORMAT, "device": str(device), "stamps": stamps})]
    for r in records:
        r = list(r)
        if len(r) not in (4, 5) or r[1] not in KINDS:
            raise ProfilerFileError(f"record {r!r} is not (t, kind, value, cause[, address])",
                                    missing="record", hint=f"kind one of {KINDS}")
        lines.append(json.dumps([int(r[0]), r[1], int(r[2]), str(r[3])]
                                + ([int(r[4])] if len(r) == 5 and r[4] is not None else [])))
    return files.write(p, "\n".join(lines) + "\n", argument="path", force=force)


def read(path: str, *, step=None, name: str | None = None):
    with open(path, "rb") as f:
        try:
            head = json.loads(f.readline().decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise ProfilerFileError(f"{path}: the first line is not a JSON header", missing="header",
                                    hint=HINT) from None
        if not isinstance(head, dict) or head.get("format") != FORMAT:
            got = head.get("format") if isinstance(head, dict) else None
            raise ProfilerFileError(f"{path}: format {got!r}, not {FORMAT!r}",
                                    missing=f"format {got}", hint=HINT)
        stamps = head.get("stamps")
        if not isinstance(stamps, list) or not stamps or not all(
                isinstance(s, int) and not isinstance(s, bool) for s in stamps):
            raise ProfilerFileError(f"{path}: the header has no step stamps", missing="stamps",
                                    hint=HINT)
        starts = [stamps[0]] + stamps[:-1]
        col = Collector(FORMAT, str(path), [(a, b, "step") for a, b in zip(starts, stamps)],
                        "the recorder's step stamps", str(head.get("device", ""))[:200])
        tallies = [Tally() for _ in stamps]
        for n, line in enumerate(f, start=2):       # one record at a time
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                t, kind, value, cause = int(r[0]), str(r[1]), int(r[2]), str(r[3])
                addr = int(r[4]) if len(r) > 4 else None
            except (ValueError, TypeError, IndexError, KeyError):
                raise ProfilerFileError(f"{path}: line {n} is not [t, kind, value, cause]",
                                        missing=f"line {n}", hint=HINT) from None
            if kind not in KINDS:
                raise ProfilerFileError(f"{path}: line {n} has counter kind {kind!r}",
                                        missing=f"kind {kind}", hint=f"one of {KINDS}")
            k = col.step_of(t)
            tallies[k].add(kind, value, cause)
            col.rows += 1
            if kind in BYTE_KINDS and addr is not None:
                col.migration(t, 0, addr, addr + value, BYTE_KINDS[kind], cause,
                              f"migrations to {'GPU' if BYTE_KINDS[kind] else 'CPU'}")
                col.rows -= 1
            elif kind in ("GPU_PAGE_FAULT", "CPU_PAGE_FAULT_COUNT"):
                col.keep(f"{'GPU' if kind == 'GPU_PAGE_FAULT' else 'CPU'} page faults",
                         f"{'GPU' if kind == 'GPU_PAGE_FAULT' else 'CPU'} page fault", t, 0,
                         {} if addr is None else {"address": f"{addr:#x}"})
    tr = col.finish(name or "CUPTI records", "cuda", {})
    tr.per_step = [{k: v for k, v in tl.totals.items() if v} for tl in tallies]
    return tr
