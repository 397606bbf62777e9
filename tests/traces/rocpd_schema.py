"""A rocpd database built from AMD's documented schema, with invented numbers (no real rocpd
file with KFD records that umkit could add was found: docs/profiler-files.md, "Where the test
files come from").  What is built, and from where (ROCm/rocm-systems, MIT licence):

* the tables of ``projects/rocprofiler-sdk/source/share/rocprofiler-sdk-rocpd/rocpd_tables.sql``
  at 0c5fd9badc20f0050b4bfd42714fbbf3ffa4c68d ("RocPD schema version 3.0.1"), the columns the
  reader uses and the ones beside them, each table ``<name>_<uuid>`` with a view ``<name>`` over
  it (``rocpd_views.sql``), and ``("schema_version", "3")`` in ``rocpd_metadata``
  (``rocpd_metadata.sql``);
* KFD records as ``generateRocpd.cpp`` (07d5a7fa39c807952e5fa1acc973569007958d7b,
  ``insert_kfd_event_data``) writes them: a region named by the operation, an event whose
  category is the buffer-tracing kind and whose ``extdata`` is ``{"kfd": {field: "string"}}``
  with the fields of ``kfd_info.hpp`` (0ac8f95c8e7b5f09457f305c7da9fc5ce34c744b);
* ROCTx ranges as ``insert_api_data`` writes them: category ``MARKER_CORE_RANGE_API``, the
  message in the event's ``extdata`` (``{"message": ...}``).
The operation names (``KFD_PAGE_MIGRATE_PAGEFAULT_GPU`` ...) are umkit's guess at
``buffer_names.at(kind, op)``; the reader only looks for the trigger's word in them.
"""
import json
import sqlite3

UUID = "_0000aaaa"

TABLES = {
    "rocpd_metadata": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "tag" TEXT NOT NULL, '
                      '"value" TEXT NOT NULL',
    "rocpd_string": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "string" TEXT NOT NULL UNIQUE',
    "rocpd_info_agent": '"id" INTEGER PRIMARY KEY AUTOINCREMENT, "guid" TEXT, "nid" INTEGER, '
                        '"pid" INTEGER, "type" TEXT CHECK ("type" IN (\'CPU\', \'GPU\', \'NIC\')), '
                        '"absolute_index" INTEGER, "name" TEXT, "product_name" TEXT, '
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


class Rocpd:
    """``Rocpd(path)``, then ``.marker``, ``.migrate``, ``.fault``, ``.alloc``; ``.close()``."""

    def __init__(self, path, version="3", skip=(), region=None):
        self.con = sqlite3.connect(path)
        for name, cols in TABLES.items():
            if name in skip:
                continue
            if name == "rocpd_region" and region is not None:
                cols = region
            self.con.execute(f'CREATE TABLE "{name}{UUID}" ({cols})')
            self.con.execute(f'CREATE VIEW "{name}" AS SELECT * FROM "{name}{UUID}"')
        if "rocpd_metadata" not in skip and version is not None:
            self.con.executemany(f'INSERT INTO "rocpd_metadata{UUID}" (tag, value) VALUES (?, ?)',
                                 [("schema_version", version), ("uuid", UUID)])
        if "rocpd_info_agent" not in skip:
            self.con.executemany(f'INSERT INTO "rocpd_info_agent{UUID}" (id, nid, pid, type, '
                                 'product_name) VALUES (?, 1, 1, ?, ?)',
                                 [(1, "CPU", "AMD EPYC"), (2, "GPU", "AMD Instinct MI250X")])
        self.strings = {}

    def string(self, s):
        if s not in self.strings:
            cur = self.con.execute(f'INSERT INTO "rocpd_string{UUID}" (string) VALUES (?)', (s,))
            self.strings[s] = cur.lastrowid
        return self.strings[s]

    def region(self, category, name, start, end, extdata):
        cur = self.con.execute(f'INSERT INTO "rocpd_event{UUID}" (category_id, extdata) '
                               'VALUES (?, ?)', (self.string(category), json.dumps(extdata)))
        self.con.execute(f'INSERT INTO "rocpd_region{UUID}" (nid, pid, tid, start, "end", name_id, '
                         'event_id) VALUES (1, 1, 1, ?, ?, ?, ?)',
                         (start, end, self.string(name), cur.lastrowid))

    def marker(self, message, start, end):
        self.region("MARKER_CORE_RANGE_API", "roctxRangePush", start, end, {"message": message})

    def migrate(self, t, lo, hi, to_gpu, trigger):
        self.region("KFD_PAGE_MIGRATE", f"KFD_PAGE_MIGRATE_{trigger}", t, t + 1000,
                    {"kfd": {"start_address": str(lo), "end_address": str(hi),
                             "src_agent_id": "1" if to_gpu else "2",
                             "dst_agent_id": "2" if to_gpu else "1",
                             "prefetch_agent_id": "-1", "preferred_agent_id": "-1",
                             "error_code": "0"}})

    def fault(self, t, addr):
        self.region("KFD_PAGE_FAULT", "KFD_PAGE_FAULT_START", t, t + 500,
                    {"kfd": {"agent_id": "2", "address": str(addr)}})

    def alloc(self, addr, size):
        self.con.execute(f'INSERT INTO "rocpd_memory_allocate{UUID}" (type, level, start, "end", '
                         'address, size) VALUES (\'ALLOC\', \'REAL\', 0, 1, ?, ?)', (addr, size))

    def close(self):
        self.con.commit()
        self.con.close()
