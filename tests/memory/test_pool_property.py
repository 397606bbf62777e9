"""MemoryPool under 100,000 random operations (a Hypothesis state machine on the sim backend).

Random allocate / free / write / read operations (and, now and then, ``release``) checked against
a model of the pool:

* no two live blocks overlap, and each is at least as large as asked for;
* every live block keeps its own byte pattern until it is freed (so no block is handed out twice
  and no write lands in another block);
* a freed block of the same size class is reused before the backend is asked for more;
* the stats (current, peak, cached, allocs, frees) agree with the model after every step;
* after ``pool.close()`` the backend holds no allocation and the stats are back to zero.

Each state-machine step is a *burst* of ``BURST`` operations decoded from one Hypothesis byte
string: Hypothesis' own cost per step is far larger than a pool operation's, and one draw per
burst keeps 100,000 operations inside a minute on two slow cores while still shrinking (a
shorter or zeroed byte string is a simpler program).  Deterministic (``derandomize=True``);
writes go through the raw backend views, so the model charges nothing.
"""
from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant, precondition, rule,
                                 run_state_machine_as_test)

from umkit.memory.pool import ROUND, MemoryPool
from umkit.sim.backend import SimBackend

BURST = 16                         # operations per state-machine step
STEPS = 100                        # steps per example
MAX_EXAMPLES = 70                  # BURST * STEPS * MAX_EXAMPLES = 112,000 operations planned
TARGET = 100_000                   # operations that must actually run
MAX_LIVE = 48
MAX_BLOCK = 1 << 17
SPECIAL = (1, ROUND - 1, ROUND, ROUND + 1, 4096, 65536, MAX_BLOCK)
RELEASE_EVERY = 25                 # steps between release() calls at most
OPS = Counter()
_BASE = ((np.arange(MAX_BLOCK + 251, dtype=np.uint32) * 131) % 251).astype(np.uint8)


def pattern(n: int, seed: int) -> np.ndarray:
    """n bytes of a period-251 sequence starting at ``seed``: blocks with other seeds differ."""
    return _BASE[seed % 251:seed % 251 + n]


