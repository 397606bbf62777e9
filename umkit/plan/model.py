"""The access-owner plan's vocabulary (a leaf of :mod:`umkit.plan`): roles, kinds, choices,
bounds, and the :class:`Buffer`.

A recorded loop (:class:`umkit.plan.result.PlanResult`) holds one :class:`Buffer` per buffer (bytes, allocation
kind, lifetime, who touched it and how often, what moved and the faults it took) and the access
pattern of each step, kept once per distinct step (``patterns``; ``step_pattern[i]`` is step
*i*'s).  An operation of a pattern is a list ``[kind, flops, tag, accesses]``:

* ``kind``: ``"gpu"`` (a kernel), ``"cpu"`` (the CPU touching memory), ``"copy"`` (a
  copy-engine copy), ``"sync"`` (the CPU waits for the GPU);
* ``flops``: a kernel's declared arithmetic (0 when unknown);
* ``tag``: how a kernel was submitted (``launch_overhead``, ``user``, ``none``) or, for the
  CPU, what kind of access it was (``""``, ``"stream"``, ``"fill"``);
* ``accesses``: ``[buffer, pages, first, last, nbytes, write]`` each -- how many 4 KiB pages of
  the buffer it touched, the first and last of them, the bytes it read or wrote, and whether
  it wrote.
"""
from __future__ import annotations

from dataclasses import dataclass, field

#: what a buffer is (PyTorch names come from umkit.torch: ``rec.name_torch(model, opt)``)
ROLES = ("parameter", "gradient", "optimizer state", "activation", "user tensor", "array",
         "other")
#: PyTorch's roles: tensors a CUDA kernel computes on (never pinned host memory)
TORCH_ROLES = ("parameter", "gradient", "optimizer state", "activation", "user tensor")
KINDS = ("managed", "device", "pinned", "pageable")
#: what a buffer can be given, in the order preferred when two predict the same time:
#: ``managed+advice``: preferred location the GPU, accessed by the CPU, prefetched to the GPU
#: each step; ``managed+advice-cpu``: preferred location the CPU, accessed by the GPU (the
#: GPU reads it over the link); ``device``: the CPU reaches it through explicit copies of the
#: bytes it touches (pinned staging)
CHOICES = ("device", "managed+prefetch", "managed+advice", "pinned", "managed+advice-cpu",
           "managed")
OPS = ("gpu", "cpu", "copy", "sync")
#: per-buffer totals of what moved and the faults it took (sim's counter names)
MOVED = ("bytes_h2d", "bytes_d2h", "gpu_faults", "cpu_faults", "remote_bytes",
         "prefetch_bytes_h2d", "prefetch_bytes_d2h", "evicted_bytes")
HOST_PAGE = 4096
MAX_BUFFERS = 512       # logical buffers one recording keeps apart (the rest: one "other")
MAX_PATTERNS = 64       # distinct step patterns kept
MAX_OPS = 4096          # operations kept per step
MAX_STEPS = 100_000     # steps one recording keeps (the ECG's bound)


@dataclass
class Buffer:
    """One buffer of a recorded loop.  ``born`` / ``died``: the step it was allocated / freed
    in (None: before the recording / still alive at its end); ``instances``: how many
    allocations it stands for (a temporary made and freed every step is one buffer with one
    instance a step); ``hints``: the prefetches and advice the loop gave it
    (``prefetch_gpu``/``prefetch_cpu``: in how many steps; ``advice``: the advice names);
    ``inferred``: how the touches were known where the records cannot see them (cuda)."""
    id: int
    name: str
    role: str
    kind: str
    nbytes: int
    born: int | None = None
    died: int | None = None
    instances: int = 1
    gpu_ops: int = 0
    cpu_ops: int = 0
    moved: dict = field(default_factory=lambda: dict.fromkeys(MOVED, 0))
    hints: dict = field(default_factory=dict)
    inferred: str = ""

    @property
    def pages(self) -> int:
        return max(1, -(-self.nbytes // HOST_PAGE))


def recorded_choice(b: Buffer) -> str:
    """The choice the recorded loop made for ``b`` (what its kind and hints amount to)."""
    if b.kind in ("device", "pinned"):
        return b.kind
    if b.kind == "pageable":
        return "pinned"
    adv = set(b.hints.get("advice", ()))
    if "preferred_location:cpu" in adv:
        return "managed+advice-cpu"
    if "preferred_location:gpu" in adv:
        return "managed+advice"
    if b.hints.get("prefetch_gpu", 0) >= 2:
        return "managed+prefetch"
    return "managed"


def mib(n: int) -> str:
    return f"{n / 2**20:.2f}" if n < 10 << 20 else f"{n / 2**20:.0f}"


def cadence(steps: list, n: int) -> str:
    """'every step', 'every 10 steps', 'in 3/50 steps' or 'once' for the steps of a touch."""
    if len(steps) == n and n > 1:
        return "every step"
    if len(steps) == 1:
        return f"once (step {steps[0]})"
    gaps = {b - a for a, b in zip(steps, steps[1:])}
    if len(gaps) == 1:
        return f"every {gaps.pop()} steps"
    return f"in {len(steps)}/{n} steps"
