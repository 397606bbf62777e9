"""Hardware counters of a real run: CUPTI on NVIDIA, rocprofv3 on AMD."""
from ...doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "CuptiCollector": "cupti",
    "Tally": "cupti",
    "bin_records": "cupti",
    "find_libcupti": "cupti",
    "available": "cupti",
    "RocprofCollector": "rocprof",
    "RocprofTally": "rocprof",
    "COLLECTOR": "cupti",
    "KINDS": "cupti",
    "incomplete": "cupti",
    "cupti": ".",
    "rocprof": ".",
})
