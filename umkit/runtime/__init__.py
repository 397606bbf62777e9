"""Which backend is active: auto-detection, ``UMKIT_BACKEND``, ``use()`` to switch and
``using()`` to switch for a block.  The state itself is the runtime context
(:mod:`umkit.runtime.context`); these are its public faces."""
from ..doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "use": "switch",
    "using": "switch",
    "backend": "switch",
    "backend_name": "switch",
    "why": "switch",
    "RUNTIME": "context",
    "lang": ".",
    "tracebacks": ".",
    "Stream": "streams",
    "Event": "streams",
    "streams": ".",
})
