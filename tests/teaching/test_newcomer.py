"""A newcomer's first ten minutes: what notebook 00's doctor says about the card the session
models, what ``bash run.sh help`` prints and how it says to reach the ``umkit`` command, and what
``bash test.sh`` does to the system (which Debian packages, no upgrade, no diversion left behind).

``run.sh`` runs on a copy of the repository (``repo_tools.copy_repo``) with this interpreter's
venv; ``scripts/setup_test_packages.sh`` (test.sh's apt part) runs against stand-ins for apt-get,
dpkg and dpkg-divert put first on PATH, so nothing on this machine is installed or diverted."""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import umkit
from umkit.diagnostics import doctor as doctor_module
from repo_tools import ROOT, copy_repo

PKG_SCRIPT = ROOT / "scripts" / "setup_test_packages.sh"
#: what the package script installs on a machine that has none of it (no fc-list here: no CJK font)
PACKAGES = {"chromium", "hipcc", "npm", "gettext", "fonts-wqy-microhei"}


# -- the doctor in notebook 00: the card the session models ---------------------------------------
@pytest.mark.parametrize("profile", ["mi250x-xnack1", "mi300a-apu"])
def test_doctor_reports_the_profile_the_session_uses(profile):
    """Notebook 00 sets PROFILE (an AMD card) and then runs umkit.doctor(): the report must name
    that modelled card and profile, not the default H200."""
    from umkit.sim.costs import load_profile
    title = load_profile(profile).title
    with umkit.using("sim", profile=profile):
        out = io.StringIO()
        assert umkit.doctor(file=out) == 0
    text = out.getvalue()
    assert f"Device 0: {title}" in text, text
    assert f"profile {profile}" in text, text
    assert "h200-pcie5" not in text.split("Packages:")[0], text


def test_doctor_without_a_session_describes_the_default_card():
    rep = doctor_module.report("sim", run_tools=False)
    assert rep["ok"] and rep["devices"][0]["name"]


