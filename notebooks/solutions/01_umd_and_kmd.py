"""Solution: notebook 01 (UMD and KMD) -- which layer does what; trips into the kernel."""
import umkit
from umkit.exercises import nb01

# 01a: user-mode driver (用户态驱动, UMD) or kernel-mode driver (内核态驱动, KMD)?
# (nb01.check_layers: an extra check for practice; the notebook asks it as a prediction)
layers = {
    "malloc_managed": "umd",     # hipMallocManaged: an address range recorded, no page yet
    "malloc_device": "kmd",      # hipMalloc: VRAM mapped by the kernel driver
    "first_touch": "kmd",        # first CPU touch: a page fault, the OS maps a zeroed page
    "increment_kernel": "umd",   # a launch: a packet written into a user-space queue
    "fault_batch": "kmd",        # GPU page faults: the KMD migrates pages, edits page tables
    "prefetch": "kmd",           # the migration behind hipMemPrefetchAsync
    "advise": "kmd",             # hipMemAdvise: policy stored with the range in the KMD
}


# 01b: one trip into the kernel per batch of at most batch_max faults
def transitions(n_faults, batch_max):
    return -(-n_faults // batch_max)      # ceiling division


# every check asks for your reason when the answer works: one sentence of your own (why=...)
verdicts = [nb01.check_layers(layers, why="the runtime library asks, the kernel driver owns the "
                              "page tables and moves the pages"),
            nb01.check_transitions(transitions, why="one trip per batch, and a batch that is not "
                                   "full still needs its own trip")]

if __name__ == "__main__":
    for v in verdicts:
        print(v)
