"""umkit.explain knows the symptoms users of consumer APUs and XNACK-less GPUs report (the
doctor's fix lines point at these two calls)."""
import io

import umkit
from umkit.errors import table


def _text(q):
    buf = io.StringIO()
    return umkit.explain(q, file=buf)


def test_managed_example_hangs():
    t = _text("managed example hangs")
    assert "A managed-memory example hangs" in t and "HSA_XNACK=1" in t


def test_only_15_5_gib_visible():
    t = _text("only 15.5 GiB visible")
    assert "carve-out" in t and "gfx1151" in t


def test_each_new_symptom_rests_on_ledger_entries():
    from umkit import ledger
    ids = set(ledger.entries())
    new = [s for s in table.SYMPTOMS if s.key in ("managed_hangs", "apu_small_memory")]
    assert len(new) == 2
    for s in new:
        assert s.claims and set(s.claims) <= ids, set(s.claims) - ids
