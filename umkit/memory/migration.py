"""Prefetch and advice by name, on the memory layer (``umkit.prefetch`` and ``Array.prefetch``
are these functions).  Arguments are validated here, once, with :mod:`umkit.validate`."""
from __future__ import annotations

from .. import validate as V
from ..runtime.context import RUNTIME
from ..runtime.streams import stream_handle
from .array import Array, require_managed


def prefetch(x: Array, to="gpu", *, stream=None, offset: int = 0, nbytes: int | None = None):
    """Migrate pages ahead of use (hipMemPrefetchAsync): to 'gpu', 'gpu1', or 'cpu'."""
    x = require_managed(x, "prefetch")
    b = x.backend
    loc = V.location(to, "to", b.device_count())
    off, n = V.byte_range(x.nbytes, offset, nbytes)
    b.prefetch(x.ptr + off, n, loc, stream_handle(stream, b))
    x.last_prefetch = loc
    _note(x, last_prefetch=str(loc))


def advise(x: Array, advice: str, where="gpu", *, unset: bool = False, offset: int = 0,
           nbytes: int | None = None):
    """Declare intent (hipMemAdvise): 'read_mostly', 'preferred_location', 'accessed_by',
    'coarse_grain' (HIP only); ``unset=True`` removes it.  Advice first, then prefetch (§4.4)."""
    x = require_managed(x, "advise")
    a = V.advice(advice)
    unset = V.flag(unset, "unset")
    loc = V.location(where, "where", x.backend.device_count())
    off, n = V.byte_range(x.nbytes, offset, nbytes)
    x.backend.advise(x.ptr + off, n, a, loc, unset)
    (x.advice.discard if unset else x.advice.add)(a if a == "read_mostly" else f"{a}:{loc}")
    _note(x)


def attributes(x: Array) -> dict:
    """Range attributes: read_mostly, preferred_location, last_prefetch_location, accessed_by."""
    x = require_managed(x, "attributes")
    return x.backend.range_attributes(x.ptr, x.nbytes)


def _note(x: Array, last_prefetch=None):
    pool = RUNTIME.current_pool()
    if pool is not None:
        pool.note(x.ptr, advice=x.advice, last_prefetch=last_prefetch)
