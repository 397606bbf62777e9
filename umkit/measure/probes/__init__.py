"""The measurement probes (a room of :mod:`umkit.measure`): the functions that time one thing
each on the active backend through umkit's public API -- the fit data's size sweeps
(:mod:`.small`), the fit-only probes (:mod:`.fit`), the class probes behind the model's open
questions (:mod:`.classes`) and the simulator's own speed (:mod:`.sim_speed`).

The programs of :mod:`umkit.measure.runs` run them and write their JSON; the profile fit
(:mod:`umkit.measure.fitting`) runs them on the simulator.  Each module's docstring says what it measures
and which set (fit or validation) its numbers belong to.
"""
from ...doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "small": ".", "fit": ".", "classes": ".", "sim_speed": ".", "torch_loop": ".",
})
