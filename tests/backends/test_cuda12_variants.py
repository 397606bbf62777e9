"""The cu12 extra: with cuda-bindings 12 the adapter calls the location forms of prefetch and
advise (cudaMemPrefetchAsync_v2 / cudaMemAdvise_v2); with 13 the plain names."""
from types import SimpleNamespace

from umkit.backends import cuda
from umkit.backends.contract import Location


def _adapter(runtime):
    rt = cuda.CudaRuntime.__new__(cuda.CudaRuntime)
    rt.rt, rt.v2 = runtime, cuda.location_suffix(runtime)
    calls = []
    rt.call_spelled = lambda name, *args: calls.append((name, args))
    rt.location = lambda where: ("loc", where.kind)
    return rt, calls


def test_bindings_13_use_the_plain_names():
    runtime = SimpleNamespace(cudaMemPrefetchAsync=object(), cudaMemAdvise=object(),
                              cudaMemLocation=object)
    rt, calls = _adapter(runtime)
    rt.prefetch(4096, 8192, Location("device", 0), "s")
    rt.advise(4096, 8192, "adv", Location("host", 0))
    assert [c[0] for c in calls] == ["cudaMemPrefetchAsync", "cudaMemAdvise"]
    assert calls[0][1] == (4096, 8192, ("loc", "device"), 0, "s")


def test_bindings_12_use_the_v2_location_forms():
    runtime = SimpleNamespace(cudaMemPrefetchAsync=object(), cudaMemPrefetchAsync_v2=object(),
                              cudaMemAdvise=object(), cudaMemAdvise_v2=object(),
                              cudaMemLocation=object)
    rt, calls = _adapter(runtime)
    rt.prefetch(4096, 8192, Location("host", 0), "s")
    rt.advise(4096, 8192, "adv", Location("device", 1))
    assert [c[0] for c in calls] == ["cudaMemPrefetchAsync_v2", "cudaMemAdvise_v2"]
    assert calls[1][1] == (4096, 8192, "adv", ("loc", "device"))


def test_installed_bindings_get_the_suffix_their_signature_needs():
    import pytest
    rt_mod = pytest.importorskip("cuda.bindings.runtime")
    major = int(__import__("importlib").metadata.version("cuda-bindings").split(".")[0])
    assert cuda.location_suffix(rt_mod) == ("_v2" if major == 12 else "")
