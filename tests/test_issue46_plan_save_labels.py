"""Issue 46: ``PlanResult.save`` of a recording whose labels hold control characters (a buffer's
name, a kernel's tag, a note, the device) writes a file that loads back, the characters shown
escaped; what load() would refuse is refused before anything is written; and a whole-number
field of a file that is no int Python can print (10**5000) is a typed error, not a ValueError."""

import pytest

import umkit
import umkit.plan
from umkit.errors import InvalidArgument
from umkit.plan.result import PlanResult

ESC = "a\x1b[31mred\x07\r\nb"


def recording():
    umkit.use("sim", quiet=True)
    a = umkit.managed(1 << 16)
    try:
        with umkit.plan.recorder() as rec:
            for _ in range(2):
                a.host[:] = 1.0
                umkit.increment(a)
                umkit.synchronize()
                rec.step()
        return rec.result()
    finally:
        a.free()


def test_labels_with_control_characters_save_and_load_back(tmp_path):
    res = recording()
    res.buffers[0].name = ESC
    res.device = "card" + ESC
    res.notes = [ESC]
    res.meta["name"] = ESC
    res.patterns[0][0][2] = ESC
    path = res.save(tmp_path / "loop.json")
    back = umkit.plan.load(path)
    shown = repr(ESC)[1:-1]                      # a\x1b[31mred\x07\r\nb
    assert back.buffers[0].name == shown and back.device == "card" + shown
    assert back.notes == [shown] and back.meta["name"] == shown
    assert back.patterns[0][0][2] == shown
    assert back.steps == res.steps and back.step_ms == res.step_ms
    assert "\x1b" not in path.read_text()
    assert res.buffers[0].name == ESC              # the recording itself is left as it was


def test_what_load_refuses_is_not_written(tmp_path):
    res = recording()
    res.step_ms[0] = float("nan")
    with pytest.raises(InvalidArgument, match="step_ms"):
        res.save(tmp_path / "loop.json")
    assert not (tmp_path / "loop.json").exists()


def test_meta_that_is_no_json_is_a_typed_error(tmp_path):
    res = recording()
    res.meta["odd"] = {1, 2}
    with pytest.raises(InvalidArgument, match="cannot be saved as JSON"):
        res.save(tmp_path / "loop.json")
    assert not (tmp_path / "loop.json").exists()


@pytest.mark.parametrize("field, digits", [("steps", 5000), ("steps", -6000),
                                           ("format", 5000)])
def test_a_huge_int_in_a_file_is_a_typed_error(field, digits):
    d = recording().to_dict()
    d[field] = (-1 if digits < 0 else 1) * 10**abs(digits)
    with pytest.raises(InvalidArgument, match=f"{field}=<an int of about"):
        PlanResult.from_dict(d)


def test_a_huge_int_in_an_access_is_a_typed_error():
    d = recording().to_dict()
    op = next(op for ops in d["patterns"] for op in ops if op[3])
    op[3][0][5] = 10**5000
    with pytest.raises(InvalidArgument, match="write=<an int of about"):
        PlanResult.from_dict(d)
