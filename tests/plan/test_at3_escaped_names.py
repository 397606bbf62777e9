"""Names a caller chose are printed escaped, never obeyed by the terminal: a ModelSpec's name in
Plan.table(), and the --json path in `umkit plan`'s "wrote" line."""
import os
import subprocess
import sys

import umkit
from umkit.workloads import ModelSpec, plan_model

ESC = "\x1b[2J\x1b]52;c;aGk=\x07"


def test_plan_table_escapes_the_model_name():
    t = plan_model(ModelSpec(ESC, 10**8, 4, 256, 4)).table()
    assert "\x1b" not in t and "\x07" not in t
    assert t.startswith("\\x1b[2J\\x1b]52;c;aGk=\\x07 on H200: ")
    assert plan_model("7b").table().startswith("7b on H200: ")     # a plain name as it is


def test_umkit_plan_wrote_line_escapes_the_path(tmp_path):
    with umkit.using("sim"):
        a = umkit.managed(1 << 16)
        with umkit.plan.recorder("tiny") as rec:
            for _ in range(3):
                umkit.increment(a)
                rec.step()
    rec.result().save(tmp_path / "rec.json")
    name = "\x1b[31m.json"
    r = subprocess.run([sys.executable, "-m", "umkit.cli", "plan", "rec.json", "--json", name],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path,
                       env=dict(os.environ, UMKIT_BACKEND="sim"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / name).is_file()
    assert "\x1b" not in r.stdout
    assert "wrote \\x1b[31m.json" in r.stdout
