"""Issue 46, review AT (F2-1..F2-8, F2-10): the plan, the profiler-trace reader, port-check and
the whole model named plain values with ``{v!r}``: an int of 5000 digits (no ``str``) or a list
nested 100,000 deep (no ``repr``) raised ValueError/RecursionError instead of the typed error
being written.  PlanResult.owner/lifetime took only a Buffer (AttributeError for a name or an
id); predict(profile=True) named ``profiles=``; doctor printed a 3 MB backend name whole."""
import io
import os

import pytest

import umkit
import umkit.plan
from umkit.errors import InvalidArgument, InvalidType, UmkitError

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def deep(kind=list):
    x = kind()
    for _ in range(100_000):
        x = [x] if kind is list else {"a": x}
    return x


PLAIN = {"10**5000": lambda: 10**5000, "deep-list": deep, "deep-dict": lambda: deep(dict)}


@pytest.fixture
def result():
    with umkit.using("sim"):
        a = umkit.managed(1024)
        with umkit.plan.recorder() as rec:
            for _ in range(2):
                a.host[:] = 1.0
                umkit.increment(a)
                umkit.synchronize()
                rec.step()
        yield rec.result()


def calls(r):
    from umkit import workloads
    from umkit.diagnostics.portcheck import port_check
    src = os.path.join(REPO, "kernels", "cuda")
    db = os.path.join(REPO, "notebooks", "data", "rocpd_example.db")
    return {
        ("buffer", "key"): lambda v: r.buffer(v),
        ("recommend", "plans"): lambda v: umkit.plan.recommend(r, plans={v: {}})
        if not isinstance(v, (list, dict)) else umkit.plan.recommend(r, plans={"p": {"*": v}}),
        ("recommend", "profiles"): lambda v: r.recommend(profiles=[v]),
        ("predict", "plan"): lambda v: umkit.plan.predict(r, {v: "device"})
        if not isinstance(v, (list, dict)) else umkit.plan.predict(r, v),
        ("predict", "profile"): lambda v: umkit.plan.predict(r, {}, profile=v),
        ("ecg.read", "step"): lambda v: umkit.ecg.read(db, step=v),
        ("port_check", "paths"): lambda v: port_check([v]),
        ("port_check", "target"): lambda v: port_check(src, target=v),
        ("port_check", "xnack"): lambda v: port_check(src, xnack=v),
        ("plan_model", "m"): lambda v: workloads.plan_model(v),
        ("model_buffers", "m"): lambda v: workloads.model_buffers(v),
        ("model_step_costs", "m"): lambda v: workloads.model_step_costs(v),
        ("owner", "b"): lambda v: r.owner(v),
        ("lifetime", "b"): lambda v: r.lifetime(v),
    }


@pytest.mark.parametrize("label", list(PLAIN))
def test_plain_values_get_typed_errors_naming_the_argument(result, label):
    for (where, arg), call in calls(result).items():
        with pytest.raises(UmkitError) as e:
            call(PLAIN[label]())
        assert getattr(e.value, "argument", None) == arg or arg in str(e.value), (where, e.value)
        assert len(str(e.value)) < 2000, (where, len(str(e.value)))


def test_owner_and_lifetime_take_a_buffer_by_name_or_id(result):
    b = result.buffers[0]
    assert result.owner(b.name) == result.owner(b.id) == result.owner(b)
    assert result.lifetime(b.name) == result.lifetime(b.id) == result.lifetime(b)
    assert result.owner(b, result.touch_steps()) == result.owner(b)
    for bad in ("no such buffer", 10**6):
        with pytest.raises(InvalidArgument) as e:
            result.owner(bad)
        assert e.value.argument == "b"
    for bad in (None, 1.5, [], True):
        with pytest.raises(InvalidType) as e:
            result.lifetime(bad)
        assert e.value.argument == "b"
    for bad in ("x", {}, {"a": 1}, [1]):
        with pytest.raises(InvalidType) as e:
            result.owner(b, touched=bad)
        assert e.value.argument == "touched"


def test_predict_names_profile_not_profiles(result):
    for v in (True, 1, ["h200-pcie5"], "nosuch"):
        with pytest.raises((InvalidType, InvalidArgument)) as e:
            umkit.plan.predict(result, {}, profile=v)
        assert e.value.argument == "profile", (v, e.value)
        with pytest.raises((InvalidType, InvalidArgument)) as e:
            result.predict({}, profile=v)
        assert e.value.argument == "profile", (v, e.value)


def test_plan_model_names_a_bad_card_and_bad_strategies():
    from umkit import workloads
    for v in ("x", "y" * 100_000):
        with pytest.raises(InvalidArgument) as e:
            workloads.plan_model("7b", card=v)
        assert e.value.argument == "card" and len(str(e.value)) < 2000
    with pytest.raises(InvalidType) as e:
        workloads.model_step_costs("7b", card=[])
    assert e.value.argument == "card"
    for v in (True, 3, "device", object()):
        with pytest.raises(InvalidType) as e:
            workloads.model_step_costs("7b", strategies=v)
        assert e.value.argument == "strategies"
    for v in (["nosuch"], [1], ()):
        with pytest.raises((InvalidType, InvalidArgument)) as e:
            workloads.model_step_costs("7b", strategies=v)
        assert e.value.argument == "strategies"


def test_a_plan_recorder_refuses_a_stream_that_is_not_one():
    for v in (True, 1, "s"):
        with pytest.raises(InvalidType) as e:
            umkit.plan.recorder(stream=v)
        assert e.value.argument == "stream"


def test_doctor_cuts_a_huge_backend_name():
    out = io.StringIO()
    umkit.doctor(backend="y" * 3_000_000, file=out)
    assert 0 < len(out.getvalue()) < 50_000


def test_perfetto_checks_force_and_profile_whatever_obj_is():
    from umkit.ecg.traces import perfetto
    trace = umkit.ecg.read(os.path.join(REPO, "notebooks", "data", "rocpd_example.db"))
    for kw, arg in ((dict(force=None), "force"), (dict(force=1), "force"),
                    (dict(profile=True), "profile"), (dict(profile=10**5000), "profile")):
        with pytest.raises(InvalidType) as e:
            perfetto(trace, **kw)
        assert e.value.argument == arg
    with pytest.raises(InvalidType) as e:
        perfetto([1], profile="h200-pcie5")
    assert "obj" in e.value.argument


def test_save_records_refuses_plain_values_naming_the_argument(tmp_path):
    from umkit.ecg.traces import save_records
    ok = (10, "BYTES_TRANSFER_HTOD", 4096, "USER")
    for i, (records, stamps, arg) in enumerate([
            ([ok], [10**5000], "stamps"), ([ok], [deep()], "stamps"), ([ok], ["1"], "stamps"),
            ([1], [100], "records"), ([(10**5000, *ok[1:])], [100], "records"),
            ([(*ok[:3], 10**5000)], [100], "records"), (deep(), [100], "records"),
            ([(*ok, deep())], [100], "records")]):
        with pytest.raises(UmkitError) as e:
            save_records(tmp_path / f"r{i}.jsonl", records, stamps)
        assert getattr(e.value, "argument", None) == arg or arg in str(e.value), (i, e.value)
    with pytest.raises(InvalidType) as e:
        save_records(tmp_path / "d.jsonl", [ok], [100], device=10**5000)
    assert e.value.argument == "device"
    assert save_records(tmp_path / "good.jsonl", [ok, (*ok, 4096)], [100]).exists()
