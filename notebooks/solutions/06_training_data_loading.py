"""Solution to notebook 06's exercise: the article's §4.2 epoch loop, a batch loaded by the CPU every
epoch, without a single GPU fault and without a prefetch that moves nothing."""
import numpy as np

import umkit


def my_epoch_loop(n, epochs):
    a, b, out = umkit.managed(n), umkit.managed(n), umkit.managed(n)   # hipMallocManaged x3
    b.host[:] = 2.0                                                    # the CPU prepares data
    s = umkit.Stream()
    sums = []
    b.prefetch("gpu", stream=s)               # once: from now on only the GPU touches b
    for e in range(epochs):
        a.host[:] = e + 1.0                   # the CPU loads this epoch's batch: a's pages go home
        for x in (a, out):                    # then inhale what the CPU touched, out too:
            x.prefetch("gpu", stream=s)       # the CPU's sum pulled it back last epoch
        umkit.add(out, a, b, stream=s)        # add_kernel<<<blocks, 256, 0, s>>>(a, b, out, n)
        s.synchronize()                       # hipStreamSynchronize: the CPU may now look (§3.3)
        sums.append(float(out.host.sum(dtype=np.float64)))
    for x in (a, b, out):
        x.free()                              # hipFree
    return sums


# A wrong answer the check must refuse: no prefetch, no synchronize.
def wrong_epoch_loop(n, epochs):
    a, b, out = umkit.managed(n), umkit.managed(n), umkit.managed(n)
    b.host[:] = 2.0
    sums = []
    for e in range(epochs):
        a.host[:] = e + 1.0
        umkit.add(out, a, b)
        sums.append(float(out.host.sum(dtype=np.float64)))
    for x in (a, b, out):
        x.free()
    return sums
