"""Checks for notebook 08 -- porting CUDA to HIP (the article's §1.2 and §5.3)."""
from __future__ import annotations

import re

from . import Verdict, failed, passed

# -- exercise 1: port a CUDA 13 snippet to HIP --------------------------------------------------------
CUDA_SOURCE = """\
// CUDA 13: prefetch and advice take a cudaMemLocation
cudaMemLocation gpu0 = {};
gpu0.type = cudaMemLocationTypeDevice;
gpu0.id = 0;
cudaMemLocation host = {};
host.type = cudaMemLocationTypeHost;

float *w;
cudaMallocManaged(&w, bytes, cudaMemAttachGlobal);
cudaMemAdvise(w, bytes, cudaMemAdviseSetPreferredLocation, gpu0);
cudaMemPrefetchAsync(w, bytes, gpu0, 0, stream);      // inhale before the step
train_step<<<blocks, threads, 0, stream>>>(w, n);
cudaMemPrefetchAsync(w, bytes, host, 0, stream);      // exhale for the checkpoint
cudaStreamSynchronize(stream);
save_checkpoint(w, n);                                // the CPU reads w
cudaFree(w);
"""


def _strip_comments(src: str) -> str:
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


def _calls(src: str, name: str) -> list[tuple[int, list[str]]]:
    """(position, top-level arguments) of every call of ``name`` in ``src``."""
    out = []
    for m in re.finditer(r"\b" + re.escape(name) + r"\s*\(", src):
        depth, i, start, args = 1, m.end(), m.end(), []
        while i < len(src) and depth:
            ch = src[i]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            elif ch == "," and depth == 1:
                args.append(src[start:i].strip())
                start = i + 1
            i += 1
        args.append(src[start:i - 1].strip())
        out.append((m.start(), [a for a in args if a != ""]))
    return out


def _is_cpu(arg: str) -> bool:
    return arg.replace(" ", "") in ("hipCpuDeviceId", "-1")


def _locations(src: str) -> dict:
    """hipMemLocation variables of the port and where they point: {'name': 'gpu' | 'cpu'}."""
    out = {}
    for m in re.finditer(r"\bhipMemLocation\s+(\w+)\s*(=\s*\{([^}]*)\})?", src):
        name, init = m.group(1), m.group(3) or ""
        if "hipMemLocationTypeDevice" in init:
            out[name] = "gpu"
        elif "hipMemLocationTypeHost" in init:
            out[name] = "cpu"
        else:
            out[name] = None
    for m in re.finditer(r"\b(\w+)\s*\.\s*type\s*=\s*(hipMemLocationType\w+)", src):
        if m.group(1) in out:
            out[m.group(1)] = ("gpu" if m.group(2) == "hipMemLocationTypeDevice" else
                               "cpu" if m.group(2).startswith("hipMemLocationTypeHost") else None)
    return out


def _target(arg: str, locs: dict, v2: bool):
    """'gpu', 'cpu', or an error message for a location/device argument."""
    a = arg.replace(" ", "")
    if v2:
        if a.startswith("&"):
            return f"'{arg}': the _v2 calls take the hipMemLocation by value, not its address."
        if a in locs:
            return locs[a] or (f"'{arg}' is a hipMemLocation whose .type is never set: "
                               "hipMemLocationTypeDevice (with .id = 0) or hipMemLocationTypeHost.")
        if _is_cpu(a) or a.isdigit():
            return (f"'{arg}' is an int device; the _v2 calls take a hipMemLocation "
                    "(or use the classic call, which takes the int).")
        return f"'{arg}' is not a hipMemLocation declared in your port."
    if a in locs:
        return (f"'{arg}' is a hipMemLocation, but the classic call takes an int device (0, or "
                "hipCpuDeviceId for the CPU); with a hipMemLocation, call the _v2 form.")
    if _is_cpu(a):
        return "cpu"
    if a.isdigit():
        return "gpu"
    if a in ("gpu0", "host"):
        return (f"'{arg}' was a cudaMemLocation. Pass the device number (0) or hipCpuDeviceId -- "
                "or declare a hipMemLocation and call the _v2 form.")
    return f"'{arg}' is neither a device number nor hipCpuDeviceId."


