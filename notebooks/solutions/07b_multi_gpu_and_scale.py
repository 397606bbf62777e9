"""Solutions to notebook 07b's exercise (§2.1, §2.3, §6.1): a breathing plan on the MI250X model."""


# Exercise 2 (code): breathe on purpose. VRAM is full, so every inhale makes the driver evict
# something -- and it may pick the managed heart. Exhale last step's cold layer yourself, then
# inhale this step's: the room the inhale needs is already free, and the heart stays.
def plan(i, cold, stream):
    cold[(i - 1) % len(cold)].prefetch("cpu", stream=stream)    # exhale
    cold[i % len(cold)].prefetch("gpu", stream=stream)          # inhale


# Also within budget on the MI250X model: don't move the cold layers at all. Each is read once
# per visit; the model migrates at the measured ~6 GB/s of hipMemPrefetchAsync and reads host memory
# in place at ~23 GB/s (Pearson's MI250X numbers, profile mi250x-xnack1). In amdkfd a GPU fault on a
# range whose GPU is only "accessible in place" (HIP's SetAccessedBy) restores the mapping where the
# range is (kfd_svm.c svm_range_best_restore_location) instead of migrating it. A modelled result:
# no AMD GPU was available to measure this plan.
def plan_read_in_place(i, cold, stream):
    if i == 0:
        for c in cold:
            c.advise("preferred_location", "cpu")
            c.advise("accessed_by", "gpu")


# Wrong answers the check must refuse.
def wrong_plan_inhale_only(i, cold, stream):       # the driver evicts the heart to make room
    cold[i % len(cold)].prefetch("gpu", stream=stream)


def wrong_plan_inhale_all(i, cold, stream):        # more than VRAM holds: thrash
    for c in cold:
        c.prefetch("gpu", stream=stream)


def wrong_plan_nothing(i, cold, stream):           # demand paging; the heart is evicted too
    pass
