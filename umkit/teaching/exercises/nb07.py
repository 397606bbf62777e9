"""Checks for notebook 07 -- choosing a strategy (the article's §6.1-6.3) -- and for the optional
notebook 07b (the breathing plan on the MI250X)."""
from __future__ import annotations

import functools

import umkit

from .grading import (DrawnSet, Exercise, Verdict, check, learner_code, passed, sim_sandbox, tiered)

KINDS = ("device", "managed", "pinned")

#: The buffers the exercise draws from, each described by who touches it, how often and how big
#: it is: name -> (its description, the allocators that are right for it, why).  The notebook's
#: set (:data:`FIRST_SET`) comes first; every wrong set draws a new one from all of them.
_BANK = {
    "fc_weights": (
        "4 GB of fully-connected weights; the GPU reads them in every forward pass and writes them "
        "in every optimizer step.", {"device"},
        "It is big, hot, read and written by the GPU every step: the 'heart' (心脏) of the job. In "
        "managed memory every eviction, and on this card (XNACK on) every CPU look, makes it "
        "re-inhale; give it device memory "
        "(§6.1, §3.4)."),
    "feature_table": (
        "a 20 GB feature table that every training step gathers from on the GPU; it stays resident "
        "for the whole run.", {"device"},
        "It is resident and used every step: another part of the heart. Managed memory buys nothing "
        "here and risks eviction under memory pressure (§6.1)."),
    "augment_scratch": (
        "64 MB of augmentation scratch: the CPU reshuffles it now and then, the GPU reads it in some "
        "steps.", {"managed"},
        "It is small, touched by both sides now and then: exactly what managed memory is for. Device "
        "memory would need explicit copies for every CPU reshuffle; pinned memory would make the "
        "GPU read all of it over the link in every step that uses it (§6.1, §4.4)."),
    "rare_embeddings": (
        "2 GB of embedding rows for rare tokens: a step looks up a handful of rows, most rows are "
        "never touched in a given epoch.", {"managed", "pinned"},
        "It is sparse: with managed memory only the blocks around the rows a step touches migrate "
        "(2 MiB on AMD since Linux 6.8), on demand -- the article's choice (§6.1); pinned host "
        "memory, read in place over the link, is right too when the rows are scattered thinly: "
        "nothing moves at all. In device memory you would copy and hold all 2 GB for a few rows."),
    "debug_probe": (
        "a few MB of tensors you want to inspect from the CPU (a debugger, print) while the job "
        "runs.", {"managed", "pinned"},
        "Debugging from the CPU is one of §6.1's cases for managed memory: the CPU can read the same "
        "pointer without writing copy code. Pinned memory the GPU writes into is defensible too: "
        "the CPU reads it at any time and no page moves."),
    "checkpoint": (
        "a 4 GB snapshot of the weights written every 2,000 steps and then saved to disk by the "
        "CPU.", {"managed", "pinned"},
        "A snapshot the CPU writes to disk every few thousand steps: managed memory, prefetched to "
        "the host before the CPU reads it (the column's choice, §3.4), is the answer; pinned host "
        "memory with an explicit async copy (an asynchronous copy from device memory that overlaps "
        "training) is also right. Device-only memory is wrong: the CPU must read it."),
    "request_buffers": (
        "an inference service's per-request input and output buffers: a few MB each, thousands per "
        "second, latency measured at p99.", {"device"},
        "It is latency-critical: §6.3's inference service was unstable at peak with managed request "
        "data and stable once requests went into a pre-allocated hipMalloc buffer pool with "
        "explicit copies."),
    "loss_scalars": (
        "a 4 KB block of scalars (loss, grad norm) the GPU writes every step and the CPU logger "
        "reads every step.", {"pinned", "device"},
        "It is tiny and read by the CPU every step: pinned host memory (hipHostMalloc) lets the GPU "
        "write it over the link with no page ever migrating; device memory with a small copy to "
        "the host each step (what loss.item() does) is right too; managed memory would (with XNACK "
        "on, as here) bounce the page every step (§4.4)."),
    "optimizer_moments": (
        "8 GB of optimizer moments the GPU updates in every optimizer step; the CPU never reads "
        "them.", {"device"},
        "The GPU reads and writes all of it every step and the CPU never looks: part of the heart. "
        "Device memory keeps it in place; managed memory could only lose it to eviction (§6.1)."),
    "kv_cache": (
        "a serving job's key-value cache: 10 GB the GPU reads and extends for every request, with "
        "answers due within 50 ms at p99.", {"device"},
        "Every request reads it on the GPU and its latency is what the service promises: a "
        "migration or an eviction at a peak is exactly what must not happen. Pre-allocate it in "
        "device memory (§6.3)."),
    "graph_neighbors": (
        "a 3 GB adjacency list: each step the GPU follows a few hundred random edges, and most of it "
        "stays untouched for hours.", {"managed", "pinned"},
        "Each step touches a few scattered places in it: with managed memory the blocks around them "
        "migrate on demand (2 MiB on AMD since Linux 6.8: a few hundred random edges can pull in "
        "far more than they use); pinned host memory, read in place over the link, moves nothing. "
        "Device memory would hold all 3 GB for the few edges a step follows (§6.1)."),
    "token_counts": (
        "32 MB of vocabulary counts the CPU rebuilds once an epoch and the GPU reads in a few steps "
        "of each epoch.", {"managed"},
        "Small, and touched by each side now and then: managed memory (XNACK on, as here) moves it "
        "to whoever touches "
        "it, with no copy code, and now and then is rare enough that the moves cost little; pinned "
        "memory would make the GPU read it over the link in each step that uses it (§6.1, §4.4)."),
    "eval_snapshot": (
        "a 2 GB copy of the weights taken every 5,000 steps and handed by the CPU to an evaluation "
        "job.", {"managed", "pinned"},
        "The CPU needs it every few thousand steps, like a checkpoint: managed memory prefetched to "
        "the host before the CPU reads it, or pinned host memory filled by an async copy. Not "
        "device-only memory: the CPU must read it (§3.4)."),
    "inspect_activations": (
        "a few MB of activations you print from the CPU now and then while you debug the model.",
        {"managed", "pinned"},
        "A CPU look now and then: managed memory lets the CPU read the same pointer; pinned memory "
        "the GPU writes into works too, and no page moves (§6.1)."),
    "step_settings": (
        "a 1 KB block the CPU writes before every step (learning rate, step number) and every kernel "
        "of the step reads.", {"pinned", "device"},
        "Tiny, written by the CPU every step and read by the GPU every step: in pinned host memory "
        "the GPU reads it over the link and no page migrates; device memory with a small copy from "
        "the host before each step is right too; managed memory would (with XNACK on, as "
        "here) move its page back and forth every step (§4.4)."),
    "progress_flags": (
        "16 bytes of flags the GPU sets in every step and a CPU monitor polls continuously.",
        {"pinned"},
        "A few bytes both sides touch all the time: pinned host memory, where the GPU writes over "
        "the link and the CPU reads in place; managed memory would (with XNACK on, as here) move "
        "the page back and forth every step: the GPU's write pulls it into VRAM, the next poll pulls it back (§4.4)."),
}
#: the notebook's set, in its order
FIRST_SET = ("fc_weights", "feature_table", "augment_scratch", "rare_embeddings", "debug_probe",
             "checkpoint", "request_buffers", "loss_scalars")

