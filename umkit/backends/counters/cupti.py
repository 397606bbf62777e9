"""Hardware counters on NVIDIA GPUs: CUPTI's unified-memory counter activity.

``cupti-python`` (module ``cupti``, NVIDIA's 1:1 bindings of the CUPTI C API) delivers one
activity record (``CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER``) per migration, fault, thrash,
throttle or remote map that the UVM driver reports.  This module sums the records into the
same keys as the simulator's counters where they mean the same thing:

=====================================  ==============================================================
CUPTI counter kind (record)             umkit key
=====================================  ==============================================================
BYTES_TRANSFER_HTOD (value: bytes)      ``bytes_h2d``; cause USER (cudaMemPrefetchAsync) also
                                        ``prefetch_bytes_h2d``; cause PREFETCH (the driver's
                                        speculative prefetch) also ``prefetcher_bytes``
BYTES_TRANSFER_DTOH (value: bytes)      ``bytes_d2h``; USER also ``prefetch_bytes_d2h``; EVICTION
                                        also ``evicted_bytes``
BYTES_TRANSFER_DTOD (value: bytes)      ``bytes_peer``
CPU_PAGE_FAULT_COUNT (one per fault)    ``cpu_faults``
GPU_PAGE_FAULT (value: fault groups)    ``gpu_faults`` (records: faulted pages) and
                                        ``gpu_fault_groups`` (sum of the values)
THRASHING (value: bytes)                ``thrashing`` (records), ``thrashing_bytes``
THROTTLING                              ``throttling`` (records)
REMOTE_MAP (value: bytes)               ``remote_maps`` (records), ``remote_map_bytes``
=====================================  ==============================================================

Sources: CUPTI API reference, ``CUpti_ActivityUnifiedMemoryCounter3`` (value: "the size of the
memory region in bytes" for the byte kinds, "the number of page fault groups for the same page"
for GPU_PAGE_FAULT; flags: ``CUpti_ActivityUnifiedMemoryMigrationCause`` for the transfer kinds)
and ``cuptiActivityConfigureUnifiedMemoryCounter``; NVIDIA's cupti-python samples
(``ActivityUnifiedMemoryCounterConfig``, ``activity_register_callbacks``).  Measured on an
H200 (umkit team, 2026-11-30): cupti-python 13.0.1 with nvidia-cuda-cupti 13.0.85 work
from Python; ``cuInit`` must come before the configuration (else CUPTI answers NOT_READY); a
fault-driven 256 MiB GPU read reported exactly 256 MiB host-to-device.

CUPTI is process-global (one activity client per process): there is one :data:`COLLECTOR`.
Counting is off until asked for (``umkit.counters_on()``); what it costs is measured by
``umkit measure run recorder``.
"""
from __future__ import annotations

import threading

from ...errors import BackendUnavailable

#: every key this collector reports (all present, zero or not, while counting is on)
KEYS = ("gpu_faults", "gpu_fault_groups", "cpu_faults", "bytes_h2d", "bytes_d2h", "bytes_peer",
        "prefetch_bytes_h2d", "prefetch_bytes_d2h", "prefetcher_bytes", "evicted_bytes",
        "thrashing", "thrashing_bytes", "throttling", "remote_maps", "remote_map_bytes",
        "fault_bytes_h2d", "dropped_records")
#: CUPTI counter kinds enabled, by their cupti-python names
KINDS = ("BYTES_TRANSFER_HTOD", "BYTES_TRANSFER_DTOH", "BYTES_TRANSFER_DTOD",
         "CPU_PAGE_FAULT_COUNT", "GPU_PAGE_FAULT", "THRASHING", "THROTTLING", "REMOTE_MAP")
#: CUpti_ActivityUnifiedMemoryMigrationCause values (CUPTI API reference: cupti_activity.h),
#: used when the bindings' enum (cupti.ActivityUnifiedMemoryMigrationCause) lacks a member
CAUSE = {"UNKNOWN": 0, "USER": 1, "COHERENCE": 2, "PREFETCH": 3, "EVICTION": 4,
         "ACCESS_COUNTERS": 5}
