"""Hostile and damaged profiler files: ``umkit.ecg.read`` gives the kit's typed error naming the
file, or a trace whose ECG, plan, residency picture and Perfetto export are valid -- never an
untyped error (TypeError, OverflowError, sqlite3.OperationalError, RecursionError ...), never a
crash later in a table or a picture.

The files are the readers' own test fixtures (built from the documented schemas: see
``rocpd_schema.py``, ``test_profiler_readers.nsys_export`` and ``data/unified_memory-4242.json``)
fuzzed: every column of every table set to hostile values (NULLs, text, blobs, negative and
64-bit-overflowing numbers, NaN-like and non-integral floats, huge and deeply nested JSON), tables
with the right name and the wrong columns, views that cannot run, truncated and bit-flipped
databases, files that are not SQLite at all, and JSON files with every field of the wrong type.
The random choices come from fixed seeds, so a failure names a case that repeats."""
import json
import random
import sqlite3

import pytest

import umkit
import umkit.ecg
import umkit.plan
from umkit.ecg.traces import ProfilerFileError, perfetto, read, save_records
from umkit.ecg.traces.model import MAX_CELLS, MAX_PAGES
import trace_format
from rocpd_schema import Rocpd
from test_profiler_readers import BASE, DATA, MS, nsys_export, rocpd_loop

pytestmark = pytest.mark.usefixtures("fresh_sim")

DEEP = "[" * 100_000 + "]" * 100_000
HOSTILE = [None, "", "abc", "12abc", "0x1000", "1e999", "-1", "١٢٣", b"\x00\xff\xfe", -1,
           -(1 << 63), (1 << 63) - 1, 1.5, 1e308, -1e308, 2.0 ** 70, "x" * 100_000,
           "\x1b[31mred\x1b[0m", '{"kfd": 5}', '{"kfd": {"start_address": "x"}}',
           '{"kfd": {"start_address": "1", "end_address": "99999999999999999999999"}}',
           '{"kfd": {"address": [1]}, "message": {"a": 1}}', DEEP, "[]", "null"]


def outcome(path, **kw):
    """'refused' (a typed error naming the file) or 'read' (and then everything made from
    the trace is valid); any other exception fails the test."""
    try:
        tr = read(path, **kw)
    except ProfilerFileError as e:
        assert str(path) in str(e), f"the error does not name the file: {e}"
        assert e.argument == "path" and e.missing
        return "refused"
    doc = perfetto(tr)
    assert trace_format.problems(json.loads(json.dumps(doc))) == []
    if not tr.steps:                           # a summary: totals only, asked for more: typed
        with pytest.raises(ProfilerFileError):
            tr.to_ecg()
        assert all(isinstance(v, int) and v >= 0 for v in tr.counters.values())
        return "read"
    ecg = umkit.ecg.check(tr.to_ecg())
    assert umkit.ecg.table(ecg)
    plan = umkit.plan.PlanResult.from_dict(tr.plan_dict())
    assert plan.table() and plan.steps == len(tr.steps)
    if tr.buffers:
        res = tr.residency()
        assert res.codes.size >= 1
    for k, v in tr.counters.items():
        assert isinstance(v, int) and v >= 0, (k, v)
    return "read"


# -- SQLite: the same values in a schema with no types and no constraints --------------------

def loosen(src, dst):
    """``src`` rebuilt with every column typeless and unconstrained (SQLite then keeps any
    value as it is), views as they were: the file a careless or hostile writer could make."""
    a, b = sqlite3.connect(src), sqlite3.connect(dst)
    tables = [r for r in a.execute("SELECT type, name, sql FROM sqlite_master "
                                   "WHERE name NOT LIKE 'sqlite_%' ORDER BY type DESC")]
    for typ, name, sql in tables:
        if typ == "table":
            cols = [r[1] for r in a.execute(f'PRAGMA table_info("{name}")')]
            b.execute(f'CREATE TABLE "{name}" ({", ".join(chr(34) + c + chr(34) for c in cols)})')
            rows = a.execute(f'SELECT * FROM "{name}"').fetchall()
            b.executemany(f'INSERT INTO "{name}" VALUES ({", ".join("?" * len(cols))})', rows)
    for typ, name, sql in tables:
        if typ == "view":
            b.execute(sql)
    b.commit()
    a.close()
    b.close()
    return dst


def tables_of(path):
    con = sqlite3.connect(path)
    try:
        return {name: [r[1] for r in con.execute(f'PRAGMA table_info("{name}")')]
                for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type='table' "
                                           "AND name NOT LIKE 'sqlite_%'")}
    finally:
        con.close()


