"""umkit: GPU unified (managed) memory, taught and made usable."""
__version__ = "0.1.0"
