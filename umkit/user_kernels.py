"""Your own kernels: CUDA/HIP source on the GPU backends, a NumPy twin on sim.

    mm = umkit.kernel("matmul", source=CUDA_SOURCE, sim=numpy_matmul)
    mm((n // 32, n // 32), (32, 32), (C, A, B, np.uint32(n)),
       reads={A: n / 32, B: n / 32}, writes=[C], flops=2 * n**3)

On ``cuda``/``hip`` the source is compiled (NVRTC / hiprtc through CuPy's RawModule) and
launched on the stream; umkit Arrays become device pointers.  On ``sim`` the twin computes the
result on NumPy views of the same arrays, and the kernel *declares* its cost beyond one pass
over its arrays, since sim cannot see inside it:

* ``reads={array: times}`` -- how many times the kernel reads each input (a tiled matrix
  multiply with tile ``t`` reads each input about ``n / t`` times).  Every Array argument not
  named in ``writes`` is read once by default.
* ``writes=[arrays]`` -- the outputs (written once).
* ``flops`` -- its arithmetic.

sim charges faults/migration for the pages touched (once), then
``max(bytes moved through memory / bandwidth, flops / compute rate)``: whichever of memory and
arithmetic bounds the kernel (the profile's ``fp32_flops``, a datasheet *peak*, so the compute
side is a lower bound).
"""
from __future__ import annotations

import numbers
from typing import Callable

import numpy as np

from .backends.contract import Buffer, UserKernel
from .errors import InvalidArgument, InvalidType
from .memory.array import Array
from .runtime import backend
from .runtime.streams import kernel_stream


class Kernel:
    """A learner's kernel; call it with ``(grid, block, args, *, stream, reads, writes, flops)``."""

    def __init__(self, name: str, source: str | None = None, *, sim: Callable | None = None):
        if not isinstance(name, str) or not name.isidentifier():
            from .validate import shown
            raise InvalidArgument(f"name={shown(name)} must be the kernel's C identifier",
                                  hint='e.g. umkit.kernel("matmul", source=..., sim=...)')
        if source is not None and not isinstance(source, str):
            raise InvalidType("source must be the kernel's CUDA/HIP source text (a str)")
        if sim is not None and not callable(sim):
            raise InvalidType("sim must be a function (the NumPy twin)",
                              hint="sim(*args) gets NumPy views of the Arrays and the scalars")
        self.name, self.source, self.sim = name, source, sim

    def __repr__(self):
        return f"umkit.kernel({self.name!r})"

    def __call__(self, grid, block, args, *, stream=None, reads=None, writes=(), flops=0):
        grid, block = _dims(grid, "grid"), _dims(block, "block")
        from . import validate as V
        if not isinstance(args, (tuple, list)):
            raise InvalidType("args must be a tuple of umkit Arrays and numbers", argument="args",
                              hint="e.g. (C, A, B, np.uint32(n))")
        arrays = [a for a in args if isinstance(a, Array)]
        for a in args:
            if isinstance(a, (bool, np.bool_)) or not isinstance(a, (Array, numbers.Number,
                                                                       np.generic)):
                raise InvalidType(f"kernel argument {V.short(a)} is neither a umkit Array nor a "
                                  "number", argument="args",
                                  hint="pass umkit arrays (they become pointers) and numbers; "
                                       "booleans as np.int32(0/1)")
        if not arrays:
            raise InvalidArgument("a kernel needs at least one umkit Array argument in args",
                                  argument="args", hint="e.g. (C, A, B, np.uint32(n))")
        for a in arrays:
            a.check_alive(f"kernel {self.name}")
        b = arrays[0].backend
        if any(a.backend is not b for a in arrays):
            raise InvalidArgument("the arrays in args belong to different backends",
                                  argument="args",
                                  hint="allocate them all after the last umkit.use(...)")
        if isinstance(writes, Array):
            writes = (writes,)
        writes = list(V.sequence(writes, "writes", hint="writes=(C,): the Arrays the kernel "
                                                        "writes"))
        if any(not isinstance(w, Array) or all(w is not a for a in arrays) for w in writes):
            raise InvalidArgument("writes= must list Arrays that are arguments of the kernel",
                                  argument="writes", hint="e.g. writes=(C,)")
        if reads is None:
            reads = {}
        if not isinstance(reads, dict):
            raise InvalidType("reads= must be a dict {array: times read}", argument="reads",
                              hint="e.g. reads={A: n / 32, B: n / 32}")
        for a, times in reads.items():
            if all(a is not x for x in arrays):
                raise InvalidArgument("reads= names an Array that is not a kernel argument",
                                      argument="reads", hint="e.g. reads={A: n / 32}")
            V.real(times, "reads", lo=0.0, hint="times each array is read, e.g. reads={A: 2}")
        flops = V.real(flops, "flops", lo=0.0,
                       hint="the kernel's arithmetic, e.g. 2 * n**3 for a matmul")
        # what each array costs: (array, times read, written?)
        cost = []
        for a in _unique(arrays):
            w = any(a is x for x in writes)
            r = next((t for k, t in reads.items() if k is a), 0.0 if w else 1.0)
            cost.append((a, float(r), w))
        handle = kernel_stream(stream, arrays[0])
        if b.supports("model_time"):        # a model runs the NumPy twin
            if self.sim is None:
                raise InvalidArgument(f"kernel {self.name!r} has no sim twin",
                                      hint="pass sim=function computing the same result in NumPy")
            kargs = tuple(_buffer(a) if isinstance(a, Array) else a for a in args)
        else:
            if self.source is None:
                raise InvalidArgument(f"kernel {self.name!r} has no source for the GPU",
                                      hint="pass source= (CUDA/HIP C++ text)")
            kargs = tuple(_buffer(a) if isinstance(a, Array) else _gpu_arg(a) for a in args)
        b.launch_user(UserKernel(self.name, self.source, self.sim, grid, block, kargs,
                                 tuple((_buffer(a), r, w) for a, r, w in cost), float(flops)),
                      handle)


def _dims(d, name: str) -> tuple[int, ...]:
    """A launch dimension: an int, or a tuple/list of 1 to 3 ints, each 1 .. 2**31 - 1."""
    from . import validate as V
    hint = f"e.g. {name}=256 or {name}=(16, 16)"
    if isinstance(d, (tuple, list)):
        if not 1 <= len(d) <= 3:
            raise InvalidArgument(f"{name}={d!r} must have 1 to 3 dimensions", argument=name,
                                  hint=hint)
        return tuple(V.integer(x, name, lo=1, hi=2**31 - 1, hint=hint) for x in d)
    return (V.integer(d, name, lo=1, hi=2**31 - 1, hint=hint),)


def _unique(arrays):
    out = []
    for a in arrays:
        if all(a is not x for x in out):
            out.append(a)
    return out


def _buffer(a: Array) -> Buffer:
    return Buffer(a.ptr, a.nbytes, a.dtype, a.shape)


def _gpu_arg(a):
    if isinstance(a, np.generic):
        return a
    if isinstance(a, bool):
        raise InvalidType("pass booleans as np.int32(0/1)")
    if isinstance(a, numbers.Integral):
        return np.int32(a)
    return np.float32(a)


def kernel(name: str, source: str | None = None, *, sim: Callable | None = None) -> Kernel:
    """Your own kernel: ``source`` (CUDA/HIP C++) for GPUs, ``sim`` (a NumPy twin) for sim."""
    backend()            # pick the backend now, so errors name it
    return Kernel(name, source, sim=sim)
