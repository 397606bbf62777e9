"""Checks for notebook 02 (allocation): pick the allocator for each buffer (§3.4, §4.4, §6)."""
from __future__ import annotations

import numpy as np

import umkit

from . import (Exercise, Labels, Verdict, check, float32_option, function_option, passed,
               rng_option, sim_sandbox, tiered)

#: buffer -> (the allocator the article recommends, why)
BUFFERS = {
    "weights": ("device", "hot weights are read and written every step and live all training "
                          "long: hipMalloc + explicit copies is the most controllable (§3.4, §6.1 "
                          "'the heart')"),
    "checkpoint": ("managed", "a snapshot of the weights the CPU writes to disk every few thousand "
                              "steps: managed memory, prefetched to the host before the CPU reads "
                              "it (the column's choice, §3.4), is the answer; pinned host memory "
                              "with an explicit async copy is also right; device-only memory is "
                              "wrong (the CPU must read it)"),
    "epoch_preprocessing": ("managed", "offline-preprocessed epoch data is prepared on the CPU "
                                       "and consumed once per epoch: the author's managed-memory "
                                       "case (§3.4), prefetched before each epoch (§3.2)"),
    "lr_schedule": ("pinned", "small data the CPU updates often and the GPU only glances at: "
                              "hipHostMalloc, zero-copy over the link with no migration jitter "
                              "(§4.4)"),
    "request_pool": ("device", "latency-critical inference buffers: a pre-allocated hipMalloc "
                               "pool, because a burst of migrations at peak load is exactly what "
                               "must not happen (§6.3)"),
    "vocab": ("pageable", "a tokenizer vocabulary only the CPU data loader reads; no kernel ever "
                          "touches it: ordinary pageable host memory (malloc / new / NumPy) -- "
                          "pinning or managing it buys nothing"),
}
#: buffer -> every allocator accepted (the one above first); one rule for the checkpoint buffer
#: in every notebook: managed + prefetch to the host, or pinned + an explicit async copy
ACCEPTED = {k: {want} for k, (want, _) in BUFFERS.items()} | {"checkpoint": {"managed", "pinned"}}
_ALIASES = {"device": "device", "hipmalloc": "device", "cudamalloc": "device",
            "device_array": "device", "managed": "managed", "hipmallocmanaged": "managed",
            "cudamallocmanaged": "managed", "unified": "managed", "pinned": "pinned",
            "hiphostmalloc": "pinned", "cudamallochost": "pinned", "pageable": "pageable",
            "malloc": "pageable", "new": "pageable", "numpy": "pageable", "system": "pageable"}
_CONCEPT = ("ask of each buffer: who touches it (CPU, GPU, both), how often, and for how long "
            "(§3.4 table, §4.4 pinned memory, §6.1 'the heart', §6.3 the inference service); "
            "the allocator follows from its access owner and lifetime (§7)")


#: buffer -> the question to ask of it (tier 2: the concept, not the answer)
_QUESTION = {
    "weights": "who reads and writes it, how often, and for how long? (§3.4, §6.1 'the heart')",
    "checkpoint": "how often is it touched, and who must read it to save it? (§3.4: the author's "
                  "own practice)",
    "epoch_preprocessing": "who prepares it, who consumes it, and how often? (§3.4, §3.2)",
    "lr_schedule": "how big is it, who writes it, and how often does the GPU look at it? (§4.4)",
    "request_pool": "what matters most for it: convenience or predictable latency at peak? (§6.3)",
    "vocab": "does any kernel ever touch it? (a buffer only the CPU uses)",
}


