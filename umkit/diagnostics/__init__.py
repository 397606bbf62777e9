"""Diagnostics: the environment check (doctor), error and symptom lookup (explain), the CUDA->HIP
porting checker (portcheck) and the machine's tools."""
from ..doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "doctor": ".",
    "explain": ".",
    "Explanation": "explain",
    "port_check": "portcheck",
    "portcheck": ".",
    "tools": ".",
})
