"""umkit and PyTorch on the cuda backend (``.ci/gpu``'s ``torch`` step): DLPack both ways,
``umkit.torch``'s managed allocator, README's PyTorch block, and the training loop of
``benchmarks/torch_training.py`` in its four memory variants."""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import umkit
from gpu_required import missing, need

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parents[2]
N = 1 << 20


@pytest.fixture(scope="module")
def torch(cuda_backend):
    torch = need("torch")
    if not torch.cuda.is_available():
        missing("PyTorch sees no CUDA GPU")
    return torch


def test_from_dlpack_of_managed_memory_is_the_same_memory(torch):
    """A CUDA tensor over the same pointer: the CPU's values, and a GPU write seen by the host."""
    a = umkit.managed(N)
    a.host[:] = np.arange(N, dtype=np.float32) % 97
    t = torch.from_dlpack(a)
    assert t.is_cuda and t.data_ptr() == a.ptr, (t.device, hex(t.data_ptr()), hex(a.ptr))
    assert t.shape == (N,) and t.dtype == torch.float32
    want = float((np.arange(N) % 97).sum())
    got = float(t.sum().item())
    assert abs(got - want) < 1e-3 * want, (got, want)
    t.add_(1.0)
    torch.cuda.synchronize()
    assert float(a.host[:4].sum()) == float((np.arange(4) % 97 + 1).sum()), a.host[:4]
    del t
    a.free()


def test_device_arrays_and_the_cuda_array_interface_share_the_pointer(torch):
    d = umkit.device_array(N)
    t = torch.from_dlpack(d)
    assert t.data_ptr() == d.ptr and t.is_cuda
    t.fill_(2.0)
    torch.cuda.synchronize()
    assert float(umkit.read_back(d)[:8].sum()) == 16.0
    a = umkit.managed((256, 1024))
    a.host[:] = 3.0
    cai = a.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (256, 1024) and cai["typestr"] == "<f4", cai
    u = torch.as_tensor(a, device="cuda")
    assert u.data_ptr() == a.ptr, (hex(u.data_ptr()), hex(a.ptr))
    assert u.shape == (256, 1024) and float(u.sum().item()) == 3.0 * 256 * 1024
    del t, u
    d.free()
    a.free()


def test_the_other_way_tensors_and_cupy_arrays_over_umkit_memory(torch):
    import umkit.interop.torch as ut
    x = torch.arange(N, dtype=torch.float32, device="cuda")
    arr = ut.as_array(x)
    assert arr.ptr == x.data_ptr() and arr.kind == "device", arr
    assert float(umkit.read_back(arr)[:5].sum()) == 10.0
    cupy = need("cupy")
    a = umkit.managed(N)
    a.host[:] = 1.0
    c = cupy.from_dlpack(a)
    assert int(c.data.ptr) == a.ptr and float(c.sum()) == N
    del c
    a.free()


def test_umkit_torch_managed_allocates_managed_tensors_inside_its_block_only(torch):
    import umkit.interop.torch as ut
    with ut.managed():
        w = torch.randn(4096, 4096, device="cuda")
        v = torch.ones(4096, device="cuda")
    outside = torch.zeros(1024, device="cuda")
    assert ut.is_managed(w) and ut.is_managed(v), "tensors from the pool are not managed"
    assert not ut.is_managed(outside), "a tensor outside the block is managed"
    ut.prefetch(w, "cpu")
    torch.cuda.synchronize()
    arr = ut.as_array(w)
    assert arr.kind == "managed"
    host_sum = float(arr.host.astype(np.float64).sum())      # the CPU reads it in place
    ut.advise(w, "read_mostly")
    ut.prefetch(w, "gpu")
    gpu_sum = float((w @ v).sum().item())
    assert abs(gpu_sum - host_sum) <= 1e-2 * max(1.0, abs(host_sum)) + 1.0, (gpu_sum, host_sum)
    assert ut.shim_stats()["allocs"] >= 1, ut.shim_stats()


def test_the_readmes_pytorch_block_runs(torch):
    blocks = [b for b in re.findall(r"```py\n(.*?)```", (ROOT / "README.md").read_text(),
                                    flags=re.S) if b.startswith("# cuda + PyTorch")]
    assert len(blocks) == 1, f"found {len(blocks)} '# cuda + PyTorch' blocks in README.md"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(blocks[0], "README.md cuda+PyTorch block", "exec"), {})
    out = buf.getvalue()
    assert "False" not in out and "True" in out, out


def test_the_training_loop_gives_the_same_losses_in_its_four_memory_variants(torch, results):
    """Managed memory must not change the numbers: finite losses that agree step by step."""
    out = results / "torch_training"
    steps = os.environ.get("UMKIT_TORCH_STEPS", "40")
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "torch_training.py"), "--out",
                        str(out), "--steps", steps], capture_output=True, text=True, timeout=420)
    print(r.stdout[-6000:], r.stderr[-6000:])
    assert r.returncode == 0, f"torch_training.py exited {r.returncode}: {r.stderr[-2000:]}"
    doc = json.loads((out / "torch_training.json").read_text())
    assert doc.get("losses_agree", {}).get("ok"), doc.get("losses_agree")
