"""rocprofv3's rocpd database (ROCm 7: ``rocprofv3 ... --output-format rocpd``, the default),
read with the standard ``sqlite3`` module, row by row.

The schema, read from AMD's source (ROCm/rocm-systems, MIT licence):

* ``projects/rocprofiler-sdk/source/share/rocprofiler-sdk-rocpd/rocpd_tables.sql`` at commit
  0c5fd9badc20f0050b4bfd42714fbbf3ffa4c68d ("RocPD schema version 3.0.1"): the tables are
  ``rocpd_<table>_<uuid>``, with views named ``rocpd_<table>`` over them
  (``rocpd_views.sql``); ``rocpd_metadata`` holds ``schema_version`` (``"3"``,
  ``rocpd_metadata.sql``); ``rocpd_region`` has ``start``, ``end`` (ns), ``name_id`` and
  ``event_id``; ``rocpd_event`` has ``category_id`` (a ``rocpd_string``) and ``extdata``
  (JSON); ``rocpd_info_agent`` has ``type`` ('CPU', 'GPU', 'NIC');
  ``rocpd_memory_allocate`` has ``type`` ('ALLOC', 'FREE', ...), ``address`` and ``size``;
  ``rocpd_kernel_dispatch`` has ``start`` and ``end``.  Schema versions 3.0.0 to 3.0.5 are the
  ones ``versions.yml`` lists (same folder, at 2bb64a52); their changes do not touch what is
  read here.  Schema 4 is refused by its version: it keeps times in a ``rocpd_timestamp``
  table behind ``start_id``/``end_id`` (4.0.0, as a public SQL dump of a rocpd database shows;
  an early layout in ROCm/rocprofiler-sdk at 19d33bb304b35d94a2a082f6771d918408e0c848 did too,
  refused by the column) or names an event's category through ``rocpd_info_category``
  (4.1.0, ``versions/4.1.0/rocpd_tables.sql`` at a195360b).
* ``projects/rocprofiler-sdk/source/lib/output/generateRocpd.cpp`` at
  07d5a7fa39c807952e5fa1acc973569007958d7b, ``insert_kfd_event_data``: each KFD record is one
  ``rocpd_region`` (its operation's name) whose event's category is the buffer-tracing kind
  (``KFD_PAGE_MIGRATE``, ``KFD_PAGE_FAULT``, ``KFD_EVENT_UNMAP_FROM_GPU``,
  ``KFD_EVENT_DROPPED_EVENTS`` ...) and whose ``extdata`` is ``{"kfd": {...}}``, every value a
  string;
* ``projects/rocprofiler-sdk/source/lib/output/kfd_info.hpp`` at
  0ac8f95c8e7b5f09457f305c7da9fc5ce34c744b: a page migration's ``kfd`` fields are
  ``start_address``, ``end_address``, ``src_agent_id``, ``dst_agent_id`` (a
  ``rocpd_info_agent`` id; -1 none), ``prefetch_agent_id``, ``preferred_agent_id``,
  ``error_code``, and its size is ``end_address - start_address`` (``value()``); a page
  fault's are ``agent_id`` and ``address``; the trigger is in the operation's name
  (``rocprofiler_kfd_page_migrate_operation_t``: PREFETCH, PAGEFAULT_GPU, PAGEFAULT_CPU,
  TTM_EVICTION).

Only the *paired* records (``KFD_PAGE_MIGRATE``, ``KFD_PAGE_FAULT``) are counted: the
``KFD_EVENT_PAGE_*`` kinds are the same migrations' start and end events.  rocprof-sys writes
its categories in lower case with a ``rocm_`` prefix (``rocm_kfd_page_migrate``); both are read.
"""
from __future__ import annotations

from .model import (MAX_ADDRESS, MAX_ALLOCATION, MAX_NS, MAX_STEPS, Collector,
                    ProfilerFileError, integer, json_object, text)
from .sql import STEP_HINT, columns, connect, names, need, reading, step_pattern

SCHEMA_VERSIONS = ("3",)          # rocpd_metadata.sql: ("schema_version", "3")
HINT = ("record with rocprofv3 (ROCm 7+) and its KFD tracing on (--kfd-trace, which --sys-trace "
        "also turns on in the versions that have it), e.g. rocprofv3 --sys-trace --kfd-trace "
        "--output-format rocpd -- ./your_program")
TRIGGERS = ("PREFETCH", "PAGEFAULT_GPU", "PAGEFAULT_CPU", "TTM_EVICTION")
MAX_AGENTS = 4096                 # CPUs, GPUs and NICs of the nodes of one database
#: the file's own word that it was not recorded: a rocpd_metadata tag umkit's example files carry
EXAMPLE_TAG = "umkit_example"


