"""The measurement probes (a room of :mod:`umkit.measure`): the functions that time one thing
each on the active backend through umkit's public API -- the fit data's size sweeps
(:mod:`.small`), the fit-only probes (:mod:`.fit`), the class probes behind the model's open
questions (:mod:`.classes`) and the simulator's own speed (:mod:`.sim_speed`).

The scripts in ``benchmarks/`` run them and write their JSON; tests and the profile refit import
them from here, so no script imports another.  Each module's docstring says what it measures
and which set (fit or validation) its numbers belong to.
"""
from __future__ import annotations

#: the probe modules by name, and the kind of data each produces: "fit" data the profiles are
#: fitted on, "investigation" for probes of one open question, "speed" for the kit's own speed.
KINDS = {"small": "fit", "fit": "fit", "classes": "investigation", "sim_speed": "speed",
         "torch_loop": "validation"}

__all__ = ["KINDS"]
