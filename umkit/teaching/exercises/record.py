"""The learner's record of the exercises, kept in a file so that a kernel restart keeps it.

With the attempts budget on (a learner's kernel), each exercise's wrong tries in a row, the wait
before the next try, the one more right set owed, the last reasons given and whether its answer
was shown (``hint=3``) are read from here before a graded try and changed here after it -- by this
kernel, a restarted one, or another notebook's kernel of the same learner.  So a restart does not
give the free tries back, end a wait, or drop the "answer was shown" note, and one guess per fresh
kernel counts like a guess in one kernel.  Each change is made on the file's current entry under a
lock (:func:`update`), so kernels trying at once each count.

Where: ``UMKIT_EXERCISE_RECORD`` (a file's path, or a folder to keep ``exercises.json`` in;
``off`` keeps the record in the process only, as the project's tests run), else
``$XDG_STATE_HOME/umkit/exercises.json`` (``$HOME/.local/state/...`` where XDG_STATE_HOME is not
an absolute path) -- on the hub, in each learner's own home.  Read once, when the exercises are
imported.  Deleting the file starts the record afresh (a presenter reusing a machine for a new room
does so).

Nothing here stops the exercises: :func:`load` and :func:`update` never raise.  A record file that
cannot be read as one (not JSON, too deep, too large, not a record) is set aside as
``.unreadable`` (``.unreadable-2`` ..., five at most) and a new one started; a place that is not
a regular file (a device, a FIFO, a link), a folder that cannot be written, a full disk or a lock
held past :data:`LOCK_WAIT` seconds leaves the record in the process for the rest of the session
(:func:`status` says why).  It stays
small: at most :data:`MAX_EXERCISES` exercises (those with a shown answer kept longest),
:data:`MAX_REASONS` reasons each, each cut at :data:`MAX_REASON_CHARS` characters."""
from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import threading
import time
from pathlib import Path

try:                                    # a lock between kernels (POSIX; elsewhere none is taken)
    import fcntl
except ImportError:                     # pragma: no cover - not POSIX
    fcntl = None

__all__ = ["ENV", "FILE_NAME", "MAX_EXERCISES", "MAX_REASONS", "MAX_REASON_CHARS", "LOCK_WAIT",
           "path", "load", "update", "save", "status"]

ENV = "UMKIT_EXERCISE_RECORD"
FILE_NAME = "exercises.json"
#: exercises kept (an entry without a shown answer, least recently changed, goes first); the
#: course has about twenty
MAX_EXERCISES = 48
#: reasons kept per exercise (the newest), for "you gave that reason before"
MAX_REASONS = 32
MAX_REASON_CHARS = 200
#: a record file larger than this is not read (it is set aside as unreadable); the limits above
#: keep a record well below it (every character written as an escape included)
MAX_BYTES = 4 << 20
#: seconds a kernel waits for another kernel's lock on the record before it keeps its record in
#: the process (a suspended kernel, a stuck network file system)
LOCK_WAIT = 2.0
#: unreadable records kept beside the record (``.unreadable``, ``.unreadable-2``, ...)
MAX_SET_ASIDE = 5
_OFF = ("off", "0", "none", "no", "false")
_VERSION = 1

_lock = threading.Lock()
_broken: list[str] = []                 # why the record is not used in this process (first reason)


def _path_from_environment() -> tuple[Path | None, str]:
    """The record's file and, where there is none, why."""
    raw = os.environ.get(ENV)
    if raw is not None and raw.strip():
        raw = raw.strip()
        if raw.lower() in _OFF:
            return None, f"{ENV}=off"
        p = os.path.expanduser(raw)
        if not os.path.isabs(p):
            p = os.path.join(os.getcwd(), p)
        p = os.path.normpath(p)
        if os.path.isdir(p) or raw.endswith(os.sep):
            p = os.path.join(p, FILE_NAME)
        return Path(p), ""
    base = os.environ.get("XDG_STATE_HOME", "").strip()
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if not os.path.isabs(home) or os.path.normpath(home) == os.sep:
            return None, "no home folder to keep it in (HOME is not set to one)"
        base = os.path.join(home, ".local", "state")
    return Path(base) / "umkit" / FILE_NAME, ""


#: read once, at import (a later change of the variable, the folder or HOME changes nothing)
_PATH, _WHY_NONE = _path_from_environment()


def path() -> Path | None:
    """The record's file (None: kept in the process only)."""
    return _PATH


def in_use() -> Path | None:
    """The file the tries are counted in now: None where they are kept in this process (the
    record is off, has no home, or was given up after an error)."""
    return None if _broken else _PATH


def status() -> str:
    """One line for a learner or a presenter: where the record is kept, or why it is not."""
    if _PATH is None:
        return f"exercise record: in this process only ({_WHY_NONE})"
    if _broken:
        return f"exercise record: in this process only ({_broken[0]})"
    return f"exercise record: {_PATH}"


def _number(v, lo: float, hi: float) -> float:
    """``v`` as a float within [lo, hi] (0.0 when it is no finite number)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return 0.0
    try:
        f = float(v)
    except OverflowError:
        return 0.0
    return min(max(f, lo), hi) if math.isfinite(f) else 0.0


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeError:
        return False


def _fit_reason(text: str) -> str:
    return text[:MAX_REASON_CHARS]


def _clean_entry(entry) -> dict | None:
    """A stored entry with only well-formed fields (None when it is not an entry)."""
    if not isinstance(entry, dict):
        return None
    reasons = entry.get("reasons", [])
    return {
        "wrong": int(_number(entry.get("wrong", 0), 0, 1 << 30)),
        "until": _number(entry.get("until", 0.0), 0.0, 1e12),
        "updated": _number(entry.get("updated", 0.0), 0.0, time.time()),
        "owed": 1 if entry.get("owed") == 1 else 0,
        "shown": entry.get("shown") is True,
        "reasons": [_fit_reason(r) for r in reasons if isinstance(r, str) and _encodable(r)]
        [-MAX_REASONS:] if isinstance(reasons, list) else [],
    }


def _name_ok(name) -> bool:
    return isinstance(name, str) and 0 < len(name) <= 200 and _encodable(name)


class _Unusable(Exception):
    """The record's place cannot hold a record (a device, a FIFO, a link): leave it alone."""


