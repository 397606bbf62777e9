"""Solution: notebook 02 (allocation) -- one allocator per buffer, by access owner and lifetime."""
import umkit
from umkit.exercises import nb02

choice = {
    "weights": "device",              # hot, every step, whole run: hipMalloc (§3.4, §6.1)
    "checkpoint": "managed",          # rare, CPU saves it: managed, prefetched to the host before
                                      # the CPU reads it (§3.4); "pinned" + an async copy also passes
    "epoch_preprocessing": "managed", # prepared on the CPU once per epoch, prefetched (§3.2, §3.4)
    "lr_schedule": "pinned",          # small, CPU-heavy, GPU glances at it: hipHostMalloc (§4.4)
    "request_pool": "device",         # latency-critical: pre-allocated hipMalloc pool (§6.3)
    "vocab": "pageable",              # CPU-only: plain malloc / NumPy, nothing to pin or manage
}


# 02b: data the GPU reads 8 times -> device memory, filled by one explicit copy from a pinned
# staging buffer (on the MI250X hipMemcpy runs at ~28 GB/s, a managed prefetch at ~6 GB/s)
def load(data):
    d = umkit.device_array(data.size)       # hipMalloc
    stage = umkit.pinned(data.size)         # hipHostMalloc: the staging buffer
    stage.host[:] = data
    umkit.copy(d, stage)                    # hipMemcpyAsync(d, stage, bytes, HostToDevice)
    umkit.synchronize()
    stage.free()
    return d


# every check asks for your reason when the answer works: one sentence of your own (why=...)
_why = "each buffer goes where its main user touches it, as often as it does, for as long as it lives"
verdicts = [nb02.check_allocators(choice, why=_why),
            nb02.check_allocators(dict(choice, checkpoint="pinned"),
                                  why="the checkpoint may also be pinned host memory copied "
                                      "explicitly, since only the CPU saves it"),
            nb02.check_load(load, why="data read eight times belongs in VRAM: one copy, then the "
                                      "GPU reads it at full speed")]

if __name__ == "__main__":
    for v in verdicts:
        print(v)
