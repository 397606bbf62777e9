"""Checks for notebook 08 -- porting CUDA to HIP (the article's §1.2 and §5.3)."""
from __future__ import annotations

import re

import umkit

from ...runtime.lang import Localized, tr
from .grading import Exercise, Verdict, check, failed, passed, tiered

# -- exercise 1: port a CUDA 13 snippet to HIP --------------------------------------------------------
class _Program(str):
    """A program's source: the string itself (what checks, hipify and comparisons see) is the
    English; ``print()`` shows its ``//`` comments in the learner's language (the code is never
    changed)."""

    def __str__(self) -> str:
        return re.sub(r"//(\s*)([^\n]*)", lambda m: f"//{m.group(1)}{tr(m.group(2))}",
                      str.__str__(self))


CUDA_SOURCE = """\
// CUDA 13: prefetch and advice take a cudaMemLocation
cudaMemLocation gpu0 = {};
gpu0.type = cudaMemLocationTypeDevice;
gpu0.id = 0;
cudaMemLocation host = {};
host.type = cudaMemLocationTypeHost;

int on_demand = 0;      // can this GPU fault managed pages in on demand?
cudaDeviceGetAttribute(&on_demand, cudaDevAttrConcurrentManagedAccess, 0);
if (!on_demand) fprintf(stderr, "no concurrent managed access: a GPU prefetch is invalid here\\n");

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
CUDA_SOURCE = _Program(CUDA_SOURCE)


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


def _int_devices(src: str) -> dict:
    """int device variables of the port: {'dev': 'gpu' | 'cpu'} (``int dev = 0;``,
    ``hipGetDevice(&dev)``, ``int host = hipCpuDeviceId;``) -- the kit's own .hip idiom."""
    out = {}
    for m in re.finditer(r"\bint\s+([^;]*);", src):
        for decl in m.group(1).split(","):
            name, _, init = (x.strip() for x in decl.partition("="))
            if re.fullmatch(r"\w+", name):
                if _is_cpu(init):
                    out[name] = "cpu"
                elif init == "" or re.fullmatch(r"\d+", init):
                    out[name] = "gpu"
    for m in re.finditer(r"\bhipGetDevice\s*\(\s*&\s*(\w+)\s*\)", src):
        out[m.group(1)] = "gpu"
    return out


def _target(arg: str, locs: dict, v2: bool, ints=None):
    """'gpu', 'cpu', or (what is wrong, the fix) for a location/device argument."""
    a = arg.replace(" ", "")
    ints = ints or {}
    if v2:
        if a.startswith("&"):
            return (f"'{arg}': the _v2 calls take the hipMemLocation by value, not its address.",
                    f"pass {a[1:]} itself, not &{a[1:]}")
        if a in locs:
            return locs[a] or (f"'{arg}' is a hipMemLocation whose .type is never set.",
                               "set .type = hipMemLocationTypeDevice (with .id = 0) for GPU 0, or "
                               ".type = hipMemLocationTypeHost for the CPU")
        if _is_cpu(a) or a.isdigit():
            return (f"'{arg}' is an int device, but the _v2 calls take a location struct.",
                    "pass a hipMemLocation (or use the classic call, which takes the int)")
        return (f"'{arg}' is not a hipMemLocation declared in your port.",
                "declare hipMemLocation gpu0 = {}; gpu0.type = hipMemLocationTypeDevice; "
                "gpu0.id = 0; (and host, of type hipMemLocationTypeHost)")
    if a in locs:
        return (f"'{arg}' is a hipMemLocation, but the classic call takes another kind of "
                "location argument.",
                "the classic call takes an int device (0, or hipCpuDeviceId for the CPU); with a "
                "hipMemLocation, call the _v2 form")
    if _is_cpu(a):
        return "cpu"
    if a.isdigit():
        return "gpu"
    if a in ints:
        return ints[a]
    if a in ("gpu0", "host"):
        return (f"'{arg}' was a cudaMemLocation in the CUDA code, and your port declares no such "
                "variable.",
                "pass the device number (0) or hipCpuDeviceId -- or declare a hipMemLocation and "
                "call the _v2 form")
    return (f"'{arg}' is neither a device number nor the CPU's device id.",
            "0 for GPU 0, hipCpuDeviceId (-1) for the CPU")