def _read(p: Path) -> dict:
    """The record's exercises (empty when there is no file); an unreadable file is set aside."""
    try:
        # never blocks (a FIFO put there) and never follows a link put in the file's place
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return {}
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _Unusable(f"{p} is not a regular file")
        raw = f.read(MAX_BYTES + 1)
    try:
        if len(raw) > MAX_BYTES:
            raise ValueError("too large")
        data = json.loads(raw.decode("utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("exercises"), dict):
            raise ValueError("not a record")
        out = {}
        for name, entry in data["exercises"].items():
            clean = _clean_entry(entry)
            if _name_ok(name) and clean is not None:
                out[name] = clean
        return out
    except (ValueError, RecursionError, TypeError, OverflowError):
        _set_aside(p)
        return {}


def _set_aside(p: Path) -> None:
    """Move an unreadable record to ``NAME.unreadable`` (``.unreadable-2`` ... where one is
    there already: an earlier one is never overwritten); with :data:`MAX_SET_ASIDE` there, the
    record is kept in the process instead."""
    for n in range(1, MAX_SET_ASIDE + 1):
        aside = p.with_name(p.name + (".unreadable" if n == 1 else f".unreadable-{n}"))
        if not os.path.lexists(aside):
            os.rename(p, aside)
            return
    raise _Unusable(f"{p} is unreadable and {MAX_SET_ASIDE} unreadable copies are kept beside it")


class _Locked:
    """The record's lock file, held while one kernel reads and rewrites the record (at most
    :data:`LOCK_WAIT` seconds of waiting for another kernel)."""

    def __init__(self, p: Path):
        self.p = p.with_name(p.name + ".lock")
        self.fd = -1

    def __enter__(self):
        self.p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.fd = os.open(self.p, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
                          | getattr(os, "O_NONBLOCK", 0), 0o600)
        if not stat.S_ISREG(os.fstat(self.fd).st_mode):
            os.close(self.fd)
            raise _Unusable(f"{self.p} is not a regular file")
        if fcntl is not None:
            deadline = time.monotonic() + LOCK_WAIT
            while True:
                try:
                    fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        os.close(self.fd)
                        raise _Unusable(f"another process held {self.p} for over "
                                        f"{LOCK_WAIT:g} s") from None
                    time.sleep(0.02)
        return self

    def __exit__(self, *exc):
        os.close(self.fd)               # closing releases the lock
        return False


def _give_up(error: BaseException) -> None:
    if not _broken:
        _broken.append(f"{type(error).__name__}: {error}"[:300])


def _write(p: Path, exercises: dict) -> None:
    """``exercises`` into ``p`` through one temporary file (the lock is held: one writer)."""
    try:
        if not stat.S_ISREG(os.lstat(p).st_mode):
            raise _Unusable(f"{p} is not a regular file")
    except FileNotFoundError:
        pass
    tmp = p.with_name(p.name + ".tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0),
                     0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            json.dump({"version": _VERSION, "exercises": exercises}, f, indent=1)
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):     # nothing half-written is left beside the record
            os.unlink(tmp)
        raise


def load(name: str) -> dict | None:
    """Exercise ``name``'s stored entry ({} when it has none yet); None when the record is not
    used (off, or it could not be used in this process)."""
    if _PATH is None or _broken or not _name_ok(name):
        return None
    try:
        with _lock, _Locked(_PATH):
            return dict(_read(_PATH).get(name, {}))
    except Exception as e:  # noqa: BLE001 - the record never stops an exercise
        _give_up(e)
        return None


def update(name: str, change, now: float) -> dict | None:
    """Change exercise ``name``'s entry as the file holds it now: ``change(entry)`` edits a dict
    of wrong, until, owed, shown and reasons in place; the entry is stored at time ``now`` and
    returned.  None when the record is not used (off, or it cannot be used: kept in the
    process)."""
    if _PATH is None or _broken or not _name_ok(name):
        return None
    try:
        with _lock, _Locked(_PATH):
            exercises = _read(_PATH)
            entry = _clean_entry(exercises.get(name, {}))
            change(entry)
            entry = _clean_entry(entry)
            entry["updated"] = _number(now, 0.0, 1e12)
            exercises.pop(name, None)
            exercises[name] = entry
            if len(exercises) > MAX_EXERCISES:
                # the least kept first: no shown answer, then the least recently changed
                order = sorted((k for k in exercises if k != name),
                               key=lambda k: (exercises[k]["shown"], exercises[k]["updated"]))
                for k in order[:len(exercises) - MAX_EXERCISES]:
                    del exercises[k]
            _write(_PATH, exercises)
            return dict(entry)
    except Exception as e:  # noqa: BLE001 - the record never stops an exercise
        _give_up(e)
        return None


def save(name: str, entry: dict, now: float) -> bool:
    """Store exercise ``name``'s ``entry`` as it is (wrong, until, owed, shown, reasons); False
    when the record is not used."""
    if not isinstance(entry, dict):
        return False
    return update(name, lambda e: e.update(entry), now) is not None
