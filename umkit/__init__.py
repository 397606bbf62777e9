"""umkit: GPU unified (managed) memory -- hipMallocManaged / cudaMallocManaged -- taught and made
usable, over three backends: ``hip``, ``cuda`` and ``sim`` (a calibrated CPU model).

    import umkit
    a = umkit.managed(1 << 20)          # one pointer, both sides (§3.1)
    a.host[:] = 1                       # CPU writes
    a.prefetch("gpu")                   # inhale (§2.3)
    umkit.increment(a); umkit.synchronize()
    print(a.host[:4], umkit.counters())

This module is the learner's API and nothing else.  The rest of the kit is in subpackages,
imported the first time they are used: ``umkit.ecg`` (the memory ECG, 显存心电图),
``umkit.workloads``, ``umkit.names`` (the HIP<->CUDA table), ``umkit.widgets``,
``umkit.exercises``, ``umkit.examples``, ``umkit.torch``, ``umkit.measure`` (calibration),
``umkit.diagnostics`` (the doctor, explain), ``umkit.plan`` (the access-owner table of your
loop).
"""
import sys as _sys


def _command_line_guard():
    """Run as the command line (the ``umkit`` script, ``python -m umkit.cli``), Ctrl-C while
    this package is still importing ends with one line and exit status 130, as Ctrl-C during a
    command does (``umkit.cli.main`` puts Python's own handler back when it starts).  Imported
    anywhere else -- a notebook's kernel, a script -- nothing changes: KeyboardInterrupt.  It
    runs before anything else this package imports, with the interpreter's own ``_signal`` (the
    ``signal`` module would first import ``enum``), so the window in which Ctrl-C still prints
    Python's traceback is the interpreter's start-up only."""
    import _signal as signal
    import os
    argv = getattr(_sys, "argv", None) or [""]
    if argv[0] == "-m":                      # python -m X: X's packages are being imported
        orig = list(getattr(_sys, "orig_argv", ()))
        first = next((i for i, a in enumerate(orig) if a.startswith("-m")), None)
        mod = None if first is None else (orig[first][2:] or "".join(orig[first + 1:first + 2]))
        cli = mod == "umkit.cli"
    else:
        main_file = getattr(_sys.modules.get("__main__"), "__file__", None) or ""
        cli = os.path.basename(argv[0]) == os.path.basename(main_file) == "umkit"
    if not cli:
        return

    def interrupted(signum, frame):
        signal.signal(signal.SIGINT, signal.SIG_IGN)     # a second Ctrl-C while we leave
        try:
            print("\numkit: interrupted (Ctrl-C) while starting", file=_sys.stderr, flush=True)
        finally:
            raise SystemExit(130)
    interrupted.umkit_import_guard = True    # how umkit.cli.main knows it (and replaces it)
    try:
        signal.signal(signal.SIGINT, interrupted)
    except ValueError:                       # not the main thread: not the command line
        pass


_command_line_guard()
del _command_line_guard

import importlib as _importlib  # noqa: E402
import importlib.abc as _abc  # noqa: E402
import importlib.util as _util  # noqa: E402

from .version import __version__  # noqa: F401
# Names imported here but left out of __all__ (Location, why, Residency, array_module,
# kernel_device, sim_profile, Kernel) are the root's advanced names: reachable as umkit.NAME for
# the notebooks and power users, kept out of ``from umkit import *`` and the short list.
from .backends.contract import CPU, Location  # noqa: F401 (Location: an advanced name)
from .validate import gpu
from .errors import (BackendError, BackendUnavailable, InvalidArgument, InvalidType, NotManaged,
                     OutOfMemory, RaceDetected, RaceWarning, UmkitError, UseAfterFree)
from .memory.array import Array
from .memory.pool import MemoryPool
from .runtime import backend, backend_name, use, using, why  # noqa: F401 (why: advanced)
from .api import (Event, Residency, Stream, add, advise, allow_oversubscription, array_module,  # noqa: F401,E501 (advanced names)
                  attributes, capabilities, copy, counters, counters_off, counters_on,
                  device_array, device_count, empty, fill, increment, kernel_device, managed,
                  mem_info, now, pageable, pinned, prefetch, read_back, reset_counters,
                  residency, sim_profile, synchronize, timer, touch, trace)
from .user_kernels import Kernel, kernel  # noqa: F401 (Kernel: an advanced name)

__all__ = [
    # memory
    "Array", "MemoryPool", "empty", "managed", "device_array", "pinned", "pageable", "copy",
    "read_back", "fill", "increment", "add", "touch", "kernel",
    # migration
    "prefetch", "advise", "attributes", "residency", "CPU", "gpu",
    # streams, events, time
    "Stream", "Event", "synchronize", "timer", "now",
    # devices and backends
    "use", "using", "backend", "backend_name", "capabilities", "mem_info", "device_count",
    "allow_oversubscription", "doctor",
    # the driver's view, and help
    "counters", "counters_on", "counters_off", "reset_counters", "trace", "explain",
    # errors and warnings
    "UmkitError", "InvalidArgument", "InvalidType", "BackendUnavailable", "BackendError",
    "OutOfMemory", "UseAfterFree", "NotManaged", "RaceDetected", "RaceWarning",
]

