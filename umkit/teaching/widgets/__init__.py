"""Widgets: the strategy panel, the residency map and the memory ECG.

They draw results and compute nothing (README, "How it's built"): the runs come from
:mod:`umkit.workloads`, the residency from :func:`umkit.residency`, the ECG from
:mod:`umkit.ecg`.  Each one falls back to static matplotlib (:func:`umkit.ecg.plot`,
:func:`residency_plot`) where no widget
frontend draws them: plain Python, or ``UMKIT_WIDGETS=static`` (nbconvert / nbval runs).

    import umkit.widgets
    umkit.widgets.panel()                  # the strategy panel
    m = umkit.widgets.residency_map(arr)   # then m.update() after each step
    d = umkit.widgets.ecg(steps=50)        # the memory ECG, with a progress bar
    v = umkit.widgets.recorder_view()      # your own loop, live: `with v.recorder() as rec:`
    umkit.widgets.workshop()               # the workshop dashboard (presets, map, ECG, projector)
"""
from .ecg_widget import ECGResult, ECGView, ecg
from .panel import DEFAULTS, PanelModel, PanelRun, StrategyPanel, has_frontend, panel
from .recorder_view import RecorderView, recorder_view
from .residency_map import ResidencyMap, residency_map
from .workshop import PRESETS, Workshop, workshop
from ..residency_plot import residency as residency_plot

__all__ = ["DEFAULTS", "ECGResult", "ECGView", "PRESETS", "PanelModel", "PanelRun", "RecorderView",
           "ResidencyMap", "StrategyPanel", "Workshop", "ecg", "has_frontend", "panel",
           "recorder_view", "residency_map", "residency_plot", "workshop"]