ALLOCATORS = Exercise(
    why_terms=('who touches', 'how often', 'every step', 'migrat', 'pinned', 'device memory',
               'managed', '访问', '每一步', '迁移', '固定内存', '设备内存', '托管'),
    name="nb02.allocators", argument="choice", kind="labels", concept=_CONCEPT,
    wrong_type="{argument} should be a dict like {{'weights': 'device', ...}}, got {type}",
    labels=Labels(
        right=ACCEPTED,
        lines={k: f"{k} -> {want}: {why}" for k, (want, why) in BUFFERS.items()},
        label=lambda v: _ALIASES.get(str(v).strip().lower().replace(" ", "")),
        partial=True,
        unknown="unknown buffers {unknown}: use the keys {items}",
        all_none="every choice is still None: write 'device', 'managed', 'pinned' or "
                 "'pageable' for each buffer",
        bad_label="{item}: {value!r} is not an allocator; use 'device', 'managed', 'pinned' or "
                  "'pageable'",
        # the set is graded whole (the framework's sentence); tier 2 asks every buffer's
        # question, pointing at none
        questions=_QUESTION, nudge="{concept}. Ask of every buffer -- {questions}",
        incomplete="still None: {missing}. Choose for every buffer; the set is graded whole"),
    passed="mix allocators by each buffer's access owner and lifetime (§7)"
           + ("" if all(w == "managed" for w, _ in BUFFERS.values()) else
              ": hot and latency-critical data in device memory, low-frequency data managed, "
              "small CPU-heavy data pinned, CPU-only data in plain pageable memory"))


@tiered
def check_allocators(choice) -> Verdict:
    """Exercise 02: ``choice`` maps each buffer of :data:`BUFFERS` to 'device' (hipMalloc),
    'managed' (hipMallocManaged), 'pinned' (hipHostMalloc) or 'pageable' (malloc)."""
    return check(ALLOCATORS, choice)


# -- exercise 2 (write code): load data the GPU will read again and again ---------------------------
LOAD_MIB = 32            # the data: about 32 MiB of float32 (24-40 MiB, drawn per attempt)
LOAD_READS = 8           # the GPU reads all of it this many times
LOAD_PROFILE = "mi250x-xnack1"
LOAD_BUDGET_MS = 10.0    # model time for load() + the reads, on LOAD_PROFILE


#: the largest ``data`` load_run takes (the exercise's own draws are at most LOAD_MIB + 8 MiB)
LOAD_MAX_MIB = 256


def load_run(fn, data=None):
    """Run ``fn(data)`` and LOAD_READS GPU reads on a private simulator of LOAD_PROFILE; returns
    ((model ms, the array's kind, counters), None, what the array holds) or (None, why, None)
    when ``fn`` returns no umkit array.  ``data``: a 1-D NumPy float32 array of at most
    LOAD_MAX_MIB MiB (default: a fresh draw of :func:`load_data`)."""
    if not callable(fn):
        function_option(fn, "fn")
    data = _load_data_option(data)
    with sim_sandbox(profile=LOAD_PROFILE):
        t0 = umkit.now()
        a = fn(data)
        if not isinstance(a, umkit.Array):
            return None, (f"load(data) returned {type(a).__name__}; return the umkit array the GPU "
                          "will read (umkit.device_array / managed / pinned)"), None
        sink = umkit.device_array(1)
        for _ in range(LOAD_READS):
            umkit.touch(a, 4, sink=sink)
        umkit.synchronize()
        ms = (umkit.now() - t0) * 1e3
        c = umkit.counters()
        back = umkit.read_back(a)
        kind = a.kind
    return (ms, kind, c), None, np.asarray(back)


LOAD_CONCEPT = ("the data is read 8 times by the GPU: where should it live, and what is the fastest "
                "way to get it there on this card? Compare the profile's prefetch_h2d_bw, "
                "pinned_h2d_bw and zero_copy_bw (§3.4: hot data in hipMalloc + explicit copies; "
                "notebook 00 reads a profile)")
LOAD_ANSWER = ("d = umkit.device_array(data.size); stage = umkit.pinned(data.size); "
               "stage.host[:] = data; umkit.copy(d, stage); umkit.synchronize(); "
               "stage.free(); return d  -- on the MI250X a hipMemcpy from pinned memory runs "
               "at 28 GB/s, a managed prefetch at 6 GB/s (Pearson, Frontier)")