def fixtures(tmp_path):
    rocpd = loosen(rocpd_loop(tmp_path / "rocpd.db"), tmp_path / "rocpd-loose.db")
    nsys = loosen(nsys_export(tmp_path / "nsys.sqlite"), tmp_path / "nsys-loose.sqlite")
    return {"rocpd": rocpd, "nsys": nsys}


def copy(src, dst):
    dst.write_bytes(src.read_bytes())
    return dst


def test_the_loose_fixtures_read_as_the_strict_ones(tmp_path):
    """The untyped copies are still the formats: what the fuzzing below starts from reads."""
    fx = fixtures(tmp_path)
    assert read(fx["rocpd"]).step_ms == [2.0, 3.0, 4.0]
    assert read(fx["nsys"]).step_ms == [1.0, 3.0]


@pytest.mark.parametrize("fmt", ["rocpd", "nsys"])
def test_every_column_set_to_hostile_values(tmp_path, fmt):
    """Each column of each table, all rows (or one row, at random), set to each hostile
    value: a typed error naming the file, or a valid trace."""
    src = fixtures(tmp_path)[fmt]
    rnd = random.Random(43)
    seen = {"read": 0, "refused": 0}
    n = 0
    for table, cols in sorted(tables_of(src).items()):
        for col in cols:
            for value in rnd.sample(HOSTILE, 8):
                n += 1
                p = copy(src, tmp_path / f"{fmt}-{n}.db")
                con = sqlite3.connect(p)
                where = "" if rnd.random() < 0.5 else \
                    f' WHERE rowid = (SELECT rowid FROM "{table}" ORDER BY random() LIMIT 1)'
                con.execute(f'UPDATE "{table}" SET "{col}" = ?{where}', (value,))
                con.commit()
                con.close()
                seen[outcome(p)] += 1
                p.unlink()
    assert seen["refused"] > 20 and seen["read"] > 20, seen     # the fuzz reached both ends


@pytest.mark.parametrize("fmt", ["rocpd", "nsys"])
def test_tables_with_the_right_name_and_the_wrong_shape(tmp_path, fmt):
    """A table replaced by one of the same name with other columns, with a column missing,
    by an empty one, or by a view that cannot run; a row of a table duplicated many times."""
    src = fixtures(tmp_path)[fmt]
    n = 0
    for table, cols in sorted(tables_of(src).items()):
        for shape in ("other", "drop", "empty", "broken view", "recursive view", "dup"):
            n += 1
            p = copy(src, tmp_path / f"{fmt}-shape-{n}.db")
            con = sqlite3.connect(p)
            views = [r for r in con.execute("SELECT name, sql FROM sqlite_master "
                                            "WHERE type = 'view'")]
            for v, _ in views:
                con.execute(f'DROP VIEW "{v}"')
            if shape == "other":
                con.execute(f'DROP TABLE "{table}"')
                con.execute(f'CREATE TABLE "{table}" (x, y)')
                con.execute(f'INSERT INTO "{table}" VALUES (1, 2)')
            elif shape == "drop":
                keep = cols[:-1] if len(cols) > 1 else cols
                con.execute(f'CREATE TABLE t_new AS SELECT {", ".join(keep)} FROM "{table}"')
                con.execute(f'DROP TABLE "{table}"')
                con.execute(f'ALTER TABLE t_new RENAME TO "{table}"')
            elif shape == "empty":
                con.execute(f'DELETE FROM "{table}"')
            elif shape == "broken view":
                con.execute(f'DROP TABLE "{table}"')
                con.execute(f'CREATE VIEW "{table}" AS SELECT {", ".join(cols)} FROM gone')
            elif shape == "recursive view":
                con.execute(f'DROP TABLE "{table}"')
                sel = ", ".join(f"x AS {c}" for c in cols)
                con.execute(f'CREATE VIEW "{table}" AS WITH RECURSIVE r(x) AS (SELECT 1 '
                            f'UNION ALL SELECT x + 1 FROM r LIMIT 20001) SELECT {sel} FROM r')
            else:
                con.execute(f'INSERT INTO "{table}" SELECT * FROM "{table}"')
            for v, sql in views:
                try:
                    con.execute(sql)
                except sqlite3.Error:
                    pass                     # its table is a view now: keep that one
            con.commit()
            con.close()
            outcome(p)
            p.unlink()


