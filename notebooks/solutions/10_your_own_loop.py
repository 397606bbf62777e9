"""Solutions to notebook 10's exercise (the memory ECG of your own loop)."""
import umkit


# Exercise: the same step, the statistic computed on the GPU; only 4 bytes come back.
def fixed_step(params, batch, i):
    batch.host[:] = float(i)                 # the CPU prepares the batch
    umkit.touch(batch, 4)                    # the GPU reads it
    umkit.increment(params)                  # and updates the weights
    if i % 10 == 9:
        sink = umkit.device_array(1)
        umkit.fill(sink, 0.0)
        umkit.touch(params, 4096, sink=sink)              # one weight per 4 KiB, summed on the GPU
        total = float(umkit.read_back(sink)[0])           # 4 bytes travel, not 64 MiB
        sink.free()
        return total / (params.nbytes // 4096)
    umkit.synchronize()


# Wrong answers the check must refuse.
def wrong_host_statistic(params, batch, i):  # the original: the weights travel to the CPU
    batch.host[:] = float(i)
    umkit.touch(batch, 4)
    umkit.increment(params)
    umkit.synchronize()
    if i % 10 == 9:
        return float(params.host[::1024].mean())


def wrong_skips_the_update(params, batch, i):   # flat, but it stopped training
    batch.host[:] = float(i)
    umkit.touch(batch, 4)
    umkit.synchronize()
    if i % 10 == 9:
        return 0.5 + i + 1


def wrong_forgets_the_statistic(params, batch, i):   # flat and training, but logs nothing
    batch.host[:] = float(i)
    umkit.touch(batch, 4)
    umkit.increment(params)
    umkit.synchronize()
    if i % 10 == 9:
        return None