#: the buffers the exercise draws from, the notebook's set first; a wrong set opens a new one
PLACEMENT_SET = DrawnSet(
    "nb07.placement", _BANK, FIRST_SET,
    redrawn="{part_msg}. The buffers are drawn again: print nb07.BUFFERS to see the new set, and "
            "place those")
#: the buffers of the set now open, name -> description (in the learner's language): the
#: notebook's set until a set is graded wrong; then one drawn afresh from the bank
BUFFERS = PLACEMENT_SET.items


PLACEMENT_CONCEPT = ("§6.1-6.3: for every buffer ask who touches it (the GPU, the CPU, both), how "
                     "often (every step, now and then, rarely), how big it is and whether its "
                     "latency matters -- then what each allocator costs for that pattern: device "
                     "memory (the other side needs explicit copies), managed memory (pages migrate "
                     "on demand, and back), pinned host memory (the GPU reads and writes it across "
                     "the link; no page ever moves)")


#: the runtime's names of each allocator count too (as in notebook 02's exercise)
_ALIASES = {"hipmalloc": "device", "cudamalloc": "device", "device_array": "device",
            "hipmallocmanaged": "managed", "cudamallocmanaged": "managed", "unified": "managed",
            "hiphostmalloc": "pinned", "cudamallochost": "pinned", "cudahostalloc": "pinned"}


