"""What umkit's two PyTorch allocators share (the CUDA one in :mod:`umkit.interop.torch`, the
ROCm one in :mod:`umkit.interop.torch_rocm`): PyTorch imported on use, and a C shim compiled
once into umkit's cache with the system C compiler."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..errors import BackendUnavailable


def require_torch():
    try:
        import torch
    except ImportError as e:
        raise BackendUnavailable(f"PyTorch is not installed ({e})",
                                 hint="pip install torch (umkit does not depend on it)") from None
    return torch


# -- the shim ----------------------------------------------------------------------------------------
def cache_dir() -> Path:
    d = os.environ.get("UMKIT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "umkit")
    return Path(d)


def compiler() -> str | None:
    for c in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if c and shutil.which(c):
            return shutil.which(c)
    return None


def build_shim(source: str, stem: str, rebuild: bool = False) -> Path:
    """Compile a C allocator shim (``source``) into the cache as ``<stem>_<hash>.so``, once per
    source version; the CUDA shim here and the ROCm one (:mod:`umkit.interop.torch_rocm`)."""
    tag = hashlib.sha256(source.encode()).hexdigest()[:12]
    out = cache_dir() / f"{stem}_{tag}.so"
    if out.is_file() and not rebuild:
        return out
    cc = compiler()
    if cc is None:
        raise BackendUnavailable("no C compiler found to build umkit's PyTorch allocator shim",
                                 hint="install gcc (or set CC=...); the shim is 40 lines of C")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "shim.c"
        src.write_text(source)
        tmp_out = Path(tmp) / out.name
        r = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(tmp_out), str(src), "-ldl"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise BackendUnavailable(f"building the allocator shim with {cc} failed:\n{r.stderr}",
                                     hint="check the compiler (CC=...) works: cc -shared -fPIC")
        shutil.move(str(tmp_out), str(out))          # atomic enough: same file system or copy
    return out
