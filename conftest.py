"""For every pytest run in this repository -- tests/ and nbval over notebooks/ alike.

The exercises' attempts budget (8 wrong tries, then a reason, then waits) is a learner's guard,
and a learner's kernel opens each set exercise with a set drawn afresh; the project's tests call
the checks many times in one process, and nbval compares the notebooks' committed outputs, which
show the notebook's own sets: both run with the budget off (the budget's own tests turn it on in
a fresh process).  Set here, before any kernel starts, so that it reaches nbval's kernels too.

A learner's record of the exercises (tries, waits, reasons, shown answers) is kept in a file in
their home so that a kernel restart keeps it; the project's tests keep it in the process
(``UMKIT_EXERCISE_RECORD=off``) so that no test writes the developer's home or finds another
test's tries (the record's own tests give each process a file of their own)."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent

os.environ.setdefault("UMKIT_EXERCISE_ATTEMPTS", "0")
os.environ.setdefault("UMKIT_EXERCISE_RECORD", "off")


def file_seconds() -> dict:
    """tests/seconds.json's table (file -> seconds, finite and not negative), or {} where the
    file is missing, larger than 1 MiB or not such a table: it orders the run, it never stops
    one."""
    import json
    import math
    path = ROOT / "tests" / "seconds.json"
    try:
        if path.stat().st_size > 1 << 20:
            return {}
        table = json.loads(path.read_text(encoding="utf-8"))["seconds"]
    except Exception:                       # whatever is there: pytest's own order
        return {}
    if not isinstance(table, dict):
        return {}
    out = {}
    for k, v in table.items():
        try:
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(float(v)) \
                    and v >= 0:
                out[k] = float(v)
        except (OverflowError, ValueError):
            continue
    return out


def pytest_collection_modifyitems(session, config, items):
    """Test files (and notebooks) run longest first, by tests/seconds.json (what each took in a
    lane; ``scripts/test_seconds.py`` writes it), each file's own tests kept in their order. With
    pytest-xdist's ``--dist loadfile --no-loadscope-reorder`` (test.sh) the workers take the files
    in this order, the short ones last, so that they end together. A file the table does not know
    counts as one second (files of equal weight go by path); without a usable table the order is
    pytest's own."""
    seconds = file_seconds()
    if not seconds:
        return
    keys, weight = {}, {}
    for i, item in enumerate(items):
        key = keys.get(item.path)
        if key is None:                     # once per file, not per test
            path = Path(str(item.path)).resolve()
            key = keys[item.path] = (path.relative_to(ROOT).as_posix()
                                     if path.is_relative_to(ROOT) else str(path))
        weight[id(item)] = (-seconds.get(key, 1.0), key, i)
    items.sort(key=lambda item: weight[id(item)])
