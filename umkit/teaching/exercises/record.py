"""The learner's record of the exercises, kept in a file so that a kernel restart keeps it.

With the attempts budget on (a learner's kernel), each exercise's wrong tries in a row, the wait
before the next try, the one more right set owed, the last reasons given and whether its answer
was shown (``hint=3``) are written here after every graded try and read back before the next
one -- by this kernel, by a restarted one, or by another notebook's kernel of the same learner.
So a restart does not give the free tries back, end a wait, or drop the "answer was shown" note,
and one guess per fresh kernel counts like a guess in one kernel.

Where: ``UMKIT_EXERCISE_RECORD`` (a file's path; ``off`` keeps the record in the process only, as
the project's tests run), else ``$XDG_STATE_HOME/umkit/exercises.json`` (``~/.local/state/...``
where XDG_STATE_HOME is not set) -- on the hub, in each learner's own home.  Read once, when the
exercises are imported.  Deleting the file starts the record afresh (a presenter reusing a machine
for a new room does so).

Nothing here stops the exercises: a record that cannot be read is set aside (``.unreadable``)
and a new one started; one that cannot be written (a read-only home, a full disk) leaves the
record in the process, as before.  It stays small: at most :data:`MAX_EXERCISES` exercises,
:data:`MAX_REASONS` reasons each, each reason cut at :data:`MAX_REASON_CHARS` characters."""
from __future__ import annotations

import json
import math
import os
import stat
import threading
from pathlib import Path

try:                                    # a lock between kernels (POSIX; elsewhere none is taken)
    import fcntl
except ImportError:                     # pragma: no cover - not POSIX
    fcntl = None

__all__ = ["ENV", "FILE_NAME", "MAX_EXERCISES", "MAX_REASONS", "MAX_REASON_CHARS", "path",
           "load", "save", "status"]

ENV = "UMKIT_EXERCISE_RECORD"
FILE_NAME = "exercises.json"
#: exercises kept (the least recently updated goes first); the course has about twenty
MAX_EXERCISES = 64
#: reasons kept per exercise (the newest), for "you gave that reason before"
MAX_REASONS = 16
MAX_REASON_CHARS = 2000
#: a record file larger than this is not read (it is set aside as unreadable)
MAX_BYTES = 4 << 20
_OFF = ("off", "0", "none", "no", "false")
_VERSION = 1

_lock = threading.Lock()
_broken: list[str] = []                 # why the record is not used in this process (first reason)


def _path_from_environment() -> Path | None:
    raw = os.environ.get(ENV)
    if raw is not None:
        raw = raw.strip()
        if raw.lower() in _OFF:
            return None
        if raw:
            return Path(os.path.abspath(os.path.expanduser(raw)))
    base = os.environ.get("XDG_STATE_HOME", "").strip()
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "umkit" / FILE_NAME


#: read once, at import (a later change of the variable or the folder changes nothing)
_PATH = _path_from_environment()


def path() -> Path | None:
    """The record's file (None: kept in the process only)."""
    return _PATH


def status() -> str:
    """One line for a learner or a presenter: where the record is kept, or why it is not."""
    if _PATH is None:
        return f"exercise record: in this process only ({ENV}=off)"
    if _broken:
        return f"exercise record: in this process only ({_broken[0]})"
    return f"exercise record: {_PATH}"


def _clean_entry(entry) -> dict | None:
    """A stored entry with only well-formed fields (None when it is not an entry)."""
    if not isinstance(entry, dict):
        return None
    out = {}
    wrong = entry.get("wrong", 0)
    out["wrong"] = wrong if isinstance(wrong, int) and not isinstance(wrong, bool) \
        and 0 <= wrong < 1 << 30 else 0
    for key in ("until", "updated"):
        v = entry.get(key, 0.0)
        out[key] = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) \
            and math.isfinite(v) else 0.0
    out["owed"] = 1 if entry.get("owed") == 1 else 0
    out["shown"] = entry.get("shown") is True
    reasons = entry.get("reasons", [])
    out["reasons"] = [r[:MAX_REASON_CHARS] for r in reasons if isinstance(r, str)][-MAX_REASONS:] \
        if isinstance(reasons, list) else []
    return out


def _read(p: Path) -> dict:
    """The record's exercises (empty when there is no file); an unreadable file is set aside."""
    try:
        # never blocks (a FIFO put there) and never follows a link put in the file's place
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return {}
    with os.fdopen(fd, "rb") as f:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
        raw = f.read(MAX_BYTES + 1) if regular else b""
    try:
        if not regular:
            raise ValueError("not a regular file")
        if len(raw) > MAX_BYTES:
            raise ValueError("too large")
        data = json.loads(raw.decode("utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("exercises"), dict):
            raise ValueError("not a record")
    except (ValueError, RecursionError):
        os.replace(p, p.with_name(p.name + ".unreadable"))
        return {}
    out = {}
    for name, entry in data["exercises"].items():
        clean = _clean_entry(entry)
        if isinstance(name, str) and 0 < len(name) <= 200 and clean is not None:
            out[name] = clean
    return out


class _Locked:
    """The record's lock file, held while one kernel reads and rewrites the record."""

    def __init__(self, p: Path):
        self.p = p.with_name(p.name + ".lock")
        self.fd = -1

    def __enter__(self):
        self.fd = os.open(self.p, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        if fcntl is not None:
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        os.close(self.fd)               # closing releases the lock
        return False


def _give_up(error: BaseException) -> None:
    if not _broken:
        _broken.append(f"{type(error).__name__}: {error}"[:300])


def load(name: str) -> dict | None:
    """Exercise ``name``'s stored entry ({} when it has none yet); None when the record is not
    used (off, or it could not be read or written in this process)."""
    if _PATH is None or _broken:
        return None
    try:
        with _lock, _Locked(_PATH):
            return dict(_read(_PATH).get(name, {}))
    except OSError as e:
        _give_up(e)
        return None


def save(name: str, entry: dict, now: float) -> bool:
    """Store exercise ``name``'s ``entry`` (wrong, until, owed, shown, reasons) at time ``now``;
    False when the record is not used (off, or it cannot be written: kept in the process)."""
    if _PATH is None or _broken:
        return False
    clean = _clean_entry(entry)
    if clean is None or not isinstance(name, str) or not 0 < len(name) <= 200:
        return False
    clean["updated"] = float(now)
    try:
        with _lock:
            _PATH.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with _Locked(_PATH):
                exercises = _read(_PATH)
                exercises[name] = clean
                if len(exercises) > MAX_EXERCISES:
                    keep = sorted(exercises, key=lambda k: exercises[k]["updated"])[-MAX_EXERCISES:]
                    exercises = {k: exercises[k] for k in keep}
                tmp = _PATH.with_name(f"{_PATH.name}.{os.getpid()}.tmp")
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC
                             | getattr(os, "O_NOFOLLOW", 0), 0o600)
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump({"version": _VERSION, "exercises": exercises}, f,
                              ensure_ascii=False, indent=1)
                os.replace(tmp, _PATH)
        return True
    except OSError as e:
        _give_up(e)
        try:
            os.unlink(_PATH.with_name(f"{_PATH.name}.{os.getpid()}.tmp"))
        except OSError:
            pass
        return False
