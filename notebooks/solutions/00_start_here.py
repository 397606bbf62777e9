"""Solution: notebook 00 (start here) -- the time of a prefetch, read off a profile.

The cost model (umkit/sim/costs.py, the article's §3.2) charges a prefetch
``prefetch_latency + bytes / bandwidth``, with ``prefetch_h2d_bw`` host->GPU and
``prefetch_d2h_bw`` GPU->host; profiles store SI units (seconds, bytes/s).
"""
from umkit.exercises import nb00
from umkit.sim.costs import load_profile


# The exercise (code): the formula as a function of the profile, the size and the direction.
def prefetch_ms(p, mib, to_gpu=True):
    bw = p.prefetch_h2d_bw if to_gpu else p.prefetch_d2h_bw
    return (p.prefetch_latency + mib * 2**20 / bw) * 1e3


# The same formula as one number: 16 MiB host->GPU on the MI250X (nb00.check_prefetch_time: an
# extra check for practice, not an exercise of the notebook).
p = load_profile("mi250x-xnack1")
ms = prefetch_ms(p, 16)

# every check asks for your reason when the answer works: one sentence of your own (why=...)
verdicts = [nb00.check_prefetch_model(prefetch_ms, why="each call pays its fixed start-up time, "
                                      "then the pages move at the rate of their direction"),
            nb00.check_prefetch_time(ms, mib=16, why="the fixed cost of one call plus sixteen "
                                     "MiB at the driver's host to GPU rate")]


# Wrong answers the check must refuse.
def wrong_one_direction(p, mib, to_gpu=True):      # always the host->GPU bandwidth
    return (p.prefetch_latency + mib * 2**20 / p.prefetch_h2d_bw) * 1e3


def wrong_no_latency(p, mib, to_gpu=True):         # bytes / bandwidth only
    bw = p.prefetch_h2d_bw if to_gpu else p.prefetch_d2h_bw
    return mib * 2**20 / bw * 1e3


def wrong_megabytes(p, mib, to_gpu=True):          # MB instead of MiB
    bw = p.prefetch_h2d_bw if to_gpu else p.prefetch_d2h_bw
    return (p.prefetch_latency + mib * 1e6 / bw) * 1e3


def wrong_seconds(p, mib, to_gpu=True):            # seconds, not milliseconds
    bw = p.prefetch_h2d_bw if to_gpu else p.prefetch_d2h_bw
    return p.prefetch_latency + mib * 2**20 / bw


def wrong_calls_the_model(p, mib, to_gpu=True):    # not from the parameters
    return p.prefetch_cost(mib << 20, to_gpu) * 1e3


def wrong_loads_the_profile(p, mib, to_gpu=True):  # the card's model, looked up by name
    base = load_profile(p.name.split(",")[0])
    return base.prefetch_cost(mib << 20, to_gpu) * 1e3


if __name__ == "__main__":
    for v in verdicts:
        print(v)