def _kind(value) -> str | None:
    kind = str(value).strip().lower().replace(" ", "")
    kind = _ALIASES.get(kind, kind)
    return kind if kind in KINDS else None


_LABELS = dict(
    label=_kind,
    unknown="{unknown} are not buffers of this exercise; the names are {items}.",
    missing="still to place: {missing}.",
    bad_label="{item}: {value!r} is not an allocator; use one of " + f"{KINDS}.")
# the whole set is graded: the feedback says neither how many nor which (either would let
# cycling pass without reading a single description) -- Labels' generic sentence


_PASSED = ("every buffer has an allocator that matches who touches it and how often: the heart "
           "in device memory, data the CPU touches now and then where both sides reach it "
           "(managed, or pinned where the accepted answers allow it), the tiny data both sides "
           "touch every step in pinned memory.")


PLACEMENT = Exercise(
    why_terms=('who touches', 'how often', 'every step', 'sparse', 'heart', 'latency', 'pinned',
               'device memory', 'managed', '访问', '每一步', '稀疏', '心脏', '延迟', '固定内存', '设备内存', '托管'),
    name="nb07.placement", argument="placement", kind="labels", concept=PLACEMENT_CONCEPT,
    none="{argument} is still None: make a dict {{buffer name: 'device' | 'managed' | 'pinned'}} "
         "covering every buffer in nb07.BUFFERS.",
    wrong_type="{argument} must be a dict, not {type}.",
    **PLACEMENT_SET.exercise_fields(PLACEMENT_CONCEPT, _PASSED, **_LABELS))


@tiered
def check_placement(placement) -> Verdict:
    """``placement``: a dict mapping every name of :data:`BUFFERS` (the set now open) to
    'device', 'managed' or 'pinned'.  A wrong set draws a new set of buffers into
    :data:`BUFFERS`."""
    return check(PLACEMENT, placement)


# -- exercise 2 (write code): a breathing plan that meets a time budget on the MI250X ---------------
BREATH_PROFILE = "mi250x-xnack1"   # AMD MI250X, XNACK on: amdkfd migrates 2 MiB ranges on a fault
BREATH_VRAM_MIB = 256              # VRAM shrunk so that the job oversubscribes it, as in notebook 07b's section 2
HEART_MIB = 128                    # the heart: managed (a framework allocated it), updated every step
COLD_MIB = 64                      # each cold layer; the GPU reads one per step, in rotation
N_COLD = 4
BREATH_STEPS = 16
BREATH_SLACK = 1.25                # the budget: this much over the job with the heart in device memory

BREATH_CONCEPT = ("§2.3 the breathing analogy: inhale = prefetch into VRAM, exhale = move cold "
                  "data out to the host; §2.1: let cold parameters breathe out. When VRAM is full "
                  "the driver must evict something before it can bring a page in, and it picks "
                  "least-recently-migrated memory in the simulator (notebook 07, section 2) -- it doesn't know which pages are "
                  "the heart (§6.1). Decide yourself what leaves VRAM and when, or let a cold "
                  "layer be read where it is (§3.2, §4.4: advice, then prefetch)")
_BREATH_ANSWER = ("def plan(i, cold, stream):\n"
                 "    cold[(i - 1) % len(cold)].prefetch('cpu', stream=stream)   # exhale last "
                 "step's layer\n"
                 "    cold[i % len(cold)].prefetch('gpu', stream=stream)         # inhale this "
                 "step's\n"
                 "# each step begins with its own layer in VRAM and no other cold layer there: the\n"
                 "# room an inhale needs is free before it starts, so the driver evicts nothing")
#: the rhythm the check asks for, read from where each cold layer is as its step begins: the
#: step's own layer at least this much in VRAM ...
BREATH_IN = 0.9
#: ... and every other cold layer at most this much (what is left is the driver's to evict)
BREATH_OUT = 0.1


