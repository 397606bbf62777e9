"""Private means private: a name starting with ``_`` is used only in the file that defines it
(no ``from x import _y``, no ``obj._y`` of another module's object, no patching ``"_y"`` in a
test).  Tests reach the code through public seams or injected collaborators."""
import ast

import pytest

import house

FILES = list(house.python_files())


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(house.ROOT)))
def test_no_private_name_crosses_a_file(path):
    assert house.private_uses(path) == []


def _uses(src: str) -> list:
    tree = ast.parse(src)
    mine = house.defined_names(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            out += [a.name for a in node.names if house.is_private(a.name)]
        elif isinstance(node, ast.Attribute) and house.is_private(node.attr) \
                and node.attr not in mine:
            out.append(node.attr)
    return out


def test_the_checker_sees_imports_attributes_and_allows_its_own():
    assert _uses("from umkit.api import _staging\n") == ["_staging"]
    assert _uses("import umkit\numkit.api._staging(1)\n") == ["_staging"]
    assert _uses("class A:\n    def f(self):\n        self._x = 1\n        return self._x\n") == []
    assert _uses("a._block = 1\n") == ["_block"]          # writing another object's private
    assert _uses("x = obj.__dict__\ny = obj._repr_html_()\n") == []   # dunders, IPython protocol
