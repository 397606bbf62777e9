"""umkit.torch on ROCm (umkit/interop/torch_rocm.py), as far as a machine without an AMD GPU
can take it: the hipMallocManaged shim compiles, loads Debian's HIP runtime (hipcc brings
libamdhip64.so.5; test.sh hides only the unversioned name), finds its symbols, and refuses with
a typed umkit error -- never a crash -- where there is no runtime, a wrong library, no device,
or a PyTorch that is not a ROCm build.  Nothing here has run on an AMD card.

The runtime is loaded in child processes only, so HIP 5.2 never enters the test process (where
the contract tests load hip-python's own)."""
import glob
import json
import os
import shutil
import subprocess
import sys

import pytest

import umkit.interop.torch as ut
import umkit.interop.torch_rocm as tr
from umkit.errors import BackendUnavailable, InvalidArgument, UmkitError

pytestmark = pytest.mark.skipif(ut.compiler() is None, reason="no C compiler for the shim")


def _debian_hip() -> str | None:
    """Debian's HIP runtime, versioned name (present while test.sh hides the unversioned one)."""
    hits = sorted(glob.glob("/usr/lib/*/libamdhip64.so.[0-9]*"))
    return hits[0] if hits else None


def _child(code: str, env_extra: dict, tmp_path) -> dict:
    env = {**os.environ, "UMKIT_CACHE": str(tmp_path / "cache"), **env_extra}
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr             # no crash, whatever the machine lacks
    return json.loads(r.stdout.strip().splitlines()[-1])


PROBE = "import json, umkit.interop.torch_rocm as r; print(json.dumps(r.probe()))"
REQUIRE = """
import json, umkit.interop.torch_rocm as r
from umkit.errors import BackendUnavailable
try:
    r.require(); print(json.dumps({"raised": None}))
except BackendUnavailable as e:
    print(json.dumps({"raised": type(e).__name__, "message": e.message, "hint": e.hint}))
"""


def test_the_shim_compiles_and_exports_pytorchs_allocator_signature(tmp_path, monkeypatch):
    monkeypatch.setenv("UMKIT_CACHE", str(tmp_path))
    so = tr.shim_path()
    assert so.is_file() and so.parent == tmp_path
    nm = shutil.which("nm")
    if nm:
        out = subprocess.run([nm, "-D", "--defined-only", str(so)], capture_output=True,
                             text=True).stdout
        for sym in (tr.ALLOC, tr.FREE, "umkit_hip_probe", "umkit_hip_managed_stats"):
            assert sym in out
    assert tr.shim_path() == so                     # cached: same source, same file
    assert so != ut.shim_path()                     # the CUDA shim is another file


def test_a_named_library_that_is_not_there_is_refused_by_name(tmp_path):
    p = _child(PROBE, {"UMKIT_HIP_LIBRARY": str(tmp_path / "nope.so")}, tmp_path)
    assert p["ok"] is False and p["code"] == tr.PROBE_NO_LIBRARY
    assert "nope.so" in p["why"]
    r = _child(REQUIRE, {"UMKIT_HIP_LIBRARY": str(tmp_path / "nope.so")}, tmp_path)
    assert r["raised"] == "BackendUnavailable" and "UMKIT_HIP_LIBRARY" in r["hint"]


def test_a_library_without_the_hip_symbols_is_refused():
    import ctypes.util
    libc = ctypes.util.find_library("c")
    if libc is None:
        pytest.skip("no libc to stand in for a wrong library")
    env = {**os.environ, "UMKIT_HIP_LIBRARY": libc}
    r = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True,
                       timeout=120)
    p = json.loads(r.stdout.strip().splitlines()[-1])
    assert p["code"] == tr.PROBE_NO_SYMBOL and "hipMallocManaged" in p["why"]


@pytest.mark.skipif(_debian_hip() is None, reason="no HIP runtime installed (apt-get install "
                    "hipcc brings Debian's libamdhip64.so.5)")