# -- bash run.sh help, and the umkit command ------------------------------------------------------
def _run_sh(repo: Path, *args, cwd: Path | None = None, script: str = "run.sh"):
    env = dict(os.environ, UMKIT_VENV=str(Path(sys.executable).parent.parent), UMKIT_SKIP_INSTALL="1")
    return subprocess.run(["bash", script, *args], cwd=cwd or repo, env=env, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    if shutil.which("git") is None:
        pytest.skip("git is needed to copy the repository's files")
    return copy_repo(tmp_path_factory.mktemp("newcomer") / "repo")


@pytest.mark.parametrize("where", ["repo", "parent", "subfolder"])
def test_run_sh_help_is_the_header_alone_from_any_folder(repo, where):
    """From the repository, from its parent (``bash repo/run.sh help``) and from a subfolder
    (``bash ../run.sh help``): the header comment, no code line, and no error."""
    cwd, script = {"repo": (repo, "run.sh"), "parent": (repo.parent, f"{repo.name}/run.sh"),
                   "subfolder": (repo / "scripts", "../run.sh")}[where]
    r = _run_sh(repo, "help", cwd=cwd, script=script)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.rstrip("\n").splitlines()
    assert lines and lines[0].startswith("umkit:"), r.stdout
    header = [ln for ln in (repo / "run.sh").read_text().splitlines()[1:]
              if ln.startswith("#")]
    assert len(lines) <= len(header)
    code = ("set -", "cd ", ". scripts", "usage()", "case ", "exec ")
    assert not any(ln.lstrip().startswith(code) for ln in lines), lines[-3:]
    assert "can't read" not in r.stderr and "No such file" not in r.stderr, r.stderr


def test_run_sh_help_says_how_to_run_the_umkit_command(repo):
    """`umkit doctor` typed in a new shell is 'command not found' until the venv is on PATH: the
    help names the command's path and the two other ways in."""
    text = _run_sh(repo, "help").stdout
    assert ".venv/bin/umkit" in text, text
    assert "source .venv/bin/activate" in text, text


def test_run_sh_puts_the_umkit_command_on_the_path_of_what_it_starts(repo, tmp_path):
    """JupyterLab's terminals and ``!umkit doctor`` in a notebook inherit run.sh's environment:
    the venv's bin/ comes first on PATH, and run.sh says where the command is."""
    venv = Path(sys.executable).parent.parent
    fake = tmp_path / "venv" / "bin"
    fake.mkdir(parents=True)
    # the kit venv's python itself (a symlink would lose the venv: its pyvenv.cfg is beside the
    # real one), so that run.sh's workspace copy can read the notebooks
    (fake / "python").write_text(f"#!/bin/sh\nexec {sys.executable} \"$@\"\n")
    (fake / "python").chmod(0o755)
    # a stand-in for the JupyterLab entry point: it reports the PATH it was started with
    (fake / "jupyter").write_text("#!/bin/sh\necho \"PATH=$PATH\"\ncommand -v umkit\n")
    (fake / "jupyter").chmod(0o755)
    (fake / "umkit").write_text("#!/bin/sh\necho fake umkit\n")
    (fake / "umkit").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env.update(UMKIT_VENV=str(fake.parent), UMKIT_SKIP_INSTALL="1",
               PATH=os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                    if not p.startswith(str(venv))))
    r = subprocess.run(["bash", "run.sh", "lab"], cwd=repo, env=env, capture_output=True,
                       text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    path_line = next(ln for ln in r.stdout.splitlines() if ln.startswith("PATH="))
    assert path_line[len("PATH="):].split(os.pathsep)[0] == str(fake), path_line
    assert r.stdout.strip().splitlines()[-1] == str(fake / "umkit")
    assert f"{fake}/umkit" in r.stderr or "bin/umkit" in r.stderr, r.stderr


# -- bash test.sh: what it installs, and what it leaves behind ---------------------------------------
FAKE_APT = r"""#!/bin/sh
# apt-get stand-in: logs its arguments; a simulated install prints the Inst lines of $FAKE_PLAN
echo "apt-get $*" >>"$FAKE_LOG"
case " $* " in
  *" -s "*|*" --simulate "*) [ -n "$FAKE_PLAN" ] && cat "$FAKE_PLAN"; exit 0 ;;
  *" install "*) for a in "$@"; do case "$a" in -*|install) ;; *) : >"$FAKE_BIN/$a"; chmod +x "$FAKE_BIN/$a" ;; esac; done ;;
esac
exit 0
"""
FAKE_DPKG = r"""#!/bin/sh
# dpkg -L libamdhip64-dev: the one file the diversion is about
echo "dpkg $*" >>"$FAKE_LOG"
[ "$1" = -L ] && [ "$2" = libamdhip64-dev ] && [ -e "$FAKE_LIB" ] && echo "$FAKE_LIB"
exit 0
"""
FAKE_DIVERT = r"""#!/bin/sh
# dpkg-divert stand-in: --add renames the file to the --divert name, --remove renames it back
echo "dpkg-divert $*" >>"$FAKE_LOG"
div=""; action=""; file=""
while [ $# -gt 0 ]; do
  case "$1" in --divert) div=$2; shift ;; --add) action=add ;; --remove) action=remove ;;
    --list) exit 0 ;; -*) ;; *) file=$1 ;; esac; shift
done
[ -z "$div" ] && div="$file.hidden-by-umkit"
case "$action" in add) mv "$file" "$div" ;; remove) [ -e "$div" ] && mv "$div" "$file" ;; esac
exit 0
"""


def _fake_system(tmp_path: Path, plan: str = "") -> dict:
    fake = tmp_path / "bin"
    fake.mkdir()
    for name, text in (("apt-get", FAKE_APT), ("dpkg", FAKE_DPKG), ("dpkg-divert", FAKE_DIVERT)):
        (fake / name).write_text(text)
        (fake / name).chmod(0o755)
    (fake / "id").write_text("#!/bin/sh\necho 0\n")           # root, for the script's check
    (fake / "id").chmod(0o755)
    lib = tmp_path / "lib" / "libamdhip64.so"
    lib.parent.mkdir()
    lib.write_text("HIP 5.2")
    planfile = tmp_path / "plan.txt"
    planfile.write_text(plan)
    base = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p]
    # only the shell's own tools from the system: no real chromium, hipcc or npm
    keep = tmp_path / "sys"
    keep.mkdir()
    for tool in ("sh", "bash", "cat", "grep", "mv", "chmod", "rm", "echo", "sed", "printf",
                 "mkdir", "dirname", "test", "[", "tr", "sleep"):
        found = shutil.which(tool, path=os.pathsep.join(base))
        if found:
            (keep / tool).symlink_to(found)
    return dict(PATH=f"{fake}{os.pathsep}{keep}", FAKE_BIN=str(fake),
                FAKE_LOG=str(tmp_path / "log.txt"), FAKE_PLAN=str(planfile), FAKE_LIB=str(lib),
                HOME=str(tmp_path), LANG="C.UTF-8")


