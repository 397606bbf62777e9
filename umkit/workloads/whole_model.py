"""A whole model's training step at its real size: which buffers must breathe, and what each
strategy costs per step.

A :class:`ModelSpec` describes a transformer by its parameter count, its shape and the dtype of
its weights; :func:`model_buffers` lists what one training step holds, per layer:

* **weights** -- ``params x dtype bytes`` (2 for bf16/fp16);
* **gradients** -- the same size, in the same dtype;
* **optimizer state** -- mixed-precision Adam keeps an fp32 master copy of the weights and
  Adam's two moments, 4 + 4 + 4 = 12 bytes per parameter, so with 16-bit weights and gradients
  a step holds 2 + 2 + 12 = **16 bytes per parameter** (Rajbhandari et al., "ZeRO: Memory
  Optimizations Toward Training Trillion Parameter Models", SC 2020, arXiv:1910.02054, §3.1);
  with fp32 weights and gradients it is 4 + 4 + 8 = 16 as well (no master copy);
* **activations** per layer -- with full recomputation (activation checkpointing, usual for
  fine-tuning) only each layer's input, ``2 s b h`` bytes; without it
  ``s b h (34 + 5 a s / h)`` bytes (Korthikanti et al., "Reducing Activation Recomputation in
  Large Transformer Models", 2022, arXiv:2205.05198, §4: s sequence, b micro-batch, h hidden
  size, a attention heads, 16-bit activations);
* the **data batch** -- ``b s`` token ids and as many labels, int32.

The shapes of :data:`MODELS` are Llama 2's 7B, 13B and 70B (layers, hidden size, heads: Touvron
et al., "Llama 2: Open Foundation and Fine-Tuned Chat Models", 2023, arXiv:2307.09288, and the
released model configurations).

:func:`plan_model` answers "which buffers must breathe": the buffers touched most per byte in a
step get the VRAM first (the batch, activations, weights, gradients, then the optimizer state,
touched once, by the optimizer); what does not fit must move in and out every step.
:func:`model_step_costs` runs the step on the simulator in model-only mode (``compute=False``:
page state as extents, no bytes, so 70B fits on this machine) under the kit's strategies
(:data:`umkit.workloads.STRATEGIES`) and reports the model time of a steady-state step.  It
models memory traffic -- faults, migrations, evictions, link reads, HBM streaming -- and not the
matrix arithmetic, which is the same under every strategy.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from .. import api
from .. import validate as V
from ..errors import InvalidArgument, InvalidType, OutOfMemory
from .training import STRATEGIES, counter_delta, strategy

GB = 10**9
DTYPE_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}
#: optimizer-state bytes per parameter (mixed-precision Adam; see the module's text)
ADAM_STATE_BYTES = {"bf16": 12, "fp16": 12, "fp32": 8}
RECOMPUTE = ("full", "none")
#: the largest single array the step allocates (umkit's kernels take int element counts)
PART_BYTES = 4 << 30
#: the order in which buffers get the VRAM: touches per step and byte, most first
HOT_FIRST = ("batch", "activations", "weights", "gradients", "optimizer")
#: the profiles a learner asks about (sim profile names)
CARDS = {"H200": "h200-pcie5", "MI300X": "mi300x", "MI250X GCD": "mi250x-xnack1"}


@dataclass(frozen=True)
class ModelSpec:
    """A transformer described by its size: ``params`` (count), ``layers``, ``hidden`` (size),
    ``heads``; ``dtype`` of weights and gradients (bf16 | fp16 | fp32); ``seq`` and
    ``micro_batch`` of one step; ``recompute``: full (activation checkpointing) | none."""
    name: str
    params: int
    layers: int
    hidden: int
    heads: int
    dtype: str = "bf16"
    seq: int = 4096
    micro_batch: int = 1
    recompute: str = "full"

    def __post_init__(self):
        from .. import validate as V
        V.text(self.name, "name", hint="a label, e.g. '13b'")
        for k, hi in (("params", 10**13), ("layers", 10_000), ("hidden", 1 << 20),
                      ("heads", 4096), ("seq", 1 << 22), ("micro_batch", 1 << 16)):
            object.__setattr__(self, k, V.integer(getattr(self, k), k, lo=1, hi=hi,
                                                  hint=f"a positive whole number for {k}"))
        V.choice(self.dtype, "dtype", tuple(DTYPE_BYTES))
        V.choice(self.recompute, "recompute", RECOMPUTE)


MODELS = {
    "7b": ModelSpec("7b", 6_738_415_616, 32, 4096, 32),
    "13b": ModelSpec("13b", 13_015_864_320, 40, 5120, 40),
    "70b": ModelSpec("70b", 68_976_648_192, 80, 8192, 64),
}


def model(m) -> ModelSpec:
    """A model by name (one of :data:`MODELS`), or a :class:`ModelSpec` as it is."""
    if isinstance(m, ModelSpec):
        return m
    if isinstance(m, str) and m.lower() in MODELS:
        return MODELS[m.lower()]
    if not isinstance(m, str):
        raise InvalidType(f"m={V.short(m)} is not a model name or a ModelSpec", argument="m",
                          hint=f"use one of {list(MODELS)} or a umkit.workloads.ModelSpec")
    raise InvalidArgument(f"model {V.shown(m)} is unknown (m)", argument="m",
                          hint=f"use one of {list(MODELS)} or a umkit.workloads.ModelSpec")


@dataclass(frozen=True)
class Buffer:
    """One buffer of the step: ``kind`` (batch | activations | weights | gradients | optimizer),
    the ``layer`` it belongs to (-1: the whole model) and its size."""
    kind: str
    layer: int
    nbytes: int


def model_buffers(m) -> list[Buffer]:
    """Every buffer one training step of ``m`` holds (see the module's text for the sizes)."""
    m = model(m)
    per_layer = m.params // m.layers
    wb, ob = DTYPE_BYTES[m.dtype], ADAM_STATE_BYTES[m.dtype]
    s, b, h, a = m.seq, m.micro_batch, m.hidden, m.heads
    act = 2 * s * b * h if m.recompute == "full" else int(s * b * h * (34 + 5 * a * s / h))
    out = [Buffer("batch", -1, 2 * 4 * s * b)]
    for layer in range(m.layers):
        n = per_layer + (m.params - per_layer * m.layers if layer == m.layers - 1 else 0)
        out += [Buffer("weights", layer, n * wb), Buffer("gradients", layer, n * wb),
                Buffer("optimizer", layer, n * ob), Buffer("activations", layer, act)]
    return out


@dataclass
class Plan:
    """What fits in ``vram`` bytes: per kind of buffer, its bytes, the bytes that stay in VRAM
    and the bytes that must breathe (move in and out every step)."""
    model: str
    card: str
    vram: int
    total: int
    kinds: dict = field(default_factory=dict)

    @property
    def fits(self) -> bool:
        return self.total <= self.vram

    @property
    def breathing(self) -> list[str]:
        """The kinds of buffer that do not fit whole."""
        return [k for k, v in self.kinds.items() if v["breathes"]]

    def table(self) -> str:
        """The plan as text, in the learner's language (each line a message of the catalogue)."""
        from .. import validate as V       # the model's name is the caller's text: escaped
        from ..runtime.lang import text
        lines = [text(HEAD, model=V.clean(self.model), card=V.clean(self.card),
                      total=self.total / GB, vram=self.vram / GB)]
        for k, v in self.kinds.items():
            lines.append(text(ROW, kind=k, size=v["bytes"] / GB, resident=v["resident"] / GB,
                              breathes=v["breathes"] / GB))
        return "\n".join(lines)


HEAD = "{model} on {card}: {total:.0f} GB of buffers, {vram:.0f} GB of VRAM"
ROW = "  {kind:<12}{size:8.1f} GB   in VRAM {resident:7.1f} GB   breathes {breathes:7.1f} GB"


def plan_model(m, card: str = "H200", vram: int | None = None) -> Plan:
    """Which buffers of ``m`` must breathe on ``card`` (one of :data:`CARDS`, or a sim profile
    name); ``vram``: the card's VRAM in bytes (default: the profile's)."""
    from .. import validate as V
    from ..sim import load_profile
    m = model(m)
    V.text(card, "card", hint=f"one of {sorted(CARDS)} or a sim profile name, e.g. 'mi300x'")
    if vram is not None:
        vram = V.integer(vram, "vram", lo=1 << 20, hi=1 << 50,
                         hint="the card's VRAM in bytes, e.g. 80 * 2**30 (None: the profile's)")
    from ..sim import available_profiles
    if card not in CARDS and card not in available_profiles():
        raise InvalidArgument(f"card={V.shown(card)} is not a card or a sim profile",
                              argument="card", hint=f"one of {sorted(CARDS)} or a sim profile "
                                                    f"name: {available_profiles()}")
    prof = load_profile(CARDS.get(card, card))
    budget = int(prof.vram if vram is None else vram)
    bufs = model_buffers(m)
    total = sum(b.nbytes for b in bufs)
    plan = Plan(m.name, card, budget, total)
    left = budget
    for kind in HOT_FIRST:
        mine = [b for b in bufs if b.kind == kind]
        size = sum(b.nbytes for b in mine)
        resident = 0
        for b in mine:              # layer by layer: a kind may fit in part
            if b.nbytes <= left:
                left -= b.nbytes
                resident += b.nbytes
        plan.kinds[kind] = dict(bytes=size, resident=resident, breathes=size - resident)
    return plan


@dataclass
class StepCost:
    """One strategy's steady-state step: model ``ms``, the bytes it moved each way, its GPU
    faults and evictions; ``fits`` False (with ``note``) where the strategy cannot hold the
    model (device memory never breathes)."""
    strategy: str
    ms: float | None
    fits: bool
    bytes_h2d: int = 0
    bytes_d2h: int = 0
    gpu_faults: int = 0
    evictions: int = 0
    remote_bytes: int = 0
    note: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


class ModelStep:
    """The buffers of one training step of ``m``, laid out by strategy ``strat``, on the
    active backend; :meth:`step` runs forward, backward and the optimizer layer by layer."""

    def __init__(self, m, strat, plan: Plan | None = None, device: int = 0):
        self.model, self.strategy = model(m), strategy(strat)
        self.device = device
        s = self.strategy
        hot = set()
        if s.memory == "mixed":
            # the planner's VRAM share in device memory, the rest managed
            plan = plan or plan_model(self.model)
            left = plan.vram
            for kind in HOT_FIRST:
                for b in model_buffers(self.model):
                    if b.kind == kind and b.nbytes <= left:
                        left -= b.nbytes
                        hot.add((b.kind, b.layer))
        self.buffers: dict = {}
        self._arrays: list = []
        try:
            for b in model_buffers(self.model):
                kind = {"device": "device", "pinned": "pinned"}.get(s.memory, "managed")
                if s.memory == "mixed":
                    kind = "device" if (b.kind, b.layer) in hot else "managed"
                self.buffers[(b.kind, b.layer)] = self._alloc(b.nbytes, kind)
        except OutOfMemory:
            self.close()
            raise
        for parts in self.buffers.values():       # advice first, then prefetch (§4.4)
            for x in parts:
                if x.kind != "managed":
                    continue
                if s.advice == "preferred_gpu":
                    x.advise("preferred_location", f"gpu{device}")
                    x.advise("accessed_by", "cpu")
                elif s.advice == "preferred_cpu_accessed_by":
                    x.advise("preferred_location", "cpu")
                    x.advise("accessed_by", f"gpu{device}")
                elif s.advice == "read_mostly" and x in self.buffers[("weights", 0)]:
                    x.advise("read_mostly")
                # the checkpoint is loaded on the CPU: every managed page starts there
                x.prefetch("cpu")
        self.stream = api.Stream(device)
        api.synchronize()

    def _alloc(self, nbytes: int, kind: str) -> list:
        parts = []
        for off in range(0, nbytes, PART_BYTES):
            n = min(PART_BYTES, nbytes - off)
            x = api.empty(max(1, n // 4), "float32", kind, self.device)
            parts.append(x)
            self._arrays.append(x)
        return parts

    def _use(self, key, op: str):
        """Run ``op`` (read | write | update) over buffer ``key`` on the GPU, prefetching it
        first where the strategy says so."""
        for x in self.buffers[key]:
            if self.strategy.prefetch != "off" and x.kind == "managed":
                x.prefetch(f"gpu{self.device}", stream=self.stream)
            if op == "read":
                api.touch(x, 4, stream=self.stream)
            elif op == "write":
                api.fill(x, 0.0, stream=self.stream)
            else:
                api.increment(x, stream=self.stream)

    def _back(self, key):
        if self.strategy.prefetch == "gpu+back":
            for x in self.buffers[key]:
                if x.kind == "managed":
                    x.prefetch("cpu", stream=self.stream)

    def step(self) -> None:
        L = self.model.layers
        self._use(("batch", -1), "read")
        for layer in range(L):                                  # forward
            self._use(("weights", layer), "read")
            self._use(("activations", layer), "write")
        for layer in reversed(range(L)):                        # backward
            self._use(("activations", layer), "read")
            self._use(("weights", layer), "read")
            self._use(("gradients", layer), "write")
        for layer in range(L):                                  # the optimizer
            self._use(("gradients", layer), "read")
            self._use(("optimizer", layer), "update")
            self._use(("weights", layer), "update")
            self._back(("optimizer", layer))
            self._back(("gradients", layer))
        self.stream.synchronize()

    def close(self) -> None:
        for x in self._arrays:
            if not x.freed:
                x.free()
        self._arrays.clear()


#: how often one step uses each kind of buffer (:meth:`ModelStep.step`: forward, backward, the
#: optimizer), each of its parts once a use
USES = {"batch": 1, "weights": 4, "activations": 2, "gradients": 2, "optimizer": 1}
#: the work :func:`model_step_costs` takes on, in GB-uses: on sim, model-only, a use of a part
#: of managed memory costs time that grows with the model's bytes (the pages' states it
#: keeps), about 4 microseconds per GB of the model on a laptop-class CPU; in device or pinned
#: memory a use costs about 0.1 ms whatever the size (counted as :data:`FLAT_GB` GB).  The
#: built-in '70b' under every strategy, two steps, is about 10 million (about 40 s); this bound
#: keeps every call under a minute or so.
MAX_STEP_WORK = 12_000_000
FLAT_GB = 25
#: buffers a model may have before the work of a use grows with their number (the built-in
#: '70b' has 321)
BUFFERS_PER_SCAN = 300


def step_work(m, strategies, steps: int) -> int:
    """The work (GB-uses, :data:`MAX_STEP_WORK`) of costing ``steps`` steps of ``m`` under
    ``strategies`` (Strategy objects): per strategy, the parts it allocates and uses, times the
    model's size in GB where it keeps managed memory (else :data:`FLAT_GB`)."""
    bufs = model_buffers(m)
    parts = [max(1, -(-b.nbytes // PART_BYTES)) for b in bufs]
    uses = sum(p * USES[b.kind] for p, b in zip(parts, bufs))
    gb = max(1, -(-sum(b.nbytes for b in bufs) // GB))
    per = steps * uses + sum(parts)
    # each prefetch of a part scans every allocation to make room: with many small buffers the
    # work grows with their number as well (1,000 layers of tiny buffers took 72 s unscaled)
    spread = max(1.0, len(bufs) / BUFFERS_PER_SCAN)
    return int(sum(per * (gb if s.memory in ("managed", "mixed") else FLAT_GB) * spread
                   for s in strategies))


def model_step_costs(m, card: str = "H200", strategies=None, *, steps: int = 2,
                     vram: int | None = None) -> list[StepCost]:
    """What one training step of ``m`` costs on ``card`` under each strategy (names of
    :data:`umkit.workloads.STRATEGIES`, default all): the model time of the last of ``steps``
    steps (the first pays the first touches), on sim, model-only."""
    from .. import validate as V
    from ..runtime import using
    m = model(m)
    steps = V.integer(steps, "steps", lo=1, hi=100, hint="e.g. steps=2")
    if strategies is None:
        names = list(STRATEGIES)
    elif isinstance(strategies, str) or not isinstance(strategies, (list, tuple)):
        raise InvalidType(f"strategies={V.short(strategies)} must be a list or tuple of "
                          "strategies", argument="strategies",
                          hint=f"e.g. strategies=('device', 'managed'); one of {list(STRATEGIES)}")
    elif not strategies:
        raise InvalidArgument("strategies=() names no strategy", argument="strategies",
                              hint=f"leave it out (all), or name some of {list(STRATEGIES)}")
    else:
        names = list(dict.fromkeys(strategies)) if all(
            isinstance(x, str) for x in strategies) else list(strategies)   # each costed once
    chosen = []
    for name in names:                    # every one checked before anything is costed
        try:
            chosen.append(strategy(name))
        except (InvalidArgument, InvalidType) as e:
            raise type(e)(f"strategies holds {V.short(name)}: {e.message}",
                          argument="strategies", hint=e.hint) from None
    plan = plan_model(m, card, vram)      # checks card (and vram) first
    work = step_work(m, chosen, steps)
    if work > MAX_STEP_WORK:
        raise InvalidArgument(
            f"costing {steps} step(s) of {V.short(m.name)} ({plan.total / GB:,.0f} GB in "
            f"{m.layers:,} layers) under {len(chosen)} strategies is {work:,} GB-uses of "
            f"simulated managed memory; model_step_costs takes on at most {MAX_STEP_WORK:,} "
            "(about a minute)", argument="m",
            hint="cost fewer steps (steps=2 is enough: the first pays the first touches), "
                 "fewer managed strategies (e.g. strategies=('device', 'managed')), or a "
                 "smaller model (fewer parameters or layers); plan_model(m) sizes any model "
                 "at once")
    profile = CARDS.get(card, card)
    opts = {} if vram is None else {"vram": int(vram)}
    out = []
    for s in chosen:
        with using("sim", profile=profile, compute=False, **opts):
            try:
                job = ModelStep(m, s, plan)
            except OutOfMemory as e:
                out.append(StepCost(s.name, None, False, note=f"does not fit: {e}".split("\n")[0]))
                continue
            try:
                for _ in range(steps):
                    before, t0 = api.counters(), api.now()
                    job.step()
                    ms = (api.now() - t0) * 1e3
                d = counter_delta(before, api.counters(), keep_zeros=True)
            finally:
                job.close()
        out.append(StepCost(s.name, round(ms, 3), True, d["bytes_h2d"], d["bytes_d2h"],
                            d["gpu_faults"], d["evictions"], d["remote_bytes"]))
    return out
