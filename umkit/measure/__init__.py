"""Measurement: the timing primitives, the probes, calibration of a profile from measurements, the
counter fidelity check and the umperf comparison."""
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
})
