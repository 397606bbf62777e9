"""``SimBackend``: the backend contract implemented by the CPU model.

A thin adapter: it checks and translates the contract's arguments (pointers to allocations and
page ranges, :class:`Location` to device ids, kernel names to their NumPy twins) and calls the
:class:`Engine`, which holds all of the model's state and rules.
"""
from __future__ import annotations

import math
import weakref

import numpy as np

from ..version import __version__
from ..backends.checked import checked
from ..backends.contract import (ADVICE, CPU, KERNEL_COUNT, KINDS, ONE_PER_THREAD, Allocation,
                                 Backend, Buffer, Location, UserKernel, gpu, kernel_spans,
                                 launch_dims)
from ..errors import InvalidArgument, NotManaged
from .costs import Profile, load_profile
from .engine import Access, Engine, SimEvent, SimStream
from .kernels import TWINS
from .pages import CPU_ID
from .views import handout_frame, next_use, tracked_view

#: a residency map (``snapshot``) lists every page: at most this many (1 TiB of 4 KiB pages,
#: 256 MiB of codes); a larger allocation is refused rather than running out of memory
MAX_SNAPSHOT_PAGES = 1 << 28


def _host_use() -> str:
    """What the code taking ``a.host`` does with it (asked only when work is in flight)."""
    return next_use(handout_frame())


def _locked_methods(cls):
    """Every public method runs under the engine's lock, so a method that reads and then
    changes the model (find an allocation, move its pages, enqueue) is one step for other
    threads.  The lock is re-entrant: the engine's own methods take it again."""
    for name, fn in list(vars(cls).items()):
        if callable(fn) and not name.startswith("_") and not isinstance(fn, type):
            def wrap(fn=fn):
                def run_locked(self, *args, **kwargs):
                    with self.engine.lock:
                        return fn(self, *args, **kwargs)
                run_locked.__name__, run_locked.__doc__ = fn.__name__, fn.__doc__
                run_locked.__wrapped__ = fn
                return run_locked
            setattr(cls, name, wrap())
    return cls