PORT_CONCEPT = ("§5.3 and section 2 of the notebook: renaming is step one (umkit.names.cuda_to_hip "
                "gives each HIP name; umkit.names.row(name).note says where there is none, and "
                "where a renamed name answers a different question on ROCm). CUDA "
                "13's cudaMemLocation has two HIP ports: HIP's classic calls with an int device "
                "(and their own argument lists), or the _v2 calls with a hipMemLocation, as in "
                "ROCm/clr hipamd/src/hip_hmm.cpp. Keep every prefetch -- AMD relies on them more "
                "than NVIDIA -- and keep the order the CPU and GPU depend on (§3.3)")
#: the CUDA calls of CUDA_SOURCE and their HIP counterparts
_PORT_CALLS = {"hipMallocManaged": "cudaMallocManaged", "hipStreamSynchronize": "cudaStreamSynchronize",
               "hipFree": "cudaFree", "hipDeviceGetAttribute": "cudaDeviceGetAttribute"}
#: the HIP attribute that answers the CUDA code's question "can the GPU fault pages in on
#: demand?" on ROCm (umkit.names: ConcurrentManagedAccess is 1 with XNACK off too)
_ON_DEMAND_ATTR = "hipDeviceAttributePageableMemoryAccess"
_PORT_CLASSIC = ("a classic port:\n"
                 "int on_demand = 0;\n"
                 "hipDeviceGetAttribute(&on_demand, hipDeviceAttributePageableMemoryAccess, 0);"
                 "   // XNACK on: pages migrate on demand\n"
                 "if (!on_demand) fprintf(stderr, ...);\n"
                 "hipMallocManaged(&w, bytes, hipMemAttachGlobal);\n"
                 "hipMemAdvise(w, bytes, hipMemAdviseSetPreferredLocation, 0);\n"
                 "hipMemPrefetchAsync(w, bytes, 0, stream);\n"
                 "train_step<<<blocks, threads, 0, stream>>>(w, n);\n"
                 "hipMemPrefetchAsync(w, bytes, hipCpuDeviceId, stream);\n"
                 "hipStreamSynchronize(stream);\nsave_checkpoint(w, n);\nhipFree(w);\n"
                 "(the _v2 port is in solutions/08_porting_cuda_to_hip.py, beside the notebooks)")


def _attribute_answers(attr: str) -> str:
    """What the port's attribute answers on ROCm, said as what the port then does (never which
    attribute to use).  ROCm's ConcurrentManagedAccess reports the driver's SVM support and is 1
    with XNACK off too (umkit.names, ledger amd.attr.concurrent_managed)."""
    if attr == "hipDeviceAttributeConcurrentManagedAccess":
        return (f"hipDeviceGetAttribute(..., {attr}, ...): on ROCm that attribute is 1 whenever "
                "the driver supports SVM, with XNACK off too (ledger: amd.attr.concurrent_managed). "
                "On an MI250X with XNACK off "
                "(its default) your port finds on_demand = 1 and goes on without the warning, "
                "though a GPU touch of a host page cannot migrate it there: the CUDA code's "
                "check no longer catches the case it was written for (section 2, §5.3).")
    return (f"hipDeviceGetAttribute(..., {attr}, ...): the CUDA code asks whether this GPU can "
            "fault managed pages in on demand; on ROCm your port's attribute does not answer "
            "that question, so its warning no longer appears when it should (section 2, §5.3).")


def _port_no(message: str, fix: str = "") -> Verdict | str:
    """What is wrong; with ``fix``, tier 3 begins with the fix (then the classic port)."""
    return failed(message, answer=fix + "\n\n" + _PORT_CLASSIC) if fix else message


