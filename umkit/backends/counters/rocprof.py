"""Hardware counters on AMD GPUs: rocprofiler-sdk's page-migration records, behind the same
interface as CUPTI's (:mod:`umkit.backends.counters.cupti`).

**What is verified and what is not.**  No AMD GPU was available to umkit's authors; this
adapter is a *documented mapping*, checked by contract tests on synthetic records only.  Live
collection needs rocprofiler-sdk's buffer-tracing service (``ROCPROFILER_BUFFER_TRACING_PAGE_
MIGRATION``), which is a C API loaded into the process as a tool library; rocprofiler-sdk ships
no Python bindings for it, so :meth:`RocprofCollector.start` says so and points to the way that
works today: run the program under ``rocprofv3`` with page-migration tracing and feed the
records to :class:`RocprofTally` (``RocprofTally.add_record`` takes one record as a dict).

Where the records come from (AMD sources):

* ``rocprofiler-sdk/include/rocprofiler-sdk/buffer_tracing.h``: ``rocprofiler_page_migration_
  trigger_t`` -- PREFETCH, PAGEFAULT_GPU, PAGEFAULT_CPU, TTM_EVICTION;
* ``rocprofiler-sdk/include/rocprofiler-sdk/kfd/page_migration_args.h``: PAGE_MIGRATE_START /
  _END carry ``start_addr``, ``end_addr``, ``from_agent``, ``to_agent``, ``trigger``;
  PAGE_FAULT_START / _END, QUEUE_EVICTION, UNMAP_FROM_GPU, DROPPED_EVENT;
* ``source/lib/rocprofiler-sdk/page_migration/page_migration.cpp``: the records are parsed from
  the amdkfd SMI event stream (``KFD_SMI_EVENT_MIGRATE_START`` ... in the kernel's
  ``include/uapi/linux/kfd_ioctl.h``; emitted by ``drivers/gpu/drm/amd/amdkfd/kfd_smi_events.c``
  from ``kfd_migrate.c`` and ``kfd_svm.c``), with ``end_addr`` the last byte of the range.

Mapping to umkit's keys (the simulator's, where the meaning is the same):

==========================================  ===================================================
record                                      umkit key
==========================================  ===================================================
PAGE_MIGRATE_END to a GPU agent             ``bytes_h2d`` (+ ``prefetch_bytes_h2d`` if trigger
                                            PREFETCH)
PAGE_MIGRATE_END to the CPU agent           ``bytes_d2h`` (+ ``prefetch_bytes_d2h`` if PREFETCH,
                                            ``evicted_bytes`` if TTM_EVICTION)
PAGE_MIGRATE_END, trigger PAGEFAULT_CPU     ``cpu_faults`` (one per migrated range: an estimate)
PAGE_FAULT_START                            ``gpu_faults``
QUEUE_EVICTION                              ``queue_evictions`` (AMD only: queues stopped for SVM)
UNMAP_FROM_GPU                              ``gpu_unmaps`` (AMD only)
DROPPED_EVENT                               ``dropped_records``
==========================================  ===================================================
"""
from __future__ import annotations

from ...errors import BackendUnavailable, InvalidArgument

KEYS = ("gpu_faults", "cpu_faults", "bytes_h2d", "bytes_d2h", "prefetch_bytes_h2d",
        "prefetch_bytes_d2h", "evicted_bytes", "queue_evictions", "gpu_unmaps",
        "dropped_records")
OPERATIONS = ("PAGE_MIGRATE_START", "PAGE_MIGRATE_END", "PAGE_FAULT_START", "PAGE_FAULT_END",
              "QUEUE_EVICTION", "QUEUE_RESTORE", "UNMAP_FROM_GPU", "DROPPED_EVENT")
TRIGGERS = ("NONE", "PREFETCH", "PAGEFAULT_GPU", "PAGEFAULT_CPU", "TTM_EVICTION")
WHY_NOT_LIVE = ("rocprofiler-sdk's page-migration tracing is a C tool API with no Python "
                "bindings, so umkit cannot start it from inside Python")
