"""The GPU extras: one per stack, each named in the README's table with what it installs, each pin
resolvable on the package index (pip's resolver, nothing installed), and run.sh's choice
(scripts/setup_venv.sh, umkit_pick_extra) follows the machine's ROCm or NVIDIA driver version."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXTRAS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
GPU = ["cu13", "cu12", "rocm7", "rocm10"]
ALIASES = {"cuda": "cu13", "rocm": "rocm7"}


def _name(req: str) -> str:
    return re.match(r"[A-Za-z0-9_.\-]+", req).group(0).lower().replace("_", "-")


def expanded(extra: str) -> list[str]:
    out = []
    for req in EXTRAS[extra]:
        m = re.fullmatch(r"umkit\[([\w,]+)\]", req)
        out += [r for e in m.group(1).split(",") for r in expanded(e)] if m else [req]
    return out


def readme_rows() -> dict:
    text = (ROOT / "README.md").read_text()
    rows = {}
    for line in text.splitlines():
        m = re.match(r"\| `(\w+)`(?: \(also `(\w+)`\))? \| ([^|]+) \| ([^|]+) \|", line)
        if m and m.group(1) in EXTRAS:
            rows[m.group(1)] = {"alias": m.group(2), "for": m.group(3), "installs": m.group(4)}
    return rows


def test_aliases_are_the_current_stacks():
    for alias, extra in ALIASES.items():
        assert EXTRAS[alias] == [f"umkit[{extra}]"]


def test_readme_table_matches_the_extras():
    rows = readme_rows()
    assert sorted(rows) == sorted(GPU)
    for extra in GPU:
        listed = rows[extra]["installs"].lower()
        for req in EXTRAS[extra]:
            assert _name(req) in listed, f"README's {extra} row does not name {_name(req)}"
    assert {rows[e]["alias"] for e in GPU if rows[e]["alias"]} == set(ALIASES)
    for alias, extra in ALIASES.items():
        assert rows[extra]["alias"] == alias


def _index_reachable() -> bool:
    r = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "hip-python"],
                       capture_output=True, text=True, timeout=120)
    return r.returncode == 0 and "Available versions" in r.stdout


@pytest.mark.slow
@pytest.mark.parametrize("extra", GPU)
def test_pins_resolve_on_the_index(extra, tmp_path):
    if not _index_reachable():
        pytest.skip("the package index is not reachable from here")
    report = tmp_path / "r.json"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
                        "--quiet", "--disable-pip-version-check", "--report", str(report),
                        *expanded(extra)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    got = {i["metadata"]["name"].lower().replace("_", "-"): i["metadata"]["version"]
           for i in json.loads(report.read_text())["install"]}
    for req in expanded(extra):
        assert _name(req) in got
    major = {"cu13": "13", "cu12": "12", "rocm7": "7", "rocm10": "10"}[extra]
    key = "cuda-bindings" if extra.startswith("cu") else "hip-python"
    assert got[key].split(".")[0] == major, got


def pick(tmp_path, *, rocm=None, driver=None, override=None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "UMKIT_GPU"}
    fake = tmp_path / "bin"
    fake.mkdir(exist_ok=True)
    if driver is not None:
        (fake / "nvidia-smi").write_text(f"#!/bin/sh\necho {driver}\n")
        (fake / "nvidia-smi").chmod(0o755)
    if rocm is not None:
        (tmp_path / "rocm" / ".info").mkdir(parents=True, exist_ok=True)
        (tmp_path / "rocm" / ".info" / "version").write_text(rocm + "\n")
    env.update(UMKIT_ROCM_PATH=str(tmp_path / "rocm"), PATH=f"{fake}:/usr/bin:/bin")
    if override:
        env["UMKIT_GPU"] = override
    stack = "rocm" if rocm is not None else "cuda"
    r = subprocess.run(["bash", "-c", f"set -euo pipefail; . scripts/setup_venv.sh; umkit_pick_extra {stack}"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout.rstrip("\n")


@pytest.mark.parametrize("version,extra", [("7.1.0-36", "rocm7"), ("7.0.2", "rocm7"),
                                           ("10.0.0", "rocm10"), ("6.4.1", "")])
def test_run_sh_picks_the_rocm_extra(tmp_path, version, extra):
    out = pick(tmp_path, rocm=version)
    assert out.split(" ")[0] == extra if extra else out.startswith(" ")
    assert version.split("-")[0] in out                      # it says why


@pytest.mark.parametrize("driver,extra", [("580.105.08", "cu13"), ("595.45.04", "cu13"),
                                          ("550.54.15", "cu12"), ("470.82.01", "")])
def test_run_sh_picks_the_cuda_extra(tmp_path, driver, extra):
    out = pick(tmp_path, driver=driver)
    assert out.split(" ")[0] == extra if extra else out.startswith(" ")
    assert driver in out


def test_override_names_an_extra(tmp_path):
    assert pick(tmp_path, driver="580.1", override="cu12").split(" ")[0] == "cu12"


def test_setup_venv_installs_the_picked_extra_and_stamps_it(tmp_path):
    """run.sh's install step on a machine with NVIDIA driver 550: pip gets .[lab,cu12], the
    stamp records cu12, and it says which extra and why (a stub python logs what pip was asked)."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    log = tmp_path / "pip-args"
    (venv / "bin" / "python").write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    (venv / "bin" / "python").chmod(0o755)
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "nvidia-smi").write_text("#!/bin/sh\necho 550.54.15\n")
    (fake / "nvidia-smi").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("UMKIT_GPU", "UMKIT_SKIP_INSTALL")}
    env.update(UMKIT_VENV=str(venv), PATH=f"{fake}:/usr/bin:/bin")
    r = subprocess.run(["bash", "-c", "set -euo pipefail; . scripts/setup_venv.sh; setup_venv lab auto"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "-e .[lab,cu12]" in log.read_text()
    assert "driver 550.54.15" in r.stderr and "cu12" in r.stderr
    assert (venv / ".umkit-install-stamp").read_text().split()[2] == "cu12"
    # the same machine again: nothing to install
    log.unlink()
    r = subprocess.run(["bash", "-c", "set -euo pipefail; . scripts/setup_venv.sh; setup_venv lab auto"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and not log.exists()
