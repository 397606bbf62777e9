"""Solution to notebook 07's exercise: an allocator for every buffer (§6.1-6.3, §3.4, §4.4)."""
placement = {
    "fc_weights": "device",          # the heart: hot every step
    "feature_table": "device",       # resident, hot: also the heart
    "augment_scratch": "managed",    # small, both sides, now and then
    "rare_embeddings": "managed",    # sparse: only touched rows migrate
    "debug_probe": "managed",        # inspect from the CPU without copy code
    "checkpoint": "managed",         # low-frequency, may breathe out
    "request_buffers": "device",     # latency-critical: a pre-allocated device pool
    "loss_scalars": "pinned",        # tiny, CPU reads every step: zero-copy
}

# Wrong answers the check must refuse.
wrong_placements = [
    dict(placement, fc_weights="managed"),
    dict(placement, request_buffers="managed"),
    dict(placement, loss_scalars="managed"),
    {k: "managed" for k in placement},
    {k: v for k, v in placement.items() if k != "checkpoint"},
]
