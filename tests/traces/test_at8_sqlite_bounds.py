"""AT8 (an independent attacker): an 86 KB rocpd file whose views build huge text made the reader
write gigabytes of temporary files (until a shared disk was full) or take gigabytes of memory and
end in a raw MemoryError.  A reader now keeps SQLite's temporary data in memory under a heap limit,
refuses values over MAX_VALUE bytes and counts the text it decodes: such a file is a typed
ProfilerFileError, quickly, with no temporary file written."""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "notebooks" / "data" / "rocpd_example.db"


def hostile(tmp_path, sql: str) -> Path:
    db = tmp_path / "hostile.db"
    shutil.copy(EXAMPLE, db)
    con = sqlite3.connect(db)
    con.executescript(sql)
    con.commit()
    con.close()
    return db


def read_in_a_process(db: Path, tmp_path: Path):
    """traces.read(db) in a fresh process under a 3 GiB address-space limit; what it raised and
    how many bytes it wrote (/proc/self/io)."""
    code = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, resource.RLIM_INFINITY))
        from umkit.ecg import traces
        def written():
            for line in open("/proc/self/io"):
                if line.startswith("write_bytes:"):
                    return int(line.split()[1])
        w0 = written()
        try:
            traces.read({str(db)!r})
            print("READ")
        except Exception as e:
            print(type(e).__name__, "|", str(e).splitlines()[0][:300])
        print("WROTE", written() - w0)
        """)
    env = dict(os.environ, UMKIT_BACKEND="sim", TMPDIR=str(tmp_path), SQLITE_TMPDIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=180, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    first, wrote = out.stdout.strip().splitlines()[-2:]
    return first, int(wrote.split()[1])


@pytest.mark.skipif(not EXAMPLE.exists(), reason="the example rocpd file is missing")
def test_a_view_that_builds_huge_strings_writes_no_temporary_files(tmp_path):
    db = hostile(tmp_path, """
        DROP VIEW rocpd_string;
        CREATE VIEW rocpd_string AS
          WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c LIMIT 20)
          SELECT id, guid, string FROM rocpd_string_00000000example
          UNION ALL SELECT i + 100000000, NULL, printf('%.*c', 50000000, 'x') FROM c;""")
    first, wrote = read_in_a_process(db, tmp_path)
    assert wrote < 64 << 20, (first, wrote)
    assert "MemoryError" not in first, first


@pytest.mark.slow
@pytest.mark.skipif(not EXAMPLE.exists(), reason="the example rocpd file is missing")
def test_a_view_that_pads_every_record_is_a_typed_error_not_a_memory_error(tmp_path):
    db = hostile(tmp_path, """
        DROP VIEW IF EXISTS rocpd_metadata;
        CREATE VIEW rocpd_metadata AS
          SELECT 1 AS id, NULL AS guid, 'schema_version' AS tag,
                 '3' || printf('%.*c', 900000000, ' ') AS value;""")
    first, wrote = read_in_a_process(db, tmp_path)
    assert first.startswith(("ProfilerFileError", "READ")), first
    assert wrote < 64 << 20
