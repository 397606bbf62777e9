"""Checks for notebook 05 -- concurrent access and ping-pong (乒乓), the article's §4.3 and §5.1.

Every check runs its experiment on a private simulator (the notebook's card, the MI250X with XNACK
on, unless ``profile=`` names another; model time), so the verdict is the same on a laptop, on
Binder and on a real GPU, and the backend you were using is restored afterwards.  What the
learner's answer must work on changes per check (the statistic's period, the data the statistic
reads), so a constant or a call counter cannot pass.
"""
from __future__ import annotations


import numpy as np

import umkit

from ...runtime.lang import Localized
from .grading import (Exercise, Verdict, check, check_seed, close_to, failed, one_more, owe_one_more,
                     opening_rng, passed, profile_option, raised, rng_option, settle_one_more,
                     sim_sandbox, tests_only, tiered)

STEPS = 30
NBYTES = 64 << 20
EVERY = 10
FLAT_MAX_OVER_MEDIAN = 3.0      # the memory ECG's rule (umkit.ecg.SPIKY) ...
SPIKE_MS = 1.0                  # ... and a spike at least this long (umkit.ecg.SPIKE_MS)
SLOW_FACTOR = 4.0               # the fix may cost at most this much over all-device memory


def _spiky(ms) -> tuple[bool, int, float, float]:
    """The memory ECG's verdict on the steady state: step 0 (warm-up: allocation and first
    touches) is left out, as ``RunResult.summary()`` and ``umkit.ecg`` do."""
    t = np.asarray(ms, dtype=float)
    first = 1 if t.size > 1 else 0
    steady = t[first:]
    med = float(np.median(steady))
    k = first + int(np.argmax(steady))
    peak = float(t[k])
    return (med > 0 and peak / med > FLAT_MAX_OVER_MEDIAN and peak - med > SPIKE_MS), k, peak, med


# -- exercise 1: fix the optimizer-statistics ping-pong ---------------------------------------------
_FIX_CONCEPT = ("§4.3: the spikes come from *where the parameters live*, not from how they are "
                "moved: as long as the CPU's statistic touches GPU-resident managed pages, the "
                "driver migrates them back (on the MI250X model and on the H200 alike, whatever "
                "the placement advice; on the H200 read-mostly makes the CPU read a copy instead, on "
                "AMD it is only a flag). Split the buffers by access frequency: what the GPU uses "
                "every step "
                "in one kind of memory, the CPU's helper data in another")
_FIX_ANSWER = ("workloads.Strategy('split', memory='mixed', prefetch='gpu', advice='none'): "
               "parameters in device memory (hipMalloc), the statistic computed on the GPU, only "
               "the batch managed and prefetched")
FIX_EVERY = (5, 7, 10, 12)      # the CPU statistic's period, drawn per check
#: notebook 05's card: its checks grade there whatever ``profile=`` says (another card is graded too)
NOTEBOOK_PROFILE = "mi250x-xnack1"


def _fix_setup(profile: str = "mi250x-xnack1") -> dict:
    return dict(profile=profile_option(profile), every=rng_option(None, "nb05.pingpong_fix").choice(FIX_EVERY))


def _grade_fix(strategy, profile: str, every: int) -> Verdict | str:
    """Graded on notebook 05's card first; a ``profile=`` naming another card is graded too, and
    both must pass (on an APU or a card whose CPU reads VRAM in place, plain managed memory does
    not ping-pong)."""
    v = None
    for card in dict.fromkeys((STAT_PROFILE, profile)):
        v = _grade_fix_on(strategy, card, every)
        if isinstance(v, str):
            return _on_card(v, card, profile)
    return v


def _on_card(message: str, card: str, named: str) -> str:
    """A failure on ``card``, said with the card when the learner named another (``named``)."""
    if card != NOTEBOOK_PROFILE:
        return f"on {card} (the card you named): {message}"
    if named != NOTEBOOK_PROFILE:
        return f"on {card} (this notebook's card): {message}"
    return message


