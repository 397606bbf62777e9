"""The simulator is a façade over parts: the adapter translates, the engine and its parts hold the
state; a kernel's cost comes back as a :class:`KernelCost`, not through scratch fields."""
from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import umkit
from umkit.sim import backend as sim_backend
from umkit.sim.engine import Engine, KernelCost
from umkit.sim.pages import Access

MiB = 1 << 20


@pytest.fixture
def b():
    b = umkit.use("sim", quiet=True)
    yield b
    umkit.use("sim", quiet=True)


def test_kernel_cost_parts_make_up_its_seconds(b):
    eng, p = b.engine, b.profile
    a = umkit.managed(4 * MiB // 4)
    a.host[:] = 1.0                                   # on the CPU: the kernel faults it in
    al, _ = eng.find(a.ptr)
    acc = [Access(al, al.page_range(0, al.nbytes), False, al.nbytes)]
    cost = eng.kernel_cost(acc, 0)
    assert isinstance(cost, KernelCost)
    assert cost.faults > 0 and cost.bytes > 0 and cost.regions >= 1 and cost.waves == 1
    assert cost.seconds == p.kernel_launch + cost.fault + (cost.stream + cost.remote) + cost.extra
    again = eng.kernel_cost(acc, 0)                   # now resident: no faults, HBM speed
    assert again.faults == 0 and again.fault == 0.0
    assert again.seconds == p.kernel_launch + al.nbytes / p.hbm_bw
    assert eng.gpu_access(acc, 0) == again.seconds


def test_the_engine_owns_model_time():
    eng = Engine(umkit.use("sim", quiet=True).profile)
    with pytest.raises(AttributeError):
        eng.now = 1.0                                 # read-only: only the clock advances it
    eng.charge_host("launch_overhead")
    assert eng.now == eng.clock.now == eng.profile.host_op("launch_overhead")
    umkit.use("sim", quiet=True)


def _engine_state_writes(tree) -> list[str]:
    """Assignments in ``tree`` to anything reached through ``self.engine`` or a local ``eng``."""
    out = []

    def root(node):
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id == "self" and node.attr == "engine":
                return "self.engine"
            node = node.value
        return node.id if isinstance(node, ast.Name) else None

    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            if ast.unparse(t) == "self.engine":        # the adapter holds its engine
                continue
            if isinstance(t, (ast.Attribute, ast.Subscript)) and root(t) in ("self.engine", "eng"):
                out.append(f"line {node.lineno}: {ast.unparse(t)}")
    return out


def test_the_backend_adapter_writes_no_engine_state():
    tree = ast.parse(Path(sim_backend.__file__).read_text())
    assert _engine_state_writes(tree) == []
    used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Attribute) and n.value.attr == "engine"}
    assert not {u for u in used if u.startswith("_")}, used


def test_parts_share_one_clock_and_record(b):
    eng = b.engine
    assert eng.space.clock is eng.clock and eng.faults.clock is eng.clock
    assert eng.detector.clock is eng.clock and eng.record.clock is eng.clock
    assert eng.counters is eng.record.counters and eng.trace is eng.record.trace
    a, tmp = umkit.managed(MiB // 4), umkit.managed(MiB // 4)
    a.host[:] = 1.0
    assert eng.space.starts == sorted(eng.allocs)
    tmp.free()                                         # logged after the host's time in free
    assert eng.trace[-1]["op"] == "free" and eng.trace[-1]["t"] == eng.now
    eng.reset_counters()
    assert eng.counters is eng.record.counters and set(eng.counters.values()) == {0}
    np.testing.assert_array_equal(umkit.read_back(a), 1.0)
