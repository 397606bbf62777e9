"""What a backend's methods accept, checked before the backend runs.

The public API validates what learners pass (:mod:`umkit.validate`) and hands a backend the
values it expects.  A backend object is reachable too -- ``umkit.backend()`` returns it -- so
its contract methods (:mod:`umkit.backends.contract`) check their plain arguments the same way:
:func:`checked` wraps each method listed in :data:`ARGUMENTS`, turning a wrong type or range into
a typed error that names the argument (``InvalidType`` / ``InvalidArgument``), and replaces an
instrumented capability the class does not implement with one that says so
(``BackendUnavailable``).  What an argument *refers to* (an address that is no allocation, a
range past its end) stays the backend's to judge, with its own typed errors.

Each backend class is decorated with ``@checked``; the conformance suite asserts it of every
backend, and hostile values at every method give typed errors only.
"""
from __future__ import annotations

import functools
import inspect
import math
from numbers import Real

import numpy as np

from .. import validate as V
from ..errors import BackendUnavailable, InvalidArgument, InvalidType
from .contract import FEATURES, KINDS, MAX_PTR, SPECS, Backend, Instrumented, UserKernel

#: the most threads one block may have (CUDA's and HIP's limit)
MAX_BLOCK = 1024
#: the largest finite float32
F32_MAX = float(np.finfo(np.float32).max)

#: each checked method's arguments, in the contract's order (after ``self``), by kind (below);
#: ``charge_host`` is the simulator's own (a host-side call time by its profile key)
ARGUMENTS: dict[str, tuple[str, ...]] = {
    "device_name": ("device",), "mem_info": ("device",), "capabilities": ("device",),
    "malloc": ("size", "kind", "device"),
    "free": ("ptr", "kind?"), "retire": ("ptr", "kind?"),
    "pageable": ("count",),
    "host_view": ("ptr", "count"), "device_view": ("ptr", "count", "device", "any"),
    "prefetch": ("ptr", "count", "location", "stream"),
    "advise": ("ptr", "count", "advice", "location?", "flag"),
    "range_attributes": ("ptr", "count"),
    "stream_create": ("device",), "stream_destroy": ("stream!",), "default_stream": ("device",),
    "synchronize": ("waitable",),
    "event_create": ("device?",), "event_record": ("event", "stream"),
    "event_elapsed_ms": ("event", "event"), "event_destroy": ("event",),
    "memcpy": ("ptr", "ptr", "count", "stream"),
    "memcpy_pageable": ("ptr", "host", "count", "flag", "stream"),
    "launch": ("kernel", "dim", "dim", "args", "stream"),
    "launch_user": ("user_kernel", "stream"),
    "supports": ("feature",),
    "trace": ("count?",), "snapshot": ("ptr",),
    "counters_start": ("device",), "counters_log": ("flag", "stamps?"),
    "charge_host": ("text",),
}

#: the instrumented methods and the feature each belongs to (:class:`Instrumented`)
INSTRUMENTED = {"counters": "counters", "reset_counters": "counters",
                "counters_clock": "counters_log", "counters_log": "counters_log",
                "trace": "trace", "snapshot": "snapshot",
                "now": "model_time", "model_profile": "model_time"}

_DIM_HINT = "a positive int, or a tuple of 1 to 3 positive ints"


def _device(b, v, name):
    return V.device(v, b, name)


def _location(b, v, name):
    return V.location(v, name, b.device_count())


def _handle(b, v, name, types, what):
    if not isinstance(v, types):
        raise InvalidType(f"{name}={V.short(v)} is not {what} of the {b.name} backend",
                          argument=name,
                          hint="pass a handle this backend made (stream_create(), event_create()), "
                               "or use umkit.Stream / umkit.Event above it")
    return v


def _stream(b, v, name):
    return None if v is None else _handle(b, v, name, tuple(b.stream_types), "a stream")


def _waitable(b, v, name):
    if v is None or isinstance(v, tuple(b.event_types)):
        return v
    return _handle(b, v, name, tuple(b.stream_types), "a stream or an event")


