"""umkit.ecg.traces.perfetto of a sim run's trace list checks every entry's fields and names
the field that is wrong (typed), before writing anything."""
import json
import math

import pytest

import umkit
from umkit.ecg.traces import perfetto
from umkit.errors import InvalidArgument, InvalidType

OK = dict(t=1.0e-3, op="prefetch", layer="kmd", detail="4096 B to gpu0", bytes=4096)


HUGE = "10**5000"          # built in the test: pytest cannot name a parameter that long

@pytest.mark.parametrize("field, value, error", [
    ("t", "soon", InvalidType), ("t", math.nan, InvalidArgument), ("t", -1.0, InvalidArgument),
    ("t", HUGE, InvalidArgument), ("t", True, InvalidType),
    ("op", 7, InvalidType), ("layer", None, InvalidType), ("detail", [1], InvalidType),
    ("bytes", "4096", InvalidType), ("bytes", -1, InvalidArgument),
    ("faults", 2**70, InvalidArgument), ("extra", object(), InvalidType),
    ("extra", math.inf, InvalidType), ("extra", HUGE, InvalidType),
])
def test_a_bad_field_is_a_typed_error_naming_it(tmp_path, field, value, error):
    if value is HUGE:
        value = 10**5000
    e = dict(OK, **{field: value})
    out = tmp_path / "t.json"
    with pytest.raises(error) as err:
        perfetto([dict(OK), e], out, profile="h200-pcie5")
    assert f"obj[1]['{field}']" in err.value.message
    assert not out.exists()


def test_a_key_that_is_not_text_and_an_entry_that_is_not_a_dict():
    with pytest.raises(InvalidType, match="key 1"):
        perfetto([{1: 2, **OK}], profile="h200-pcie5")
    with pytest.raises(InvalidType, match=r"obj\[0\]"):
        perfetto([5], profile="h200-pcie5")


def test_a_real_trace_still_converts(tmp_path):
    umkit.use("sim", quiet=True)
    a = umkit.managed(1 << 22)
    a.host[:] = 1
    a.prefetch("gpu")
    umkit.synchronize()
    tr = umkit.trace()
    out = tmp_path / "t.json"
    doc = perfetto(tr, out)
    assert json.loads(out.read_text())["traceEvents"] == doc["traceEvents"]
    assert any(e.get("name") == "prefetch" for e in doc["traceEvents"])
