"""Same answers: page state kept as extents (model-only sim) and as dense per-page arrays
(``compute=True``) give identical model times, counters, traces and page tables for the same
randomized operation sequences -- allocate, prefetch, advise, GPU touches with strides, GPU
writes, CPU reads and writes, copies, free -- on every kind of profile (NVIDIA, AMD XNACK on
and off, the CPU-coherent MI250X, the MI300A APU), at sizes both can hold, with a VRAM small
enough to make the GPU evict."""
from __future__ import annotations

import numpy as np
import pytest

from umkit.backends.contract import CPU, gpu
from umkit.sim.backend import SimBackend
from umkit.sim.extents import PageSet, Runs
from umkit.sim.pages import Access

MiB = 1 << 20
KiB = 1 << 10
PROFILES = ("h200-pcie5", "mi250x-xnack1", "mi250x-xnack0", "mi250x-coherent", "mi300a-apu",
            "mi300x", "teaching")
TABLES = ("where", "read_mostly", "preferred", "accessed_by", "coarse_grain", "last_prefetch",
          "dup_lost", "cpu_unmapped", "cpu_dirty", "mapped", "region_stamp")
ADVICE = ("read_mostly", "preferred_location", "accessed_by", "coarse_grain")


class Twin:
    """One backend of each page-state kind, driven by the same calls."""

    def __init__(self, profile: str, gpus: int, vram: int):
        self.dense = SimBackend(profile, gpus=gpus, compute=True, vram=vram)
        self.ext = SimBackend(profile, gpus=gpus, compute=False, vram=vram)
        assert not self.dense.engine.space.pages == self.ext.engine.space.pages
        self.live: list = []            # (pointer, nbytes, kind): the same in both
        self.sink = [b.malloc(4, "device", 0) for b in (self.dense, self.ext)]

    def both(self, fn):
        out = [fn(b, i) for i, b in enumerate((self.dense, self.ext))]
        return out[0]

    def check(self, what: str):
        d, e = self.dense.engine, self.ext.engine
        assert d.now == e.now, what
        assert d.counters == e.counters, what
        assert list(d.trace) == list(e.trace), what
        assert sorted(d.allocs) == sorted(e.allocs), what
        for ptr, ad in d.allocs.items():
            ae = e.allocs[ptr]
            assert isinstance(ae.where, Runs) and isinstance(ad.where, np.ndarray)
            for name in TABLES:
                np.testing.assert_array_equal(getattr(ad, name), np.asarray(getattr(ae, name)),
                                              err_msg=f"{what}: {name}")


def _loc(rng, gpus):
    g = int(rng.integers(-1, gpus))
    return CPU if g < 0 else gpu(g)


def _span(rng, nbytes):
    off = int(rng.integers(0, nbytes))
    return off, int(rng.integers(1, nbytes - off + 1))


