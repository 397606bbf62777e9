"""Copies: which way a copy goes, which link it takes and what it costs.

A copy between allocations (hipMemcpy) runs on a copy engine: pinned host memory and device
memory are where they are; managed memory counts as the side most of its pages are on.  A copy
to or from pageable (malloc'd) host memory is modelled, where any of the copied bytes are on a GPU
(device memory, or a managed range with at least one GPU-resident page), as fixed costs plus a DMA overlapped with a host memcpy of the same bytes (ROCm/clr pins the pages for
the copy or stages one of 1 MiB or less; CUDA stages through pinned buffers), else as a plain host
memcpy.  A plan says what a copy will do; the
engine carries it out (the bytes, the residency of pages it creates, the counters, the stream).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InvalidArgument
from .costs import Profile
from .pages import CPU_BIT, Access, Allocation, gpu_bit


@dataclass
class CopyPlan:
    """One copy: its trace ``name``, the ``seconds`` it takes on its stream, what it reads and
    writes while in flight (``accesses``), the ``link`` direction it occupies (None: none), the
    counter its bytes go to (None: none) and the residency bit (``lands``) that pages of a
    managed destination not populated yet get."""
    name: str
    seconds: float
    accesses: list
    link: str | None
    counter: str | None
    lands: np.uint8


def side(a: Allocation, off: int, nbytes: int) -> str:
    """``"d"`` (device) or ``"h"`` (host): where bytes [off, off + nbytes) of ``a`` are for a
    copy engine -- managed memory where most of those pages are."""
    if a.kind == "device":
        return "d"
    if a.kind == "pinned":
        return "h"
    w = a.where[a.page_range(off, off + nbytes)]
    return "d" if np.count_nonzero(w & np.uint8(0xFE)) > np.count_nonzero(w & CPU_BIT) else "h"


def plan_memcpy(profile: Profile, da: Allocation, do: int, sa: Allocation, so: int,
                nbytes: int) -> CopyPlan:
    """A copy of ``nbytes`` from offset ``so`` of ``sa`` to offset ``do`` of ``da``."""
    if so + nbytes > sa.nbytes or do + nbytes > da.nbytes:
        raise InvalidArgument(f"memcpy of {nbytes} B runs past an allocation", argument="nbytes",
                              hint="copy at most the smaller buffer's size")
    p = profile
    direction = side(sa, so, nbytes) + "2" + side(da, do, nbytes)
    peer = direction == "d2d" and sa.kind == "device" and da.kind == "device" \
        and sa.device != da.device
    # what the copy engine reads and writes while the copy is in flight (for races)
    accesses = [Access(sa, sa.page_range(so, so + nbytes), False, nbytes),
                Access(da, da.page_range(do, do + nbytes), True, nbytes)]
    if peer:                          # GPU to GPU over the peer link
        seconds = nbytes / p.peer_bw + p.copy_latency_s()
        counter = "bytes_peer"
    else:
        seconds = p.copy_cost(nbytes, direction) + p.copy_latency_s()
        counter = {"h2d": "bytes_h2d", "d2h": "bytes_d2h"}.get(direction)
    link = "peer" if peer else direction if direction in ("h2d", "d2h") else None
    return CopyPlan(f"memcpy {direction}", seconds, accesses, link, counter,
                    CPU_BIT if direction[-1] == "h" else gpu_bit(0))


def plan_pageable(profile: Profile, a: Allocation, off: int, nbytes: int,
                  to_array: bool) -> CopyPlan:
    """A copy of ``nbytes`` between pageable host memory and offset ``off`` of ``a``
    (``to_array``: into ``a``): the slower of the pinned copy and the host-side copy at the
    host's memcpy rate, plus the copy's fixed cost, where ``a``'s bytes are on a GPU; a host
    memcpy where they are not."""
    if off + nbytes > a.nbytes:
        raise InvalidArgument(f"copy of {nbytes} B runs past the allocation")
    p = profile
    on_gpu = a.kind == "device" or (a.kind == "managed" and np.count_nonzero(
        a.where[a.page_range(off, off + nbytes)] & np.uint8(0xFE)) > 0)
    direction = "h2d" if to_array else "d2h"
    if on_gpu:
        # the runtime pins the pageable pages for the copy, or stages a small copy through
        # buffers of its own (ROCm/clr's writeBuffer); the model charges the slower of the DMA
        # and a host memcpy of the bytes, as if the two overlapped
        seconds = p.copy_latency_s() + p.host_op("pageable_copy_latency") + max(
            p.copy_cost(nbytes, direction), nbytes / p.host_rate(True, nbytes))
    else:
        seconds = nbytes / p.host_rate(True, nbytes)
    return CopyPlan(f"memcpy pageable {direction}", seconds,
                    [Access(a, a.page_range(off, off + nbytes), bool(to_array), nbytes)],
                    direction if on_gpu else None, "bytes_" + direction if on_gpu else None,
                    CPU_BIT)
