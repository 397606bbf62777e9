"""What the SQLite readers share: open read-only, name what is missing, iterate with a cursor,
and turn what SQLite says of a broken file into the kit's typed error."""
from __future__ import annotations

import contextlib
import re
import sqlite3

from .model import ProfilerFileError

STEP_HINT = ("mark each step with a range named 'step' (ROCTx roctxRangePush('step') / NVTX "
             "nvtx.range_push('step')), or pass step='NAME' naming your ranges")


def connect(path: str) -> sqlite3.Connection:
    """The database, read-only (a profiler's file is never written)."""
    from pathlib import Path
    try:
        con = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)
        con.text_factory = lambda b: b.decode("utf-8", "replace")    # a damaged file's text
        return con
    except sqlite3.Error as e:
        raise ProfilerFileError(f"{path}: cannot be opened as SQLite ({e})", missing="SQLite",
                                hint="pass the .db / .sqlite file the profiler wrote") from None


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
        yield
    except (sqlite3.Error, UnicodeDecodeError) as e:     # SQLite's message of a damaged file
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
        raise InvalidType(f"step={step!r} is not a range name", argument="step",
                          hint="the name of the ranges that mark your steps, e.g. step='train_step'")
    return re.compile(re.escape(step))