def _grade_port(hip_source: str) -> Verdict | str:
    names = umkit.names
    src = _strip_comments(hip_source)
    left = re.findall(r"\bcuda\w*", src)
    if left:
        n = left[0]
        try:
            h = names.cuda_to_hip(n)
        except KeyError:
            return _port_no(f"{n} is still CUDA, and umkit.names has no row for it.")
        if h is None:
            return _port_no(f"{n} is still CUDA, and HIP's classic calls have no counterpart of "
                            "it.",
                            f"{names.row(n).note} Either pass int devices to the classic calls, "
                            "or use hipMemLocation with hipMemPrefetchAsync_v2 / hipMemAdvise_v2.")
        return _port_no(f"{n} is still CUDA.", f"HIP spells it {h} "
                        f"(umkit.names.cuda_to_hip({n!r})).")
    locs = _locations(src)
    ints = _int_devices(src)
    for call, cuda in _PORT_CALLS.items():
        if not _calls(src, call):
            return _port_no(f"the CUDA code calls {cuda}(...); your port has no HIP counterpart "
                            "of that call.", f"{call}(...)")
    for _, args in _calls(src, "hipDeviceGetAttribute"):
        attr = args[1].replace(" ", "") if len(args) > 1 else ""
        if len(args) != 3:
            return _port_no(f"hipDeviceGetAttribute({', '.join(args)}) has {len(args)} arguments; "
                            "HIP's takes 3 (int *value, attribute, device).")
        if attr != _ON_DEMAND_ATTR:
            return _port_no(_attribute_answers(attr),
                            "on ROCm, hipDeviceAttributeConcurrentManagedAccess is 1 whenever "
                            "the driver has SVM, XNACK on or off; the attribute that is 1 only "
                            "with XNACK on is hipDeviceAttributePageableMemoryAccess")
    classic_pf = [(p, a, False) for p, a in _calls(src, "hipMemPrefetchAsync")]
    v2_pf = [(p, a, True) for p, a in _calls(src, "hipMemPrefetchAsync_v2")]
    classic_adv = [(p, a, False) for p, a in _calls(src, "hipMemAdvise")]
    v2_adv = [(p, a, True) for p, a in _calls(src, "hipMemAdvise_v2")]
    if not (classic_adv or v2_adv):
        return _port_no("the CUDA code calls cudaMemAdvise(...); your port has no HIP "
                        "counterpart of that call.", "hipMemAdvise(...) (or hipMemAdvise_v2)")
    pf = sorted(classic_pf + v2_pf)
    if len(pf) < 2:
        return _port_no(f"the CUDA code prefetches twice, your port {len(pf)} time(s). Dropping a "
                        "prefetch is exactly the port that cost one team a third of its "
                        "throughput (§5.3).",
                        "keep both: hipMemPrefetchAsync(w, bytes, 0, stream) before the launch, "
                        "hipMemPrefetchAsync(w, bytes, hipCpuDeviceId, stream) after it")
    passed_locs = {a.replace(" ", "").lstrip("&") for _, args, _ in pf + classic_adv + v2_adv
                   for a in args} & set(locs)
    if passed_locs and not (v2_pf or v2_adv):   # a struct declared but never passed harms nothing
        return _port_no("a location struct (hipMemLocation) reaches calls whose location argument "
                        "is of another kind: a HIP call takes its own arguments, which are not "
                        "always CUDA 13's (§5.3: renaming is only step one).",
                        "the classic calls take an int: the device number for a GPU, "
                        "hipCpuDeviceId (-1) for the CPU. Drop the structs -- or keep them and "
                        "call hipMemPrefetchAsync_v2 / hipMemAdvise_v2")
    if not locs and re.search(r"\.\s*(type|id)\s*=", src):
        return _port_no("there are .type / .id assignments but no location variable they belong "
                        "to.", "declare hipMemLocation gpu0 = {}; (and host) for the _v2 calls, or "
                        "drop the assignments")
    gpu_pf, cpu_pf = [], []
    for pos, args, v2 in pf:
        name = "hipMemPrefetchAsync_v2" if v2 else "hipMemPrefetchAsync"
        want = 5 if v2 else 4
        form = ("(ptr, bytes, hipMemLocation, flags, stream)" if v2 else
                "(ptr, bytes, device, stream)")
        if len(args) != want:
            extra = (" HIP's classic call has no flags argument." if not v2 and len(args) == 5
                     else "")
            return _port_no(f"{name}({', '.join(args)}) has {len(args)} arguments; HIP's "
                            f"{name} takes {want}.", f"{name}{form}.{extra}")
        if v2 and args[3].replace(" ", "") not in ("0", "0u", "0U"):
            return _port_no(f"{name}(..., flags={args[3]}, ...): hip_hmm.cpp rejects these "
                            "flags with hipErrorInvalidValue.", "the flags must be 0")
        t = _target(args[2], locs, v2, ints)
        if t not in ("gpu", "cpu"):
            return _port_no(f"{name}: {t[0]}", t[1])
        (gpu_pf if t == "gpu" else cpu_pf).append(pos)
    if not cpu_pf:
        return _port_no("no prefetch of your port sends w back to the host, as the CUDA code's "
                        "second prefetch does.",
                        "its location is the CPU: hipCpuDeviceId (-1) in the classic call, or a "
                        "hipMemLocation of type hipMemLocationTypeHost in the _v2 call")
    if not gpu_pf:
        return _port_no("no prefetch of your port inhales w into the GPU, as the CUDA code's first "
                        "prefetch does.", "its location is device 0")
    for _, args, v2 in sorted(classic_adv + v2_adv):
        name = "hipMemAdvise_v2" if v2 else "hipMemAdvise"
        if len(args) != 4:
            return _port_no(f"{name}({', '.join(args)}) has {len(args)} arguments; HIP's takes 4.",
                            f"{name}(ptr, bytes, advice, "
                            f"{'hipMemLocation' if v2 else 'device'})")
        t = _target(args[3], locs, v2, ints)
        if t not in ("gpu", "cpu"):
            return _port_no(f"{name}: {t[0]}", t[1])
        if args[2] != "hipMemAdviseSetPreferredLocation":
            return _port_no(f"{name}(..., {args[2]}, ...): that is not the advice the CUDA code "
                            "gives.", "the CUDA code sets the preferred location; HIP spells it "
                            "hipMemAdviseSetPreferredLocation")
        if t != "gpu":
            return _port_no(f"{name}: your advice points at the CPU; the CUDA code's does not.",
                            "the CUDA code prefers GPU 0")
    launch = re.search(r"\btrain_step\s*<<<", src) or re.search(r"hipLaunchKernelGGL\s*\(\s*train_step", src)
    if not launch:
        return _port_no("the kernel launch is gone.",
                        "hipcc accepts the same train_step<<<blocks, threads, 0, stream>>>(w, n) "
                        "(or hipLaunchKernelGGL)")
    sync = _calls(src, "hipStreamSynchronize")[0][0]
    save = src.find("save_checkpoint")
    if save < 0:
        return _port_no("save_checkpoint(w, n) is gone: keep the program's own code.")
    if not (min(gpu_pf) < launch.start() < max(cpu_pf) < sync < save):
        return _port_no("the calls are not in the CUDA code's order: something now runs before "
                        "what it depends on (§3.3).",
                        "prefetch to the GPU, launch, prefetch to the CPU, synchronize, and only "
                        "then let the CPU read w (save_checkpoint)")
    if v2_pf or v2_adv:
        return passed("a faithful port of CUDA 13: the on-demand question asked of "
                      "PageableMemoryAccess (XNACK), hipMemLocation with hipMemPrefetchAsync_v2 / "
                      "hipMemAdvise_v2 (flags 0), every other name from the table, and both "
                      "prefetches kept. (The classic int-device calls would be right too.)")
    return passed("a faithful port: the on-demand question asked of PageableMemoryAccess "
                  "(XNACK), every other name from the table, int devices instead of "
                  "cudaMemLocation (hipCpuDeviceId for the host), no flags argument, and both "
                  "prefetches kept. (hipMemPrefetchAsync_v2 / hipMemAdvise_v2 with a "
                  "hipMemLocation would be right too: the most direct port of CUDA 13.)")


