"""benchmarks/ is a folder of scripts over the package, not a package of its own: no script
changes ``sys.path`` and none imports another (shared code lives in :mod:`umkit.measure`,
mostly :mod:`umkit.measure.probes`).  Read from the scripts' syntax trees."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"

LOADERS = {"spec_from_file_location", "run_path", "SourceFileLoader", "import_module"}


def _name(node) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def violations(folder: Path) -> list[str]:
    """Every ``sys.path`` change and every import of a sibling script in ``folder``'s ``*.py``,
    as ``file:line what``."""
    scripts = {p.stem for p in folder.glob("*.py")}
    out = []
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            where = f"{path.name}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Attribute) and _name(node) == "path" \
                    and _name(node.value) == "sys":
                out.append(f"{where} uses sys.path")
            elif isinstance(node, ast.Import):
                out += [f"{where} imports {a.name}" for a in node.names
                        if a.name.split(".")[0] in scripts]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module \
                    and node.module.split(".")[0] in scripts:
                out.append(f"{where} imports {node.module}")
            elif isinstance(node, ast.Call) and _name(node.func) in LOADERS:
                text = ast.unparse(node)
                if any(f"{s}.py" in text or f"'{s}'" in text or f'"{s}"' in text
                       for s in scripts):
                    out.append(f"{where} loads a sibling script: {text[:80]}")
    return out


def test_no_script_changes_sys_path_or_imports_another():
    assert violations(BENCH) == []


def test_the_rule_sees_each_kind(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text(
        "import sys\nimport importlib.util\nsys.path.insert(0, '.')\nimport a\nfrom a import x\n"
        "def f():\n    import a\n"
        "spec = importlib.util.spec_from_file_location('a', 'folder/a.py')\n")
    found = violations(tmp_path)
    assert sorted(f.split(" ", 1)[1].split(":")[0] for f in found) == [
        "imports a", "imports a", "imports a", "loads a sibling script", "uses sys.path"], found
