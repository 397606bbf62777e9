"""Build ``rocpd_example.db``: a small rocprofv3 rocpd database (schema 3) written from AMD's
documented schema, NOT recorded on a GPU.  No public rocpd file with KFD page-migration records
was found; this file lets notebook 11 show ``umkit.ecg.read`` on the format a real recording
has.  Its numbers are invented to look like the loop of notebook 10 (64 MiB of managed weights,
a 4 MiB batch, a CPU statistic at step 5); the GPU agent's name says so.

    python notebooks/data/make_rocpd_example.py        # rewrites notebooks/data/rocpd_example.db

The schema, from ROCm/rocm-systems (MIT licence), the same sources umkit's reader cites
(umkit/ecg/traces/rocpd.py; tests/traces/rocpd_schema.py builds its test files the same way):
* projects/rocprofiler-sdk/source/share/rocprofiler-sdk-rocpd/rocpd_tables.sql at
  0c5fd9badc20f0050b4bfd42714fbbf3ffa4c68d ("RocPD schema version 3.0.1"): tables
  ``rocpd_<name>_<uuid>``, a view ``rocpd_<name>`` over each (rocpd_views.sql), and
  ``("schema_version", "3")`` in rocpd_metadata (rocpd_metadata.sql);
* projects/rocprofiler-sdk/source/lib/output/generateRocpd.cpp at
  07d5a7fa39c807952e5fa1acc973569007958d7b, insert_kfd_event_data: one rocpd_region per KFD
  record, its event's category the buffer-tracing kind (KFD_PAGE_MIGRATE, KFD_PAGE_FAULT), its
  extdata ``{"kfd": {field: "string"}}`` with the fields of kfd_info.hpp
  (0ac8f95c8e7b5f09457f305c7da9fc5ce34c744b); ROCTx ranges as insert_api_data writes them
  (category MARKER_CORE_RANGE_API, the message in extdata).
The operation names (KFD_PAGE_MIGRATE_PAGEFAULT_GPU ...) follow the trigger names of
rocprofiler_kfd_page_migrate_operation_t; the exact strings rocprofv3 writes were not checked.
"""
import json
import sqlite3
from pathlib import Path

OUT = Path(__file__).resolve().parent / "rocpd_example.db"
UUID = "_00000000example"
MS, MIB = 1_000_000, 1 << 20
WEIGHTS, BATCH = 0x7F0000000000, 0x7F0010000000
GRANULE = 2 * MIB

TABLES = {
    "rocpd_metadata": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "tag" TEXT NOT NULL, "value" TEXT NOT NULL',
    "rocpd_string": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "string" TEXT NOT NULL UNIQUE',
    "rocpd_info_agent": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "nid" INTEGER, "pid" INTEGER, '
                        '"type" TEXT, "absolute_index" INTEGER, "name" TEXT, "product_name" TEXT, '
                        '"extdata" JSONB DEFAULT "{}" NOT NULL',
    "rocpd_event": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "category_id" INTEGER, '
                   '"stack_id" INTEGER, "parent_stack_id" INTEGER, "correlation_id" INTEGER, '
                   '"call_stack" JSONB DEFAULT "{}" NOT NULL, "line_info" JSONB DEFAULT "{}" NOT NULL, '
                   '"extdata" JSONB DEFAULT "{}" NOT NULL',
    "rocpd_region": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "nid" INTEGER NOT NULL, '
                    '"pid" INTEGER NOT NULL, "tid" INTEGER NOT NULL, "start" BIGINT NOT NULL, '
                    '"end" BIGINT NOT NULL, "name_id" INTEGER NOT NULL, "event_id" INTEGER, '
                    '"extdata" JSONB DEFAULT "{}" NOT NULL',
    "rocpd_memory_allocate": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "nid" INTEGER, '
                             '"pid" INTEGER, "tid" INTEGER, "agent_id" INTEGER, "type" TEXT, '
                             '"level" TEXT, "start" BIGINT NOT NULL, "end" BIGINT NOT NULL, '
                             '"address" INTEGER, "size" INTEGER NOT NULL, "event_id" INTEGER, '
                             '"extdata" JSONB DEFAULT "{}" NOT NULL',
    "rocpd_kernel_dispatch": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "nid" INTEGER, '
                             '"pid" INTEGER, "agent_id" INTEGER, "kernel_id" INTEGER, '
                             '"start" BIGINT NOT NULL, "end" BIGINT NOT NULL',
}


