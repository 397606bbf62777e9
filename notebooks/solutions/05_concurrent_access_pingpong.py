"""Solutions to notebook 05's exercises (concurrent access and ping-pong, §4.3)."""
from umkit import workloads

# Exercise 1. The article's fix (§4.3): split by access frequency -- the hot parameters in device
# memory, the batch managed and prefetched. It works on every platform.
my_fix = workloads.Strategy("split: hot params in device memory", memory="mixed", prefetch="gpu")
# The other fix keeps the parameters managed and declares that the GPU owns them, the CPU reading
# remotely (advice first, then prefetch: §4.4). It passes on the simulator, but on a PCIe host the
# CPU can't read VRAM in place, so on real x86 + PCIe hardware only the split is a fix.
my_fix_advice = workloads.Strategy("advice: GPU owns, CPU reads remotely", memory="managed",
                                   prefetch="gpu", advice="preferred_gpu")

# Exercise 2. IPC handles on hipMalloc memory, or a file / shared-memory mapping.
ipc_answer = {"b", "d"}

# Wrong answers the checks must refuse.
wrong_fixes = ["managed", "managed+prefetch", "pinned", "device"]
wrong_ipc = [{"a"}, {"b"}, {"b", "c"}, {"b", "d", "e"}]
