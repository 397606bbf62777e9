"""The cost model, read as the article's §3.2 paragraph.

A kernel that touches pages not resident on its GPU *faults*, one fault per ``fault_granularity``
bytes touched.  The driver services a kernel's faults in *batches* (at most ``fault_batch_max``
per batch, across all the arrays it touches); each batch costs ``fault_batch_latency`` (plus
``fault_unmap_latency`` when it takes pages away from the CPU -- a read-mostly *copy* leaves
the CPU's mapping alone), each 2 MiB ``region`` costs ``fault_region_latency``, and the faulted
``gpu_page`` blocks migrate at the fault-path bandwidth ``fault_bw``.  A kernel that starts on an
idle GPU first wakes the driver's fault service (``fault_wakeup_latency``); kernels queued back to
back behind it find it awake.  The first GPU fault or prefetch in an address range sets the range
up (``fault_range_latency``); small managed allocations share one range, an arena, and its 2 MiB
VA blocks, so the driver's prefetcher -- a bitmap tree per VA block that takes in any subregion
more than 51% resident, grown to 64 KiB big pages -- brings neighbouring buffers along with a
fault.  A kernel that walks its inputs k times (a tiled matrix multiply) faults in k waves, each
at least one batch; a fault into a 2 MiB region whose other pages the GPU still holds rebuilds
its mapping (``fault_split_latency``), and each page returning there that a CPU fault had taken
back and the CPU then wrote costs ``dirty_refault_latency`` more (a prefetch moves such pages at
no extra cost).  A CPU write to a read-mostly page drops the GPU's copy of it; the
next GPU read duplicates such pages again one by one (``dup_refault_latency`` each), and reads
duplicates at ``dup_read_bw``.
``prefetch`` (hipMemPrefetchAsync) holds the host in the call (``prefetch_submit``) and moves pages
in bulk at ``prefetch_h2d_bw`` / ``prefetch_d2h_bw`` after a fixed ``prefetch_gpu_latency`` /
``prefetch_latency``; copies and prefetches in one direction share the link, one after the other;
a kernel queued behind a copy or a prefetch that moved pages waits for that engine
(``copy_handoff_latency``, ``prefetch_handoff_latency``, after any deferred mapping work); the CPU reads pages a prefetch brought
back at the resident rate, but its first write to each 4 KiB page of them costs
``cpu_map_latency``.  Allocating or freeing
GPU-mapped memory leaves page-table work for that GPU's next operation (``map_flush_latency``,
``unmap_flush_latency``), which a device synchronize does instead.  The CPU touching GPU-resident pages takes a CPU
fault per ``gpu_page`` block (``cpu_fault_latency``, plus ``cpu_region_latency`` per region) and
migrates it back at ``cpu_fault_bw``.  Pages mapped remotely (accessed-by advice, pinned host
memory, AMD with XNACK off) are read over the link at ``zero_copy_bw`` with no migration; a
kernel's reads and writes there go opposite ways, ``link_duplex`` of the smaller alongside the
larger.
Resident pages stream at ``hbm_bw`` (GPU) or, on the CPU, at ``host_mem_bw`` when computed over,
``host_copy_bw`` when copied and ``host_fill_bw`` when filled -- faster (``host_cache_*``) when
the access fits in the CPU's cache (``host_cache_bytes``, held as a working set: the access's own
bytes plus those of the other allocations touched since it was last used).  A kernel runs on the GPU of its array
unless a stream says otherwise; pages on another GPU fault across at ``peer_bw`` -- on AMD through
system memory instead (two hops: ``prefetch_d2h_bw``, then ``prefetch_h2d_bw`` or ``fault_bw``),
and with accessed-by advice a GPU of the same xGMI hive (``xgmi_hive_gpus``) maps a peer's pages
and reads them in place at ``peer_link_bw``.  AMD with XNACK off faults every page of a managed
allocation in on the CPU inside the allocation call (``first_touch_latency`` plus a page at
``host_mem_bw`` each), and a migration of such a range stops every stream of every GPU until it
has finished plus ``queue_restore_latency``; on a CPU-coherent platform the CPU touches
GPU-resident pages in place (``cpu_fault_latency`` once, then ``cpu_fault_bw``).  A learner's own
kernel (``umkit.kernel``) declares what it costs beyond one pass over its arrays -- how often it
re-reads its inputs and its ``flops`` -- and takes whichever is longer: its memory traffic, or its
arithmetic at the achieved ``fp32_flops``.  The host's own time per call counts too: submitting a
kernel (``launch_overhead``; a learner's ``umkit.kernel``: ``user_launch_overhead``), a copy
(``copy_submit``; from pageable memory, staged: ``pageable_copy_latency`` more), a prefetch (``prefetch_submit``),
``umkit.timer``'s own time between its start event and the block (``event_overhead``), freeing
memory (``free_*``), one NumPy call on a host view (``host_call_latency``) -- an idle GPU waits
for it.  Advice is not free either: one ``advise`` call holds the host for ``advise_latency``
plus work per MiB of the range's pages that exist (a range nothing touched yet costs the call
alone), by what the driver does for that advice -- read-mostly on pages the CPU holds
(``advise_read_mostly_cpu_per_mib``) or a GPU holds (``advise_read_mostly_gpu_per_mib``),
preferred location on pages the CPU holds, set or unset (``advise_preferred_per_mib``),
accessed-by on any resident page (``advise_accessed_by_per_mib``); unsetting read-mostly or
accessed-by costs the call alone.  The CPU touching X bytes pushes ``1 - exp(-X /
fault_cold_bytes)`` of what the driver's fault path uses on the host out of the CPU's caches:
the next kernel that wakes the fault service pays that part of ``fault_cold_latency`` for
bringing it back, and each one that wakes it after that ``fault_cold_decay`` of what the one
before it paid (the path warms over a few faults, not at once).
A host whose CPU runs slower than the one a profile was measured with (hosts of the same card
differ; the card does not) multiplies every host-side time and divides every
host-side rate by ``host_speed`` -- ``umkit calibrate --compare`` fits that one number on a run's
fit set.
Every number comes from a profile file whose entries cite their source.
"""
from __future__ import annotations

