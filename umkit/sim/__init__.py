"""The simulator: a clock-and-queue engine and the models beside it (pages, faults, copies, policy,
thrashing, races), driven by cited profiles."""
from ..doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "SimBackend": "backend",
    "Clock": "clock",
    "Engine": "engine",
    "KernelCost": "engine",
    "COUNTERS": "engine",
    "load_profile": "costs",
    "available_profiles": "costs",
    "PROFILE_DIR": "costs",
    "PageSet": "extents",
    "Runs": "extents",
    "Allocation": "pages",
    "Access": "pages",
    "policy_for": "policy",
    "Record": "record",
    "Thrashing": "thrashing",
    "Profile": "costs",
    "Policy": "policy",
    "AmdApu": "policy",
    "AmdXnackOff": "policy",
    "SimEvent": "clock",
    "SimStream": "clock",
    "CPU_ID": "pages",
    "loc_bit": "pages",
})
