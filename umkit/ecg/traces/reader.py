"""Which reader a profiler file needs: :func:`read` sniffs the format (rocpd, an nsys SQLite
export, the kit's CUPTI records, rocprof-sys's JSON summary) and hands the file to it."""
from __future__ import annotations

from .model import ProfilerFileError, ProfilerTrace
from .cupti_file import FORMAT as CUPTI_FORMAT

SQLITE_MAGIC = b"SQLite format 3\x00"


def read(path, *, step: str | None = None, name: str | None = None,
         example: str | None = None) -> ProfilerTrace:
    """A profiler file as a :class:`ProfilerTrace`.  ``step``: the name of the ROCTx/NVTX
    ranges that mark your steps (default: ranges whose name contains 'step'; with none, each
    kernel is a step).  Formats: rocprofv3's rocpd SQLite database (schema 3), Nsight Systems'
    SQLite export, rocprof-sys's ``unified_memory-<pid>.json`` (totals only), and
    ``umkit.cupti-records/1`` (:func:`save_records`).

    ``example``: for a file that was *not* recorded on a card, what it is (e.g. "built from
    the documented rocpd schema"): the trace is then shown on no backend
    (:data:`~umkit.ecg.traces.model.EXAMPLE_BACKEND`) and called an example in its name, its
    ECG, its plan and its Perfetto export.  A rocpd file that carries the ``umkit_example``
    tag in ``rocpd_metadata`` is read as an example without it.

    A file that is damaged or not what its format says (a truncated database, a time that is
    text, an address past 64 bits, JSON of the wrong shape) raises :class:`ProfilerFileError`
    naming the file and the field."""
    from ... import validate as V
    from . import cupti_file, nsys, rocpd, rocprofsys, sql
    p = V.path(path, "path", hint="the profiler's output file, e.g. results.db")
    from ...validate import not_a_file
    why = not_a_file(p)
    if why:
        raise ProfilerFileError(why, missing=str(p),
                                hint="the profiler's output file, e.g. results.db")
    if step is not None:
        V.label(step, "step", hint="the name of the ranges that mark your steps, e.g. 'step'")
    if name is not None:
        V.label(name, "name")
    if example is not None:
        V.label(example, "example")
    with sql.reading(str(p), "file", "the profiler's output file, e.g. results.db"):
        with open(p, "rb") as f:
            head = f.read(64)
    if head.startswith(SQLITE_MAGIC):
        with sql.reading(str(p), "SQLite database", "pass the .db / .sqlite file the profiler "
                                                    "wrote"):
            con = sql.connect(str(p))
            try:
                have = sql.names(con, str(p))
            finally:
                con.close()
        if rocpd.is_rocpd(have):
            return rocpd.read(str(p), step=step, name=name, example=example)
        if nsys.is_nsys(have):
            return nsys.read(str(p), step=step, name=name, example=example)
        raise ProfilerFileError(f"{p}: a SQLite database, but neither rocpd (no rocpd_metadata) "
                                "nor an Nsight Systems export (no CUDA_UM_* tables)",
                                missing="rocpd_metadata or CUDA_UM_GPU_PAGE_FAULT_EVENTS",
                                hint="pass rocprofv3's .db or nsys export --type sqlite's file")
    text = head.lstrip()
    if text.startswith(b"{") and CUPTI_FORMAT.split("/")[0].encode() in head:
        return cupti_file.read(str(p), step=step, name=name, example=example)
    if text.startswith(b"{") and b'"devices"' in head:
        return rocprofsys.read(str(p), step=step, name=name, example=example)
    if text.startswith(b"{") or text.startswith(b"["):
        raise ProfilerFileError(f"{p}: JSON, but not a format umkit reads",
                                missing="a known JSON format",
                                hint="record with rocprofv3 --output-format rocpd instead")
    raise ProfilerFileError(f"{p}: not a profiler file umkit reads", missing="a known format",
                            hint="rocprofv3's .db (rocpd), nsys export --type sqlite, or "
                                 "umkit.ecg.traces.save_records' .jsonl")
