"""Checks for notebook 06 -- training data loading, the article's §4.2 epoch loop."""
from __future__ import annotations

import contextlib
import warnings
import weakref

import numpy as np

import umkit

from ...errors import RaceWarning
from ...runtime.lang import tr
from ...sim import loc_bit
from .grading import (Exercise, Verdict, check, close_to, counting_frees, integer_option, passed,
                     profile_option, rng_option, sim_sandbox, tiered)

#: Each epoch the CPU loads that epoch's batch into ``a`` (the value e + 1.0 in epoch e; ``b`` stays
#: 2.0), so epoch e's sum is n * (e + 3): the step past notebook 06's demo loop, which loads once.
#: The check draws the size and the number of epochs afresh on every call, so the function must
#: work for any n and any number of epochs (a list written from a formula of one call's sizes
#: fails the next); at an epoch it does not announce the check adds 1.0 to ``b`` on the GPU (as an
#: optimizer updates what a loop reads), so only sums read from ``out`` follow; and it checks that
#: the sums come from ``out`` itself: after every kernel the
#: CPU must read all of ``out`` (a sum over its host view, or over ``umkit.read_back(out)``) before
#: the next kernel runs -- counted by the simulator's engine, however the learner imported add.
SIZES = tuple(4096 * k for k in range(4, 49))      # 16 Ki - 192 Ki floats (64 KiB - 768 KiB)
EPOCH_CHOICES = (2, 3, 4, 5)
PROFILE = "mi250x-xnack1"    # notebook 06's own profile (its first code cell): the AMD MI250X model


def draw(rng=None) -> tuple[int, int]:
    """One attempt's (n, epochs), drawn afresh (``rng``: a ``random.Random``; default: the
    operating system's randomness)."""
    rng = rng_option(rng)
    return rng.choice(SIZES), rng.choice(EPOCH_CHOICES)


CONCEPT = ("§4.2, the epoch loop, and §3.3: before each kernel, inhale every array the kernel will "
           "touch that is not in VRAM (hipMemPrefetchAsync to the GPU) -- the arrays the CPU "
           "touched since the kernel last ran (the batch it loaded, the sum it read) went back to "
           "the host; an array only the GPU touched is still there, and a prefetch of it moves "
           "nothing (on a real card the call still reaches the driver). What has to happen "
           "before the inhale, and what after? Wait for the stream before the CPU reads what the "
           "kernel wrote; hipFree what you allocated")
_ANSWER = ("def my_epoch_loop(n, epochs):\n"
          "    a, b, out = umkit.managed(n), umkit.managed(n), umkit.managed(n)\n"
          "    b.host[:] = 2.0\n    s = umkit.Stream()\n    sums = []\n"
          "    b.prefetch('gpu', stream=s)              # once: only the GPU touches b from now on\n"
          "    for e in range(epochs):\n"
          "        a.host[:] = e + 1.0                  # the CPU loads this epoch's batch ...\n"
          "        for x in (a, out):                   # ... then what the CPU touched is inhaled\n"
          "            x.prefetch('gpu', stream=s)      # out too: the CPU's sum pulled it back\n"
          "        umkit.add(out, a, b, stream=s)\n"
          "        s.synchronize()                      # before the CPU reads out\n"
          "        sums.append(float(out.host.sum()))\n"
          "    for x in (a, b, out):\n        x.free()\n    return sums\n"
          "# or read out with umkit.read_back(out): in the model a copy that leaves out in VRAM,\n"
          "# so out needs no prefetch after the first epoch -- on ROCm see notebook 06's note on\n"
          "# read_back")


