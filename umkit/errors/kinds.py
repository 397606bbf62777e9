"""umkit's exceptions, the classes (the §5.1 table is :mod:`umkit.errors.table`, the renderer
behind ``umkit.explain`` is :mod:`umkit.diagnostics.explain`).

Every error says what went wrong (``message``) and what to do (``hint``); both are attributes,
so code reads them as fields and never parses the text (as CuPy's ``OutOfMemoryError`` keeps its
sizes).  ``str(err)`` shows both, the hint on its own line, in the learner's language (the
fields stay English).  Bad input raises a subclass of both
:class:`UmkitError` and the matching built-in (``ValueError``/``TypeError``), so ordinary
``except ValueError`` code still works.
"""
from __future__ import annotations


class UmkitError(Exception):
    """Base class of every error umkit raises.  ``message``: what went wrong; ``hint``: what
    to do about it."""

    hint: str = ""
    #: turns a finished English text into the learner's language; :mod:`umkit.runtime.lang`
    #: installs its translator (until then, and in English, the text is returned unchanged).
    #: ``message`` and ``hint`` stay English, for code; ``str(err)`` is what a learner reads.
    localize = staticmethod(lambda text: text)

    def __init__(self, message: str, *, hint: str = ""):
        self.message = str(message)
        self.hint = hint or type(self).hint
        super().__init__(self.message)

    def __str__(self) -> str:
        hint = self.localize(self.hint) if self.hint else ""
        return self.localize(self.message) + (f"\n  -> {hint}" if hint else "")

    def __reduce__(self):          # pickle the fields, whatever the subclass's __init__ takes
        return _rebuild, (type(self), self.args, self.__dict__.copy())


def _rebuild(cls, args, state):
    try:
        err = cls.__new__(cls)
    except TypeError:      # two built-in bases (MemoryError and RuntimeError): "is not safe"
        err = BaseException.__new__(cls)
    Exception.__init__(err, *args)
    err.__dict__.update(state)
    return err


class InvalidArgument(UmkitError, ValueError):
    """An argument has a wrong value; ``argument`` names it, the hint says the fix."""

    def __init__(self, message: str, *, hint: str = "", argument: str | None = None):
        super().__init__(message, hint=hint)
        self.argument = argument


class InvalidType(UmkitError, TypeError):
    """An argument has a wrong type; ``argument`` names it, the hint says the fix."""

    def __init__(self, message: str, *, hint: str = "", argument: str | None = None):
        super().__init__(message, hint=hint)
        self.argument = argument


class NotInTable(InvalidArgument, KeyError):
    """A name that umkit's CUDA<->HIP table (``umkit.names``) does not hold; also a
    ``KeyError``, as a lookup in a table is."""

    def __str__(self) -> str:                  # KeyError would quote the message
        return UmkitError.__str__(self)


class NoCounterpart(UmkitError, LookupError):
    """A name in umkit's CUDA<->HIP table that the other runtime lacks (the table's note
    says why)."""


class BackendUnavailable(UmkitError, RuntimeError):
    """The requested backend cannot run here (no driver, no device, package missing)."""


class OutOfMemory(UmkitError, MemoryError):
    """Not enough memory, or a managed allocation refused by the oversubscription guard.
    The numbers are fields: ``requested``, ``free``, ``total`` (bytes, None where unknown),
    ``kind`` ('managed', 'device', 'pinned') and ``device``."""

    def __init__(self, message: str, *, hint: str = "", requested: int | None = None,
                 free: int | None = None, total: int | None = None, device: int | None = None,
                 kind: str | None = None):
        super().__init__(message, hint=hint)
        self.requested, self.free, self.total, self.device = requested, free, total, device
        self.kind = kind


class UseAfterFree(UmkitError, RuntimeError):
    """An operation on memory that was already freed (or freed twice)."""


class NotManaged(UmkitError, ValueError):
    """Prefetch/advise asked of memory that is not managed (device or pinned memory)."""


class RaceDetected(UmkitError, RuntimeError):
    """sim strict mode: the host touched pages that a kernel still in flight may touch."""


class BackendError(UmkitError, RuntimeError):
    """A HIP/CUDA call failed; ``call`` the function, ``code`` the runtime's error code,
    ``name`` its name, ``detail`` the runtime's own message."""

    def __init__(self, call: str, code: int, name: str, message: str = "", *, hint: str = ""):
        self.call, self.code, self.name, self.detail = call, int(code), name, message
        UmkitError.__init__(self, f"{call} failed: {name} ({int(code)})"
                            f"{': ' + message if message else ''}", hint=hint)


class BackendOutOfMemory(OutOfMemory, BackendError):
    """A HIP/CUDA allocation failed for lack of memory: an :class:`OutOfMemory` (so a
    ``MemoryError``) that also carries the runtime's ``call``, ``code`` and ``name``."""

    def __init__(self, call: str, code: int, name: str, message: str = "", *, hint: str = "",
                 requested: int | None = None, free: int | None = None,
                 total: int | None = None, kind: str | None = None, device: int | None = None):
        BackendError.__init__(self, call, code, name, message, hint=hint)
        self.requested, self.free, self.total, self.device = requested, free, total, device
        self.kind = kind
        if requested is not None:       # CuPy's wording first, the runtime's after it
            gib = 1 << 30
            where = "host" if kind == "pinned" else f"gpu{device}"
            room = (f"; {free / gib:.2f} GiB of {total / gib:.2f} GiB free"
                    if free is not None and total is not None else "")
            self.message = (f"Out of memory allocating {requested:,} bytes of "
                            f"{kind or 'GPU'} memory on {where}{room} ({self.message})")
            self.args = (self.message,)


class DLPackUnsupported(UmkitError, BufferError):
    """A DLPack export that cannot be done without a copy (a ``BufferError``, as the DLPack
    protocol asks, so consumers fall back the standard way)."""


class RaceWarning(UserWarning):
    """The host touched pages that a kernel still in flight may touch (article §3.3, §5.1).
    Its text is English (``args[0]``); ``str()`` -- what the warning shows -- is in the learner's
    language, as a :class:`UmkitError`'s is."""

    def __str__(self) -> str:
        return UmkitError.localize(super().__str__())


# each class is shown, pickled and documented by its public name, ``umkit.errors.<Name>``
for _cls in (UmkitError, InvalidArgument, InvalidType, NotInTable, NoCounterpart, BackendUnavailable, OutOfMemory, UseAfterFree, NotManaged, RaceDetected, BackendError, BackendOutOfMemory, DLPackUnsupported, RaceWarning,):
    _cls.__module__ = "umkit.errors"
del _cls
