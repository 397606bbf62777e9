"""Memory: the Array every allocator returns, prefetch and advice, the memory resources and the
pool, DLPack export."""
from ..doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "Array": "array",
    "require_array": "array",
    "require_managed": "array",
    "prefetch": "migration",
    "advise": "migration",
    "attributes": "migration",
    "MemoryPool": "pool",
    "UpstreamResource": "resources",
    "PoolingResource": "resources",
    "BackendPool": "resources",
    "TrackingResource": "resources",
    "dlpack": ".",
})
