"""``SimBackend``: the backend contract implemented by the CPU model."""
from __future__ import annotations

import numpy as np

from ..version import __version__
from ..backends.contract import (ADVICE, CPU, KINDS, Allocation, Backend, Buffer, Location, UserKernel, gpu)
from ..errors import InvalidArgument, NotManaged
from .costs import Profile, load_profile
from .engine import Access, Engine, SimEvent, SimStream
from .kernels import TWINS
from .pages import CPU_BIT, CPU_ID, NO_LOC, gpu_bit, loc_bit
from .views import TrackedView, ViewInfo, handout_frame, next_use


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


@_locked_methods
class SimBackend(Backend):
    """The CPU model behind the contract.  Arguments arrive validated by the public API
    (:mod:`umkit.validate`); this class only asserts them."""

    name = "sim"
    features = frozenset({"counters", "trace", "snapshot", "model_time"})

    def __init__(self, profile: str | Profile | None = None, gpus: int = 1, strict: bool = False,
                 prefetcher: bool = True, compute: bool = True, **overrides):
        prof = profile if isinstance(profile, Profile) else load_profile(profile, **overrides)
        self.profile = prof
        self.engine = Engine(prof, gpus=gpus, strict=strict, prefetcher=prefetcher)
        self._defaults = {0: self.engine.streams[0]}
        #: False = model-only: kernels charge their costs but skip the arithmetic (for long
        #: timing runs such as the memory ECG, whose data nobody reads)
        self.compute = compute

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
        caps = dict(managed_memory=True, concurrent_managed_access=m != "zero_copy",
                    pageable_memory_access=m == "apu", model=self.profile.name, mode=m,
                    policy=self.engine.policy.name,
                    # AMD: the CPU may dereference hipMalloc memory (zero copy); CUDA: no
                    device_memory_host_access=self.engine.policy.device_memory_cpu_access
                    is not None)
        if self.profile.vendor == "amd":
            caps["xnack"] = {"env": "1" if m != "zero_copy" else "0",
                             "target": "xnack+" if m != "zero_copy" else "xnack-",
                             "simulated": True}
        return caps

    def versions(self) -> dict:
        return {"umkit-sim": __version__, "profile": self.profile.name}

    # -- allocation -------------------------------------------------------------------------------
    def malloc(self, nbytes: int, kind: str, device: int) -> int:
        assert kind in KINDS and isinstance(nbytes, int) and nbytes > 0, (kind, nbytes)
        return self.engine.malloc(nbytes, kind, self._dev(device))

    def free(self, ptr: int, kind: str | None = None) -> None:
        self.engine.free(ptr)

    def allocations(self) -> list[Allocation]:
        return [Allocation(a.ptr, a.nbytes, a.kind, a.device)
                for a in list(self.engine.allocs.values())]

    def _range(self, ptr: int, nbytes: int, what: str, managed_only=True):
        a, off = self.engine.find(ptr)
        if managed_only and a.kind != "managed":
            raise NotManaged(f"{what} needs managed memory; {ptr:#x} is {a.kind} memory",
                             hint=f"{a.kind} memory never migrates: allocate it with "
                                  "umkit.managed(...) to {what} it")
        if nbytes < 0 or off + nbytes > a.nbytes:
            raise InvalidArgument(f"{what}: range of {nbytes} B at offset {off} runs past the "
                                  f"allocation's {a.nbytes} B", hint="pass nbytes within the array")
        return a, a.page_range(off, off + nbytes)

    # -- migration --------------------------------------------------------------------------------
    def prefetch(self, ptr: int, nbytes: int, to: Location, stream) -> None:
        a, pages = self._range(ptr, nbytes, "prefetch")
        dest = CPU_ID if to.kind == "host" else self._dev(to.id)
        s = self._stream(stream)
        eng = self.engine
        eng.now += self.profile.host_op("prefetch_submit")   # the call's host time
        dur = eng.prefetch(a, pages, dest)
        eng.enqueue(s, dur, f"prefetch->{to}", link="d2h" if dest == CPU_ID else "h2d",
                    kind="prefetch" if eng.last_prefetch_bytes else "prefetch_noop")

    def advise(self, ptr: int, nbytes: int, advice: str, where: Location, unset: bool) -> None:
        assert advice in ADVICE and isinstance(unset, bool), (advice, unset)
        a, pages = self._range(ptr, nbytes, "advise")
        dev = CPU_ID if where.kind == "host" else self._dev(where.id)
        if advice == "read_mostly":
            a.read_mostly[pages] = not unset
            if unset:   # collapse duplicates: keep the GPU copy when there is one
                w = a.where[pages]
                gpu_part = w & np.uint8(0xFE)
                keep = np.where(gpu_part != 0, gpu_part & (-gpu_part.astype(np.int16)).astype(np.uint8), w)
                a.where[pages] = np.where(w != 0, keep, 0)
        elif advice == "preferred_location":
            a.preferred[pages] = NO_LOC if unset else dev
        elif advice == "accessed_by":
            bit = loc_bit(dev)
            if unset:
                a.accessed_by[pages] &= ~bit
                a.mapped[pages] &= ~bit
            else:
                a.accessed_by[pages] |= bit
        else:  # coarse_grain (HIP only): recorded, no effect on costs
            a.coarse_grain[pages] = not unset
        self.engine._log(f"advise:{advice}{':unset' if unset else ''}", "kmd",
                         "policy recorded; no page moves")

    def range_attributes(self, ptr: int, nbytes: int) -> dict:
        a, pages = self._range(ptr, nbytes, "range_attributes")

        def one(arr):
            u = np.unique(arr[pages])
            if u.size != 1 or u[0] == NO_LOC:
                return None
            return CPU if u[0] == CPU_ID else gpu(int(u[0]))
        acc = np.bitwise_and.reduce(a.accessed_by[pages]) if pages.size else 0
        locs = ([CPU] if acc & CPU_BIT else []) + [gpu(g) for g in range(self.engine.gpus)
                                                   if acc & gpu_bit(g)]
        return dict(read_mostly=bool(pages.size and a.read_mostly[pages].all()),
                    preferred_location=one(a.preferred), last_prefetch_location=one(a.last_prefetch),
                    accessed_by=locs)

    # -- views ------------------------------------------------------------------------------------
    def _view(self, ptr, nbytes, side):
        a, off = self.engine.find(ptr)
        v = a.data[off:off + nbytes].view(TrackedView)
        v._umk = ViewInfo(self.engine, a, side, self)
        return v

    def host_view(self, ptr: int, nbytes: int):
        a, off = self.engine.find(ptr)
        if a.kind == "device" and self.engine.policy.device_memory_cpu_access is None:
            raise InvalidArgument("device memory (cudaMalloc) has no host view on this profile "
                                  f"({self.profile.name})",
                                  hint="copy it with umkit.read_back(arr) or umkit.copy(...)")
        self.engine.host_handout(a, a.page_range(off, off + nbytes), _host_use)
        return self._view(ptr, nbytes, "cpu")

    def device_view(self, ptr: int, nbytes: int, device: int, owner=None):
        return self._view(ptr, nbytes, self._dev(device))

    # -- streams, events, copies, kernels ---------------------------------------------------------------
    def default_stream(self, device: int = 0) -> SimStream:
        if device not in self._defaults:
            self._defaults[device] = self.engine.stream(device, default=True)
        return self._defaults[device]

    def _stream(self, stream) -> SimStream:
        if stream is None:
            return self.default_stream(0)
        assert isinstance(stream, SimStream), stream
        return stream

    def stream_create(self, device: int) -> SimStream:
        return self.engine.stream(self._dev(device))

    def stream_destroy(self, stream) -> None:
        self.engine.streams.pop(self._stream(stream).id, None)

    def synchronize(self, what=None) -> None:
        assert what is None or isinstance(what, (SimStream, SimEvent)), what
        self.engine.synchronize(what)

    def event_create(self, device: int = 0) -> SimEvent:
        return SimEvent()

    def event_destroy(self, event) -> None:
        pass

    def event_record(self, event, stream) -> None:
        s = self._stream(stream)
        event.time = max(self.engine.now, s.ready)

    def charge_host(self, key: str) -> None:
        """The host spends the profile's ``key`` (a host-side call time, e.g. ``event_overhead``:
        what ``umkit.timer`` costs between its start event and the timed block)."""
        self.engine.now += self.profile.host_op(key)

    def event_elapsed_ms(self, start, end) -> float:
        if start.time is None or end.time is None:
            raise InvalidArgument("event not recorded yet", hint="record both events first")
        return (end.time - start.time) * 1e3

    def memcpy(self, dst: int, src: int, nbytes: int, stream) -> None:
        eng = self.engine
        (da, do), (sa, so) = eng.find(dst), eng.find(src)
        if so + nbytes > sa.nbytes or do + nbytes > da.nbytes:
            raise InvalidArgument(f"memcpy of {nbytes} B runs past an allocation",
                                  hint="copy at most the smaller buffer's size")

        def side(a, off):
            if a.kind == "device":
                return "d"
            if a.kind == "pinned":
                return "h"
            w = a.where[a.page_range(off, off + nbytes)]
            return "d" if np.count_nonzero(w & np.uint8(0xFE)) > np.count_nonzero(w & CPU_BIT) else "h"
        direction = side(sa, so) + "2" + side(da, do)
        peer = direction == "d2d" and sa.kind == "device" and da.kind == "device" \
            and sa.device != da.device
        # what the copy engine reads and writes while the copy is in flight (for races)
        accesses = [Access(sa, sa.page_range(so, so + nbytes), False, nbytes),
                    Access(da, da.page_range(do, do + nbytes), True, nbytes)]
        self.engine.device_writes(accesses, lambda: da.data.__setitem__(
            slice(do, do + nbytes), sa.data[so:so + nbytes]))
        if da.kind == "managed":
            pages = da.page_range(do, do + nbytes)
            da.where[pages] = np.where(da.where[pages] == 0, CPU_BIT if direction[-1] == "h"
                                       else gpu_bit(0), da.where[pages])
        if peer:                          # GPU to GPU over the peer link
            dur = nbytes / self.profile.peer_bw + self.profile.copy_latency_s()
            self.engine.counters["bytes_peer"] += nbytes
        else:
            dur = self.profile.copy_cost(nbytes, direction) + self.profile.copy_latency_s()
            key = {"h2d": "bytes_h2d", "d2h": "bytes_d2h"}.get(direction)
            if key:
                self.engine.counters[key] += nbytes
        self.engine.now += self.profile.host_op("copy_submit")      # the call's host time
        link = "peer" if peer else direction if direction in ("h2d", "d2h") else None
        self.engine.enqueue(self._stream(stream), dur, f"memcpy {direction}", accesses, link=link,
                            kind="copy")

    def pageable(self, nbytes: int):
        """Ordinary (pageable, malloc'd) host memory as a NumPy array whose CPU reads and writes
        are charged like any host memory; freed with the array."""
        import weakref
        ptr = self.engine.malloc(max(1, nbytes), "pageable", 0)
        v = self._view(ptr, nbytes, "cpu")
        a, _ = self.engine.find(ptr)
        weakref.finalize(v, lambda: None if a.freed else self.engine.free(ptr))
        return v

    def memcpy_pageable(self, ptr: int, host, nbytes: int, to_array: bool, stream=None) -> None:
        """A copy to/from pageable host memory: the driver stages it through pinned buffers in
        chunks, the CPU's memcpy into staging overlapping the DMA -- modelled as the slower of
        the pinned copy and the host-side copy at the host's memcpy rate, plus the copy's fixed
        cost; the host waits for it."""
        eng, p = self.engine, self.profile
        a, off = eng.find(ptr)
        if off + nbytes > a.nbytes:
            raise InvalidArgument(f"copy of {nbytes} B runs past the allocation")
        raw = host.reshape(-1).view(np.uint8)
        if to_array:
            eng.device_writes([Access(a, a.page_range(off, off + nbytes), True, nbytes)],
                              lambda: a.data.__setitem__(slice(off, off + nbytes), raw[:nbytes]))
        else:
            raw[:nbytes] = a.data[off:off + nbytes]
        on_gpu = a.kind == "device" or (a.kind == "managed" and np.count_nonzero(
            a.where[a.page_range(off, off + nbytes)] & np.uint8(0xFE)) > 0)
        if a.kind == "managed":
            pages = a.page_range(off, off + nbytes)
            a.where[pages] = np.where(a.where[pages] == 0, CPU_BIT, a.where[pages])
        if on_gpu:
            direction = "h2d" if to_array else "d2h"
            # the driver stages the copy through pinned buffers chunk by chunk, so the CPU's
            # memcpy into the staging buffers and the DMA overlap: the slower of the two
            dur = p.copy_latency_s() + p.host_op("pageable_copy_latency") + max(
                p.copy_cost(nbytes, direction), nbytes / p.host_rate(True, nbytes))
            eng.counters["bytes_" + direction] += nbytes
        else:
            dur = nbytes / p.host_rate(True, nbytes)
        s = self._stream(stream)
        eng.now += p.host_op("copy_submit")
        end = eng.enqueue(s, dur, f"memcpy pageable {'h2d' if to_array else 'd2h'}",
                          [Access(a, a.page_range(off, off + nbytes), bool(to_array), nbytes)],
                          link=("h2d" if to_array else "d2h") if on_gpu else None, kind="copy")
        eng.now = max(eng.now, end)

    def launch(self, kernel: str, grid: int, block: int, args: tuple, stream) -> None:
        twin = TWINS.get(kernel)
        if twin is None:
            raise InvalidArgument(f"kernel {kernel!r} is not in kernels/",
                                  hint=f"available: {sorted(TWINS)}")
        s = self._stream(stream)
        self._submit()
        accesses, run = twin(self.engine.find, *args)
        dur = self.engine.gpu_access(accesses, s.device, start=max(self.engine.now, s.ready))
        if self.compute:
            self.engine.device_writes(accesses, run)
        self.engine.counters["kernels"] += 1
        self.engine.enqueue(s, dur, kernel, accesses)

    def _submit(self):
        """The host's time to submit one kernel (Python + driver; profile ``launch_overhead``):
        the host is busy, and an idle GPU waits for the kernel to arrive."""
        self.engine.now += self.profile.host_op("launch_overhead")

    def launch_user(self, k: UserKernel, stream) -> None:
        """A learner's kernel (umkit.kernel): ``k.cost`` = [(buffer, times read, written?)];
        the twin runs on NumPy views of the buffers."""
        from .engine import Access
        assert k.twin is not None, k.name
        s = self._stream(stream)
        # a learner's kernel: umkit.kernel's launch path (arguments, declared costs, the
        # compiled module's launch) takes the host longer than a built-in kernel's
        self.engine.now += self.profile.p.get("user_launch_overhead",
                                              self.profile.host_op("launch_overhead"))
        eng = self.engine
        accesses = []
        for buf, times, written in k.cost:
            a, off = eng.find(buf.ptr)
            pages = a.page_range(off, off + buf.nbytes)
            nbytes = int(buf.nbytes * (times + (1 if written else 0)))
            accesses.append(Access(a, pages, bool(written), nbytes, passes=max(1.0, float(times))))
        dur = eng.gpu_access(accesses, s.device, flops=k.flops, start=max(eng.now, s.ready))
        if self.compute:
            views = []
            for x in k.args:
                if isinstance(x, Buffer):
                    a, off = eng.find(x.ptr)
                    views.append(a.data[off:off + x.nbytes].view(x.dtype).reshape(x.shape))
                else:
                    views.append(x)
            eng.device_writes(accesses, lambda: k.twin(*views))
        eng.counters["kernels"] += 1
        eng.enqueue(s, dur, k.name, accesses)

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
        a, _ = self.engine.find(ptr)
        return a.snapshot(), a.host_page

    def model_profile(self):
        return self.profile
