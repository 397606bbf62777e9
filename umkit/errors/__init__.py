"""umkit's exceptions (:mod:`.kinds`) and the article's §5.1 error table (:mod:`.table`).

Every error says what went wrong (``message``) and what to do (``hint``); both are attributes,
so code reads them as fields and never parses the text.  Bad input raises a subclass of both
:class:`UmkitError` and the matching built-in (``ValueError``/``TypeError``)."""
from ..doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "UmkitError": "kinds",
    "InvalidArgument": "kinds",
    "InvalidType": "kinds",
    "NotInTable": "kinds",
    "NoCounterpart": "kinds",
    "BackendUnavailable": "kinds",
    "OutOfMemory": "kinds",
    "UseAfterFree": "kinds",
    "NotManaged": "kinds",
    "RaceDetected": "kinds",
    "BackendError": "kinds",
    "BackendOutOfMemory": "kinds",
    "DLPackUnsupported": "kinds",
    "RaceWarning": "kinds",
    "kinds": ".",
    "table": ".",
})
