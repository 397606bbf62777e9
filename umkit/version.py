"""The package version (a leaf: the simulator reports it, the root re-exports it)."""
__version__ = "0.2.0"
