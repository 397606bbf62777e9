"""The memory ECG (显存心电图, the article's §7): step time per step, one curve per strategy.

    e = umkit.ecg.record(steps=50)            # the built-in training-style step, per strategy
    print(umkit.ecg.table(e)); umkit.ecg.plot(e)
    with umkit.ecg.recorder() as rec:         # or the ECG of your own loop
        for batch in loader:
            train_step(batch); rec.step()

:mod:`.model` is the data model (check, verdict, table: a leaf); :mod:`.runs` runs the built-in
workload; :mod:`.recording` records your loop; :mod:`.picture` draws.
"""
from ..doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "SPIKE_MS": "model",
    "SPIKY": "model",
    "check": "model",
    "table": "model",
    "title": "model",
    "verdict": "model",
    "verdict_sealed": "model",
    "ECG_STRATEGIES": "runs",
    "MAX_JOB_MIB": "runs",
    "MAX_STEPS": "runs",
    "check_args": "runs",
    "record": "runs",
    "recorder": "runs",
    "text_progress": "runs",
    "RESULTS": "recording",
    "RecordResult": "recording",
    "Recorder": "recording",
    "combine": "recording",
    "load": "recording",
    "published": "recording",
    "coinciding": "picture",
    "step_bars": "picture",
    "plot": "picture",
    "read": "traces",
    "model": ".",
    "runs": ".",
    "recording": ".",
    "picture": ".",
    "traces": ".",
})
