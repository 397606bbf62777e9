"""umkit.ecg.read: rocprofv3's rocpd database, Nsight Systems' SQLite export and the kit's own
saved CUPTI records into an ECG, a residency picture and a plan; strict refusals; bounded memory.

No public rocpd or nsys file with unified-memory records that umkit could add was found (what
was searched and found: docs/profiler-files.md, "Where the test files come from"): the
databases here are built from the documented schemas, cited in ``rocpd_schema.py`` and
``umkit/ecg/traces/nsys.py``, and their numbers are invented."""
import json
import sqlite3
import tracemalloc

import numpy as np
import pytest

import umkit
import umkit.ecg
from umkit.backends.counters.cupti import bin_records
from umkit.ecg.traces import ProfilerFileError, read, save_records
from umkit.ecg.traces.model import MAX_SLICES
from rocpd_schema import Rocpd

MS = 1_000_000          # ns
BASE, MIB = 0x7F0000000000, 1 << 20


def rocpd_loop(path):
    """3 steps of 2, 3 and 4 ms; the GPU faults a 1 MiB buffer over in step 0, the CPU pulls
    64 KiB back in step 2."""
    db = Rocpd(path)
    db.alloc(BASE, MIB)
    for i, (s, e) in enumerate(((0, 2 * MS), (2 * MS, 5 * MS), (5 * MS, 9 * MS))):
        db.marker(f"step {i}", s, e)
    for k in range(5):
        db.fault(MS // 10 + k, BASE + k * 4096)
    db.migrate(MS // 2, BASE, BASE + MIB, True, "PAGEFAULT_GPU")
    db.migrate(6 * MS, BASE, BASE + 64 * 1024, False, "PAGEFAULT_CPU")
    db.close()
    return path


def test_rocpd_gives_the_steps_counters_residency_and_plan(tmp_path):
    tr = umkit.ecg.read(rocpd_loop(tmp_path / "run.db"))
    assert tr.step_ms == [2.0, 3.0, 4.0]
    assert tr.per_step[0] == {"gpu_faults": 5, "gpu_fault_groups": 5, "bytes_h2d": MIB,
                              "fault_bytes_h2d": MIB}
    assert tr.per_step[1] == {}
    assert tr.per_step[2] == {"bytes_d2h": 64 * 1024, "cpu_faults": 1}
    assert tr.device == "AMD Instinct MI250X" and tr.backend == "hip"
    ecg = tr.to_ecg()
    assert umkit.ecg.check(ecg)["curves"]["rocprofv3 recording"] == [2.0, 3.0, 4.0]
    assert "rocprofv3 recording" in umkit.ecg.table(ecg)
    res = tr.residency()
    assert res.page_bytes == 4096 and res.codes.size == 256
    assert list(np.unique(res.codes[:16])) == [1] and list(np.unique(res.codes[16:])) == [2]
    row, = tr.access_table()
    assert (row["bytes_h2d"], row["bytes_d2h"], row["gpu_faults"], row["cpu_faults"]) == \
        (MIB, 64 * 1024, 5, 1)
    plan = umkit.plan.PlanResult.from_dict(tr.plan_dict())       # umkit.plan's own checks
    assert plan.steps == 3 and plan.step_ms == [2.0, 3.0, 4.0]
    assert plan.touch_steps()[0] == ([0], [2])                    # GPU in step 0, CPU in step 2
    assert "buffer@0x7f0000000000" in plan.table()


def test_rocpd_named_steps_and_the_kernel_fallback(tmp_path):
    db = Rocpd(tmp_path / "k.db")
    db.con.executemany('INSERT INTO "rocpd_kernel_dispatch_0000aaaa" (start, "end") VALUES (?, ?)',
                       [(0, MS), (MS, 3 * MS)])
    db.marker("warmup", 0, 10)
    db.fault(10, BASE)
    db.close()
    tr = read(tmp_path / "k.db")
    assert tr.step_ms == [1.0, 2.0] and tr.step_kind.startswith("kernel dispatches")
    tr = read(tmp_path / "k.db", step="warmup")
    assert tr.step_ms == [0.00001] and tr.counters["gpu_faults"] == 1


@pytest.mark.parametrize("build, missing", [
    (dict(version="9"), "schema_version 9"),
    (dict(version=None), "rocpd_metadata.schema_version"),
    (dict(skip=("rocpd_region",)), "rocpd_region"),
    (dict(skip=("rocpd_info_agent",)), "rocpd_info_agent"),
    (dict(region='"id" INTEGER PRIMARY KEY, "start_id" INTEGER, "end_id" INTEGER, '
                 '"name_id" INTEGER, "event_id" INTEGER'), "rocpd_region.start"),
    # schema 4 keeps times in rocpd_timestamp behind start_id / end_id: refused by its version
    (dict(version="4.0.0", region='"id" INTEGER PRIMARY KEY, "start_id" INTEGER, '
                                  '"end_id" INTEGER, "name_id" INTEGER, "event_id" INTEGER'),
     "schema_version 4.0.0"),
])
def test_rocpd_refuses_what_it_does_not_understand(tmp_path, build, missing):
    db = Rocpd(tmp_path / "bad.db", **build)
    db.close()
    with pytest.raises(ProfilerFileError) as e:
        read(tmp_path / "bad.db")
    assert e.value.missing == missing and e.value.argument == "path"
    assert isinstance(e.value, umkit.InvalidArgument)


def test_rocpd_without_kfd_tracing_is_refused_not_an_empty_ecg(tmp_path):
    db = Rocpd(tmp_path / "nokfd.db")
    db.marker("step", 0, MS)
    db.close()
    with pytest.raises(ProfilerFileError, match="KFD tracing was off"):
        read(tmp_path / "nokfd.db")


def nsys_export(path, cpu=True, nvtx=True):
    """The tables and columns of NVIDIA's SQLite export reference and nsys's um_sum.py report."""
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
    con.execute("CREATE TABLE CUDA_UM_GPU_PAGE_FAULT_EVENTS (start INT NOT NULL, end INT NOT NULL,"
                " globalPid INT, deviceId INT, address INT NOT NULL, numberOfPageFaults INT NOT NULL,"
                " faultAccessType INT)")
    if cpu:
        con.execute("CREATE TABLE CUDA_UM_CPU_PAGE_FAULT_EVENTS (start INT NOT NULL, "
                    "globalPid INT, address INT NOT NULL, originalFaultPc INT)")
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT NOT NULL, end INT NOT NULL, "
                "deviceId INT, streamId INT, bytes INT NOT NULL, copyKind INT NOT NULL, "
                "srcKind INT, dstKind INT, migrationCause INT, virtualAddress INT)")
    if nvtx:
        con.execute("CREATE TABLE NVTX_EVENTS (start INT NOT NULL, end INT, eventType INT, "
                    "text TEXT, textId INT)")
        con.execute("INSERT INTO StringIds VALUES (7, 'train step')")
        con.executemany("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, ?, ?)",
                        [(0, MS, None, 7), (MS, 4 * MS, "train step", None)])
    con.executemany("INSERT INTO CUDA_UM_GPU_PAGE_FAULT_EVENTS VALUES (?, ?, 1, 0, ?, ?, 0)",
                    [(100, 200, BASE, 3), (300, 400, BASE + 8192, 2)])
    if cpu:
        con.execute("INSERT INTO CUDA_UM_CPU_PAGE_FAULT_EVENTS VALUES (?, 1, ?, 0)",
                    (2 * MS, BASE))
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 0, ?, ?, 0, 0, ?, ?)",
                    [(500, 900, 2 * MIB, 11, 2, BASE), (2 * MS, 2 * MS + 50, 4096, 12, 2, BASE),
                     (3 * MS, 3 * MS + 50, MIB, 11, 1, BASE), (10, 20, 999, 1, 0, 0)])
    con.commit()
    con.close()
    return path