def _grade_fix_on(strategy, profile: str, every: int) -> Verdict | str:
    workloads = umkit.workloads
    if isinstance(strategy, str) or any(strategy is p for p in workloads.STRATEGIES.values()):
        return ("give a Strategy you built -- umkit.workloads.Strategy('my fix', memory=..., "
                "prefetch=..., advice=...) -- not the name of a preset: the exercise is choosing "
                "the three settings yourself")
    try:
        s = workloads.strategy(strategy)
    except umkit.UmkitError as e:
        return f"that is not a strategy: {raised(e)}"
    if s.memory == "device":
        return ("all-device memory does remove the ping-pong, but then every CPU-side use needs an "
                "explicit copy (or slow reads across the link on a ROCm large-BAR host): keep some "
                "data managed.")
    pattern = workloads.Pattern("cpu_stats", every)
    with sim_sandbox(profile=profile, compute=False):
        r = workloads.run(s, pattern, STEPS, NBYTES)
        ref = workloads.run("device", pattern, STEPS, NBYTES)
    spiky, k, peak, med = _spiky(r.step_ms)
    if spiky:
        c = r.steps[k].counters
        moved = c.get("bytes_d2h", 0) + c.get("bytes_h2d", 0)
        prefetched = c.get("prefetch_bytes_h2d", 0)
        if prefetched and not (c.get("cpu_faults") or c.get("gpu_faults")):
            before = r.steps[k - 1].counters if k else {}
            return (f"still spiky: step {k} takes {peak:.2f} ms against a median of {med:.3f} ms "
                    f"({peak / med:.0f}x). On that step your prefetch moved {prefetched >> 20} MiB "
                    "back into VRAM: on the step before, the CPU statistic pulled the parameters' "
                    f"pages to the host ({before.get('cpu_faults', 0)} CPU faults), so each "
                    "statistic costs a prefetch back.")
        return (f"still spiky: step {k} takes {peak:.2f} ms against a median of {med:.3f} ms "
                f"({peak / med:.0f}x). On that step {moved >> 20} MiB moved "
                f"(cpu_faults={c.get('cpu_faults', 0)}, gpu_faults={c.get('gpu_faults', 0)}): "
                "the CPU statistic still pulls the parameters' pages back to the host and the "
                "next kernel faults them in again.")
    total, ref_total = sum(r.step_ms), sum(ref.step_ms)
    if total > SLOW_FACTOR * ref_total:
        remote = r.counters.get("remote_bytes", 0)
        held = ("pinned memory never migrates" if s.memory == "pinned" else
                "advice that prefers the CPU keeps those pages in host memory")
        why = (f" Every step read {remote / STEPS / 2**20:.0f} MiB over the CPU-GPU link "
               f"(remote_bytes): {held}, so the GPU never gets a local copy."
               if remote else
               " Every step moves pages back to the host (prefetch 'gpu+back') and the next step "
               "brings them in again." if s.prefetch == "gpu+back" else "")
        return (f"flat, but slow: {STEPS} steps take {total:.2f} ms, {total / ref_total:.1f}x "
                f"all-device memory ({ref_total:.2f} ms).{why}")
    return passed(f"flat and fast on {profile} (a CPU statistic every {every} steps): {STEPS} "
                  f"steps in {total:.2f} ms ({total / ref_total:.1f}x all-device memory); after "
                  f"the warm-up step the worst step is {peak:.2f} ms against a median of "
                  f"{med:.3f} ms, no spike. Now say why: which buffer no longer moves, and why "
                  "does the CPU's statistic not pull it back?")


PINGPONG_FIX = Exercise(
    why_terms=('split', 'device memory', 'access frequency', 'migrat', 'ping', 'statistic', '拆分',
               '设备内存', '访问频率', '迁移', '乒乓', '统计'),
    name="nb05.pingpong_fix", argument="my_fix", kind="choice", concept=_FIX_CONCEPT,
    answer=_FIX_ANSWER,
    none=lambda **_: ("my_fix is still None. Build a Strategy: "
                      "umkit.workloads.Strategy('my fix', memory=..., prefetch=..., advice=...)"),
    setup=_fix_setup, grader=_grade_fix)


@tiered
def check_pingpong_fix(strategy, profile: str = "mi250x-xnack1") -> Verdict:
    """``strategy``: a ``umkit.workloads.Strategy`` the learner built (a preset's name is refused)
    that removes the spikes of a ``cpu_stats`` run -- the statistic's period drawn per check --
    while keeping some data managed, on a private simulator of notebook 05's card and, when
    ``profile`` names another, of that card too (both must pass)."""
    return check(PINGPONG_FIX, strategy, profile=profile)