import contextlib
import contextvars
import json
import math
import os
import stat
from dataclasses import dataclass, field
from numbers import Real
from pathlib import Path

from ..errors import InvalidArgument, InvalidType, UmkitError

PROFILE_DIR = Path(__file__).parent / "profiles"
DEFAULT_PROFILE = "h200-pcie5"
REQUIRED = (
    "host_page", "gpu_page", "region", "fault_granularity", "fault_batch_max",
    "fault_batch_latency", "fault_unmap_latency", "fault_region_latency", "fault_bw",
    "cpu_region_latency",
    "prefetch_h2d_bw", "prefetch_d2h_bw", "prefetch_latency", "cpu_fault_latency", "cpu_fault_bw",
    "zero_copy_bw", "pinned_h2d_bw", "pinned_d2h_bw", "hbm_bw", "host_mem_bw", "kernel_launch",
    "alloc_managed", "alloc_device", "alloc_pinned_per_mib", "sync_device", "sync_stream",
    "sync_event", "vram", "map_cost_per_mib", "peer_bw", "first_touch_latency",
)
#: parameters a profile may have (the model does without them when absent)
OPTIONAL = ("fp32_flops", "copy_latency", "host_copy_bw", "fault_latency", "launch_overhead",
            "event_overhead", "copy_submit", "prefetch_submit", "prefetch_gpu_latency",
            "host_cache_bytes", "host_cache_bw", "host_cache_copy_bw", "free_managed",
            "free_device", "free_pinned_per_mib", "dup_refault_latency", "fault_wakeup_latency",
            "host_fill_bw", "host_cache_fill_bw", "dup_read_bw", "fault_range_latency",
            "map_flush_latency", "unmap_flush_latency",
            "host_call_latency", "stream_first_latency", "copy_handoff_latency",
            "prefetch_handoff_latency", "cpu_map_latency", "fault_split_latency",
            "user_launch_overhead", "pageable_copy_latency", "link_duplex",
            "dirty_refault_latency", "queue_restore_latency", "peer_link_bw", "xgmi_hive_gpus",
            "advise_latency", "advise_read_mostly_cpu_per_mib", "advise_read_mostly_gpu_per_mib",
            "advise_preferred_per_mib", "advise_accessed_by_per_mib",
            "fault_cold_latency", "fault_cold_decay", "fault_cold_bytes",
            "thrashing_lapse", "thrashing_threshold", "thrashing_nap",
            "alloc_device_per_sqrt_mib", "free_device_per_sqrt_mib")