PORT = Exercise(
    why_terms=('hip', 'hipify', 'cuda', 'runtime api', 'attribute', '_v2', 'rename', '移植', '运行时',
               '属性', '改名'),
    name="nb08.port", argument="hip_source", kind="text", concept=PORT_CONCEPT,
    answer=_PORT_CLASSIC,
    none="{argument} is still None: write the HIP version of nb08.CUDA_SOURCE as a string.",
    wrong_type="{argument} must be a string of C++ code, not {type}.",
    grader=_grade_port)


@tiered
def check_port(hip_source) -> Verdict:
    """``hip_source``: your HIP version of :data:`CUDA_SOURCE`, as a string.  Two ports are right:
    the classic calls with int devices (``hipMemPrefetchAsync(ptr, n, 0, stream)``,
    ``hipCpuDeviceId`` for the CPU), or HIP's ``_v2`` calls with a ``hipMemLocation`` -- the most
    direct port of CUDA 13 (ROCm/clr hipamd/src/hip_hmm.cpp: ``hipMemPrefetchAsync_v2(ptr, n,
    hipMemLocation, flags, stream)`` with flags 0, ``hipMemAdvise_v2(ptr, n, advice,
    hipMemLocation)``)."""
    return check(PORT, hip_source)


# -- exercise 2: the "access owner" table (§5.3) --------------------------------------------------------
VRAM_GB = 80
#: the buffers of a fine-tuning job on one 80 GB GPU (a 3-billion-parameter model); printed in the
#: learner's language (umkit.runtime.lang.Localized)
BUFFERS = Localized({
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
})
_EXPECT = {
    "weights": dict(budget=6.0, lifetime={"run"}, owner={"gpu"}, allocator={"device"}),
    "grads": dict(budget=6.0, lifetime={"step", "run"}, owner={"gpu"}, allocator={"device"}),
    "adam_state": dict(budget=24.0, lifetime={"run"}, owner={"gpu"}, allocator={"device"}),
    "batch": dict(budget=0.5, lifetime={"step"}, owner={"both"}, allocator={"managed", "pinned"}),
    # one rule with notebooks 02 and 07 (their loss_scalars): pinned zero-copy, or device memory
    # with a small copy to the host each step (what loss.item() does)
    "metrics": dict(budget=4e-6, lifetime={"step", "run"}, owner={"both"},
                    allocator={"pinned", "device"}),
    # the course's one rule for the checkpoint buffer: managed memory, prefetched to the host
    # before the CPU reads it (the column's choice), is the answer; pinned host memory with an
    # explicit async copy is also right; device-only memory is wrong (the CPU must read it)
    "checkpoint": dict(budget=6.0, lifetime={"rare"}, owner={"cpu"},
                       allocator={"managed", "pinned"}),
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
    "cpu": "a buffer the CPU must read: managed memory, prefetched to the host before the CPU "
           "reads it (the column's choice, §3.4), or pinned host memory with an explicit async "
           "copy -- both right; device-only memory is wrong, the CPU must read it",
}
_ALLOC_SPECIAL = {
    ("metrics", "managed"): "Both sides touch it every step, but it is 4 KB: in managed memory its one page would "
               "migrate back and forth every step (a tiny ping-pong). Pinned host memory "
               "(hipHostMalloc) lets the GPU write it over the link with nothing migrating (§4.4); "
               "device memory with a small copy to the host each step (what loss.item() does) is "
               "right too.",
    ("checkpoint", "device"): "The CPU writes it to disk: device-only memory is wrong, the CPU "
                              "must read it. Managed memory prefetched to the host before the "
                              "CPU reads it (the column's choice), or pinned host memory with an "
                              "explicit async copy, are both right.",
}
LIFETIMES = ("run", "step", "rare")
OWNERS = ("gpu", "cpu", "both")
ALLOCATORS = ("device", "managed", "pinned")


