"""The measurement programs (a room of :mod:`umkit.measure`): each times things on the active
backend through umkit's public API and writes its JSON; ``umkit measure run NAME [ARGS]`` runs
one (``.ci/gpu``'s steps call them so).  A program is a module here with ``main(argv) -> int``
(0 when what it measures or checks holds); :data:`RUNS` names each with the kind of data it
writes:

* ``fit``: data a profile is fitted on (never the validation set);
* ``validation``: the model's predictions against the card on data the fit never reads;
* ``speed``: the kit's own speed targets (benchmarks/README.md's table);
* ``investigation``: one open question of the model.
"""
from ...doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "RUNS": "registry",
    "KINDS": "registry",
    "run": "registry",
    "core": ".", "read_back": ".", "pool": ".", "small": ".", "fit": ".", "umperf": ".",
    "classes": ".", "class_decide": ".", "recorder": ".", "plan_validate": ".",
})
