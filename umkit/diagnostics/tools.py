"""The doctor's seam to the machine: device files, the backend registry, the ROCm install.
Tests replace these functions (``monkeypatch.setattr(tools, "exists", ...)``) to play a machine
the doctor has never seen."""
from __future__ import annotations

import importlib
import os


def exists(path: str) -> bool:
    """Whether ``path`` (a device file such as /dev/kfd) exists."""
    return os.path.exists(path)


def registry():
    """The backend registry (imported when the doctor asks, so a broken install is reported,
    not raised)."""
    return importlib.import_module("umkit.backends.registry")


def rocm_version() -> str | None:
    """The ROCm version of $ROCM_PATH or /opt/rocm (its .info/version), or None."""
    roots = [os.environ.get("ROCM_PATH"), "/opt/rocm"]
    for root in filter(None, roots):
        try:
            with open(os.path.join(root, ".info", "version")) as f:
                return f.read().strip() or None
        except OSError:
            continue
    return None


#: PCI class codes of a GPU: display controller (0x03xxxx), processing accelerator (0x12xxxx)
_GPU_CLASSES = ("0x03", "0x12")


def amd_gpu_on_pci(root: str = "/sys/bus/pci/devices") -> bool | None:
    """Whether the PCI bus shows an AMD GPU (vendor 0x1002, a display or accelerator class),
    whatever its driver; None where the bus can't be read (not Linux, a sandbox)."""
    try:
        names = os.listdir(root)
    except OSError:
        return None
    for name in names:
        try:
            with open(os.path.join(root, name, "vendor")) as f:
                vendor = f.read().strip().lower()
            with open(os.path.join(root, name, "class")) as f:
                cls = f.read().strip().lower()
        except OSError:
            continue
        if vendor == "0x1002" and cls.startswith(_GPU_CLASSES):
            return True
    return False