#: the parts of the model the host's CPU does (its Python and driver calls, its memory traffic,
#: the page work of CPU faults and of migrations to the CPU): ``host_speed`` scales these and
#: nothing else.  Times are multiplied by it ...
HOST_TIMES = ("kernel_launch", "alloc_managed", "alloc_device", "alloc_pinned_per_mib",
              "sync_device", "sync_stream", "sync_event", "first_touch_latency",
              "cpu_fault_latency", "cpu_region_latency", "launch_overhead", "event_overhead",
              "copy_submit", "free_managed", "free_device", "free_pinned_per_mib",
              "host_call_latency", "prefetch_submit", "cpu_map_latency", "user_launch_overhead",
              "pageable_copy_latency", "stream_first_latency", "map_flush_latency",
              "unmap_flush_latency",
              # advice: the driver's walk of the range's pages runs in the calling thread
              "advise_latency", "advise_read_mostly_cpu_per_mib",
              "advise_read_mostly_gpu_per_mib", "advise_preferred_per_mib",
              "advise_accessed_by_per_mib",
              # the CPU refilling its caches from DRAM with what the fault path uses
              "fault_cold_latency",
              "alloc_device_per_sqrt_mib", "free_device_per_sqrt_mib")
#: the sizes the H200's device allocations were measured at (``alloc_device_per_sqrt_mib``; a
#: profile with a part by size uses this range too): a smaller or larger allocation costs what
#: the nearest end does.  Beyond 8 MiB that is an extrapolation: one microbenchmark of 64 and
#: 256 MiB (benchmarks/results/2026-11-29-h200-microbench.json) allocated at about the 8 MiB
#: cost, but its frees took 1.8-2.4x the modelled one
DEVICE_SIZES = (16 * 2**10, 8 * 2**20)


def device_size_term(nbytes: int) -> float:
    """The size part of a device allocation's cost, per ``*_device_per_sqrt_mib``: the square
    root of the size in MiB, the size held to DEVICE_SIZES (the fit in
    umkit measure fit's direct stage uses the same)."""
    lo, hi = DEVICE_SIZES
    return math.sqrt(min(max(nbytes, lo), hi) / 2**20)
#: The GPU fault service is left out of HOST_TIMES although the driver runs it on a CPU kernel
#: thread (NVIDIA UVM: uvm_gpu_isr.c queues replayable_faults_isr_bottom_half_entry, which calls
#: uvm_parent_gpu_service_replayable_faults in uvm_gpu_replayable_faults.c): on H200 hosts whose
#: CPU was slow the GPU fault read was no slower, so what varies with the host is its
#: memory-bound work, not the fault service (the measurements: docs/model-history.md, "Rounds
#: and host speed").  The one host part of a fault read is fault_cold_latency (HOST_TIMES): the
#: CPU refilling its caches after a sweep, a fraction of a millisecond.
GPU_FAULT_SERVICE = ("fault_batch_latency", "fault_unmap_latency", "fault_region_latency",
                     "fault_wakeup_latency", "fault_latency", "fault_range_latency",
                     "fault_split_latency", "dup_refault_latency", "dirty_refault_latency",
                     # (AMD, XNACK off: KFD's restore work after a quiesce, a 1 ms timer first)
                     "queue_restore_latency")
#: ... and rates divided by it (the device->host migration rates: the CPU populates and maps
#: the pages it receives)
HOST_RATES = ("host_mem_bw", "host_copy_bw", "host_fill_bw", "host_cache_bw",
              "host_cache_copy_bw", "host_cache_fill_bw", "prefetch_d2h_bw", "cpu_fault_bw")
#: the range ``host_speed`` may take
HOST_SPEED_RANGE = (0.25, 4.0)
#: parameters the model divides by (or counts in): must be > 0
POSITIVE = ("host_page", "gpu_page", "region", "fault_batch_max", "fault_bw", "prefetch_h2d_bw",
            "prefetch_d2h_bw", "cpu_fault_bw", "zero_copy_bw", "pinned_h2d_bw", "pinned_d2h_bw",
            "hbm_bw", "host_mem_bw", "vram", "peer_bw")
MODES = ("migrate", "zero_copy", "apu")
VENDORS = ("nvidia", "amd")
#: how the GPU's memory is attached to the CPU (profile JSON "platform", optional; the policy
#: asks it where the driver differs, umkit/sim/policy.py): ``pcie`` (device-private VRAM, a CPU
#: touch migrates), ``cpu-coherent`` (amdkfd's device-coherent VRAM: the CPU reads GPU-resident
#: pages in place), ``cpu-coherent-olcf-observed`` (a CPU-coherent Frontier node modelled as
#: OLCF's table observes it: migrate on touch), ``apu`` (one physical memory)
PLATFORMS = ("pcie", "cpu-coherent", "cpu-coherent-olcf-observed", "apu")
#: the largest profile file read (the shipped ones are ~10 KiB)
MAX_PROFILE_BYTES = 1 << 20
_UNIT = {"B": 1.0, "faults": 1.0, "us": 1e-6, "ms": 1e-3, "s": 1.0, "GB/s": 1e9, "B/s": 1.0,
         "TFLOP/s": 1e12, "fraction": 1.0, "GPUs": 1.0}
