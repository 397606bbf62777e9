"""Doors: a subpackage's ``__init__`` is its public door.  It lists the package's public names
(``__all__``) and where each lives, and loads a name from its module on first use (PEP 562's
module ``__getattr__``): importing a package costs nothing, and a door never makes an import
cycle.  A door holds no logic of its own::

    from ..doors import door
    __all__, __getattr__, __dir__ = door(__name__, {
        "load_profile": "costs",        # umkit.sim.costs.load_profile
        "profiles": ".",                # the submodule umkit.sim.profiles itself
    })
"""
from __future__ import annotations

import importlib
import sys


def door(package: str, names: dict[str, str]):
    """``(__all__, __getattr__, __dir__)`` for the package ``package``: ``names`` maps each public
    name to the submodule (relative to the package) that defines it, or to ``"."`` for a
    submodule of that name.  A name is imported on first use and then kept in the package."""
    if not isinstance(package, str) or not isinstance(names, dict):
        raise TypeError("door(package: str, names: dict[str, str])")
    table = dict(names)

    def __getattr__(name: str):
        where = table.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        if where == ".":
            value = importlib.import_module(f"{package}.{name}")
        else:
            value = getattr(importlib.import_module(f"{package}.{where}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(table))

    return sorted(table), __getattr__, __dir__
