"""Solutions to notebook 09's exercises (troubleshooting and the memory ECG)."""
import numpy as np

# Exercise 1: every case of nb09.CASES mapped to its fix in nb09.FIXES (use umkit.explain to check).
# A wrong set draws five new reports (nb09.DIAGNOSIS_SET.names: the reports now open, in case
# order): each report's fix, by its symptom.
FIX = {
    "oom_13b": 4, "oom_eval": 4, "oom_batch": 4,                # out of memory
    "ipc_pipe": 3, "ipc_queue": 3,                              # a pointer from another process
    "race_norm": 2, "race_debug": 2, "race_log": 2,             # a race, no error
    "thrash_ps": 1, "thrash_stats": 1, "thrash_sampler": 1,     # pages thrash between CPU and GPU
    "xnack_gcn": 5, "xnack_node": 5, "xnack_container": 5,      # no recoverable page faults
}


def diagnosis_for(names):
    """The diagnosis of the reports ``names`` (in case order A, B, ...)."""
    return {letter: FIX[name] for letter, name in zip("ABCDE", names)}


# the set the notebook shows (your kernel opens a set of its own: diagnosis_for(nb09.DIAGNOSIS_SET.names))
diagnosis = diagnosis_for(("race_norm", "xnack_gcn", "oom_13b", "thrash_ps", "ipc_pipe"))


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
wrong_diagnoses = [{"A": 4, "B": 3, "C": 2, "D": 1, "E": 5},     # §5.1's rows in the table's order
                   {"A": 1, "B": 5, "C": 4, "D": 2, "E": 3}, {"A": 2}, {k: 1 for k in "ABCDE"}]


def wrong_find_spikes(step_ms):          # compares with the mean: the spikes hide themselves
    t = np.asarray(step_ms, dtype=float)
    return [int(i) for i in np.nonzero(t > 3 * t.mean())[0]]


def old_rule_find_spikes(step_ms):       # 3x the median only: flags a flat 'device' run's blips
    t = np.asarray(step_ms, dtype=float)
    return [int(i) for i in np.nonzero(t > 3 * np.median(t))[0]]