def empty_owner_table() -> dict:
    """The table to fill in: one row per buffer, every field None."""
    return {k: dict(budget_gb=None, lifetime=None, owner=None, allocator=None) for k in BUFFERS}


_BUDGET_WHY = {
    "weights": "3e9 parameters x 2 bytes (bf16) = 6 GB",
    "grads": "one bf16 gradient per parameter: 3e9 x 2 bytes = 6 GB",
    "adam_state": "two fp32 moments per parameter: 3e9 x 8 bytes = 24 GB",
    "batch": "0.5 GB, as the description says",
    "metrics": "4 KB = 4e-6 GB",
    "checkpoint": "a copy of the weights: 6 GB",
}
TABLE_CONCEPT = ("§5.3's day-one table, one row per buffer: the budget is count x bytes per "
                 "element (GB = 10^9 bytes); the lifetime is how long the buffer lives; the access "
                 "owner is who touches it on the hot path, every step (a rare visitor is not an "
                 "owner); the allocator follows from owner and lifetime: only the GPU -> device "
                 "memory, the heart of §6.1; both sides every step -> managed + prefetch (§4.2), or "
                 "pinned zero-copy when it is tiny (§4.4); rarely touched, CPU-side -> managed "
                 "(§3.4)")


def _table_answer(only=None) -> str:
    rows = []
    for k in (only or BUFFERS):
        e = _EXPECT[k]
        rows.append(f"{k}: budget_gb={e['budget']:g} ({_BUDGET_WHY[k]}), lifetime="
                    f"{' or '.join(sorted(e['lifetime']))}, owner={'/'.join(sorted(e['owner']))} "
                    f"({_OWNER_WHY[k]}), allocator={' or '.join(sorted(e['allocator']))}")
    return " | ".join(rows)


