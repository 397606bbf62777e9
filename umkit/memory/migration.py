"""Prefetch and advice as functions (``umkit.prefetch(a, "gpu")``): thin wrappers over the
:class:`~umkit.memory.array.Array` methods, which validate and do the work (here only that
``x`` is an Array, so that a wrong type names the argument ``x``)."""
from __future__ import annotations

from .array import Array, require_array


def prefetch(x: Array, to="gpu", *, stream=None, offset: int = 0, nbytes: int | None = None):
    """Migrate pages ahead of use (hipMemPrefetchAsync): to 'gpu', 'gpu1', or 'cpu'."""
    require_array(x, "prefetch").prefetch(to, stream, offset=offset, nbytes=nbytes)


def advise(x: Array, advice: str, where="gpu", *, unset: bool = False, offset: int = 0,
           nbytes: int | None = None):
    """Declare intent (hipMemAdvise): 'read_mostly', 'preferred_location', 'accessed_by',
    'coarse_grain' (HIP only); ``unset=True`` removes it.  Advice first, then prefetch (§4.4)."""
    require_array(x, "advise").advise(advice, where, unset, offset=offset, nbytes=nbytes)


def attributes(x: Array) -> dict:
    """Range attributes: read_mostly, preferred_location, last_prefetch_location, accessed_by."""
    return require_array(x, "attributes").attributes()