def check_port(hip_source) -> Verdict:
    """``hip_source``: your HIP version of :data:`CUDA_SOURCE`, as a string.  Two ports are right:
    the classic calls with int devices (``hipMemPrefetchAsync(ptr, n, 0, stream)``,
    ``hipCpuDeviceId`` for the CPU), or HIP's ``_v2`` calls with a ``hipMemLocation`` -- the most
    direct port of CUDA 13 (ROCm/clr hipamd/src/hip_hmm.cpp: ``hipMemPrefetchAsync_v2(ptr, n,
    hipMemLocation, flags, stream)`` with flags 0, ``hipMemAdvise_v2(ptr, n, advice,
    hipMemLocation)``)."""
    from umkit import names
    if hip_source is None:
        return failed("hip_source is still None: write the HIP version of nb08.CUDA_SOURCE as a string.")
    if not isinstance(hip_source, str):
        return failed(f"hip_source must be a string of C++ code, not {type(hip_source).__name__}.")
    src = _strip_comments(hip_source)
    left = re.findall(r"\bcuda\w*", src)
    if left:
        n = left[0]
        try:
            h = names.cuda_to_hip(n)
        except KeyError:
            return failed(f"{n} is still CUDA and umkit.names has no row for it.")
        if h is None:
            return failed(f"{n} is still CUDA. HIP's classic calls have no counterpart: "
                          f"{names.row(n).note} Either pass int devices to the classic calls, or "
                          "use hipMemLocation with hipMemPrefetchAsync_v2 / hipMemAdvise_v2.")
        return failed(f"{n} is still CUDA: HIP spells it {h} (umkit.names.cuda_to_hip({n!r})).")
    locs = _locations(src)
    for call in ("hipMallocManaged", "hipStreamSynchronize", "hipFree"):
        if not _calls(src, call):
            return failed(f"{call}(...) is missing: every CUDA call needs its HIP counterpart.")
    classic_pf = [(p, a, False) for p, a in _calls(src, "hipMemPrefetchAsync")]
    v2_pf = [(p, a, True) for p, a in _calls(src, "hipMemPrefetchAsync_v2")]
    classic_adv = [(p, a, False) for p, a in _calls(src, "hipMemAdvise")]
    v2_adv = [(p, a, True) for p, a in _calls(src, "hipMemAdvise_v2")]
    if not (classic_adv or v2_adv):
        return failed("hipMemAdvise(...) (or hipMemAdvise_v2) is missing: every CUDA call needs "
                      "its HIP counterpart.")
    pf = sorted(classic_pf + v2_pf)
    if len(pf) < 2:
        return failed(f"the CUDA code prefetches twice, your port {len(pf)} time(s). Dropping a "
                      "hipMemPrefetchAsync is exactly the port that cost one team a third of its "
                      "throughput (§5.3): AMD relies on these hints more than NVIDIA does.")
    if locs and not (v2_pf or v2_adv):
        return failed("there is still a location struct (hipMemLocation), but your calls are the "
                      "classic ones, which take an int: the device number for a GPU, "
                      "hipCpuDeviceId (-1) for the CPU. Drop the structs -- or keep them and "
                      "call hipMemPrefetchAsync_v2 / hipMemAdvise_v2.")
    if not locs and re.search(r"\.\s*(type|id)\s*=", src):
        return failed("there are .type / .id assignments but no hipMemLocation variable: declare "
                      "hipMemLocation gpu0 = {}; (and host) for the _v2 calls, or drop them.")
    gpu_pf, cpu_pf = [], []
    for pos, args, v2 in pf:
        name = "hipMemPrefetchAsync_v2" if v2 else "hipMemPrefetchAsync"
        want = 5 if v2 else 4
        form = ("(ptr, bytes, hipMemLocation, flags, stream)" if v2 else
                "(ptr, bytes, device, stream)")
        if len(args) != want:
            extra = (" HIP's classic call has no flags argument." if not v2 and len(args) == 5
                     else "")
            return failed(f"{name}({', '.join(args)}) takes {want} arguments: {form}.{extra}")
        if v2 and args[3].replace(" ", "") not in ("0", "0u", "0U"):
            return failed(f"{name}(..., flags={args[3]}, ...): the flags must be 0 "
                          "(hip_hmm.cpp returns hipErrorInvalidValue otherwise).")
        t = _target(args[2], locs, v2)
        if t not in ("gpu", "cpu"):
            return failed(f"{name}: {t}")
        (gpu_pf if t == "gpu" else cpu_pf).append(pos)
    if not cpu_pf:
        return failed("the second prefetch sends w to the host: its location is the CPU "
                      "(hipCpuDeviceId, which is -1, or a hipMemLocation of type "
                      "hipMemLocationTypeHost), not a GPU.")
    if not gpu_pf:
        return failed("the first prefetch inhales w into GPU 0: its location is device 0.")
    for _, args, v2 in sorted(classic_adv + v2_adv):
        name = "hipMemAdvise_v2" if v2 else "hipMemAdvise"
        if len(args) != 4:
            return failed(f"{name}({', '.join(args)}) takes 4 arguments: (ptr, bytes, advice, "
                          f"{'hipMemLocation' if v2 else 'device'}).")
        t = _target(args[3], locs, v2)
        if t not in ("gpu", "cpu"):
            return failed(f"{name}: {t}")
        if args[2] != "hipMemAdviseSetPreferredLocation":
            return failed(f"{name}(..., {args[2]}, ...): the CUDA code sets the preferred "
                          "location; HIP spells it hipMemAdviseSetPreferredLocation.")
        if t != "gpu":
            return failed(f"{name}: the CUDA code prefers GPU 0, not the CPU.")
    launch = re.search(r"\btrain_step\s*<<<", src) or re.search(r"hipLaunchKernelGGL\s*\(\s*train_step", src)
    if not launch:
        return failed("the kernel launch is gone: hipcc accepts the same train_step<<<blocks, "
                      "threads, 0, stream>>>(w, n) (or hipLaunchKernelGGL).")
    sync = _calls(src, "hipStreamSynchronize")[0][0]
    save = src.find("save_checkpoint")
    if save < 0:
        return failed("save_checkpoint(w, n) is gone: keep the program's own code.")
    if not (min(gpu_pf) < launch.start() < max(cpu_pf) < sync < save):
        return failed("the order matters: prefetch to the GPU, launch, prefetch to the CPU, "
                      "synchronize, and only then let the CPU read w (save_checkpoint) -- §3.3.")
    if v2_pf or v2_adv:
        return passed("a faithful port of CUDA 13: hipMemLocation with hipMemPrefetchAsync_v2 / "
                      "hipMemAdvise_v2 (flags 0), every other name from the table, and both "
                      "prefetches kept. (The classic int-device calls would be right too.)")
    return passed("a faithful port: every name from the table, int devices instead of "
                  "cudaMemLocation (hipCpuDeviceId for the host), no flags argument, and both "
                  "prefetches kept. (hipMemPrefetchAsync_v2 / hipMemAdvise_v2 with a "
                  "hipMemLocation would be right too: the most direct port of CUDA 13.)")


