"""The one way umkit writes a file: to a temporary file in the same folder, flushed to the disk
(``fsync``), then renamed into place -- so a full disk, a kill or a Ctrl-C mid-save leaves the
old file whole (or no file), never half of one.

What happens to a file already at the path is the caller's choice, by surface:

* ``exists="refuse"`` (results a learner saves: ``RecordResult.save``, ``PlanResult.save``,
  ``umkit ecg --json/--out``, ``umkit plan --json``, ``umkit calibrate --out``): the existing
  file is kept and :class:`AlreadyExists` names the argument and says ``force=True`` (Python)
  or ``--force`` (the command line); with ``force=True`` the new file replaces it, still
  atomically.  The check and the write are one step (a hard link that fails when the name is
  taken), so two savers cannot both think the name was free.
* ``exists="number"`` (``bash run.sh ecg``'s artifacts): the new file gets the first free name
  ``stem-2.ext``, ``stem-3.ext``, ...; nothing is replaced.
* ``exists="replace"``: files umkit owns and regenerates (a generated header it recognises as
  its own).

A failed write is :class:`WriteFailed` (an ``OSError`` too, with ``errno``), naming the path and
the argument; the temporary file is removed and the old file is untouched."""
from __future__ import annotations

import errno as _errno_codes
import os
import tempfile
from pathlib import Path

from ..errors import InvalidArgument, UmkitError

#: how many numbered names ``exists="number"`` tries before it gives up
MAX_NUMBERED = 10_000


class AlreadyExists(InvalidArgument):
    """A file is already at the path and the surface keeps existing results; ``path`` is it,
    ``argument`` the argument that named it.  The hint says how to replace it (``force``)."""

    def __init__(self, message: str, *, hint: str = "", argument: str | None = None,
                 path: str | None = None):
        super().__init__(message, hint=hint, argument=argument)
        self.path = path


class WriteFailed(UmkitError, OSError):
    """Writing a file failed (a full disk, no permission, an I/O error); ``path`` is the file,
    ``argument`` the argument that named it, ``errno`` the system's code.  The old file, if
    there was one, is unchanged."""

    def __init__(self, message: str, *, hint: str = "", argument: str | None = None,
                 path: str | None = None, code: int | None = None):
        UmkitError.__init__(self, message, hint=hint)
        self.argument, self.path, self.errno = argument, path, code
        self.strerror = os.strerror(code) if code else None
        self.filename = path


def umask() -> int:
    """The process's file-mode creation mask (read without changing it where Linux allows)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def numbered(path: Path, n: int) -> Path:
    """``path`` with ``-n`` before its extension (``ecg.json`` -> ``ecg-2.json``)."""
    return path.with_name(f"{path.stem}-{n}{path.suffix}")


def free_name(path, argument: str = "path") -> Path:
    """The first of ``path``, ``stem-2.ext``, ``stem-3.ext``, ... that nothing is at now."""
    path = Path(path)
    for n in range(1, MAX_NUMBERED + 1):
        p = path if n == 1 else numbered(path, n)
        if not os.path.lexists(p):
            return p
    raise AlreadyExists(f"{argument}={str(path)!r}: {MAX_NUMBERED} numbered files exist already",
                        argument=argument, path=str(path),
                        hint="move the old files away, or name another path")


def check_free(path, argument: str = "path", force: bool = False, flag: str | None = None):
    """Raise :class:`AlreadyExists` when something is at ``path`` and ``force`` is off: the
    check a command makes before a long run, so that it does not refuse only at the end.
    ``flag``: the command line's spelling (``--force``) for the hint."""
    if force or not os.path.lexists(path):
        return
    raise AlreadyExists(f"{argument}={str(path)!r} exists: the file there is kept",
                        argument=argument, path=str(path),
                        hint=f"pass {flag or 'force=True'} to replace it, or name another path")