def load_data(rng=None) -> np.ndarray:
    """One attempt's data: LOAD_MIB MiB give or take 8, of values drawn afresh (attempt_rng), so
    the returned array must hold what ``data`` holds -- not a pattern made up beside it.
    ``rng``: a ``random.Random`` (default: a fresh attempt_rng)."""
    rng = rng_option(rng, "nb02.load")
    mib = LOAD_MIB + rng.randrange(-8, 9)
    gen = np.random.default_rng(rng.getrandbits(64))
    return gen.standard_normal((mib << 20) // 4, dtype=np.float32)


def _load_data_option(data) -> np.ndarray:
    """load_run's ``data``: None draws it; else a non-empty 1-D float32 ndarray, or a typed
    error naming ``data``."""
    if data is None:
        return load_data(rng_option(None))
    return float32_option(data, "data", max_bytes=LOAD_MAX_MIB << 20,
                          hint="pass a 1-D NumPy float32 array, e.g. nb02.load_data(), or leave "
                               "data out")


def _grade_load(fn) -> Verdict | str:
    data = load_data()
    res, err, back = load_run(fn, data)
    if err:
        return err
    ms, kind, c = res
    if back.shape != data.shape or not np.array_equal(back.ravel(), data):
        return ("the array the GPU read does not hold the data: all of `data` must arrive "
                "in the array you return")
    if ms <= LOAD_BUDGET_MS:
        if kind == "device" and not c.get("bytes_h2d", 0):
            # d.host[:] = data: the CPU wrote the device memory through its host view (no copy
            # engine moved anything) -- say what happened, not "one explicit copy"
            how = ("the CPU wrote the data into device memory through its host view: no copy "
                   "ran, the model charged CPU writes to VRAM (the CPU access notebook 02 shows), "
                   "then every read at HBM speed. Would that still work on a card where the CPU "
                   "cannot touch device memory, and what would you write there?")
        else:
            how = ("one explicit copy at hipMemcpy speed, then every read at HBM speed (§3.4: "
                   "hot data in hipMalloc + explicit copies)")
        return passed(f"{ms:.2f} ms of model time on {LOAD_PROFILE} (budget {LOAD_BUDGET_MS:g} ms) "
                      f"with '{kind}' memory: " + how)
    parts = [f"{ms:.2f} ms of model time on {LOAD_PROFILE}, over the {LOAD_BUDGET_MS:g} ms budget "
             f"('{kind}' memory"]
    if c:
        parts.append(f"; {(c.get('bytes_h2d', 0)) >> 20} MiB migrated, "
                     f"{c.get('remote_bytes', 0) >> 20} MiB read over the link, "
                     f"{c.get('gpu_faults', 0)} GPU faults")
    parts.append(")")
    return "".join(parts)


LOAD = Exercise(
    why_terms=('copy', 'bandwidth', 'pinned', 'staging', 'fault', 'migrat', '拷贝', '带宽', '固定内存',
               '中转', '缺页', '迁移'),
    name="nb02.load", argument="load", kind="function", concept=LOAD_CONCEPT, answer=LOAD_ANSWER,
    none="{argument} is None: write def load(data): ... and return a umkit array",
    wrong_type="{argument} should be a function of the data, got {type}",
    call="load(data)", raised="{call} raised {error}", grader=_grade_load)


@tiered
def check_load(fn) -> Verdict:
    """Exercise 02b: ``fn(data)`` gets a NumPy float32 array of LOAD_MIB MiB and returns a umkit
    array holding the same values, which a GPU kernel then reads LOAD_READS times.  Passes when the
    values arrive intact and load + reads take at most LOAD_BUDGET_MS of model time on the
    LOAD_PROFILE (AMD MI250X, XNACK on)."""
    return check(LOAD, fn)