def _dim(b, v, name):
    parts = tuple(v) if isinstance(v, (tuple, list)) else (v,)
    if not 1 <= len(parts) <= 3 or not all(V.is_int(x) for x in parts):
        raise InvalidType(f"{name}={V.short(v)} is not a launch size", argument=name,
                          hint=_DIM_HINT)
    if not all(1 <= int(x) <= (1 << 31) - 1 for x in parts):
        raise InvalidArgument(f"{name}={V.short(v)} is outside 1 .. 2**31-1", argument=name,
                              hint=_DIM_HINT)
    if name == "block" and math.prod(int(x) for x in parts) > MAX_BLOCK:
        raise InvalidArgument(f"block={V.short(v)} is more than {MAX_BLOCK} threads",
                              argument=name, hint=f"at most {MAX_BLOCK} threads in a block, "
                                                  "as on every CUDA and HIP GPU")
    return v if isinstance(v, (tuple, list)) else int(v)


def _kernel(b, v, name):
    return V.choice(v, name, tuple(SPECS), hint=f"one of umkit's kernels: {sorted(SPECS)}")


def _args(b, v, name):
    if not isinstance(v, (tuple, list)):
        raise InvalidType(f"{name}={V.short(v)} must be a tuple of the kernel's arguments",
                          argument=name, hint="e.g. (ptr, n) for increment_kernel")
    return tuple(v)


def _user_kernel(b, v, name):
    if not isinstance(v, UserKernel):
        raise InvalidType(f"{name}={V.short(v)} is not a UserKernel", argument=name,
                          hint="build kernels with umkit.kernel(...) and launch them by calling "
                               "them")
    return v


def _host(b, v, name):
    if not isinstance(v, np.ndarray) or not v.flags.c_contiguous or v.dtype.hasobject:
        raise InvalidType(f"{name}={V.short(v)} must be a C-contiguous NumPy array of numbers",
                          argument=name, hint="pass np.ascontiguousarray(a) of a numeric dtype")
    return v


def _stamps(b, v, name):
    return None if v is None else V.reals(v, name, hint="times of counters_clock()")


CHECKS = {
    "device": _device,
    "device?": lambda b, v, n: None if v is None else _device(b, v, n),
    "size": lambda b, v, n: V.nbytes(v, n),
    "count": lambda b, v, n: V.integer(v, n, lo=0, hi=V.MAX_BYTES,
                                       hint="a number of bytes, 0 or more"),
    "count?": lambda b, v, n: None if v is None else V.integer(v, n, lo=0, hi=1 << 62,
                                                               hint="a count, 0 or more"),
    "ptr": lambda b, v, n: V.integer(v, n, lo=0, hi=MAX_PTR,
                                     hint="an address umkit gave (arr.ptr)"),
    "kind": lambda b, v, n: V.choice(v, n, KINDS),
    "kind?": lambda b, v, n: None if v is None else V.choice(v, n, KINDS),
    "location": _location,
    "location?": lambda b, v, n: None if v is None else _location(b, v, n),
    "advice": lambda b, v, n: V.advice(v),
    "flag": lambda b, v, n: V.flag(v, n),
    "stream": _stream,
    "stream!": lambda b, v, n: _handle(b, v, n, tuple(b.stream_types), "a stream"),
    "event": lambda b, v, n: _handle(b, v, n, tuple(b.event_types), "an event"),
    "waitable": _waitable,
    "kernel": _kernel, "dim": _dim, "args": _args, "user_kernel": _user_kernel,
    "host": _host,
    "feature": lambda b, v, n: V.choice(v, n, FEATURES),
    "stamps?": _stamps,
    "text": lambda b, v, n: V.string(v, n),
    "any": lambda b, v, n: v,
}


def _launch_args(kernel: str, args: tuple) -> None:
    """``args`` against the kernel's signature (:data:`SPECS`): one per parameter, an int for
    ``ptr``/``i32``/``i64`` (in range; the ints are counts, 0 or more), a finite real for
    ``f32``.  Whether each pointer's span lies in an allocation is the backend's to check
    (:func:`~umkit.backends.contract.kernel_spans`)."""
    spec = SPECS[kernel]
    if len(args) != len(spec):
        raise InvalidArgument(f"{kernel} takes {len(spec)} arguments {spec}, got {len(args)}",
                              argument="args", hint=f"pass {len(spec)} values in that order")
    # every int parameter of umkit's kernels is a count (n, stride): 0 or more
    bits = {"ptr": (0, MAX_PTR), "i32": (0, (1 << 31) - 1), "i64": (0, (1 << 63) - 1)}
    for i, (k, a) in enumerate(zip(spec, args)):
        if k in bits:
            V.integer(a, f"args[{i}]", lo=bits[k][0], hi=bits[k][1],
                      hint=f"{kernel}'s argument {i} is a {k}")
        elif isinstance(a, (bool, np.bool_)) or not isinstance(a, Real) \
                or not math.isfinite(float(a)):
            raise InvalidType(f"args[{i}]={V.short(a)} must be a finite number", argument="args",
                              hint=f"{kernel}'s argument {i} is a {k}")
        elif abs(float(a)) > F32_MAX:
            raise InvalidArgument(f"args[{i}]={V.short(a)} is beyond float32's range",
                                  argument="args", hint=f"{kernel}'s argument {i} is a {k}: "
                                                        f"at most {F32_MAX:.4g} in size")
    if kernel == "read_kernel" and int(args[0]) % 16:
        raise InvalidArgument(f"read_kernel reads float4s: args[0]={int(args[0]):#x} is not "
                              "16-byte aligned", argument="args",
                              hint="pass the start of an allocation (arr.ptr)")