def test_nsys_export_gives_steps_and_counters(tmp_path):
    tr = read(nsys_export(tmp_path / "r.sqlite"))
    assert tr.step_ms == [1.0, 3.0] and tr.step_kind == "NVTX ranges" and tr.backend == "cuda"
    assert tr.per_step[0] == {"gpu_faults": 2, "gpu_fault_groups": 5, "bytes_h2d": 2 * MIB,
                              "fault_bytes_h2d": 2 * MIB}
    assert tr.per_step[1] == {"cpu_faults": 1, "bytes_d2h": 4096, "bytes_h2d": MIB,
                              "prefetch_bytes_h2d": MIB}
    assert tr.to_ecg()["summary"][0]["strategy"] == "Nsight Systems recording"


def test_nsys_export_without_the_cpu_fault_table_names_it(tmp_path):
    with pytest.raises(ProfilerFileError) as e:
        read(nsys_export(tmp_path / "r.sqlite", cpu=False))
    assert e.value.missing == "CUDA_UM_CPU_PAGE_FAULT_EVENTS"
    assert "--cuda-um-cpu-page-faults=true" in e.value.hint


def test_saved_cupti_records_give_what_the_live_recorder_gave(tmp_path):
    stamps = [1000, 2000, 3000]
    records = [(100, "GPU_PAGE_FAULT", 2, "UNKNOWN"), (150, "BYTES_TRANSFER_HTOD", 65536, "COHERENCE"),
               (1500, "BYTES_TRANSFER_DTOH", 4096, "USER"), (2500, "CPU_PAGE_FAULT_COUNT", 7, "UNKNOWN"),
               (9999, "THRASHING", 4096, "UNKNOWN")]
    p = save_records(tmp_path / "run.cupti.jsonl", records, stamps, device="NVIDIA H100")
    tr = read(p)
    assert tr.per_step == bin_records(records, stamps)
    assert tr.device == "NVIDIA H100" and len(tr.step_ms) == 3
    p.write_text(p.read_text().replace("umkit.cupti-records/1", "umkit.cupti-records/9"))
    with pytest.raises(ProfilerFileError) as e:
        read(p)
    assert e.value.missing == "format umkit.cupti-records/9"


