"""calibrate --measured with a validation workload this umkit does not have: a typed error naming
it (it was silently dropped from the comparison, exit 0)."""
import json

import pytest

from umkit.errors import InvalidArgument
from umkit.measure import calibrate
from umkit.measure.validation_set import workloads_list


def _doc(validation):
    return {"backend": "cuda", "device": "NVIDIA H100", "fit": {"pinned_h2d": 5.0},
            "validation": validation}


def test_known_names_pass():
    name = workloads_list()[0].name
    assert calibrate.check_measured(_doc({name: 1.0}))["validation"] == {name: 1.0}


def test_unknown_name_is_refused_with_its_name():
    with pytest.raises(InvalidArgument, match="no_such_workload"):
        calibrate.check_measured(_doc({"no_such_workload": 1.0}))


def test_cli_exits_2(tmp_path, capsys):
    from umkit import cli
    f = tmp_path / "m.json"
    f.write_text(json.dumps(_doc({"no_such_workload": 1.0})))
    rc = cli.main(["calibrate", "--compare", "--measured", str(f)])
    assert rc == 2 and "no_such_workload" in capsys.readouterr().err
