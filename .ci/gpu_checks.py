"""The GPU CI scripts' one check reporter: every check prints PASS/FAIL with what it saw, and the
script exits 0 only when there were checks and all passed.

    from gpu_checks import Checks          (.ci/ on sys.path)
    C = Checks()
    C.check("name", cond, "what was seen")     # a condition
    @C.checked("name")                         # a function run now: passes unless it raises;
    def _(): ...                               # what it returns is the detail
    return C.finish("torch", rows_key=None)    # prints "torch: n/m checks pass", returns 0 or 1
"""
from __future__ import annotations

import time
import traceback


class Checks:
    def __init__(self):
        self.results: list[tuple[str, bool, str]] = []

    def check(self, name: str, cond, detail="") -> bool:
        self.results.append((name, bool(cond), str(detail)))
        print(f"{'PASS' if cond else 'FAIL'} {name}: {detail}", flush=True)
        return bool(cond)

    def checked(self, name: str):
        """Decorator: run the function at once; a raise is a FAIL with its traceback."""
        def deco(fn):
            t0 = time.perf_counter()
            try:
                detail = fn()
                self.results.append((name, True, str(detail or "")))
                print(f"PASS {name} ({time.perf_counter() - t0:.3f} s) {detail or ''}", flush=True)
            except Exception:  # noqa: BLE001 - report every failure, keep going
                tb = traceback.format_exc()
                self.results.append((name, False, tb))
                print(f"FAIL {name}\n{tb}", flush=True)
            return fn
        return deco

    def rows(self, limit: int = 4000, key: str = "name") -> list[dict]:
        return [{key: n, "ok": o, "detail": d[:limit]} for n, o, d in self.results]

    def failed(self) -> list[str]:
        return [n for n, o, _ in self.results if not o]

    def finish(self, label: str) -> int:
        failed = self.failed()
        print(f"{label}: {len(self.results) - len(failed)}/{len(self.results)} checks pass"
              + (f"; FAILED: {failed}" if failed else ""), flush=True)
        return 0 if self.results and not failed else 1
