"""The measurement programs' registry: each program by name, with the kind of data it writes, and
:func:`run`, which runs one (``umkit measure run NAME``)."""
from __future__ import annotations

import importlib

#: name -> (module, kind, what it measures)
RUNS = {
    "core": ("core", "speed", "pool cycle vs CuPy's pool, prefetch vs pinned copy, read_back vs "
                              "pinned copy, peer bandwidth with two GPUs"),
    "read_back": ("read_back", "validation", "where a managed array lies after umkit.read_back "
                                             "(notebook 06)"),
    "pool": ("pool", "speed", "umkit's managed pool under CuPy against CuPy's own pool"),
    "small": ("small", "fit", "size sweeps 4 KiB - 256 MiB of the model's fixed costs and rates"),
    "fit": ("fit", "fit", "fit-only probes for the mechanisms the model lacked"),
    "umperf": ("umperf", "validation", "NVIDIA cuda-samples UnifiedMemoryPerf, ported; --compare-sim"),
    "classes": ("classes", "investigation", "probes of three workload classes the model missed"),
    "class_decide": ("class_decide", "investigation", "a class probe's data against the leads "
                                                      "written before the run (CPU only)"),
    "recorder": ("recorder", "speed", "what the recorder and CUPTI's counters cost on a ~1 ms step"),
    "plan_validate": ("plan_validate", "validation", "umkit.plan's predicted order of a PyTorch "
                                                     "loop's memory variants against the card"),
}
KINDS = ("fit", "validation", "speed", "investigation")

def run(name: str, argv: list[str]) -> int:
    """Run the program ``name`` with its arguments; its exit status."""
    from ...errors import InvalidArgument
    if name not in RUNS:
        raise InvalidArgument(f"no measurement program {name!r}", argument="name",
                              hint="umkit measure run --list names them: " + ", ".join(RUNS))
    module = importlib.import_module(f"{__package__}.{RUNS[name][0]}")
    rc = module.main(argv)
    return 0 if rc is None else int(rc)
