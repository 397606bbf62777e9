"""The migration engine: one façade over the simulator's parts.

The parts, each in its own module: the clock and the streams (:mod:`.clock`), the address space
with its page tables and page moves (:mod:`.address_space`), GPU faults and the prefetchers
(:mod:`.faults`), the host side (:mod:`.host`), races (:mod:`.races`), copies (:mod:`.copies`),
the counters and the trace (:mod:`.record`); costs come from the profile (:mod:`.costs`), vendor
rules from the policy (:mod:`.policy`).  :class:`Engine` builds them around one profile and
offers the operations the backend adapter needs, each one step under the engine's lock.

Model time only (``Engine.now``, seconds): the same program gives the same numbers anywhere.
"""
from __future__ import annotations

import functools
import threading

import numpy as np

from .address_space import AddressSpace
from .clock import Clock, SimEvent, SimStream
from .copies import plan_memcpy, plan_pageable
from .costs import Profile, refuse_if_sealed
from .faults import DensityPrefetcher, Faults, KernelCost
from .host import FaultPathCache, Host
from .pages import CPU_BIT, CPU_ID, PAGE_STATES, Access, Allocation
from .policy import policy_for
from .races import InFlight, RaceDetector
from .record import COUNTERS, Record
from .thrashing import Thrashing

__all__ = ["Engine", "COUNTERS", "Access", "SimEvent", "SimStream", "KernelCost"]


def _copy_bytes(da: Allocation, do: int, sa: Allocation, so: int, nbytes: int) -> None:
    """Bytes [so, so + nbytes) of ``sa`` to offset ``do`` of ``da``.  Bytes not allocated yet
    (model-only) read as zero: nothing to do where neither side has any."""
    if sa.has_data:
        da.data[do:do + nbytes] = sa.data[so:so + nbytes]
    elif da.has_data:
        da.data[do:do + nbytes] = 0


def locked(fn):
    """Run an :class:`Engine` method under the engine's lock (one re-entrant lock guards all of
    the engine's shared state: the allocation table, page tables, counters, streams, work in
    flight).  Threads take turns inside the model; NumPy arithmetic on the data runs outside."""
    @functools.wraps(fn)
    def run_locked(self, *args, **kwargs):
        with self.lock:
            watcher = getattr(self, "watcher", None)
            if watcher is None:
                return fn(self, *args, **kwargs)
            # the per-allocation accounting seam (umkit.plan): ``engine.watcher`` sees each
            # operation before and after it runs, with its arguments and its result
            watcher.before(fn.__name__, args, kwargs)
            out = fn(self, *args, **kwargs)
            watcher.after(fn.__name__, args, kwargs, out)
            return out
    return run_locked