#: the largest SI value a parameter of each unit may take (a profile's or an override's): far
#: beyond any machine (256 TiB, an hour, 1 PB/s, ...), so a unit slip or 1e300 is refused
#: before it overflows the model
_UNIT_MAX = {"B": float(1 << 48), "faults": 1e9, "us": 3600.0, "ms": 3600.0, "s": 3600.0,
             "GB/s": 1e15, "B/s": 1e15, "TFLOP/s": 1e18, "fraction": 1.0, "GPUs": 64.0}


#: while set (in this thread's context), the prefetch cost methods refuse to answer: an exercise
#: that asks a learner to write the prefetch formula runs the learner's function under
#: :func:`sealed`, so the formula cannot be had by calling the model it is checked against
_SEALED: contextvars.ContextVar[str] = contextvars.ContextVar("umkit_sim_costs_sealed", default="")


@contextlib.contextmanager
def sealed(why: str):
    """Within the block (this thread's context only), :meth:`Profile.prefetch_cost` and
    :meth:`Profile.prefetch_fixed` raise :class:`~umkit.errors.UmkitError` with ``why`` as its
    hint, and so does building a simulator (:class:`~umkit.sim.engine.Engine`); the rest of the
    model answers as usual."""
    if not isinstance(why, str) or not why.strip():
        raise InvalidType("why must be a non-empty string: what to do instead", argument="why")
    token = _SEALED.set(why)
    try:
        yield
    finally:
        _SEALED.reset(token)


def refuse_if_sealed(what: str) -> None:
    """Raise :class:`~umkit.errors.UmkitError` while :func:`sealed` is on (this thread's
    context): ``what`` (e.g. "a simulator") does not run while a check runs a learner's formula,
    so a formula cannot be had from a simulator run either."""
    why = _SEALED.get()
    if why:
        raise UmkitError(f"{what} does not run while this check runs your formula", hint=why)


def _unsealed(method: str) -> None:
    why = _SEALED.get()
    if why:
        raise UmkitError(f"the model's {method}() does not answer while this check runs your "
                         "formula", hint=why)