@contextlib.contextmanager
def _watching_out(backend, bump_at: int | None = None):
    """Within the block: whether the CPU read each kernel's ``out`` before the next kernel ran.

    The watch sits where every way of writing the loop ends up, not on the names a learner
    imports (``umkit.add``, ``from umkit import add``, ``workloads.epoch_loop`` all land there):
    the sim ``backend``'s ``launch`` notes the allocation each ``add_kernel`` writes; the
    engine's CPU accesses (a sum over ``out.host``, any NumPy read of it) and copies out of it
    (``umkit.read_back``) count the bytes of it the CPU read.  A kernel's ``out`` counts as read
    when the CPU read at least all of its bytes before the next kernel: taking ``out.host`` and
    reading nothing of it is no read.  Yields a dict: kernels, unread (kernels whose ``out`` no
    full CPU read followed), and per kernel the mean of what ``a`` and ``b`` held as it was
    launched and the sum it wrote into ``out`` (``batches``: (a's mean, b's mean, out's sum)).
    ``bump_at``: before that epoch's kernel (0-based) the check adds 1.0 to every element of ``b``
    on the GPU, on the learner's stream (as an optimizer updates what a loop reads), unannounced:
    a sum written from a formula does not follow it, a sum read from ``out`` does."""
    eng = backend.engine
    launch, cpu_access, memcpy, pageable, prefetch = (backend.launch, eng.cpu_access, eng.memcpy,
                                                      eng.memcpy_pageable, eng.prefetch)
    seen = {"kernels": 0, "unread": 0, "out": None, "need": 0, "read": 0, "batches": [],
            "prefetches": 0, "idle": 0, "pages": set(), "need_pages": 0,
            "loaded": set(), "gpu_batches": 0}

    def held(ptr, n):
        """What the n floats at ``ptr`` hold now, as float64 (the sim keeps the real bytes)."""
        alloc, off = eng.find(ptr)
        return alloc.data[off:off + 4 * n].view(np.float32).astype(np.float64)

    def pending():
        # all of out read: as many bytes as it holds, and every page of it (reading one page
        # over and over is not reading out)
        return seen["out"] is not None and (seen["read"] < seen["need"]
                                            or len(seen["pages"]) < seen["need_pages"])

    def note_read(alloc, nbytes, pages=None):
        if seen["out"] is not None and alloc is seen["out"]():
            seen["read"] += int(nbytes)
            if isinstance(pages, np.ndarray):
                seen["pages"].update(int(p) for p in pages if p < seen["need_pages"])

    def watched_launch(kernel, grid, block, args, stream):
        if kernel == "add_kernel":
            if pending():
                seen["unread"] += 1
            # the batch (a) must have come from the host since the last kernel: written by the
            # CPU or copied from host memory, not made on the GPU
            if id(eng.find(args[1])[0]) not in seen["loaded"]:
                seen["gpu_batches"] += 1
            seen["loaded"].clear()
            alloc, _ = eng.find(args[0])
            n = int(args[3])
            if seen["kernels"] == bump_at:
                launch("increment_kernel", grid, block, (args[2], n), stream)
            xa, xb = held(args[1], n), held(args[2], n)
            seen["batches"].append((float(xa.mean()) if n else 0.0,
                                    float(xb.mean()) if n else 0.0, float((xa + xb).sum())))
            # held weakly: the watch must not keep the learner's memory alive
            seen.update(kernels=seen["kernels"] + 1, out=weakref.ref(alloc),
                        need=4 * int(args[3]), read=0, pages=set(),
                        need_pages=-(-4 * int(args[3]) // alloc.host_page))
        return launch(kernel, grid, block, args, stream)

    def watched_cpu_access(accesses, *args, **kwargs):
        for acc in accesses:
            if not acc.write:
                note_read(acc.alloc, acc.nbytes, acc.pages)
            else:
                seen["loaded"].add(id(acc.alloc))
        return cpu_access(accesses, *args, **kwargs)

    def watched_memcpy(dst, src, nbytes, s):
        alloc, off = eng.find(src)
        note_read(alloc, nbytes, alloc.page_range(off, off + int(nbytes)))
        if alloc.kind == "pinned":                  # a copy from host memory loads dst
            seen["loaded"].add(id(eng.find(dst)[0]))
        return memcpy(dst, src, nbytes, s)

    def watched_pageable(ptr, host, nbytes, to_array, s):
        if not to_array:
            alloc, off = eng.find(ptr)
            note_read(alloc, nbytes, alloc.page_range(off, off + int(nbytes)))
        else:                                        # NumPy data copied in: a host load
            seen["loaded"].add(id(eng.find(ptr)[0]))
        return pageable(ptr, host, nbytes, to_array, s)

    def watched_prefetch(alloc, pages, dest, s, name):
        # idle: every page of the range already lives where it is sent (a page that was never
        # touched has no home yet: a prefetch of it places it, and spares the kernel a fault)
        where = getattr(alloc, "where", None)
        if isinstance(where, np.ndarray) and isinstance(pages, np.ndarray) and len(pages):
            seen["idle"] += bool(np.all(where[pages] & loc_bit(dest)))
        seen["prefetches"] += 1
        return prefetch(alloc, pages, dest, s, name)

    backend.launch, eng.cpu_access = watched_launch, watched_cpu_access
    eng.memcpy, eng.memcpy_pageable = watched_memcpy, watched_pageable
    eng.prefetch = watched_prefetch
    try:
        yield seen
    finally:
        for obj, name in ((backend, "launch"), (eng, "cpu_access"), (eng, "memcpy"),
                          (eng, "memcpy_pageable"), (eng, "prefetch")):
            obj.__dict__.pop(name, None)
        if pending():
            seen["unread"] += 1
        seen["out"] = None


def _card_note(named: str) -> str:
    """A sentence when ``profile=`` or the session names another card than the one graded on."""
    try:
        mine = umkit.sim_profile().name if umkit.backend_name() == "sim" else ""
    except Exception:  # noqa: BLE001 - a note never fails a check
        mine = ""
    if named != PROFILE:
        return (f" (graded on the notebook's card, {PROFILE}; the card you named, {named}, is not "
                "graded)")
    return (f" (graded on the notebook's card, {PROFILE}; your session models {mine})"
            if mine and mine != PROFILE else "")


def _grade_epoch_loop(fn, profile: str = PROFILE, size: tuple | None = None) -> Verdict | str:
    """Graded on notebook 06's card (:data:`PROFILE`) whatever ``profile=`` or the session says:
    on a card where nothing faults (XNACK off) or a prefetch moves nothing (an APU), the fault
    and prefetch counts the verdict reads say nothing about the loop.  Graded on ``size`` when
    one is given (to see a failure again) and always on a size drawn afresh: a fixed size never
    decides a pass on its own."""
    v = None
    note = _card_note(profile)
    for n_epochs in ([size] if size else []) + [draw()]:
        v = _grade_once(fn, PROFILE, n_epochs)
        if isinstance(v, str):
            return (tr(v) if note else v) + note     # translated before the note wraps it
    if note:
        v.message += note
    return v


def _grade_once(fn, profile: str, size: tuple) -> Verdict | str:
    n, epochs = size
    bump = rng_option(None).randrange(1, epochs) if epochs > 1 else None
    with sim_sandbox(profile=profile) as b, warnings.catch_warnings(record=True) as caught, \
            counting_frees() as frees, _watching_out(b, bump) as seen:
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
    batches = seen["batches"][-epochs:] if seen["kernels"] >= epochs else []
    for e, (a_mean, _, _) in enumerate(batches):
        if not close_to(a_mean, e + 1.0):
            last = next((k for k in range(e) if close_to(a_mean, k + 1.0)), None)
            held = (f"still the batch of epoch {last}" if last is not None else
                    f"{a_mean:g} on average, no epoch's batch")
            return (f"called with n={n}, {epochs} epochs: the kernel of epoch {e} added the a it "
                    f"found -- {held}. Each epoch's kernel must add that epoch's batch: what "
                    "reaches a between two kernels, and when?")
    if seen["gpu_batches"]:
        return (f"called with n={n}, {epochs} epochs: the batches hold the right values, but "
                f"before {seen['gpu_batches']} of the {epochs} kernels the batch was made on the "
                "GPU, not loaded from the host. In this loop the batch comes from the CPU (a data "
                "loader reading disk), so its pages start on the host each epoch -- the move the "
                "loop must handle. Write each epoch's batch from the CPU.")
    if seen["kernels"] < epochs or seen["unread"]:
        return ("the sums did not come from `out`: after "
                f"{max(seen['unread'], epochs - seen['kernels'])} of the {epochs} kernels the CPU "
                "never read all of `out` before the next one (taking out.host and reading "
                "nothing of it, or one part of it again and again, is no read of it all). Each "
                "epoch's sum must be the CPU reading what add_kernel wrote (umkit.add(out, a, b, "
                "...), then a sum over out.host or over umkit.read_back(out)). A read through "
                "np.asarray(out.host) or out.host.view(np.ndarray) leaves umkit's view: the "
                "simulator does not see it, so read out.host itself.")
    bad = [i for i, x in enumerate(sums) if not close_to(x, batches[i][2])] if batches else []
    if bad:
        e = bad[0]
        return (f"called with n={n}: epoch {e}'s sum is {sums[e]:g}, but the kernel of that "
                f"epoch wrote {batches[e][2]:g} into out: each sum is what the CPU reads back "
                "from out after that epoch's kernel.")
    want = [b[2] for b in batches] or [0.0]
    if c.get("prefetch_bytes_h2d", 0) == 0:
        return (f"the sums are right, but nothing was prefetched: {c.get('gpu_faults', 0)} GPU "
                "page faults did the moving.")
    if c.get("gpu_faults", 0):
        return (f"you prefetch, but the kernel still took {c['gpu_faults']} GPU page faults: "
                "some array the kernel touches was not on the GPU when it ran -- one the CPU "
                "touched since the last kernel, or one nothing has touched yet (its pages are "
                "made where it is first touched).")
    if frees["made"] > 3:
        return (f"your function allocated {frees['made']} managed arrays for its three: "
                "allocate a, b and out once, before the loop -- each allocation is a "
                "hipMallocManaged, and pages the CPU fills in a new array must move to the GPU "
                "again.")
    # what the loop must move to the GPU at most: b once, and each epoch the batch in a and out
    # (which the CPU's sum pulled home; read back by copy, it stays and moves less)
    need = 4 * n * (1 + 2 * epochs)
    if c.get("bytes_h2d", 0) > need:
        return (f"no GPU faults, but {c['bytes_h2d'] >> 10} KiB went to the GPU where this loop "
                f"needs at most {need >> 10} KiB: something sent an array off the GPU that "
                "nothing required to leave, and it had to come back. Which arrays must leave "
                "VRAM between two kernels, and why?")
    if seen["idle"]:
        return (f"no GPU faults, but {seen['idle']} of your {seen['prefetches']} prefetch calls "
                "moved nothing: every page of the array was already in VRAM (on a real card such "
                "a call still reaches the driver: the note under section 1's table). Before "
                "each prefetch ask: did anything move this array off the GPU since the kernel "
                "last used it?")
    if left:
        return (f"{len(left)} managed array(s) ({sum(a.nbytes for a in left)} B) are still "
                "allocated when your function returns.")
    if frees["freed"] < frees["made"]:
        return (f"your function allocated {frees['made']} managed arrays and freed "
                f"{frees['freed']} of them itself: free each one when you are done with it "
                "(x.free(), or `with umkit.managed(n) as x:`). Python frees the rest when the "
                "function returns, but in a long training loop that is too late -- the memory "
                "stays allocated until then (§4.2).")
    return passed(f"n={n}, {epochs} epochs on {profile}: sums {want[0]:g} to {want[-1]:g}, read "
                  "from out, a batch loaded every epoch, no GPU faults, no prefetch that moved "
                  f"nothing, no race, nothing leaked ({seen['prefetches']} prefetch calls, "
                  f"{c.get('prefetch_bytes_h2d', 0) >> 10} KiB prefetched, "
                  f"{c.get('cpu_faults', 0)} CPU faults).")


def _setup(profile: str = PROFILE, size=None) -> dict:
    if size is not None:
        n, epochs = (integer_option(v, k, lo=lo, hi=hi, hint=h) for v, k, lo, hi, h in (
            (size[0], "n", 1, 1 << 22, "a size in floats"),
            (size[1], "epochs", 1, 64, "a number of epochs")))
        size = (n, epochs)
    return {"profile": profile_option(profile), "size": size}


EPOCH_LOOP = Exercise(
    why_terms=('prefetch', 'inhale', 'before the kernel', 'cpu touched', 'back to the host',
               'synchron', 'stream', 'free', '预取', '吸气', '内核之前', '主机', '同步', '流', '释放'),
    name="nb06.epoch_loop", argument="my_epoch_loop", kind="function", concept=CONCEPT,
    answer=_ANSWER,
    none="{argument} is still None: define def my_epoch_loop(n, epochs): ... and pass the "
         "function itself (no parentheses).",
    wrong_type="pass the function itself, not {type} (no parentheses).",
    call="your function", raised="{call} raised {error}", grader=_grade_epoch_loop,
    setup=_setup)


@tiered
def check_epoch_loop(fn, profile: str = PROFILE, size=None) -> Verdict:
    """``fn(n, epochs)``: allocate managed ``a``, ``b``, ``out`` of ``n`` floats, fill ``b`` with 2.0
    on the CPU, then each epoch ``e``: the CPU loads the epoch's batch (``a`` filled with
    ``e + 1.0``), prefetch, ``umkit.add(out, a, b)``, synchronize, sum ``out`` on the CPU.  Return
    the list of per-epoch sums; free the arrays.

    The check calls ``fn`` with an ``n`` and a number of epochs drawn afresh each time (``size=(n,
    epochs)`` grades that size first, to see a failure again; a drawn one is graded too) on the
    sim profile of notebook 06, the MI250X (:data:`PROFILE`), whatever ``profile`` names: a
    card where nothing faults or a prefetch moves nothing would say nothing about the loop.  At an epoch it does not announce,
    the check adds 1.0 to ``b`` on the GPU (as an optimizer would), so only sums read from ``out``
    are right.  Passes when each epoch's kernel
    added that epoch's batch, the sums are what the CPU read from ``out`` after each kernel,
    nothing raced, every
    array the kernel touches was resident before it ran (no GPU page faults at all), no prefetch
    was sent for an array already wholly in VRAM (it moves nothing; on a real card the call still
    reaches the driver), no more than three managed arrays were made, no more bytes went to the GPU
    than the loop needs, and
    nothing is left allocated."""
    return check(EPOCH_LOOP, fn, profile=profile, size=size)