@checked
@_locked_methods
class SimBackend(Backend):
    """The CPU model behind the contract.  Arguments arrive validated by the public API
    (:mod:`umkit.validate`) or, called directly, checked by ``@checked``; beyond that this
    class only asserts them."""

    name = "sim"
    features = frozenset({"counters", "trace", "snapshot", "model_time"})
    stream_types = (SimStream,)
    event_types = (SimEvent,)

    def __init__(self, profile: str | Profile | None = None, gpus: int = 1, strict: bool = False,
                 prefetcher: bool = True, compute: bool = True, **overrides):
        prof = profile if isinstance(profile, Profile) else load_profile(profile, **overrides)
        self.profile = prof
        #: False = model-only: kernels charge their costs but skip the arithmetic (for long
        #: timing runs such as the memory ECG, whose data nobody reads); page state is kept
        #: as extents and an allocation's bytes exist only once a view or a copy needs them,
        #: so arrays far larger than this machine's RAM can be modelled
        self.compute = bool(compute)
        self.engine = Engine(prof, gpus=gpus, strict=strict, prefetcher=prefetcher,
                             pages="dense" if self.compute else "extents", eager=self.compute)
        #: the events this backend made and has not destroyed (an event is a handle: one of
        #: another backend's, or a destroyed one, is refused)
        self._events: weakref.WeakSet = weakref.WeakSet()

    # -- devices ----------------------------------------------------------------------------------
    def _dev(self, device) -> int:
        assert isinstance(device, (int, np.integer)) and not isinstance(device, bool) \
            and 0 <= device < self.engine.gpus, f"device={device!r}"
        return int(device)

    def device_count(self) -> int:
        return self.engine.gpus

    def device_name(self, device: int) -> str:
        self._dev(device)
        return f"sim: {self.profile.title or self.profile.name}"

    def mem_info(self, device: int) -> tuple[int, int]:
        g = self._dev(device)
        total = int(self.profile.vram)
        return max(0, total - self.engine.gpu_resident_bytes(g)), total

    def capabilities(self, device: int) -> dict:
        self._dev(device)
        m = self.profile.mode
        amd = self.profile.vendor == "amd"
        caps = dict(managed_memory=True,
                    # ROCm: the kernel driver's SVM support, 1 with XNACK off too (ledger:
                    # amd.attr.concurrent_managed); NVIDIA: pages migrate on GPU faults
                    concurrent_managed_access=True if amd else m != "zero_copy",
                    # ROCm: XNACK on for every GPU (ledger: amd.attr.pageable_xnack)
                    pageable_memory_access=(m != "zero_copy") if amd else m == "apu",
                    # the CPU reads GPU-resident pages in place: the APU, and mi250x-coherent
                    # (device-coherent VRAM); mi250x-xnack1 follows OLCF's migrate-on-touch
                    # table, mi300x is PCIe (ledger: amd.attr.direct_host, amd.vram.coherent,
                    # amd.vram.private, amd.olcf.migrate_on_touch)
                    direct_managed_access_from_host=self.engine.policy.cpu_touch_of_gpu_pages
                    in ("in_place", "local"),
                    model=self.profile.name, mode=m,
                    policy=self.engine.policy.name,
                    # AMD: the CPU may dereference hipMalloc memory (zero copy); CUDA: no
                    device_memory_host_access=self.engine.policy.device_memory_cpu_access
                    is not None)
        if self.profile.vendor == "amd":
            caps["xnack"] = {"env": "1" if m != "zero_copy" else "0",
                             "target": "xnack+" if m != "zero_copy" else "xnack-",
                             "simulated": True}
            if self.profile.platform:
                caps["platform"] = self.profile.platform
        return caps

    def versions(self) -> dict:
        return {"umkit-sim": __version__, "profile": self.profile.name}

    # -- allocation -------------------------------------------------------------------------------
    def malloc(self, nbytes: int, kind: str, device: int) -> int:
        assert kind in KINDS and isinstance(nbytes, int) and nbytes > 0, (kind, nbytes)
        return self.engine.malloc(nbytes, kind, self._dev(device))

    def free(self, ptr: int, kind: str | None = None) -> None:
        if kind is not None:             # as the GPU backend: the kind it was allocated as
            a, off = self.engine.find(ptr)
            if off == 0 and a.kind != kind:
                raise InvalidArgument(f"{ptr:#x} was allocated as {a.kind} memory, not {kind}",
                                      argument="kind", hint="leave kind out, or pass its own")
        self.engine.free(ptr)

    def retire(self, ptr: int, kind: str | None = None) -> None:
        a, off = self.engine.find(ptr)
        if off:
            raise InvalidArgument(f"{ptr:#x} is inside an allocation, not its start ({a.ptr:#x})",
                                  argument="ptr", hint="retire the address malloc returned")
        self.engine.retire(ptr)

    def allocations(self) -> list[Allocation]:
        return [Allocation(a.ptr, a.nbytes, a.kind, a.device)
                for a in list(self.engine.allocs.values())]

    def _range(self, ptr: int, nbytes: int, what: str, managed_only=True):
        """The allocation of ``ptr`` and the pages of [ptr, ptr + nbytes) in it."""
        a, off = self.engine.find(ptr)
        if managed_only and a.kind != "managed":
            raise NotManaged(f"{what} needs managed memory; {ptr:#x} is {a.kind} memory",
                             hint=f"{a.kind} memory never migrates: allocate it with "
                                  f"umkit.managed(...) to {what} it")
        self._within(a, off, nbytes, what)
        return a, a.page_range(off, off + nbytes)

    @staticmethod
    def _within(a, off: int, nbytes: int, what: str, argument: str = "nbytes",
                hint: str = "pass nbytes within the array") -> None:
        """``[off, off + nbytes)`` lies inside allocation ``a``: a typed error naming
        ``argument`` otherwise (prefetch, advice, views, a kernel's arguments)."""
        if nbytes < 0 or off + nbytes > a.nbytes:
            raise InvalidArgument(f"{what}: range of {nbytes} B at offset {off} runs past the "
                                  f"allocation's {a.nbytes} B", argument=argument, hint=hint)

    # -- migration --------------------------------------------------------------------------------
    def prefetch(self, ptr: int, nbytes: int, to: Location, stream) -> None:
        a, pages = self._range(ptr, nbytes, "prefetch")
        dest = CPU_ID if to.kind == "host" else self._dev(to.id)
        self.engine.prefetch(a, pages, dest, self._stream(stream), f"prefetch->{to}")

    def advise(self, ptr: int, nbytes: int, advice: str, where: Location, unset: bool) -> None:
        assert advice in ADVICE and isinstance(unset, bool), (advice, unset)
        a, pages = self._range(ptr, nbytes, "advise")
        # read_mostly and coarse_grain name no location (where=None); the others need one
        dev = CPU_ID if where is None or where.kind == "host" else self._dev(where.id)
        self.engine.advise(a, pages, advice, dev, unset)

    def range_attributes(self, ptr: int, nbytes: int) -> dict:
        a, pages = self._range(ptr, nbytes, "range_attributes")
        attrs = self.engine.range_attributes(a, pages)

        def loc(dev):
            return None if dev is None else CPU if dev == CPU_ID else gpu(dev)
        return dict(read_mostly=attrs["read_mostly"],
                    preferred_location=loc(attrs["preferred_location"]),
                    last_prefetch_location=loc(attrs["last_prefetch_location"]),
                    accessed_by=[loc(d) for d in attrs["accessed_by"]])

    # -- views ------------------------------------------------------------------------------------
    def _view(self, a, off: int, nbytes: int, side):
        self._within(a, off, nbytes, "view")
        return tracked_view(a.data[off:off + nbytes], self.engine, a, side)

    def host_view(self, ptr: int, nbytes: int):
        a, off = self.engine.host_view(ptr, nbytes, _host_use)
        return self._view(a, off, nbytes, "cpu")

    def device_view(self, ptr: int, nbytes: int, device: int, owner=None):
        a, off = self.engine.find(ptr)
        return self._view(a, off, nbytes, self._dev(device))

    # -- streams, events, copies, kernels ---------------------------------------------------------------
    def default_stream(self, device: int = 0) -> SimStream:
        return self.engine.default_stream(device)

    def _stream(self, stream) -> SimStream:
        if stream is None:
            return self.default_stream(0)
        assert isinstance(stream, SimStream), stream
        if self.engine.clock.streams.get(stream.id) is not stream:
            raise InvalidArgument("stream was destroyed (stream_destroy), or is another sim "
                                  "backend's", argument="stream",
                                  hint="create one on this backend: stream_create(device)")
        return stream

    def stream_create(self, device: int) -> SimStream:
        return self.engine.stream(self._dev(device))

    def stream_destroy(self, stream) -> None:
        if stream.default:
            raise InvalidArgument("a device's default stream is never destroyed",
                                  argument="stream", hint="destroy only streams stream_create made")
        self.engine.drop_stream(self._stream(stream))

    def synchronize(self, what=None) -> None:
        assert what is None or isinstance(what, (SimStream, SimEvent)), what
        if isinstance(what, SimStream):
            self._stream(what)
        elif what is not None:
            self._event(what)
        self.engine.synchronize(what)

    def _event(self, event, argument: str = "event") -> SimEvent:
        """``event`` is one this backend made and has not destroyed."""
        if event not in self._events:
            raise InvalidArgument(f"{argument} was destroyed (event_destroy), or is another sim "
                                  "backend's", argument=argument,
                                  hint="create one on this backend: event_create()")
        return event

    def event_create(self, device: int = 0) -> SimEvent:
        e = SimEvent()
        self._events.add(e)
        return e

    def event_destroy(self, event) -> None:
        self._events.discard(self._event(event))

    def event_record(self, event, stream) -> None:
        self.engine.record_event(self._event(event), self._stream(stream))

    def charge_host(self, key: str) -> None:
        """The host spends the profile's ``key`` (a host-side call time, e.g. ``event_overhead``:
        what ``umkit.timer`` costs between its start event and the timed block)."""
        self.engine.charge_host(key)        # a key the profile lacks costs 0 (Profile.host_op)

    def event_elapsed_ms(self, start, end) -> float:
        self._event(start, "start")
        self._event(end, "end")
        if start.time is None or end.time is None:
            raise InvalidArgument("event not recorded yet", hint="record both events first")
        return (end.time - start.time) * 1e3

    def memcpy(self, dst: int, src: int, nbytes: int, stream) -> None:
        self.engine.memcpy(dst, src, nbytes, self._stream(stream))

    def pageable(self, nbytes: int):
        """Ordinary (pageable, malloc'd) host memory as a NumPy array whose CPU reads and writes
        are charged like any host memory; freed with the array."""
        ptr = self.engine.malloc(max(1, nbytes), "pageable", 0)
        a, off = self.engine.find(ptr)
        v = self._view(a, off, nbytes, "cpu")
        weakref.finalize(v, lambda: None if a.freed else self.engine.free(ptr))
        return v

    def memcpy_pageable(self, ptr: int, host, nbytes: int, to_array: bool, stream=None) -> None:
        """A copy to/from pageable host memory: the driver stages it through pinned buffers in
        chunks, the CPU's memcpy into staging overlapping the DMA; the host waits for it."""
        self.engine.memcpy_pageable(ptr, host, nbytes, to_array, self._stream(stream))

    def launch(self, kernel: str, grid: int, block: int, args: tuple, stream) -> None:
        twin = TWINS.get(kernel)
        if twin is None:
            raise InvalidArgument(f"kernel {kernel!r} is not in kernels/",
                                  hint=f"available: {sorted(TWINS)}")
        for i, ptr, nbytes in kernel_spans(kernel, args):
            a, off = self.engine.find(ptr)
            self._within(a, off, nbytes, f"{kernel} argument {i}", "args",
                         hint="launch it on n elements the array holds")
        if kernel in ONE_PER_THREAD:    # as on a GPU: elements past grid * block stay as they are
            threads = math.prod(launch_dims(grid)) * math.prod(launch_dims(block))
            args = list(args)
            args[KERNEL_COUNT[kernel]] = min(int(args[KERNEL_COUNT[kernel]]), threads)
        self.engine.launch(kernel, self._stream(stream), lambda find: twin(find, *args),
                           compute=self.compute)

    def launch_user(self, k: UserKernel, stream) -> None:
        """A learner's kernel (umkit.kernel): ``k.cost`` = [(buffer, times read, written?)];
        the twin runs on NumPy views of the buffers."""
        assert k.twin is not None, k.name

        def prepare(find):
            accesses = []
            for buf, times, written in k.cost:
                a, off = find(buf.ptr)
                pages = a.page_range(off, off + buf.nbytes)
                nbytes = int(buf.nbytes * (times + (1 if written else 0)))
                accesses.append(Access(a, pages, bool(written), nbytes,
                                       passes=max(1.0, float(times))))

            def run():
                views = []
                for x in k.args:
                    if isinstance(x, Buffer):
                        a, off = find(x.ptr)
                        views.append(a.data[off:off + x.nbytes].view(x.dtype).reshape(x.shape))
                    else:
                        views.append(x)
                k.twin(*views)
            return accesses, run
        self.engine.launch(k.name, self._stream(stream), prepare, flops=k.flops, submit="user",
                           compute=self.compute)

    # -- the instrumented capabilities (declared in ``features``) ------------------------------------
    def counters(self) -> dict:
        return dict(self.engine.counters)

    def reset_counters(self) -> None:
        self.engine.reset_counters()

    def counters_start(self, device: int = 0) -> None:
        pass                        # the model counts always (it costs nothing)

    def trace(self, last: int | None = None) -> list[dict]:
        ev = list(self.engine.trace)
        return ev if last is None else ev[len(ev) - last:] if last else []

    def now(self) -> float:
        return self.engine.now

    def snapshot(self, ptr: int):
        a, off = self.engine.find(ptr)
        if off:
            raise InvalidArgument(f"{ptr:#x} is inside an allocation, not its start ({a.ptr:#x}): "
                                  "a residency map is of a whole allocation", argument="ptr",
                                  hint="pass the address malloc returned (arr.ptr)")
        if a.npages > MAX_SNAPSHOT_PAGES:
            raise InvalidArgument(
                f"a residency map lists every page: this allocation has {a.npages:,} pages of "
                f"{a.host_page} bytes, more than the {MAX_SNAPSHOT_PAGES:,} one map may list "
                f"({MAX_SNAPSHOT_PAGES * a.host_page >> 30:,} GiB)", argument="x",
                hint="look at a smaller buffer (the same access pattern at a smaller size gives "
                     "the same picture), or ask umkit.attributes(x) and umkit.counters() where "
                     "its pages went")
        return a.snapshot(), a.host_page

    def model_profile(self):
        return self.profile