# -- exercise 2: the "access owner" table (§5.3) --------------------------------------------------------
VRAM_GB = 80
#: the buffers of a fine-tuning job on one 80 GB GPU (a 3-billion-parameter model)
BUFFERS = {
    "weights": "3e9 parameters in bf16 (2 bytes each). The GPU reads them in every forward and "
               "backward pass and the optimizer updates them every step; they live for the whole run.",
    "grads": "one bf16 gradient per parameter, written by the backward pass every step and consumed "
             "by the optimizer in the same step.",
    "adam_state": "two fp32 moments per parameter (8 bytes per parameter), updated by the optimizer "
                  "on the GPU every step for the whole run; every 10 steps the CPU computes sparse "
                  "statistics on them (the article's §4.3 optimizer).",
    "batch": "0.5 GB of token ids per step, written by the CPU data loader, read once by the GPU.",
    "metrics": "a 4 KB block (loss, grad norm) the GPU writes every step and the CPU logger reads "
               "every step.",
    "checkpoint": "a copy of the weights made every 2,000 steps and written to disk by the CPU.",
}
_EXPECT = {
    "weights": dict(budget=6.0, lifetime={"run"}, owner={"gpu"}, allocator={"device"}),
    "grads": dict(budget=6.0, lifetime={"step", "run"}, owner={"gpu"}, allocator={"device"}),
    "adam_state": dict(budget=24.0, lifetime={"run"}, owner={"gpu"}, allocator={"device"}),
    "batch": dict(budget=0.5, lifetime={"step"}, owner={"both"}, allocator={"managed", "pinned"}),
    "metrics": dict(budget=4e-6, lifetime={"step", "run"}, owner={"both"}, allocator={"pinned"}),
    "checkpoint": dict(budget=6.0, lifetime={"rare"}, owner={"cpu"}, allocator={"managed"}),
}
_OWNER_WHY = {
    "weights": "the GPU touches it every step; the CPU never does on the hot path",
    "grads": "produced and consumed on the GPU inside one step",
    "adam_state": "the GPU updates it every step; the CPU's statistic every 10 steps is a rare "
                  "visitor -- give it a small explicit copy (or a GPU-side statistic), not ownership",
    "batch": "the CPU writes it and the GPU reads it, every step: both sides",
    "metrics": "the GPU writes it and the CPU reads it, every step: both sides",
    "checkpoint": "after the copy is made, only the CPU touches it (to write it to disk)",
}
_ALLOC_WHY = {
    "gpu": "a buffer only the GPU touches on the hot path belongs in device memory (hipMalloc), "
           "the heart of §6.1",
    "both": "a buffer both sides touch every step is managed + prefetch (§4.2), or pinned "
            "zero-copy when it is tiny (§4.4)",
    "cpu": "a rarely-touched, CPU-side buffer is what the article keeps in managed memory (§3.4): "
           "it may breathe out to host memory between checkpoints",
}
_ALLOC_SPECIAL = {
    ("metrics", "managed"): "Both sides touch it every step, but it is 4 KB: in managed memory its one page would "
               "migrate back and forth every step (a tiny ping-pong). Pinned host memory "
               "(hipHostMalloc) lets the GPU write it over the link with nothing migrating (§4.4).",
    ("checkpoint", "pinned"): "6 GB that the CPU touches once every 2,000 steps: pinning that much host memory "
                  "for a rare visitor is costly; the article keeps checkpoints in managed memory "
                  "(§3.4), free to breathe out to the host in between.",
}
LIFETIMES = ("run", "step", "rare")
OWNERS = ("gpu", "cpu", "both")
ALLOCATORS = ("device", "managed", "pinned")