@dataclass
class Profile:
    """A hardware profile in SI units (bytes, seconds, bytes/second)."""
    name: str
    title: str
    vendor: str
    mode: str                      # migrate | zero_copy | apu
    teaching: bool
    p: dict = field(default_factory=dict)        # SI values
    sources: dict = field(default_factory=dict)  # key -> source text
    #: where the numbers come from, in words a learner can be shown (profile JSON
    #: "provenance"; "measured" when no parameter is an estimate)
    provenance: str = ""
    #: how many times slower this host's CPU is than the profile's (1.0: as measured;
    #: see :data:`HOST_TIMES`, :data:`HOST_RATES`)
    host_speed: float = 1.0
    #: how the GPU's memory is attached to the CPU (:data:`PLATFORMS`; "" where the profile
    #: does not say)
    platform: str = ""

    def is_estimate(self, key: str) -> bool:
        """True when parameter ``key`` is not a published number (its source says
        "estimate: ..."): anything that shows it to a learner must say so."""
        return self.sources.get(key, "").lower().lstrip().startswith("estimate")

    @property
    def estimates(self) -> list[str]:
        """The parameters of this profile that are estimates."""
        return [k for k in self.sources if self.is_estimate(k)]

    def __getattr__(self, key):
        try:
            return self.__dict__["p"][key]
        except KeyError:
            raise AttributeError(key) from None

    # -- the §3.2 paragraph, as code ---------------------------------------------------------
    def fault_cost(self, n_faults: int, n_regions: int, nbytes: int, n_moving: int | None = None,
                   min_batches: int = 1) -> float:
        """GPU faults serviced in batches, region by region, then migrated on the fault path.
        ``n_moving``: how many of the faults take the page away from the CPU (default all);
        ``min_batches``: the waves the faults arrive in (a kernel that walks its inputs k
        times faults in k waves), each at least one batch."""
        if n_faults <= 0:
            return 0.0
        waves = max(1, min(int(min_batches), n_faults))
        batches = max(math.ceil(n_faults / self.fault_batch_max), waves)
        moving = batches if n_moving is None else (
            max(math.ceil(n_moving / self.fault_batch_max), waves) if n_moving else 0)
        return (batches * self.fault_batch_latency + moving * self.fault_unmap_latency
                + n_faults * self.p.get("fault_latency", 0.0)
                + n_regions * self.fault_region_latency + nbytes / self.fault_bw)

    def advise_cost(self, advice: str, unset: bool, cpu_bytes: int, gpu_bytes: int) -> float:
        """The host's time for one advice call on a range whose existing pages hold
        ``cpu_bytes`` on the CPU and ``gpu_bytes`` on GPUs (a duplicated page counts on both)."""
        g = self.p.get
        MiB = float(1 << 20)
        t = g("advise_latency", 0.0)
        if advice == "read_mostly" and not unset:
            t += (cpu_bytes * g("advise_read_mostly_cpu_per_mib", 0.0)
                  + gpu_bytes * g("advise_read_mostly_gpu_per_mib", 0.0)) / MiB
        elif advice == "preferred_location":
            t += cpu_bytes * g("advise_preferred_per_mib", 0.0) / MiB
        elif advice == "accessed_by" and not unset:
            t += (cpu_bytes + gpu_bytes) * g("advise_accessed_by_per_mib", 0.0) / MiB
        return t

    def prefetch_cost(self, nbytes: int, to_gpu: bool) -> float:
        _unsealed("prefetch_cost")
        bw = self.prefetch_h2d_bw if to_gpu else self.prefetch_d2h_bw
        return self.prefetch_fixed(to_gpu) + nbytes / bw

    def prefetch_fixed(self, to_gpu: bool) -> float:
        """Fixed device-side cost of one prefetch: ``prefetch_gpu_latency`` toward a GPU (where
        present), ``prefetch_latency`` otherwise."""
        _unsealed("prefetch_fixed")
        return self.p.get("prefetch_gpu_latency", self.prefetch_latency) if to_gpu \
            else self.prefetch_latency

    def cpu_fault_cost(self, n_faults: int, n_regions: int, nbytes: int) -> float:
        """CPU faults on GPU-resident pages: per fault, per region, and the bytes back."""
        if n_faults <= 0:
            return 0.0
        return (n_faults * self.cpu_fault_latency + n_regions * self.cpu_region_latency
                + nbytes / self.cpu_fault_bw)

    def remote_cost(self, nbytes: int) -> float:
        return nbytes / self.zero_copy_bw

    def link_cost(self, read: int, written: int) -> float:
        """One kernel's zero-copy traffic: ``read`` bytes come host->device, ``written`` go
        device->host.  The link is full duplex: a fraction ``link_duplex`` of the smaller
        direction travels alongside the larger (0, or absent: one after the other)."""
        d = self.p.get("link_duplex", 0.0)
        hi, lo = max(read, written), min(read, written)
        return (hi + (1.0 - d) * lo) / self.zero_copy_bw

    def same_hive(self, g: int, h: int) -> bool:
        """GPUs ``g`` and ``h`` are in one xGMI hive: consecutive device ids in groups of
        ``xgmi_hive_gpus`` (1 where the profile has none: no GPU shares a hive)."""
        n = max(1, int(self.p.get("xgmi_hive_gpus", 1)))
        return g // n == h // n

    def copy_latency_s(self) -> float:
        """Fixed cost of one copy-engine copy (``copy_latency``; profiles without it use the
        prefetch call's)."""
        return self.p.get("copy_latency", self.prefetch_latency)

    def host_rate(self, streaming: bool | str, span: float | None = None) -> float:
        """The CPU's rate over host-resident memory: ``host_fill_bw`` for a memset (a scalar
        stored into a range, ``streaming="fill"``), ``host_copy_bw`` for memcpy-like work
        (copies, assignments from arrays), ``host_mem_bw`` for computing over the data (a
        sum).  An access whose working set ``span`` (``host.CpuCache.span``: its own bytes
        plus the other allocations' touched since its last use) is at most ``host_cache_bytes``
        stays in the CPU's caches and runs at the ``host_cache_*`` rates (where the profile has
        them)."""
        p = self.p
        kind = "fill" if streaming == "fill" else "copy" if streaming else "mem"
        cached = span is not None and "host_cache_bytes" in p and span <= p["host_cache_bytes"]
        order = {"fill": ("host_fill_bw", "host_copy_bw"), "copy": ("host_copy_bw",),
                 "mem": ()}[kind]
        if cached:
            for k in tuple("host_cache_" + o[len("host_"):] for o in order) + (
                    () if kind != "mem" else ("host_cache_bw",)):
                if k in p:
                    return p[k]
        for k in order:
            if k in p:
                return p[k]
        return self.host_mem_bw

    def device_memory_cost(self, nbytes: int, free: bool = False) -> float:
        """The host's time in one device allocation (``free``: its free) of ``nbytes``:
        ``alloc_device`` plus ``alloc_device_per_sqrt_mib`` times the square root of the size in
        MiB (``free_device`` ...), the size held to DEVICE_SIZES, where it was measured."""
        key = "free_device" if free else "alloc_device"
        return self.host_op(key) + self.host_op(key + "_per_sqrt_mib") * device_size_term(nbytes)

    def host_op(self, key: str) -> float:
        """The host's own time for one API call (``launch_overhead``, ``event_overhead``,
        ``copy_submit``, ``prefetch_submit``, ``free_managed`` ...; 0 where absent)."""
        return self.p.get(key, 0.0)

    def copy_cost(self, nbytes: int, direction: str) -> float:
        bw = {"h2d": self.pinned_h2d_bw, "d2h": self.pinned_d2h_bw,
              "d2d": self.hbm_bw / 2, "h2h": self.host_rate(True)}[direction]
        return nbytes / bw

    def describe(self) -> str:
        return f"{self.name}: {self.title} (mode {self.mode})"


