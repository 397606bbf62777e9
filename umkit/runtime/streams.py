"""``umkit.Stream`` and ``umkit.Event``: the one stream type and the one event type of the
public API.  Each wraps the opaque handle its backend made, and the backend it belongs to."""
from __future__ import annotations

import weakref

from .. import validate as V
from ..backends.contract import Backend
from ..errors import InvalidArgument, InvalidType
from . import backend as _current


def _destroy(destroy, handle):
    try:
        destroy(handle)
    except Exception:  # noqa: BLE001 - never raise from a finalizer
        pass


class Stream:
    """A stream (hipStream_t): work on one stream runs in order, streams run concurrently.
    Released when garbage-collected (hipStreamDestroy)."""

    def __init__(self, device: int = 0):
        b = _current()
        self.device = V.device(device, b)
        self.backend = b
        self.handle = b.stream_create(self.device)
        self._finalizer = weakref.finalize(self, _destroy, b.stream_destroy, self.handle)

    def synchronize(self):
        """hipStreamSynchronize: wait for this stream only."""
        self.backend.synchronize(self.handle)

    def __repr__(self):
        return f"umkit.Stream(device={self.device})"


class Event:
    """An event (hipEvent_t): a mark on a stream to time or wait on.  It belongs to one device
    (``device``) of one backend: the active one, or ``backend=`` (a stream's ``.backend``, so
    that code running on an earlier backend keeps making its events there after a
    ``umkit.use(...)`` elsewhere)."""

    def __init__(self, device: int = 0, *, backend: Backend | None = None):
        if backend is None:
            b = _current()
        elif isinstance(backend, Backend):
            b = backend
        else:
            raise InvalidType(f"backend={V.shown(backend)} is not a umkit backend", argument="backend",
                              hint="leave it out (the active backend), or pass a stream's "
                                   ".backend")
        self.device = V.device(device, b)
        self.backend = b
        self.handle = b.event_create(self.device)
        self.recorded = False
        self._finalizer = weakref.finalize(self, _destroy, b.event_destroy, self.handle)

    def record(self, stream: Stream | None = None):
        """Record on ``stream``, or without one on the default stream of the event's own
        device.  Recorded on a stream of another device, the event moves to that device (the
        GPU backends re-create it there: a CUDA/HIP event belongs to one device)."""
        if stream is None:
            handle = self.backend.default_stream(self.device)
        else:
            handle = stream_handle(stream, self.backend)
            self.device = stream.device
        self.backend.event_record(self.handle, handle)
        self.recorded = True
        return self

    def synchronize(self):
        """hipEventSynchronize: wait until the work before this event is done (returns at once
        for an event never recorded, as the runtimes do)."""
        self.backend.synchronize(self.handle)

    def elapsed_ms(self, end: "Event") -> float:
        if not isinstance(end, Event):
            raise InvalidType(f"end={V.shown(end)} is not a umkit.Event", argument="end",
                              hint="start.elapsed_ms(end) with two recorded umkit.Event()s")
        if end.backend is not self.backend:
            raise InvalidArgument("end belongs to another backend than this event", argument="end",
                                  hint="create both events after the last umkit.use(...)")
        if not (self.recorded and end.recorded):
            raise InvalidArgument("event not recorded: elapsed_ms needs two recorded events",
                                  argument="end",
                                  hint="record both events first: start.record(s), end.record(s)")
        return self.backend.event_elapsed_ms(self.handle, end.handle)

    def __repr__(self):
        return f"umkit.Event(device={self.device}, {'recorded' if self.recorded else 'new'})"


def stream_handle(stream, backend=None):
    """The backend handle of a ``stream=`` argument (None: the default stream), checked."""
    if stream is None:
        return None
    if isinstance(stream, Stream):
        if backend is not None and stream.backend is not backend:
            raise InvalidArgument(f"stream={V.shown(stream)} belongs to another backend than the memory "
                                  "it is used with (created before a umkit.use(...) call?)",
                                  argument="stream",
                                  hint="create the stream after umkit.use(...), with the arrays")
        return stream.handle
    raise InvalidType(f"stream={V.shown(stream)} is not a umkit.Stream", argument="stream",
                      hint="create one with umkit.Stream()")


def kernel_stream(stream, x):
    """Where a kernel on array ``x`` runs -- the multi-GPU rule: on the device of its (first)
    array, unless a stream says otherwise.  No stream: the default stream of x's device."""
    if stream is not None:
        return stream_handle(stream, x.backend)
    # GPU 0 too: "no stream" must not mean "whichever device is current" (2x H200: a GPU 0
    # array's kernel ran on GPU 1 after an allocation there made GPU 1 current)
    return x.backend.default_stream(x.device_id)