# -- exercise 2: sharing memory between processes -----------------------------------------------------
#: every option the question draws from, by a fixed id; two of them work (``_IPC_WORKS``).  Some
#: wrong ones name IPC handles or mmap too, so matching the words of umkit.explain's "share memory
#: with IPC ... or a file mapping" does not pass: each option's mechanism has to be followed
_IPC_POOL = {
    "managed_ptr": "Send the hipMallocManaged pointer value to process B (a pipe, a socket) and use it "
                   "there.",
    "ipc_handle": "Allocate with hipMalloc, export it with hipIpcGetMemHandle, send the handle, and open "
                  "it in process B with hipIpcOpenMemHandle.",
    "handle_cast": "Allocate with hipMalloc, export it with hipIpcGetMemHandle, send the handle, and in "
                   "process B use the handle's bytes as a device pointer without opening it.",
    "file_map": "Put the data in a file (or shared memory) that both processes map with mmap, and let each "
                "process copy what it needs to its own GPU memory.",
    "mmap_addr": "mmap a file in process A only, send the address mmap returned to process B, and copy "
                 "from that address there.",
    "prefetch_b": "Send the managed pointer, and have process B call hipMemPrefetchAsync(ptr, bytes, 0, s) "
                  "before using it so that the pages get mapped in B.",
    "sync_both": "Send the managed pointer and call hipDeviceSynchronize in both processes first.",
    "device_ptr": "Allocate with hipMalloc and send that pointer value itself (not a handle) to process B "
                  "to use there.",
    "ipc_handle_b": "In process A, take an IPC handle of a hipMalloc buffer (hipIpcGetMemHandle) and pass "
                    "the handle over a socket; process B calls hipIpcOpenMemHandle on it and uses the "
                    "pointer that call returns.",
    "open_in_a": "Allocate with hipMalloc, take its handle with hipIpcGetMemHandle, open it with "
                 "hipIpcOpenMemHandle in process A itself, and send the pointer that call returns to "
                 "process B.",
    "shm_copy": "Process A writes the data into a /dev/shm object; process B maps the same object with "
                "mmap and copies from its own mapping into a buffer it allocated on its GPU.",
    "shm_addr": "Both processes map the same /dev/shm object with mmap; process A sends the address of "
                "its mapping to process B, which copies from that address.",
    "pipe_bytes": "Process A copies the data to host memory and writes the bytes themselves into a pipe; "
                  "process B reads them and copies them into a buffer it allocated on its GPU.",
    "pipe_ptr": "Process A copies the data to host memory and writes the address of that host buffer "
                "into a pipe; process B copies from that address to its GPU.",
}
#: the options that work: two mechanisms (a handle the runtime opens in B; data B reaches through
#: its own mapping or receives as bytes), each in more than one wording
_IPC_WORKS = ("ipc_handle", "file_map", "ipc_handle_b", "shm_copy", "pipe_bytes")
_IPC_WHY = {
    "managed_ptr": "a virtual address is only meaningful inside the process that made it: process B's "
                   "page tables have nothing at that address (the column's HSA_STATUS_ERROR_INVALID_MEMORY, "
                   "§5.1; ROCm reports a memory-access fault or the process gets SIGSEGV)",
    "prefetch_b": "prefetch moves pages of a range this process owns; in process B the range doesn't "
                  "exist",
    "sync_both": "synchronizing orders work inside one process; it doesn't create a mapping in another",
    "ipc_handle": "IPC handles are how the runtime shares device memory between processes (managed "
                  "memory can't be exported this way: allocate the shared buffer with hipMalloc)",
    "file_map": "a file or shared-memory mapping is the other route the article names (§4.3)",
    "handle_cast": "a handle is not an address: only hipIpcOpenMemHandle maps the memory into process B "
                   "and gives it a pointer of its own",
    "mmap_addr": "the address mmap returned is process A's: process B has mapped nothing there",
    "device_ptr": "a hipMalloc pointer is a virtual address of process A too: process B's page tables "
                  "have nothing at that address",
    "ipc_handle_b": "the handle is opened where it is used: hipIpcOpenMemHandle in process B maps the "
                    "buffer there and returns B's own pointer to it",
    # ledger amd.ipc.open_fail (ROCm/clr hip_memory.cpp, hipIpcOpenMemHandle): hipErrorInvalidContext
    # in the process that created the handle
    "open_in_a": "in the process that made the handle, hipIpcOpenMemHandle opens nothing (it returns "
                 "hipErrorInvalidContext, ledger: amd.ipc.open_fail); and a pointer of process A is an "
                 "address of A: B's page tables have nothing there",
    "shm_copy": "B reads the shared object through its own mapping, at the address its own mmap "
                "returned, and copies to its own GPU memory",
    "shm_addr": "each process maps the object at an address of its own: A's address means nothing in "
                "B, which must use what its own mmap returned",
    "pipe_bytes": "the bytes themselves travel, not an address: B puts them into memory it allocated "
                  "itself",
    "pipe_ptr": "the address of A's host buffer is A's: only the bytes can cross to another process "
                "through a pipe, not the memory behind an address",
}
#: the first question, as notebook 05 prints it: letter -> option id.  Its options are not the
#: wordings the notebook's text below the exercise uses, and each mechanism that works has a
#: look-alike that does not (a handle opened in the wrong process, a mapping's address sent)
_IPC_FIRST = {"a": "managed_ptr", "b": "ipc_handle_b", "c": "open_in_a", "d": "shm_copy",
              "e": "shm_addr"}