def build(path: Path = OUT) -> Path:
    path.unlink(missing_ok=True)
    con = sqlite3.connect(path)
    for name, cols in TABLES.items():
        con.execute(f'CREATE TABLE "{name}{UUID}" ({cols})')
        con.execute(f'CREATE VIEW "{name}" AS SELECT * FROM "{name}{UUID}"')
    con.executemany(f'INSERT INTO "rocpd_metadata{UUID}" (tag, value) VALUES (?, ?)',
                    [("schema_version", "3"), ("uuid", UUID),
                     ("note", "example built from the documented rocpd schema, not recorded on a GPU"),
                     # umkit's own tag (umkit.ecg.traces.rocpd.EXAMPLE_TAG): every reader of this
                     # file labels it an example, not a recording, without being told
                     ("umkit_example", "built from the documented rocpd schema, not recorded on a GPU")])
    con.executemany(f'INSERT INTO "rocpd_info_agent{UUID}" (id, nid, pid, type, product_name) '
                    'VALUES (?, 1, 1, ?, ?)',
                    [(1, "CPU", "example CPU"), (2, "GPU", "example GPU (built from the schema)")])
    strings = {}

    def string(s):
        if s not in strings:
            strings[s] = con.execute(f'INSERT INTO "rocpd_string{UUID}" (string) VALUES (?)',
                                     (s,)).lastrowid
        return strings[s]

    def region(category, name, start, end, extdata):
        ev = con.execute(f'INSERT INTO "rocpd_event{UUID}" (category_id, extdata) VALUES (?, ?)',
                         (string(category), json.dumps(extdata))).lastrowid
        con.execute(f'INSERT INTO "rocpd_region{UUID}" (nid, pid, tid, start, "end", name_id, '
                    'event_id) VALUES (1, 1, 1, ?, ?, ?, ?)', (start, end, string(name), ev))

    def migrate(t, lo, hi, to_gpu, trigger):
        region("KFD_PAGE_MIGRATE", f"KFD_PAGE_MIGRATE_{trigger}", t, t + 300_000,
               {"kfd": {"start_address": str(lo), "end_address": str(hi),
                        "src_agent_id": "1" if to_gpu else "2", "dst_agent_id": "2" if to_gpu else "1",
                        "prefetch_agent_id": "2" if trigger == "PREFETCH" else "-1",
                        "preferred_agent_id": "-1", "error_code": "0"}})

    def fault(t, addr):
        region("KFD_PAGE_FAULT", "KFD_PAGE_FAULT_START", t, t + 20_000,
               {"kfd": {"agent_id": "2", "address": str(addr)}})

    for addr, size in ((WEIGHTS, 64 * MIB), (BATCH, 4 * MIB)):
        con.execute(f'INSERT INTO "rocpd_memory_allocate{UUID}" (type, level, start, "end", '
                    "address, size) VALUES ('ALLOC', 'REAL', 0, 1, ?, ?)", (addr, size))
    t = 0
    for step in range(12):
        ms = {0: 14.0, 5: 9.5, 6: 13.5}.get(step, 2.2)
        start, end = t, t + int(ms * MS)
        region("MARKER_CORE_RANGE_API", "roctxRangePush", start, end, {"message": f"step {step}"})
        c = start + 10_000
        if step > 0:                      # the CPU wrote the batch: its pages come back first,
            for lo in (BATCH, BATCH + GRANULE):   # one 2 MiB granule per CPU fault
                migrate(c, lo, lo + GRANULE, False, "PAGEFAULT_CPU")
                c += 200_000
        migrate(c, BATCH, BATCH + 4 * MIB, True, "PREFETCH")      # hipMemPrefetchAsync(batch)
        c += 400_000
        if step in (0, 6):                # the GPU faults the weights in, one 2 MiB granule a fault
            for g in range(32):
                lo = WEIGHTS + g * GRANULE
                fault(c, lo + 4096 * (g % 7))
                migrate(c + 25_000, lo, lo + GRANULE, True, "PAGEFAULT_GPU")
                c += 360_000
        if step == 5:                     # the CPU reads a statistic of the weights: all come back
            for g in range(32):
                lo = WEIGHTS + g * GRANULE
                migrate(c, lo, lo + GRANULE, False, "PAGEFAULT_CPU")
                c += 230_000
        con.execute(f'INSERT INTO "rocpd_kernel_dispatch{UUID}" (start, "end") VALUES (?, ?)',
                    (c, end - 10_000))
        t = end
    con.commit()
    con.close()
    return path


if __name__ == "__main__":
    print(build())
