"""Measurement: the timing primitives, the probes and the programs that run them
(:mod:`.runs`), calibration, fitting a profile from a manifest (:mod:`.fitting`), evaluating the
model against recorded runs, the counter fidelity check, the umperf comparison and a GPU run's
report; ``umkit measure run | fit | evaluate | report`` is their command line (:mod:`.command`)."""
from ..doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "host_ms": "timing",
    "gpu_ms": "timing",
    "warm_up": "timing",
    "round_trips": "timing",
    "Sink": "timing",
    "check_measured": "calibrate",
    "calibrate": ".",
    "fidelity": ".",
    "umperf": ".",
    "probes": ".",
    "fit_set": ".",
    "validation_set": ".",
    "fitting": ".",
    "runs": ".",
    "evaluate": ".",
    "report": ".",
    "command": ".",
})
