"""The access-owner plan of *your* loop (the article's §5.3 and §7): the table of memory budget,
lifetime and access owner (访问主人) of every buffer, and what each choice would cost.

    with umkit.plan.recorder() as rec:          # or umkit.plan.recorder(ecg=your_ecg_recorder)
        for batch in loader:
            train_step(batch)
            rec.step()
    r = rec.result()
    print(r.table())                           # one row a buffer: budget, lifetime, owner, moved
    adv = r.recommend(profiles=["h200-pcie5", "mi300x"])
    print(adv.table())                         # per buffer: device / managed+prefetch / ...
    adv.plot()                                 # the predicted ECG of each plan
    r.save("my_loop.plan.json")                # `umkit plan my_loop.plan.json` reads it

:mod:`.model` is the vocabulary (a leaf); :mod:`.result` the recorded loop, its table and its
file; :mod:`.recording` records (sim: the engine's per-allocation accounting; cuda: CUPTI's
records by address); :mod:`.advice` holds the rules and the search; :mod:`.instrumentation`
takes the rest of each recorded step apart (the loop's own work, the recording's
instrumentation -- counters on in some steps, off in the others -- and the recorded plan's
memory cost beyond the replay) and says how sure the predicted sizes are; :mod:`.replay`
replays a recording on sim under a plan; :mod:`.picture` draws.
"""
from ..doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "recorder": "recording",
    "Recorder": "recording",
    "load": "result",
    "recommend": "result",
    "predict": "result",
    "PlanResult": "result",
    "Buffer": "model",
    "CHOICES": "model",
    "ROLES": "model",
    "MOVED": "model",
    "Recommendation": "advice",
    "replay": ".",
    "advice": ".",
    "recording": ".",
})
