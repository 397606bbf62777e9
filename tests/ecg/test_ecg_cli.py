"""`umkit ecg` on sim writes a PNG and a JSON, and the JSON is identical across two runs."""
import json
import subprocess
import sys

import pytest


def _run(tmp_path, tag):
    png, js = tmp_path / f"ecg-{tag}.png", tmp_path / f"ecg-{tag}.json"
    r = subprocess.run([sys.executable, "-m", "umkit.cli", "ecg", "--steps", "50", "--backend", "sim",
                        "--quiet", "--out", str(png), "--json", str(js)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return png, js, r.stdout


@pytest.mark.slow
def test_ecg_writes_png_and_identical_json(tmp_path):
    png1, js1, out1 = _run(tmp_path, "a")
    png2, js2, _ = _run(tmp_path, "b")
    assert png1.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png1.stat().st_size > 10_000
    assert js1.read_bytes() == js2.read_bytes()
    ecg = json.loads(js1.read_text())
    assert set(ecg["curves"]) == {"device", "managed", "managed+prefetch", "managed+advice",
                                  "mixed", "pinned"}
    assert all(len(c) == 50 for c in ecg["curves"].values())
    verdict = {r["strategy"]: r["verdict"] for r in ecg["summary"]}
    # the article's lesson: CPU statistics on managed parameters make spikes (advice doesn't
    # stop the CPU's reads migrating over PCIe, as on the H200); hot data in device memory does
    assert verdict["managed"] == "spiky" and verdict["managed+advice"] == "spiky"
    assert verdict["mixed"] == "flat" and verdict["device"] == "flat"
    assert "memory ECG" in out1


@pytest.mark.parametrize("argv,code", [(["ecg", "--steps", "0"], 2),
                                       (["ecg", "--backend", "hip"], 1),
                                       # an unknown profile is a bad argument: usage (2)
                                       (["ecg", "--profile", "nope", "--backend", "sim"], 2)])
def test_ecg_bad_input_exits_cleanly(argv, code):
    r = subprocess.run([sys.executable, "-m", "umkit.cli", *argv], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == code, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("extra,says", [
    (["--out", "{tmp}"], "is a directory"),
    (["--out", "{tmp}/nofolder/x.png"], "does not exist"),
    (["--out", "{tmp}/x.bmpx"], "unknown extension"),
    (["--json", "/dev/full"], "not a regular file"),
    (["--json", "{tmp}/x.txt"], "unknown extension"),
    (["--steps", "100000000"], "--steps"),
    (["--strategies", ""], "--strategies is empty"),
    (["--strategies", "managed,nope"], "'nope' is unknown"),
])
def test_ecg_checks_arguments_and_paths_before_the_run(tmp_path, extra, says):
    """Unwritable outputs and bad values are refused at once (exit 2, no traceback, no run)."""
    argv = [a.replace("{tmp}", str(tmp_path)) for a in extra]
    r = subprocess.run([sys.executable, "-m", "umkit.cli", "ecg", "--backend", "sim", "--steps",
                        "3", "--quiet", *argv], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and says in r.stderr
    assert "memory ECG" not in r.stdout           # nothing ran