def _packages(tmp_path: Path, env: dict, body: str) -> subprocess.CompletedProcess:
    script = f". {PKG_SCRIPT}\n{body}\n"
    return subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)


def _log(env) -> list[str]:
    p = Path(env["FAKE_LOG"])
    return p.read_text().splitlines() if p.exists() else []


def test_test_sh_uses_the_package_script_and_runs_no_exec_past_its_cleanup():
    """test.sh sources the package script and ends through the exit trap (an ``exec pytest``
    would skip the trap that undoes the diversion)."""
    text = (ROOT / "test.sh").read_text()
    assert ". scripts/setup_test_packages.sh" in text
    code = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    assert not any(ln.startswith("exec ") for ln in code), code
    assert any(ln.startswith("trap ") for ln in code) or "trap " in PKG_SCRIPT.read_text()


def test_packages_install_without_recommends_and_without_upgrading(tmp_path):
    env = _fake_system(tmp_path)
    r = _packages(tmp_path, env, "umkit_test_packages")
    assert r.returncode == 0, r.stderr
    installs = [ln for ln in _log(env) if " install " in f" {ln} " and " -s " not in f" {ln} "]
    assert {ln.split()[-1] for ln in installs} == PACKAGES, _log(env)
    for ln in installs:
        assert "--no-install-recommends" in ln and "--no-upgrade" in ln, ln
    # every real install was simulated first
    sims = [ln for ln in _log(env) if " -s " in f" {ln} "]
    assert {ln.split()[-1] for ln in sims} == PACKAGES, _log(env)


def test_a_package_that_would_upgrade_the_system_is_not_installed(tmp_path):
    plan = ("Inst libfoo1 (1.0 Debian:12 [amd64])\n"
            "Inst perl [5.36.0-7+deb12u1] (5.36.0-7+deb12u2 Debian:12 [amd64])\n")
    env = _fake_system(tmp_path, plan)
    r = _packages(tmp_path, env, "umkit_test_packages")
    assert r.returncode == 0, r.stderr
    installs = [ln for ln in _log(env) if " install " in f" {ln} " and " -s " not in f" {ln} "]
    assert installs == [], _log(env)
    assert "perl" in r.stderr and "skipped" in r.stderr, r.stderr


def test_the_hip_runtime_is_hidden_for_the_tests_and_restored_at_exit(tmp_path):
    env = _fake_system(tmp_path)
    lib = Path(env["FAKE_LIB"])
    r = _packages(tmp_path, env, f"""umkit_hide_hip_runtime
[ -e "{lib}" ] && echo VISIBLE || echo HIDDEN
exit 3""")
    assert r.returncode == 3, r.stderr                 # the script's own exit code survives
    assert r.stdout.split() == ["HIDDEN"], (r.stdout, r.stderr)
    assert lib.exists() and not Path(f"{lib}.hidden-by-umkit").exists(), _log(env)
    log = _log(env)
    assert any("--add" in ln for ln in log) and any("--remove" in ln for ln in log), log


def test_the_hip_runtime_is_restored_when_the_tests_are_interrupted(tmp_path):
    env = _fake_system(tmp_path)
    lib = Path(env["FAKE_LIB"])
    r = _packages(tmp_path, env, "umkit_hide_hip_runtime\nkill -TERM $$\nsleep 5")
    assert r.returncode != 0
    assert lib.exists() and not Path(f"{lib}.hidden-by-umkit").exists(), _log(env)


def test_a_machine_with_an_amd_gpu_keeps_its_runtime(tmp_path):
    env = _fake_system(tmp_path)
    env["UMKIT_KFD"] = str(tmp_path / "lib" / "libamdhip64.so")   # an existing path stands in for /dev/kfd
    r = _packages(tmp_path, env, "umkit_hide_hip_runtime")
    assert r.returncode == 0, r.stderr
    assert not any("--add" in ln for ln in _log(env)), _log(env)