def test_debians_hip_runtime_has_every_symbol_and_answers_no_device(tmp_path):
    lib = _debian_hip()
    nm = shutil.which("nm")
    if nm:
        syms = subprocess.run([nm, "-D", "--defined-only", lib], capture_output=True,
                              text=True).stdout
        for s in tr.SYMBOLS:
            assert any(line.split()[-1].split("@")[0] == s for line in syms.splitlines()
                       if line.strip()), s
    if os.path.exists("/dev/kfd"):
        pytest.skip("an AMD GPU is here: the no-device refusal can't be shown")
    p = _child(PROBE, {"UMKIT_HIP_LIBRARY": lib}, tmp_path)
    assert p["code"] == tr.PROBE_NO_DEVICE and p["library"] == lib   # loaded, symbols found
    assert p["devices"] == 0 and p["hip_error"] != 0                 # hipErrorNoDevice (100)
    r = _child(REQUIRE, {"UMKIT_HIP_LIBRARY": lib}, tmp_path)
    assert r["raised"] == "BackendUnavailable" and "sees no AMD GPU" in r["message"]


FAKE_TORCH = """
import json, sys, types
calls = []
torch = types.ModuleType("torch")
torch.__version__ = "9.9.9+{build}"
torch.version = types.SimpleNamespace(hip={hip!r}, cuda={cuda!r})
class Pluggable:
    def __init__(self, path, alloc, free): calls.append((path, alloc, free))
torch.cuda = types.SimpleNamespace(memory=types.SimpleNamespace(CUDAPluggableAllocator=Pluggable),
                                   is_available=lambda: True)
sys.modules["torch"] = torch
import umkit.interop.torch as ut
from umkit.errors import BackendUnavailable
try:
    ut.managed_allocator(); print(json.dumps({{"raised": None, "calls": calls}}))
except BackendUnavailable as e:
    print(json.dumps({{"raised": type(e).__name__, "message": e.message, "calls": calls}}))
"""


def test_a_rocm_pytorch_is_routed_to_hip_and_refused_without_a_device(tmp_path):
    env = {"UMKIT_HIP_LIBRARY": _debian_hip() or str(tmp_path / "none.so")}
    r = _child(FAKE_TORCH.format(build="rocm7.0", hip="7.0.0", cuda=None), env, tmp_path)
    if os.path.exists("/dev/kfd"):
        pytest.skip("an AMD GPU is here")
    assert r["raised"] == "BackendUnavailable" and r["message"].startswith("umkit.torch on ROCm")
    assert r["calls"] == []                      # PyTorch never got a shim it could not use


def test_a_cuda_pytorch_keeps_the_cuda_shim(tmp_path):
    r = _child(FAKE_TORCH.format(build="cu130", hip=None, cuda="13.0"), {}, tmp_path)
    assert r["raised"] is None
    assert [c[1:] for c in r["calls"]] == [[ut.ALLOC, ut.FREE]]
    assert "umkit_managed_alloc_" in r["calls"][0][0]


def test_the_rocm_allocator_refuses_a_pytorch_that_is_not_a_rocm_build(monkeypatch):
    import types
    fake = types.ModuleType("torch")
    fake.__version__ = "2.9.0+cpu"
    fake.version = types.SimpleNamespace(hip=None, cuda=None)
    monkeypatch.setitem(sys.modules, "torch", fake)
    with pytest.raises(BackendUnavailable, match="not a ROCm build"):
        tr.managed_allocator()


def test_without_pytorch_managed_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)          # import torch -> ImportError
    with pytest.raises(BackendUnavailable, match="PyTorch is not installed"):
        with ut.managed():
            pass


def test_it_says_plainly_it_has_not_run_on_a_card():
    assert tr.RUN_ON_A_CARD is False
    assert "NOT RUN ON AN AMD GPU" in tr.__doc__
    assert "not yet run on an AMD" in ut.managed.__doc__


@pytest.mark.parametrize("platform,name,other", [("hip", "PYTORCH_HIP_ALLOC_CONF",
                                                  "PYTORCH_CUDA_ALLOC_CONF"),
                                                 ("cuda", "PYTORCH_CUDA_ALLOC_CONF",
                                                  "PYTORCH_HIP_ALLOC_CONF")])
def test_oom_advice_names_the_platforms_allocator_setting(platform, name, other):
    text = ut.oom_advice(platform)
    assert f"{name}=expandable_segments:True" in text and other not in text
    assert ("XNACK" in text) == (platform == "hip")
    assert "umkit.torch.managed()" in text


def test_oom_advice_without_pytorch_names_both_and_checks_its_argument(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    text = ut.oom_advice()
    assert "PYTORCH_CUDA_ALLOC_CONF" in text and "PYTORCH_HIP_ALLOC_CONF" in text
    with pytest.raises(InvalidArgument):
        ut.oom_advice("rocm")
    with pytest.raises(UmkitError):
        ut.oom_advice(3)