def _grade_owner_table(table: dict) -> Verdict | str:
    missing = [k for k in BUFFERS if k not in table]
    if missing:
        return f"rows missing: {missing}."
    for k in BUFFERS:
        row = table[k]
        if not isinstance(row, dict):
            return (f"{k}: each row is a dict(budget_gb=..., lifetime=..., owner=..., "
                    "allocator=...).")
        for field, allowed in (("lifetime", LIFETIMES), ("owner", OWNERS), ("allocator", ALLOCATORS)):
            v = row.get(field)
            if v is None:
                return f"{k}: {field} is still None (one of {allowed})."
            if v not in allowed:
                return f"{k}: {field}={v!r} is not one of {allowed}."
        b = row.get("budget_gb")
        if b is None:
            return (f"{k}: budget_gb is still None. Work it out from the description "
                    f"(GB = 10^9 bytes): {BUFFERS[k]}")
        try:
            float(b)
        except (TypeError, ValueError, OverflowError):
            return f"{k}: budget_gb={b!r} must be a number of GB."
    # the table is graded as a set: never which row, nor how many (either lets a loop flip one
    # row at a time and watch the message change); hint=3 is the whole table
    def budget_ok(k):
        b, want = float(table[k]["budget_gb"]), _EXPECT[k]["budget"]
        return abs(b - want) <= 0.1 * want or (want < 1e-3 and 0 < b < 1e-3)
    if not all(budget_ok(k) for k in BUFFERS):
        return failed("the budgets are not all right yet. For every row: how many elements, how "
                      "many bytes each (bf16 = 2, fp32 = 4), and GB = 10^9 bytes -- and is it a "
                      "copy of another buffer?", answer=_table_answer())
    wrong = [k for k in BUFFERS
             if table[k]["owner"] not in _EXPECT[k]["owner"]
             or table[k]["allocator"] not in _EXPECT[k]["allocator"]
             or table[k]["lifetime"] not in _EXPECT[k]["lifetime"]]
    if wrong:
        return failed("the budgets are right; the owners, allocators and lifetimes are not all "
                      "right yet. For every row ask: who touches it on the hot path, how often, "
                      "how big is it, and which memory lets that side touch it without migrating "
                      "it back and forth?",
                      answer=_table_answer() + " | " + " | ".join(_ALLOC_SPECIAL.values()))
    dev = sum(float(table[k]["budget_gb"]) for k in BUFFERS if table[k]["allocator"] == "device")
    if dev > VRAM_GB:
        return f"the device-memory buffers add up to {dev:g} GB, more than the {VRAM_GB} GB card."
    return passed(f"every buffer has a budget, a lifetime and an access owner, and its allocator "
                  f"follows from them; {dev:g} GB of the {VRAM_GB} GB card is device memory, the "
                  "rest is activations' headroom. Same table, both platforms.")


OWNER_TABLE = Exercise(
    why_terms=('owner', 'lifetime', 'budget', 'allocator', 'hot path', 'every step', '所有者', '生命周期',
               '预算', '分配器', '热路径', '每一步'),
    name="nb08.owner_table", argument="owner_table", kind="table", concept=TABLE_CONCEPT,
    answer=_table_answer(),
    none="{argument} is None: start from nb08.empty_owner_table().",
    wrong_type="{argument} must be a dict of rows, not {type}.",
    grader=_grade_owner_table)


@tiered
def check_owner_table(table) -> Verdict:
    """``table``: {buffer: dict(budget_gb=float, lifetime='run'|'step'|'rare',
    owner='gpu'|'cpu'|'both', allocator='device'|'managed'|'pinned')} for every buffer."""
    return check(OWNER_TABLE, table)
