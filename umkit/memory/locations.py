"""Turn what a learner types ('gpu', 'cpu', 1, 'cuda:1', umkit.CPU) into a Location."""
from __future__ import annotations

import re

import numpy as np

from ..backends.contract import CPU, Location
from ..backends.contract import gpu as _gpu
from ..errors import InvalidArgument, InvalidType

_HOST = {"cpu", "host", "hipcpudeviceid", "cudacpudeviceid"}


def as_location(where, argument: str = "to") -> Location:
    if isinstance(where, Location):
        if where.kind == "host":
            return CPU
        if where.kind == "device" and isinstance(where.id, (int, np.integer)):
            return _check(int(where.id), argument)
        raise InvalidArgument(f"{argument}={where!r} is not a location",
                              hint="build locations with umkit.CPU or umkit.gpu(i)")
    if isinstance(where, bool):
        raise InvalidType(f"{argument}={where!r} is not a location",
                          hint="use 'cpu', 'gpu', 'gpu1' or a device number")
    if isinstance(where, (int, np.integer)):
        return CPU if where == -1 else _check(int(where), argument)
    if isinstance(where, str):
        w = where.strip().lower()
        if w in _HOST:
            return CPU
        m = re.fullmatch(r"(?:gpu|cuda|hip|device)?[:\s]*(\d*)", w)
        if m and (m.group(1) or w in ("gpu", "cuda", "hip", "device")):
            return _check(int(m.group(1) or 0), argument)
    raise InvalidArgument(f"{argument}={where!r} is not a location",
                          hint="use 'cpu' (the host), 'gpu' / 'gpu0' / 'cuda:1', a device "
                               "number, or umkit.CPU")


def _check(i: int, argument: str) -> Location:
    if i < 0:
        raise InvalidArgument(f"{argument}: device {i} does not exist",
                              hint="device numbers start at 0; -1 means the CPU")
    return _gpu(i)


def gpu(i: int = 0) -> Location:
    """The location of GPU ``i`` (``umkit.gpu(1)``), for prefetch/advise targets."""
    from ..validators import integer
    return _gpu(integer(i, "i", lo=0, hi=1 << 16, hint="a device number, e.g. umkit.gpu(0)"))
