"""Profiles loaded from files, and overrides passed to use('sim', ...): every bad value gets a
typed umkit error naming the field and the fix; nothing hangs, nothing raw escapes."""
from __future__ import annotations

import json
import math
import os
import threading

import numpy as np
import pytest

import umkit
from umkit.errors import InvalidArgument, InvalidType, UmkitError
from umkit.sim.costs import PROFILE_DIR, load_profile


@pytest.fixture(autouse=True)
def _no_env_backend(monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)


def good() -> dict:
    return json.loads((PROFILE_DIR / "teaching.json").read_text())


def write(tmp_path, doc, name="x.json") -> str:
    p = tmp_path / name
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(p)


def test_a_copy_of_a_shipped_profile_loads(tmp_path):
    p = load_profile(write(tmp_path, good()))
    assert p.fault_bw == load_profile("teaching").fault_bw
    b = umkit.use("sim", profile=write(tmp_path, good(), "y.json"))
    assert b.profile.vram == load_profile("teaching").vram


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_json_literals_are_refused(tmp_path, bad):
    text = json.dumps(good()).replace('"value": 4096', f'"value": {bad}', 1)
    with pytest.raises(InvalidArgument, match="host_page") as e:
        load_profile(write(tmp_path, text))
    assert e.value.hint


@pytest.mark.parametrize("key,value,err", [
    ("fault_bw", -1.0, InvalidArgument),
    ("fault_batch_latency", -5, InvalidArgument),
    ("kernel_launch", 1e400, InvalidArgument),       # json.dumps writes Infinity
    ("vram", True, InvalidType),
    ("sync_device", False, InvalidType),
    ("hbm_bw", "3000", InvalidType),
    ("hbm_bw", None, InvalidType),
    ("hbm_bw", [1], InvalidType),
    ("host_page", 4096.5, InvalidArgument),
    ("fault_bw", 0, InvalidArgument),                # divides: must be > 0
])
def test_bad_parameter_values_name_the_field(tmp_path, key, value, err):
    doc = good()
    doc["params"][key]["value"] = value
    with pytest.raises(err, match=key) as e:
        load_profile(write(tmp_path, doc))
    assert isinstance(e.value, UmkitError) and e.value.hint


@pytest.mark.parametrize("field,value,err", [
    ("mode", "warp", InvalidArgument),
    ("mode", 1, InvalidType),
    ("vendor", "intel", InvalidArgument),
    ("teaching", 1, InvalidType),
    ("teaching", "yes", InvalidType),
    ("name", 7, InvalidType),
    ("params", [], InvalidType),
    ("platform", "nvlink-c2c", InvalidArgument),
    ("platform", 3, InvalidType),
    ("note", ["x"], InvalidType),
])
def test_bad_top_level_fields_name_the_field(tmp_path, field, value, err):
    doc = good()
    doc[field] = value
    with pytest.raises(err, match=field) as e:
        load_profile(write(tmp_path, doc))
    assert e.value.hint


@pytest.mark.parametrize("value", [1.5, 0])
def test_an_xgmi_hive_is_a_whole_number_of_gpus(tmp_path, value):
    doc = good()
    doc["params"]["xgmi_hive_gpus"] = {"value": value, "unit": "GPUs", "source": "estimate: test"}
    with pytest.raises(InvalidArgument, match="xgmi_hive_gpus"):
        load_profile(write(tmp_path, doc))
    doc["params"]["xgmi_hive_gpus"]["value"] = 2
    assert load_profile(write(tmp_path, doc, "ok.json")).same_hive(0, 1)


@pytest.mark.parametrize("entry,err", [
    (5, InvalidType), ({"unit": "B", "source": "s"}, InvalidArgument),
    ({"value": 1, "unit": "parsecs", "source": "s"}, InvalidArgument),
    ({"value": 1, "unit": "B", "source": ""}, InvalidArgument),
    ({"value": 1, "unit": "B", "source": 3}, InvalidType),
])
def test_bad_parameter_entries(tmp_path, entry, err):
    doc = good()
    doc["params"]["host_page"] = entry
    with pytest.raises(err, match="host_page"):
        load_profile(write(tmp_path, doc))


@pytest.mark.parametrize("text", ["{", "", "[1, 2]", "null", "{\"params\": 1}", "\xff\xfe"])
def test_malformed_json_is_a_typed_error(tmp_path, text):
    p = tmp_path / "x.json"
    p.write_bytes(text.encode("latin-1"))
    with pytest.raises(UmkitError) as e:
        load_profile(str(p))
    assert "x.json" in str(e.value) and e.value.hint


def test_a_directory_is_a_typed_error(tmp_path):
    d = tmp_path / "d.json"
    d.mkdir()
    with pytest.raises(InvalidArgument, match="not a regular file"):
        load_profile(str(d))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this OS")
def test_a_fifo_does_not_hang(tmp_path):
    f = tmp_path / "x.json"
    os.mkfifo(f)
    result: list = []

    def load():
        try:
            load_profile(str(f))
        except UmkitError as e:
            result.append(e)
    t = threading.Thread(target=load, daemon=True)
    t.start()
    t.join(timeout=10)
    if t.is_alive():                   # unblock the reader so the test run can end
        fd = os.open(f, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        pytest.fail("load_profile hung on a FIFO")
    assert result and "not a regular file" in str(result[0])


def test_a_huge_file_is_refused_before_reading(tmp_path):
    p = tmp_path / "big.json"
    with open(p, "wb") as f:
        f.truncate(1 << 30)            # 1 GiB, sparse: costs no disk
    with pytest.raises(InvalidArgument, match="too large"):
        load_profile(str(p))


def test_missing_file_and_wrong_type():
    with pytest.raises(InvalidArgument, match="not found"):
        load_profile("no/such/profile.json")
    with pytest.raises(InvalidType, match="profile"):
        load_profile(3.5)


# -- overrides ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key,value,err", [
    ("vram", math.nan, InvalidArgument), ("vram", math.inf, InvalidArgument),
    ("vram", -1, InvalidArgument), ("vram", True, InvalidArgument),
    ("vram", "1GiB", InvalidArgument), ("fault_bw", 0.0, InvalidArgument),
    ("host_page", 3000, InvalidArgument), ("hbm_bw", np.bool_(True), InvalidArgument),
    ("warp_speed", 1, InvalidArgument),
])
def test_bad_overrides_are_typed_errors_naming_the_field(key, value, err):
    with pytest.raises(err, match=key) as e:
        umkit.use("sim", **{key: value})
    assert e.value.hint


def test_numpy_number_overrides_are_accepted():
    b = umkit.use("sim", vram=np.int64(256 << 20), fault_bw=np.float32(1e10))
    assert b.profile.vram == 256 << 20 and isinstance(b.profile.vram, float)
