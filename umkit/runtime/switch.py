"""Switching the active backend: ``use()``, ``using()`` for a block, and what is active now
(``backend()``, ``backend_name()``, ``why()``).  The state itself is the runtime context
(:mod:`umkit.runtime.context`)."""
from __future__ import annotations

from ..backends.contract import Backend
from ..errors import InvalidArgument
from .context import RUNTIME
from . import lang  # noqa: F401 - installs the translator umkit's errors print through


def use(name: str | None = None, *, quiet: bool = False, lang: str | None = None,
        **options) -> Backend:
    """Switch backend: ``use('sim', profile='mi250x-xnack1', gpus=2, vram=2**30, strict=True)``,
    ``use('cuda')``, ``use('hip')``, or ``use()`` to auto-detect (GPU when usable, else sim).

    sim options: ``profile`` (name or JSON path), ``gpus``, ``strict`` (races raise instead of
    warn), ``prefetcher`` (NVIDIA density prefetcher on/off) and any profile parameter as an
    override (e.g. ``vram=2**30`` to demonstrate oversubscription).

    Process-wide: every thread sees the new backend (arrays keep the backend they were made
    on).  To switch for one block of one thread use :func:`using`.

    ``lang="zh"`` (or ``"en"``) also sets the language umkit prints in for this process
    (:mod:`umkit.runtime.lang`; default: ``UMKIT_LANG``, the workspace's, or English); when
    the switch fails (an unknown backend, a bad option) the language stays as it was.
    ``use(lang="zh")`` alone (no name, no options) only switches the language: the backend
    already chosen, with its profile and options, stays."""
    if lang is None:
        return RUNTIME.use(name, quiet=quiet, **options)
    from .lang import chosen, set_language
    before = chosen()
    set_language(lang)        # checked first; the switch's own messages speak the new language
    if name is None and not options:
        act = RUNTIME.peek()
        if act is not None:   # a language switch keeps the session's backend and profile
            return act.backend
    try:
        return RUNTIME.use(name, quiet=quiet, **options)
    except BaseException:     # a switch that failed changes nothing, the language included
        set_language(before)
        raise


def using(name: str | None = None, **options):
    """``with umkit.using("sim", profile="mi300a"):`` -- the block (this thread only) runs on
    a fresh backend; the previous one is active again afterwards.  Yields the backend.  The
    language is the process's, not the block's: ``umkit.use(..., lang=...)`` sets it."""
    if "lang" in options:
        raise InvalidArgument("using() switches the backend for a block, not the language "
                              "(lang= is umkit.use's)", argument="lang",
                              hint="umkit.use('sim', lang='zh') before the block")
    return RUNTIME.using(name, **options)


def backend() -> Backend:
    """The active backend (auto-detected on first use)."""
    return RUNTIME.active().backend


def backend_name() -> str:
    return RUNTIME.active().name


def why() -> str:
    """Why the active backend was chosen (in the learner's language: ``lang.tr``)."""
    return lang.tr(RUNTIME.active().reason)
