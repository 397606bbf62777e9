"""A learner's kernel opens each set exercise (02 allocators, 07 placement, 09 diagnosis, 05's
IPC question) with a question drawn afresh: an answer remembered from another kernel, or found by
trying one fresh process after another (GT11: 05 in 11 processes, 09 in 47), does not answer it.
The project's tests and the notebooks' committed outputs (attempts budget off) open with the
notebook's own set.  The solutions' helpers answer whatever set is open."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BODY = """
import json, umkit
umkit.use("sim", profile="mi250x-xnack1", quiet=True)
from umkit.teaching.exercises import nb02, nb05, nb07, nb09
print(json.dumps({"02": list(nb02.BUFFERS), "07": list(nb07.BUFFERS),
                  "09": list(nb09.DIAGNOSIS_SET.names), "05": sorted(nb05.IPC_OPTIONS.values())}))
"""


#: a learner's kernel on 05-09's card with the four official solutions loaded (S) and a reason
SOLUTIONS = """
import umkit
umkit.use("sim", profile="mi250x-xnack1", quiet=True)
from umkit.teaching.exercises import nb02, nb05, nb07, nb09
import runpy
S = {n: runpy.run_path(f"notebooks/solutions/{n}.py") for n in
     ("02_allocation", "05_concurrent_access_pingpong", "07_choosing_a_strategy",
      "09_troubleshooting_and_ecg")}
why = "pick the memory by who reads these buffers and how many times per step"
"""


def _run(body: str, seed: str | None, budget: str | None = None) -> str:
    env = {k: v for k, v in os.environ.items()
           if k not in ("UMKIT_EXERCISE_ATTEMPTS", "UMKIT_EXERCISE_SEED")}
    env.update(UMKIT_BACKEND="sim", PYTHONPATH=str(ROOT))
    if seed is not None:
        env["UMKIT_EXERCISE_SEED"] = seed
    if budget is not None:
        env["UMKIT_EXERCISE_ATTEMPTS"] = budget
    out = subprocess.run([sys.executable, "-c", body], capture_output=True, text=True, env=env,
                         timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def _notebook_sets() -> dict:
    return json.loads(_run(BODY, None, budget="0"))


def test_the_tests_and_the_committed_outputs_open_with_the_notebooks_sets():
    from umkit.teaching.exercises import nb02, nb05, nb07, nb09
    sets = _notebook_sets()
    assert sets == {"02": list(nb02.FIRST_SET), "07": list(nb07.FIRST_SET),
                    "09": list(nb09.FIRST_SET), "05": sorted(nb05.ipc_first_question().values())}


def test_a_learners_kernel_opens_with_a_set_of_its_own():
    notebook = _notebook_sets()
    opened = [json.loads(_run(BODY, str(seed))) for seed in (1, 2, 3)]
    for key in notebook:
        seen = [o[key] for o in opened]
        assert sum(s != notebook[key] for s in seen) >= 2, (key, seen)
        assert len({json.dumps(s) for s in seen}) >= 2, (key, seen)
    # without a seed (a learner's default) two kernels differ too
    a, b = (json.loads(_run(BODY, None)) for _ in range(2))
    assert a != b


def test_the_notebooks_answers_remembered_do_not_pass_a_fresh_learners_kernel():
    out = _run(SOLUTIONS + """
print(nb02.check_allocators(S["02_allocation"]["choice"], why=why).ok,
      nb07.check_placement(S["07_choosing_a_strategy"]["placement"], why=why + " here").ok,
      nb09.check_diagnosis(S["09_troubleshooting_and_ecg"]["diagnosis"], why=why + " now").ok,
      nb05.check_ipc(S["05_concurrent_access_pingpong"]["ipc_answer"], why=why + " too").ok)
""", "7")
    assert out.split() == ["False"] * 4, out


def test_the_solutions_answer_whatever_set_a_learners_kernel_opens():
    out = _run(SOLUTIONS + """
print(nb02.check_allocators(S["02_allocation"]["choice_for"](nb02.BUFFERS), why=why).ok,
      nb07.check_placement(S["07_choosing_a_strategy"]["placement_for"](nb07.BUFFERS),
                           why=why + " here").ok,
      nb09.check_diagnosis(S["09_troubleshooting_and_ecg"]["diagnosis_for"](
          nb09.DIAGNOSIS_SET.names), why=why + " now").ok,
      nb05.check_ipc(S["05_concurrent_access_pingpong"]["ipc_answer_for"](nb05.IPC_OPTIONS),
                     why=why + " too").ok)
""", "7")
    assert out.split() == ["True"] * 4, out


def test_answering_a_set_this_kernel_did_not_open_is_not_a_wrong_try():
    """GT12: a learner who answers the set the committed notebook shows (another kernel's) gets
    "not buffers of this exercise" -- that is not graded, so it spends no try and starts no wait."""
    out = _run(SOLUTIONS + """
from umkit.teaching import exercises
notebook_set = S["07_choosing_a_strategy"]["placement"]
for k in range(12):                         # more than the budget's 8 tries
    v = nb07.check_placement(notebook_set if set(notebook_set) != set(nb07.BUFFERS) else {})
    assert not v.ok and v.not_counted, v
right = S["07_choosing_a_strategy"]["placement_for"](nb07.BUFFERS)
print(nb07.check_placement(right, why=why).ok)
""", "7")
    assert out.split() == ["True"], out
