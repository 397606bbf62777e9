"""Checks for notebook 06 -- training data loading, the article's §4.2 epoch loop."""
from __future__ import annotations

import contextlib
import warnings
import weakref

import umkit

from ...errors import RaceWarning
from . import (Exercise, Verdict, check, close_to, counting_frees, integer_option, passed,
               profile_option, sim_sandbox, tiered)

#: The check draws the size and the number of epochs afresh on every call, so the function must
#: work for any n and any number of epochs (a list written from a formula of one call's sizes
#: fails the next); and it checks that the sums come from ``out`` itself: after every kernel the
#: CPU must read ``out`` (its host view, or ``umkit.read_back(out)``) before the next kernel runs.
SIZES = tuple(4096 * k for k in range(4, 49))      # 16 Ki - 192 Ki floats (64 KiB - 768 KiB)
EPOCH_CHOICES = (2, 3, 4, 5)
PROFILE = "mi250x-xnack1"    # notebook 06's own profile (its first code cell): the AMD MI250X model


def draw(rng=None) -> tuple[int, int]:
    """One attempt's (n, epochs), drawn afresh."""
    import random
    rng = rng or random.SystemRandom()
    return rng.choice(SIZES), rng.choice(EPOCH_CHOICES)


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


@contextlib.contextmanager
def _watching_out():
    """Within the block: which kernels' ``out`` the CPU read before the next kernel ran.
    ``umkit.add`` is wrapped to note the array each kernel writes; ``Array.host`` and
    ``umkit.read_back`` note a read of it.  Yields a dict: kernels, unread (kernels whose ``out``
    no CPU read followed)."""
    cls = umkit.Array
    host, add, read_back = cls.host, umkit.add, umkit.read_back
    seen = {"kernels": 0, "unread": 0, "out": None, "pending": False}

    def note_read(x):
        # the kernel's out by identity, held weakly: the watch must not keep the learner's
        # array alive (the leak check looks for arrays still allocated at return)
        if seen["pending"] and seen["out"] is not None and x is seen["out"]():
            seen["pending"] = False

    def watched_add(out, *args, **kwargs):
        if seen["pending"]:
            seen["unread"] += 1
        seen.update(kernels=seen["kernels"] + 1, out=weakref.ref(out), pending=True)
        return add(out, *args, **kwargs)

    def watched_read_back(x, *args, **kwargs):
        note_read(x)
        return read_back(x, *args, **kwargs)

    def watched_host(self):
        note_read(self)
        return host.fget(self)

    cls.host, umkit.add, umkit.read_back = property(watched_host), watched_add, watched_read_back
    try:
        yield seen
    finally:
        cls.host, umkit.add, umkit.read_back = host, add, read_back
        if seen["pending"]:
            seen["unread"] += 1
        seen["out"] = None


def _grade_epoch_loop(fn, profile: str = PROFILE, size: tuple | None = None) -> Verdict | str:
    n, epochs = size or draw()
    with sim_sandbox(profile=profile) as b, warnings.catch_warnings(record=True) as caught, \
            counting_frees() as frees, _watching_out() as seen:
        warnings.simplefilter("always")
        sums = fn(n, epochs)
        c = umkit.counters()
        left = [a for a in b.allocations() if a.kind == "managed"]
    races = c.get("race_flags", 0) + sum(isinstance(w.message, RaceWarning) for w in caught)
    if sums is None:
        return "your function returned None: return the list of per-epoch sums."
    try:
        sums = [float(x) for x in sums]
    except (TypeError, ValueError, OverflowError):
        return f"return a list of numbers (one sum per epoch), not {type(sums).__name__}."
    if len(sums) != epochs:
        return f"called with epochs={epochs}, your function returned {len(sums)} sums."
    if c.get("kernels", 0) < epochs:
        return (f"only {c.get('kernels', 0)} kernel(s) ran for {epochs} epochs: call "
                "umkit.add(out, a, b, stream=s) once per epoch.")
    if races:
        return ("the CPU read `out` while add_kernel could still be writing it (a race, §3.3): "
                "nothing waited for the kernel before the CPU's sum.")
    want = 3.0 * n
    bad = [i for i, x in enumerate(sums) if not close_to(x, want)]
    if bad:
        return (f"called with n={n}: epoch {bad[0]}'s sum is {sums[bad[0]]:g}, expected "
                f"{want:g} (= n * (1.0 + 2.0)): fill a with 1.0 and b with 2.0 on the CPU, and "
                "sum all of out.")
    if seen["kernels"] < epochs or seen["unread"]:
        return ("the sums have the right value, but they did not come from `out`: after "
                f"{max(seen['unread'], epochs - seen['kernels'])} of the {epochs} kernels the CPU "
                "never read `out` before the next one. Each epoch's sum must be the CPU reading "
                "what add_kernel wrote (umkit.add(out, a, b, ...), then out.host or "
                "umkit.read_back(out)).")
    if c.get("prefetch_bytes_h2d", 0) == 0:
        return (f"the sums are right, but nothing was prefetched: {c.get('gpu_faults', 0)} GPU "
                "page faults did the moving.")
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
    return passed(f"n={n}, {epochs} epochs on {profile}: sums {want:g} each, read from out, no "
                  "GPU faults, no race, nothing leaked "
                  f"({c.get('prefetch_bytes_h2d', 0) >> 10} KiB prefetched, "
                  f"{c.get('cpu_faults', 0)} CPU faults).")


def _setup(profile: str = PROFILE, size=None) -> dict:
    if size is not None:
        n, epochs = (integer_option(v, k, lo=lo, hi=hi, hint=h) for v, k, lo, hi, h in (
            (size[0], "n", 1, 1 << 22, "a size in floats"),
            (size[1], "epochs", 1, 64, "a number of epochs")))
        size = (n, epochs)
    return {"profile": profile_option(profile), "size": size}


EPOCH_LOOP = Exercise(
    name="nb06.epoch_loop", argument="my_epoch_loop", kind="function", concept=CONCEPT,
    answer=ANSWER,
    none="{argument} is still None: define def my_epoch_loop(n, epochs): ... and pass the "
         "function itself (no parentheses).",
    wrong_type="pass the function itself, not {type} (no parentheses).",
    call="your function", raised="{call} raised {error}", grader=_grade_epoch_loop,
    setup=_setup)


@tiered
def check_epoch_loop(fn, profile: str = PROFILE, size=None) -> Verdict:
    """``fn(n, epochs)``: allocate managed ``a``, ``b``, ``out`` of ``n`` floats, fill ``a`` with 1.0
    and ``b`` with 2.0 on the CPU, then each epoch: prefetch, ``umkit.add(out, a, b)``,
    synchronize, sum ``out`` on the CPU.  Return the list of per-epoch sums; free the arrays.

    The check calls ``fn`` with an ``n`` and a number of epochs drawn afresh each time (``size=(n,
    epochs)`` fixes them) on the sim ``profile`` (notebook 06's, the MI250X, by default).  Passes
    when the sums are right and were read from ``out`` after each kernel, nothing raced, every
    array the kernel touches was resident before it ran (no GPU page faults at all) and nothing
    is left allocated."""
    return check(EPOCH_LOOP, fn, profile=profile, size=size)
