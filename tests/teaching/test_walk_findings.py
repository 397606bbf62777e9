"""What a learner walking the course in a browser (WALK, issue 42) stumbled on, each a test:
08's port check judges a location struct by where it is passed, not by its declaration; 02's
allocator exercise prints its set in one cell and grades it in the next; 07's pass message does
not contradict an accepted pinned answer; 05's printed pointer sentence reaches a Chinese learner
in Chinese."""
import json
import runpy
from pathlib import Path

import pytest

import umkit
from umkit.teaching.exercises import nb07, nb08

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def sim():
    umkit.use("sim", profile="mi250x-xnack1", quiet=True)
    yield
    umkit.use("sim", quiet=True, lang="en")


def _solutions(nb: str) -> dict:
    return runpy.run_path(str(ROOT / "notebooks" / "solutions" / nb))


def test_an_unused_location_struct_does_not_fail_a_classic_port():
    port = _solutions("08_porting_cuda_to_hip.py")["hip_source"]
    assert nb08.check_port("hipMemLocation gpu0 = {};\n" + port).ok


def test_a_location_struct_passed_to_a_classic_call_still_fails():
    port = _solutions("08_porting_cuda_to_hip.py")["hip_source"]
    bad = ("hipMemLocation gpu0 = {};\ngpu0.type = hipMemLocationTypeDevice;\ngpu0.id = 0;\n" +
           port.replace("hipMemPrefetchAsync(w, bytes, 0, stream)",
                        "hipMemPrefetchAsync(w, bytes, gpu0, stream)"))
    v = nb08.check_port(bad)
    assert not v.ok and "hipMemLocation" in v.message


def test_02_prints_its_set_in_one_cell_and_grades_it_in_the_next():
    for path in ("notebooks/02_allocation.ipynb", "notebooks/zh/02_allocation.ipynb"):
        cells = json.loads((ROOT / path).read_text())["cells"]
        code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
        printing = [i for i, s in enumerate(code) if "nb02.BUFFERS.items()" in s]
        grading = [i for i, s in enumerate(code) if "nb02.check_allocators(" in s]
        assert len(printing) == 1 and grading == [printing[0] + 1], path
        assert "check_allocators" not in code[printing[0]]


def test_07s_pass_message_does_not_say_managed_where_pinned_was_accepted():
    nb07.PLACEMENT_SET.reopen_first()               # the notebook's set (the budget is off here)
    answer = dict(_solutions("07_choosing_a_strategy.py")["placement"],
                  rare_embeddings="pinned", checkpoint="pinned")    # WALK's accepted answer
    v = nb07.check_placement(answer)
    assert v.ok, v.message
    assert "rare data managed" not in v.message


def test_05s_pointer_sentence_is_said_in_chinese():
    cells = json.loads((ROOT / "notebooks/zh/05_concurrent_access_pingpong.ipynb").read_text())["cells"]
    out = "".join("".join(o.get("text", "")) for c in cells if c["cell_type"] == "code"
                  for o in c.get("outputs", []) if "0x" in "".join(o.get("text", "")))
    assert "托管指针就是数字" in out and "that number is all another process" not in out
