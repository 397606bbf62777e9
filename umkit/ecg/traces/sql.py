"""What the SQLite readers share: open read-only, name what is missing, iterate with a cursor,
and turn what SQLite says of a broken file into the kit's typed error."""
from __future__ import annotations

import contextlib
import re
import sqlite3

from .model import ProfilerFileError

STEP_HINT = ("mark each step with a range named 'step' (ROCTx roctxRangePush('step') / NVTX "
             "nvtx.range_push('step')), or pass step='NAME' naming your ranges")


#: SQLite virtual-machine instructions a reader may spend: a base, plus this many per byte of
#: the file. Reading a profiler's database is a few scans of its tables (tens of instructions
#: per byte); a view that recurses without end, or a join that duplicate ids multiply, needs
#: far more than its file's size can justify, and is stopped.
WORK_BASE = 200_000_000
WORK_PER_BYTE = 1_000
_TICK = 100_000              # instructions between two calls of the progress handler
#: the longest value (text or blob) SQLite may make while a reader runs: a kernel's name or a
#: record's JSON note is far shorter; a view that builds larger ones is refused, not followed
MAX_VALUE = 1 << 20
#: text a reader may decode in all: a base, plus this many per byte of the file (a view can make
#: more text than its file holds, the instruction budget does not see how long a value is)
TEXT_BASE = 256 << 20
TEXT_PER_BYTE = 64
#: SQLite's own memory while a reader runs (its sorts and temporary tables stay in memory: a
#: reader writes no temporary file, so a hostile file cannot fill a shared disk)
HEAP_LIMIT = 1 << 30


class _Budgeted(sqlite3.Connection):
    """A connection that counts its work (``spent`` ticks of ``_TICK`` instructions) and has
    SQLite interrupt the statement that goes past ``ticks``; and the text it decodes
    (``text_left`` bytes more)."""
    spent = 0
    ticks = 0
    text_left = 0
    path = ""

    def decode(self, b: bytes) -> str:
        """A value's text (a damaged file's bytes replaced), counted against ``text_left``."""
        self.text_left -= len(b)
        if self.text_left < 0:
            raise ProfilerFileError(f"{self.path}: reading this file makes far more text than a "
                                    "file of its size holds (a view that builds text?)",
                                    missing="a readable profiler file",
                                    hint="pass the .db / .sqlite file the profiler wrote")
        return b.decode("utf-8", "replace")

    def tick(self) -> bool:
        self.spent += 1
        return self.spent > self.ticks                # true: SQLite interrupts the statement

    @property
    def over_budget(self) -> bool:
        return self.spent > self.ticks


def connect(path: str) -> sqlite3.Connection:
    """The database, read-only (a profiler's file is never written), with a work budget in
    proportion to its size: past it SQLite interrupts the query, and ``reading`` says so."""
    import os
    from pathlib import Path
    try:
        con = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True,
                              factory=_Budgeted)
        con.text_factory = con.decode
        if hasattr(con, "setlimit"):                          # Python 3.11 and later
            con.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE)
        con.execute("PRAGMA temp_store = MEMORY")
    except sqlite3.Error as e:
        raise ProfilerFileError(f"{path}: cannot be opened as SQLite ({e})", missing="SQLite",
                                hint="pass the .db / .sqlite file the profiler wrote") from None
    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0
    con.ticks = (WORK_BASE + WORK_PER_BYTE * size) // _TICK
    con.text_left = TEXT_BASE + TEXT_PER_BYTE * size
    con.path = str(path)
    con.set_progress_handler(con.tick, _TICK)
    return con


@contextlib.contextmanager
def _heap_limited():
    """SQLite's process-wide hard heap limit at :data:`HEAP_LIMIT` while a reader runs (lowered
    only, never raised), put back after it."""
    probe, before = sqlite3.connect(":memory:"), 0
    try:
        before = probe.execute("PRAGMA hard_heap_limit").fetchone()[0]
        if not before or before > HEAP_LIMIT:
            probe.execute(f"PRAGMA hard_heap_limit = {HEAP_LIMIT}")
        yield
    finally:
        with contextlib.suppress(sqlite3.Error):
            probe.execute(f"PRAGMA hard_heap_limit = {int(before or 0)}")
        probe.close()


MAX_NAMES = 100_000        # tables and views of one database (a real one has hundreds)


def names(con, path: str) -> set:
    """Every table and view of the database (the names only: an odd name is never quoted
    into SQL, only the reader's own table names are)."""
    out = set()
    try:
        for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"):
            if isinstance(n, str):
                out.add(n)
            if len(out) > MAX_NAMES:
                raise ProfilerFileError(f"{path}: more than {MAX_NAMES} tables and views",
                                        missing="a profiler database",
                                        hint="pass the .db / .sqlite file the profiler wrote")
    except (sqlite3.DatabaseError, UnicodeDecodeError) as e:    # a damaged schema's message
        raise ProfilerFileError(f"{path}: not a SQLite database ({text_of(e)})", missing="SQLite",
                                hint="pass the .db / .sqlite file the profiler wrote") from None
    return out


@contextlib.contextmanager
def reading(path: str, what: str, hint: str):
    """Around a reader: SQLite's own errors of a damaged or odd file (truncated, malformed,
    a view that cannot run, a value it cannot compare) and the file system's become a
    ProfilerFileError naming the file."""
    try:
        with _heap_limited():
            yield
    except MemoryError:
        raise ProfilerFileError(f"{path}: reading this {what} needs more memory than this "
                                "process has (values or views far larger than a profiler writes)",
                                missing=f"a readable {what}", hint=hint) from None
    except (sqlite3.Error, UnicodeDecodeError) as e:     # SQLite's message of a damaged file
        if isinstance(e, sqlite3.OperationalError) and "interrupted" in str(e):
            # the work budget of connect() ran out: the file asks more than its size justifies
            raise ProfilerFileError(f"{path}: reading this {what} needs far more work than a "
                                    "file of its size can (a view that recurses without end, or "
                                    "rows that multiply in a join?)",
                                    missing=f"a readable {what}", hint=hint) from None
        raise ProfilerFileError(f"{path}: this {what} cannot be read to its end "
                                f"({type(e).__name__}: {text_of(e)})",
                                missing=f"a readable {what}", hint=hint) from None
    except OSError as e:
        raise ProfilerFileError(f"{path}: cannot be read ({e.strerror or type(e).__name__})",
                                missing="a readable file", hint=hint) from None


def text_of(e) -> str:
    return "".join(c if c.isprintable() else "?" for c in str(e)[:200])


def columns(con, table: str) -> set:
    return {r[1] for r in con.execute(f'PRAGMA table_info("{table}")')}


def need(con, have: set, table: str, cols, what: str, hint: str) -> set:
    """``table`` with ``cols``, or a ProfilerFileError naming the first one missing."""
    if table not in have:
        raise ProfilerFileError(f"{what}: no table or view {table}", missing=table, hint=hint)
    got = columns(con, table)
    for c in cols:
        if c not in got:
            raise ProfilerFileError(f"{what}: {table} has no column {c}", missing=f"{table}.{c}",
                                    hint=hint)
    return got


def step_pattern(step):
    if step is None:
        return re.compile(r"step", re.IGNORECASE)
    if not isinstance(step, str) or not step:
        from ...errors import InvalidType
        from ...validate import short
        raise InvalidType(f"step={short(step)} is not a range name", argument="step",
                          hint="the name of the ranges that mark your steps, e.g. step='train_step'")
    return re.compile(re.escape(step))