#: the options of the question now open, letter -> text (the learner's language): the first
#: question until an answer to it is graded wrong; then a new one, drawn afresh -- the two that
#: work and three others, in a new order -- so a set of letters found by trying cannot be tried
#: on again
IPC_OPTIONS = Localized()
_IPC_NOW: dict = {}


def _ipc_set(ids: dict) -> None:
    _IPC_NOW.clear()
    _IPC_NOW.update(ids)
    IPC_OPTIONS.clear()
    for k, v in ids.items():                 # the English texts; Localized reads them translated
        dict.__setitem__(IPC_OPTIONS, k, _IPC_POOL[v])


def _ipc_new_question(rng=None) -> dict:
    """Draw the next question (one to three options that work, the rest of the five from those that
    don't, shuffled) and return :data:`IPC_OPTIONS`, which now holds it."""
    rng = rng_option(rng, "nb05.ipc")
    k = rng.randint(1, 3)
    ids = (rng.sample(sorted(_IPC_WORKS), k)
           + rng.sample(sorted(set(_IPC_POOL) - set(_IPC_WORKS)), 5 - k))
    rng.shuffle(ids)
    _ipc_set(dict(zip("abcde", ids)))
    return IPC_OPTIONS


def ipc_first_question() -> dict:
    """Put the first question (the notebook's) back -- in the project's tests only
    (:func:`~umkit.teaching.exercises.tests_only`); returns :data:`IPC_OPTIONS`."""
    tests_only("ipc_first_question()")
    _ipc_set(dict(_IPC_FIRST))
    return IPC_OPTIONS


def _ipc_opening() -> None:
    """The question a process opens with: the notebook's where the attempts budget is off, else
    one drawn afresh (:func:`~umkit.teaching.exercises.opening_rng`)."""
    rng = opening_rng("nb05.ipc")
    if rng is None:
        _ipc_set(dict(_IPC_FIRST))
    else:
        _ipc_new_question(rng)


_ipc_opening()


def _ipc_right() -> set:
    return {k for k, v in _IPC_NOW.items() if v in _IPC_WORKS}


IPC_CONCEPT = ("§4.3 and §5.1: a managed pointer is a virtual address in one process's page "
               "tables; another process needs the runtime's IPC handles or a mapping the operating "
               "system shares (a file, shared memory)")


def _ipc_answer(**_) -> str:
    """The answer of the question now open.  Its sentences are put in the learner's language one
    by one (a whole answer of parts joined by "; " is more than the catalogue's patterns take)."""
    from ...runtime.lang import tr
    right = sorted(_ipc_right())
    others = sorted(set(_IPC_NOW) - set(right))
    parts = ["For the question now open (print nb05.IPC_OPTIONS to see its options):",
             f"Options that work: {' and '.join(right)} -- "
             + "; ".join(_IPC_WHY[_IPC_NOW[k]] for k in right) + ".", "The others don't:"]
    parts += [f"({k}) {_IPC_WHY[_IPC_NOW[k]]}" for k in others]
    return " ".join(tr(p) for p in parts)


