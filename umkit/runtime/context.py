"""The runtime context: the one owner of umkit's process state.

It holds the active backend (with the name, the reason it was chosen and the options it was
made with), the ``umkit.allow_oversubscription`` setting, the learner's language as
``umkit.use(..., lang=...)`` chose it (:mod:`.lang` reads it), the pool that ``with pool:`` made
current, and per-backend resources (the read-back staging buffers, the touch sinks).  Every
module asks it through its methods; none reads another module's private state.

Threading contract
------------------
* ``umkit.use(...)`` sets the process-wide backend; it takes the context's lock, so two threads
  switching at once get one or the other, never a half-made state.  Arrays, streams and events
  keep the backend they were made on, so switching never disturbs work already running on the
  previous backend (e.g. the strategy panel's thread).
* ``with umkit.using("sim", ...):`` switches the backend for the *current thread* (strictly: the
  current ``contextvars`` context) only; other threads keep seeing the process-wide backend.
  A thread started inside the block does not inherit it.
* ``umkit.use(..., lang="zh")`` (``umkit.runtime.lang.set_language``) chooses the language for
  the process, under the context's lock; ``None`` gives the choice back to ``UMKIT_LANG`` and the
  workspace's marker.
* ``with pool:`` makes a :class:`~umkit.MemoryPool` current for the current thread only, as
  CuPy's ``using_allocator`` does.
* Allocating, freeing, reading back, prefetching, launching and synchronizing may be called from
  several threads at once; each thread gets its own data (the pool and the staging buffers are
  locked, and a staging buffer is lent to one ``read_back`` at a time).  Ordering *between*
  threads is yours to arrange: a stream is not a lock.
"""
from __future__ import annotations

import contextlib
import contextvars
import gc
import os
import sys
import threading
import weakref
from dataclasses import dataclass, field

from ..backends import registry
from ..backends.contract import Backend
from ..errors import InvalidArgument
from . import lang as _lang
from .lang import tr


#: the attribute of a backend its per-backend resources live in (:meth:`Runtime.resource`)
RESOURCES_ATTRIBUTE = "umkit_resources"


@dataclass(frozen=True)
class Active:
    """A chosen backend: the instance, its name, why it was chosen, the options it got."""
    backend: Backend
    name: str
    reason: str
    options: dict = field(default_factory=dict)


