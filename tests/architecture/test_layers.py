"""One way down: the package's import graph, read from the syntax trees (module-level and
function-level imports), has no cycle and no import against the layer order of
``house.LAYERS``; the root stays learner-sized and light to import."""
import json
import subprocess
import sys

import house


def test_every_module_has_a_layer():
    for name in house.modules():
        house.layer_of(name)          # raises for a module outside every layer


def test_the_import_graph_has_no_cycle():
    assert house.cycles(house.graph()) == []


def test_no_import_goes_up_the_layers():
    assert house.violations(house.graph()) == []


def test_the_checker_sees_function_level_imports_and_cycles():
    edges = [house.Edge("umkit.sim.engine", "umkit.api", 1, True),
             house.Edge("umkit.api", "umkit.sim.engine", 2, False)]
    assert house.cycles(edges) == [["umkit.api", "umkit.sim.engine"]]
    assert house.violations(edges) == [
        "umkit.sim.engine:1 imports umkit.api (layer 4 may not import layer 8) inside a function"]


def test_at_most_ten_modules_directly_under_umkit():
    top = sorted(p.name for p in house.PACKAGE.glob("*.py"))
    assert len(top) <= 10, top


def test_the_root_is_learner_sized():
    import umkit
    assert len(umkit.__all__) <= 50
    assert len(set(umkit.__all__)) == len(umkit.__all__)
    assert all(hasattr(umkit, n) for n in umkit.__all__)


HEAVY = ("umkit.measure", "umkit.teaching", "umkit.diagnostics", "umkit.ecg", "umkit.sim.engine",
         "umkit.workloads", "umkit.interop")


def _python(code: str) -> str:
    """What a fresh interpreter on sim prints for ``code``, run from the checkout."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"UMKIT_BACKEND": "sim", "PATH": "/usr/bin:/bin"},
                          cwd=house.ROOT, check=True).stdout


def _loaded_after(code: str) -> list:
    out = _python(code + "\nimport sys, json\n"
                  "print(json.dumps(sorted(m for m in sys.modules if m.startswith('umkit'))))")
    return json.loads(out.strip().splitlines()[-1])


def test_import_umkit_loads_no_tooling_teaching_or_engine():
    loaded = _loaded_after("import umkit")
    heavy = [m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert heavy == [], heavy


def test_the_lazy_names_load_on_first_use():
    loaded = _loaded_after("import umkit\numkit.ecg.verdict; umkit.widgets; umkit.exercises\n"
                           "umkit.doctor; umkit.explain; umkit.examples; umkit.measure")
    for m in ("umkit.ecg.model", "umkit.teaching.widgets", "umkit.teaching.exercises",
              "umkit.diagnostics.doctor", "umkit.diagnostics.explain", "umkit.teaching.examples",
              "umkit.measure"):
        assert m in loaded, m


def test_short_names_are_the_modules_themselves():
    import umkit
    import umkit.widgets
    from umkit.exercises import nb05
    import umkit.teaching.exercises.nb05 as real
    assert umkit.widgets is sys.modules["umkit.teaching.widgets"]
    assert nb05 is real and nb05.__spec__.name == "umkit.teaching.exercises.nb05"
    assert umkit.doctor is sys.modules["umkit.diagnostics.doctor"].doctor


def test_importing_a_submodule_by_its_short_name_keeps_the_package_function():
    out = _python("import importlib, umkit.widgets\n"
                  "importlib.import_module('umkit.widgets.residency_map')\n"
                  "print(callable(umkit.widgets.residency_map),"
                  " umkit.widgets.residency_map.__module__)")
    assert out.split() == ["True", "umkit.teaching.widgets.residency_map"]