def _grade_ipc(answer) -> Verdict | str:
    if isinstance(answer, str):
        words = answer.replace(",", " ").split()
        if len(words) == 1 and len(words[0]) > 1 and set(words[0].lower()) <= set(IPC_OPTIONS):
            words = list(words[0])           # "bd": the letters written together
        answer = set(words) if words else {answer}
    try:
        got = {str(x).strip().lower() for x in answer}
    except Exception:  # noqa: BLE001 - the learner's object: grade it, don't crash
        return f"give a set of letters such as {{'a'}}, not {answer!r}"
    unknown = got - set(IPC_OPTIONS)
    if unknown:
        return f"{sorted(unknown)} are not options: choose among {sorted(IPC_OPTIONS)}"
    right = _ipc_right()
    if got != right:
        # the set is graded as a whole (no count, no letter), and the question is drawn again:
        # a set found by flipping letters cannot be tried on the same options twice; and the next
        # right answer must be followed by one more (a letter kept while questions are redrawn)
        owe_one_more("nb05.ipc")
        _ipc_new_question()
        shown = _ipc_answer()          # the answer of the question now open, not of the old one
        return failed("that set is not the one. For each option you chose, ask whether process "
                      "B's page tables would know the address it uses; for each you left out, "
                      "whether it could work after all. The options are drawn again (new letters, "
                      "some new options): run the cell again to print them, and answer those",
                      IPC_CONCEPT, shown)
    if settle_one_more("nb05.ipc"):
        _ipc_new_question()
        return one_more(IPC_CONCEPT, _ipc_answer())
    return passed(f"Options that work: {' and '.join(sorted(right))} -- "
                  + "; ".join(_IPC_WHY[_IPC_NOW[k]] for k in sorted(right)) + ".")


IPC = Exercise(
    why_terms=('process', 'address', 'page table', 'handle', 'ipc', 'mmap', 'mapping',
               'shared memory', '进程', '地址', '页表', '句柄', '映射', '共享内存'),
    name="nb05.ipc", argument="ipc_answer", kind="choice", concept=IPC_CONCEPT,
    answer=_ipc_answer,
    none="{argument} is still None: give the set of letters that work, e.g. {{'x', 'y'}} "
         "(read nb05.IPC_OPTIONS).",
    grader=_grade_ipc)


@tiered
def check_ipc(answer) -> Verdict:
    """``answer``: the set of letters of :data:`IPC_OPTIONS` (the question now open) that work.
    A wrong set draws a new question into :data:`IPC_OPTIONS` (a kernel restart opens a new one
    too: :func:`~umkit.teaching.exercises.opening_rng`)."""
    return check(IPC, answer)


# -- exercise 3 (write code): the CPU's statistic, without the ping-pong --------------------------------
STAT_MIB = 48            # the parameters: 48 MiB of managed float32, updated by the GPU every step
STAT_STEPS = 30
STAT_EVERY = 10
STAT_STRIDE = 16384      # the statistic samples one float every 64 KiB


STAT_CONCEPT = ("§4.3 and section 3: on this card (VRAM the CPU cannot map) whatever reads the "
                "parameters on the CPU makes the driver migrate them to the host. Let the GPU "
                "compute the statistic where the data lives, and bring back only the number: beside "
                "its .host view an array has a GPU view (notebook 03 sliced it): a slice of that "
                "view stays on the GPU, .mean() on it is a GPU reduction, and float(...) copies "
                "back only the 4-byte result")
_STAT_ANSWER = ("def statistic(params):\n"
               "    return float(params.device[::16384].mean())   # a GPU reduction; only the "
               "scalar crosses the link")


#: the card the statistic is graded on whatever ``profile=`` says: notebook 05's own
STAT_PROFILE = NOTEBOOK_PROFILE


def _grade_statistic(fn, profile: str) -> Verdict | str:
    """Graded on notebook 05's card first; a ``profile=`` naming another card is graded too, and
    both must pass (on a card where the CPU reads VRAM in place a host read does not spike)."""
    for card in dict.fromkeys((STAT_PROFILE, profile)):
        v = _grade_statistic_on(fn, card)
        if isinstance(v, str):
            return _on_card(v, card, profile)
    return v


