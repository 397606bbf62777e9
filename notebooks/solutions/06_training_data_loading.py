"""Solution to notebook 06's exercise: the article's §4.2 epoch loop, without a single GPU fault."""
import numpy as np

import umkit


def my_epoch_loop(n, epochs):
    a, b, out = umkit.managed(n), umkit.managed(n), umkit.managed(n)   # hipMallocManaged x3
    a.host[:] = 1.0                                                    # the CPU prepares data
    b.host[:] = 2.0
    s = umkit.Stream()
    sums = []
    for _ in range(epochs):
        for x in (a, b, out):                 # inhale everything the kernel touches, out included:
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
    a.host[:] = 1.0
    b.host[:] = 2.0
    sums = []
    for _ in range(epochs):
        umkit.add(out, a, b)
        sums.append(float(out.host.sum(dtype=np.float64)))
    for x in (a, b, out):
        x.free()
    return sums
