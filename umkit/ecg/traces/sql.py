"""What the SQLite readers share: open read-only, name what is missing, iterate with a cursor."""
from __future__ import annotations

import re
import sqlite3

from .model import ProfilerFileError

STEP_HINT = ("mark each step with a range named 'step' (ROCTx roctxRangePush('step') / NVTX "
             "nvtx.range_push('step')), or pass step='NAME' naming your ranges")


def connect(path: str) -> sqlite3.Connection:
    """The database, read-only (a profiler's file is never written)."""
    from pathlib import Path
    try:
        return sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise ProfilerFileError(f"{path}: cannot be opened as SQLite ({e})", missing="SQLite",
                                hint="pass the .db / .sqlite file the profiler wrote") from None


def names(con) -> set:
    """Every table and view of the database."""
    try:
        return {r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    except sqlite3.DatabaseError as e:
        raise ProfilerFileError(f"not a SQLite database ({e})", missing="SQLite",
                                hint="pass the .db / .sqlite file the profiler wrote") from None


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