def empty_owner_table() -> dict:
    """The table to fill in: one row per buffer, every field None."""
    return {k: dict(budget_gb=None, lifetime=None, owner=None, allocator=None) for k in BUFFERS}


def check_owner_table(table) -> Verdict:
    """``table``: {buffer: dict(budget_gb=float, lifetime='run'|'step'|'rare',
    owner='gpu'|'cpu'|'both', allocator='device'|'managed'|'pinned')} for every buffer."""
    if table is None:
        return failed("owner_table is None: start from nb08.empty_owner_table().")
    if not isinstance(table, dict):
        return failed(f"owner_table must be a dict of rows, not {type(table).__name__}.")
    missing = [k for k in BUFFERS if k not in table]
    if missing:
        return failed(f"rows missing: {missing}.")
    for k in BUFFERS:
        row = table[k]
        if not isinstance(row, dict):
            return failed(f"{k}: each row is a dict(budget_gb=..., lifetime=..., owner=..., allocator=...).")
        for field, allowed in (("lifetime", LIFETIMES), ("owner", OWNERS), ("allocator", ALLOCATORS)):
            v = row.get(field)
            if v is None:
                return failed(f"{k}: {field} is still None (one of {allowed}).")
            if v not in allowed:
                return failed(f"{k}: {field}={v!r} is not one of {allowed}.")
        b = row.get("budget_gb")
        if b is None:
            return failed(f"{k}: budget_gb is still None. Work it out from the description "
                          f"(GB = 10^9 bytes): {BUFFERS[k]}")
        try:
            b = float(b)
        except (TypeError, ValueError):
            return failed(f"{k}: budget_gb={b!r} must be a number of GB.")
        want = _EXPECT[k]["budget"]
        if not (abs(b - want) <= 0.1 * want or (want < 1e-3 and 0 < b < 1e-3)):
            return failed(f"{k}: budget {b:g} GB? Count again: {BUFFERS[k]}")
    for k in BUFFERS:
        row, e = table[k], _EXPECT[k]
        if row["owner"] not in e["owner"]:
            return failed(f"{k}: owner {row['owner']!r}? The access owner is who touches it on the "
                          f"hot path: {_OWNER_WHY[k]}.")
        if row["allocator"] not in e["allocator"]:
            special = _ALLOC_SPECIAL.get((k, row["allocator"]))
            if special:
                return failed(f"{k}: allocator {row['allocator']!r}? {special}")
            return failed(f"{k}: allocator {row['allocator']!r} doesn't match its owner "
                          f"({row['owner']}): {_ALLOC_WHY[row['owner']]}.")
        if row["lifetime"] not in e["lifetime"]:
            return failed(f"{k}: lifetime {row['lifetime']!r}? Read its description again: "
                          f"{BUFFERS[k]}")
    dev = sum(float(table[k]["budget_gb"]) for k in BUFFERS if table[k]["allocator"] == "device")
    if dev > VRAM_GB:
        return failed(f"the device-memory buffers add up to {dev:g} GB, more than the {VRAM_GB} GB card.")
    return passed(f"every buffer has a budget, a lifetime and an access owner, and its allocator "
                  f"follows from them; {dev:g} GB of the {VRAM_GB} GB card is device memory, the "
                  "rest is activations' headroom. Same table, both platforms.")