#: subpackages and modules reached as ``umkit.NAME``, imported on first use
LAZY_MODULES = {
    "ecg": "umkit.ecg", "workloads": "umkit.workloads", "names": "umkit.backends.names",
    "measure": "umkit.measure", "diagnostics": "umkit.diagnostics", "teaching": "umkit.teaching",
    "interop": "umkit.interop", "sim": "umkit.sim", "backends": "umkit.backends",
    "memory": "umkit.memory", "runtime": "umkit.runtime", "api": "umkit.api",
    "errors": "umkit.errors", "validate": "umkit.validate", "cli": "umkit.cli",
    "user_kernels": "umkit.user_kernels", "results": "umkit.results", "plan": "umkit.plan",
}
#: functions of the help layer, imported on first use
LAZY_FUNCTIONS = {"doctor": ("umkit.diagnostics.doctor", "doctor"),
                  "explain": ("umkit.diagnostics.explain", "explain"),
                  "port_check": ("umkit.diagnostics.portcheck", "port_check")}
#: short names notebooks import (``import umkit.widgets``, ``from umkit.exercises import nb05``)
#: for modules that live deeper in the package
ALIASES = {"umkit.widgets": "umkit.teaching.widgets",
           "umkit.exercises": "umkit.teaching.exercises",
           "umkit.examples": "umkit.teaching.examples",
           "umkit.torch": "umkit.interop.torch",
           "umkit.names": "umkit.backends.names"}


def _target(name):
    for short, real in ALIASES.items():
        if name == short or name.startswith(short + "."):
            return real + name[len(short):]
    return None


class _AliasFinder(_abc.MetaPathFinder, _abc.Loader):
    """Resolves the short names of :data:`ALIASES` to the modules themselves (one module object
    under two names, so ``umkit.widgets is umkit.teaching.widgets``)."""

    def find_spec(self, name, path=None, target=None):
        real = _target(name)
        if real is None:
            return None
        found = _util.find_spec(real)
        if found is None:
            return None
        spec = _util.spec_from_loader(name, self, origin=found.origin,
                                      is_package=found.submodule_search_locations is not None)
        spec.has_location = found.has_location    # `python -m umkit.examples` gets its __file__
        return spec

    def create_module(self, spec):
        module = _importlib.import_module(_target(spec.name))
        spec.loader_state = module.__spec__     # the import system will overwrite __spec__
        return module

    def exec_module(self, module):
        alias = module.__spec__.name
        module.__spec__ = module.__spec__.loader_state or module.__spec__
        # the submodules loaded already answer to the short name too: importing one of them
        # by it later must not rebind the package's attribute of the same name (the package
        # binds a function there: umkit.widgets.residency_map)
        real = module.__name__
        for name in [n for n in _sys.modules if n.startswith(real + ".")]:
            _sys.modules.setdefault(alias + name[len(real):], _sys.modules[name])

    def get_code(self, name):
        """``python -m umkit.examples`` runs the real module's code."""
        real = _target(name)
        return _util.find_spec(real).loader.get_code(real)


if not any(isinstance(f, _AliasFinder) for f in _sys.meta_path):
    _sys.meta_path.insert(0, _AliasFinder())   # before the path finder, which would load a
    # second copy of a submodule under the short name


def __getattr__(name):
    if name in LAZY_FUNCTIONS:
        mod, attr = LAZY_FUNCTIONS[name]
        value = getattr(_importlib.import_module(mod), attr)
    elif name in LAZY_MODULES:
        value = _importlib.import_module(LAZY_MODULES[name])
    elif "umkit." + name in ALIASES:
        value = _importlib.import_module(ALIASES["umkit." + name])
    else:
        raise AttributeError(f"module 'umkit' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(LAZY_MODULES) | set(LAZY_FUNCTIONS)
                  | {a.split(".")[1] for a in ALIASES})


def _short_tracebacks_in_ipython():
    """In IPython or Jupyter, umkit's typed errors show the learner's frames and the message,
    not umkit's internals (:mod:`umkit.runtime.tracebacks`)."""
    ipython = _sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    if shell is not None:
        from .runtime.tracebacks import install
        install(shell)


_short_tracebacks_in_ipython()


def _figures_in_the_notebooks_language():
    """In IPython or Jupyter, a notebook in Chinese draws its figures' Chinese text
    (:func:`umkit.runtime.lang.use_figure_font`); elsewhere nothing is imported for it."""
    if _sys.modules.get("IPython") is not None:
        from .runtime.lang import use_figure_font
        use_figure_font()


_figures_in_the_notebooks_language()

