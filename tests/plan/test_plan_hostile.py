"""umkit.plan on hostile input: recordings with absurd numbers, and a backend switched inside a
recording, are typed errors naming the fix (not a traceback, not a silently partial plan)."""
import json

import pytest

import umkit
import umkit.plan
from umkit.errors import InvalidArgument


@pytest.fixture
def recording(tmp_path):
    umkit.use("sim", quiet=True)
    with umkit.plan.recorder() as rec:
        a = umkit.managed(1 << 16)
        umkit.fill(a, 1.0)
        rec.step()
    return rec.result().to_dict()


def test_a_number_too_long_for_python_is_not_json_not_a_traceback(tmp_path, recording):
    p = tmp_path / "big.plan.json"
    p.write_text(json.dumps(recording).replace('"steps": 1', '"steps": ' + "9" * 5000))
    with pytest.raises(InvalidArgument, match="is not JSON"):
        umkit.plan.load(p)


@pytest.mark.parametrize("where, value", [("flops", 1e308), ("step_ms", 1e300)])
def test_absurd_flops_and_step_times_are_refused(recording, where, value):
    d = json.loads(json.dumps(recording))
    if where == "flops":
        d["patterns"] = [[["gpu", value, "k", [[0, 1, 0, 0, 4096, True]]]]]
    else:
        d["step_ms"] = [value] * d["steps"]
    with pytest.raises(InvalidArgument, match=f"{where}.*not a finite number in"):
        umkit.plan.PlanResult.from_dict(d)


def test_umkit_use_inside_a_recording_is_refused_at_the_next_step():
    umkit.use("sim", quiet=True)
    try:
        with pytest.raises(InvalidArgument, match="switched the backend"):
            with umkit.plan.recorder() as rec:
                rec.step()
                umkit.use("sim", quiet=True, profile="mi300x")
                b = umkit.managed(1 << 16)          # work the old recording cannot see
                umkit.fill(b, 1.0)
                rec.step()
        with pytest.raises(InvalidArgument, match="switched the backend"):
            rec.result()
    finally:
        umkit.use("sim", quiet=True)


def test_umkit_use_as_the_last_thing_in_the_block_spoils_the_result():
    umkit.use("sim", quiet=True)
    try:
        with umkit.plan.recorder() as rec:
            rec.step()
            umkit.use("sim", quiet=True, profile="mi300x")
        with pytest.raises(InvalidArgument, match="umkit.use\\(\\) before"):
            rec.result()
    finally:
        umkit.use("sim", quiet=True)
    with umkit.plan.recorder() as again:           # the next recording is unaffected
        again.step()
    assert again.result().steps == 1


@pytest.mark.parametrize("field, value, match", [
    ("name", "w\x1b[2J\x1b[31mowned", "holds control characters"),
    ("name", "two\nlines", "holds control characters"),
    ("name", "x" * 1001, "longer than 1000"),
    ("note", "\rprogress 100%", "holds control characters"),
    ("meta.name", "loop\x07", "holds control characters"),
    ("profile", "../../etc/some.json", "is a path, not a profile name"),
    ("recorded_on", "/tmp/profile", "is a path, not a profile name"),
    ("advice", "read_mostly\x1b]0;title\x07", "holds control characters"),
])
def test_a_shared_recording_cannot_steer_the_terminal_or_a_file_read(recording, field, value,
                                                                      match):
    """A recording someone else saved is printed as tables and replayed on a profile it names:
    control characters, over-long texts and profile paths in it are typed errors."""
    d = json.loads(json.dumps(recording))
    if field == "name":
        d["buffers"][0]["name"] = value
    elif field == "note":
        d["notes"] = [value]
    elif field == "meta.name":
        d["meta"]["name"] = value
    elif field == "profile":
        d["profile"] = value
    elif field == "recorded_on":
        d["meta"]["recorded_on"] = value
    else:
        d["buffers"][0]["hints"]["advice"] = [value]
    with pytest.raises(InvalidArgument, match=match):
        umkit.plan.PlanResult.from_dict(d)
    umkit.plan.PlanResult.from_dict(recording)          # the recording as saved loads


@pytest.mark.parametrize("name", ["a\nb", "\x1b[1m", "z" * 1001])
def test_names_given_while_recording_follow_the_same_rule(name):
    umkit.use("sim", quiet=True)
    with pytest.raises(InvalidArgument, match="name"):
        umkit.plan.recorder(name)
    a = umkit.managed(1 << 10)
    with umkit.plan.recorder() as rec:
        with pytest.raises(InvalidArgument, match="name"):
            rec.name_buffer(a, name)
        rec.step()