INSTALL_HINT = ("pip install cupti-python==13.0.1 nvidia-cuda-cupti==13.0.85 (CUDA 13); "
                "on the GPU CI machine .ci/fetch-gpu-wheels carries them in .whl/")
BUFFER_BYTES = 8 << 20


def find_libcupti() -> list[str]:
    """libcupti.so.13 files in the nvidia-cuda-cupti wheel's places on sys.path (nvidia/cu13/lib,
    or nvidia/cuda_cupti/lib for older wheels) -- the image's copy when cupti-python itself was
    installed elsewhere (e.g. pip --target)."""
    import glob
    import os
    import sys
    out = []
    for d in sys.path:
        for sub in ("nvidia/cu13/lib", "nvidia/cuda_cupti/lib"):
            out += sorted(glob.glob(os.path.join(d or ".", sub, "libcupti.so*")))
    return out


def _cupti():
    try:
        from cupti import cupti
        return cupti
    except ImportError as e:
        if "cupti" not in str(e).lower() or getattr(e, "name", "") == "cupti":
            raise BackendUnavailable(f"CUPTI (cupti-python) is not installed: {e}",
                                     hint=INSTALL_HINT) from None
        first = e
    except Exception as e:  # noqa: BLE001 - OSError when libcupti cannot be loaded
        first = e
    # cupti-python is there but could not load libcupti: preload the wheel's copy and retry
    import ctypes
    for lib in find_libcupti():
        try:
            ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)
            from cupti import cupti
            return cupti
        except Exception:  # noqa: BLE001 - try the next copy
            continue
    raise BackendUnavailable(f"CUPTI (cupti-python) is not usable here: {first}; libcupti "
                             f"candidates on sys.path: {find_libcupti() or 'none'}",
                             hint=INSTALL_HINT) from None


class Tally:
    """Sums unified-memory counter records into umkit's keys (pure Python: tested on sim)."""

    def __init__(self):
        self.totals = dict.fromkeys(KEYS, 0)
        self.records = 0

    def add(self, counter_kind: str, value: int, cause: str = "UNKNOWN") -> None:
        """One record: its counter kind and migration cause by their CUPTI names."""
        t, v = self.totals, int(value)
        self.records += 1
        if counter_kind == "BYTES_TRANSFER_HTOD":
            t["bytes_h2d"] += v
            if cause == "USER":
                t["prefetch_bytes_h2d"] += v
            elif cause == "PREFETCH":
                t["prefetcher_bytes"] += v
            elif cause == "COHERENCE":                # moved because a processor faulted on it
                t["fault_bytes_h2d"] += v
        elif counter_kind == "BYTES_TRANSFER_DTOH":
            t["bytes_d2h"] += v
            if cause == "USER":
                t["prefetch_bytes_d2h"] += v
            elif cause == "EVICTION":
                t["evicted_bytes"] += v
        elif counter_kind == "BYTES_TRANSFER_DTOD":
            t["bytes_peer"] += v
        elif counter_kind == "CPU_PAGE_FAULT_COUNT":
            t["cpu_faults"] += 1                    # value is the faulting instruction's PC
        elif counter_kind == "GPU_PAGE_FAULT":
            t["gpu_faults"] += 1
            t["gpu_fault_groups"] += v
        elif counter_kind == "THRASHING":
            t["thrashing"] += 1
            t["thrashing_bytes"] += v
        elif counter_kind == "THROTTLING":
            t["throttling"] += 1
        elif counter_kind == "REMOTE_MAP":
            t["remote_maps"] += 1
            t["remote_map_bytes"] += v

    def reset(self) -> None:
        self.totals = dict.fromkeys(KEYS, 0)
        self.records = 0


