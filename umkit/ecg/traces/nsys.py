"""Nsight Systems' SQLite export (``nsys export --type sqlite`` or ``nsys stats``), read with
the standard ``sqlite3`` module, row by row.

What is read, and where it is documented:

* ``CUDA_UM_GPU_PAGE_FAULT_EVENTS`` (``start``, ``address``, ``numberOfPageFaults``; ``end``
  where there is one) and ``CUDA_UM_CPU_PAGE_FAULT_EVENTS`` (``start``, ``address``): one row a
  fault record, written when the report was taken with ``--cuda-um-gpu-page-faults=true`` /
  ``--cuda-um-cpu-page-faults=true``;
* ``CUPTI_ACTIVITY_KIND_MEMCPY`` rows with ``copyKind`` 11 (unified memory host to device) and
  12 (device to host): ``start``, ``end``, ``bytes``, ``virtualAddress``, and
  ``migrationCause`` where the export has it (CUPTI's
  ``CUpti_ActivityUnifiedMemoryMigrationCause``: 1 USER, 2 COHERENCE, 3 PREFETCH, 4 EVICTION);
* ``NVTX_EVENTS`` (``start``, ``end``, ``text`` or ``textId`` into ``StringIds``) for the
  steps, else ``CUPTI_ACTIVITY_KIND_KERNEL`` (``start``, ``end``): each kernel a step;
* ``CUDA_GPU_MEMORY_USAGE_EVENTS`` (``address``, ``bytes``, ``memoryOperationType`` 0 =
  allocation), where there is one, for the buffers.

Sources: NVIDIA, "SQLite Export Schema Reference" of the Nsight Systems exporter
(docs.nvidia.com/nsight-systems/.../nsys-exporter/exported_data.html: tables are created
lazily, a report has only the tables its options recorded); Nsight Systems' own stats report
``um_sum.py`` ("Unified Memory Analysis Summary", shipped in nsys's ``reports/`` folder), whose
query reads exactly these columns (``sum(numberOfPageFaults)``, ``copyKind = 11`` HtoD,
``copyKind = 12`` DtoH, ``virtualAddress``).  Nsight's export has no schema version number
umkit could check: the reader checks every table and column it uses and names the first one
missing.  No real export was available to umkit's authors; the tests build the tables from the
columns above.
"""
from __future__ import annotations

from .model import (MAX_ADDRESS, MAX_ALLOCATION, MAX_NS, MAX_STEPS, Collector, integer, text)
from .sql import STEP_HINT, columns, connect, names, need, reading, step_pattern

HINT = ("record with nsys profile --trace=cuda,nvtx --cuda-um-gpu-page-faults=true "
        "--cuda-um-cpu-page-faults=true, then nsys export --type sqlite REPORT.nsys-rep")
CAUSES = {0: "UNKNOWN", 1: "USER", 2: "COHERENCE", 3: "PREFETCH", 4: "EVICTION",
          5: "ACCESS_COUNTERS"}
UM_TABLES = ("CUDA_UM_GPU_PAGE_FAULT_EVENTS", "CUDA_UM_CPU_PAGE_FAULT_EVENTS")


def is_nsys(have: set) -> bool:
    return any(t in have for t in UM_TABLES + ("CUPTI_ACTIVITY_KIND_MEMCPY", "StringIds",
                                                "TARGET_INFO_GPU"))


def read(path: str, *, step=None, name: str | None = None, example: str | None = None):
    with reading(path, "Nsight Systems SQLite export", HINT):
        con = connect(path)
        try:
            return read_nsys(con, path, step, name, example)
        finally:
            con.close()