def _breath_run(plan, heart_kind: str, rhythm: list | None = None):
    """Run the job of notebook 07b's section 2 on a private simulator of BREATH_PROFILE (model time only: no
    arithmetic); ``plan(i, cold, stream)`` is called before each step.  Returns (step ms list,
    counters delta, the number of steps that began with part of the heart evicted) or raises what
    the plan raised."""
    mib = 1 << 20
    with sim_sandbox(profile=BREATH_PROFILE, vram=BREATH_VRAM_MIB * mib, compute=False):
        heart = umkit.empty(HEART_MIB * mib // 4, kind=heart_kind)
        sink = umkit.device_array(1)
        cold = [umkit.managed(COLD_MIB * mib // 4) for _ in range(N_COLD)]
        try:
            for c in cold:
                c.host[:] = 1.0                          # the CPU built the layers
            s = umkit.Stream()
            umkit.fill(heart, 0.5, stream=s)
            s.synchronize()
            c0, ms, hit = umkit.counters(), [], 0
            for i in range(BREATH_STEPS):
                t0 = umkit.now()
                if plan is not None:
                    plan(i, list(cold), s)
                if rhythm is not None:                   # where each cold layer is, as the step
                    rhythm.append([umkit.residency(c).summary().get("gpu") or 0.0  # begins
                                   for c in cold])
                if heart_kind == "managed":              # did part of the heart leave VRAM?
                    hit += (umkit.residency(heart).summary().get("gpu") or 0.0) < 1.0
                umkit.increment(heart, stream=s)         # the heart: every step
                umkit.touch(cold[i % N_COLD], 4, stream=s, sink=sink)   # this step's cold layer
                s.synchronize()
                ms.append((umkit.now() - t0) * 1e3)
            c1 = umkit.counters()
            delta = {k: c1[k] - c0.get(k, 0) for k in c1}
        finally:
            for x in [heart, sink, *cold]:
                try:
                    x.free()
                except Exception:  # noqa: BLE001 - already freed by the plan: reported elsewhere
                    pass
    return ms, delta, hit


def _inhale_this(i, cold, stream):
    cold[i % len(cold)].prefetch("gpu", stream=stream)


@functools.lru_cache(maxsize=1)
def _breath_reference_ms() -> float:
    """The budget's yardstick: the job with the heart in device memory, each layer inhaled just
    before its step (deterministic model time, so measured once per process)."""
    return sum(_breath_run(_inhale_this, "device")[0])


def off_rhythm(rhythm: list) -> str | None:
    """What breaks the breathing rhythm, from where each cold layer was as its step began
    (``rhythm[i][j]``: the fraction of ``cold[j]`` in VRAM before step ``i``), or None."""
    from ... import validate as V
    hint = "breath_rhythm(plan)[1]: per step, a list of fractions in [0, 1], one per cold layer"
    rows = [V.reals(row, "rhythm", hint=hint) for row in V.sequence(rhythm, "rhythm", hint=hint)]
    if any(not row or min(row) < 0 or max(row) > 1 for row in rows):
        raise V.InvalidArgument("rhythm holds a step with no layers or a fraction outside "
                                "[0, 1]", argument="rhythm", hint=hint)
    for i, where in enumerate(rows):
        own = i % len(where)
        if where[own] < BREATH_IN:
            return (f"step {i} began with {where[own]:.0%} of the layer it reads in VRAM: the rest "
                    "reached the GPU by page faults, or not at all, while the step ran -- no "
                    "breath in before the step")
        kept = sum(f for j, f in enumerate(where) if j != own) * COLD_MIB
        if kept > BREATH_OUT * COLD_MIB:
            return (f"step {i} began with {kept:.0f} MiB of cold layers it does not read still in "
                    "VRAM, so the room this step's layer needs is the driver's to find -- and it "
                    "does not know which pages are the heart")
    return None


def breath_budget_ms() -> float:
    """The exercise's time budget (model ms): BREATH_SLACK x the job with the heart in device
    memory."""
    return BREATH_SLACK * _breath_reference_ms()


def breath_rhythm(plan) -> tuple[float, list]:
    """Run ``plan`` as the check does; returns (its total model ms, where each cold layer was as
    each step began: ``rhythm[i][j]``, the fraction of ``cold[j]`` in VRAM before step ``i``)."""
    if not callable(plan):
        from ... import validate as V
        raise V.InvalidType(f"plan={V.shown(plan)} is not callable", argument="plan",
                            hint="def plan(i, cold, stream): ... (as the exercise's check takes)")
    rhythm: list = []
    ms, _, _ = _breath_run(plan, "managed", rhythm)
    return sum(ms), rhythm


def _grade_breathing(plan) -> Verdict | str:
    ref = _breath_reference_ms()
    budget = BREATH_SLACK * ref
    rhythm: list = []
    ms, d, hit = learner_code(_breath_run)(plan, "managed", rhythm)   # all it runs is the plan's
    total = sum(ms)
    off = off_rhythm(rhythm)
    if off is not None:
        return (f"{total:.1f} ms of model time for {BREATH_STEPS} steps (budget {budget:.1f} ms), "
                f"but the cold layers do not breathe: {off}. The exercise asks for the rhythm "
                "of notebook 03's section 7 (§2.3): before each step, where should its layer be, and where "
                "the layers it does not read?")
    if hit:
        return (f"{total:.1f} ms of model time for {BREATH_STEPS} steps (budget {budget:.1f} ms), "
                "and each step begins with its own layer in VRAM and the others out -- but "
                f"{hit} of the {BREATH_STEPS} steps began with part of the heart evicted "
                f"({d.get('evictions', 0)} evictions by the driver, {d.get('gpu_faults', 0)} GPU "
                "faults to bring it back). A layer came into a full VRAM: the driver had to find "
                "the room, and it took it from the heart (notebook 03's section 7, §2.3).")
    if total <= budget:
        how = "only the cold layers breathed, and the heart stayed in VRAM"
        return passed(f"{total:.1f} ms of model time for {BREATH_STEPS} steps on {BREATH_PROFILE} "
                      f"(budget {budget:.1f} ms; the heart in device memory: {ref:.1f} "
                      f"ms): {how}. {d.get('evictions', 0)} evictions by the driver, "
                      f"{d.get('gpu_faults', 0)} GPU faults.")
    return (f"{total:.1f} ms of model time for {BREATH_STEPS} steps on {BREATH_PROFILE}, over the "
            f"budget of {budget:.1f} ms. The driver evicted {d.get('evicted_bytes', 0) >> 20} MiB "
            f"({d.get('evictions', 0)} evictions), the GPU took {d.get('gpu_faults', 0)} page "
            f"faults, {d.get('bytes_h2d', 0) >> 20} MiB moved to the GPU, and {hit} of the "
            f"{BREATH_STEPS} steps began with part of the heart evicted.")


BREATHING = Exercise(
    why_terms=('exhale', 'inhale', 'evict', 'heart', 'breath', 'vram', 'rhythm', '呼气', '吸气', '驱逐',
               '心脏', '呼吸', '空间', '显存', '节奏'),
    name="nb07.breathing", argument="plan", kind="function", concept=BREATH_CONCEPT,
    answer=_BREATH_ANSWER,
    none="{argument} is still None: write def plan(i, cold, stream): ... (prefetch / advise the cold "
         "layers before step i)",
    wrong_type="{argument} should be a function (i, cold, stream), got {type}",
    call="plan", raised="{call} raised {error}", grader=_grade_breathing)


@tiered
def check_breathing(plan) -> Verdict:
    """Exercise 07b (code): ``plan(i, cold, stream)`` is called before step ``i`` of notebook 07b's section 2's
    job on the AMD MI250X (XNACK on) model with 256 MiB of VRAM: a 128 MiB *managed* heart that
    the GPU updates every step and four 64 MiB managed cold layers, of which step ``i`` reads
    ``cold[i % 4]``.  Your plan may prefetch (inhale, exhale) and advise the cold layers.  Passes
    when the layers breathe -- every step begins with its own layer in VRAM (at least BREATH_IN of
    it) and the other cold layers out of it (at most BREATH_OUT of one layer's size in all) -- and
    the 16 steps take at most BREATH_SLACK x the model time of the same job with the heart in
    device memory (which the driver can't evict) and the best single-layer inhale."""
    return check(BREATHING, plan)
