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
from ...errors import InvalidType
from ...backends.counters import KINDS, Tally
from ...results import files
from .model import MAX_ADDRESS, MAX_STEPS, Collector, ProfilerFileError, integer, text

FORMAT = "umkit.cupti-records/1"
HINT = "pass a file umkit.ecg.traces.save_records() wrote"
NS_MAX = 2**63 - 1            # CUPTI's clock and values are 64-bit
BYTE_KINDS = {"BYTES_TRANSFER_HTOD": True, "BYTES_TRANSFER_DTOH": False}


def save_records(path, records, stamps, *, device: str = "", force: bool = False):
    """Write CUPTI records (``(t, kind, value, cause[, address])``) and the steps' end stamps."""
    V.flag(force, "force")
    p = V.output_path(path, "path", (".jsonl",))
    V.string(device, "device", hint="the card's name, e.g. device='NVIDIA H100'")
    stamps = V.sequence(stamps, "stamps", hint="the recorder's step stamps")
    if not stamps or len(stamps) > MAX_STEPS:
        raise ProfilerFileError(f"stamps: 1 to {MAX_STEPS} step ends in order", missing="stamps",
                                hint="the CUPTI clock at each step's end, growing")
    stamps = [V.integer(s, f"stamps[{i}]", lo=0, hi=NS_MAX, hint="the CUPTI clock (ns)")
              for i, s in enumerate(stamps)]
    if stamps != sorted(stamps):
        raise ProfilerFileError(f"stamps: 1 to {MAX_STEPS} step ends in order", missing="stamps",
                                hint="the CUPTI clock at each step's end, growing")
    lines = [json.dumps({"format": FORMAT, "device": device, "stamps": stamps})]
    shape = "is not (t, kind, value, cause[, address])"
    for i, r in enumerate(V.sequence(records, "records", hint="CuptiCollector.log's records")):
        where = f"records[{i}]"
        if not isinstance(r, (list, tuple)) or len(r) not in (4, 5) \
                or not isinstance(r[1], str) or r[1] not in KINDS:
            raise InvalidType(f"{where}={V.short(r)} {shape}", argument="records",
                              hint=f"kind one of {KINDS}")
        cause = r[3]
        if not isinstance(cause, str):
            raise InvalidType(f"{where}: cause {V.short(cause)} is not a name", argument="records",
                              hint="a CUPTI migration cause by name, e.g. 'USER'")
        row = [V.integer(r[0], f"{where} t", lo=0, hi=NS_MAX), r[1],
               V.integer(r[2], f"{where} value", lo=0, hi=NS_MAX), cause]
        if len(r) == 5 and r[4] is not None:
            row.append(V.integer(r[4], f"{where} address", lo=0, hi=MAX_ADDRESS))
        lines.append(json.dumps(row))
    return files.write(p, "\n".join(lines) + "\n", argument="path", force=force)


MAX_HEADER = 8 << 20          # the header: up to MAX_STEPS stamps
MAX_LINE = 4096               # one record is under 100 bytes


def line_of(f, limit: int, n: int, path: str):
    """The next line (bytes), at most ``limit`` long: a longer one is not this format (and is
    never read whole)."""
    line = f.readline(limit + 1)
    if len(line) > limit:
        raise ProfilerFileError(f"{path}: line {n} is longer than {limit} bytes",
                                missing=f"line {n}", hint=HINT)
    return line


def read(path: str, *, step=None, name: str | None = None, example: str | None = None):
    try:
        with open(path, "rb") as f:
            return read_lines(f, path, name, example)
    except OSError as e:
        raise ProfilerFileError(f"{path}: cannot be read ({e.strerror or type(e).__name__})",
                                missing="a readable file", hint=HINT) from None


def read_lines(f, path: str, name, example):
    try:
        head = json.loads(line_of(f, MAX_HEADER, 1, path).decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ProfilerFileError(f"{path}: the first line is not a JSON header", missing="header",
                                hint=HINT) from None
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        got = text(head.get("format"), 60) if isinstance(head, dict) else None
        raise ProfilerFileError(f"{path}: format {got!r}, not {FORMAT!r}",
                                missing=f"format {got}", hint=HINT)
    stamps = head.get("stamps")
    if not isinstance(stamps, list) or not stamps:
        raise ProfilerFileError(f"{path}: the header has no step stamps", missing="stamps",
                                hint=HINT)
    stamps = [integer(v, f"stamps[{i}]", path, HINT) for i, v in enumerate(stamps)]
    if any(b < a for a, b in zip(stamps, stamps[1:])):
        raise ProfilerFileError(f"{path}: the header's step stamps are not in order",
                                missing="stamps", hint=HINT)
    starts = [stamps[0]] + stamps[:-1]
    col = Collector(FORMAT, str(path), [(a, b, "step") for a, b in zip(starts, stamps)],
                    "the recorder's step stamps", text(head.get("device", "")))
    tallies = [Tally() for _ in stamps]
    n = 1
    while True:                                   # one record at a time
        n += 1
        line = line_of(f, MAX_LINE, n, path)
        if not line:
            break
        if not line.strip():
            continue
        try:
            r = json.loads(line.decode("utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError):
            r = None
        if not isinstance(r, list) or len(r) not in (4, 5) or not isinstance(r[1], str) \
                or not isinstance(r[3], str):
            raise ProfilerFileError(f"{path}: line {n} is not [t, kind, value, cause]",
                                    missing=f"line {n}", hint=HINT)
        t = integer(r[0], f"line {n} t", path, HINT)
        kind, cause = r[1], text(r[3], 40)
        value = integer(r[2], f"line {n} value", path, HINT)
        addr = integer(r[4], f"line {n} address", path, HINT, 0, MAX_ADDRESS) \
            if len(r) > 4 else None
        if kind not in KINDS:
            raise ProfilerFileError(f"{path}: line {n} has counter kind {text(kind, 60)!r}",
                                    missing=f"kind {text(kind, 60)}", hint=f"one of {KINDS}")
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
    tr = col.finish(name or ("example file in umkit's CUPTI records format" if example
                             else "CUPTI records"), "cuda", {}, example)
    tr.per_step = [{k: v for k, v in tl.totals.items() if v} for tl in tallies]
    return tr
