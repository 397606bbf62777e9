"""Solution to notebook 07's exercise (§6.1-6.3, §3.4): an allocator for every buffer.

The breathing-plan exercise moved to the optional notebook 07b; its solutions are in
07b_multi_gpu_and_scale.py and are loaded here too, for code that still looks for them here."""
import importlib.util as _il
from pathlib import Path as _Path

# Exercise 1: an allocator for every buffer.  A wrong set draws a new set of buffers
# (nb07.BUFFERS); every buffer the check can draw, with the reason for its allocator:
ALLOCATOR = {
    "fc_weights": "device",          # the heart: hot every step
    "feature_table": "device",       # resident, hot: also the heart
    "optimizer_moments": "device",   # the GPU's alone, every step: the heart too
    "kv_cache": "device",            # read for every request, latency promised: no migration at peaks
    "request_buffers": "device",     # latency-critical: a pre-allocated device pool
    "augment_scratch": "managed",    # small, both sides, now and then
    "token_counts": "managed",       # small, each side now and then
    "rare_embeddings": "managed",    # sparse: only touched rows migrate
    "graph_neighbors": "managed",    # sparse: a few scattered pages per step
    "debug_probe": "managed",        # inspect from the CPU without copy code (pinned is also right)
    "inspect_activations": "managed",  # a CPU look now and then (pinned is also right)
    "checkpoint": "managed",         # prefetched to the host before the CPU reads it (pinned + async copy is also right)
    "eval_snapshot": "managed",      # like a checkpoint (pinned + async copy is also right)
    "loss_scalars": "pinned",        # tiny, CPU reads every step: zero-copy
    "step_settings": "pinned",       # tiny, CPU writes every step, GPU reads it every step
    "progress_flags": "pinned",      # a few bytes both sides touch all the time
}


def placement_for(buffers):
    """The placement of the set now open (print nb07.BUFFERS)."""
    return {name: ALLOCATOR[name] for name in buffers}


# the set the notebook shows (your kernel opens a set of its own: placement_for(nb07.BUFFERS))
placement = placement_for(("fc_weights", "feature_table", "augment_scratch", "rare_embeddings",
                           "debug_probe", "checkpoint", "request_buffers", "loss_scalars"))


# Wrong answers the checks must refuse.
wrong_placements = [
    dict(placement, fc_weights="managed"),
    dict(placement, request_buffers="managed"),
    dict(placement, loss_scalars="managed"),
    {k: "managed" for k in placement},
    {k: v for k, v in placement.items() if k != "checkpoint"},
]




_spec = _il.spec_from_file_location("solution_07b", _Path(__file__).with_name("07b_multi_gpu_and_scale.py"))
_b = _il.module_from_spec(_spec)
_spec.loader.exec_module(_b)
plan = _b.plan
wrong_plan_inhale_only, wrong_plan_inhale_all, wrong_plan_nothing = (
    _b.wrong_plan_inhale_only, _b.wrong_plan_inhale_all, _b.wrong_plan_nothing)
wrong_plan_read_in_place, wrong_plan_exhale_only = (_b.wrong_plan_read_in_place,
                                                    _b.wrong_plan_exhale_only)
