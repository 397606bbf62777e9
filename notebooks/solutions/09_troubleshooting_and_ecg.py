"""Solutions to notebook 09's exercises (troubleshooting and the memory ECG)."""
import numpy as np

# Exercise 1: every case of nb09.CASES mapped to its fix in nb09.FIXES (use umkit.explain to check).
diagnosis = {"A": 4, "B": 3, "C": 2, "D": 1, "E": 5}


# Exercise 2: the steps of an ECG curve that take more than 3x its median.
def find_spikes(step_ms):
    # the memory ECG's rule (umkit.ecg.SPIKY, SPIKE_MS): step 0 is warm-up; a spike is more than
    # 3x the median of the other steps AND more than 1 ms above it
    t = np.asarray(step_ms, dtype=float)
    if t.size < 2:
        return []
    med = np.median(t[1:])
    return [i for i in range(1, t.size) if t[i] > 3 * med and t[i] - med > 1.0]


# Wrong answers the checks must refuse.
wrong_diagnoses = [{"A": 4, "B": 3, "C": 1, "D": 2, "E": 5}, {"A": 4}, {k: 1 for k in "ABCDE"}]


def wrong_find_spikes(step_ms):          # compares with the mean: the spikes hide themselves
    t = np.asarray(step_ms, dtype=float)
    return [int(i) for i in np.nonzero(t > 3 * t.mean())[0]]


def old_rule_find_spikes(step_ms):       # 3x the median only: flags a flat 'device' run's blips
    t = np.asarray(step_ms, dtype=float)
    return [int(i) for i in np.nonzero(t > 3 * np.median(t))[0]]