class Runtime:
    """umkit's process state, behind one lock (see the module's threading contract)."""

    def __init__(self):
        self._lock = threading.RLock()
        self._active: Active | None = None
        self._using: contextvars.ContextVar = contextvars.ContextVar("umkit_using", default=None)
        self._pool: contextvars.ContextVar = contextvars.ContextVar("umkit_pool", default=None)
        self._allow_oversubscription = False
        self._language: str | None = None
        self._backends: weakref.WeakSet = weakref.WeakSet()
        self._resources: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    # -- choosing a backend -------------------------------------------------------------------------
    def _make(self, name: str | None, options: dict) -> Active:
        from ..validate import shown
        if name is not None and not isinstance(name, str):
            raise InvalidArgument(f"backend name {shown(name)} must be a string", argument="name",
                                  hint=f"one of {registry.NAMES}, or None to auto-detect")
        chosen, reason = registry.choose(name.lower() if name else None)
        options = dict(options)
        hw_counters = options.pop("counters", False)   # sim counts always; GPUs: CUPTI if asked
        if not isinstance(hw_counters, bool):
            raise InvalidArgument(f"counters={shown(hw_counters)} must be True or False",
                                  argument="counters",
                                  hint="umkit.use('cuda', counters=True) starts CUPTI's counters")
        if chosen == "sim":
            b = registry.create("sim", **_sim_options(options))
        else:
            if options:
                raise InvalidArgument(f"options {sorted(options)} only apply to the sim backend",
                                      hint=f"call umkit.use({chosen!r}) without options "
                                           "(counters=True is the one GPU option)")
            b = registry.create(chosen)
            if hw_counters:
                b.counters_start(0)
        b.allow_oversubscription = self._allow_oversubscription
        with self._lock:
            self._backends.add(b)
        return Active(b, chosen, reason, dict(options))

    def use(self, name: str | None = None, *, quiet: bool = False, **options) -> Backend:
        """Set the process-wide backend (see ``umkit.use``)."""
        from .. import validate as V
        quiet = V.flag(quiet, "quiet")
        gc.collect()      # arrays of the previous backend in reference cycles go now, not at random
        act = self._make(name, options)
        with self._lock:
            self._active = act
        if act.name == "sim" and name is None and not quiet:
            if act.reason.startswith("no GPU backend usable"):   # the long why: umkit.why()
                print(tr("umkit: no usable GPU here, so umkit runs on the sim backend (a CPU model "
                         "of a GPU); umkit.why() says what is missing, umkit.use('cuda'|'hip') "
                         "switches"), file=sys.stdout)
            else:
                print(tr(f"umkit: using the sim backend ({act.reason}); "
                         "set UMKIT_BACKEND or call umkit.use('cuda'|'hip') to change"),
                      file=sys.stdout)
        return act.backend

    @contextlib.contextmanager
    def using(self, name: str | None = None, **options):
        """Switch the backend for this thread's block; the previous one comes back after."""
        act = self._make(name, options)
        with self._scoped(Active(act.backend, act.name,
                                 f"{act.reason}; inside a umkit.using(...) block", act.options)):
            yield act.backend

    @contextlib.contextmanager
    def using_backend(self, backend: Backend, name: str, reason: str):
        """This thread's block runs on ``backend``, an instance built outside the registry (a
        test's stand-in GPU, say); the previous backend comes back after."""
        with self._scoped(Active(backend, name, reason, {})):
            yield backend

    @contextlib.contextmanager
    def _scoped(self, act: Active):
        token = self._using.set(act)
        try:
            yield
        finally:
            self._using.reset(token)

    def active(self) -> Active:
        """The backend this thread sees: a ``using`` block's, else the process-wide one
        (auto-detected on first use)."""
        act = self._using.get()
        if act is not None:
            return act
        act = self._active
        if act is None:
            with self._lock:
                if self._active is None:
                    self.use()
                act = self._active
        return act

    def peek(self) -> Active | None:
        """The active backend if one was chosen already (never starts detection)."""
        return self._using.get() or self._active

    # -- settings ------------------------------------------------------------------------------------
    def allow_oversubscription(self, flag: bool) -> None:
        with self._lock:
            self._allow_oversubscription = flag
            for b in list(self._backends):
                b.allow_oversubscription = flag

    # -- the learner's language --------------------------------------------------------------------
    def choose_language(self, lang: str | None) -> None:
        """Record the language ``umkit.use(lang=...)`` chose (already checked and normalized by
        :func:`umkit.runtime.lang.set_language`), or None for the environment's."""
        with self._lock:
            self._language = lang

    def chosen_language(self) -> str | None:
        return self._language

    @property
    def oversubscription_allowed(self) -> bool:
        return self._allow_oversubscription

    # -- the current pool (per thread, as CuPy's using_allocator) -------------------------------------
    def current_pool(self):
        return self._pool.get()

    def push_pool(self, pool) -> contextvars.Token:
        return self._pool.set(pool)

    def pop_pool(self, token: contextvars.Token) -> None:
        self._pool.reset(token)

    # -- per-backend resources ----------------------------------------------------------------------
    def resource(self, backend: Backend, key: str, factory):
        """The object ``key`` kept for ``backend`` (made by ``factory(backend)`` on first use;
        dropped with the backend).

        The objects usually hold their backend (a staging pool allocates from it, a touch sink
        is an Array on it), so they are kept *on* the backend (``RESOURCES_ATTRIBUTE``), not in
        a table of this runtime: a table's values would keep every backend ever used alive.
        Backend and resources then form a cycle that the garbage collector frees once nothing
        else holds the backend.  A backend without a ``__dict__`` keeps them in a weak table
        (its resources must then not hold it)."""
        with self._lock:
            per = getattr(backend, "__dict__", {}).get(RESOURCES_ATTRIBUTE)
            if per is None:
                try:
                    per = vars(backend).setdefault(RESOURCES_ATTRIBUTE, {})
                except TypeError:
                    per = self._resources.get(backend)
                    if per is None:
                        per = self._resources[backend] = {}
            obj = per.get(key)
            if obj is None:
                obj = per[key] = factory(backend)
            return obj

    def resources_of(self, backend: Backend) -> dict:
        """The resources kept for ``backend`` so far, by key (a copy)."""
        with self._lock:
            per = getattr(backend, "__dict__", {}).get(RESOURCES_ATTRIBUTE)
            if per is None:
                per = self._resources.get(backend, {})
            return dict(per)


def _sim_options(options: dict) -> dict:
    """``umkit.use('sim', ...)``'s options, checked here (the simulator below only asserts);
    profile overrides (``vram=...``) are checked field by field by the profile loader."""
    from .. import validate as V
    out = dict(options)
    if "gpus" in out:
        out["gpus"] = V.integer(out["gpus"], "gpus", lo=1, hi=7,
                                hint="pass gpus= between 1 and 7, e.g. umkit.use('sim', gpus=2)")
    for k in ("strict", "prefetcher", "compute"):
        if k in out:
            out[k] = V.flag(out[k], k)
    prof = out.get("profile")
    if prof is not None and not isinstance(prof, (str, os.PathLike)):
        from ..sim import Profile, available_profiles
        if not isinstance(prof, Profile):
            from ..errors import InvalidType
            raise InvalidType(f"profile={V.shown(prof)} must be a profile name or a JSON path",
                              argument="profile", hint=f"use one of {available_profiles()}")
    return out


#: the one runtime context of this process
RUNTIME = Runtime()
_lang.attach(RUNTIME)
