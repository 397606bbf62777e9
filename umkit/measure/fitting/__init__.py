"""Fitting a simulator profile (a room of :mod:`umkit.measure`): one fitter, driven by a manifest
that names the committed data of each stage (:mod:`.manifest`); ``umkit measure fit`` runs it."""
from ...doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "Manifest": "manifest",
    "fit_profile": "manifest",
    "render": "manifest",
    "differences": "manifest",
    "STAGES": "manifest",
    "direct": ".",
    "advice": ".",
    "cold_path": ".",
    "through_sim": ".",
})