def read_nsys(con, path: str, step, name, example):
    have = names(con, path)
    what = f"{path} (Nsight Systems SQLite export)"

    def ns(v, field):
        return integer(v, field, what, HINT, 0, MAX_NS)

    def addr(v, field):
        return integer(v, field, what, HINT, 0, MAX_ADDRESS)

    gcols = need(con, have, "CUDA_UM_GPU_PAGE_FAULT_EVENTS",
                 ("start", "address", "numberOfPageFaults"), what, HINT)
    need(con, have, "CUDA_UM_CPU_PAGE_FAULT_EVENTS", ("start", "address"), what, HINT)
    mcols = need(con, have, "CUPTI_ACTIVITY_KIND_MEMCPY",
                 ("start", "end", "bytes", "copyKind", "virtualAddress"), what, HINT)
    device = ""
    if "TARGET_INFO_GPU" in have and "name" in columns(con, "TARGET_INFO_GPU"):
        row = con.execute("SELECT name FROM TARGET_INFO_GPU LIMIT 1").fetchone()
        device = text(row[0]) if row else ""
    pat, steps, kind = step_pattern(step), [], "NVTX ranges"
    if "NVTX_EVENTS" in have:
        ncols = need(con, have, "NVTX_EVENTS", ("start", "end"), what, STEP_HINT)
        txt = "N.text" if "text" in ncols else "NULL"
        if "textId" in ncols and "StringIds" in have:
            q = (f'SELECT N.start, N."end", COALESCE({txt}, S.value) FROM NVTX_EVENTS N '
                 "LEFT JOIN StringIds S ON S.id = N.textId")
        else:
            q = f'SELECT N.start, N."end", {txt} FROM NVTX_EVENTS N'
        for s, e, t in con.execute(q):
            if t is None or e is None or not pat.search(text(t)):
                continue               # an instant, or another range
            s, e = ns(s, "NVTX_EVENTS.start"), ns(e, "NVTX_EVENTS.end")
            if e > s:
                steps.append((s, e, text(t)))
                if len(steps) > MAX_STEPS:
                    break
    if not steps and "CUPTI_ACTIVITY_KIND_KERNEL" in have:
        need(con, have, "CUPTI_ACTIVITY_KIND_KERNEL", ("start", "end"), what, STEP_HINT)
        for s, e in con.execute('SELECT start, "end" FROM CUPTI_ACTIVITY_KIND_KERNEL'):
            s = ns(s, "CUPTI_ACTIVITY_KIND_KERNEL.start")
            e = ns(e, "CUPTI_ACTIVITY_KIND_KERNEL.end")
            if e > s:
                steps.append((s, e, "step"))
                if len(steps) > MAX_STEPS:
                    break
        kind = "kernels (no step ranges found)"
    col = Collector("Nsight Systems SQLite export", str(path), steps, kind, device)
    if "CUDA_GPU_MEMORY_USAGE_EVENTS" in have and {"address", "bytes", "memoryOperationType"} \
            <= columns(con, "CUDA_GPU_MEMORY_USAGE_EVENTS"):
        for a, n in con.execute("SELECT address, bytes FROM CUDA_GPU_MEMORY_USAGE_EVENTS "
                                "WHERE memoryOperationType = 0 AND bytes > 0"):
            col.allocation(addr(a, "CUDA_GPU_MEMORY_USAGE_EVENTS.address"),
                           integer(n, "CUDA_GPU_MEMORY_USAGE_EVENTS.bytes", what, HINT, 1,
                                   MAX_ALLOCATION))
    end = '"end"' if "end" in gcols else "start"
    for s, e, a, n in con.execute(f"SELECT start, {end}, address, numberOfPageFaults "
                                  "FROM CUDA_UM_GPU_PAGE_FAULT_EVENTS"):
        s = ns(s, "CUDA_UM_GPU_PAGE_FAULT_EVENTS.start")
        e = ns(e, "CUDA_UM_GPU_PAGE_FAULT_EVENTS.end")
        n = 0 if n is None else ns(n, "CUDA_UM_GPU_PAGE_FAULT_EVENTS.numberOfPageFaults")
        col.fault(s, e - s, addr(a, "CUDA_UM_GPU_PAGE_FAULT_EVENTS.address"), True, n,
                  "GPU page faults")
    for s, a in con.execute("SELECT start, address FROM CUDA_UM_CPU_PAGE_FAULT_EVENTS"):
        col.fault(ns(s, "CUDA_UM_CPU_PAGE_FAULT_EVENTS.start"), 0,
                  addr(a, "CUDA_UM_CPU_PAGE_FAULT_EVENTS.address"), False, 0, "CPU page faults")
    cause = "migrationCause" if "migrationCause" in mcols else "0"
    for s, e, n, ck, a, c in con.execute(
            f'SELECT start, "end", bytes, copyKind, virtualAddress, {cause} '
            "FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind IN (11, 12)"):
        s, e = ns(s, "CUPTI_ACTIVITY_KIND_MEMCPY.start"), ns(e, "CUPTI_ACTIVITY_KIND_MEMCPY.end")
        lo = addr(a, "CUPTI_ACTIVITY_KIND_MEMCPY.virtualAddress")
        # a migration moves part of one allocation: at most an allocation's bytes
        n = integer(n, "CUPTI_ACTIVITY_KIND_MEMCPY.bytes", what, HINT, 0, MAX_ALLOCATION)
        c = 0 if c is None else ns(c, "CUPTI_ACTIVITY_KIND_MEMCPY.migrationCause")
        to_gpu = ck == 11
        col.migration(s, e - s, lo, lo + n, to_gpu, CAUSES.get(c, "UNKNOWN"),
                      f"migrations to {'GPU' if to_gpu else 'CPU'}")
    return col.finish(name or ("example file built from the documented Nsight Systems export "
                               "schema" if example else "Nsight Systems recording"), "cuda", {},
                      example)
