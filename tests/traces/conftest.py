"""The helpers beside this file (``rocpd_schema``, ``nsys_schema``, ``trace_format``) import by name."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
