"""One exception hierarchy for umkit, and the article's §5.1 troubleshooting table.

Every error says what went wrong and what to do.  Bad input raises a subclass of both
:class:`UmkitError` and the matching built-in (``ValueError``/``TypeError``), so ordinary
``except ValueError`` code still works.
"""
from __future__ import annotations


class UmkitError(Exception):
    """Base class of every error umkit raises."""

    hint: str = ""

    def __init__(self, message: str, *, hint: str = ""):
        self.hint = hint or self.hint
        super().__init__(message + (f"\n  -> {self.hint}" if self.hint else ""))


class InvalidArgument(UmkitError, ValueError):
    """An argument has a wrong value; the message names the argument and the fix."""


class InvalidType(UmkitError, TypeError):
    """An argument has a wrong type; the message names the argument and the fix."""


class BackendUnavailable(UmkitError, RuntimeError):
    """The requested backend cannot run here (no driver, no device, package missing)."""


class OutOfMemory(UmkitError, MemoryError):
    """Not enough memory, or a managed allocation refused by the oversubscription guard."""


class UseAfterFree(UmkitError, RuntimeError):
    """An operation on memory that was already freed (or freed twice)."""


class NotManaged(UmkitError, ValueError):
    """Prefetch/advise asked of memory that is not managed (device or pinned memory)."""


class RaceDetected(UmkitError, RuntimeError):
    """sim strict mode: the host touched pages that a kernel still in flight may touch."""


class BackendError(UmkitError, RuntimeError):
    """A HIP/CUDA call failed; ``code`` is the runtime's error code, ``name`` its name."""

    def __init__(self, call: str, code: int, name: str, message: str = "", *, hint: str = ""):
        self.call, self.code, self.name = call, int(code), name
        super().__init__(f"{call} failed: {name} ({int(code)}){': ' + message if message else ''}",
                         hint=hint)
