"""Solution: notebook 02 (allocation) -- one allocator per buffer, by access owner and lifetime."""
from umkit.exercises import nb02

choice = {
    "weights": "device",              # hot, every step, whole run: hipMalloc (§3.4, §6.1)
    "checkpoint": "managed",          # rare, CPU saves it: hipMallocManaged (§3.4)
    "epoch_preprocessing": "managed", # prepared on the CPU once per epoch, prefetched (§3.2, §3.4)
    "lr_schedule": "pinned",          # small, CPU-heavy, GPU glances at it: hipHostMalloc (§4.4)
    "request_pool": "device",         # latency-critical: pre-allocated hipMalloc pool (§6.3)
}

verdicts = [nb02.check_allocators(choice)]

if __name__ == "__main__":
    for v in verdicts:
        print(v)