def write(path, data, *, argument: str = "path", exists: str = "refuse", force: bool = False,
          flag: str | None = None) -> Path:
    """Write ``data`` (``str``, as UTF-8, or ``bytes``) to ``path`` atomically; returns the path
    written (another one with ``exists="number"``).  ``exists``: ``"refuse"`` (unless
    ``force``), ``"number"`` or ``"replace"``, as the module says.  ``argument`` (and ``flag``,
    the command line's name for ``force``) go into the errors.  Never writes through a folder
    that is not there: the caller checks the path first (``umkit.validate.output_path``)."""
    if exists not in ("refuse", "number", "replace"):
        raise InvalidArgument(f"exists={exists!r} is not one of refuse, number, replace",
                              argument="exists", hint="exists='refuse'")
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise InvalidArgument(f"data is {type(data).__name__}, not text or bytes",
                              argument="data", hint="pass a str or bytes")
    path = Path(path)
    replace = exists == "replace" or (exists == "refuse" and force)
    if exists == "refuse":
        check_free(path, argument, force, flag)
    if os.path.lexists(path) and not os.path.isfile(path) and replace:
        raise InvalidArgument(f"{argument}={str(path)!r} is not a regular file: it is left alone",
                              argument=argument, hint="name a regular file")
    folder = path.parent if str(path.parent) else Path(".")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name[:100]}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            try:
                mode = os.stat(path).st_mode & 0o7777 if replace else None
            except OSError:
                mode = None
            os.fchmod(f.fileno(), mode if mode is not None else 0o666 & ~umask())
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if replace:
            os.replace(tmp, path)
            tmp = None
        else:
            path = _link_new(tmp, path, argument, exists == "number", flag)
            try:
                os.unlink(tmp)
            except FileNotFoundError:      # renamed (a file system without hard links)
                pass
            tmp = None
        _sync_folder(folder)
        return path
    except OSError as e:
        if isinstance(e, UmkitError):
            raise
        code = e.errno
        why = e.strerror or type(e).__name__
        hint = ("free some space on that disk, or name a path on another one"
                if code in (_errno_codes.ENOSPC, _errno_codes.EDQUOT) else
                "pick a path you can write")
        raise WriteFailed(f"{argument}={str(path)!r} could not be written ({why}); "
                          f"{'the file already there is unchanged' if os.path.lexists(path) else 'nothing was written'}",
                          argument=argument, path=str(path), code=code, hint=hint) from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _link_new(tmp: str, path: Path, argument: str, number: bool, flag: str | None) -> Path:
    """Give the written temporary file the name ``path`` without replacing anything there (a
    hard link fails when the name is taken); with ``number`` the next free numbered name."""
    n = 1

    def taken(n: int) -> int:
        """The name tried was in use: the next number, or AlreadyExists."""
        if not number:
            raise AlreadyExists(f"{argument}={str(path)!r} exists: the file there is kept",
                                argument=argument, path=str(path),
                                hint=f"pass {flag or 'force=True'} to replace it, or name another path"
                                ) from None
        if n + 1 > MAX_NUMBERED:
            raise AlreadyExists(f"{argument}={str(path)!r}: {MAX_NUMBERED} numbered files "
                                "exist already", argument=argument, path=str(path),
                                hint="move the old files away, or name another path") from None
        return n + 1

    while True:
        p = path if n == 1 else numbered(path, n)
        try:
            os.link(tmp, p)
            return p
        except FileExistsError:
            n = taken(n)
        except OSError as e:
            if e.errno not in (_errno_codes.EPERM, _errno_codes.ENOTSUP, _errno_codes.EOPNOTSUPP,
                               _errno_codes.EXDEV, _errno_codes.EMLINK):
                raise
            # a file system without hard links: check, then rename (a small window remains)
            if os.path.lexists(p):
                n = taken(n)
                continue
            os.replace(tmp, p)
            return p


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (best effort: not every system lets a folder be fsynced)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
