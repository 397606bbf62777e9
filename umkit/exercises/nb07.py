"""Checks for notebook 07 -- choosing a strategy (the article's §6.1-6.3)."""
from __future__ import annotations

from . import Verdict, failed, passed, tiered

KINDS = ("device", "managed", "pinned")

#: The buffers of one training + serving system.  Each is described by who touches it, how often and
#: how big it is; the learner picks an allocator for each.
BUFFERS = {
    "fc_weights": "4 GB of fully-connected weights; the GPU reads them in every forward pass and "
                  "writes them in every optimizer step.",
    "feature_table": "a 20 GB feature table that every training step gathers from on the GPU; it "
                     "stays resident for the whole run.",
    "augment_scratch": "64 MB of augmentation scratch: the CPU reshuffles it now and then, the GPU "
                       "reads it in some steps.",
    "rare_embeddings": "2 GB of embedding rows for rare tokens: a step looks up a handful of rows, "
                       "most rows are never touched in a given epoch.",
    "debug_probe": "a few MB of tensors you want to inspect from the CPU (a debugger, print) while "
                   "the job runs.",
    "checkpoint": "a 4 GB snapshot of the weights written every 2,000 steps and then saved to disk "
                  "by the CPU.",
    "request_buffers": "an inference service's per-request input and output buffers: a few MB each, "
                       "thousands per second, latency measured at p99.",
    "loss_scalars": "a 4 KB block of scalars (loss, grad norm) the GPU writes every step and the CPU "
                    "logger reads every step.",
}

_ANSWER = {
    "fc_weights": {"device"},
    "feature_table": {"device"},
    "augment_scratch": {"managed"},
    "rare_embeddings": {"managed"},
    "debug_probe": {"managed"},
    "checkpoint": {"managed"},
    "request_buffers": {"device"},
    "loss_scalars": {"pinned"},
}

_WHY = {
    "fc_weights": "It is big, hot, read and written by the GPU every step: the 'heart' (心脏) of the job. "
                  "In managed memory every CPU look or eviction makes it re-inhale; give it device "
                  "memory (§6.1, §3.4).",
    "feature_table": "It is resident and used every step: another part of the heart. Managed memory buys "
                     "nothing here and risks eviction under memory pressure (§6.1).",
    "augment_scratch": "It is small, touched by both sides now and then: exactly what managed memory is "
                       "for. Device memory would need explicit copies for every CPU reshuffle (§6.1).",
    "rare_embeddings": "It is sparse: only the rows a step touches migrate on demand. In device memory you "
                       "would copy and hold all 2 GB for a few rows (§6.1).",
    "debug_probe": "Debugging from the CPU is one of §6.1's cases for managed memory: the CPU can read "
                   "the same pointer without writing copy code.",
    "checkpoint": "It is low-frequency: written rarely, read by the CPU once. The article's own practice "
                  "keeps checkpoints managed (§3.4); it may breathe out to host memory in between.",
    "request_buffers": "It is latency-critical: §6.3's inference service was unstable at peak with managed "
                       "request data and stable once requests went into a pre-allocated hipMalloc "
                       "buffer pool with explicit copies.",
    "loss_scalars": "It is tiny and read by the CPU every step: pinned host memory (hipHostMalloc) lets the "
                    "GPU write it over the link with no page ever migrating; managed memory would "
                    "bounce the page every step (§4.4).",
}


PLACEMENT_CONCEPT = ("§6.1-6.3: who touches the buffer, how often, how big, and whether its latency "
                     "matters. Big and hot every step = the heart (device); small, sparse, dynamic "
                     "or rare = managed; tiny and read by the CPU every step = pinned; "
                     "latency-critical = a pre-allocated device pool")


def _placement_answer(keys=None) -> str:
    return " | ".join(f"{w} -> {sorted(_ANSWER[w])[0]}: {_WHY[w]}" for w in (keys or BUFFERS))


def _placement_no(message: str) -> Verdict:
    return failed(message, PLACEMENT_CONCEPT, _placement_answer())


@tiered
def check_placement(plan) -> Verdict:
    """``plan``: a dict mapping every name of :data:`BUFFERS` to 'device', 'managed' or 'pinned'."""
    if plan is None:
        return _placement_no("placement is still None: make a dict {buffer name: 'device' | 'managed' | "
                             "'pinned'} covering every buffer in nb07.BUFFERS.")
    if not isinstance(plan, dict):
        return _placement_no(f"placement must be a dict, not {type(plan).__name__}.")
    missing = [k for k in BUFFERS if k not in plan]
    extra = [k for k in plan if k not in BUFFERS]
    if extra:
        return _placement_no(f"{extra} are not buffers of this exercise; the names are {list(BUFFERS)}.")
    if missing:
        return _placement_no(f"still to place: {missing}.")
    bad_kind = {k: v for k, v in plan.items() if str(v).strip().lower() not in KINDS}
    if bad_kind:
        k, v = next(iter(bad_kind.items()))
        return _placement_no(f"{k}: {v!r} is not an allocator; use one of {KINDS}.")
    wrong = [k for k in BUFFERS if str(plan[k]).strip().lower() not in _ANSWER[k]]
    if wrong:
        k = wrong[0]
        more = f" ({len(wrong) - 1} more to reconsider after this one)" if len(wrong) > 1 else ""
        return failed(f"{k} -> {plan[k]!r}? Not quite{more}. Reread it: {BUFFERS[k]}",
                      PLACEMENT_CONCEPT, _placement_answer(wrong))
    return passed("every buffer has the allocator that matches who touches it and how often: the "
                  "heart in device memory, sparse / dynamic / rare data managed, the tiny "
                  "every-step CPU read pinned.")
