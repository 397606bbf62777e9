"""``umkit port-check``: what changes when CUDA unified-memory code runs on AMD -- the checker
(:mod:`.check`: files in, a :class:`Report` out, and the command line), the rules per construct
and target (:mod:`.rules`) and the C++ reader (:mod:`.cxx`)."""
from ...doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "port_check": "check",
    "Report": "check",
    "Finding": "rules",
    "CONSTRUCTS": "rules",
    "SEVERITIES": "rules",
    "TARGETS": "rules",
    "main": "check",
    "SUFFIXES": "check",
    "FORMATS": "check",
    "XNACK": "check",
    "DEFAULT_TARGET": "check",
    "DEFAULT_XNACK": "check",
    "MAX_FILES": "check",
    "MAX_PER_FILE": "check",
    "MAX_FINDINGS": "check",
    "check": ".",
    "rules": ".",
    "cxx": ".",
})