class CuptiCollector:
    """The process's CUPTI unified-memory counter client: ``start()``, ``read()``, ``stop()``."""

    def __init__(self):
        self.tally = Tally()
        self.on = False
        self._lock = threading.Lock()
        self._registered = False
        self.counter_names: dict[int, str] = {}
        self._causes: dict[int, str] = {v: k for k, v in CAUSE.items()}
        self.um_kind = None
        self.error: str | None = None
        self.log: list | None = None      # (timestamp ns, kind, value, cause) while logging
        self.unmapped = 0                 # records of the UM kind whose counter kind we don't map
        #: (timestamp ns, kind, value, cause, address) while umkit.plan attributes records to
        #: buffers by address range (:meth:`address_log_start`); at most ``address_log_max``
        self.address_log: list | None = None
        self.address_log_max = 2_000_000
        self.address_log_lost = 0
        self.paused = False               # umkit.plan turned the activity off for a step

    # -- CUPTI's callbacks (may run on CUPTI's own thread) ------------------------------------------
    def buffer_requested(self):
        return BUFFER_BYTES, 0

    def buffer_completed(self, activities):
        try:
            with self._lock:
                for a in activities:
                    if int(getattr(a, "kind", -1)) != self.um_kind:
                        continue
                    kind = self.counter_names.get(int(a.counter_kind))
                    if kind is None:
                        self.unmapped += 1
                        continue
                    # cupti-python 13 names the C field `flags` `flags_`
                    flags = getattr(a, "flags_", None)
                    flags = getattr(a, "flags", 0) if flags is None else flags
                    cause = self._causes.get(int(flags or 0), "UNKNOWN")
                    self.tally.add(kind, int(a.value), cause)
                    if self.log is not None:
                        self.log.append((int(getattr(a, "start", 0) or 0), kind, int(a.value), cause))
                    if self.address_log is not None:
                        if len(self.address_log) < self.address_log_max:
                            self.address_log.append((int(getattr(a, "start", 0) or 0), kind,
                                                     int(a.value), cause,
                                                     int(getattr(a, "address", 0) or 0)))
                        else:
                            self.address_log_lost += 1
        except Exception as e:  # noqa: BLE001 - never raise into CUPTI's thread
            self.error = f"{type(e).__name__}: {e}"

    # -- control ------------------------------------------------------------------------------------
    def start(self, device: int = 0) -> None:
        """Configure and enable the unified-memory counters (idempotent)."""
        if self.on:
            return
        cupti = _cupti()
        try:
            from cuda.bindings import driver
        except ImportError as e:
            raise BackendUnavailable(f"cuda-bindings missing: {e}",
                                     hint="pip install cuda-bindings") from None
        err = driver.cuInit(0)                       # before the configuration, or NOT_READY
        err = err[0] if isinstance(err, tuple) else err
        if int(err) != 0:
            raise BackendUnavailable(f"cuInit failed ({err}): no usable NVIDIA driver",
                                     hint="umkit doctor says why")
        K = cupti.ActivityUnifiedMemoryCounterKind
        kinds = [(n, getattr(K, n)) for n in KINDS if hasattr(K, n)]
        self.counter_names = {int(v): n for n, v in kinds}
        MC = getattr(cupti, "ActivityUnifiedMemoryMigrationCause", None)
        if MC is not None:
            self._causes = {int(getattr(MC, n)): n for n in CAUSE if hasattr(MC, n)}
        self.um_kind = int(cupti.ActivityKind.UNIFIED_MEMORY_COUNTER)
        cfg = cupti.ActivityUnifiedMemoryCounterConfig(len(kinds))
        cfg.scope, cfg.device_id, cfg.enable = 1, int(device), 1     # as NVIDIA's sample does
        for i, (_, v) in enumerate(kinds):
            cfg[i].scope = 1                         # PROCESS_SINGLE_DEVICE (deprecated, ignored)
            cfg[i].device_id = int(device)
            cfg[i].enable = 1
            cfg[i].kind = v
        self._call(cupti, "activity_configure_unified_memory_counter", cfg.ptr, len(kinds))
        self._call(cupti, "activity_enable", cupti.ActivityKind.UNIFIED_MEMORY_COUNTER)
        if not self._registered:
            self._call(cupti, "activity_register_callbacks", self.buffer_requested,
                       self.buffer_completed)
            self._registered = True
        self._cfg = cfg                              # CUPTI may keep the pointer: keep it alive
        self.on = True

    @staticmethod
    def _call(cupti, fname: str, *args):
        try:
            r = getattr(cupti, fname)(*args)
        except Exception as e:  # noqa: BLE001 - cupti.cuptiError and friends
            status = getattr(e, "status", None)
            name = ""
            try:
                name = cupti.Result(status).name if status is not None else ""
            except Exception:  # noqa: BLE001
                pass
            raise BackendUnavailable(
                f"CUPTI {fname} failed: {name or type(e).__name__} ({e})",
                hint="unified-memory counters need a CUPTI that matches the driver, no other "
                     "profiler attached (nsys/ncu take CUPTI), and cuInit first") from None
        if isinstance(r, int) and r != 0:        # bindings that return a status code
            raise BackendUnavailable(f"CUPTI {fname} returned status {r}",
                                     hint="see cupti.Result for the code")
        return r

    def flush(self) -> None:
        if not self.on:
            return
        cupti = _cupti()
        cupti.activity_flush_all(1)                  # CUPTI_ACTIVITY_FLAG_FLUSH_FORCED
        try:    # (context, stream_id, size_t* dropped): NULL context = all contexts
            import ctypes
            n = ctypes.c_size_t(0)
            cupti.activity_get_num_dropped_records(0, 0, ctypes.addressof(n))
            dropped = int(n.value)
        except Exception:  # noqa: BLE001 - a diagnostic only
            dropped = 0
        with self._lock:
            self.tally.totals["dropped_records"] += dropped

    def read(self) -> dict:
        """Flush CUPTI's buffers and return the totals since start (or the last reset)."""
        if not self.on:
            return {}
        self.flush()
        with self._lock:
            return dict(self.tally.totals)

    # -- per-step attribution without a flush per step (a forced flush took ~13 ms on the H200) --
    def clock(self) -> int:
        """CUPTI's clock (ns), the timebase of the records' timestamps."""
        return int(_cupti().get_timestamp())

    def log_start(self) -> None:
        """Keep each record (timestamp, kind, value, cause) from now on, as well as the totals."""
        if self.on:
            self.flush()
        with self._lock:
            self.log = []

    def log_stop(self) -> list:
        """Flush once and return the records kept since :meth:`log_start`."""
        if self.on:
            self.flush()
        with self._lock:
            out, self.log = self.log or [], None
        return out

    def address_log_start(self) -> None:
        """Keep each record with the address it names (CUPTI's ``address``: the base of the
        pages moved, or the page that faulted) from now on, for umkit.plan."""
        if self.on:
            self.flush()
        with self._lock:
            self.address_log, self.address_log_lost = [], 0

    def address_log_stop(self) -> tuple[list, int]:
        """Flush once; (the records kept since :meth:`address_log_start`, how many were not
        kept because the log was full)."""
        if self.on:
            self.flush()
        with self._lock:
            out, self.address_log = self.address_log or [], None
            return out, self.address_log_lost

    @staticmethod
    def bin(records, stamps) -> list[dict]:
        return bin_records(records, stamps)

    def reset(self) -> None:
        if self.on:
            self.flush()
        with self._lock:
            self.tally.reset()

    # -- umkit.plan's uninstrumented steps (umkit/plan/instrumentation.py) ------------------------
    def pause(self) -> None:
        """Turn CUPTI's unified-memory counter activity off for a while (the configuration and
        the records so far are kept); :meth:`resume` turns it on again."""
        if not self.on or self.paused:
            return
        self._call(_cupti(), "activity_disable", _cupti().ActivityKind.UNIFIED_MEMORY_COUNTER)
        self.paused = True

    def resume(self) -> None:
        if not self.on or not self.paused:
            return
        self._call(_cupti(), "activity_enable", _cupti().ActivityKind.UNIFIED_MEMORY_COUNTER)
        self.paused = False

    def stop(self) -> None:
        if not self.on:
            return
        cupti = _cupti()
        self.flush()
        try:
            if not self.paused:
                cupti.activity_disable(cupti.ActivityKind.UNIFIED_MEMORY_COUNTER)
        finally:
            self.on = self.paused = False