def kind(category) -> str:
    c = text(category).upper()
    for p in ("ROCPROFILER_BUFFER_TRACING_", "ROCM_"):
        if c.startswith(p):
            c = c[len(p):]
    return c


def is_rocpd(have: set) -> bool:
    return any(n == "rocpd_metadata" or n.startswith("rocpd_metadata_") for n in have)


def metadata(con, tag: str):
    row = con.execute("SELECT value FROM rocpd_metadata WHERE tag = ? LIMIT 1", (tag,)).fetchone()
    return None if row is None else row[0]


def schema_version(con, have: set, path: str) -> str:
    need(con, have, "rocpd_metadata", ("tag", "value"), f"{path}: not a rocpd database", HINT)
    v = metadata(con, "schema_version")
    if v is None:
        raise ProfilerFileError(f"{path}: rocpd_metadata has no schema_version",
                                missing="rocpd_metadata.schema_version", hint=HINT)
    v = text(v, 40).strip()
    if v.split(".")[0] not in SCHEMA_VERSIONS:
        raise ProfilerFileError(f"{path}: rocpd schema version {v!r} is not one umkit reads "
                                f"(it reads {', '.join(SCHEMA_VERSIONS)})",
                                missing=f"schema_version {v}",
                                hint="tell umkit's maintainers which ROCm wrote it; until then "
                                     "export with rocpd's own tools (rocpd convert)")
    return v


def has_kfd_records(con) -> bool:
    """Whether any category string is a paired KFD record's (stops at the first)."""
    for (c,) in con.execute("SELECT string FROM rocpd_string WHERE string LIKE '%kfd%'"):
        if kind(c) in ("KFD_PAGE_MIGRATE", "KFD_PAGE_FAULT"):
            return True
    return False


def read(path: str, *, step=None, name: str | None = None, example: str | None = None):
    with reading(path, "rocpd database", HINT):
        con = connect(path)
        try:
            return read_rocpd(con, path, step, name, example)
        finally:
            con.close()