HINT = ("run your program under rocprofv3 with page-migration tracing and pass its records to "
        "umkit.backends.counters.rocprof.RocprofTally().add_record(...); on sim every counter is live")


def _name(value: str, prefix: str) -> str:
    v = str(value).upper()
    return v[len(prefix):] if v.startswith(prefix) else v


class RocprofTally:
    """Sums page-migration records into umkit's keys (pure Python; contract-tested)."""

    def __init__(self):
        self.totals = dict.fromkeys(KEYS, 0)
        self.records = 0

    def add_record(self, rec: dict) -> None:
        """One record: ``operation`` (e.g. 'PAGE_MIGRATE_END' or the full
        'ROCPROFILER_PAGE_MIGRATION_PAGE_MIGRATE_END'), and for migrations ``start_addr``,
        ``end_addr`` (last byte, inclusive, as rocprofiler-sdk reports it), ``to`` ('cpu' or
        'gpu'), ``trigger`` ('PREFETCH', 'PAGEFAULT_GPU', 'PAGEFAULT_CPU', 'TTM_EVICTION')."""
        if not isinstance(rec, dict) or "operation" not in rec:
            raise InvalidArgument(f"{rec!r} is not a page-migration record",
                                  hint="a dict with 'operation' (and start_addr, end_addr, to, trigger)")
        op = _name(rec["operation"], "ROCPROFILER_PAGE_MIGRATION_")
        if op not in OPERATIONS:
            raise InvalidArgument(f"operation {rec['operation']!r} is unknown",
                                  hint=f"one of {OPERATIONS}")
        t = self.totals
        self.records += 1
        if op == "PAGE_MIGRATE_END":
            nbytes = int(rec["end_addr"]) - int(rec["start_addr"]) + 1
            if nbytes <= 0:
                raise InvalidArgument(f"end_addr < start_addr in {rec!r}")
            trig = _name(rec.get("trigger", "NONE"), "ROCPROFILER_PAGE_MIGRATION_TRIGGER_")
            to = str(rec.get("to", "")).lower()
            if to not in ("cpu", "gpu"):
                raise InvalidArgument(f"to={rec.get('to')!r} must be 'cpu' or 'gpu'",
                                      hint="the destination agent's type")
            if to == "gpu":
                t["bytes_h2d"] += nbytes
                if trig == "PREFETCH":
                    t["prefetch_bytes_h2d"] += nbytes
            else:
                t["bytes_d2h"] += nbytes
                if trig == "PREFETCH":
                    t["prefetch_bytes_d2h"] += nbytes
                elif trig == "TTM_EVICTION":
                    t["evicted_bytes"] += nbytes
            if trig == "PAGEFAULT_CPU":
                t["cpu_faults"] += 1
        elif op == "PAGE_FAULT_START":
            t["gpu_faults"] += 1
        elif op == "QUEUE_EVICTION":
            t["queue_evictions"] += 1
        elif op == "UNMAP_FROM_GPU":
            t["gpu_unmaps"] += 1
        elif op == "DROPPED_EVENT":
            t["dropped_records"] += int(rec.get("dropped", 1))

    def reset(self) -> None:
        self.totals = dict.fromkeys(KEYS, 0)
        self.records = 0


class RocprofCollector:
    """The hip backend's counter source: the same start/read/reset/stop as CUPTI's collector.
    ``start`` raises BackendUnavailable (see the module docstring for why and what works)."""

    on = False

    def __init__(self):
        self.tally = RocprofTally()

    def start(self, device: int = 0) -> None:
        raise BackendUnavailable(f"hardware counters on hip: {WHY_NOT_LIVE}", hint=HINT)

    def read(self) -> dict:
        return dict(self.tally.totals) if self.on else {}

    def reset(self) -> None:
        self.tally.reset()

    def stop(self) -> None:
        self.on = False


COLLECTOR = RocprofCollector()
