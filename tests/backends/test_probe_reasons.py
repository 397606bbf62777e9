"""A machine with no GPU hears that it has no GPU driver, not that it should install Python
packages that could not help (the newcomer's no-GPU laptop)."""
from __future__ import annotations

import builtins
import io

import umkit
from umkit.backends import registry
from umkit.runtime import lang


def _no_module(monkeypatch, name):
    real = builtins.__import__

    def fake(mod, *a, **k):
        if mod == name or mod.startswith(name + "."):
            raise ImportError(f"No module named {mod!r}")
        return real(mod, *a, **k)
    monkeypatch.setattr(builtins, "__import__", fake)


def test_no_nvidia_driver_is_the_reason_before_missing_bindings(monkeypatch):
    _no_module(monkeypatch, "cuda")
    monkeypatch.setattr(registry, "cuda_driver_present", lambda: False)
    ok, why = registry.probe("cuda")
    assert not ok and why == registry.NO_CUDA_DRIVER and "pip" not in why
    monkeypatch.setattr(registry, "cuda_driver_present", lambda: True)
    ok, why = registry.probe("cuda")                  # a driver: then the bindings are the fix
    assert not ok and "cuda-bindings not installed" in why


def test_no_amd_driver_is_the_reason_before_missing_hip_python(monkeypatch):
    _no_module(monkeypatch, "hip")
    monkeypatch.setattr(registry.os.path, "exists", lambda p: False)
    ok, why = registry.probe("hip")
    assert not ok and "no AMD GPU driver" in why and "pip" not in why


def test_the_new_reasons_are_translated():
    for en in (registry.NO_CUDA_DRIVER, "no AMD GPU driver on this machine (/dev/kfd not found)"):
        lang.set_language("zh")
        try:
            assert lang.tr(en) != en
        finally:
            lang.set_language("en")


def test_explain_as_a_cells_last_value_shows_once():
    text = umkit.explain("hipErrorOutOfMemory", file=io.StringIO())
    assert isinstance(text, str) and "hipErrorOutOfMemory" in text
    shown = getattr(text, "_ipython_display_")          # what Jupyter calls for a cell's value
    assert shown() is None                              # it shows nothing more