def test_the_apt_part_simulated_on_this_machine_upgrades_nothing():
    """The script's apt options, simulated with the real apt-get (as root, where the package lists
    know chromium): no package already installed is upgraded."""
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        pytest.skip("needs apt-get as root")
    opts = subprocess.run(["bash", "-c", f'. {PKG_SCRIPT}; printf "%s\\n" "${{UMKIT_APT_OPTS[@]}}"'],
                          capture_output=True, text=True, timeout=30).stdout.split()
    assert "--no-install-recommends" in opts and "--no-upgrade" in opts, opts
    for pkg in ("chromium", "hipcc"):
        r = subprocess.run(["apt-get", "install", "-s", *opts, pkg], capture_output=True,
                           text=True, timeout=120, env=dict(os.environ, LANG="C"))
        if r.returncode != 0 or "Unable to locate" in r.stderr:
            pytest.skip(f"apt cannot resolve {pkg} here (run apt-get update): {r.stderr[-300:]}")
        upgrades = [ln for ln in r.stdout.splitlines() if ln.startswith("Inst ") and " [" in
                    ln.split("(")[0]]
        assert upgrades == [], upgrades


# -- the notebooks a newcomer opens first ------------------------------------------------------------
def _cells(name: str) -> list[dict]:
    import json
    return json.loads((ROOT / "notebooks" / name).read_text())["cells"]


def _before(cells, marker: str) -> list[dict]:
    """The cells before the one whose source contains ``marker`` (an exercise's check call)."""
    i = next(k for k, c in enumerate(cells) if marker in "".join(c["source"]))
    return cells[:i]


@pytest.mark.parametrize("notebook, check, answers", [
    # which calls reach the kernel driver: the trace after the prediction shows it, the prose
    # before the prediction must not
    ("01_umd_and_kmd.ipynb", 'predict("UMD or KMD?"', ("SVM ioctl", "both end in KFD")),
    # which ways of sharing memory between processes work: told after the exercise
    ("05_concurrent_access_pingpong.ipynb", "nb05.check_ipc(",
     ("hipIpcGetMemHandle", "mmap", "IPC handles", "file mapping")),
])
def test_the_prose_before_an_exercise_does_not_give_its_answer(notebook, check, answers):
    cells = _before(_cells(notebook), check)
    prose = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    figures = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    for a in answers:
        assert a not in prose, (notebook, a)
        assert a not in figures, (notebook, a)


def test_the_ipc_answer_is_still_told_after_the_exercise():
    cells = _cells("05_concurrent_access_pingpong.ipynb")
    i = next(k for k, c in enumerate(cells) if "nb05.check_ipc(" in "".join(c["source"]))
    after = "\n".join("".join(c["source"]) for c in cells[i + 1:] if c["cell_type"] == "markdown")
    assert "hipIpcGetMemHandle" in after and "mmap" in after


def test_the_map_of_the_kit_in_00_names_every_notebook():
    import re
    text = "\n".join("".join(c["source"]) for c in _cells("00_start_here.ipynb")
                     if c["cell_type"] == "markdown")
    for nb in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        num = nb.name[:2]
        assert re.search(rf"^\| \*\*{num} ", text, re.M), f"00's map leaves out {nb.name}"


def test_the_layers_prediction_comes_before_the_trace_that_answers_it():
    """01's UMD/KMD question is a prediction the trace then answers: the trace cell follows it."""
    cells = _cells("01_umd_and_kmd.ipynb")
    guess = next(i for i, c in enumerate(cells) if 'predict("UMD or KMD?"' in "".join(c["source"]))
    traces = [i for i, c in enumerate(cells)
              if c["cell_type"] == "code" and "umkit.trace(" in "".join(c["source"])]
    assert traces and min(traces) > guess, (guess, traces)


def test_notebook_07_renders_the_unified_memory_perf_tables():
    """The UnifiedMemoryPerf section (notebook 07b since the split of 07) shows the measured tables
    rendered (a text/markdown output), not printed as raw Markdown pipes."""
    cells = _cells("07b_multi_gpu_and_scale.ipynb")
    cell = next(c for c in cells if c["cell_type"] == "code"
                and "umperf.side_by_side(" in "".join(c["source"]))
    outs = cell.get("outputs", [])
    printed = "".join("".join(o.get("text", "")) for o in outs if o["output_type"] == "stream")
    assert not any(ln.lstrip().startswith("|") for ln in printed.splitlines()), printed[:500]
    shown = ["".join(o["data"]["text/markdown"]) for o in outs
             if "text/markdown" in o.get("data", {})]
    assert shown and all("|" in md for md in shown)
