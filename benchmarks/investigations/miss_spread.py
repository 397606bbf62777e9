"""Where each validation miss of a GPU run lies against the card's own rounds: inside the
range its rounds spread over, or how far outside it (issue 27: stop a fitting pass when what
is left is inside the card's own repeat spread).

    python benchmarks/investigations/miss_spread.py results/DATE-h200-gpu-ci-runN/calibrate_compare.json ...

A miss is a validation workload whose prediction (at the run's fitted host speed) is not within
x/÷1.5 of the card's value (the fastest of its rounds, as the comparison takes it).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

TOL = 1.5
NEAR = 1.25


def misses(compare: dict) -> list[dict]:
    m, p = compare["measured"], compare["predicted"]["validation"]
    out = []
    for name, card in m["validation"].items():
        sim = p.get(name)
        if sim is None or 1 / TOL <= sim / card <= TOL:
            continue
        rounds = m["validation_runs"][name]
        lo, hi = min(rounds), max(rounds)
        off = 1.0 if lo <= sim <= hi else (sim / hi if sim > hi else lo / sim)
        where = "inside" if off == 1.0 else ("near" if off <= NEAR else "outside")
        out.append(dict(name=name, card=card, rounds=rounds, sim=sim, off=round(off, 3),
                        where=where, side="" if off == 1.0 else ("above" if sim > hi else "below")))
    return out


def main(argv=None) -> int:
    paths = (argv if argv is not None else sys.argv[1:]) or []
    if not paths:
        print(__doc__)
        return 2
    for path in paths:
        rows = misses(json.loads(Path(path).read_text()))
        counts = {w: sum(r["where"] == w for r in rows) for w in ("inside", "near", "outside")}
        print(f"{path}: {len(rows)} misses -- {counts['inside']} inside the card's rounds, "
              f"{counts['near']} within x{NEAR} of them, {counts['outside']} outside")
        for r in rows:
            pos = "inside" if r["where"] == "inside" else f"x{r['off']:.2f} {r['side']}"
            print(f"  {r['name']:<36} rounds {min(r['rounds']):.4g}-{max(r['rounds']):.4g}, "
                  f"sim {r['sim']:.4g}: {pos}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
