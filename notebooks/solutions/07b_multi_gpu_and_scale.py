"""Solutions to notebook 07b's exercise (§2.1, §2.3, §6.1): a breathing plan on the MI250X model."""


# Exercise 2 (code): breathe on purpose. VRAM is full, so every inhale makes the driver evict
# something -- and it may pick the managed heart. Exhale last step's cold layer yourself, then
# inhale this step's: the room the inhale needs is already free, and the heart stays.
def plan(i, cold, stream):
    cold[(i - 1) % len(cold)].prefetch("cpu", stream=stream)    # exhale
    cold[i % len(cold)].prefetch("gpu", stream=stream)          # inhale


# Wrong answers the check must refuse.
# Within the time budget but no breathing: leave the cold layers on the host and let the GPU read
# them in place. On the MI250X model it is even faster (the model migrates at the measured ~6 GB/s
# of hipMemPrefetchAsync and reads host memory in place at ~23 GB/s: Pearson's MI250X numbers,
# profile mi250x-xnack1; a modelled result, no AMD GPU ran it), but the exercise is the rhythm:
# the check reads where each cold layer is as each step begins.
def wrong_plan_read_in_place(i, cold, stream):
    if i == 0:
        for c in cold:
            c.advise("preferred_location", "cpu")
            c.advise("accessed_by", "gpu")


def wrong_plan_exhale_only(i, cold, stream):       # no inhale: the step's layer comes by faults
    cold[(i - 1) % len(cold)].prefetch("cpu", stream=stream)


def wrong_plan_inhale_only(i, cold, stream):       # the driver evicts the heart to make room
    cold[i % len(cold)].prefetch("gpu", stream=stream)


def wrong_plan_inhale_all(i, cold, stream):        # more than VRAM holds: thrash
    for c in cold:
        c.prefetch("gpu", stream=stream)


def wrong_plan_nothing(i, cold, stream):           # demand paging; the heart is evicted too
    pass
