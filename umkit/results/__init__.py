"""The GPU runs committed under ``benchmarks/results/``: the newest one of a kind, for the
notebooks and widgets that show a real card's numbers beside sim's (``recorder.published``,
``umperf.published``)."""
from ..doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "RESULTS": "published",
    "MAX_RESULT": "published",
    "read_json": "published",
    "newest": "published",
    "files": ".",
})
