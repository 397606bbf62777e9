"""Checks for notebook 03 (migration, prefetch, advice): two arrays, two access patterns.

The check runs the learner's ``prepare(a, w)`` on two managed arrays the CPU has just filled, then
three rounds of "the GPU reads all of ``a``, the CPU reads all of ``a``, the GPU reads all of
``w``" (the CPU never touches ``w`` again), and grades what the driver did in those rounds.  For
``a`` (the notebook's demo pattern): no page may move between host memory and VRAM in any round,
and from the second round on nothing may fault (a first-round fault that only *maps* a page where
it lies, as amdkfd's in-place access does, moves nothing and is allowed).  For ``w`` -- the step
of transfer the demo does not print: no page may move and nothing may fault in any round, and the
GPU must not read it across the link (it reads ``w`` every round and nobody else does).  The
sizes are drawn afresh on every check; the messages name the array and the rounds, never a call.
A one-argument ``prepare(a)`` (the older exercise) is run on ``a`` alone and leaves ``w`` as the
CPU filled it.

On the simulator the check grades on notebook 03's card (:data:`PROFILE`), whatever card the
session models (a session switched to an APU would otherwise pass doing nothing); on a real GPU it
grades on that GPU.  What passes depends on the card, because the vendors' advice differs (ledger:
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
  nothing passes for ``a`` (the check says why); an APU (mi300a-apu) has one memory and nothing
  moves.

For ``w`` a prefetch to the GPU before the first round is right on every card (on the APU nothing
moves whatever one does).
"""
from __future__ import annotations


import umkit

from .grading import Exercise, Verdict, check, failed, passed, rng_option, sim_sandbox, tiered

import contextlib
import inspect

from ...runtime.lang import tr

ROUNDS = 3
#: the card the check grades on when the session is on the simulator, whatever profile the session
#: models: notebook 03's own (its first cell).  On a real GPU the check grades on that GPU.
PROFILE = "mi250x-xnack1"
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
               "this card. For a, which both sides read: which advice lets the GPU read the pages "
               "where they already are, without migrating them? For w, which only the GPU reads, "
               "every round: where should its pages be before the first round, and what puts "
               "them there?")
CONCEPT_NV = ("§3.2 and section 4 of the notebook: for a, which both sides read, which advice lets "
              "each side read the pages without taking them away from the other -- a copy on "
              "each side, or the pages left where they are and read across the link? And §4.4: "
              "a prefetch obeys only the advice that is already there. For w, which only the GPU "
              "reads, every round: where should its pages be before the first round?")
_ANSWER_AMD = ("def prepare(a, w):\n    a.advise('preferred_location', 'cpu')   # a: the pages stay "
              "in host memory ...\n    a.advise('accessed_by', 'gpu')          # ... and the GPU "
              "maps them where they are\n    w.prefetch('gpu')                       # w: only the "
              "GPU reads it -- inhale it once\n# either advice alone also passes for a on AMD; where a "
              "CPU touch migrates pages back (this\n# notebook's mi250x-xnack1 model, after OLCF's "
              "Frontier table; a PCIe AMD GPU) a prefetch of a\n# to the GPU would be undone by the "
              "CPU's first read")
_ANSWER_NV = ("def prepare(a, w):\n    a.advise('read_mostly')   # advice first ...\n"
             "    a.prefetch('gpu')         # ... then prefetch: the GPU gets its own copy\n"
             "    w.prefetch('gpu')         # w: only the GPU reads it -- inhale it once\n"
             "# for a, a.advise('preferred_location', 'cpu'); a.advise('accessed_by', 'gpu') also\n"
             "# passes: nothing moves, the GPU reads across the link on every round")


def _on_sim() -> bool:
    return umkit.backend_name() not in ("hip", "cuda")


def _session_note() -> str:
    """A sentence when the session models another card than the one the check grades on."""
    try:
        mine = umkit.sim_profile().name if _on_sim() else ""
    except Exception:  # noqa: BLE001 - a note never fails a check
        mine = ""
    return (f" (graded on the notebook's card, {PROFILE}; your session models {mine})"
            if mine and mine != PROFILE else "")


def _setup() -> dict:
    amd = True if _on_sim() else _vendor() == "amd"     # PROFILE is an AMD card
    rng = rng_option(None, "nb03.prepare")
    return dict(concept=CONCEPT_AMD if amd else CONCEPT_NV, answer=_ANSWER_AMD if amd else _ANSWER_NV,
                mib=rng.choice(SIZES_MIB), wmib=rng.choice(SIZES_MIB))


def _takes_two(fn) -> bool:
    """``fn`` can be called as fn(a, w) (else it is the older prepare(a))."""
    try:
        inspect.signature(fn).bind(None, None)
        return True
    except TypeError:
        return False
    except ValueError:          # no signature to read (a builtin): call it with both
        return True


