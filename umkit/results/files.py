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
import re
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
    raise AlreadyExists(f"{argument}={_shown(path)}: {MAX_NUMBERED} numbered files exist already",
                        argument=argument, path=str(path),
                        hint="move the old files away, or name another path")


def check_free(path, argument: str = "path", force: bool = False, flag: str | None = None):
    """Raise :class:`AlreadyExists` when something is at ``path`` and ``force`` is off: the
    check a command makes before a long run, so that it does not refuse only at the end.
    ``flag``: the command line's spelling (``--force``) for the hint."""
    if force or not os.path.lexists(path):
        return
    raise AlreadyExists(f"{argument}={_shown(path)} exists: the file there is kept",
                        argument=argument, path=str(path),
                        hint=f"pass {flag or 'force=True'} to replace it, or name another path")


def identity(path) -> tuple | None:
    """What tells one version of the file at ``path`` from another: (inode, size, modification
    time in ns), or None when nothing is there."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def write(path, data, *, argument: str = "path", exists: str = "refuse", force: bool = False,
          flag: str | None = None, unchanged: tuple | None = None) -> Path:
    """Write ``data`` (``str``, as UTF-8, or ``bytes``) to ``path`` atomically; returns the path
    written (another one with ``exists="number"``).  ``exists``: ``"refuse"`` (unless
    ``force``), ``"number"`` or ``"replace"``, as the module says.  ``argument`` (and ``flag``,
    the command line's name for ``force``) go into the errors.  Never writes through a folder
    that is not there: the caller checks the path first (``umkit.validate.output_path``).
    ``unchanged`` (with ``"replace"``): the :func:`identity` the caller read the file at; if the
    file is another one when the new one is ready (someone saved it meanwhile), nothing is
    replaced and :class:`AlreadyExists` says so."""
    return write_all([(path, data, argument)], exists=exists, force=force, flag=flag,
                     unchanged=unchanged)[0]


def write_all(items, *, exists: str = "refuse", force: bool = False,
              flag: str | None = None, unchanged: tuple | None = None) -> list[Path]:
    """Several files saved as one (``umkit ecg``'s JSON and picture): ``items`` is a list of
    ``(path, data, argument)``.  Every file is first written to its temporary file; only when
    all of them are on the disk are they given their names.  With ``exists="number"`` they all
    get the *same* number (``ecg-3.json`` with ``ecg-3.png``, even while another save numbers
    the same names); with ``"refuse"`` none is written when one name is taken.  A failed write
    leaves none of the new files (so a retry is not blocked by half of a pair).  Returns the
    paths written, in order."""
    if exists not in ("refuse", "number", "replace"):
        raise InvalidArgument(f"exists={_shown(exists)} is not one of refuse, number, replace",
                              argument="exists", hint="exists='refuse'")
    todo = []
    for path, data, argument in items:
        if isinstance(data, str):
            data = data.encode("utf-8")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise InvalidArgument(f"data is {type(data).__name__}, not text or bytes",
                                  argument="data", hint="pass a str or bytes")
        todo.append((Path(path), data, argument))
    replace = exists == "replace" or (exists == "refuse" and force)
    for path, _, argument in todo:
        if exists == "refuse":
            check_free(path, argument, force, flag)
        if os.path.lexists(path) and not os.path.isfile(path) and replace:
            raise InvalidArgument(f"{argument}={_shown(path)} is not a regular file: it is left "
                                  "alone", argument=argument, hint="name a regular file")
    tmps: list = [None] * len(todo)
    current = todo[0]
    try:
        for i, (path, data, argument) in enumerate(todo):
            current = (path, data, argument)
            folder = path.parent if str(path.parent) else Path(".")
            clean_stale(folder)
            tmps[i] = _temp_file(folder, path, data, replace)
        if replace:
            for i, (path, data, argument) in enumerate(todo):
                current = (path, data, argument)
                if unchanged is not None and identity(path) != unchanged:
                    raise AlreadyExists(f"{argument}={_shown(path)} changed while the new file "
                                        "was being written: the file there is kept",
                                        argument=argument, path=str(path),
                                        hint="run it again to compare with what is there now")
                os.replace(tmps[i], path)
                tmps[i] = None
            written = [p for p, _, _ in todo]
        else:
            written = _link_all(tmps, todo, exists == "number", flag)
        for path in written:
            _sync_folder(path.parent if str(path.parent) else Path("."))
        return written
    except OSError as e:
        if isinstance(e, UmkitError):
            raise
        path, _, argument = current
        code = e.errno
        why = e.strerror or type(e).__name__
        hint = ("free some space on that disk, or name a path on another one"
                if code in (_errno_codes.ENOSPC, _errno_codes.EDQUOT, _errno_codes.EFBIG) else
                "pick a path you can write")
        kept = ("the file already there is unchanged" if os.path.lexists(path)
                else "nothing was written")
        raise WriteFailed(f"{argument}={_shown(path)} could not be written ({why}); {kept}",
                          argument=argument, path=str(path), code=code, hint=hint) from None
    finally:
        for tmp in tmps:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass


def _link_all(tmps: list, todo: list, number: bool, flag: str | None) -> list[Path]:
    """Give each written temporary file its name without replacing anything (a hard link fails
    when the name is taken), all with one number; a name taken undoes this round's links (ours:
    the same file as our temporary one) and tries the next number (or refuses)."""
    inodes = [os.stat(t).st_ino for t in tmps]
    for n in range(1, MAX_NUMBERED + 1):
        names = [p if n == 1 else numbered(p, n) for p, _, _ in todo]
        made, clash = [], None
        for i, p in enumerate(names):
            try:
                _link_one(tmps[i], p)
                made.append(i)
            except FileExistsError:
                clash = i
                break
        if clash is None:
            for i in range(len(tmps)):
                try:
                    os.unlink(tmps[i])
                except FileNotFoundError:  # renamed (a file system without hard links)
                    pass
                tmps[i] = None
            return names
        for i in made:                      # undo: only a name that is still our file
            try:
                if os.stat(names[i]).st_ino == inodes[i]:
                    if not os.path.exists(tmps[i]):       # renamed: move it back
                        os.replace(names[i], tmps[i])
                    else:
                        os.unlink(names[i])
            except OSError:
                pass
        path, _, argument = todo[clash]
        if not number:
            raise AlreadyExists(f"{argument}={_shown(path)} exists: the file there is kept",
                                argument=argument, path=str(path),
                                hint=f"pass {flag or 'force=True'} to replace it, or name "
                                     "another path")
    path, _, argument = todo[0]
    raise AlreadyExists(f"{argument}={_shown(path)}: {MAX_NUMBERED} numbered files exist "
                        "already", argument=argument, path=str(path),
                        hint="move the old files away, or name another path")


def _link_one(tmp: str, p: Path) -> None:
    """``p`` becomes a name of the file ``tmp``; FileExistsError when ``p`` is taken."""
    try:
        os.link(tmp, p)
    except FileExistsError:
        raise
    except OSError as e:
        if e.errno not in (_errno_codes.EPERM, _errno_codes.ENOTSUP, _errno_codes.EOPNOTSUPP,
                           _errno_codes.EXDEV, _errno_codes.EMLINK):
            raise
        # a file system without hard links: check, then rename (a small window remains)
        if os.path.lexists(p):
            raise FileExistsError(_errno_codes.EEXIST, "exists", str(p)) from None
        os.replace(tmp, p)


def _shown(value, limit: int = 200) -> str:
    """A value for a message: its repr (control characters escaped), at most ``limit``
    characters (this layer comes before :mod:`umkit.validate`)."""
    text = repr(str(value))
    return text if len(text) <= limit else text[:limit - 4] + "...'"

#: what every temporary file umkit writes is called: ``.<name, cut to 100 bytes>~umkit-<pid>-
#: <random>.tmp`` -- recognisable, so a save can remove the ones a killed save left behind
TEMP = re.compile(r"^\..*~umkit-(\d+)-[A-Za-z0-9_]+\.tmp$", re.S)


def temp_prefix(path: Path) -> str:
    """The start of a temporary file's name for ``path``: its name cut to 100 *bytes* (a name
    of long CJK characters cut to 100 characters would be 300 bytes, over most file systems'
    255), then umkit's mark and this process's id."""
    name = os.fsencode(path.name)[:100]
    while True:                        # do not cut a character (or an escaped byte) in half
        try:
            text = os.fsdecode(name)
            os.fsencode(text)
            break
        except (UnicodeError, ValueError):
            name = name[:-1]
    return f".{text}~umkit-{os.getpid()}-"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError, ValueError):
        return True                    # someone else's process (or cannot tell): keep its file
    return True


def clean_stale(folder, before: float | None = None) -> list[str]:
    """Remove the temporary files a killed save left in ``folder``: umkit's (by their name,
    :data:`TEMP`), written by a process that is gone, and last changed before ``before`` (now,
    by default, less a second).  A live writer's file is never touched.  Returns the names
    removed; never raises (a folder it cannot list is left alone)."""
    import time
    before = time.time() - 1.0 if before is None else before
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for e in entries:
        m = TEMP.match(e.name)
        if m is None:
            continue
        try:
            st = e.stat(follow_symlinks=False)
            if not e.is_file(follow_symlinks=False) or st.st_mtime >= before \
                    or _alive(int(m.group(1))):
                continue
            os.unlink(e.path)
            removed.append(e.name)
        except (OSError, ValueError):
            continue
    return removed


def _temp_file(folder: Path, path: Path, data, replace: bool) -> str:
    """``data`` written and flushed to the disk in a new temporary file beside ``path`` (named
    as :data:`TEMP` says); its path.  Removed again if writing fails."""
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=temp_prefix(path), suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            try:
                mode = os.stat(path).st_mode & 0o7777 if replace else None
            except OSError:
                mode = None
            os.fchmod(f.fileno(), mode if mode is not None else 0o666 & ~umask())
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return tmp


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