def _together(method: str, got: dict) -> None:
    """Checks that take two arguments at once (by the contract's names)."""
    if method == "launch" and "kernel" in got and "args" in got:
        _launch_args(got["kernel"], got["args"])
    elif method == "advise" and got.get("where", None) is None \
            and got.get("advice") in ("preferred_location", "accessed_by"):
        raise InvalidArgument(f"advice {got['advice']!r} needs where= (the location it names)",
                              argument="where", hint="pass where=umkit.CPU or umkit.gpu(i)")
    elif method == "memcpy_pageable" and "host" in got and "nbytes" in got:
        if got["host"].nbytes < got["nbytes"]:
            raise InvalidArgument(f"host holds {got['host'].nbytes} B, fewer than nbytes="
                                  f"{got['nbytes']}", argument="nbytes",
                                  hint="copy at most host.nbytes bytes")
        if got.get("to_array") is False and not got["host"].flags.writeable:
            raise InvalidArgument("host is read-only, and the copy writes into it "
                                  "(to_array=False)", argument="host",
                                  hint="pass a writable array (np.empty(...))")


def _params(fn, n: int) -> list[str]:
    return list(inspect.signature(fn).parameters)[1:1 + n]


def _wrap(fn, method: str, kinds: tuple[str, ...]):
    """``fn`` with its first ``len(kinds)`` arguments checked (by position or by name)."""
    names = _params(fn, len(kinds))
    by_name = dict(zip(names, kinds))
    # the contract's name of each argument (a backend may call it otherwise)
    contract = dict(zip(names, _params(getattr(Backend, method, fn), len(kinds))))

    @functools.wraps(fn)
    def run_checked(self, *args, **kwargs):
        got = {}
        if args:
            args = list(args)
            for i, v in enumerate(args[:len(names)]):
                args[i] = got[contract[names[i]]] = CHECKS[kinds[i]](self, v, names[i])
        for k, v in kwargs.items():
            kind = by_name.get(k)
            if kind is not None:
                kwargs[k] = got[contract[k]] = CHECKS[kind](self, v, k)
        if method in ("launch", "memcpy_pageable", "advise"):
            _together(method, got)
        return fn(self, *args, **kwargs)
    run_checked.__umkit_checked__ = True
    return run_checked


def _unsupported(method: str, feature: str):
    def not_here(self, *args, **kwargs):
        raise BackendUnavailable(f"the {self.name} backend has no {feature!r} ({method}() is "
                                 f"part of it)",
                                 hint=f"ask backend.supports({feature!r}) first")
    not_here.__name__ = method
    not_here.__umkit_checked__ = True
    return not_here


def checked(cls):
    """Class decorator: every method of :data:`ARGUMENTS` checks its arguments; an
    instrumented method the class leaves to :class:`Instrumented` (which raises
    NotImplementedError) says that the backend has no such feature, typed."""
    for method, feature in INSTRUMENTED.items():
        if getattr(cls, method) is getattr(Instrumented, method):
            setattr(cls, method, _unsupported(method, feature))
    for method, kinds in ARGUMENTS.items():
        fn = getattr(cls, method, None)          # charge_host: the model's own (sim)
        if fn is not None and not getattr(fn, "__umkit_checked__", False):
            setattr(cls, method, _wrap(fn, method, kinds))
    return cls


def is_checked(cls) -> bool:
    """Every method of :data:`ARGUMENTS` and :data:`INSTRUMENTED` of ``cls`` is checked (or
    the class's own implementation of an instrumented one)."""
    return all(getattr(getattr(cls, m), "__umkit_checked__", False)
               for m in ARGUMENTS if hasattr(cls, m)) and \
        all(getattr(cls, m) is not getattr(Instrumented, m) for m in INSTRUMENTED)
