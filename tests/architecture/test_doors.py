"""Every subpackage has a door (issue 44): its ``__init__`` lists its public names in ``__all__``;
a door made with :func:`umkit.doors.door` holds no logic, loads each name from its module on
first use, and every name it lists resolves.  The packages whose ``__init__`` still holds logic
are named here, and only there: a new package gets a door."""
from __future__ import annotations

import ast
import subprocess
import sys

import house

#: packages whose __init__ holds logic: only the root, the learner's API (``import umkit``);
#: every subpackage is a door
LOGIC_IN_INIT = {"umkit"}


def _packages() -> dict[str, ast.Module]:
    return {name: ast.parse(path.read_text()) for name, path in house.modules().items()
            if path.name == "__init__.py"}


def _has_all(tree: ast.Module) -> bool:
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        for t in targets:
            names = t.elts if isinstance(t, ast.Tuple) else [t]
            if any(isinstance(n, ast.Name) and n.id == "__all__" for n in names):
                return True
    return False


def _holds_logic(tree: ast.Module) -> bool:
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If,
                              ast.For, ast.While, ast.With, ast.Try))
               for n in tree.body)


def _door_table(tree: ast.Module) -> dict | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                getattr(node.value.func, "id", None) == "door":
            return ast.literal_eval(node.value.args[1])
    return None


def test_every_package_lists_its_public_names():
    missing = [name for name, tree in _packages().items()
               if not _has_all(tree) and name not in LOGIC_IN_INIT]
    assert not missing, f"packages without __all__ (give each a door): {missing}"


def test_a_door_holds_no_logic_and_the_list_of_packages_with_logic_is_exact():
    logic = {name for name, tree in _packages().items() if _holds_logic(tree)}
    assert logic == LOGIC_IN_INIT, (sorted(logic - LOGIC_IN_INIT), sorted(LOGIC_IN_INIT - logic))


def test_no_door_name_is_also_a_submodule_of_another_object():
    # umkit.sim.record (a module) and umkit.sim.Record (a class) may live side by side; a door
    # name spelled like a submodule must be that submodule ("."), or the package's attribute
    # would depend on what was imported first
    mods = house.modules()
    for name, tree in _packages().items():
        table = _door_table(tree)
        if table is None:
            continue
        for key, where in table.items():
            if f"{name}.{key}" in mods:
                assert where == ".", (name, key, where)
            else:
                assert where != "." and f"{name}.{where}" in mods, (name, key, where)


def test_every_door_name_resolves_on_first_use_and_a_door_imports_nothing():
    doors = sorted(name for name, tree in _packages().items() if _door_table(tree) is not None)
    assert len(doors) >= 8, doors
    code = f"""
import importlib, sys
for p in {doors!r}:
    importlib.import_module(p.rpartition(".")[0])  # its parents (umkit itself loads some)
    before = set(sys.modules)
    m = importlib.import_module(p)
    loaded = {{k for k in set(sys.modules) - before if k.startswith(p + ".")}}
    assert not loaded, (p, sorted(loaded))        # the door itself loads none of its modules
    for n in m.__all__:
        assert n in dir(m), (p, n)
        getattr(m, n)                              # loads its module, then kept
        assert n in vars(m), (p, n)
    try:
        getattr(m, "no_such_name")
    except AttributeError as e:
        assert "no_such_name" in str(e)
    else:
        raise SystemExit(p + ": an unknown name resolved")
print("ok", len({doors!r}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, cwd=house.ROOT, env={"UMKIT_BACKEND": "sim",
                                                           "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.startswith("ok"), out.stdout


def _package(name: str, packages) -> str:
    return name if name in packages else name.rpartition(".")[0]


def test_imports_across_packages_go_through_doors():
    """A module imports another package's names from its door (``from ..sim import
    load_profile``), or a submodule that door lists as public (``"picture": "."``) -- never a
    module the door keeps to itself.  Modules that are layers of their own in ``house.LAYERS``
    (``backends.contract``, ``backends.checked``) are imported by name: their package's door sits
    in a later layer.  Within a package, and between a package and its own subpackages, any
    module may be imported."""
    mods = house.modules()
    packages = {n for n, p in mods.items() if p.name == "__init__.py"}
    trees = _packages()
    own_layer = {p for layer in house.LAYERS for p in layer}
    wrong = set()
    for e in house.graph():
        if e.target not in mods or e.target in packages or e.target in own_layer:
            continue
        src, dst = _package(e.source, packages), _package(e.target, packages)
        if src == dst or src.startswith(dst + ".") or dst.startswith(src + "."):
            continue
        table = _door_table(trees[dst]) or {}
        if table.get(e.target.rpartition(".")[2]) != ".":
            wrong.add(f"{e.source} imports {e.target} (use the door {dst}, or list the module "
                      "there as public)")
    assert not wrong, sorted(wrong)
