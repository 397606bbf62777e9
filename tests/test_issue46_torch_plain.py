"""Issue 46: umkit.torch's helpers refuse plain values with typed errors.  A list or dict nested
100,000 deep given as ``obj`` (tensors, storage_ranges, is_managed, prefetch, advise) was a
RecursionError out of the walk over it, and ``as_array(kind=10**5000)`` a ValueError out of its
message.  PyTorch is not needed to see it: a stand-in ``torch`` module with the three types the
walk asks about is enough (the GPU CI runs the hostile sweep with the real one)."""
import sys
import types

import pytest

import umkit
from umkit.errors import InvalidArgument, InvalidType


class Tensor:
    grad = None


@pytest.fixture
def fake_torch(monkeypatch):
    torch = types.ModuleType("torch")
    torch.Tensor = Tensor
    torch.nn = types.SimpleNamespace(Module=type("Module", (), {}))
    torch.optim = types.SimpleNamespace(Optimizer=type("Optimizer", (), {}))
    monkeypatch.setitem(sys.modules, "torch", torch)
    return torch


def deep(kind):
    x = kind()
    for _ in range(100_000):
        x = [x] if kind is list else {"a": x}
    return x


@pytest.mark.parametrize("kind", [list, dict])
@pytest.mark.parametrize("call", ["tensors", "storage_ranges", "is_managed", "prefetch",
                                  "advise"])
def test_a_deeply_nested_obj_is_a_typed_error(fake_torch, call, kind):
    args = ("read_mostly",) if call == "advise" else ()
    with pytest.raises(InvalidArgument, match="nested too deep") as e:
        getattr(umkit.torch, call)(deep(kind), *args)
    assert e.value.argument == "obj"


def test_the_walk_still_finds_tensors(fake_torch):
    a, b = Tensor(), Tensor()
    assert umkit.torch.tensors([a, {"x": (b,)}]) == [a, b]
    assert umkit.torch.tensors([[[]]]) == []


KINDS = {"10**5000": (lambda: 10**5000, InvalidType), "deep-list": (lambda: deep(list), InvalidType),
         "long-str": (lambda: "x" * 100_000, InvalidArgument)}


@pytest.mark.parametrize("label", list(KINDS))
def test_as_array_names_a_bad_kind(fake_torch, label):
    make, error = KINDS[label]
    with pytest.raises(error, match="must be 'managed' or 'device'") as e:
        umkit.torch.as_array(Tensor(), kind=make())
    assert e.value.argument == "kind" and len(str(e.value)) < 1000
