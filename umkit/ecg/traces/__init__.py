"""Profiler files in, Perfetto traces out.

    tr = umkit.ecg.read("results.db")          # rocprofv3's rocpd, an nsys SQLite export,
    umkit.ecg.plot(tr.to_ecg())                #   rocprof-sys's UM summary, the kit's CUPTI records
    tr.residency()                             # where the migrations left each page
    umkit.plan.PlanResult.from_dict(tr.plan_dict()).table()
    umkit.ecg.traces.perfetto(tr, "loop.trace.json")   # open beside the profiler's in Perfetto

:func:`read` sniffs the format; every reader streams its rows (bounded memory) and refuses what
it does not understand with :class:`ProfilerFileError` naming what is missing.
"""
from ...doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "read": "reader",
    "perfetto": "perfetto_out",
    "save_records": "cupti_file",
    "ProfilerTrace": "model",
    "ProfilerFileError": "model",
})
