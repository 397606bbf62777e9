"""Checks for notebook 03 (migration, prefetch, advice): an array both sides read.

The check runs the learner's ``prepare(a)`` on a managed array the CPU has just filled, then three
rounds of "the GPU reads all of it, the CPU reads all of it", and grades what the driver did in
those rounds: no page may move between host memory and VRAM in any round, and from the second
round on nothing may fault (a first-round fault that only *maps* a page where it lies, as
amdkfd's in-place access does, moves nothing and is allowed).  The array's size is drawn afresh on
every check, so an answer cannot lean on one size; the messages name rounds, not fault counts.

What passes depends on the card, because the vendors' advice differs (ledger:
amd.read_mostly.flag, nv.read_mostly.duplicates, amd.peer.accessed_by):

* NVIDIA (h200-pcie5): ``read_mostly`` and then a prefetch to the GPU (a copy on each side), or
  the pages left in host memory with the GPU reading them in place (``preferred_location`` CPU
  and/or ``accessed_by`` GPU);
* AMD with XNACK on and a CPU touch that migrates back (mi250x-xnack1, the notebook's card;
  mi300x): only leaving the pages in host memory -- amdkfd's read-mostly is a flag, not a copy,
  so a prefetch to the GPU is pulled back by the CPU's first read;
* AMD MI250X with CPU-coherent VRAM (mi250x-coherent): the CPU reads VRAM in place, so a prefetch
  to the GPU also passes; a GPU fault there still migrates, so doing nothing does not;
* AMD with XNACK off (mi250x-xnack0): managed memory never migrates on a touch, so doing
  nothing passes (the check says why); an APU (mi300a-apu) has one memory and nothing moves.
"""
from __future__ import annotations

import random

import umkit

from . import Exercise, Verdict, check, failed, passed, tiered

ROUNDS = 3
SIZES_MIB = (6, 8, 10, 12, 14, 16)          # drawn per check: 2 MiB multiples, quick everywhere


def _vendor() -> str:
    """'amd' or 'nvidia': the card the check runs on (a sim profile's policy, or the backend)."""
    name = umkit.backend_name()
    if name in ("hip", "cuda"):
        return "amd" if name == "hip" else "nvidia"
    policy = str(umkit.capabilities().get("policy", ""))
    return "amd" if policy.startswith("amd") else "nvidia"


CONCEPT_AMD = ("§3.2 and section 4 of the notebook: on AMD, read_mostly is only a flag on the "
               "range (no copy on each side), and a CPU read of pages in VRAM brings them back on "
               "this card. Which advice lets the GPU read the pages where they already are, "
               "without migrating them?")
CONCEPT_NV = ("§3.2 and section 4 of the notebook: which advice lets each side read the pages "
              "without taking them away from the other -- a copy on each side, or the pages left "
              "where they are and read across the link? And §4.4: a prefetch obeys only the "
              "advice that is already there")
ANSWER_AMD = ("def prepare(a):\n    a.advise('preferred_location', 'cpu')   # the pages stay in "
              "host memory ...\n    a.advise('accessed_by', 'gpu')          # ... and the GPU maps "
              "them where they are\n(either call alone also passes on AMD; a prefetch to the GPU "
              "would be undone by the CPU's first read)")
ANSWER_NV = ("def prepare(a):\n    a.advise('read_mostly')   # advice first ...\n"
             "    a.prefetch('gpu')         # ... then prefetch: the GPU gets its own copy\n"
             "(a.advise('preferred_location', 'cpu'); a.advise('accessed_by', 'gpu') also "
             "passes: nothing moves, the GPU reads across the link on every round)")


def _setup() -> dict:
    amd = _vendor() == "amd"
    return dict(concept=CONCEPT_AMD if amd else CONCEPT_NV, answer=ANSWER_AMD if amd else ANSWER_NV,
                mib=random.choice(SIZES_MIB))


def _rounds(fn, n) -> tuple[list[dict], dict]:
    """Run ``fn`` on a fresh managed array of ``n`` floats the CPU filled, then ROUNDS rounds of
    a GPU read and a CPU read; the counters of each round, and the range's attributes."""
    a = umkit.managed(n)
    rounds = []
    try:
        a.host[:] = 1.0
        umkit.synchronize()
        fn(a)
        umkit.synchronize()
        attrs = a.attributes()
        for _ in range(ROUNDS):
            c0 = umkit.counters()
            sink = umkit.touch(a, 4096)          # the GPU reads every element
            umkit.synchronize()
            sink.free()
            float(a.host[::1024].sum())          # the CPU reads the whole array
            rounds.append(umkit.workloads.counter_delta(c0, umkit.counters(), keep_zeros=True))
    finally:
        a.free()
    return rounds, attrs


def _kind(loc) -> str:
    return getattr(loc, "kind", "")


