"""Solutions to notebook 05's exercises (concurrent access and ping-pong, §4.3)."""
from umkit import workloads

# nb05.check_pingpong_fix (an extra check for practice, not an exercise of the notebook): the
# article's fix (§4.3), split by access frequency -- the hot parameters in device memory, the batch
# managed and prefetched. It works on every platform.
my_fix = workloads.Strategy("split: hot params in device memory", memory="mixed", prefetch="gpu")
# Not a fix where the CPU's touch migrates GPU-resident pages back: keep the parameters managed and
# declare that the GPU owns them and the CPU reads them (advice first, then prefetch: §4.4). The
# mi250x-xnack1 profile (the notebook's card) migrates a CPU-touched range back whatever the advice,
# as OLCF's Frontier table observes, and so does amdkfd on a PCIe AMD GPU (svm_migrate_to_ram); the
# CPU of an x86 + PCIe machine can't read an H200's VRAM in place (DirectManagedMemAccessFromHost =
# 0). Where the MI250X's VRAM is CPU-coherent (mi250x-coherent) the CPU reads it in place instead.
# The check refuses it on the notebook's card, saying why.
my_fix_advice = workloads.Strategy("advice: GPU owns, CPU reads remotely", memory="managed",
                                   prefetch="gpu", advice="preferred_gpu")

# Exercise 2. The statistic computed where the data lives: a GPU reduction, only the scalar comes back.
def statistic(params):
    return float(params.device[::16384].mean())


def statistic_on_cpu(params):          # the article's optimizer: the CPU's read migrates the params
    return float(params.host[::16384].mean())


# Exercise 3 (the notebook's question): (b) a handle opened in process B with
# hipIpcOpenMemHandle, (d) B copies from its own mapping of the shared object. (c) opens the handle
# in A, where hipIpcOpenMemHandle fails (hipErrorInvalidContext: clr's hip_memory.cpp refuses the
# process that made the handle), and any pointer of A means nothing in B; (e) sends the address of
# A's mapping, an address of A too.
ipc_answer = {"b", "d"}

# Your kernel opens with a question of its own (and a wrong answer draws another): every option
# the check can show that works -- a runtime handle opened in the other process, or the bytes
# themselves through a file, shared memory or a pipe, copied by each process into its own GPU
# memory. Every other option uses in B an address of A (or a handle's bytes as if they were one):
# only a call made in B gives B a pointer of its own -- hipIpcOpenMemHandle for A's GPU buffer,
# B's own mmap of the shared object, or B's own allocation (hipMalloc) that it fills from a
# file or a pipe.
WORKING_OPTIONS = (
    "Allocate with hipMalloc, export it with hipIpcGetMemHandle, send the handle, and open it in "
    "process B with hipIpcOpenMemHandle.",
    "Put the data in a file (or shared memory) that both processes map with mmap, and let each "
    "process copy what it needs to its own GPU memory.",
    "In process A, take an IPC handle of a hipMalloc buffer (hipIpcGetMemHandle) and pass the "
    "handle over a socket; process B calls hipIpcOpenMemHandle on it and uses the pointer that "
    "call returns.",
    "Process A writes the data into a /dev/shm object; process B maps the same object with mmap "
    "and copies from its own mapping into a buffer it allocated on its GPU.",
    "Process A copies the data to host memory and writes the bytes themselves into a pipe; "
    "process B reads them and copies them into a buffer it allocated on its GPU.",
)


def ipc_answer_for(options):
    """The letters of the question now open (print nb05.IPC_OPTIONS) whose option works."""
    from umkit.runtime.lang import tr
    works = {tr(text) for text in WORKING_OPTIONS}      # in the notebook's language
    return {letter for letter, text in options.items() if text in works}

# Wrong answers the checks must refuse.
wrong_fixes = ["managed", "managed+prefetch", "managed+advice", my_fix_advice, "pinned", "device",
               workloads.Strategy("prefers the CPU", memory="managed", prefetch="gpu",
                                  advice="preferred_cpu_accessed_by")]
wrong_ipc = [{"a"}, {"b"}, {"b", "c"}, {"b", "d", "e"}]
