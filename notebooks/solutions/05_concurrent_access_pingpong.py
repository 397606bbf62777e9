"""Solutions to notebook 05's exercises (concurrent access and ping-pong, §4.3)."""
from umkit import workloads

# Exercise 1. Either of the article's two fixes:
#  * keep the parameters managed, but declare that the GPU owns them and the CPU only reads them
#    remotely (advice first, then prefetch: §4.4) ...
my_fix = workloads.Strategy("advice: GPU owns, CPU reads remotely", memory="managed",
                            prefetch="gpu", advice="preferred_gpu")
#  * ... or split by access frequency: hot parameters in device memory, the batch managed (§4.3).
my_fix_split = workloads.Strategy("split", memory="mixed", prefetch="gpu")

# Exercise 2. IPC handles on hipMalloc memory, or a file / shared-memory mapping.
ipc_answer = {"b", "d"}

# Wrong answers the checks must refuse.
wrong_fixes = ["managed", "managed+prefetch", "pinned", "device"]
wrong_ipc = [{"a"}, {"b"}, {"b", "c"}, {"b", "d", "e"}]
