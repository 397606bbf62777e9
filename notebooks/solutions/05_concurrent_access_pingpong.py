"""Solutions to notebook 05's exercises (concurrent access and ping-pong, §4.3)."""
from umkit import workloads

# Exercise 1. The article's fix (§4.3): split by access frequency -- the hot parameters in device
# memory, the batch managed and prefetched. It works on every platform.
my_fix = workloads.Strategy("split: hot params in device memory", memory="mixed", prefetch="gpu")
# Not a fix on a PCIe host: keep the parameters managed and declare that the GPU owns them and the
# CPU reads them (advice first, then prefetch: §4.4). The CPU of an x86 + PCIe machine can't read
# VRAM in place (the H200 reports DirectManagedMemAccessFromHost = 0), so its statistic still
# migrates the pages -- measured on the H200, and modelled by the simulator's H200 profile. Advice
# keeps the pages home only over a coherent CPU-GPU link. The check refuses it, saying why.
my_fix_advice = workloads.Strategy("advice: GPU owns, CPU reads remotely", memory="managed",
                                   prefetch="gpu", advice="preferred_gpu")

# Exercise 2. IPC handles on hipMalloc memory, or a file / shared-memory mapping.
ipc_answer = {"b", "d"}

# Wrong answers the checks must refuse.
wrong_fixes = ["managed", "managed+prefetch", "managed+advice", my_fix_advice, "pinned", "device",
               workloads.Strategy("prefers the CPU", memory="managed", prefetch="gpu",
                                  advice="preferred_cpu_accessed_by")]
wrong_ipc = [{"a"}, {"b"}, {"b", "c"}, {"b", "d", "e"}]