def _rounds(fn, n, nw, two=True) -> tuple[list[dict], dict, list[dict], dict]:
    """Run ``fn`` on fresh managed arrays ``a`` (``n`` floats) and ``w`` (``nw``) the CPU filled,
    then ROUNDS rounds of a GPU read and a CPU read of ``a`` and a GPU read of ``w``; the counters
    of each round for each array, and each range's attributes."""
    a, w = umkit.managed(n), umkit.managed(nw)
    rounds, wrounds = [], []
    try:
        a.host[:] = 1.0
        w.host[:] = 2.0
        umkit.synchronize()
        if two:
            fn(a, w)
        else:
            fn(a)
        umkit.synchronize()
        attrs, wattrs = a.attributes(), w.attributes()
        for _ in range(ROUNDS):
            c0 = umkit.counters()
            sink = umkit.touch(a, 4096)          # the GPU reads every element of a
            umkit.synchronize()
            sink.free()
            float(a.host[::1024].sum())          # the CPU reads the whole of a
            c1 = umkit.counters()
            rounds.append(umkit.workloads.counter_delta(c0, c1, keep_zeros=True))
            sink = umkit.touch(w, 4096)          # the GPU reads every element of w
            umkit.synchronize()
            sink.free()
            wrounds.append(umkit.workloads.counter_delta(c1, umkit.counters(), keep_zeros=True))
    finally:
        a.free()
        w.free()
    return rounds, attrs, wrounds, wattrs


def _kind(loc) -> str:
    return getattr(loc, "kind", "")


def _grade_w_on_gpu(wattrs) -> str | None:
    """A real GPU: ``w`` is right when it was prefetched to the GPU and not homed on the CPU."""
    if _kind(wattrs.get("last_prefetch_location")) == "device" and \
            _kind(wattrs.get("preferred_location")) != "host":
        return None
    return ("w (only the GPU reads it, every round): from its range's attributes its pages are "
            "not in VRAM before the first round")


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


def _grade_w(wrounds) -> str | None:
    """What is wrong with ``w``'s rounds (the GPU reads it, nobody else), or None."""
    moved = [i + 1 for i, r in enumerate(wrounds) if r.get("bytes_h2d", 0) + r.get("bytes_d2h", 0)
             or r.get("gpu_faults", 0)]
    if moved:
        return (f"w (only the GPU reads it, every round): its reads faulted and pages moved in "
                f"round{'s' if len(moved) > 1 else ''} {', '.join(map(str, moved))} of "
                f"{len(wrounds)} -- after prepare(a, w) nothing about w should be left to the "
                "rounds")
    remote = [i + 1 for i, r in enumerate(wrounds) if r.get("remote_bytes", 0)]
    if remote:
        return (f"w (only the GPU reads it, every round): the GPU read it across the link in "
                f"round{'s' if len(remote) > 1 else ''} {', '.join(map(str, remote))} of "
                f"{len(wrounds)}: nothing moved, but every round paid the link for data only the "
                "GPU uses")
    return None


def _grade_prepare(fn, mib, wmib=None, **_) -> Verdict | str:
    two = _takes_two(fn)
    rounds, attrs, wrounds, wattrs = _rounds(fn, (mib << 20) // 4, ((wmib or mib) << 20) // 4,
                                             two)
    if not any(rounds) and not any(wrounds):      # a real GPU: no counters
        v = _grade_on_gpu(attrs)
        w_wrong = _grade_w_on_gpu(wattrs)
        if w_wrong and not isinstance(v, str):
            return w_wrong
        return v
    v = _grade_a(rounds, attrs)
    w_wrong = _grade_w(wrounds)
    if isinstance(v, str):
        return "a (both sides read it): " + v + ("; and " + w_wrong if w_wrong else "")
    if w_wrong:
        return w_wrong
    if not two:
        return v
    if _kind(wattrs.get("last_prefetch_location")) == "device":
        w_how = ("prefetched before the first round, so the GPU read it from VRAM in every round "
                 "with no fault and nothing moving")
    else:
        w_how = "nothing faulted, moved or crossed the link in any round"
    return passed(f"a: {v.message}; w: {w_how}")


def _grade_a(rounds, attrs) -> Verdict | str:
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
            return passed("nothing moved: with XNACK off, a GPU touch does not migrate managed "
                          "memory (the GPU reads host memory in place), so this card needs no "
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


def _grade(fn, mib, concept, answer, wmib=None, **_) -> Verdict | str:
    note = _session_note()
    card = sim_sandbox(profile=PROFILE) if _on_sim() else contextlib.nullcontext()
    with card:
        v = _grade_prepare(fn, mib, wmib)
    if isinstance(v, str):
        # the message in the learner's language before the note: a message of parts inside the
        # note's sentence is deeper than the translator follows
        return failed((tr(v) if note else v) + note, concept, answer)
    v.message += note
    return v


@tiered
def check_prepare(fn) -> Verdict:
    """Exercise 03: ``fn(a, w)`` prepares two managed arrays that the CPU has just filled, so that
    afterwards, round after round, the GPU reads all of ``a`` and then the CPU reads all of it --
    with no page moving back and forth and, after the first round, no page fault on either side
    -- and the GPU reads all of ``w`` (nobody else does) from VRAM, with no fault and nothing
    moving in any round.  The sizes change on every check."""
    return check(PREPARE, fn)


PREPARE = Exercise(
    why_terms=('advice', 'advise', 'prefetch', 'preferred', 'accessed', 'read-mostly', 'migrat',
               'fault', 'xnack', '建议', '预取', '迁移', '缺页', '首选'),
    name="nb03.prepare", argument="prepare", kind="function", concept=CONCEPT_AMD,
    answer=_answer,
    none="{argument} is None: write def prepare(a, w): ... (advice and/or prefetch)",
    wrong_type="{argument} should be a function of two arrays, got {type}",
    call="prepare(a, w)", grader=_grade, setup=_setup)