def _grade_statistic_on(fn, profile: str) -> Verdict | str:
    n = (STAT_MIB << 20) // 4
    rng = np.random.default_rng(check_seed())
    start = rng.uniform(0.0, 4.0, n).astype(np.float32)     # the parameters: new every check;
    k = start[::STAT_STRIDE].size                             # the sampled floats apart from the
    base, spread = rng.uniform(4.0, 8.0), rng.uniform(2.0, 4.0)   # rest and spread out, in an
    order = rng.permutation(k)                                # order drawn too -- the first one
    if abs(order[0] / (k - 1) - 0.5) < 0.1:                   # never near their mean (one float
        low = int(np.argmin(order))                           # read is no sample)
        order[[0, low]] = order[[low, 0]]
    start[::STAT_STRIDE] = base + spread * order / (k - 1)
    updates = rng.integers(1, 4, STAT_STEPS)                 # 1-3 GPU updates a step, drawn too
    want_base = float(start[::STAT_STRIDE].astype(np.float64).mean())
    ms, wrong, moved, done = [], [], 0, 0
    with sim_sandbox(profile=profile):
        params = umkit.managed(n)
        try:
            s = umkit.Stream()
            params.host[:] = start
            for step in range(STAT_STEPS):
                c0 = umkit.counters()
                t0 = umkit.now()
                for _ in range(int(updates[step])):
                    umkit.increment(params, stream=s)   # the GPU's update: forward + backward
                done += int(updates[step])
                s.synchronize()
                if step % STAT_EVERY == STAT_EVERY - 1:
                    got = fn(params)
                    want = want_base + done
                    try:
                        if not close_to(float(got), want):
                            wrong.append((step, got, want))
                    except (TypeError, ValueError, OverflowError):
                        return f"statistic(params) returned {got!r}; return a float"
                umkit.synchronize()
                ms.append((umkit.now() - t0) * 1e3)
                c1 = umkit.counters()
                moved += (c1.get("bytes_d2h", 0) - c0.get("bytes_d2h", 0))
        finally:
            params.free()
    if wrong:
        step, got, want = wrong[0]
        return (f"at step {step} your statistic returned {got!r}, the mean of the sample is "
                f"{want:.4g}: sample one float every 64 KiB (a stride of {STAT_STRIDE} floats) "
                "of the array as it is now, and average it")
    per_step = np.asarray(ms) / updates[:len(ms)]            # a step's time per GPU update
    spiky, k, peak, med = _spiky(per_step)
    if spiky:
        return (f"right values, but the curve is spiky: some steps take more than "
                f"{FLAT_MAX_OVER_MEDIAN:.0f}x the median step per GPU update (the memory ECG's "
                f"rule); {moved >> 20} MiB went to the host over the run")
    return passed(f"right values and a flat curve on {profile}: worst step {peak:.3f} ms per "
                  f"update against a median of {med:.3f} ms; {moved >> 20} MiB went to the host. "
                  "The statistic ran where the data lives, and only a number crossed the link.")


STATISTIC = Exercise(
    why_terms=('on the gpu', 'where the data', 'reduction', 'migrat', 'link', 'cpu read', 'host',
               'scalar', '在 gpu', '数据所在', '归约', '迁移', '链路', '主机', '标量'),
    name="nb05.statistic", argument="statistic", kind="function", concept=STAT_CONCEPT,
    answer=_STAT_ANSWER,
    none="{argument} is None: write def statistic(params): ... and return a float",
    wrong_type="{argument} should be a function of the array, got {type}",
    call="statistic(params)", raised="{call} raised {error}",
    setup=lambda profile: dict(profile=profile_option(profile)), grader=_grade_statistic)


@tiered
def check_statistic(fn, profile: str = "mi250x-xnack1") -> Verdict:
    """``fn(params)``: return the mean of ``params[::16384]`` (one float every 64 KiB) as a float.
    ``params`` is a managed array whose values are drawn afresh on every check and that the GPU
    updates one to three times a step (``umkit.increment``; the count is drawn too).  The check
    runs STAT_STEPS steps on a private simulator of ``profile``, calls ``fn`` every STAT_EVERY-th
    step, and passes when every value is right and the memory ECG's rule finds the step-time
    curve flat (no spike: max/median <= 3, or the worst step less than 1 ms above the median).
    It always grades on notebook 05's card (:data:`STAT_PROFILE`); another ``profile`` is graded
    as well, and both must pass."""
    return check(STATISTIC, fn, profile=profile)