@pytest.mark.parametrize("fmt", ["rocpd", "nsys"])
def test_truncated_and_bit_flipped_databases(tmp_path, fmt):
    src = fixtures(tmp_path)[fmt]
    raw = src.read_bytes()
    rnd = random.Random(7)
    cuts = sorted({16, 100, 512, 4096, len(raw) // 2, len(raw) - 1}
                  | {rnd.randrange(100, len(raw)) for _ in range(12)})
    for i, cut in enumerate(cuts):
        p = tmp_path / f"cut-{i}.db"
        p.write_bytes(raw[:cut])
        outcome(p)
    for i in range(40):
        b = bytearray(raw)
        for _ in range(rnd.choice((1, 8, 64))):
            b[rnd.randrange(100, len(b))] = rnd.randrange(256)
        p = tmp_path / f"flip-{i}.db"
        p.write_bytes(bytes(b))
        outcome(p)


@pytest.mark.parametrize("content", [
    b"", b"\x00" * 64, b"SQLite format 3\x00", b"SQLite format 3\x00" + bytes(range(256)) * 8,
    b"{", b"[" * 100_000, b"{\"devices\": " + b"[" * 100_000, b"\xff\xfe{}", b"{}",
    b'{"format": "umkit.cupti-records/1"}', b"\x1b[2J" * 10])
def test_files_of_no_format(tmp_path, content):
    p = tmp_path / "odd.db"
    p.write_bytes(content)
    assert outcome(p) == "refused"


# -- JSON: every field of the rocprof-sys summary and the CUPTI records file ---------------------

JSON_HOSTILE = [None, "x", -1, 1.5, 1e308, float("inf"), True, [], {}, 2 ** 64, "1" * 5000,
                [[[[[]]]]], "\x1b[31m"]


def paths(doc, at=()):
    yield at
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from paths(v, at + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from paths(v, at + (i,))


def replaced(doc, at, value):
    doc = json.loads(json.dumps(doc))
    if not at:
        return value
    node = doc
    for k in at[:-1]:
        node = node[k]
    if value is KeyError:
        del node[at[-1]]
    else:
        node[at[-1]] = value
    return doc


def test_every_field_of_a_rocprof_sys_summary(tmp_path):
    good = json.loads((DATA / "unified_memory-4242.json").read_text())
    n = 0
    for at in list(paths(good)):
        for value in JSON_HOSTILE + ([KeyError] if at else []):
            n += 1
            p = tmp_path / f"unified_memory-{n}.json"
            p.write_text(json.dumps(replaced(good, at, value)))
            outcome(p)
    deep = tmp_path / "unified_memory-deep.json"
    deep.write_text('{"devices": ' + DEEP + ', "summary": {}}')
    assert outcome(deep) == "refused"


def test_every_field_of_a_cupti_records_file(tmp_path):
    good = save_records(tmp_path / "good.jsonl",
                        [(100, "GPU_PAGE_FAULT", 2, "UNKNOWN"),
                         (150, "BYTES_TRANSFER_HTOD", 65536, "COHERENCE", BASE),
                         (1500, "BYTES_TRANSFER_DTOH", 4096, "USER", BASE)],
                        [1000, 2000, 3000], device="NVIDIA H100")
    lines = [json.loads(x) for x in good.read_text().splitlines()]
    n = 0
    for i, line in enumerate(lines):
        for at in list(paths(line)):
            for value in JSON_HOSTILE + ([KeyError] if at and isinstance(at[-1], str) else []):
                n += 1
                doc = [json.dumps(x) for x in lines]
                doc[i] = json.dumps(replaced(line, at, value))
                p = tmp_path / f"r-{n}.jsonl"
                p.write_text("\n".join(doc) + "\n")
                outcome(p)
    for bad in ("[1, 2", DEEP, "x" * 10_000, json.dumps([5, "GPU_PAGE_FAULT", 1, "U", -5])):
        p = tmp_path / "bad.jsonl"
        p.write_text(good.read_text() + bad + "\n")
        assert outcome(p) == "refused"


# -- what a hostile file could make the reader keep -----------------------------------------------

def test_many_huge_allocations_keep_a_bounded_page_map(tmp_path):
    """511 allocations of 256 TiB each: the page maps share one bound (MAX_CELLS), they do
    not take 511 times MAX_PAGES cells."""
    db = Rocpd(tmp_path / "huge.db")
    for i in range(511):
        db.alloc(BASE + i * (1 << 48), 1 << 48)
    db.marker("step", 0, MS)
    db.fault(10, BASE)
    db.close()
    tr = read(tmp_path / "huge.db")
    cells = sum(b.codes.size for b in tr.buffers)
    assert len(tr.buffers) == 511
    assert cells <= MAX_CELLS + 511 * 1024 < 511 * MAX_PAGES
    assert outcome(tmp_path / "huge.db") == "read"


def test_an_allocation_past_any_machine_is_refused_naming_it(tmp_path):
    db = Rocpd(tmp_path / "big.db")
    db.alloc(BASE, 1 << 60)
    db.marker("step", 0, MS)
    db.fault(10, BASE)
    db.close()
    with pytest.raises(ProfilerFileError) as e:
        read(tmp_path / "big.db")
    assert e.value.missing == "rocpd_memory_allocate.size" and str(tmp_path) in str(e.value)


def test_a_step_longer_than_a_recording_is_refused(tmp_path):
    db = Rocpd(tmp_path / "long.db")
    db.marker("step", 0, 10 ** 18)
    db.fault(10, BASE)
    db.close()
    with pytest.raises(ProfilerFileError) as e:
        read(tmp_path / "long.db")
    assert e.value.missing == "step"


def test_more_step_markers_than_an_ecg_holds_stop_reading_early(tmp_path):
    """Markers past MAX_STEPS are not all collected first: the reader stops at one more."""
    from umkit.ecg.traces.model import MAX_STEPS
    db = Rocpd(tmp_path / "many.db")
    cat, nm = db.string("MARKER_CORE_RANGE_API"), db.string("roctxRangePush")
    n = MAX_STEPS + 50
    db.con.executemany('INSERT INTO "rocpd_event_0000aaaa" (id, category_id, extdata) '
                       'VALUES (?, ?, \'{"message": "step"}\')',
                       ((10 + i, cat) for i in range(n)))
    db.con.executemany('INSERT INTO "rocpd_region_0000aaaa" (nid, pid, tid, start, "end", '
                       'name_id, event_id) VALUES (1, 1, 1, ?, ?, ?, ?)',
                       ((2 * i, 2 * i + 1, nm, 10 + i) for i in range(n)))
    db.fault(10, BASE)
    db.close()
    with pytest.raises(ProfilerFileError, match=f"{MAX_STEPS + 1} steps, more than"):
        read(tmp_path / "many.db")


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["rocpd", "nsys"])
def test_a_view_that_recurses_without_end_is_stopped_and_named(tmp_path, fmt, monkeypatch):
    """A view that never ends (a recursive CTE without a limit) stops at the reader's work
    budget, in proportion to the file's size, with a typed error that names the file."""
    from umkit.ecg.traces import sql
    monkeypatch.setattr(sql, "WORK_BASE", 10_000_000)        # a fraction of a second
    monkeypatch.setattr(sql, "WORK_PER_BYTE", 10)
    src = fixtures(tmp_path)[fmt]
    stopped = []
    for table, cols in sorted(tables_of(src).items()):
        p = copy(src, tmp_path / f"{fmt}-endless.db")
        con = sqlite3.connect(p)
        views = [r for r in con.execute("SELECT name, sql FROM sqlite_master WHERE type = 'view'")]
        for v, _ in views:
            con.execute(f'DROP VIEW "{v}"')
        con.execute(f'DROP TABLE "{table}"')
        sel = ", ".join(f"x AS {c}" for c in cols)
        con.execute(f'CREATE VIEW "{table}" AS WITH RECURSIVE r(x) AS (SELECT 1 '
                    f'UNION ALL SELECT x + 1 FROM r) SELECT {sel} FROM r')
        for v, q in views:
            try:
                con.execute(q)
            except sqlite3.Error:
                pass
        con.commit()
        con.close()
        # a table the reader reads only in part (a LIMIT, the first row) may still be read
        if outcome(p) == "refused":
            try:
                read(p)
            except ProfilerFileError as e:
                stopped.append("far more work" in str(e))
        p.unlink()
    assert stopped and any(stopped), "no endless view was stopped by the work budget"


def test_the_work_budget_grows_with_the_file(tmp_path):
    from umkit.ecg.traces import sql
    small, big = tmp_path / "s.db", tmp_path / "b.db"
    for p, n in ((small, 10), (big, 20_000)):
        con = sqlite3.connect(p)
        con.execute("CREATE TABLE t (x)")
        con.executemany("INSERT INTO t VALUES (?)", [("y" * 100,)] * n)
        con.commit()
        con.close()
    a, b = sql.connect(str(small)), sql.connect(str(big))
    assert b.ticks > a.ticks >= sql.WORK_BASE // 100_000
    assert not b.over_budget and b.execute("SELECT count(*) FROM t").fetchone() == (20_000,)
    a.close()
    b.close()
