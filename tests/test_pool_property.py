"""MemoryPool under 100,000 random operations (a Hypothesis state machine on the sim backend).

Random allocate / free / write / release steps, checked against a model of the pool:

* no two live blocks overlap, and each is at least as large as asked for;
* every live block keeps its own byte pattern until it is freed (so no block is handed out twice
  and no write lands in another block);
* a freed block of the same size class is reused before the backend is asked for more;
* the stats (current, peak, cached, allocs, frees) agree with the model at every step;
* after ``pool.close()`` the backend holds no allocation and the stats are back to zero.

Deterministic (``derandomize=True``); writes go through the raw backend view (no model charges).
"""
from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (Bundle, RuleBasedStateMachine, consumes, initialize, invariant,
                                 precondition, rule, run_state_machine_as_test)

from umkit.memory.pool import ROUND, MemoryPool
from umkit.sim.backend import SimBackend

MAX_EXAMPLES = 100
STEPS = 1000                       # MAX_EXAMPLES * STEPS = 100,000 operations
MAX_LIVE = 48
MAX_BLOCK = 1 << 17
SIZES = st.one_of(st.sampled_from([1, ROUND - 1, ROUND, ROUND + 1, 4096, 65536, MAX_BLOCK]),
                  st.integers(1, 16384))
RELEASE_EVERY = 200                # give cached blocks back now and then, not every other step
STEPS_RUN = Counter()
_BASE = ((np.arange(MAX_BLOCK + 251, dtype=np.uint32) * 131) % 251).astype(np.uint8)


def pattern(n: int, seed: int) -> np.ndarray:
    """n bytes of a period-251 sequence starting at ``seed``: blocks with other seeds differ."""
    return _BASE[seed:seed + n]


class PoolMachine(RuleBasedStateMachine):
    blocks = Bundle("blocks")

    @initialize(kind=st.sampled_from(["managed", "device", "pinned"]))
    def start(self, kind):
        self.backend = SimBackend()
        self.pool = MemoryPool(self.backend, kind=kind)
        self.live: dict[int, tuple[int, int]] = {}          # ptr -> (requested, seed)
        self.cache: dict[int, set[int]] = defaultdict(set)  # size class -> cached ptrs (model)
        self.peak = 0
        self.allocs = self.frees = 0
        self.since_release = 0

    # -- helpers --------------------------------------------------------------------------------
    def raw(self, ptr: int, n: int) -> np.ndarray:
        return self.pool.backend.host_view(ptr, n).view(np.ndarray)

    def check_pattern(self, ptr: int):
        n, seed = self.live[ptr]
        got = self.raw(ptr, n)
        assert np.array_equal(got, pattern(n, seed)), f"block {ptr:#x} ({n} B) was overwritten"

    # -- the operations ----------------------------------------------------------------------------
    @precondition(lambda self: len(self.live) < MAX_LIVE)
    @rule(target=blocks, n=SIZES, seed=st.integers(0, 250))
    def allocate(self, n, seed):
        STEPS_RUN["allocate"] += 1
        self.since_release += 1
        size = -(-n // ROUND) * ROUND
        cached = set(self.cache[size])
        upstream = self.pool.stats["upstream_allocs"]
        ptr = self.pool.allocate(n, owner="hypothesis")
        info = self.pool.info(ptr)
        assert info is not None and info.requested == n and info.size == size >= n
        assert ptr not in self.live, "a live block was handed out again"
        if cached:                                          # reuse before asking upstream
            assert ptr in cached
            assert self.pool.stats["upstream_allocs"] == upstream
            self.cache[size].discard(ptr)
        else:
            assert self.pool.stats["upstream_allocs"] == upstream + 1
        self.raw(ptr, n)[:] = pattern(n, seed)
        self.live[ptr] = (n, seed)
        self.allocs += 1
        self.peak = max(self.peak, self.current())
        return ptr

    @rule(ptr=consumes(blocks))
    def free(self, ptr):
        STEPS_RUN["free"] += 1
        self.since_release += 1
        self.check_pattern(ptr)
        size = self.pool.info(ptr).size
        self.pool.free(ptr)
        del self.live[ptr]
        self.cache[size].add(ptr)
        self.frees += 1
        assert not self.pool.owns(ptr)

    @rule(ptr=blocks, seed=st.integers(0, 250))
    def write(self, ptr, seed):
        STEPS_RUN["write"] += 1
        self.since_release += 1
        self.check_pattern(ptr)
        n, _ = self.live[ptr]
        self.raw(ptr, n)[:] = pattern(n, seed)
        self.live[ptr] = (n, seed)

    @rule(ptr=blocks)
    def read(self, ptr):
        STEPS_RUN["read"] += 1
        self.since_release += 1
        self.check_pattern(ptr)

    @precondition(lambda self: self.since_release >= RELEASE_EVERY)
    @rule()
    def release(self):
        STEPS_RUN["release"] += 1
        self.since_release = 0
        cached = sum(size * len(p) for size, p in self.cache.items())
        assert self.pool.release() == cached
        self.cache.clear()
        assert set(self.backend.engine.allocs) == set(self.live)

    # -- what must hold after every step ----------------------------------------------------------------
    def current(self) -> int:
        return sum(-(-n // ROUND) * ROUND for n, _ in self.live.values())

    @invariant()
    def no_overlap_and_stats_agree(self):
        if not hasattr(self, "pool"):
            return
        blocks = self.pool.live()
        assert [b.ptr for b in blocks] == sorted(self.live)
        for lo, hi in zip(blocks, blocks[1:]):
            assert lo.ptr + lo.size <= hi.ptr, f"blocks {lo.ptr:#x}+{lo.size} and {hi.ptr:#x} overlap"
        s = self.pool.stats
        cached = sum(size * len(p) for size, p in self.cache.items())
        assert s["current_bytes"] == self.current()
        assert s["cached_bytes"] == cached
        assert s["peak_bytes"] == self.peak
        assert s["allocs"] == self.allocs and s["frees"] == self.frees
        # every block the pool holds (live or cached) is one live backend allocation
        assert len(self.backend.engine.allocs) == len(self.live) + sum(map(len, self.cache.values()))

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


def test_pool_random_operations():
    STEPS_RUN.clear()
    run_state_machine_as_test(PoolMachine, settings=settings(
        max_examples=MAX_EXAMPLES, stateful_step_count=STEPS, deadline=None, derandomize=True,
        database=None, suppress_health_check=list(HealthCheck)))
    total = sum(STEPS_RUN.values())
    assert total >= MAX_EXAMPLES * STEPS * 0.95, f"only {total} operations ran: {dict(STEPS_RUN)}"
    assert min(STEPS_RUN[k] for k in ("allocate", "free", "write", "read")) > 10_000, STEPS_RUN
    assert STEPS_RUN["release"] > 100, STEPS_RUN
