"""Checks for notebook 02 (allocation): pick the allocator for each buffer (§3.4, §4.4, §6)."""
from __future__ import annotations

import numpy as np

import umkit

from . import nb07
from .grading import (Exercise, Verdict, check, float32_option, function_option, passed, rng_option,
                            sim_sandbox, tiered)

#: buffers only the CPU touches, for the fourth allocator (the rest of the bank is notebook 07's:
#: one rule for each kind of buffer in both notebooks)
_CPU_ONLY = {
    "vocab": (
        "the tokenizer's vocabulary, 50 MB, read only by the CPU data loader; no kernel touches it.",
        {"pageable"},
        "No kernel ever touches it: ordinary pageable host memory (malloc / new / NumPy). Pinning "
        "or managing it buys nothing and pinned pages are taken from the whole machine."),
    "sample_index": (
        "200 MB of file offsets the CPU data loader uses to find each sample on disk.", {"pageable"},
        "Only the CPU reads it: plain pageable memory. The GPU never sees it, so there is nothing "
        "to migrate, pin or copy."),
    "run_log": (
        "the text of the training log the CPU appends a line to every 100 steps.", {"pageable"},
        "CPU-only data: pageable host memory, like any Python string or NumPy array."),
}
#: the notebook's set, in its order
FIRST_SET = ("fc_weights", "checkpoint", "token_counts", "step_settings", "request_buffers", "vocab")
#: the buffers of the set now open, name -> description (in the learner's language); a wrong
#: set draws a new one (every set holds one buffer of each kind of answer)
ALLOCATOR_SET = nb07.PLACEMENT_SET.extended(
    "nb02.allocators", _CPU_ONLY, FIRST_SET,
    redrawn="{part_msg}. The buffers are drawn again: print nb02.BUFFERS to see the new set, and "
            "choose for those")
BUFFERS = ALLOCATOR_SET.items
_ALIASES = {"device": "device", "hipmalloc": "device", "cudamalloc": "device",
            "device_array": "device", "managed": "managed", "hipmallocmanaged": "managed",
            "cudamallocmanaged": "managed", "unified": "managed", "pinned": "pinned",
            "hiphostmalloc": "pinned", "cudamallochost": "pinned", "pageable": "pageable",
            "malloc": "pageable", "new": "pageable", "numpy": "pageable", "system": "pageable"}
_CONCEPT = ("ask of each buffer: who touches it (CPU, GPU, both), how often, and for how long "
            "(§3.4 table, §4.4 pinned memory, §6.1 'the heart', §6.3 the inference service); "
            "the allocator follows from its access owner and lifetime (§7)")
_LABELS = dict(
    label=lambda v: _ALIASES.get(str(v).strip().lower().replace(" ", "")),
    partial=True,
    unknown="unknown buffers {unknown}: use the keys {items}",
    all_none="every choice is still None: write 'device', 'managed', 'pinned' or 'pageable' for "
             "each buffer",
    bad_label="{item}: {value!r} is not an allocator; use 'device', 'managed', 'pinned' or "
              "'pageable'",
    # the set is graded whole (the framework's sentence); tier 2 is the concept: the questions
    # to ask of every buffer, pointing at none
    incomplete="still None: {missing}. Choose for every buffer; the set is graded whole")
_PASSED = ("mix allocators by each buffer's access owner and lifetime (§7): hot and "
           "latency-critical data in device memory, data both sides touch now and then managed, "
           "tiny data the CPU touches every step pinned, CPU-only data in plain pageable memory")



ALLOCATORS = Exercise(
    why_terms=('who touches', 'how often', 'every step', 'migrat', 'pinned', 'device memory',
               'managed', '访问', '每一步', '迁移', '固定内存', '设备内存', '托管'),
    name="nb02.allocators", argument="choice", kind="labels", concept=_CONCEPT,
    wrong_type="{argument} should be a dict like {{'fc_weights': 'device', ...}}, got {type}",
    **ALLOCATOR_SET.exercise_fields(_CONCEPT, _PASSED, **_LABELS))


@tiered
def check_allocators(choice) -> Verdict:
    """Exercise 02: ``choice`` maps each buffer of :data:`BUFFERS` (the set now open) to 'device'
    (hipMalloc), 'managed' (hipMallocManaged), 'pinned' (hipHostMalloc) or 'pageable' (malloc).
    A wrong set draws a new set of buffers into :data:`BUFFERS`."""
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
_LOAD_ANSWER = ("def load(data):\n"
               "    d = umkit.device_array(data.size)\n"
               "    stage = umkit.pinned(data.size)     # staged through pinned memory ...\n"
               "    stage.host[:] = data\n"
               "    umkit.copy(d, stage)                # ... one explicit copy into VRAM\n"
               "    umkit.synchronize()\n"
               "    stage.free()\n"
               "    return d\n"
               "# on the MI250X a hipMemcpyAsync from pinned memory runs at 26-28 GB/s, a managed\n"
               "# prefetch at about 5 (Pearson, Frontier: 26.5 and 5.0 GB/s at 32 MiB, 28.3 and 6.1\n"
               "# at 1 GiB). umkit.copy(d, data) straight from the NumPy array passes too, and is\n"
               "# faster in this model: the runtime copies pageable memory itself (by default ROCm/clr's\n"
               "# writeBuffer pins the source for the copy, or stages one of 1 MiB or less), while a\n"
               "# pinned buffer of yours costs its allocation (here about 0.1 ms per MiB, an\n"
               "# estimate) and pays off when you reuse it, load after load.")


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
    if kind == "device" and not c.get("bytes_h2d", 0):
        # d.host[:] = data: the CPU wrote device memory through its host view -- not one of the
        # exercise's allowed calls, and impossible where the CPU cannot map VRAM (CUDA on a PCIe
        # host, a ROCm host without a large BAR)
        return (f"the CPU wrote the data into device memory through its host view ({ms:.2f} ms of "
                f"model time on {LOAD_PROFILE}): that works only where the CPU can map VRAM, and "
                "it is not one of the allowed calls. Fill device memory the portable way: what "
                "moves host data into it?")
    if ms <= LOAD_BUDGET_MS:
        how = ("one explicit copy at hipMemcpy speed, then every read at HBM speed (§3.4: hot "
               "data in hipMalloc + explicit copies)")
        if kind != "device":
            how = ("the data reached VRAM before the reads, then every read ran at HBM speed "
                   "(§3.4 puts such hot data in hipMalloc, where no CPU touch pulls a page "
                   "back)")
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
    name="nb02.load", argument="load", kind="function", concept=LOAD_CONCEPT, answer=_LOAD_ANSWER,
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