def rounded(n: int) -> int:
    return -(-n // ROUND) * ROUND


class PoolMachine(RuleBasedStateMachine):

    @initialize(kind=st.sampled_from(["managed", "device", "pinned"]))
    def start(self, kind):
        self.backend = SimBackend()
        self.pool = MemoryPool(self.backend, kind=kind)
        self.live: dict[int, tuple[int, int]] = {}          # ptr -> (requested, seed)
        self.cache: dict[int, set[int]] = defaultdict(set)  # size class -> cached ptrs (model)
        self.peak = self.allocs = self.frees = self.seeds = 0
        self.since_release = 0

    # -- helpers --------------------------------------------------------------------------------
    def raw(self, ptr: int, n: int) -> np.ndarray:
        """The block's bytes as a plain ndarray (device memory has no host view: its twin)."""
        b = self.pool.backend
        v = b.device_view(ptr, n, 0) if self.pool.kind == "device" else b.host_view(ptr, n)
        return v.view(np.ndarray)

    def check_pattern(self, ptr: int):
        n, seed = self.live[ptr]
        assert np.array_equal(self.raw(ptr, n), pattern(n, seed)), \
            f"block {ptr:#x} ({n} B) was overwritten"

    def pick(self, param: int) -> int:
        return sorted(self.live)[param % len(self.live)]

    def current(self) -> int:
        return sum(rounded(n) for n, _ in self.live.values())

    def cached_bytes(self) -> int:
        return sum(size * len(p) for size, p in self.cache.items())

    # -- the operations ----------------------------------------------------------------------------
    def allocate(self, param: int):
        OPS["allocate"] += 1
        n = SPECIAL[(param >> 1) % len(SPECIAL)] if param & 1 else 1 + (param >> 1) % 16384
        size = rounded(n)
        cached = set(self.cache[size])
        upstream = self.pool.stats["upstream_allocs"]
        ptr = self.pool.allocate(n, owner="hypothesis")
        info = self.pool.info(ptr)
        assert info is not None and info.requested == n and info.size == size >= n
        assert ptr not in self.live, "a live block was handed out again"
        if cached:                                          # reuse before asking upstream
            assert ptr in cached, "a cached block of this size class was not reused"
            assert self.pool.stats["upstream_allocs"] == upstream
            self.cache[size].discard(ptr)
        else:
            assert self.pool.stats["upstream_allocs"] == upstream + 1
        self.seeds += 1
        self.raw(ptr, n)[:] = pattern(n, self.seeds)
        self.live[ptr] = (n, self.seeds)
        self.allocs += 1
        self.peak = max(self.peak, self.current())

    def free(self, param: int):
        OPS["free"] += 1
        ptr = self.pick(param)
        self.check_pattern(ptr)
        size = self.pool.info(ptr).size
        self.pool.free(ptr)
        del self.live[ptr]
        self.cache[size].add(ptr)
        self.frees += 1
        assert not self.pool.owns(ptr)

    def write(self, param: int):
        OPS["write"] += 1
        ptr = self.pick(param)
        self.check_pattern(ptr)
        n, _ = self.live[ptr]
        self.seeds += 1
        self.raw(ptr, n)[:] = pattern(n, self.seeds)
        self.live[ptr] = (n, self.seeds)

    def read(self, param: int):
        OPS["read"] += 1
        self.check_pattern(self.pick(param))

    @rule(program=st.binary(min_size=3 * BURST, max_size=3 * BURST))
    def burst(self, program):
        """BURST operations: per op one byte picks the kind, two bytes its parameter."""
        self.since_release += 1
        for i in range(0, len(program), 3):
            kind, param = program[i] % 16, program[i + 1] | program[i + 2] << 8
            if kind < 6 or not self.live:                   # 6/16 allocate
                if len(self.live) < MAX_LIVE:
                    self.allocate(param)
                    continue
                kind = 6
            if kind < 10:                                   # 4/16 free
                self.free(param)
            elif kind < 13:                                 # 3/16 write
                self.write(param)
            else:                                           # 3/16 read
                self.read(param)

    @precondition(lambda self: self.since_release >= RELEASE_EVERY)
    @rule()
    def release(self):
        OPS["release"] += 1
        self.since_release = 0
        assert self.pool.release() == self.cached_bytes()
        self.cache.clear()
        assert set(self.backend.engine.allocs) == set(self.live)

    # -- what must hold after every step ----------------------------------------------------------------
    @invariant()
    def no_overlap_and_stats_agree(self):
        if not hasattr(self, "pool"):
            return
        blocks = self.pool.live()
        assert [b.ptr for b in blocks] == sorted(self.live)
        for lo, hi in zip(blocks, blocks[1:]):
            assert lo.ptr + lo.size <= hi.ptr, f"blocks {lo.ptr:#x}+{lo.size} and {hi.ptr:#x} overlap"
        s = self.pool.stats
        assert s["current_bytes"] == self.current()
        assert s["cached_bytes"] == self.cached_bytes()
        assert s["peak_bytes"] == self.peak
        assert s["allocs"] == self.allocs and s["frees"] == self.frees
        # every block the pool holds (live or cached) is one live backend allocation
        n_cached = sum(map(len, self.cache.values()))
        assert len(self.backend.engine.allocs) == len(self.live) + n_cached

    def teardown(self):
        if not hasattr(self, "pool"):
            return
        for ptr in self.live:
            self.check_pattern(ptr)
        self.pool.close()
        assert self.backend.engine.allocs == {}, "close() left backend allocations behind"
        s = self.pool.stats
        assert s["current_bytes"] == 0 and s["cached_bytes"] == 0
        assert s["allocs"] == s["frees"]
        assert s["upstream_allocs"] == s["upstream_frees"]
        assert self.pool.live() == []


@pytest.mark.slow
def test_pool_random_operations():
    OPS.clear()
    run_state_machine_as_test(PoolMachine, settings=settings(
        max_examples=MAX_EXAMPLES, stateful_step_count=STEPS, deadline=None, derandomize=True,
        database=None, suppress_health_check=list(HealthCheck)))
    ops = sum(v for k, v in OPS.items() if k != "release")
    assert ops >= TARGET, f"only {ops} operations ran: {dict(OPS)}"
    assert min(OPS[k] for k in ("allocate", "free", "write", "read")) > 10_000, OPS
    assert OPS["release"] > 50, OPS


# -- the same pool from several threads ---------------------------------------------------------------
from hypothesis import given  # noqa: E402
import threading  # noqa: E402

_PROGRAM = st.lists(st.tuples(st.booleans(), st.integers(1, MAX_BLOCK), st.integers(0, 250)),
                    min_size=1, max_size=60)


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(programs=st.lists(_PROGRAM, min_size=2, max_size=4))
def test_pool_from_threads(programs):
    """Each thread runs its own random allocate(+write)/free program on one shared pool; every
    live block keeps its own bytes, no block is handed out twice, the stats add up."""
    backend = SimBackend()
    if not hasattr(backend.engine, "lock"):
        import pytest
        pytest.skip("needs the sim engine's lock (issue 10's simulator part)")
    pool = MemoryPool(backend, kind="pinned")
    errors: list = []
    barrier = threading.Barrier(len(programs))

    def run(program, tid):
        mine: list[tuple[int, int, int]] = []
        barrier.wait()
        for alloc, n, seed in program:
            if alloc or not mine:
                p = pool.allocate(n)
                backend.host_view(p, n).view(np.ndarray)[:] = pattern(n, seed + tid)
                mine.append((p, n, seed + tid))
            else:
                p, m, s = mine.pop(seed % len(mine))
                if not np.array_equal(backend.host_view(p, m).view(np.ndarray), pattern(m, s)):
                    errors.append(("overwritten", tid, p))
                pool.free(p)
        for p, m, s in mine:
            if not np.array_equal(backend.host_view(p, m).view(np.ndarray), pattern(m, s)):
                errors.append(("overwritten", tid, p))
        return mine

    results: dict = {}
    ts = [threading.Thread(target=lambda i=i: results.__setitem__(i, run(programs[i], i)))
          for i in range(len(programs))]
    [t.start() for t in ts]
    [t.join() for t in ts]
    assert errors == []
    live = [p for r in results.values() for p, _, _ in r]
    assert len(live) == len(set(live)) == len(pool.live())
    s = pool.stats
    assert s["current_bytes"] == sum(rounded(n) for r in results.values() for _, n, _ in r)
    assert s["allocs"] - s["frees"] == len(live)
    pool.close()
    assert backend.engine.allocs == {}
