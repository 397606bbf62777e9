"""Checks for notebook 02 (allocation): pick the allocator for each buffer (§3.4, §4.4, §6)."""
from __future__ import annotations

from . import Verdict, failed, passed

#: buffer -> (the allocator the article recommends, why)
BUFFERS = {
    "weights": ("device", "hot weights are read and written every step and live all training "
                          "long: hipMalloc + explicit copies is the most controllable (§3.4, §6.1 "
                          "'the heart')"),
    "checkpoint": ("managed", "a checkpoint is written rarely and read by the CPU to save it: "
                              "low-frequency data is where managed memory saves effort (§3.4)"),
    "epoch_preprocessing": ("managed", "offline-preprocessed epoch data is prepared on the CPU "
                                       "and consumed once per epoch: the author's managed-memory "
                                       "case (§3.4), prefetched before each epoch (§3.2)"),
    "lr_schedule": ("pinned", "small data the CPU updates often and the GPU only glances at: "
                              "hipHostMalloc, zero-copy over the link with no migration jitter "
                              "(§4.4)"),
    "request_pool": ("device", "latency-critical inference buffers: a pre-allocated hipMalloc "
                               "pool, because a burst of migrations at peak load is exactly what "
                               "must not happen (§6.3)"),
}
_ALIASES = {"device": "device", "hipmalloc": "device", "cudamalloc": "device",
            "device_array": "device", "managed": "managed", "hipmallocmanaged": "managed",
            "cudamallocmanaged": "managed", "unified": "managed", "pinned": "pinned",
            "hiphostmalloc": "pinned", "cudamallochost": "pinned", "host": "pinned"}


def check_allocators(choice) -> Verdict:
    """Exercise 02: ``choice`` maps each buffer of :data:`BUFFERS` to 'device' (hipMalloc),
    'managed' (hipMallocManaged) or 'pinned' (hipHostMalloc)."""
    if not isinstance(choice, dict):
        return failed(f"choice should be a dict like {{'weights': 'device', ...}}, got "
                      f"{type(choice).__name__}")
    unknown = sorted(set(choice) - set(BUFFERS))
    if unknown:
        return failed(f"unknown buffers {unknown}: use the keys {list(BUFFERS)}")
    missing = [k for k in BUFFERS if choice.get(k) is None]
    if len(missing) == len(BUFFERS):
        return failed("every choice is still None: write 'device', 'managed' or 'pinned' for "
                      "each buffer")
    bad = []
    for k, (want, why) in BUFFERS.items():
        got = choice.get(k)
        if got is None:
            continue
        norm = _ALIASES.get(str(got).strip().lower().replace(" ", ""))
        if norm is None:
            return failed(f"{k}: {got!r} is not an allocator; use 'device', 'managed' or 'pinned'")
        if norm != want:
            bad.append(f"{k} -> {want}, not {norm}: {why}")
    if bad:
        return failed(f"{len(bad)} to rethink: " + " | ".join(bad))
    if missing:
        return failed(f"right so far; still None: {missing}")
    all_managed = all(w == "managed" for w, _ in BUFFERS.values())
    return passed("mix allocators by each buffer's access owner and lifetime (§7)"
                  + ("" if all_managed else ": hot and latency-critical data in device memory, "
                     "low-frequency data managed, small CPU-heavy data pinned"))