def _grade_on_gpu(attrs) -> Verdict | str:
    """A real GPU: no counters; judge the range's attributes."""
    rm = attrs.get("read_mostly")
    on_gpu = _kind(attrs.get("last_prefetch_location")) == "device"
    gpu_mapped = any(_kind(loc) == "device" for loc in attrs.get("accessed_by") or [])
    cpu_home = _kind(attrs.get("preferred_location")) == "host"
    if (cpu_home or gpu_mapped) and not on_gpu:
        return passed("the pages stay in host memory and the GPU reads them in place (faults "
                      "are not counted on a real GPU; run on sim to see them)")
    if umkit.backend_name() == "cuda" and rm and on_gpu:
        return passed("read_mostly, then a prefetch to the GPU: each side keeps its own copy "
                      "(faults are not counted on a real GPU; run on sim to see them)")
    return ("from the range's attributes, the CPU's reads would take pages away from the GPU "
            "(or the GPU's from the CPU) on every round")


def _grade_prepare(fn, mib, **_) -> Verdict | str:
    rounds, attrs = _rounds(fn, (mib << 20) // 4)
    if not any(rounds):                           # a real GPU: no counters
        return _grade_on_gpu(attrs)
    moved = [r.get("bytes_h2d", 0) + r.get("bytes_d2h", 0) for r in rounds]
    back = [r.get("bytes_d2h", 0) for r in rounds]
    gpu = [r.get("gpu_faults", 0) for r in rounds]
    cpu = [r.get("cpu_faults", 0) for r in rounds]
    later_faults = any(gpu[1:]) or any(cpu[1:])
    if not any(moved) and not later_faults:
        caps = umkit.capabilities()
        mode = caps.get("mode", "")
        if mode == "apu":
            return passed("nothing moved: on an APU the CPU and the GPU share one memory, so "
                          "there is nothing to migrate whatever you do -- on the notebook's "
                          "MI250X this answer has to keep the pages from moving")
        if mode == "zero_copy" and not attrs.get("preferred_location") and not attrs.get(
                "accessed_by"):
            return passed("nothing moved: with XNACK off, managed memory is not migrated on a "
                          "touch (the GPU reads host memory in place), so this card needs no "
                          "advice -- with XNACK on, as on the notebook's card, it does")
        if any(gpu[:1]) and not any(moved):
            how = ("the GPU's first read faulted only to map the pages where they lie; after "
                   "that nothing faults and nothing moves: the GPU reads host memory across the "
                   "link on every round (zero copy) and the CPU reads it locally")
        elif attrs.get("read_mostly") and _kind(attrs.get("last_prefetch_location")) == "device":
            how = ("nothing faults and nothing moves: each side reads its own copy (read "
                   "duplication)")
        else:
            how = "nothing faults and nothing moves in any round"
        return passed(how)
    n = len(rounds)
    parts = []
    ping = [i + 1 for i in range(n) if back[i] and gpu[i]]
    if ping:
        parts.append(f"in round{'s' if len(ping) > 1 else ''} {', '.join(map(str, ping))} of {n} "
                     "the GPU's read faulted pages into VRAM and the CPU's read pulled them back: "
                     "ping-pong")
    pulled = [i + 1 for i in range(n) if back[i] and not gpu[i]]
    if ping and pulled:
        parts.append(f"in round{'s' if len(pulled) > 1 else ''} {', '.join(map(str, pulled))} "
                     "the CPU's read pulled back pages that were already in VRAM")
    elif any(back) and not ping:
        rs = [i + 1 for i in range(n) if back[i]]
        parts.append(f"the CPU's read pulled pages back from VRAM in round"
                     f"{'s' if len(rs) > 1 else ''} {', '.join(map(str, rs))} of {n}")
    elif any(moved):
        rs = [i + 1 for i in range(n) if moved[i]]
        parts.append(f"pages still moved between host memory and VRAM in round"
                     f"{'s' if len(rs) > 1 else ''} {', '.join(map(str, rs))} of {n}")
    if later_faults and not ping:
        parts.append("from round 2 on, reads still faulted")
    return "; ".join(parts) + (" (the first round is where your prepare(a) should already "
                               "have settled things)" if not any(moved[1:]) and moved[0] else "")


def _answer(answer, **_):
    return answer


def _grade(fn, mib, concept, answer, **_) -> Verdict | str:
    v = _grade_prepare(fn, mib)
    if isinstance(v, str):
        return failed(v, concept, answer)
    return v


@tiered
def check_prepare(fn) -> Verdict:
    """Exercise 03: ``fn(a)`` prepares a managed array that the CPU has just filled, so that
    afterwards the GPU reads all of it and then the CPU reads all of it -- again and again --
    with no page moving back and forth and, after the first round, no page fault on either
    side.  The array's size changes on every check."""
    return check(PREPARE, fn)


PREPARE = Exercise(
    name="nb03.prepare", argument="prepare", kind="function", concept=CONCEPT_AMD,
    answer=_answer,
    none="{argument} is None: write def prepare(a): ... (advice and/or prefetch)",
    wrong_type="{argument} should be a function of one array, got {type}",
    call="prepare(a)", grader=_grade, setup=_setup)
