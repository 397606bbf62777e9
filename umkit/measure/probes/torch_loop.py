"""A small real PyTorch training loop, four ways (``benchmarks/torch_training.py`` runs it under
the memory ECG recorder; ``umkit measure run plan_validate`` under the plan recorder).

An MLP (Linear+GELU layers) trained with Adam on synthetic data.  Variants (one definition
each, below):
  device            PyTorch's ordinary device memory (the CPU statistic copies with .cpu())
  managed           model + optimizer allocated inside umkit.torch.managed() (cudaMallocManaged)
  managed+prefetch  the same, weights prefetched to the GPU before each step (§2.3)
  optstate->cpu     managed; Adam's state advised preferred_location=cpu, accessed_by=gpu (§4.4)

PyTorch and ``umkit.torch`` are passed in (``torch``, ``ut``), so this module imports without
PyTorch.
"""
from __future__ import annotations

import math


VARIANTS = ("device", "managed", "managed+prefetch", "optstate->cpu")
STAT_STRIDE = 65536
#: the variants must train identically: the same losses, to this relative difference (the
#: same kernels on the same numbers; only where the bytes live differs)
LOSS_RTOL = 1e-4


def adam_state(opt, torch) -> int:
    """Create Adam's state now, as its first ``step()`` would (``torch.optim.Adam``'s
    ``_init_group``: ``step`` a scalar 0, ``exp_avg`` and ``exp_avg_sq`` zeros like the
    parameter, ``max_exp_avg_sq`` with amsgrad), without taking a step: allocated where the
    caller is (inside ``umkit.torch.managed()`` for the managed variants), and Adam's bias
    correction then counts from the first real step as it does on device memory.  Returns
    how many parameters got a state."""
    n = 0
    for group in opt.param_groups:
        fused_or_capturable = group.get("fused") or group.get("capturable")
        for p in group["params"]:
            if p in opt.state and len(opt.state[p]):
                continue
            st = {"step": (torch.zeros((), dtype=torch.float32, device=p.device)
                           if fused_or_capturable else torch.tensor(0.0, dtype=torch.float32)),
                  "exp_avg": torch.zeros_like(p, memory_format=torch.preserve_format),
                  "exp_avg_sq": torch.zeros_like(p, memory_format=torch.preserve_format)}
            if group.get("amsgrad"):
                st["max_exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            opt.state[p] = st
            n += 1
    return n


def losses_agree(losses: dict, rtol: float = LOSS_RTOL) -> tuple[bool, float, str]:
    """(whether every variant's losses match the first variant's step by step within
    ``rtol``, the largest relative difference seen, and a sentence saying so)."""
    runs = {k: v for k, v in losses.items() if v}
    if len(runs) < 2:
        return True, 0.0, "fewer than two variants ran: nothing to compare"
    ref_name, ref = next(iter(runs.items()))
    worst, where = 0.0, ""
    for name, got in runs.items():
        if len(got) != len(ref):
            return False, math.inf, f"{name} ran {len(got)} steps, {ref_name} {len(ref)}"
        for i, (x, y) in enumerate(zip(got, ref)):
            d = abs(x - y) / max(abs(y), 1e-12)
            if not math.isfinite(d) or d > worst:
                worst, where = (d if math.isfinite(d) else math.inf), f"{name} step {i}"
    ok = worst <= rtol
    return ok, worst, (f"the variants' losses agree step by step (largest relative difference "
                       f"{worst:.2e}, at most {rtol:g})" if ok else
                       f"the variants' losses differ: {worst:.2e} at {where} (more than {rtol:g})")


def mlp(a, torch):
    """The model: ``a.layers`` Linear+GELU layers of ``a.width`` and a Linear to one output,
    the same initial weights every time."""
    torch.manual_seed(0)
    layers = []
    for _ in range(a.layers):
        layers += [torch.nn.Linear(a.width, a.width), torch.nn.GELU()]
    layers.append(torch.nn.Linear(a.width, 1))
    return torch.nn.Sequential(*layers)


def build(variant, a, torch, ut):
    """(model, Adam, the managed pool or None) on the GPU: device memory for ``device``,
    managed memory (``umkit.torch.managed``) for the other variants.  Every variant makes its
    gradients and Adam's state before the loop, without a step (Adam makes its state lazily at
    the first step: the managed variants need it in the pool), so all four train the same
    numbers."""
    model = mlp(a, torch)

    def on_gpu(model):
        model = model.cuda()
        opt = torch.optim.Adam(model.parameters(), lr=1e-4)
        for p in model.parameters():
            p.grad = torch.zeros_like(p)
        adam_state(opt, torch)
        return model, opt
    if variant == "device":
        return (*on_gpu(model), None)
    pool = ut.managed_pool()
    with ut.managed(pool):
        model, opt = on_gpu(model)
    return model, opt, pool


def hints(variant, model, opt, ut):
    """The variant's hints: advice given now (``optstate->cpu``), and the hint to give before
    each step (``managed+prefetch``: the weights and gradients prefetched to the GPU) as a
    function, or None."""
    if variant == "optstate->cpu":
        ut.advise(opt, "preferred_location", "cpu")
        ut.advise(opt, "accessed_by", "gpu")
        ut.prefetch(opt, "cpu")
    if variant == "managed+prefetch":
        return lambda: ut.prefetch(model, "gpu")
    return None


def batches(a, torch):
    """The same 8 batches (inputs, targets) every run, and for every variant, on the GPU."""
    torch.manual_seed(1)
    return (torch.randn(8, a.batch, a.width, device="cuda"),
            torch.randn(8, a.batch, 1, device="cuda"))


def cpu_statistic(model, variant, torch, ut, managed=None) -> float:
    """The CPU's statistic of the weights: one float per ``STAT_STRIDE`` bytes of each
    parameter, read with ``.cpu()`` from device memory and through the host view from managed
    memory (CPU page faults).  ``managed(p)``: whether parameter ``p`` is managed (default:
    every parameter but in the ``device`` variant)."""
    s = 0.0
    for p in model.parameters():
        if not (managed(p) if managed is not None else variant != "device"):
            s += float(p.detach().reshape(-1)[:: STAT_STRIDE // 4].cpu().sum())
        else:                  # the host view of the same managed bytes: CPU page faults
            torch.cuda.synchronize()
            h = ut.as_array(p.detach(), kind="managed").host.reshape(-1)
            s += float(h[:: STAT_STRIDE // 4].sum())
    return s


def train(model, opt, x_all, y_all, rec, a, torch, ut, *, variant="device", before_step=None,
          managed=None) -> list:
    """``a.steps`` training steps, ``rec.step()`` after each (an ``umkit.ecg.recorder``, or
    anything with its ``step(note)``), the CPU statistic every ``a.cpu_every`` steps;
    ``before_step()``: a hint given at the start of each step.  Returns the losses (tensors,
    not yet read: reading one would wait for the GPU)."""
    losses = []
    for i in range(a.steps):
        note = ""
        if before_step is not None:
            before_step()
        x, y = x_all[i % len(x_all)], y_all[i % len(x_all)]
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad(set_to_none=False)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
        if a.cpu_every and i % a.cpu_every == a.cpu_every - 1:
            cpu_statistic(model, variant, torch, ut, managed)
            note = "cpu statistics"
        rec.step(note)
    return losses
