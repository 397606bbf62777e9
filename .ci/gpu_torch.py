"""GPU CI step `torch`: umkit and PyTorch on the cuda backend.

    python3 .ci/gpu_torch.py [results-dir]

Checks (exit 0 only when all hold; each prints what it saw):
  1. torch.from_dlpack(umkit.managed(...)): a CUDA tensor over the *same* pointer (no copy),
     values as written by the CPU, a GPU write visible through the host view;
  2. torch.from_dlpack(umkit.device_array(...)) and torch.as_tensor(a, device="cuda")
     (__cuda_array_interface__): same pointer;
  3. the other way: umkit.torch.as_array(tensor) and cupy.from_dlpack(umkit array);
  4. umkit.torch.managed(): tensors allocated inside are managed memory (the shim compiled and
     loaded), can be prefetched/advised, and compute correctly; outside the block they are not;
  5. README.md's "# cuda + PyTorch" block runs and prints True;
  6. the training loop (benchmarks/torch_training.py, 4 variants) runs with finite, decreasing
     losses that agree step by step across the variants (managed memory must not change the
     numbers); its JSON/markdown land in the results dir.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / ".ci"))
from gpu_checks import Checks  # noqa: E402

C = Checks()
check = C.checked


def main() -> int:
    res = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("RES", "gpu-ci-results"))
    res.mkdir(parents=True, exist_ok=True)
    import numpy as np
    import torch
    import umkit
    import umkit.interop.torch as ut
    print(f"torch {torch.__version__}, cuda available {torch.cuda.is_available()}, "
          f"torch CUDA {torch.version.cuda}", flush=True)
    umkit.use(os.environ.get("UMKIT_BACKEND", "cuda"))
    print("umkit backend:", umkit.backend(), flush=True)
    n = 1 << 20

    @check("from_dlpack(managed): same pointer, CPU values, GPU write visible on the host")
    def _():
        a = umkit.managed(n)
        a.host[:] = np.arange(n, dtype=np.float32) % 97
        print("  __dlpack_device__:", a.__dlpack_device__())
        t = torch.from_dlpack(a)
        assert t.is_cuda, t.device
        assert t.data_ptr() == a.ptr, (hex(t.data_ptr()), hex(a.ptr))
        assert t.shape == (n,) and t.dtype == torch.float32
        want = float((np.arange(n) % 97).sum())
        got = float(t.sum().item())
        assert abs(got - want) < 1e-3 * want, (got, want)
        t.add_(1.0)
        torch.cuda.synchronize()
        assert float(a.host[:4].sum()) == float((np.arange(4) % 97 + 1).sum()), a.host[:4]
        # an explicit kDLCUDAManaged request is honoured (torch then refuses it: that is why
        # the default is kDLCUDA)
        try:
            torch.from_dlpack(a.__dlpack__(dl_device=(13, 0)))
            managed13 = "torch accepted kDLCUDAManaged"
        except Exception as e:  # noqa: BLE001
            managed13 = f"torch refuses kDLCUDAManaged as expected ({type(e).__name__}: {e})"
        del t
        a.free()
        return f"sum {got}; {managed13}"

    @check("from_dlpack(device) and as_tensor(managed, device='cuda'): same pointer")
    def _():
        d = umkit.device_array(n)
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
        return f"CAI {cai}"

    @check("the other way: umkit.torch.as_array(tensor), cupy.from_dlpack(umkit array)")
    def _():
        x = torch.arange(n, dtype=torch.float32, device="cuda")
        arr = ut.as_array(x)
        assert arr.ptr == x.data_ptr() and arr.kind == "device", arr
        back = umkit.read_back(arr)
        assert float(back[:5].sum()) == 10.0, back[:5]
        import cupy
        a = umkit.managed(n)
        a.host[:] = 1.0
        c = cupy.from_dlpack(a)
        assert int(c.data.ptr) == a.ptr and float(c.sum()) == n
        del c
        a.free()
        return f"{arr!r}"

    @check("umkit.torch.managed(): managed tensors, prefetch/advise, correct compute")
    def _():
        path = ut.shim_path()
        with ut.managed():
            w = torch.randn(4096, 4096, device="cuda")
            v = torch.ones(4096, device="cuda")
        outside = torch.zeros(1024, device="cuda")
        assert ut.is_managed(w) and ut.is_managed(v), "tensors from the pool are not managed"
        assert not ut.is_managed(outside), "a tensor outside the block is managed"
        moved = ut.prefetch(w, "cpu")
        torch.cuda.synchronize()
        arr = ut.as_array(w)
        assert arr.kind == "managed"
        host_sum = float(arr.host.astype(np.float64).sum())      # CPU reads it in place
        ut.advise(w, "read_mostly")
        ut.prefetch(w, "gpu")
        gpu_sum = float((w @ v).sum().item())
        assert abs(gpu_sum - host_sum) <= 1e-2 * max(1.0, abs(host_sum)) + 1.0, (gpu_sum, host_sum)
        stats = ut.shim_stats()
        assert stats["allocs"] >= 1, stats
        return f"shim {path.name}, prefetched {moved} B, sums {host_sum:.3f}/{gpu_sum:.3f}, {stats}"

    @check("README's cuda + PyTorch block runs")
    def _():
        import re
        blocks = [b for b in re.findall(r"```py\n(.*?)```", (ROOT / "README.md").read_text(),
                                        flags=re.S) if b.startswith("# cuda + PyTorch")]
        assert len(blocks) == 1, f"found {len(blocks)} '# cuda + PyTorch' blocks in README.md"
        import contextlib
        import io
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(blocks[0], "README.md cuda+PyTorch block", "exec"), {})
        out = buf.getvalue()
        assert "False" not in out and "True" in out, out
        return out.strip()

    @check("training loop: 4 variants under the recorder (benchmarks/torch_training.py)")
    def _():
        steps = os.environ.get("UMKIT_TORCH_STEPS", "40")
        cmd = [sys.executable, str(ROOT / "benchmarks" / "torch_training.py"), "--out",
               str(res / "torch_training"), "--steps", steps]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=420)
        print(r.stdout[-6000:], r.stderr[-6000:], flush=True)
        assert r.returncode == 0, f"torch_training.py exited {r.returncode}"
        doc = json.loads((res / "torch_training" / "torch_training.json").read_text())
        assert doc.get("losses_agree", {}).get("ok"), doc.get("losses_agree")
        return dict({v: (x.get("summary") or {}).get("median_ms")
                     for v, x in doc["results"].items()}, losses=doc["losses_agree"]["note"])

    (res / "torch.json").write_text(json.dumps(C.rows(), indent=1) + "\n")
    return C.finish("torch")


if __name__ == "__main__":
    sys.exit(main())