def run_sequence(profile: str, seed: int, steps: int = 40):
    rng = np.random.default_rng(seed)
    gpus = int(rng.integers(1, 3))
    tw = Twin(profile, gpus, int(rng.choice([6, 10, 24])) * MiB)
    for step in range(steps):
        op = rng.choice(["alloc", "prefetch", "advise", "touch", "write", "cpu", "copy", "free",
                         "sync"], p=[.14, .14, .14, .2, .1, .14, .05, .05, .04])
        if op == "alloc" or not tw.live:
            kind = rng.choice(["managed", "managed", "managed", "managed", "pinned", "device"])
            nbytes = int(rng.integers(1, 12 * MiB // 4)) * 4
            dev = int(rng.integers(0, gpus))
            try:
                ptr = tw.both(lambda b, i: b.malloc(nbytes, str(kind), dev))
            except Exception as err:        # VRAM held by device memory: both refuse
                with pytest.raises(type(err)):
                    tw.ext.malloc(nbytes, str(kind), dev)
                continue
            tw.live.append((ptr, nbytes, str(kind)))
            what = f"alloc {kind} {nbytes}"
        else:
            ptr, nbytes, kind = tw.live[int(rng.integers(0, len(tw.live)))]
            off, n = _span(rng, nbytes)
            if op == "prefetch" and kind == "managed":
                to = _loc(rng, gpus)
                tw.both(lambda b, i: b.prefetch(ptr + off, n, to, None))
            elif op == "advise" and kind == "managed":
                adv, where = str(rng.choice(ADVICE)), _loc(rng, gpus)
                unset = bool(rng.random() < .3)
                tw.both(lambda b, i: b.advise(ptr + off, n, adv, where, unset))
            elif op in ("touch", "write") and kind != "device":
                e0 = off // 4
                elems = min(max(1, n // 4), nbytes // 4 - e0)
                stride = int(rng.choice([1, 4, 64, 1024, 4096, 16384]))
                dev = int(rng.integers(0, gpus))
                if op == "touch":
                    tw.both(lambda b, i: b.launch("touch_kernel", 1, 256,
                                                  (ptr + 4 * e0, elems, stride, tw.sink[i]),
                                                  b.engine.default_stream(dev)))
                else:
                    tw.both(lambda b, i: b.launch("increment_kernel", 1, 256,
                                                  (ptr + 4 * e0, elems),
                                                  b.engine.default_stream(dev)))
            elif op == "cpu" and kind != "device":
                write = bool(rng.random() < .5)
                stride = int(rng.choice([1, 1, 16]))

                def cpu(b, i):
                    al, _ = b.engine.find(ptr)
                    pages = al.page_range(off, off + n)
                    if stride > 1:
                        pages = np.asarray(pages)[::stride]
                        pages = al.page_list(pages)
                    return b.engine.cpu_access([Access(al, pages, write, n)])
                tw.both(cpu)
            elif op == "copy" and len(tw.live) > 1:
                dst, dn, _ = tw.live[int(rng.integers(0, len(tw.live)))]
                m = int(rng.integers(1, min(dn, nbytes) + 1))
                if dst != ptr:
                    tw.both(lambda b, i: b.memcpy(dst, ptr, m, None))
            elif op == "free":
                tw.both(lambda b, i: b.free(ptr))
                tw.live.remove((ptr, nbytes, kind))
            elif op == "sync":
                tw.both(lambda b, i: b.synchronize(None))
            what = f"{op} on {kind}"
        tw.check(f"seed {seed}, step {step}: {what}")
    return tw


pytestmark = pytest.mark.filterwarnings("ignore::umkit.errors.RaceWarning")


@pytest.mark.parametrize("profile", PROFILES)
def test_extents_and_dense_pages_give_identical_answers(profile):
    for seed in range(4):
        tw = run_sequence(profile, 1000 * PROFILES.index(profile) + seed)
        c = tw.dense.engine.counters
        assert c["kernels"] > 0, "the sequence ran kernels"


def test_the_sequences_reach_the_mechanisms_they_compare():
    """Across the profiles, the random sequences fault, evict, prefetch, duplicate and take
    pages back on the CPU: what is compared is not only the quiet path."""
    seen = dict.fromkeys(("gpu_faults", "evictions", "prefetch_bytes_h2d", "prefetch_bytes_d2h",
                          "cpu_faults", "remote_bytes", "duplicates", "first_touch_pages"), 0)
    for profile in ("h200-pcie5", "mi250x-xnack1", "mi250x-coherent"):
        for seed in range(2):
            c = run_sequence(profile, 77 + seed, steps=30).ext.engine.counters
            for k in seen:
                seen[k] += c[k]
    assert all(seen.values()), seen


def test_extents_stay_few_for_sweeps_and_many_for_strides():
    """A sequential sweep keeps a handful of runs however large the range; a sparse stride
    makes runs in proportion to the pages it touches."""
    b = SimBackend("h200-pcie5", compute=False)
    big = 64 << 30                                   # 64 GiB: no bytes behind it
    ptr = b.malloc(big, "managed", 0)
    al, _ = b.engine.find(ptr)
    assert not al.has_data
    sink = b.malloc(4, "device", 0)
    b.prefetch(ptr, big, CPU, None)
    b.launch("touch_kernel", 1, 256, (ptr, big // 4, 1, sink), None)
    assert al.where.runs <= 4 and al.region_stamp.runs <= 4
    b = SimBackend("h200-pcie5", compute=False, prefetcher=False)
    sink = b.malloc(4, "device", 0)
    small = b.malloc(64 * MiB, "managed", 0)
    sl, _ = b.engine.find(small)
    b.prefetch(small, 64 * MiB, CPU, None)
    b.launch("touch_kernel", 1, 256, (small, 16 * MiB, MiB // 4, sink), None)
    touched = 64 * MiB // MiB
    assert touched <= sl.where.runs <= 4 * touched


def test_pageset_and_runs_answer_like_numpy():
    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(1, 80))
        d = rng.integers(0, 4, n).astype(np.uint8)
        r = Runs.from_dense(d)
        idx = np.flatnonzero(rng.random(n) < .5)
        ps = PageSet.from_sorted(idx)
        np.testing.assert_array_equal(np.asarray(r[ps]), d[idx])
        vals = rng.integers(0, 4, idx.size).astype(np.uint8)
        d2, r2 = d.copy(), r.copy()
        d2[idx] = vals
        r2[ps] = Runs.from_dense(vals) if idx.size > 1 else vals
        np.testing.assert_array_equal(np.asarray(r2), d2)
        e = rng.integers(0, 4, n).astype(np.uint8)
        re_ = Runs.from_dense(e)
        np.testing.assert_array_equal(np.asarray(np.where(r != 0, re_ & r, ~r)),
                                      np.where(d != 0, e & d, ~d))
        m = e > 1
        np.testing.assert_array_equal(np.asarray(r[Runs.from_dense(m)]), d[m])
        assert np.count_nonzero(r) == np.count_nonzero(d) and r.sum() == d.sum()
        for bits in (1, 2, 6):
            assert r.count_with(np.uint8(bits)) == np.count_nonzero(d & np.uint8(bits))
        if idx.size:
            p0, p1 = sorted(int(x) for x in rng.integers(0, idx.size + 1, 2))
            np.testing.assert_array_equal(np.asarray(ps[p0:p1]), idx[p0:p1])
            np.testing.assert_array_equal(np.asarray(ps.div(3)), np.unique(idx // 3))
        other = np.flatnonzero(rng.random(n) < .5)
        np.testing.assert_array_equal(np.asarray(ps.intersect(PageSet.from_sorted(other))),
                                      np.intersect1d(idx, other))
        np.testing.assert_array_equal(np.asarray(ps.minus(PageSet.from_sorted(other))),
                                      np.setdiff1d(idx, other))