def read_rocpd(con, path: str, step, name, example):
    have = names(con, path)
    version = schema_version(con, have, path)
    what = f"{path} (rocpd schema {version})"

    def num(v, field, lo=0, hi=None, text_ok=False):
        return integer(v, field, what, HINT, lo, MAX_ADDRESS if hi is None else hi, text=text_ok)

    reg = need(con, have, "rocpd_region", ("name_id", "event_id"), what, HINT)
    for c in ("start", "end"):
        if c not in reg:
            old = " (it has start_id: times in rocpd_timestamp, a layout umkit does not " \
                "read)" if "start_id" in reg else ""
            raise ProfilerFileError(f"{what}: rocpd_region has no column {c}{old}",
                                    missing=f"rocpd_region.{c}", hint=HINT)
    need(con, have, "rocpd_event", ("id", "category_id", "extdata"), what, HINT)
    need(con, have, "rocpd_string", ("id", "string"), what, HINT)
    need(con, have, "rocpd_info_agent", ("id", "type"), what, HINT)
    if not has_kfd_records(con):
        raise ProfilerFileError(f"{what}: no KFD_PAGE_MIGRATE or KFD_PAGE_FAULT records "
                                "(KFD tracing was off)", missing="KFD_PAGE_MIGRATE regions",
                                hint=HINT)
    if example is None and metadata(con, EXAMPLE_TAG) is not None:
        example = text(metadata(con, EXAMPLE_TAG), 120) or "built from the documented schema"
    agents, device = {}, ""
    acols = columns(con, "rocpd_info_agent")
    label = "product_name" if "product_name" in acols else "type"
    for aid, atype, aname in con.execute(f"SELECT id, type, {label} FROM rocpd_info_agent"):
        if len(agents) >= MAX_AGENTS:
            raise ProfilerFileError(f"{what}: more than {MAX_AGENTS} agents in rocpd_info_agent",
                                    missing="rocpd_info_agent", hint=HINT)
        agents[num(aid, "rocpd_info_agent.id", -MAX_NS - 1, MAX_NS)] = text(atype).upper()
        if text(atype).upper() == "GPU" and not device:
            device = text(aname)
    # the steps: marker ranges matching `step`, else kernel dispatches
    pat, steps = step_pattern(step), []
    for s, e, rname, extdata in con.execute(
            'SELECT R.start, R."end", S.string, E.extdata FROM rocpd_region R '
            "JOIN rocpd_event E ON E.id = R.event_id "
            "JOIN rocpd_string C ON C.id = E.category_id "
            "JOIN rocpd_string S ON S.id = R.name_id "
            "WHERE C.string LIKE '%MARKER%'"):
        msg = text(json_object(extdata).get("message") or rname)
        if pat.search(msg):
            s = num(s, "rocpd_region.start", hi=MAX_NS)
            e = num(e, "rocpd_region.end", hi=MAX_NS)
            if e > s:
                steps.append((s, e, msg))
                if len(steps) > MAX_STEPS:
                    break
    kind_of_steps = "ROCTx ranges"
    if not steps and "rocpd_kernel_dispatch" in have:
        need(con, have, "rocpd_kernel_dispatch", ("start", "end"), what, STEP_HINT)
        for s, e in con.execute('SELECT start, "end" FROM rocpd_kernel_dispatch'):
            s = num(s, "rocpd_kernel_dispatch.start", hi=MAX_NS)
            e = num(e, "rocpd_kernel_dispatch.end", hi=MAX_NS)
            if e > s:
                steps.append((s, e, "step"))
                if len(steps) > MAX_STEPS:
                    break
        kind_of_steps = "kernel dispatches (no step ranges found)"
    col = Collector(f"rocpd schema {version}", str(path), steps, kind_of_steps, device)
    if "rocpd_memory_allocate" in have:
        mcols = columns(con, "rocpd_memory_allocate")
        if {"address", "size", "type"} <= mcols:
            for addr, size in con.execute("SELECT address, size FROM rocpd_memory_allocate "
                                          "WHERE type = 'ALLOC' AND size > 0"):
                if addr is not None:
                    col.allocation(num(addr, "rocpd_memory_allocate.address"),
                                   num(size, "rocpd_memory_allocate.size", 1, MAX_ALLOCATION))
    cur = con.execute(
        'SELECT R.start, R."end", S.string, C.string, E.extdata FROM rocpd_region R '
        "JOIN rocpd_event E ON E.id = R.event_id "
        "JOIN rocpd_string C ON C.id = E.category_id "
        "JOIN rocpd_string S ON S.id = R.name_id "
        "WHERE C.string LIKE '%kfd%'")
    for s, e, rname, cat, extdata in cur:          # one row at a time
        k = kind(cat)
        if k not in ("KFD_PAGE_MIGRATE", "KFD_PAGE_FAULT", "KFD_EVENT_UNMAP_FROM_GPU",
                     "KFD_EVENT_DROPPED_EVENTS"):
            continue
        kfd = json_object(extdata).get("kfd")
        kfd = kfd if isinstance(kfd, dict) else {}
        s = num(s, f"{k} rocpd_region.start", hi=MAX_NS)
        e = s if e is None else num(e, f"{k} rocpd_region.end", hi=MAX_NS)
        if k == "KFD_PAGE_MIGRATE":
            if "start_address" not in kfd or "end_address" not in kfd:
                raise ProfilerFileError(f"{what}: a KFD_PAGE_MIGRATE region without "
                                        "start_address / end_address in its event's extdata",
                                        missing="extdata.kfd.start_address", hint=HINT)
            lo = num(kfd["start_address"], "extdata.kfd.start_address", text_ok=True)
            hi = num(kfd["end_address"], "extdata.kfd.end_address", text_ok=True)
            dst = num(kfd.get("dst_agent_id", -1), "extdata.kfd.dst_agent_id", -MAX_NS - 1,
                      MAX_NS, text_ok=True)
            trig = next((t for t in TRIGGERS if t in text(rname).upper()), "NONE")
            col.migration(s, e - s, lo, hi, agents.get(dst) == "GPU", trig,
                          f"migrations to {'GPU' if agents.get(dst) == 'GPU' else 'CPU'}")
        elif k == "KFD_PAGE_FAULT":
            if "address" not in kfd:
                raise ProfilerFileError(f"{what}: a KFD_PAGE_FAULT region without an address "
                                        "in its event's extdata", missing="extdata.kfd.address",
                                        hint=HINT)
            col.fault(s, e - s, num(kfd["address"], "extdata.kfd.address", text_ok=True), True,
                      1, "GPU page faults")
        elif k == "KFD_EVENT_UNMAP_FROM_GPU":
            col.other_event(s, "gpu_unmaps")
        else:
            col.other_event(s, "dropped_records",
                            num(kfd.get("count", 1), "extdata.kfd.count", hi=MAX_NS,
                                text_ok=True))
    return col.finish(name or ("example file built from the documented rocpd schema"
                               if example else "rocprofv3 recording"), "hip",
                      {"schema_version": version}, example)