def available_profiles() -> list[str]:
    return sorted(p.stem for p in PROFILE_DIR.glob("*.json") if "facts" not in p.stem)


def _read_profile_file(path: Path, shown: str) -> dict:
    """The JSON object in ``path``; every way it can be wrong is a typed umkit error."""
    hint_file = "pass a profile name (" + ", ".join(available_profiles()) + ") or a JSON file"
    try:
        st = os.stat(path)          # stat does not open: a FIFO or a device can't block us here
    except OSError as e:
        raise InvalidArgument(f"profile {shown!r} not found ({e.strerror})", argument="profile",
                              hint=hint_file) from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode) \
            else "a device or socket"
        raise InvalidArgument(f"profile {shown!r} is not a regular file (it is {kind})",
                              hint=hint_file)
    if st.st_size > MAX_PROFILE_BYTES:
        raise InvalidArgument(f"profile {shown!r} is too large ({st.st_size} B; a profile is a "
                              f"few KiB, the limit is {MAX_PROFILE_BYTES} B)", hint=hint_file)
    try:                            # O_NONBLOCK: if the file was swapped for a FIFO meanwhile
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        raise InvalidArgument(f"profile {shown!r} cannot be opened ({e.strerror})",
                              hint="check the file's permissions") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise InvalidArgument(f"profile {shown!r} is not a regular file", hint=hint_file)
        data = f.read(MAX_PROFILE_BYTES + 1)
    if len(data) > MAX_PROFILE_BYTES:
        raise InvalidArgument(f"profile {shown!r} is too large (over {MAX_PROFILE_BYTES} B)",
                              hint=hint_file)

    def no_constant(name):
        raise ValueError(f"{name} is not a number JSON allows")
    try:
        doc = json.loads(data.decode("utf-8"), parse_constant=no_constant)
    except UnicodeDecodeError as e:
        raise InvalidArgument(f"profile {shown!r} is not UTF-8 text ({e.reason} at byte "
                              f"{e.start})", hint="save the profile as UTF-8 JSON") from None
    except json.JSONDecodeError as e:
        raise InvalidArgument(f"profile {shown!r} is not valid JSON: {e.msg} (line {e.lineno}, "
                              f"column {e.colno})",
                              hint="compare it with umkit/sim/profiles/teaching.json") from None
    except RecursionError:
        raise InvalidArgument(f"profile {shown!r} nests too deeply to be a profile",
                              hint="a profile is one object of parameters: compare it with "
                                   "umkit/sim/profiles/teaching.json") from None
    except ValueError as e:         # NaN / Infinity literals
        where = _nonfinite_key(data)
        raise InvalidArgument(f"profile {shown!r}: {where}{e}",
                              hint="every value must be a finite number: write the measured "
                                   "number, or leave the key out of an override") from None
    if not isinstance(doc, dict):
        raise InvalidType(f"profile {shown!r} holds a JSON {type(doc).__name__}, not an object",
                          hint='the file is {"name": ..., "vendor": ..., "mode": ..., '
                               '"params": {...}}, like umkit/sim/profiles/teaching.json')
    return doc


def _nonfinite_key(data: bytes) -> str:
    """Which parameter a NaN/Infinity literal sits in (for the message), best effort."""
    text = data.decode("utf-8", "replace")
    for lit in ("-Infinity", "Infinity", "NaN"):
        at = text.find(lit)
        if at >= 0:
            keys = [k for k in REQUIRED + OPTIONAL if 0 <= text.rfind(f'"{k}"', 0, at)]
            if keys:
                return max(keys, key=lambda k: text.rfind(f'"{k}"', 0, at)) + ": "
    return ""