@pytest.mark.parametrize("content, missing", [
    (b"SQLite format 3\x00" + b"\x00" * 200, "SQLite"),
    (b'{"traceEvents": []}', "a known JSON format"),
    (b"hello", "a known format"),
])
def test_unknown_files_are_refused(tmp_path, content, missing):
    p = tmp_path / "x.bin"
    p.write_bytes(content)
    with pytest.raises(ProfilerFileError) as e:
        read(p)
    assert e.value.missing == missing


def test_an_empty_sqlite_database_is_neither_format(tmp_path):
    sqlite3.connect(tmp_path / "e.db").execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(ProfilerFileError, match="neither rocpd"):
        read(tmp_path / "e.db")


def big_rocpd(path, n):
    db = Rocpd(path)
    db.alloc(BASE, 64 * MIB)
    db.marker("step", 0, 10**12)
    cat, name = db.string("KFD_PAGE_FAULT"), db.string("KFD_PAGE_FAULT_START")
    ev = json.dumps({"kfd": {"agent_id": "2", "address": str(BASE + 4096)}})
    db.con.executemany('INSERT INTO "rocpd_event_0000aaaa" (id, category_id, extdata) '
                       'VALUES (?, ?, ?)', ((10 + i, cat, ev) for i in range(1, n + 1)))
    db.con.executemany('INSERT INTO "rocpd_region_0000aaaa" (nid, pid, tid, start, "end", '
                       'name_id, event_id) VALUES (1, 1, 1, ?, ?, ?, ?)',
                       ((i, i + 1, name, 10 + i) for i in range(1, n + 1)))
    db.close()
    return path


def peak_reading(path):
    tracemalloc.start()
    try:
        tr = read(path)
        return tr, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_a_large_rocpd_database_streams_in_bounded_memory(tmp_path):
    """Three times the rows, the same peak: rows are iterated with a cursor, never fetched whole
    (what a reader keeps -- MAX_SLICES events for Perfetto, per-step sums, page maps -- is
    bounded)."""
    small, large = 15_000, 45_000
    tr1, peak1 = peak_reading(big_rocpd(tmp_path / "small.db", small))
    tr2, peak2 = peak_reading(big_rocpd(tmp_path / "large.db", large))
    assert tr1.counters["gpu_faults"] == small and tr2.counters["gpu_faults"] == large
    assert tr2.slices_dropped == large - MAX_SLICES
    size = (tmp_path / "large.db").stat().st_size
    assert peak2 < peak1 + (1 << 20), f"peak {peak1 >> 10} KiB -> {peak2 >> 10} KiB"
    assert peak2 < size, f"peak {peak2 >> 10} KiB reading a {size >> 10} KiB database"