COLLECTOR = CuptiCollector()


def bin_records(records, stamps: list[int]) -> list[dict]:
    """Per-step counters from logged records: a record belongs to the first step whose end stamp
    (the CUPTI clock when the recorder saw the step's end event reached) is at or after it;
    records after the last stamp go to the last step.  Returns one dict of non-zero keys per
    stamp."""
    import bisect
    tallies = [Tally() for _ in stamps]
    if not stamps:
        return []
    for t, kind, value, cause in records:
        i = min(bisect.bisect_left(stamps, t), len(stamps) - 1)
        tallies[i].add(kind, value, cause)
    return [{k: v for k, v in tl.totals.items() if v} for tl in tallies]


#: the most fault-driven bytes one window was seen counted exactly in (64 and 128 MiB: 12 of 12)
EXACT_FAULT_BYTES = 128 << 20


def incomplete(delta: dict) -> str | None:
    """Why the counters of one window (a phase, a step: a dict of deltas) are, or may be,
    missing records, or None when nothing says so.

    The driver hands unified-memory events to CUPTI through a fixed-size queue; when the queue is
    full an event is dropped and only counted in the queue's control page (NVIDIA's open UVM
    driver, ``kernel-open/nvidia-uvm/uvm_tools.c``, ``enqueue_event()``: "one free element means
    that the queue is full" -> ``ctrl->dropped[eventType]++``), which CUPTI does not pass on:
    ``cuptiActivityGetNumDroppedRecords`` stayed 0.  Measured on the H200 (umkit team,
    2026-12-01, ``benchmarks/results/2026-12-01-h200-counters-diag/``): one fault-driven GPU read
    of 64 or 128 MiB was counted exactly every time (12 of 12, in fresh CUPTI sessions); of 256
    MiB in 5 of 15; of 512 MiB in 0 of 3.  Two signs:

    * bytes moved *because of* GPU faults (cause COHERENCE) with no GPU-fault record in the same
      window cannot happen: the records were lost (the H200 runs' short ones);
    * more than :data:`EXACT_FAULT_BYTES` moved by GPU faults and the prefetcher answering them:
      past what was ever seen counted exactly.  On 2x H200 (2026-12-01) a 512 MiB read came back
      as 382 MiB *with* 97 GPU-fault records -- part of the queue lost, no other sign."""
    fault_bytes = int(delta.get("fault_bytes_h2d", 0))
    if fault_bytes > 0 and int(delta.get("gpu_faults", 0)) == 0:
        return ("the driver dropped unified-memory events (its event queue to CUPTI was full): "
                f"{fault_bytes >> 20} MiB moved by GPU faults but no GPU-fault "
                "record arrived, so bytes and faults here are too low; count fault-driven phases "
                "of <= 128 MiB at a time")
    # (CUPTI windows only: sim has no fault_bytes_h2d and loses nothing)
    driven = fault_bytes + int(delta.get("prefetcher_bytes", 0))
    if fault_bytes > 0 and driven > EXACT_FAULT_BYTES:
        return (f"{driven >> 20} MiB moved by GPU faults in one window, more than the 128 MiB the "
                "driver's event queue to CUPTI was seen to carry whole: records may have been "
                "dropped, so bytes and faults here may be too low; count fault-driven phases of "
                "<= 128 MiB at a time")
    return None


def available() -> tuple[bool, str]:
    """(usable, why) without starting anything: is cupti-python importable here?"""
    try:
        _cupti()
    except BackendUnavailable as e:
        return False, e.message
    return True, "cupti-python importable"
