"""umkit's kernels: their parameter kinds and their source.

The source lives in ``kernels/umkit_kernels.cu`` (shipped as the package ``umkit._kernels``):
one file that NVRTC and hiprtc both compile.  :data:`SPECS` gives each kernel's parameters as
kinds, so a backend can convert Python arguments before launching (the GPU backends turn them
into NumPy scalars for CuPy; the sim backend runs a NumPy twin of each kernel).

Kinds: ``ptr`` (an address: a plain ``int``), ``i32``, ``i64``, ``f32``.
"""
from __future__ import annotations

from pathlib import Path

PARAM_KINDS = ("ptr", "i32", "i64", "f32")

SPECS: dict[str, tuple[str, ...]] = {
    # out[i] = a[i] + b[i] for i < n
    "add_kernel": ("ptr", "ptr", "ptr", "i32"),          # (out, a, b, n)
    # sink[0] += sum of a[i] for i in range(0, n, stride)   (n counts floats)
    "touch_kernel": ("ptr", "i64", "i64", "ptr"),        # (a, n, stride, sink)
    # sink[0] += sum of a[i] for i < n, read as float4 (n counts floats; a 16-byte aligned)
    "read_kernel": ("ptr", "i64", "ptr"),                # (a, n, sink)
    # a[i] += 1 for i < n
    "increment_kernel": ("ptr", "i32"),                  # (a, n)
    # a[i] = v for i < n
    "fill_kernel": ("ptr", "f32", "i64"),                # (a, v, n)
}

FILENAME = "umkit_kernels.cu"
_cache: str | None = None


def source_path() -> Path | None:
    """Where the .cu file is: the installed package, else ``<repo>/kernels/``."""
    try:
        from importlib.resources import files
        p = files("umkit._kernels").joinpath(FILENAME)
        if p.is_file():
            return Path(str(p))
    except (ModuleNotFoundError, ImportError, TypeError):
        pass
    p = Path(__file__).resolve().parents[2] / "kernels" / FILENAME
    return p if p.is_file() else None


def source() -> str:
    """The text of ``umkit_kernels.cu``."""
    global _cache
    if _cache is None:
        text = None
        try:
            from importlib.resources import files
            text = files("umkit._kernels").joinpath(FILENAME).read_text(encoding="utf-8")
        except (ModuleNotFoundError, ImportError, FileNotFoundError, OSError, TypeError):
            fallback = Path(__file__).resolve().parents[2] / "kernels" / FILENAME
            if fallback.is_file():
                text = fallback.read_text(encoding="utf-8")
        if text is None:
            raise FileNotFoundError(
                f"{FILENAME} not found: neither the package umkit._kernels nor "
                f"<repo>/kernels/{FILENAME} is there (reinstall umkit)")
        _cache = text
    return _cache