DATA = __import__("pathlib").Path(__file__).resolve().parent / "data"


def test_rocprof_sys_unified_memory_summary_gives_totals_and_refuses_a_timeline(tmp_path):
    """data/unified_memory-4242.json: written by umkit's authors in the shape of AMD's writer
    (ROCm/rocm-systems, projects/rocprofiler-systems/source/lib/core/trace_cache/
    unified_memory_processor.cpp at e17cb164ceac18dbae6b5dd5c4c9573e5618ab65,
    write_json_output; MIT licence; nlohmann's map sorts the keys) -- no real report was found
    in a public repository.  Its numbers are made up and consistent (4 x 2 MiB to the GPU)."""
    tr = read(DATA / "unified_memory-4242.json")
    c = tr.counters
    assert (c["bytes_h2d"], c["bytes_d2h"], c["bytes_peer"]) == (8 * MIB, 131072, 0)
    assert (c["gpu_faults"], c["cpu_faults"], c["migrations_gpu_page_fault"]) == (9, 2, 4)
    assert tr.device.startswith("AMD Instinct MI300A") and tr.meta["xnack_enabled"] is True
    for ask in (tr.to_ecg, tr.plan_dict):
        with pytest.raises(ProfilerFileError) as e:
            ask()
        assert e.value.missing == "steps"
    with pytest.raises(ProfilerFileError) as e:
        tr.residency()
    assert e.value.missing == "addresses"
    doc = json.loads((DATA / "unified_memory-4242.json").read_text())
    del doc["devices"][0]["migrations"]["device_to_host"]["total_size_bytes"]
    (tmp_path / "unified_memory-1.json").write_text(json.dumps(doc))
    with pytest.raises(ProfilerFileError) as e:
        read(tmp_path / "unified_memory-1.json")
    assert e.value.missing == "devices[0].migrations.device_to_host.total_size_bytes"


def test_an_example_file_is_never_shown_as_a_backends_recording(tmp_path):
    """A file built from the documented schema (invented numbers) read with example=...: no
    'backend hip' in the ECG's title or the plan's table, no 'measured' in its Perfetto
    trace -- the same file read without it is shown on hip (as a recording would be)."""
    from umkit.ecg.traces.model import EXAMPLE_BACKEND
    from umkit.ecg.traces import perfetto
    path = rocpd_loop(tmp_path / "example.db")
    real = read(path)
    assert real.backend == "hip" and not real.example
    tr = read(path, example="built from the documented rocpd schema")
    assert tr.example and tr.backend == EXAMPLE_BACKEND
    assert tr.name == "example file built from the documented rocpd schema"
    assert tr.source.startswith("example file built from the documented rocpd schema")
    assert tr.per_step == real.per_step and tr.step_ms == real.step_ms     # only the label
    title = tr.to_ecg()["title"]
    assert "backend hip" not in title and f"backend {EXAMPLE_BACKEND}" in title
    table = umkit.plan.PlanResult.from_dict(tr.plan_dict()).table()
    assert "backend hip" not in table and EXAMPLE_BACKEND in table
    for doc in (perfetto(tr), perfetto(tr.record()), perfetto(tr.to_ecg()),
                perfetto(umkit.plan.PlanResult.from_dict(tr.plan_dict()))):
        procs = {e["args"]["name"] for e in doc["traceEvents"]
                 if e["ph"] == "M" and e["name"] == "process_name"}
        assert procs and all(p.startswith("example, not recorded") for p in procs), procs
    with pytest.raises(umkit.InvalidArgument):
        read(path, example="two\nlines")


def test_a_rocpd_file_that_says_it_is_an_example_is_read_as_one(tmp_path):
    """The file's own word (the ``umkit_example`` tag in rocpd_metadata) is enough."""
    db = Rocpd(tmp_path / "tagged.db")
    db.con.execute('INSERT INTO "rocpd_metadata_0000aaaa" (tag, value) VALUES (?, ?)',
                   ("umkit_example", "built from the documented rocpd schema"))
    db.marker("step", 0, MS)
    db.fault(10, BASE)
    db.close()
    tr = read(tmp_path / "tagged.db")
    assert tr.example and tr.meta["example"] == "built from the documented rocpd schema"
    assert "backend hip" not in tr.to_ecg()["title"]
