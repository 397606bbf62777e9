"""Numbers in the notebooks' prose come from the outputs beside them: each check reads the
number from the committed output and requires the prose to quote it (rounded as the prose
rounds), so a change of model that moves an output cannot leave the text behind."""
import json
import re
from pathlib import Path

import pytest

NB = Path(__file__).resolve().parents[2] / "notebooks"


def _cells(name):
    return json.loads((NB / name).read_text())["cells"]


def _out(cell) -> str:
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))


def _find(cells, needle):
    for i, c in enumerate(cells):
        if needle in "".join(c["source"]):
            return i, c
    raise AssertionError(f"no cell contains {needle!r}")


def nb00_stored_example():
    """00 quotes the MI250X row of its prefetch reveal as its example of a stored result."""
    cells = _cells("00_start_here.ipynb")
    _, c = _find(cells, 'for name in ["teaching", "h200-pcie5", "mi250x-xnack1"')
    shown = "".join("".join(o.get("data", {}).get("text/plain", "")) for o in c.get("outputs", []))
    row = re.search(r"^mi250x-xnack1\s+\S+\s+([\d.]+)", _out(c) + shown, re.M)
    _, prose = _find(cells, "A stored \"")
    quoted = float(re.search(r'A stored "([\d.]+) ms"', "".join(prose["source"])).group(1))
    return float(row.group(1)), quoted, 0.1


def nb03_split_speedup():
    cells = _cells("03_migration_prefetch_advice.ipynb")
    _, c = _find(cells, 'print("split (§4.3)    step ms:"')
    lines = {ln.split(" step ms:")[0].strip(): [float(v) for v in ln.split(":")[1].split()]
             for ln in _out(c).splitlines() if "step ms:" in ln}
    _, prose = _find(cells, "faster per step on the MI250X")
    quoted = float(re.search(r"about (\d+)× faster per step", "".join(prose["source"])).group(1))
    return lines["no hints"][-1] / lines["split (§4.3)"][-1], quoted, 10.0


@pytest.mark.parametrize("check", [nb00_stored_example, nb03_split_speedup],
                         ids=lambda f: f.__name__)
def test_prose_quotes_the_output(check):
    actual, quoted, rounding = check()
    assert abs(actual - quoted) <= rounding / 2 + 1e-9, (actual, quoted)


def nb07_whole_model_split():
    cells = _cells("07b_multi_gpu_and_scale.ipynb")          # 07's section moved to 07b in the split
    _, c = _find(cells, 'W.model_step_costs("13b", "H200"')
    ms = {m[0]: float(m[1]) for m in re.findall(r"^(\S+)\s+([\d.]+)\s+\d+\s+\d+", _out(c), re.M)}
    _, prose = _find(cells, "per step than plain managed")
    quoted = float(re.search(r"about (\d+)× faster\s+per step than plain managed",
                             "".join(prose["source"])).group(1))
    return ms["managed"] / ms["mixed"], quoted, 1.0


def test_whole_model_prose_quotes_the_output():
    actual, quoted, rounding = nb07_whole_model_split()
    assert abs(actual - quoted) <= rounding / 2 + 1e-9, (actual, quoted)
