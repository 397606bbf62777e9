"""The rules of ``umkit port-check``: what each CUDA unified-memory construct does on the chosen
AMD target, with a severity and the vendor-claim ledger entries it follows.

The AMD platform facts are not restated here: each target is a simulator profile
(``umkit/sim/profiles/``) and the policies of :mod:`umkit.sim.policy` that profile selects, and
the rules read those (``prefetch_migrates``, ``cpu_touch_of_gpu_pages``,
``system_alloc_gpu_touch`` ...).  XNACK is the process's setting (``--xnack``): GPU-side rules
follow it, CPU-side rules (what a CPU touch of GPU-resident pages does) follow the platform.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from ...backends import names
from ...sim import Profile, load_profile
from ...sim import AmdApu, AmdXnackOff, Policy, policy_for
from .cxx import SCAN, Arg, Source, declared_name, split_args

SEVERITIES = ("breaks", "slower", "differs", "same")
#: target -> (GPU architecture, profile with XNACK on, profile with XNACK off, words)
TARGETS = {
    "mi250x": ("gfx90a", "mi250x-xnack1", "mi250x-xnack0",
               "AMD MI250X on a Frontier-class node, as OLCF's user guide observes it"),
    "mi250x-coherent": ("gfx90a", "mi250x-coherent", "mi250x-coherent",
                        "AMD MI250X on a CPU-coherent node (device-coherent VRAM)"),
    "mi300x": ("gfx942", "mi300x", "mi300x", "AMD MI300X on PCIe"),
    "mi300a": ("gfx942", "mi300a-apu", "mi300a-apu", "AMD MI300A APU (one memory)"),
}
#: the rules, by construct id, in report order
CONSTRUCTS = ("managed_alloc", "managed_var", "prefetch", "advise", "cpu_device_id",
              "stream_attach", "range_attribute", "device_attribute", "pinned_alloc",
              "ipc_managed", "system_memory_kernel", "managed_atomic", "device_sync_fence")

ALLOCATORS = {"malloc", "calloc", "realloc", "aligned_alloc", "valloc", "memalign", "pvalloc"}
STD_CONTAINERS = {"vector", "array", "valarray", "deque"}
ATOMICS = {f"atomic{op}{scope}" for op in ("Add", "Sub", "Exch", "Min", "Max", "Inc", "Dec",
                                             "CAS", "And", "Or", "Xor")
           for scope in ("", "_system", "_block")}
FLOAT_TYPES = {"float", "double", "half", "__half", "__half2", "half2", "__nv_bfloat16",
               "nv_bfloat16", "float2", "double2"}
SYNCS = {"cudaStreamSynchronize", "cudaEventSynchronize", "cudaStreamWaitEvent",
         "cudaEventQuery", "cudaStreamQuery"}
DEVICE_ATTRS = {"cudaDevAttrConcurrentManagedAccess": "concurrentManagedAccess",
                "cudaDevAttrPageableMemoryAccess": "pageableMemoryAccess",
                "cudaDevAttrDirectManagedMemAccessFromHost": "directManagedMemAccessFromHost",
                "cudaDevAttrManagedMemory": "managedMemory"}
LOCATION_KINDS = {"cudaMemLocationTypeHost": "cpu", "cudaMemLocationTypeHostNuma": "cpu",
                  "cudaMemLocationTypeHostNumaCurrent": "cpu",
                  "cudaMemLocationTypeDevice": "gpu"}


@dataclass(frozen=True)
class Platform:
    """One AMD target as the rules see it."""
    target: str
    xnack: bool
    arch: str
    profile: Profile          # the profile for this target and XNACK setting
    on_profile: Profile       # the target's XNACK-on profile (fault costs)
    gpu: Policy               # GPU-side rules (follow XNACK)
    host: Policy              # CPU-side rules (follow the platform)
    words: str

    @property
    def apu(self) -> bool:
        return self.profile.mode == "apu"

    @property
    def cpu_touch(self) -> str:
        """What a CPU access to GPU-resident managed pages does: ``migrate_block`` |
        ``in_place`` | ``local``."""
        return self.host.cpu_touch_of_gpu_pages

    @property
    def direct_host_access(self) -> bool:
        """hipDeviceAttributeDirectManagedMemAccessFromHost, derived as the sim backend does."""
        return self.cpu_touch in ("in_place", "local")

    @property
    def prefetch_moves(self) -> bool:
        return bool(self.gpu.prefetch_migrates) and not self.apu

    def system_touch(self, heap_or_stack: bool) -> str:
        """What a GPU access to malloc'd memory does (the simulator policy's answer)."""
        if not self.xnack:
            return AmdXnackOff().system_alloc_gpu_touch(heap_or_stack)
        return self.gpu.system_alloc_gpu_touch(heap_or_stack)

    def label(self) -> str:
        return (f"{self.target} ({self.words}), XNACK {'on' if self.xnack else 'off'}, "
                f"sim profile {self.profile.name}")

    def number(self, key: str, scale: float, unit: str, on: bool = False) -> str:
        """A profile number for a message, with where it comes from (estimate or not)."""
        prof = self.on_profile if on else self.profile
        est = "estimate, " if prof.is_estimate(key) else ""
        return f"about {prof.p[key] * scale:.3g} {unit} ({est}sim profile {prof.name}, {key})"


def platform(target: str, xnack: bool) -> Platform:
    arch, on_name, off_name, words = TARGETS[target]
    prof = load_profile(on_name if xnack else off_name)
    on = load_profile(on_name)
    if prof.mode == "apu":
        gpu = AmdApu() if xnack else AmdXnackOff()
    else:
        gpu = policy_for("amd", prof.mode if xnack else "zero_copy", prof.platform)
    host = policy_for("amd", "apu" if on.mode == "apu" else "migrate", on.platform)
    return Platform(target, xnack, arch, prof, on, gpu, host, words)


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    construct: str            # one of CONSTRUCTS
    cuda: str                 # what the source says
    hip: str                  # the HIP spelling
    severity: str             # one of SEVERITIES
    message: str              # what behaves differently on the target
    ledger: tuple             # ledger ids the message follows
    detail: dict = field(default_factory=dict)


# -- what the source tells about names ----------------------------------------------------------
def chain_name(tokens) -> str:
    """The variable an expression names: ``&a`` -> a, ``(void**)&s.ptr`` -> ptr,
    ``&buf[i]`` -> buf, ``v.data()`` -> v."""
    toks = list(tokens[:SCAN])               # a variable is named early; long args hold none
    amp = max((k for k, t in enumerate(toks) if t.text == "&"), default=-1)
    if amp >= 0:
        toks = toks[amp + 1:]
    else:                                     # skip a leading cast: (T*) x, static_cast<T*>(x)
        while toks and toks[0].text == "(":
            k = _closing(toks)
            inner = toks[1:k]
            if k + 1 < len(toks) and all(t.kind == "id" or t.text in ("*", "::", "<", ">")
                                         for t in inner):
                toks = toks[k + 1:]
            else:
                toks = inner
        if toks and toks[0].text.endswith("_cast") and "(" in [t.text for t in toks]:
            toks = toks[[t.text for t in toks].index("(") + 1:]
    name, k = "", 0
    while k < len(toks):
        t = toks[k]
        if t.kind == "id":
            name = t.text
            if k + 1 < len(toks) and toks[k + 1].text in (".", "->"):
                if k + 2 < len(toks) and toks[k + 2].kind == "id" and \
                        k + 3 < len(toks) and toks[k + 3].text == "(":
                    return name                   # v.data(): the container
                k += 2
                continue
            return name
        if t.text not in ("(", "*"):
            break
        k += 1
    return name


def _closing(toks: list) -> int:
    """The index of the ``)`` that closes ``toks[0]`` (an opening ``(``); the last index when
    it is never closed."""
    depth, k = 0, 0
    for k, t in enumerate(toks):
        depth += t.text == "("
        depth -= t.text == ")"
        if depth == 0:
            break
    return k


def _strip(toks: list) -> list:
    """``toks`` without enclosing parentheses and leading casts (``(T*)x``, ``(T*)(x)``,
    ``static_cast<T*>(x)``)."""
    for _ in range(SCAN):
        if len(toks) >= 2 and toks[0].text == "(":
            k = _closing(toks)
            if k == len(toks) - 1:                        # (expr)
                toks = toks[1:-1]
                continue
            inner = toks[1:k]
            if inner and all(t.kind == "id" or t.text in ("*", "::", "<", ">", "&")
                             for t in inner):
                toks = toks[k + 1:]                       # (T*) expr
                continue
            return toks
        if toks and toks[0].text.endswith("_cast") and len(toks) > 2 and toks[1].text == "<":
            depth, k = 0, 1
            for k in range(1, len(toks)):
                depth += toks[k].text == "<"
                depth -= toks[k].text == ">"
                if depth == 0:
                    break
            toks = toks[k + 1:]
            continue
        return toks
    return toks


def pointee(tokens) -> str:
    """The variable whose memory a kernel argument hands over, or "" when the argument is a
    value: ``h``, ``h + off``, ``&a[i]``, ``(float*)h``, ``v.data()`` and ``v.data() + k`` hand
    over h, a, v; ``v.size()``, ``dims[0]``, ``sizeof(h)``, ``*h`` and ``h->n`` are values."""
    toks = _strip(list(tokens[:SCAN]))
    if not toks or len(tokens) > SCAN:
        return ""
    depth, cut = 0, None                          # a top-level + or -: pointer arithmetic
    for k, t in enumerate(toks):
        if t.text in ("(", "[", "{"):
            depth += 1
        elif t.text in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and k and t.text in ("+", "-") and toks[k - 1].text not in (
                "+", "-", "*", "/", "(", ","):
            cut = k
            break
        elif depth == 0 and t.text in ("?", "<<", ">>", "==", "!=", "<", ">", "&&", "||", "%",
                                       "/", "|", "^", "=", ",", "<=", ">="):
            return ""                             # a comparison, a condition, a number
    if cut is not None:
        return pointee(toks[:cut]) or pointee(toks[cut + 1:])
    texts = [t.text for t in toks]
    if texts[0] == "&":                           # &a, &a[i], &a[i][j], &v[0]
        rest = toks[1:]
        if rest and rest[0].kind == "id" and all(x.text not in (".", "->", "(") for x in rest):
            return rest[0].text
        return ""
    if toks[0].kind != "id":
        return ""
    if len(toks) == 1:
        return toks[0].text
    if texts[1:] in (([".", "data", "(", ")"]), (["->", "data", "(", ")"])):
        return toks[0].text                       # v.data()
    return ""


@dataclass
class Facts:
    """What one file says about its names (flow-insensitive, by name)."""
    managed: set = field(default_factory=set)
    managed_vars: dict = field(default_factory=dict)   # __managed__ name -> (line, type)
    system: dict = field(default_factory=dict)         # name -> "heap" | "stack" | "container"
    pinned: set = field(default_factory=set)
    registered: set = field(default_factory=set)
    locations: dict = field(default_factory=dict)      # cudaMemLocation name -> {kinds}
    cpu_ids: set = field(default_factory=set)          # ints set to cudaCpuDeviceId
    prefetched: set = field(default_factory=set)       # names prefetched toward a GPU
    managed_params: dict = field(default_factory=dict)  # kernel -> {param index}
    aliases: dict = field(default_factory=dict)         # factory -> (its pointers, callers')
    # name -> [(the function's body or None, token index, "managed" | "device")]: the
    # allocations written in a function body (not in a macro), in order
    allocs: dict = field(default_factory=dict)

    def managed_at(self, src: Source, name: str, index: int) -> bool:
        """Is ``name`` managed memory where token ``index`` uses it?  The last allocation of
        that name written before it in the same function decides (two functions may each have
        their own ``p``; a name may be freed and allocated again); with none there, what the
        whole file says of the name."""
        fn = src.function_at(index)
        here = fn.body if fn is not None else None
        last = None
        for body, at, kind in self.allocs.get(name, ()):
            if body == here and at < index:
                last = kind
        return name in self.managed if last is None else last == "managed"


def facts(src: Source) -> Facts:
    f = Facts()
    toks = src.tokens
    n = len(toks)
    heap_words = ALLOCATORS | {"new", "make_unique", "make_shared"}
    heap_before = [0] * (n + 1)              # allocator words among the first k tokens
    for k, t in enumerate(toks):
        heap_before[k + 1] = heap_before[k] + (t.text in heap_words)
    for c in src.calls:
        if c.name in ("cudaMallocManaged", "cudaMalloc") and c.args and not c.in_macro:
            fn = src.function_at(c.index)
            f.allocs.setdefault(chain_name(c.args[0].tokens), []).append(
                (fn.body if fn is not None else None, c.index,
                 "managed" if c.name == "cudaMallocManaged" else "device"))
        if c.name == "cudaMallocManaged" and c.args:
            f.managed.add(chain_name(c.args[0].tokens))
        elif c.name in ("cudaMallocHost", "cudaHostAlloc") and c.args:
            f.pinned.add(chain_name(c.args[0].tokens))
        elif c.name == "cudaHostRegister" and c.args:
            f.registered.add(chain_name(c.args[0].tokens))
        elif c.name == "posix_memalign" and c.args:
            f.system[chain_name(c.args[0].tokens)] = "heap"
    for i, t in enumerate(toks):
        if t.kind != "id":
            continue
        nxt = toks[i + 1].text if i + 1 < n else ""
        if t.text == "__managed__":
            j = i + 1
            while j < n and j - i <= SCAN and toks[j].text not in (";", "=", "[", "{", ",",
                                                                   "__managed__"):
                j += 1
            decl = toks[i + 1:j]
            ids = [x.text for x in decl if x.kind == "id" and x.text not in
                   ("__device__", "static", "const", "volatile", "extern", "unsigned", "signed")]
            if ids:
                f.managed_vars[ids[-1]] = (t.line, " ".join(ids[:-1]))
                f.managed.add(ids[-1])
        elif t.text == "cudaMemLocation" and i + 1 < n:
            j = i + 1
            while j < n and toks[j].text in ("const", "&", "*", "&&"):
                j += 1
            while j < n and toks[j].kind == "id" and toks[j].text != "cudaMemLocation":
                kinds = f.locations.setdefault(toks[j].text, set())
                end = j + 1
                depth = 0
                while end < n and toks[end].text != "cudaMemLocation":   # the next one's own
                    x = toks[end].text
                    if x in ("(", "{", "["):
                        depth += 1
                    elif x in (")", "}", "]"):
                        if depth == 0:
                            break
                        depth -= 1
                    elif depth == 0 and x in (";", ","):
                        break
                    if toks[end].text in LOCATION_KINDS:
                        kinds.add(LOCATION_KINDS[toks[end].text])
                    end += 1
                if end < n and toks[end].text == "," and end + 1 < n and \
                        toks[end + 1].kind == "id" and toks[end - 1].text != "(":
                    j = end + 1
                    continue
                break
        elif nxt == "=" and i + 2 < n:
            end = src.statement_end(i + 2)
            if i >= 2 and toks[i - 1].text == "." and toks[i].text == "type":
                owner = toks[i - 2].text
                kinds = {LOCATION_KINDS[x.text] for x in toks[i + 2:min(end, i + 2 + SCAN)]
                         if x.text in LOCATION_KINDS}
                if kinds:
                    f.locations.setdefault(owner, set()).update(kinds)
            elif end == i + 3 and toks[i + 2].text == "cudaCpuDeviceId":
                f.cpu_ids.add(t.text)
            elif end > i + 2 and heap_before[end] > heap_before[i + 2]:
                f.system.setdefault(t.text, "heap")
        elif t.text in STD_CONTAINERS and (
                (i >= 2 and toks[i - 1].text == "::" and toks[i - 2].text == "std") or
                src.uses_std) and nxt == "<":
            j = i + 1
            depth = 0
            while j < n and j - i <= SCAN:
                depth += toks[j].text == "<"
                depth -= toks[j].text == ">"
                j += 1
                if depth == 0:
                    break
            while j < n and toks[j].text in ("&", "*", "const"):
                j += 1
            if j < n and toks[j].kind == "id" and (j + 1 >= n or toks[j + 1].text != "::"):
                if toks[j - 1].text not in ("&", "*"):   # a reference or pointer owns nothing
                    f.system[toks[j].text] = "container"
        elif t.text in ("float", "double", "int", "char", "unsigned", "long", "short",
                        "uint8_t", "int32_t", "uint32_t", "int64_t", "size_t") and \
                i + 2 < n and toks[i + 1].kind == "id" and toks[i + 2].text == "[":
            back = {x.text for x in toks[max(0, i - 4):i]}
            if not back & {"__shared__", "__device__", "__constant__", "__managed__", "extern"}:
                fn = src.function_at(i)
                if fn is None or not fn.kernel:
                    f.system.setdefault(toks[i + 1].text, "stack")
    _follow_aliases(src, f)
    for x in f.managed | f.pinned | f.registered:
        f.system.pop(x, None)
    # factories: a function that returns a managed pointer makes its callers' names managed
    returns_at = [k for k in range(n - 2) if toks[k].text == "return" and
                  toks[k + 2].text == ";"]      # `return name;`
    assigned = {}                               # function name -> names set from its calls
    for k in range(n - 2):
        if toks[k].kind == "id" and toks[k + 1].text == "=":
            callee = toks[k + 2].text if toks[k + 2].text != "::" or k + 3 >= n else \
                toks[k + 3].text
            assigned.setdefault(callee, set()).add(toks[k].text)
    # per function name (overloads share one): the managed names it returns; its callers'
    # names are added once per function name, not once per returned name (quadratic before)
    for fn in src.functions:
        a, b = fn.body
        lo, hi = bisect.bisect_left(returns_at, a), bisect.bisect_right(returns_at, b - 3)
        returns = {toks[k + 1].text for k in returns_at[lo:hi]} & f.managed
        callers = assigned.get(fn.name)
        if not returns or not callers:
            continue
        if fn.name not in f.aliases:
            f.aliases[fn.name] = (set(), callers)
            f.managed |= callers
        f.aliases[fn.name][0].update(returns)
    kernels = {fn.name: fn for fn in src.functions if fn.kernel}
    for la in src.launches:
        for k, arg in enumerate(la.args):
            if pointee(arg.tokens) in f.managed and la.kernel in kernels:
                f.managed_params.setdefault(la.kernel, set()).add(k)
    return f


def _follow_aliases(src: Source, f: Facts) -> None:
    """Names that stand for managed memory without a cudaMallocManaged of their own: a copy of a
    managed pointer (``float* q = p;``, ``q = p;``), a reference bound to one or to which one is
    bound (``float*& r = p;`` -- then allocating through ``r`` makes ``p`` managed), and the
    argument a wrapper function passes on to cudaMallocManaged (``alloc(&p)`` where
    ``void alloc(T** q) { cudaMallocManaged(q, ...); }``).  Linear in the tokens per round; a
    few rounds reach chains of aliases (a -> b -> c)."""
    toks, n = src.tokens, len(src.tokens)
    copies: list = []                  # (to, from, a reference?, where) for `to = from ;`
    for k in range(1, n - 3):
        if toks[k].kind == "id" and toks[k + 1].text == "=" and toks[k + 2].kind == "id" \
                and toks[k + 3].text == ";" and toks[k - 1].text not in (".", "->", "::"):
            copies.append((toks[k].text, toks[k + 2].text, toks[k - 1].text in ("&", "&&"), k))
    allocs = sorted((c.index, chain_name(c.args[0].tokens)) for c in src.calls
                    if c.name == "cudaMallocManaged" and c.args)
    at = [i for i, _ in allocs]
    wrappers: dict = {}                # function name -> {index of the parameter it allocates}
    for i, name in allocs:
        fn = src.function_at(i)
        params = fn.param_names() if fn is not None else []
        if name in params:
            wrappers.setdefault(fn.name, set()).add(params.index(name))
    for k in range(2, n - 1):           # a lambda: auto alloc = [&](float** q) { ... }
        if toks[k].text != "[" or toks[k - 1].text != "=" or toks[k - 2].kind != "id":
            continue
        opener = src.match.get(k, n) + 1
        if opener >= n or toks[opener].text != "(" or opener not in src.match:
            continue
        shut = src.match[opener]
        params = [declared_name(a.tokens) for a in split_args(toks, opener, shut, src.match)]
        body = next((j for j in range(shut + 1, min(n, shut + 8)) if toks[j].text == "{"), None)
        if body is None or body not in src.match:
            continue
        lo, hi = bisect.bisect_left(at, body), bisect.bisect_right(at, src.match[body])
        for _, name in allocs[lo:hi]:
            if name in params:
                wrappers.setdefault(toks[k - 2].text, set()).add(params.index(name))
    passed_on = {chain_name(c.args[i].tokens) for c in src.calls
                 if c.name in wrappers for i in wrappers[c.name] if i < len(c.args)} - {""}
    for _ in range(4):
        before = len(f.managed)
        for to, frm, ref, _ in copies:
            if frm in f.managed:
                f.managed.add(to)
            elif ref and to in f.managed:
                f.managed.add(frm)
        f.managed |= passed_on
        if len(f.managed) == before:
            break
    # a copy is where its name gets its memory, as an allocation is: `q = p; ... q = d;` leaves
    # q device memory after the second (Facts.managed_at reads the last one before a use). One
    # sweep in token order keeps, per (name, function), the kind its last allocation or copy
    # gave it -- what managed_at would find, without rescanning every earlier copy (linear)
    events = sorted([(at, 0, name, body, kind) for name, rows in f.allocs.items()
                     for body, at, kind in rows]
                    + [(k, 1, to, frm, None) for to, frm, ref, k in copies if not ref],
                    key=lambda e: (e[0], e[1]))
    last: dict = {}
    for at, is_copy, name, other, kind in events:
        if not is_copy:
            last[(name, other)] = kind
            continue
        fn = src.function_at(at)
        body = fn.body if fn is not None else None
        known = last.get((other, body))
        kind = ("managed" if (other in f.managed if known is None else known == "managed")
                else "device")
        f.allocs.setdefault(name, []).append((body, at, kind))
        last[(name, body)] = kind
    for name in f.allocs:
        f.allocs[name].sort(key=lambda a: a[1])


# -- one rule per construct ---------------------------------------------------------------------
def hip_names(cuda: str) -> list[str]:
    """Every HIP spelling the names table gives a CUDA name (two for the CUDA 13 calls)."""
    return [r.hip for r in names.rows() if r.cuda == cuda and r.hip]


def location_kind(arg: Arg, src: Source, f: Facts) -> tuple[str, str]:
    """(form, destination) of a prefetch/advise location argument: form ``location`` (CUDA
    13's cudaMemLocation) or ``int``; destination ``cpu`` | ``gpu`` | ``?``."""
    texts = [t.text for t in arg.tokens]
    if len(texts) == 1 and src.object_macro(texts[0]) is not None:
        texts = [t.text for t in src.object_macro(texts[0])] or texts
    kinds = {LOCATION_KINDS[x] for x in texts if x in LOCATION_KINDS}
    if "cudaMemLocation" in texts or kinds:
        return "location", kinds.pop() if len(kinds) == 1 else "?"
    name = chain_name(arg.tokens)
    if len(texts) == 1 and name in f.locations:
        ks = f.locations[name]
        return "location", next(iter(ks)) if len(ks) == 1 else "?"
    if "cudaCpuDeviceId" in texts or (len(texts) == 1 and texts[0] in f.cpu_ids):
        return "int", "cpu"
    return "int", "gpu"


def _f(ctx, call_or_line, construct, cuda, hip, severity, message, ledger, **detail):
    line = call_or_line if isinstance(call_or_line, int) else call_or_line.line
    alias = "" if isinstance(call_or_line, int) else call_or_line.alias
    if alias:                                 # called through a macro or a variable
        cuda, detail = f"{alias} -> {cuda}", detail | {"alias": alias}
    return Finding(ctx.path, line, construct, cuda, hip, severity, message, tuple(ledger),
                   detail)


@dataclass
class Context:
    path: str
    src: Source
    facts: Facts
    plat: Platform


def rule_managed_alloc(ctx: Context):
    """cudaMallocManaged and its flags (ledger: amd.fault.granule, amd.no_prefetcher,
    amd.xnack0.alloc_maps, amd.xnack0.no_retry_fault, amd.apu.no_migration,
    amd.malloc_managed.attach_flags)."""
    p, f = ctx.plat, ctx.facts
    for c in ctx.src.calls:
        if c.name != "cudaMallocManaged":
            continue
        name = chain_name(c.args[0].tokens) if c.args else ""
        flags = c.args[2].text if len(c.args) > 2 else "cudaMemAttachGlobal (default)"
        sev, msg, led = _managed_memory(p, name in f.prefetched, name)
        if "cudaMemAttachHost" in flags:
            msg += (" hipMallocManaged accepts hipMemAttachHost and ignores it: the memory is "
                    "visible to the GPU and every stream at once.")
            led = led + ["amd.malloc_managed.attach_flags"]
        yield _f(ctx, c, "managed_alloc", "cudaMallocManaged" + (f"<{c.template}>" if
                                                                 c.template else ""),
                 names.cuda_to_hip("cudaMallocManaged"), sev, msg, led, pointer=name,
                 flags=flags, prefetched=name in f.prefetched)
    for t, fn in ctx.src.taken:               # its address taken where the reader loses it
        sev, msg, led = _managed_memory(p, False, "")
        written = fn if t.text == fn else f"{t.text} -> {fn}"
        yield _f(ctx, t.line, "managed_alloc", f"{written} (as a value)",
                 names.cuda_to_hip(fn), sev, msg + (
                     f" {fn} is taken as a value here (a function pointer) and port-check "
                     "cannot follow the calls made through it: the pointers they allocate are "
                     "not checked. Check by hand that none is passed to hipIpcGetMemHandle, "
                     "which fails on managed memory."), led + ["amd.ipc.managed"], pointer="",
                 flags="?", prefetched=False, followed=False)


def _managed_memory(p: Platform, prefetched: bool, name: str):
    """Severity, message and ledger ids for a managed buffer on platform ``p`` (ledger:
    amd.fault.granule, amd.vram.whole_range_bo)."""
    what = f"`{name}`" if name else "this buffer"
    if p.apu:
        return ("differs", f"one memory: {what} never migrates; GPU faults map pages where they "
                "are and a prefetch moves nothing.", ["amd.apu.no_migration"])
    if not p.xnack:
        bw = p.number("zero_copy_bw", 1e-9, "GB/s")
        msg = (f"XNACK off: hipMallocManaged maps {what} for the GPU and faults in every page "
               "inside the call (time grows with size); the GPU cannot fault, so it reads and "
               f"writes host memory over the link, {bw}, unless a prefetch moves it.")
        led = ["amd.xnack0.alloc_maps", "amd.xnack0.no_retry_fault"]
        if not prefetched:
            return "slower", msg, led
        if p.cpu_touch == "migrate_block":
            entry = _cpu_touch_entry(p)
            # on a node whose VRAM the CPU is attached to, migrate-on-touch is OLCF's word (for
            # XNACK on); amdkfd's coherent registration of that VRAM points to in-place access
            disputed = (" -- OLCF's guide documents migrate-on-touch on this node for "
                        "HSA_XNACK=1, and amdkfd's CPU-fault handler does not look at XNACK; but "
                        "amdkfd registers VRAM the CPU is attached to as coherent, which points to "
                        "in-place access, so the sources disagree --"
                        if entry == "amd.olcf.migrate_on_touch" else "")
            return "slower", msg + (
                " It is prefetched here; after that, any CPU read or write of its GPU-resident "
                "pages (a host check of a result, for one) migrates them back (the 2 MiB-aligned "
                f"block around each touched address, in every amdkfd version){disputed} and, "
                "with XNACK off, stops all of the process's GPU queues until the driver has "
                "remapped the range: keep CPU touches out of the GPU phase, or prefetch it to "
                "the CPU first."), led + [entry, "amd.xnack0.quiesce"] + (
                    ["amd.vram.coherent"] if disputed else [])
        return "differs", msg + " It is prefetched here.", led
    lat = p.number("fault_batch_latency", 1e3, "ms per isolated fault round", on=True)
    msg = (f"pages of {what} appear on first touch; a GPU fault migrates the 2 MiB block around "
           f"it on Linux 6.8 and later (the whole range on older amdkfd: at most 1 GiB since Linux 6.0 "
           f"split large ranges, any size before), with no "
           f"density prefetcher, and an isolated fault costs far more than on NVIDIA ({lat}; "
           f"that is a whole small kernel's time with its fault, and from about 16 MiB up the "
           f"fault path moves data about as fast as a prefetch). The first migration also "
           f"allocates VRAM for the whole range, not only the touched pages.")
    if prefetched:
        return "differs", msg + " It is prefetched here, which avoids the faults.", [
            "amd.fault.granule", "amd.no_prefetcher", "amd.vram.whole_range_bo"]
    return "slower", msg + " It is never prefetched toward the GPU in this file: add a " \
        "hipMemPrefetchAsync before the kernels that use it.", ["amd.fault.granule",
                                                               "amd.no_prefetcher",
                                                               "amd.vram.whole_range_bo"]


def rule_managed_var(ctx: Context):
    """``__managed__`` variables (ledger: amd.managed_var.registration)."""
    for name, (line, typ) in ctx.facts.managed_vars.items():
        sev, msg, led = _managed_memory(ctx.plat, name in ctx.facts.prefetched, name)
        yield _f(ctx, line, "managed_var", f"__managed__ {typ} {name}".replace("  ", " "),
                 "__managed__ (the same keyword in HIP)", sev,
                 "the runtime allocates it with hipMallocManaged's allocator at start-up; "
                 + msg, ["amd.managed_var.registration"] + led, variable=name)


#: calls that say a file drives more than one GPU
MULTI_GPU_CALLS = ("cudaGetDeviceCount", "cudaDeviceEnablePeerAccess", "cudaDeviceCanAccessPeer",
                   "cudaMemcpyPeer", "cudaMemcpyPeerAsync")


def multi_gpu(src) -> bool:
    """Whether a file uses more than one GPU: a peer or device-count call, or cudaSetDevice with
    anything but the literal 0."""
    for c in src.calls:
        if c.name in MULTI_GPU_CALLS:
            return True
        if c.name == "cudaSetDevice" and c.args and \
                "".join(t.text for t in c.args[0].tokens) not in ("0", ""):
            return True
    return False


#: a prefetch to a GPU in multi-GPU code: where the driver really puts the range
#: (kfd_svm.c svm_range_best_prefetch_location; ledger amd.prefetch.migrates)
_MULTI_GPU_PREFETCH = (
    " This file uses more than one GPU: the driver honours a GPU target only if every other GPU "
    "it checks is in the target's xGMI hive (with XNACK off every GPU with access to the range, "
    "and hipMallocManaged grants access to every GPU the process sees; with XNACK on only the "
    "accessed-by GPUs), so with XNACK off on PCIe GPUs the range goes to system memory instead; "
    "hipMemRangeGetAttribute's LastPrefetchLocation still reports the "
    "GPU you asked for. Limit the process to one GPU (HIP_VISIBLE_DEVICES) or give each GPU its "
    "own allocation.")


def rule_prefetch(ctx: Context):
    """cudaMemPrefetchAsync, int-device and cudaMemLocation forms (ledger:
    amd.prefetch.migrates, amd.xnack0.hints_work, amd.xnack0.quiesce,
    amd.apu.prefetch_records, amd.prefetch.not_supported)."""
    p, f = ctx.plat, ctx.facts
    many = multi_gpu(ctx.src)
    for c in ctx.src.calls:
        if c.name not in ("cudaMemPrefetchAsync", "cudaMemPrefetchAsync_v2") or len(c.args) < 3:
            continue
        form, dest = location_kind(c.args[2], ctx.src, f)
        if c.name.endswith("_v2"):
            form = "location"
        hips = hip_names("cudaMemPrefetchAsync")
        hip = (f"{hips[1]} (HIP 7.1, same hipMemLocation) or {hips[0]}(ptr, n, "
               f"{'hipCpuDeviceId' if dest == 'cpu' else 'device'}, stream)"
               if form == "location" else hips[0])
        name = chain_name(c.args[0].tokens)
        where = {"cpu": "to the CPU", "gpu": "to a GPU", "?": "(destination not read)"}[dest]
        detail = dict(form=form, destination=dest, pointer=name)
        if name in f.system and dest != "cpu" and not p.xnack:
            yield _f(ctx, c, "prefetch", c.name, hip, "breaks",
                     f"`{name}` is system-allocated memory: with XNACK off hipMemPrefetchAsync "
                     "of a non-HIP allocation to a GPU returns hipErrorNotSupported.",
                     ["amd.prefetch.not_supported"], **detail)
            continue
        if p.apu:
            yield _f(ctx, c, "prefetch", c.name, hip, "differs",
                     f"prefetch {where} records the target and moves nothing: there is one "
                     "memory.", ["amd.apu.prefetch_records"], **detail)
        elif not p.xnack:
            hive = many and dest != "cpu"
            yield _f(ctx, c, "prefetch", c.name, hip, "slower",
                     f"prefetch {where} still migrates with XNACK off, but every such migration "
                     "stops all of the process's GPU queues until the driver has remapped the "
                     "range: it does not overlap kernels on other streams."
                     + (_MULTI_GPU_PREFETCH if hive else ""),
                     ["amd.xnack0.hints_work", "amd.xnack0.quiesce"]
                     + (["amd.prefetch.migrates"] if hive else []), **detail,
                     multi_gpu=hive)
        else:
            yield _f(ctx, c, "prefetch", c.name, hip, "same",
                     f"prefetch {where} migrates the whole range, as on CUDA"
                     + (" (with XNACK on, to system memory instead if a GPU given accessed-by "
                        "advice is outside the target's xGMI hive)." if dest != "cpu" else "."),
                     ["amd.prefetch.migrates"], **detail)


ADVICE = {"cudaMemAdviseSetReadMostly": "read_mostly", "cudaMemAdviseUnsetReadMostly": "unset",
          "cudaMemAdviseSetPreferredLocation": "preferred",
          "cudaMemAdviseUnsetPreferredLocation": "unset",
          "cudaMemAdviseSetAccessedBy": "accessed_by", "cudaMemAdviseUnsetAccessedBy": "unset"}


def rule_advise(ctx: Context):
    """cudaMemAdvise by advice kind and destination (ledger: amd.read_mostly.flag,
    amd.advise.accessed_by_cpu, amd.peer.accessed_by, amd.advise.invalid_value,
    amd.vram.coherent, amd.vram.private, amd.olcf.migrate_on_touch)."""
    p, f = ctx.plat, ctx.facts
    for c in ctx.src.calls:
        if c.name not in ("cudaMemAdvise", "cudaMemAdvise_v2") or len(c.args) < 4:
            continue
        form, dest = location_kind(c.args[3], ctx.src, f)
        if c.name.endswith("_v2"):
            form = "location"
        texts = [t.text for t in c.args[2].tokens]
        if len(texts) == 1 and ctx.src.object_macro(texts[0]):
            texts = [t.text for t in ctx.src.object_macro(texts[0])]
        advice = next((x for x in texts if x in ADVICE), None)
        hips = hip_names("cudaMemAdvise")
        hip = (f"{hips[1]} (HIP 7.1, same hipMemLocation) or {hips[0]}(ptr, n, advice, "
               f"{'hipCpuDeviceId' if dest == 'cpu' else 'device'})" if form == "location"
               else hips[0])
        detail = dict(form=form, destination=dest, advice=advice or "?")
        sev, msg, led = _advice(p, ADVICE.get(advice), dest)
        if advice is None:
            sev, msg, led = ("differs", "the advice is not a literal here, so port-check cannot "
                             "say which rule applies: read-mostly duplicates nothing on AMD, "
                             "accessed-by the CPU changes nothing, accessed-by a GPU maps in "
                             "place on the first fault.", ["amd.read_mostly.flag",
                                                           "amd.advise.accessed_by_cpu",
                                                           "amd.peer.accessed_by"])
        yield _f(ctx, c, "advise", c.name + (f" ({advice})" if advice else ""), hip, sev, msg,
                 led, **detail)


def _advice(p: Platform, kind, dest):
    if kind == "unset":
        return "same", "undoing advice is accepted as on CUDA (hipMemAdvise never returns " \
            "hipErrorNotSupported: clr's ihipMemAdvise returns hipErrorInvalidValue for a bad " \
            "range or a rejected attribute, hipErrorInvalidDevice for an unknown GPU and " \
            "hipErrorStreamCaptureUnsupported while a stream is being captured).", ["amd.advise.invalid_value"] \
            + (["amd.xnack0.hints_work"] if not p.xnack else [])
    if kind == "read_mostly":
        msg = ("read-mostly is only a flag in amdkfd: no read-only copies are made, so the "
               "CPU and the GPU do not each get a local copy as on NVIDIA")
        if p.apu:
            return "same", msg + "; with one memory there is nothing to copy.", [
                "amd.read_mostly.flag", "amd.apu.no_migration"]
        if p.cpu_touch == "in_place" and p.xnack:
            return "differs", msg + "; the CPU reads GPU-resident pages in place over the " \
                "link.", ["amd.read_mostly.flag", "amd.vram.coherent"]
        return "slower", msg + ("; with XNACK off the GPU reads them over the link." if not
                                p.xnack else "; a CPU read of GPU-resident pages migrates them "
                                "back and the GPU faults them in again."), [
            "amd.read_mostly.flag"] + (["amd.xnack0.no_retry_fault"] if not p.xnack else
                                       [_cpu_touch_entry(p)])
    if kind == "preferred" and dest == "cpu":
        return "same", "a CPU preferred location keeps the range in system memory: GPU faults " \
            "map it there in place.", ["amd.advise.accessed_by_cpu"]
    if kind == "preferred":
        if p.apu:
            return "differs", "one memory: the preferred location moves nothing.", [
                "amd.apu.no_migration"]
        if not p.xnack:
            return "differs", "accepted with XNACK off, but the GPU cannot fault, so pages " \
                "move to the GPU only with an explicit prefetch.", ["amd.xnack0.hints_work",
                                                                    "amd.xnack0.no_retry_fault"]
        if p.cpu_touch == "in_place":
            return "differs", "the CPU reads and writes pages on the preferred GPU in place " \
                "over the coherent link instead of migrating them.", ["amd.vram.coherent"]
        return "same", "a CPU touch still migrates the block back whatever the advice, as " \
            "on an NVIDIA GPU on PCIe.", [_cpu_touch_entry(p)]
    if kind == "accessed_by" and dest == "cpu":
        return ("slower" if p.cpu_touch == "migrate_block" else "differs"), \
            "accessed-by the CPU only sets a host-access flag that amdkfd's placement never " \
            "reads: it does not keep a CPU mapping of GPU-resident pages" + \
            (", so a CPU touch migrates them back." if p.cpu_touch == "migrate_block" else
             "."), ["amd.advise.accessed_by_cpu"] + ([_cpu_touch_entry(p)] if p.cpu_touch ==
                                                      "migrate_block" else [])
    if kind == "accessed_by":
        if not p.xnack:
            return "same", "the range is mapped for the GPUs already, at allocation with " \
                "XNACK off.", ["amd.xnack0.alloc_maps"]
        if p.apu:
            return "differs", "with XNACK on neither the allocation nor this advice maps the " \
                "range: that GPU's first touch faults once per 2 MiB block and maps it where " \
                "it is (one memory, nothing migrates), where NVIDIA maps it without a fault.", [
                    "amd.advise.remap", "amd.fault.granule", "amd.apu.no_migration"]
        return "differs", "accessed-by a GPU maps the range where it is on that GPU's first " \
            "fault (one fault per 2 MiB block), where NVIDIA maps it without a fault.", [
                "amd.peer.accessed_by"]
    return "differs", "unknown advice.", ["amd.advise.invalid_value"]


def _cpu_touch_entry(p: Platform) -> str:
    return "amd.olcf.migrate_on_touch" if p.host.name == "amd-xnack-on" and \
        p.on_profile.platform == "cpu-coherent-olcf-observed" else "amd.vram.private"


def rule_cpu_device_id(ctx: Context):
    """cudaCpuDeviceId (ledger: amd.names.cpu_device_id)."""
    seen = [t.line for t in ctx.src.tokens if t.kind == "id" and t.text == "cudaCpuDeviceId"]
    seen += [m.line for m in ctx.src.macros for t in m.body if t.text == "cudaCpuDeviceId"]
    for line in seen:
        yield _f(ctx, line, "cpu_device_id", "cudaCpuDeviceId",
                 names.cuda_to_hip("cudaCpuDeviceId"), "same",
                 "-1 in both runtimes: the int form of prefetch and advice ports by renaming.",
                 ["amd.names.cpu_device_id"])


def rule_stream_attach(ctx: Context):
    """cudaStreamAttachMemAsync (ledger: amd.stream_attach.noop)."""
    for c in ctx.src.calls:
        if c.name == "cudaStreamAttachMemAsync":
            flags = c.args[3].text if len(c.args) > 3 else "cudaMemAttachSingle (default)"
            yield _f(ctx, c, "stream_attach", c.name, names.cuda_to_hip(c.name), "differs",
                     "validates its arguments and returns success, nothing else: the memory "
                     "stays visible to every stream and the GPU; do not rely on it to scope a "
                     "buffer to one stream.", ["amd.stream_attach.noop"], flags=flags)


RANGE_ATTRS = ("cudaMemRangeAttributeReadMostly", "cudaMemRangeAttributePreferredLocation",
               "cudaMemRangeAttributeAccessedBy", "cudaMemRangeAttributeLastPrefetchLocation")


def rule_range_attribute(ctx: Context):
    """cudaMemRangeGetAttribute(s) (ledger: amd.range_attr.from_kfd, amd.read_mostly.flag,
    amd.apu.prefetch_records)."""
    p = ctx.plat
    for c in ctx.src.calls:
        if c.name not in ("cudaMemRangeGetAttribute", "cudaMemRangeGetAttributes"):
            continue
        ids = [x for a in c.args for x in a.ids()]
        attr = next((x for x in ids if x in RANGE_ATTRS), None)
        led = ["amd.range_attr.from_kfd"]
        if attr == "cudaMemRangeAttributeReadMostly":
            sev, msg = "differs", "reports the read-mostly flag as set, but amdkfd made no copies."
            led.append("amd.read_mostly.flag")
        elif attr == "cudaMemRangeAttributeLastPrefetchLocation" and p.apu:
            sev, msg = "differs", "reports the prefetch target, although nothing moved."
            led.append("amd.apu.prefetch_records")
        else:
            sev, msg = "same", "reports what was set for the range, read back from amdkfd."
        yield _f(ctx, c, "range_attribute", c.name + (f" ({attr})" if attr else ""),
                 names.cuda_to_hip(c.name) + (f" ({names.cuda_to_hip(attr)})" if attr else ""),
                 sev, msg, led, attribute=attr or "?")


def rule_device_attribute(ctx: Context):
    """device attributes used as capability checks, by attribute or cudaDeviceProp field
    (ledger: amd.attr.concurrent_managed, amd.attr.pageable_xnack, amd.attr.direct_host)."""
    p = ctx.plat
    toks = ctx.src.tokens
    seen = []
    for c in ctx.src.calls:
        if c.name == "cudaDeviceGetAttribute" and len(c.args) > 1:
            texts = [t.text for t in c.args[1].tokens]
            if len(texts) == 1 and ctx.src.object_macro(texts[0]):
                texts = [t.text for t in ctx.src.object_macro(texts[0])]
            attr = next((x for x in texts if x in DEVICE_ATTRS), None)
            if attr:
                seen.append((c.line, attr, attr, names.cuda_to_hip(attr)))
    for i, t in enumerate(toks):
        if t.kind == "id" and t.text in DEVICE_ATTRS.values() and i and \
                toks[i - 1].text in (".", "->"):
            attr = next(k for k, v in DEVICE_ATTRS.items() if v == t.text)
            seen.append((t.line, attr, f"cudaDeviceProp.{t.text}", f"hipDeviceProp_t.{t.text}"))
    for line, attr, cuda, hip in seen:
        if attr == "cudaDevAttrConcurrentManagedAccess":
            sev = "same" if p.xnack else "differs"
            msg = ("1 on ROCm whenever the driver has SVM (HMM) support, XNACK or not" +
                   ("." if p.xnack else ": here it says 1 although the GPU cannot fault and "
                    "nothing migrates on demand. Test PageableMemoryAccess for XNACK."))
            led = ["amd.attr.concurrent_managed"]
        elif attr == "cudaDevAttrPageableMemoryAccess":
            sev = "same" if p.xnack else "differs"
            msg = (f"{int(p.xnack)} here: on ROCm it is 1 exactly when XNACK is on for every "
                   "GPU, so it is the XNACK test" + ("." if p.xnack else
                                                     "; code that needs it takes its fallback."))
            led = ["amd.attr.pageable_xnack"]
        elif attr == "cudaDevAttrDirectManagedMemAccessFromHost":
            sev = "differs" if p.direct_host_access else "same"
            msg = (f"{int(p.direct_host_access)} here: " + (
                "the CPU reads and writes GPU-resident managed pages in place, unlike an "
                "NVIDIA GPU on PCIe." if p.direct_host_access else
                "a CPU touch of GPU-resident pages migrates them back, as on an NVIDIA GPU on "
                "PCIe."))
            led = ["amd.attr.direct_host"] + (
                ["amd.apu.no_migration"] if p.apu else ["amd.vram.coherent"]
                if p.cpu_touch == "in_place" else [_cpu_touch_entry(p)])
        else:
            sev, msg, led = "same", "1 where the driver has SVM (HMM) support.", [
                "amd.attr.concurrent_managed"]
        yield _f(ctx, line, "device_attribute", cuda, hip, sev, msg, led, attribute=attr)


def rule_pinned_alloc(ctx: Context):
    """cudaMallocHost / cudaHostAlloc and their flags (ledger: amd.host_malloc.coherent,
    amd.host_malloc.deprecated, amd.host_malloc.write_combined)."""
    for c in ctx.src.calls:
        if c.name == "cudaMallocHost":
            yield _f(ctx, c, "pinned_alloc", c.name, "hipHostMalloc(ptr, size, 0)", "same",
                     "flags 0 give coherent, fine-grained pinned memory; hipMallocHost is "
                     "deprecated, and newer headers also mark hipHostMalloc deprecated in "
                     "favour of hipExtHostAlloc.", ["amd.host_malloc.coherent",
                                                    "amd.host_malloc.deprecated"], flags="0")
        elif c.name == "cudaHostAlloc":
            flags = c.args[2] if len(c.args) > 2 else None
            texts = [t.text for t in flags.tokens] if flags else []
            if len(texts) == 1 and ctx.src.object_macro(texts[0]):
                texts = [t.text for t in ctx.src.object_macro(texts[0])]
            hip = names.cuda_to_hip("cudaHostAlloc")
            known = {"cudaHostAllocDefault", "cudaHostAllocMapped", "cudaHostAllocPortable",
                     "cudaHostAllocWriteCombined", "0", "|", "(", ")"}
            shown = flags.text if flags else "?"
            if not texts or set(texts) - known:
                yield _f(ctx, c, "pinned_alloc", c.name, hip, "differs",
                         "flags not read from the source: with HIP_HOST_COHERENT=0 (the "
                         "default) flags without hipHostMallocMapped or a coherence flag give "
                         "non-coherent memory.", ["amd.host_malloc.coherent"], flags=shown)
            elif "cudaHostAllocMapped" in texts or set(texts) <= {"cudaHostAllocDefault", "0"}:
                extra = " The write-combined flag is accepted and ignored." if \
                    "cudaHostAllocWriteCombined" in texts else ""
                yield _f(ctx, c, "pinned_alloc", c.name, hip, "same",
                         "coherent, fine-grained pinned memory, as on CUDA." + extra,
                         ["amd.host_malloc.coherent"] + (["amd.host_malloc.write_combined"]
                                                         if extra else []), flags=shown)
            else:
                wc = "cudaHostAllocWriteCombined" in texts
                yield _f(ctx, c, "pinned_alloc", c.name, hip, "differs",
                         "without hipHostMallocMapped these flags give non-coherent "
                         "(coarse-grained) memory under the default HIP_HOST_COHERENT=0: GPU "
                         "writes become visible to the CPU only at kernel end or a "
                         "synchronization." + (" Write-combining itself is not applied."
                                               if wc else ""),
                         ["amd.host_malloc.coherent"] + (["amd.host_malloc.write_combined"]
                                                         if wc else []), flags=shown)


def rule_ipc_managed(ctx: Context):
    """cudaIpcGetMemHandle of a managed pointer (ledger: amd.ipc.managed)."""
    for c in ctx.src.calls:
        if c.name == "cudaIpcGetMemHandle" and len(c.args) > 1 and \
                chain_name(c.args[1].tokens) in ctx.facts.managed and \
                (c.in_macro or ctx.facts.managed_at(ctx.src, chain_name(c.args[1].tokens),
                                                    c.index)):
            yield _f(ctx, c, "ipc_managed", c.name, names.cuda_to_hip(c.name), "breaks",
                     f"`{chain_name(c.args[1].tokens)}` is managed memory: hipIpcGetMemHandle "
                     "on it fails with hipErrorInvalidValue (estimate, inferred from the "
                     "source). Export hipMalloc memory instead.", ["amd.ipc.managed"],
                     pointer=chain_name(c.args[1].tokens))


def rule_system_memory_kernel(ctx: Context):
    """malloc / new / std containers / stack arrays passed to a kernel (ledger:
    amd.malloc.xnack0_fault, amd.system_alloc.fault_range, amd.fault.granule)."""
    p, f = ctx.plat, ctx.facts
    for la in ctx.src.launches:
        for k, arg in enumerate(la.args):
            name = pointee(arg.tokens)       # a value (v.size(), dims[0]) hands over no memory
            if name not in f.system:
                continue
            kind = f.system[name]
            touch = {p.system_touch(kind == "stack"), p.system_touch(False)}
            detail = dict(kernel=la.kernel, argument=k, pointer=name, memory=kind)
            if "fatal" in touch:
                yield _f(ctx, la.line, "system_memory_kernel", f"{la.kernel}<<<>>>({name})",
                         "the same launch", "breaks",
                         f"`{name}` is system-allocated ({kind}) memory: with XNACK off the "
                         "kernel's access is a fatal GPU page fault (the process aborts) unless "
                         "the memory was hipHostRegister'ed; allocate it with hipMallocManaged.",
                         ["amd.malloc.xnack0_fault"], **detail)
            elif touch == {"map_in_place"}:
                yield _f(ctx, la.line, "system_memory_kernel", f"{la.kernel}<<<>>>({name})",
                         "the same launch", "differs",
                         f"`{name}` is system-allocated ({kind}) memory: the GPU's fault maps "
                         "it where it is; nothing migrates.", ["amd.system_alloc.fault_range",
                                                               "amd.apu.no_migration"]
                         if p.apu else ["amd.system_alloc.fault_range"], **detail)
            else:
                yield _f(ctx, la.line, "system_memory_kernel", f"{la.kernel}<<<>>>({name})",
                         "the same launch", "differs",
                         f"`{name}` is system-allocated ({kind}) memory: with XNACK on the "
                         "GPU's first touch creates a range of at most 2 MiB around it. Only "
                         "the initial brk heap (small malloc blocks) and the main thread's "
                         "stack are mapped in place; memory malloc takes with mmap (glibc: "
                         "blocks of 128 KiB and more by default, so most large buffers), "
                         "thread stacks and other anonymous mappings migrate like managed "
                         "memory.", ["amd.system_alloc.fault_range", "amd.fault.granule"],
                         **detail)


def rule_managed_atomic(ctx: Context):
    """atomics in a kernel on memory that a launch in this file makes managed (ledger:
    amd.atomics.mi200_fine_grain, amd.managed.fine_grain)."""
    p, f, src = ctx.plat, ctx.facts, ctx.src
    atomics = sorted((c.index, k, c) for k, c in enumerate(src.calls)
                     if c.name in ATOMICS and c.args and c.index >= 0)
    at = [x[0] for x in atomics]
    for fn in src.functions:
        if not fn.kernel:
            continue
        a, b = fn.body
        inside = atomics[bisect.bisect_left(at, a):bisect.bisect_right(at, b)]
        if not inside:                       # each kernel looks at its own atomics only
            continue
        params = fn.param_names()
        managed = {params[k] for k in f.managed_params.get(fn.name, ()) if k < len(params)}
        types = {declared_name(pa.tokens): [t.text for t in pa.tokens] for pa in fn.params}
        for _, _, c in inside:
            target = chain_name(c.args[0].tokens)
            if target not in managed and target not in f.managed_vars:
                continue
            ty = types[target] if target in types else f.managed_vars[target][1].split()
            fp = bool(set(ty) & FLOAT_TYPES) or any(x.endswith("f") and x[:-1].replace(
                ".", "").isdigit() for x in c.args[1].ids() + [t.text for t in c.args[1].tokens]
                if len(c.args) > 1)
            detail = dict(kernel=fn.name, target=target, floating_point=fp)
            if not fp:
                yield _f(ctx, c, "managed_atomic", c.name, c.name + " (the same in HIP)",
                         "same", f"integer atomics on managed (fine-grained) `{target}` work "
                         "as on CUDA.", ["amd.managed.fine_grain", "amd.atomics.mi200_fine_grain"]
                         if p.arch == "gfx90a" else ["amd.managed.fine_grain"], **detail)
            elif p.arch == "gfx90a":
                yield _f(ctx, c, "managed_atomic", c.name, c.name + " (the same in HIP)",
                         "slower", f"floating-point atomic on managed `{target}`, which is "
                         "fine-grained: MI200's fast FP atomics are only correct on "
                         "coarse-grained memory, so the default build uses a slower "
                         "compare-and-swap loop, and a build with -munsafe-fp-atomics (or "
                         "unsafeAtomicAdd) silently does nothing. hipMemAdviseSetCoarseGrain "
                         "on the buffer makes the fast form correct.",
                         ["amd.atomics.mi200_fine_grain", "amd.managed.fine_grain"], **detail)
            else:
                yield _f(ctx, c, "managed_atomic", c.name, c.name + " (the same in HIP)",
                         "differs", f"floating-point atomic on managed `{target}`, which is "
                         "fine-grained on AMD; the ledger records the silent FP-atomic no-op "
                         "for MI200 (gfx90a) only, and has no entry for this GPU: check that "
                         "the build does not use -munsafe-fp-atomics.",
                         ["amd.managed.fine_grain", "amd.atomics.mi200_fine_grain"], **detail)


def rule_device_sync_fence(ctx: Context):
    """cudaDeviceSynchronize as the only fence of a file that launches kernels on managed
    memory (ledger: amd.sync.device_all_streams)."""
    src, f = ctx.src, ctx.facts
    names_called = {c.name for c in src.calls}
    if not (f.managed and src.launches) or names_called & SYNCS:
        return
    for c in src.calls:
        if c.name in ("cudaDeviceSynchronize", "cudaThreadSynchronize"):
            yield _f(ctx, c, "device_sync_fence", c.name, names.cuda_to_hip(
                "cudaDeviceSynchronize"), "same",
                "the only fence in this file: correct on AMD too (it waits for every stream of "
                "the device), and it blocks on every stream there as here; "
                "hipStreamSynchronize or hipEventSynchronize wait only for the work the CPU "
                "reads.", ["amd.sync.device_all_streams"])


RULES = {"managed_alloc": rule_managed_alloc, "managed_var": rule_managed_var,
         "prefetch": rule_prefetch, "advise": rule_advise, "cpu_device_id": rule_cpu_device_id,
         "stream_attach": rule_stream_attach, "range_attribute": rule_range_attribute,
         "device_attribute": rule_device_attribute, "pinned_alloc": rule_pinned_alloc,
         "ipc_managed": rule_ipc_managed, "system_memory_kernel": rule_system_memory_kernel,
         "managed_atomic": rule_managed_atomic, "device_sync_fence": rule_device_sync_fence}


def check_source(src: Source, plat: Platform, path: str) -> list[Finding]:
    """Every finding of every rule in one parsed file, in line order."""
    return sorted(findings(src, plat, path), key=lambda x: (x.line,
                                                            CONSTRUCTS.index(x.construct)))


def findings(src: Source, plat: Platform, path: str):
    """Every finding of every rule in one parsed file, one at a time, rule after rule (so that
    a caller keeping only some of them holds no more than those)."""
    f = facts(src)
    for c in src.calls:
        if c.name in ("cudaMemPrefetchAsync", "cudaMemPrefetchAsync_v2") and len(c.args) > 2:
            if location_kind(c.args[2], src, f)[1] != "cpu":
                f.prefetched.add(chain_name(c.args[0].tokens))
    for returned, callers in f.aliases.values():
        if not callers.isdisjoint(f.prefetched):
            f.prefetched |= returned
    ctx = Context(path, src, f, plat)
    for k in CONSTRUCTS:
        yield from RULES[k](ctx)