class Engine:
    """The simulator of one process's GPUs: ``gpus`` of them, costs from ``profile``;
    ``strict``: a race raises RaceDetected (else a RaceWarning); ``prefetcher``: the density
    prefetcher runs where the policy has one; ``trace``: how many operations the trace keeps;
    ``pages``: how page state is kept, ``"dense"`` (a NumPy entry per page) or ``"extents"``
    (runs of pages in one state: model-only, sizes up to TiBs; ``pages.PAGE_STATES``);
    ``eager``: allocations get their bytes at once (else when a view or a copy needs them)."""

    def __init__(self, profile: Profile, gpus: int = 1, strict: bool = False,
                 prefetcher: bool = True, trace: int = 2000, pages: str = "dense",
                 eager: bool = True):
        refuse_if_sealed("a simulator")        # a check running a learner's formula (costs.sealed)
        # checked at the public API (umkit.use: context._sim_options); here only asserted
        assert not isinstance(gpus, bool) and isinstance(gpus, (int, np.integer)) \
            and 1 <= gpus <= 7, f"gpus={gpus!r}"
        assert isinstance(strict, (bool, np.bool_)) and isinstance(prefetcher, (bool, np.bool_))
        assert pages in PAGE_STATES and isinstance(eager, bool), (pages, eager)
        gpus, strict, prefetcher = int(gpus), bool(strict), bool(prefetcher)
        self.profile, self.gpus, self.strict, self.prefetcher = profile, gpus, strict, prefetcher
        #: the vendor semantics (umkit/sim/policy.py): the parts ask it, never the vendor name
        self.policy = policy = policy_for(profile.vendor, profile.mode, profile.platform)
        self.lock = threading.RLock()
        self.clock = Clock(profile)
        self.record = Record(self.clock, trace)
        #: NVIDIA UVM's thrashing throttle (thrashing.py), where the policy has one
        self.thrashing = Thrashing(profile, policy.thrashing_throttle, self.record)
        self.space = AddressSpace(profile, policy, gpus, self.clock, self.record, pages, eager,
                                  self.thrashing)
        density = DensityPrefetcher(profile, self.space, self.record,
                                    prefetcher and policy.density_prefetcher)
        fault_path = FaultPathCache(profile)
        self.faults = Faults(profile, policy, self.clock, self.space, self.record, density,
                             fault_path)
        self.host = Host(profile, policy, self.space, self.record, density, fault_path)
        self.detector = RaceDetector(self.clock, self.record, strict)

    # -- what the parts hold -------------------------------------------------------------------
    @property
    def now(self) -> float:
        """The host's model time (seconds)."""
        return self.clock.now

    @property
    def allocs(self) -> dict[int, Allocation]:
        """The live allocations by address."""
        return self.space.allocs

    @property
    def streams(self):
        """The live streams by id."""
        return self.clock.streams

    @property
    def counters(self) -> dict:
        return self.record.counters

    @property
    def trace(self):
        return self.record.trace

    @property
    def inflight(self) -> list[InFlight]:
        return self.detector.inflight

    @property
    def races(self) -> list[dict]:
        """The first races found (up to ``races.RACE_EXAMPLES``)."""
        return self.detector.examples

    @property
    def races_seen(self) -> int:
        """How many races were found."""
        return self.detector.seen

    @locked
    def reset_counters(self) -> None:
        self.record.reset()
        self.detector.reset()

    @locked
    def find(self, ptr: int) -> tuple[Allocation, int]:
        """The live allocation holding ``ptr`` and the offset of ``ptr`` in it."""
        return self.space.find(ptr)

    @locked
    def device_bytes(self, g: int) -> int:
        """VRAM of GPU ``g`` held by device allocations (the part nothing can evict)."""
        return self.space.device_bytes(g)

    @locked
    def gpu_resident_bytes(self, g: int) -> int:
        return self.space.gpu_resident_bytes(g)

    # -- allocation ----------------------------------------------------------------------------
    @locked
    def malloc(self, nbytes: int, kind: str, device: int) -> int:
        p, log = self.profile, self.record.log
        a = self.space.new(nbytes, kind, device)
        if kind == "device":
            # VRAM is one budget.  Device memory (and nothing else) is unevictable; managed
            # pages on the GPU are evicted to make room for a device allocation, as both
            # drivers do: NVIDIA UVM registers eviction callbacks with the physical memory
            # allocator so that RM allocations (cudaMalloc) can take memory UVM holds
            # (kernel-open/nvidia-uvm/uvm_pmm_gpu.c: uvm_pmm_gpu_pma_evict_range/_pages);
            # amdgpu lets TTM evict SVM buffer objects even for the same process
            # (amdgpu_amdkfd_fence.c: amdkfd_fence_check_mm, "for svm bo, which support vram
            # overcommitment, always return FALSE"), and the eviction fence migrates those
            # ranges to system memory (kfd_svm.c: svm_range_evict_svm_bo_worker).
            need = self.space.admit_device_memory(a)
            t = self.space.make_room(device, need, {}).seconds   # managed pages move out first
            self.clock.advance(p.device_memory_cost(nbytes) + t)
            log("malloc_device", "kmd", f"{nbytes} B of VRAM mapped"
                + (f" after evicting managed pages ({t * 1e3:.3f} ms)" if t else ""))
        elif kind == "pageable":        # plain malloc'd host memory (umkit.pageable): no GPU
            log("malloc_pageable", "umd", f"{nbytes} B of ordinary host memory")
        elif kind == "pinned":
            self.clock.advance(p.alloc_pinned_per_mib * max(1.0, nbytes / 2**20))
            log("malloc_pinned", "kmd", f"{nbytes} B of host memory pinned")
        else:
            self.clock.advance(p.alloc_managed)
            if self.policy.managed_alloc_populates:
                # AMD, XNACK off: the SVM ioctl maps the range for the GPUs at once, faulting
                # every page in on the CPU side (ledger: amd.xnack0.alloc_maps): the first
                # touch happens here, page by page, at what a CPU first touch costs
                a.where[:] = CPU_BIT
                self.record.counters["first_touch_pages"] += a.npages
                self.clock.advance(a.npages * (p.first_touch_latency + a.host_page / p.host_mem_bw))
                log("malloc_managed", "kmd", f"{nbytes} B registered as an SVM range and mapped "
                    f"for the GPUs (XNACK off): {a.npages} pages faulted in on the CPU")
            elif self.policy.managed_alloc_layer == "kmd":     # AMD: one KFD SVM ioctl
                log("malloc_managed", "kmd", f"{nbytes} B of address range registered "
                    "with the KMD as an SVM range (one ioctl); no physical page yet")
            else:
                log("malloc_managed", "umd", f"{nbytes} B of address range recorded; "
                    "no physical page yet")
        if kind in ("device", "pinned"):
            # mapping new memory into the GPUs' page tables: deferred work for their next op
            for g in ([device] if kind == "device" else range(self.gpus)):
                self.clock.defer(g, "map_flush_latency")
        return self.space.place(a)

    @locked
    def retire(self, ptr: int) -> None:
        """The owner freed the allocation at ``ptr`` while views of it live (it is released when
        they die): from now on every use through those views is a use after free."""
        self.space.find(ptr)[0].retired = True

    @locked
    def free(self, ptr: int) -> Allocation:
        a = self.space.remove(ptr)
        # unmapping from the GPUs' page tables: deferred work for their next op
        for g in self.space.mapped_on(a):
            self.clock.defer(g, "unmap_flush_latency")
        self.detector.forget(a)
        # the host's time in the free call: unmapping and releasing the range (profile
        # free_managed / free_device (+ its part by size) / free_pinned_per_mib; 0 where the
        # profile has none)
        p = self.profile
        if a.kind == "pinned":
            self.clock.advance(p.host_op("free_pinned_per_mib") * max(1.0, a.nbytes / 2**20))
        elif a.kind == "device":
            self.clock.advance(p.device_memory_cost(a.nbytes, free=True))
        else:
            self.clock.advance(p.host_op("free_" + a.kind))
        self.record.log("free", "kmd" if a.kind != "managed" or a.where.any() else "umd")
        return a

    # -- advice ----------------------------------------------------------------------------------
    @locked
    def advise(self, a: Allocation, pages: np.ndarray, advice: str, dev: int, unset: bool) -> None:
        """Record ``advice`` on ``pages`` of ``a`` (``dev``: the device it names, CPU_ID for the
        host); no page moves.  The host is held for the driver's work on the range's existing
        pages (``Profile.advise_cost``)."""
        w = a.where[pages]
        on_cpu = int(np.count_nonzero(w & CPU_BIT)) * a.host_page
        on_gpu = int(np.count_nonzero(w & ~CPU_BIT)) * a.host_page
        self.clock.advance(self.profile.advise_cost(advice, unset, on_cpu, on_gpu))
        self.space.advise(a, pages, advice, dev, unset)
        self.record.log(f"advise:{advice}{':unset' if unset else ''}", "kmd",
                        "policy recorded; no page moves")

    @locked
    def range_attributes(self, a: Allocation, pages: np.ndarray) -> dict:
        """The advice ``pages`` share (see :meth:`AddressSpace.attributes`)."""
        return self.space.attributes(a, pages)

    # -- streams and time ------------------------------------------------------------------------
    @locked
    def stream(self, device: int = 0, default: bool = False) -> SimStream:
        return self.clock.stream(device, default)

    @locked
    def default_stream(self, device: int = 0) -> SimStream:
        return self.clock.default_stream(device)

    @locked
    def drop_stream(self, s: SimStream) -> None:
        self.clock.drop_stream(s)

    @locked
    def record_event(self, event: SimEvent, s: SimStream) -> None:
        self.clock.record(event, s)
        self.detector.recorded(event, s)

    @locked
    def charge_host(self, key: str) -> None:
        """The host spends the profile's ``key`` (a host-side call time)."""
        self.clock.advance(self.profile.host_op(key))

    @locked
    def enqueue(self, s: SimStream, duration: float, name: str, accesses=(),
                link: str | None = None, kind: str = "kernel") -> float:
        """Put work of ``duration`` on stream ``s``; returns its end time (host does not wait).
        ``link``: the transfer direction it occupies (see :meth:`Clock.schedule`)."""
        return self._enqueue(s, duration, name, accesses, link, kind).end

    def _enqueue(self, s: SimStream, duration: float, name: str, accesses, link, kind):
        """:meth:`enqueue`, returning the :class:`Slot` the work got."""
        self.detector.check_watches()
        slot = self.clock.schedule(s, duration, kind, link)
        if slot.flush:
            self.record.log("mapping_flush", "kmd", f"{slot.flush * 1e6:.0f} us of deferred "
                            f"page-table work on GPU{s.device}")
        self.detector.start(InFlight(slot.end, name, s.id, list(accesses), slot.start,
                                     s.default))
        self.record.log(name, "umd", f"enqueued on stream {s.id}")
        return slot

    @locked
    def synchronize(self, what=None) -> None:
        self.detector.check_watches()
        self.clock.synchronize(what)
        self.detector.waited(what)
        self.detector.check_watches()

    # -- GPU work --------------------------------------------------------------------------------
    @locked
    def kernel_cost(self, accesses: list[Access], g: int, flops: float = 0.0,
                    start: float | None = None) -> KernelCost:
        """What one kernel on GPU ``g`` touching ``accesses`` costs; updates residency
        (:meth:`Faults.kernel`)."""
        return self.faults.kernel(accesses, g, flops, start)

    def gpu_access(self, accesses: list[Access], g: int, flops: float = 0.0,
                   start: float | None = None) -> float:
        """The seconds of :meth:`kernel_cost`."""
        return self.kernel_cost(accesses, g, flops, start).seconds

    @locked
    def launch(self, name: str, s: SimStream, prepare, flops: float = 0.0,
               submit: str | None = "launch_overhead", compute: bool = True) -> float:
        """Submit a kernel to stream ``s``; returns when it ends.  ``prepare(find)`` gives its
        accesses and the NumPy effect (a callable, or None); ``submit``: the host's time to
        submit it -- ``"launch_overhead"`` (a built-in kernel), ``"user"`` (``umkit.kernel``:
        ``user_launch_overhead``, else ``launch_overhead``) or None (a NumPy call on a device
        view: no submit of its own).  ``compute=False``: the costs only, not the effect."""
        p = self.profile
        if submit == "user":
            # a learner's kernel: umkit.kernel's launch path (arguments, declared costs, the
            # compiled module's launch) takes the host longer than a built-in kernel's
            self.clock.advance(p.p.get("user_launch_overhead", p.host_op("launch_overhead")))
        elif submit is not None:
            # the host's time to submit one kernel (Python + driver): the host is busy, and an
            # idle GPU waits for the kernel to arrive
            self.clock.advance(p.host_op(submit))
        accesses, run = prepare(self.space.find)
        dur = self.gpu_access(accesses, s.device, flops=flops, start=max(self.now, s.ready))
        if compute and run is not None:
            self.detector.device_writes(accesses, run)
        self.record.counters["kernels"] += 1
        return self.enqueue(s, dur, name, accesses)

    @locked
    def prefetch(self, a: Allocation, pages: np.ndarray, dest: int, s: SimStream,
                 name: str) -> float:
        """hipMemPrefetchAsync of ``pages`` of ``a`` to ``dest`` (a GPU, or CPU_ID) on ``s``:
        the host's call, then the move on the stream; returns when it ends."""
        self.clock.advance(self.profile.host_op("prefetch_submit"))   # the call's host time
        cost = self.faults.prefetch(a, pages, dest)
        slot = self._enqueue(s, cost.seconds, name, (), "d2h" if dest == CPU_ID else "h2d",
                             "prefetch" if cost.bytes else "prefetch_noop")
        if cost.bytes and self.policy.migration_stops_queues:
            self._stop_queues(slot.start, slot.end, s, "d2h" if dest == CPU_ID else "h2d")
        return slot.end

    def _stop_queues(self, t0: float, t1: float, s: SimStream | None, link: str | None) -> None:
        """AMD, XNACK off: a migration of a GPU-mapped range from ``t0`` to ``t1`` stops every
        queue of the process until KFD's restore work has remapped it (ledger:
        amd.xnack0.quiesce); ``s``/``link``: the stream and link of the migration itself."""
        until = t1 + self.profile.p.get("queue_restore_latency", 0.0)
        self.clock.stop_queues(t0, until, s, link)
        self.detector.delay(t0, until)
        self.record.log("quiesce", "kmd", f"all queues of the process stopped for "
                        f"{(until - t0) * 1e3:.3f} ms (migration + remap)")

    # -- copies ------------------------------------------------------------------------------------
    @locked
    def memcpy(self, dst: int, src: int, nbytes: int, s: SimStream) -> float:
        """A copy-engine copy of ``nbytes`` from address ``src`` to ``dst`` on ``s``."""
        (da, do), (sa, so) = self.space.find(dst), self.space.find(src)
        plan = plan_memcpy(self.profile, da, do, sa, so, nbytes)
        self.detector.device_writes(plan.accesses, lambda: _copy_bytes(da, do, sa, so, nbytes))
        if da.kind == "managed":
            self.space.populate(da, da.page_range(do, do + nbytes), plan.lands)
        if plan.counter:
            self.record.counters[plan.counter] += nbytes
        self.clock.advance(self.profile.host_op("copy_submit"))      # the call's host time
        return self.enqueue(s, plan.seconds, plan.name, plan.accesses, link=plan.link,
                            kind="copy")

    @locked
    def memcpy_pageable(self, ptr: int, host: np.ndarray, nbytes: int, to_array: bool,
                        s: SimStream) -> None:
        """A copy between pageable host memory ``host`` and address ``ptr`` (``to_array``: into
        the allocation); the host waits for it."""
        a, off = self.space.find(ptr)
        plan = plan_pageable(self.profile, a, off, nbytes, to_array)
        raw = host.reshape(-1).view(np.uint8)
        if to_array:
            self.detector.device_writes(plan.accesses, lambda: a.data.__setitem__(
                slice(off, off + nbytes), raw[:nbytes]))
        else:
            raw[:nbytes] = a.data[off:off + nbytes] if a.has_data else 0
        if a.kind == "managed":
            self.space.populate(a, a.page_range(off, off + nbytes), plan.lands)
        if plan.counter:
            self.record.counters[plan.counter] += nbytes
        self.clock.advance(self.profile.host_op("copy_submit"))
        end = self.enqueue(s, plan.seconds, plan.name, plan.accesses, link=plan.link,
                           kind="copy")
        self.clock.wait_for(end)
        self.detector.waited(s)

    # -- host access -------------------------------------------------------------------------------
    @locked
    def cpu_access(self, accesses: list[Access], where: str = "host",
                   streaming: bool | str = False) -> float:
        """The CPU touches ``accesses`` now.  Flags races, charges CPU faults, advances time.
        ``streaming``: memset/memcpy-like work (fills, copies), not arithmetic over the data."""
        self.detector.check_watches()
        self.detector.check_host(accesses, where)
        t = self.host.access(accesses, streaming)
        moved = self.host.migrated
        if moved is not None and self.policy.migration_stops_queues:
            # the CPU faults migrate GPU-mapped pages back: every queue stops meanwhile
            self._stop_queues(self.now + moved[0], self.now + moved[1], None, None)
        self.clock.advance(t)
        return t

    @locked
    def host_view(self, ptr: int, nbytes: int, use=lambda: "unknown") -> tuple[Allocation, int]:
        """A host view of bytes [ptr, ptr + nbytes) is being handed out: the allocation and the
        offset; checks the vendor lets the CPU reach it and races it with work in flight
        (``use``: see :meth:`RaceDetector.handout`)."""
        a, off = self.space.find(ptr)
        self.host.check_view(a)
        self.detector.handout(a, a.page_range(off, off + nbytes), use)
        return a, off

    @locked
    def device_writes(self, accesses, apply) -> None:
        """Run ``apply``: a kernel's or a copy's effect on the bytes (see
        :meth:`RaceDetector.device_writes`)."""
        self.detector.device_writes(accesses, apply)
