"""Which backend is active: auto-detection, ``UMKIT_BACKEND``, and ``use()`` to switch."""
from __future__ import annotations

import gc
import sys

from .backends import detect
from .backends.contract import Backend
from .errors import InvalidArgument

_state: dict = {"backend": None, "name": None, "reason": None, "pool": None}


def use(name: str | None = None, *, quiet: bool = False, **options) -> Backend:
    """Switch backend: ``use('sim', profile='mi250x-xnack1', gpus=2, vram=2**30, strict=True)``,
    ``use('cuda')``, ``use('hip')``, or ``use()`` to auto-detect (GPU when usable, else sim).

    sim options: ``profile`` (name or JSON path), ``gpus``, ``strict`` (races raise instead of
    warn), ``prefetcher`` (NVIDIA density prefetcher on/off) and any profile parameter as an
    override (e.g. ``vram=2**30`` to demonstrate oversubscription)."""
    if name is not None and not isinstance(name, str):
        raise InvalidArgument(f"backend name {name!r} must be a string",
                              hint=f"one of {detect.NAMES}, or None to auto-detect")
    chosen, reason = detect.choose(name.lower() if name else None)
    gc.collect()      # arrays of the previous backend in reference cycles go now, not at random
    hw_counters = options.pop("counters", False)   # sim counts always; GPUs: CUPTI when asked
    if not isinstance(hw_counters, bool):
        raise InvalidArgument(f"counters={hw_counters!r} must be True or False",
                              hint="umkit.use('cuda', counters=True) starts CUPTI's counters")
    if chosen == "sim":
        from .sim.backend import SimBackend
        b = SimBackend(**options)
    else:
        if options:
            raise InvalidArgument(f"options {sorted(options)} only apply to the sim backend",
                                  hint=f"call umkit.use({chosen!r}) without options "
                                       "(counters=True is the one GPU option)")
        b = detect.create(chosen)
        if hw_counters:
            b.counters_start(0)
    _state.update(backend=b, name=chosen, reason=reason, pool=None)
    if chosen == "sim" and name is None and not quiet:
        print(f"umkit: using the sim backend ({reason}); "
              "set UMKIT_BACKEND or call umkit.use('cuda'|'hip') to change", file=sys.stdout)
    return b


def backend() -> Backend:
    """The active backend (auto-detected on first use)."""
    if _state["backend"] is None:
        use()
    return _state["backend"]


def backend_name() -> str:
    backend()
    return _state["name"]


def why() -> str:
    """Why the active backend was chosen."""
    backend()
    return _state["reason"]
