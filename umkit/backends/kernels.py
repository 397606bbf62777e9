"""umkit's kernels: their parameter kinds and their source.

The source lives in ``kernels/umkit_kernels.cu`` (shipped as the package ``umkit._kernels``):
one file that NVRTC and hiprtc both compile.  :data:`SPECS` gives each kernel's parameters as
kinds, so a backend can convert Python arguments before launching (the GPU backends turn them
into NumPy scalars for CuPy; the sim backend runs a NumPy twin of each kernel).

Kinds: ``ptr`` (an address: a plain ``int``), ``i32``, ``i64``, ``f32``.
"""
from __future__ import annotations

from pathlib import Path

# the kernels' signatures are part of the backend contract; named here too, beside their source
from .contract import PARAM_KINDS, SPECS  # noqa: F401

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
