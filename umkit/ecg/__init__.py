"""The memory ECG (显存心电图, the article's §7): step time per step, one curve per strategy.

    e = umkit.ecg.record(steps=50)            # the built-in training-style step, per strategy
    print(umkit.ecg.table(e)); umkit.ecg.plot(e)
    with umkit.ecg.recorder() as rec:         # or the ECG of your own loop
        for batch in loader:
            train_step(batch); rec.step()

:mod:`.model` is the data model (check, verdict, table: a leaf); :mod:`.runs` runs the built-in
workload; :mod:`.recording` records your loop; :mod:`.picture` draws.
"""
from .model import SPIKE_MS, SPIKY, check, table, title, verdict
from .runs import ECG_STRATEGIES, MAX_JOB_MIB, MAX_STEPS, check_args, record, recorder, text_progress
from .recording import RESULTS, RecordResult, Recorder, combine, load, published
from .picture import coinciding, step_bars
from .picture import ecg as plot
from .traces import read  # noqa: E402,F401 - umkit.ecg.read: profiler files in (umkit.ecg.traces)

__all__ = ["record", "recorder", "table", "title", "verdict", "check", "plot", "step_bars",
           "coinciding", "load", "combine", "published", "Recorder", "RecordResult",
           "text_progress", "check_args", "ECG_STRATEGIES", "MAX_JOB_MIB", "MAX_STEPS", "SPIKY",
           "SPIKE_MS", "RESULTS"]
