"""The house's rules, read from the source's syntax trees (not grepped from its text): the
import graph of the package (module-level and function-level imports), the layer each module
belongs to, and the private names each file uses.  ``test_layers.py`` and
``test_private_names.py`` assert on what this module computes."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "umkit"

#: the layers, earliest first: a module may import modules of its own layer or earlier ones.
#: A module belongs to the layer of the longest prefix that names it.
LAYERS = (
    ("umkit.version", "umkit.errors", "umkit.results", "umkit.doors", "umkit.i18n"),
    ("umkit.ledger",),
    ("umkit.backends.contract",),
    ("umkit.validate", "umkit.backends.checked"),
    ("umkit.sim",),
    ("umkit.backends",),
    ("umkit.runtime",),
    ("umkit.memory",),
    ("umkit.api", "umkit.user_kernels"),
    ("umkit",),                      # the root: the learner's API (its other names are lazy)
    ("umkit.interop",),
    ("umkit.workloads",),
    ("umkit.ecg",),
    ("umkit.measure",),
    ("umkit.plan",),
    ("umkit.measure.runs",),         # the measurement programs: plan_validate measures umkit.plan
    ("umkit.measure.command",),      # `umkit measure`, which runs them
    ("umkit.diagnostics",),
    ("umkit.teaching",),
    ("umkit.cli",),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules() -> dict[str, Path]:
    """Every module of the package, by dotted name."""
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(name: str) -> int:
    best, layer = -1, None
    for i, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (name == p or name.startswith(p + ".")) and len(p) > best:
                best, layer = len(p), i
    if layer is None:
        raise KeyError(f"{name} is in no layer: add it to LAYERS")
    return layer


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    in_function: bool


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imports(name: str, path: Path, known: dict) -> list[Edge]:
    """The umkit modules ``name`` imports, module-level and inside functions.  ``from P import
    x`` counts as importing ``P.x`` when that is a module, else ``P``; parent packages that the
    import system runs on the way are not counted."""
    tree = ast.parse(path.read_text(), str(path))
    out = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            fn = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                   ast.Lambda))
            if isinstance(child, ast.Import):
                for a in child.names:
                    if a.name == "umkit" or a.name.startswith("umkit."):
                        out.append(Edge(name, a.name, child.lineno, in_function))
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = _package_of(name, path).split(".")
                    base = base[:len(base) - (child.level - 1)]
                    mod = ".".join(base + ([child.module] if child.module else []))
                else:
                    mod = child.module or ""
                if mod == "umkit" or mod.startswith("umkit."):
                    for a in child.names:
                        sub = f"{mod}.{a.name}"
                        out.append(Edge(name, sub if sub in known else mod, child.lineno,
                                        in_function))
            visit(child, fn)
    visit(tree, False)
    return [e for e in out if e.target != name]


def graph() -> list[Edge]:
    known = modules()
    return [e for n, p in known.items() for e in imports(n, p, known)]


def cycles(edges) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    adj: dict[str, set] = {}
    for e in edges:
        adj.setdefault(e.source, set()).add(e.target)
        adj.setdefault(e.target, set())
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in adj[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    import sys
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 10000))
    try:
        for v in list(adj):
            if v not in index:
                strong(v)
    finally:
        sys.setrecursionlimit(old)
    return out


def violations(edges) -> list[str]:
    """Imports against the layer order."""
    return [f"{e.source}:{e.line} imports {e.target} "
            f"(layer {layer_of(e.source)} may not import layer {layer_of(e.target)})"
            + (" inside a function" if e.in_function else "")
            for e in edges if layer_of(e.target) > layer_of(e.source)]


# -- private names --------------------------------------------------------------------------------
#: private names of the standard library and of NumPy that the kit may use
ALLOWED = {
    "_getframe": "sys._getframe: the simulator finds the learner's frame",
    "_repr_html_": "IPython's display protocol", "_repr_mimebundle_": "IPython's display protocol",
    "_ipython_display_": "IPython's display protocol",
    "_dom_classes": "ipywidgets' CSS classes of a widget (what add_class writes)",
    "_actions": "argparse: a parser's actions (the CLI sweep walks the subcommands)",
    "_SubParsersAction": "argparse: the subcommands action",
    "_replace": "namedtuple / dataclasses API", "_asdict": "namedtuple API",
    "_fields": "namedtuple API", "_exit": "os._exit in a forked child",
    "_is_debugpy_available": "ipykernel: whether a kernel offers a debugger (the hub's kernel "
                             "turns it off: deploy/jupyterhub/server/umkit_kernel.py)",
    "_handle_pipe_msg": "ipykernel: the IOPub pipe's handler (the hub's kernel binds the pipe to "
                        "a unix socket and hands it this handler)",
}


def is_private(n: str) -> bool:
    return n.startswith("_") and not (n.startswith("__") and n.endswith("__")) and n != "_" \
        and n not in ALLOWED


def defined_names(tree) -> set:
    """Every name a file defines: functions, classes, assignments (to names and to attributes),
    parameters, loop and comprehension targets, import aliases, class fields."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            out.add(node.attr)          # self._x = ...: this file's own object
        elif isinstance(node, ast.alias):
            if node.asname:
                out.add(node.asname)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
    return out


def private_uses(path: Path) -> list[str]:
    """Private names ``path`` uses that it does not define itself: ``from x import _y``, an
    attribute ``obj._y`` whose ``_y`` this file never defines, and patch targets in strings
    (``"umkit.api._staging"``, ``setattr(mod, "_y", ...)``)."""
    tree = ast.parse(path.read_text(), str(path))
    mine = defined_names(tree)
    rel = path.relative_to(ROOT)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                if is_private(a.name):
                    out.append(f"{rel}:{node.lineno} imports {a.name} from "
                               f"{'.' * node.level}{node.module or ''}")
            if node.module and any(is_private(p) for p in node.module.split(".")):
                if not str(node.module).startswith("umkit._kernels"):
                    out.append(f"{rel}:{node.lineno} imports from the private module {node.module}")
        elif isinstance(node, ast.Attribute):
            if is_private(node.attr) and node.attr not in mine:
                out.append(f"{rel}:{node.lineno} uses .{node.attr}, defined elsewhere")
        elif isinstance(node, ast.Call) and node.args:
            fname = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(
                node.func, "id", "")
            if fname in ("setattr", "getattr", "delattr", "hasattr") and len(node.args) >= 2:
                a = node.args[1]
                if isinstance(a, ast.Constant) and isinstance(a.value, str) \
                        and is_private(a.value) and a.value not in mine:
                    out.append(f"{rel}:{node.lineno} {fname}(..., {a.value!r})")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.startswith("umkit.") and " " not in node.value:
            if any(is_private(p) for p in node.value.split(".")[1:]) \
                    and not node.value.startswith("umkit._kernels"):
                out.append(f"{rel}:{node.lineno} names {node.value!r}")
    return out


def python_files():
    for top in ("umkit", "tests", "benchmarks", "scripts", "deploy", ".ci"):
        for p in sorted((ROOT / top).rglob("*.py")):
            if "__pycache__" not in p.parts:
                yield p
