"""Issue 46: messages that name a plain value never fail on it.  An int of 5000 digits has no
``str`` and a list nested 100,000 deep has no ``repr``: a message that formats such a value with
``{v!r}`` raised ValueError/RecursionError instead of the typed error it was writing.  Each site
here (and every public callable, in tests/contract/test_hostile_sweep.py) answers with a umkit
error that names the argument; the exercises' reason helpers refuse what is not text."""
import numpy as np
import pytest

import umkit
from umkit.errors import InvalidArgument, InvalidType, UmkitError


def deep():
    x = []
    for _ in range(100_000):
        x = [x]
    return x


VALUES = {"10**5000": lambda: 10**5000, "deep-list": deep}


def calls():
    from umkit.teaching.exercises import nb07, nb09
    from umkit.teaching.widgets import RecorderView
    ex = umkit.exercises
    return {
        "stream": lambda v: umkit.fill(umkit.managed(16), 1.0, stream=v),
        "what": lambda v: umkit.synchronize(v),
        "end": lambda v: umkit.Event().record().elapsed_ms(v),
        "backend": lambda v: umkit.MemoryPool(backend=v),
        "owner": lambda v: umkit.MemoryPool().allocate(4096, owner=v),
        "name": lambda v: umkit.names.row(v),
        "kind": lambda v: umkit.names.rows(v),
        "file": lambda v: umkit.explain("hipErrorOutOfMemory", file=v),
        "platform": lambda v: umkit.torch.oom_advice(platform=v),
        "vendor": lambda v: umkit.examples.build_command(umkit.examples.list()[0], vendor=v),
        "record": lambda v: RecorderView(static=True).add(v),
        "after": lambda v: umkit.workloads.counter_delta({}, {"gpu_faults": v}),
        "profile": lambda v: umkit.using("sim", profile=v).__enter__(),
        "counters": lambda v: umkit.using("sim", counters=v).__enter__(),
        "text": lambda v: ex.why_words(v),
        "reason": lambda v: ex.pasted(v, ["shown text"]),
        "sources": lambda v: ex.pasted("a reason", v),
        "terms": lambda v: ex.on_topic("a reason", v),
        "rhythm": lambda v: nb07.off_rhythm(v),
        "plan": lambda v: nb07.breath_rhythm(v),
        "rng": lambda v: nb09.mean_median_curves(v),
    }


@pytest.fixture(autouse=True)
def _sim(monkeypatch):
    monkeypatch.setenv("UMKIT_WIDGETS", "static")
    with umkit.using("sim"):
        yield


@pytest.mark.parametrize("label", list(VALUES))
@pytest.mark.parametrize("arg", list(calls()))
def test_a_plain_value_gets_a_typed_error_naming_the_argument(arg, label):
    value = VALUES[label]()
    if arg == "after" and label == "10**5000":
        value = {"a": 1}                # a huge int is a count: a dict in its place is not
    with pytest.raises(UmkitError) as e:
        calls()[arg](value)
    assert isinstance(e.value, (InvalidArgument, InvalidType)), e.value
    assert getattr(e.value, "argument", None) == arg or arg in str(e.value), str(e.value)
    assert len(str(e.value)) < 2000


def test_the_reason_helpers_still_grade_text():
    from umkit.teaching.exercises import nb07, nb09
    ex = umkit.exercises
    assert ex.why_words("数据在哪里就在哪里算") == 5 and ex.why_words("") == 0
    assert ex.pasted("A prefetch costs a fixed latency", ["a prefetch costs a fixed latency."])
    assert ex.on_topic("it is about prefetch", ("prefetch",)) and ex.on_topic("x", None)
    assert nb07.off_rhythm([[1.0, 0.0], [0.0, 1.0]]) is None
    assert nb07.off_rhythm([[0.5, 0.0]]) is not None
    with pytest.raises(InvalidArgument, match="rhythm"):
        nb07.off_rhythm([[1.5]])
    assert set(nb09.mean_median_curves(np.random.default_rng(1))) == {"frequent spikes", "dips"}


def test_counter_delta_still_subtracts():
    assert umkit.workloads.counter_delta({"a": 1}, {"a": 3, "b": 0}) == {"a": 2}
    assert umkit.workloads.counter_delta({}, {"a": 10**5000}) == {"a": 10**5000}


def test_a_language_given_as_a_huge_or_deep_value_is_a_typed_error():
    # AT4: use(lang=10**5000) raised ValueError and a 100k-deep list RecursionError (an f-string
    # repr of the value); the message now shows it bounded
    from umkit.errors import InvalidArgument
    from umkit.runtime import lang
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    for value in (10**5000, deep):
        with pytest.raises(InvalidArgument) as e:
            lang.set_language(value)
        assert e.value.argument == "lang" and len(str(e.value)) < 400


def test_plan_helpers_given_plain_values_are_typed_errors():
    # AT4: recommend(r).to_ecg(plans=1) raised TypeError, recorder().name_torch(model=1)
    # AttributeError
    import umkit
    from umkit import plan
    from umkit.errors import InvalidType
    umkit.use("sim", quiet=True)
    with plan.recorder() as r:
        a = umkit.managed(1 << 20)
        for _ in range(3):
            umkit.touch(a, 4)
            r.step()
    advice = plan.recommend(r.result())
    for bad in (1, [1], object()):
        with pytest.raises(InvalidType) as e:
            advice.to_ecg(plans=bad)
        assert e.value.argument == "plans"
    first = list(advice.plans)[:1]
    assert list(advice.to_ecg(plans=first)["curves"]) == first
    for kw, arg in ((dict(model=1), "model"), (dict(optimizer=1), "optimizer")):
        with pytest.raises(InvalidType) as e:
            plan.recorder().name_torch(**kw)
        assert e.value.argument == arg
