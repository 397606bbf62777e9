"""Solution: notebook 00 (start here) -- the time of a 16 MiB prefetch, read off a profile.

The cost model (umkit/sim/costs.py, the article's §3.2) charges a prefetch
``prefetch_latency + bytes / prefetch_h2d_bw``; profiles store SI units (seconds, bytes/s).
"""
from umkit.exercises import nb00
from umkit.sim.costs import load_profile

p = load_profile("mi250x-xnack1")
ms = (p.prefetch_latency + 16 * 2**20 / p.prefetch_h2d_bw) * 1e3

verdicts = [nb00.check_prefetch_time(ms, mib=16)]

if __name__ == "__main__":
    for v in verdicts:
        print(v)
