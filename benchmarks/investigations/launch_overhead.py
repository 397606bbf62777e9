"""Where does a umkit kernel launch spend its time on a real GPU?  (diagnostic)

Times the same streaming read through umkit.touch and through a bare CuPy RawKernel launch,
both between CUDA events, and profiles umkit's launch path with cProfile.
"""
import cProfile
import io
import pstats
import statistics
import time

import numpy as np

import umkit

n = 64 << 20
d = umkit.device_array(n)
umkit.fill(d, 1.0)
sink = umkit.device_array(1)
umkit.touch(d, 4, sink=sink)            # compile + load the module
umkit.synchronize()


def ev_ms(fn, reps=20):
    out = []
    for _ in range(reps):
        with umkit.timer() as t:
            fn()
        out.append(t.ms)
    return statistics.median(out)


print("empty timer          ms", ev_ms(lambda: None))
print("umkit.touch (read)   ms", ev_ms(lambda: umkit.touch(d, 4, sink=sink)))
b = umkit.backend()
mod = b.kernel_module(0)
fn = mod.get_function("read_kernel")
args = (np.uint64(d.ptr), np.int64(n), np.uint64(sink.ptr))
print("raw RawKernel        ms", ev_ms(lambda: fn((2112,), (256,), args)))
print("backend.launch       ms", ev_ms(lambda: b.launch("read_kernel", 2112, 256, (d.ptr, n, sink.ptr), None)))
t0 = time.perf_counter()
for _ in range(200):
    umkit.touch(d, 4, sink=sink)
umkit.synchronize()
print("host us per touch   ", (time.perf_counter() - t0) / 200 * 1e6)
pr = cProfile.Profile()
pr.enable()
for _ in range(200):
    umkit.touch(d, 4, sink=sink)
umkit.synchronize()
pr.disable()
s = io.StringIO()
pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(18)
print(s.getvalue()[:5000])
