"""Teaching: the exercises and their checks, the widgets, the runnable HIP examples, the learner's
workspace and the residency plot."""
from ..doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "exercises": ".",
    "widgets": ".",
    "examples": ".",
    "workspace": ".",
    "residency_plot": ".",
})
