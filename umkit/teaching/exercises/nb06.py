"""Checks for notebook 06 -- training data loading, the article's §4.2 epoch loop."""
from __future__ import annotations

import warnings

import umkit

from ...errors import RaceWarning
from . import Exercise, Verdict, check, close_to, counting_frees, passed, sim_sandbox, tiered

N = 1 << 16          # small, so the check is quick; your function must work for any n
EPOCHS = 3


CONCEPT = ("§4.2, the epoch loop, and §3.3: before each kernel, inhale every array the kernel will "
           "touch (hipMemPrefetchAsync to the GPU) -- and remember which arrays the CPU touched "
           "since the last epoch, because those pages went back to the host; wait for the "
           "stream before the CPU reads what the kernel wrote; hipFree what you allocated")
ANSWER = ("def my_epoch_loop(n, epochs):\n"
          "    a, b, out = umkit.managed(n), umkit.managed(n), umkit.managed(n)\n"
          "    a.host[:] = 1.0\n    b.host[:] = 2.0\n    s = umkit.Stream()\n    sums = []\n"
          "    for _ in range(epochs):\n"
          "        for x in (a, b, out):\n"
          "            x.prefetch('gpu', stream=s)      # out too: the CPU's sum pulled it back\n"
          "        umkit.add(out, a, b, stream=s)\n"
          "        s.synchronize()                      # before the CPU reads out\n"
          "        sums.append(float(out.host.sum()))\n"
          "    for x in (a, b, out):\n        x.free()\n    return sums\n"
          "(or read out with umkit.read_back(out), which copies without migrating)")


def _grade_epoch_loop(fn) -> Verdict | str:
    with sim_sandbox() as b, warnings.catch_warnings(record=True) as caught, \
            counting_frees() as frees:
        warnings.simplefilter("always")
        sums = fn(N, EPOCHS)
        c = umkit.counters()
        left = [a for a in b.allocations() if a.kind == "managed"]
    races = c.get("race_flags", 0) + sum(isinstance(w.message, RaceWarning) for w in caught)
    if sums is None:
        return "your function returned None: return the list of per-epoch sums."
    try:
        sums = [float(x) for x in sums]
    except (TypeError, ValueError, OverflowError):
        return f"return a list of numbers (one sum per epoch), not {type(sums).__name__}."
    if len(sums) != EPOCHS:
        return f"called with epochs={EPOCHS}, your function returned {len(sums)} sums."
    if c.get("kernels", 0) < EPOCHS:
        return (f"only {c.get('kernels', 0)} kernel(s) ran for {EPOCHS} epochs: call "
                "umkit.add(out, a, b, stream=s) once per epoch.")
    if races:
        return ("the CPU read `out` while add_kernel could still be writing it (a race, §3.3): "
                "nothing waited for the kernel before the CPU's sum.")
    want = 3.0 * N
    bad = [i for i, x in enumerate(sums) if not close_to(x, want)]
    if bad:
        return (f"epoch {bad[0]}'s sum is {sums[bad[0]]:g}, expected {want:g} (= n * (1.0 + 2.0)): "
                "fill a with 1.0 and b with 2.0 on the CPU, and sum all of out.")
    if c.get("prefetch_bytes_h2d", 0) == 0:
        return (f"the sums are right, but nothing was prefetched: {c.get('gpu_faults', 0)} GPU "
                "page faults did the moving, one fault batch at a time.")
    if c.get("gpu_faults", 0):
        return (f"you prefetch, but the kernel still took {c['gpu_faults']} GPU page faults: "
                "some array the kernel touches was not on the GPU when it ran. Which array "
                "did the CPU touch last?")
    if left:
        return (f"{len(left)} managed array(s) ({sum(a.nbytes for a in left)} B) are still "
                "allocated when your function returns.")
    if frees["freed"] < frees["made"]:
        return (f"your function allocated {frees['made']} managed arrays and freed "
                f"{frees['freed']} of them itself: free each one when you are done with it "
                "(x.free(), or `with umkit.managed(n) as x:`). Python frees the rest when the "
                "function returns, but in a long training loop that is too late -- the memory "
                "stays allocated until then (§4.2).")
    return passed(f"{EPOCHS} epochs, sums {want:g} each, no GPU faults, no race, nothing leaked "
                  f"({c.get('prefetch_bytes_h2d', 0) >> 10} KiB prefetched, "
                  f"{c.get('cpu_faults', 0)} CPU faults).")


EPOCH_LOOP = Exercise(
    name="nb06.epoch_loop", argument="my_epoch_loop", kind="function", concept=CONCEPT,
    answer=ANSWER,
    none="{argument} is still None: define def my_epoch_loop(n, epochs): ... and pass the "
         "function itself (no parentheses).",
    wrong_type="pass the function itself, not {type} (no parentheses).",
    call="your function", raised="{call} raised {error}", grader=_grade_epoch_loop)


@tiered
def check_epoch_loop(fn) -> Verdict:
    """``fn(n, epochs)``: allocate managed ``a``, ``b``, ``out`` of ``n`` floats, fill ``a`` with 1.0
    and ``b`` with 2.0 on the CPU, then each epoch: prefetch, ``umkit.add(out, a, b)``,
    synchronize, sum ``out`` on the CPU.  Return the list of per-epoch sums; free the arrays.

    Passes when the sums are right, nothing raced, every array the kernel touches was resident
    before it ran (no GPU page faults at all) and nothing is left allocated."""
    return check(EPOCH_LOOP, fn)