def _number(v, what: str, hint: str) -> float:
    """A finite number >= 0 (bools are not numbers here)."""
    if isinstance(v, (bool, np_bool_types())) or not isinstance(v, Real):
        raise InvalidType(f"{what}={v!r} must be a number, not {type(v).__name__}", hint=hint)
    v = float(v)
    if not math.isfinite(v) or v < 0:
        raise InvalidArgument(f"{what}={v!r} must be a finite number >= 0", hint=hint)
    return v


def _float(v) -> float:
    """float(v), or inf for an int too large for a float (10**400)."""
    try:
        return float(v)
    except OverflowError:
        return math.inf


def np_bool_types() -> tuple:
    try:
        import numpy as np
        return (np.bool_,)
    except ImportError:         # pragma: no cover - numpy is a dependency
        return ()


def load_profile(name_or_path: str | Path | None = None, *, host_speed: float = 1.0,
                 **overrides) -> Profile:
    """Load a profile by name (see :func:`available_profiles`) or from a JSON path.

    ``overrides`` replace SI values (e.g. ``vram=2**30`` to demonstrate oversubscription).
    ``host_speed`` says how many times slower the host's CPU is than the one the profile was
    measured with: every host-side time (:data:`HOST_TIMES`) is multiplied by it and every
    host-side rate (:data:`HOST_RATES`) divided by it, after the overrides; the card's own
    numbers stay.  ``umkit calibrate --compare`` fits it on a run's fit set (hosts of the same
    card differ; the card does not).
    Every value is checked (a finite number >= 0 with a known unit and a source; known mode,
    vendor; whole-number sizes that nest); a bad one is a typed umkit error naming the field."""
    name_or_path = DEFAULT_PROFILE if name_or_path is None else name_or_path
    if not isinstance(name_or_path, (str, Path)) or not str(name_or_path):
        raise InvalidType(f"profile={name_or_path!r} must be a profile name or a JSON path",
                          argument="profile",
                          hint=f"use one of {available_profiles()}")
    path = Path(name_or_path)
    if not path.suffix:
        path = PROFILE_DIR / f"{name_or_path}.json"
    if not os.path.lexists(path):
        raise InvalidArgument(f"profile {str(name_or_path)!r} not found",
                              hint=f"use one of {available_profiles()} or a path to a JSON file")
    raw = _read_profile_file(path, str(name_or_path) if path.parent == PROFILE_DIR else path.name)
    fix = "compare it with umkit/sim/profiles/teaching.json"
    for key, kinds, allowed in (("name", str, None), ("title", str, None),
                                ("vendor", str, VENDORS), ("mode", str, MODES),
                                ("platform", str, PLATFORMS), ("note", str, None),
                                ("teaching", bool, None)):
        if key not in raw:
            continue
        v = raw[key]
        if not isinstance(v, kinds):
            raise InvalidType(f"profile {path.name}: {key}={v!r} must be "
                              f"{'true or false' if kinds is bool else 'a string'}", hint=fix)
        if allowed and v not in allowed:
            raise InvalidArgument(f"profile {path.name}: {key}={v!r} is unknown",
                                  hint=f"use one of {allowed}")
    params = raw.get("params", {})
    if not isinstance(params, dict):
        raise InvalidType(f"profile {path.name}: params must be an object of "
                          '{"key": {"value": ..., "unit": ..., "source": ...}}', hint=fix)
    missing = [k for k in REQUIRED if k not in params]
    if missing:
        raise InvalidArgument(f"profile {path.name} lacks {missing}",
                              hint="every key of umkit/sim/profiles/README.md is required")
    si, src, units = {}, {}, {}
    for k in REQUIRED + tuple(k for k in OPTIONAL if k in params):
        entry = params[k]
        if not isinstance(entry, dict):
            raise InvalidType(f"profile {path.name}: {k} must be an object "
                              '{"value": ..., "unit": ..., "source": ...}', hint=fix)
        unit = entry.get("unit", "")
        if not isinstance(unit, str) or unit not in _UNIT:
            raise InvalidArgument(f"profile {path.name}: {k} has unknown unit {unit!r}",
                                  hint=f"use one of {sorted(_UNIT)}")
        source = entry.get("source")
        if source is not None and not isinstance(source, str):
            raise InvalidType(f"profile {path.name}: {k}.source={source!r} must be text",
                              hint="cite who measured it, on what, when")
        if not source or not source.strip():
            raise InvalidArgument(f"profile {path.name}: {k} has no source",
                                  hint="cite who measured it, on what, when")
        if "value" not in entry:
            raise InvalidArgument(f"profile {path.name}: {k} has no value", hint=fix)
        si[k] = _number(entry["value"], f"profile {path.name}: {k}.value",
                        f"write {k} as a finite number >= 0 in {unit}") * _UNIT[unit]
        if not math.isfinite(si[k]):
            raise InvalidArgument(f"profile {path.name}: {k}={entry['value']!r} {unit} "
                                  "overflows", hint=f"write {k} as a finite number")
        if si[k] > _UNIT_MAX[unit]:
            raise InvalidArgument(f"profile {path.name}: {k}={entry['value']!r} {unit} is "
                                  f"beyond any machine (at most {_UNIT_MAX[unit] / _UNIT[unit]:g} "
                                  f"{unit})", hint=f"check the unit of {k}")
        src[k] = source
        units[k] = unit
    from ..validate import shown
    for k, v in overrides.items():
        if k not in si:
            raise InvalidArgument(f"unknown profile override {k!r}", hint=f"valid: {REQUIRED}")
        if isinstance(v, (bool, np_bool_types())) or not isinstance(v, Real) \
                or not math.isfinite(_float(v)) or v < 0:
            raise InvalidArgument(f"profile override {k}={shown(v)} must be a finite number "
                                  ">= 0", argument=k,
                                  hint=f"e.g. {k}={si[k]:g} (SI units: bytes, seconds, bytes/s)")
        top = _UNIT_MAX[units[k]]
        if _float(v) > top:
            raise InvalidArgument(f"profile override {k}={shown(v)} is beyond any machine (at "
                                  f"most {top:g} in SI units)", argument=k,
                                  hint=f"e.g. {k}={si[k]:g} (SI units: bytes, seconds, bytes/s)")
        si[k] = float(v)
        src[k] = "override by the caller"
    from ..validate import real
    host_speed = real(host_speed, "host_speed", lo=HOST_SPEED_RANGE[0], hi=HOST_SPEED_RANGE[1],
                      hint="host_speed=1.3 models a host CPU 1.3x slower than the profile's "
                           f"(between {HOST_SPEED_RANGE[0]} and {HOST_SPEED_RANGE[1]})")
    if host_speed != 1.0:
        for k in HOST_TIMES:
            if k in si:
                si[k] *= host_speed
                src[k] += f" [x{host_speed:.3g}: host_speed]"
        for k in HOST_RATES:
            if k in si:
                si[k] /= host_speed
                src[k] += f" [/{host_speed:.3g}: host_speed]"
    if si.get("link_duplex", 0.0) > 1.0:
        raise InvalidArgument(f"profile {path.name}: link_duplex={si['link_duplex']:g} must be "
                              "a fraction between 0 and 1",
                              hint="0: reads and writes cross the link one after the other; "
                                   "1: at once, in its two directions")
    for k in POSITIVE + tuple(k for k in ("peer_link_bw", "xgmi_hive_gpus") if k in si):
        if not si[k] > 0:
            raise InvalidArgument(f"profile {path.name}: {k}={si[k]:g} must be > 0",
                                  hint="sizes, bandwidths and the batch size divide the model's "
                                       "arithmetic: pass a positive number")
    for k in ("host_page", "gpu_page", "region", "fault_granularity", "fault_batch_max") + (
            ("xgmi_hive_gpus",) if "xgmi_hive_gpus" in si else ()):
        if si[k] != int(si[k]):
            raise InvalidArgument(f"profile {path.name}: {k}={si[k]:g} must be a whole number",
                                  hint=f"{k} counts bytes or faults: write an integer")
        si[k] = int(si[k])
    if si["gpu_page"] % si["host_page"] or si["region"] % si["gpu_page"]:
        raise InvalidArgument(f"profile {path.name}: page sizes must nest: host_page "
                              f"({si['host_page']}) | gpu_page ({si['gpu_page']}) | region "
                              f"({si['region']})", hint="e.g. 4096, 65536, 2097152")
    prof = Profile(raw.get("name", path.stem), raw.get("title", ""), raw.get("vendor", "?"),
                   raw.get("mode", "migrate"), bool(raw.get("teaching", False)), si, src,
                   host_speed=host_speed, platform=raw.get("platform", ""))
    prov = raw.get("provenance")
    if prov is not None and (not isinstance(prov, str) or not prov.strip()):
        raise InvalidArgument(f"profile {path.name}: provenance must be a non-empty string",
                              hint="say where the numbers come from, e.g. 'measured on ...'")
    n_est = len(prof.estimates)
    prof.provenance = prov or ("teaching values" if prof.teaching else "measured" if not n_est
                               else f"{n_est} of {len(REQUIRED)} parameters are estimates")
    return prof
