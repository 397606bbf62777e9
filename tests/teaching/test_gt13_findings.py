"""What the independent exercise gamer GT13 found misleading, each test failing before its fix:

- notebook 05's fix check refused a preset's name but took the preset object itself;
- its "still spiky" message said the statistic's pages were faulted in again beside
  ``cpu_faults=0, gpu_faults=0`` when a prefetch had moved them;
- arrays from two sim backends were said to be on "another backend instance (sim) than the other
  arrays (sim)";
and, from the attacker AT8, the workspace's record of untouched copies, never rewritten after the
first sync."""
from __future__ import annotations

import pytest

import umkit
from umkit.errors import InvalidArgument
from umkit.runtime.lang import tr
from umkit.teaching.exercises import nb05

# the attempts budget is off for these tests (the repository's conftest.py); sim, English after
pytestmark = pytest.mark.usefixtures("sim_english")


def test_a_preset_object_is_refused_like_its_name():
    for name, preset in umkit.workloads.STRATEGIES.items():
        v = nb05.check_pingpong_fix(preset)
        assert not v.ok and "not the name of a preset" in v.message, (name, v)
    # a Strategy of one's own with the preset's settings is graded
    mine = umkit.workloads.Strategy("my fix", memory="mixed")
    assert "not the name of a preset" not in nb05.check_pingpong_fix(mine).message


def test_a_spike_moved_by_a_prefetch_is_said_so():
    s = umkit.workloads.Strategy("f", "managed", prefetch="gpu", advice="preferred_gpu")
    v = nb05.check_pingpong_fix(s)
    assert not v.ok and "still spiky" in v.message, v
    assert "your prefetch moved" in v.message and "CPU faults" in v.message, v.message
    assert "cpu_faults=0, gpu_faults=0" not in v.message
    zh = tr(v.message, "zh")
    assert "你的预取" in zh and "still" not in zh, zh


def test_arrays_of_two_sim_backends_are_said_to_be_two_instances():
    a = umkit.managed(16)
    umkit.use("sim", quiet=True)
    b = umkit.managed(16)
    with pytest.raises(InvalidArgument) as e:
        umkit.copy(b, a)
    msg = str(e.value)
    assert "another instance of the sim backend" in msg and "(sim) than" not in msg, msg
    assert "inside the function" in e.value.hint
    zh = tr(msg.split("\n")[0], "zh")
    assert "不同实例" in zh, zh


def test_the_workspace_record_follows_every_sync(tmp_path):
    """AT8 #5: the record of untouched copies was written once and never again, so a second
    change of a source was taken for the learner's edit and the copy was never refreshed."""
    import json
    import shutil
    from pathlib import Path

    from umkit.teaching import workspace
    src = tmp_path / "src"
    src.mkdir()
    nb = Path(__file__).resolve().parents[2] / "notebooks" / "01_umd_and_kmd.ipynb"
    shutil.copy(nb, src / nb.name)
    dest = tmp_path / "ws"
    workspace.sync(src=src, dest=dest)

    def edit_source(marker: str):
        d = json.loads((src / nb.name).read_text())
        d["cells"][0]["source"] = [marker]
        (src / nb.name).write_text(json.dumps(d))
    for k in range(3):
        edit_source(f"# version {k}\n")
        rep = workspace.sync(src=src, dest=dest)
        assert rep.updated == [nb.name] and not rep.kept, (k, rep)
        assert f"# version {k}" in (dest / nb.name).read_text()
    # a copy the learner edits is still kept
    (dest / nb.name).write_text((dest / nb.name).read_text().replace("# version 2", "# mine"))
    edit_source("# version 3\n")
    rep = workspace.sync(src=src, dest=dest)
    assert rep.kept == [nb.name] and "# mine" in (dest / nb.name).read_text()
