"""Automatic checks for the notebooks' exercises (GPU-Puzzles style: ``check()`` grades and says
what is wrong).  One module per notebook; solutions live in ``notebooks/solutions/``."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Verdict:
    ok: bool
    message: str

    def __bool__(self):
        return self.ok

    def _repr_html_(self):
        color = "#2e7d32" if self.ok else "#c62828"
        mark = "&#10004;" if self.ok else "&#10008;"
        return f'<div style="color:{color};font-weight:600">{mark} {self.message}</div>'

    def __repr__(self):
        return ("PASS: " if self.ok else "NOT YET: ") + self.message


def passed(message: str) -> Verdict:
    return Verdict(True, message)


def failed(message: str) -> Verdict:
    return Verdict(False, message)
