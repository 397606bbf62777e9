"""What a practitioner gets from ``pip install umkit``: the wheel built from this tree holds every
module under umkit/, the kernels, the profiles, the ledger and both editions of the course; a
fresh venv outside the checkout runs the commands the README promises and nbval over the
workspace it makes.  Binder and the workshop image install the same way."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable


def _tracked() -> list[str]:
    """The repository's files (git's list when there is one, else a walk)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
        return [p for p in out.stdout.decode().split("\0") if p and (ROOT / p).exists()]
    except (OSError, subprocess.CalledProcessError):
        return [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*") if p.is_file()
                and ".git" not in p.parts and "__pycache__" not in p.parts]


def expected_wheel_files() -> set[str]:
    """Where each shipped source file lands in the wheel (setup.py's mapping)."""
    want = set()
    for p in _tracked():
        if p.startswith("umkit/") and (p.endswith(".py") or p == "umkit/ledger.json" or
                                       re.match(r"umkit/sim/profiles/[^/]+\.(json|md)$", p)
                                       or re.match(r"umkit/i18n/[^/]+\.po$", p)):
            want.add(p)
        elif p in ("docs/primer.md", "docs/primer.zh-CN.md", "docs/glossary.md", "docs/amd-sources.md",
                   "docs/article.md"):
            want.add("umkit/_docs/" + p[len("docs/"):])
        elif p.startswith("kernels/") and p.endswith((".py", ".cu", ".hip")):
            want.add("umkit/_kernels/" + p[len("kernels/"):])
        elif p.startswith("notebooks/") and (p.endswith((".ipynb", ".md")) or p.endswith("/.umkit-lang")
                                             or re.match(r"notebooks/(solutions|data)/[^/]+$", p)):
            want.add("umkit/_notebooks/" + p[len("notebooks/"):])
    return want


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # built from a copy of the shipped files: what a fresh clone builds (no stale build/, no
    # untracked files in the working tree)
    tree = tmp_path_factory.mktemp("tree")
    import shutil
    for p in _tracked():
        (tree / p).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / p, tree / p)
    r = subprocess.run([PY, "-m", "pip", "wheel", str(tree), "--no-deps", "-q", "-w", str(out)],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0 and "Could not find a version" in (r.stderr + r.stdout):
        pytest.skip("no package index to fetch setuptools for the wheel build")
    assert r.returncode == 0, r.stderr[-2000:]
    (whl,) = out.glob("umkit-*.whl")
    return whl


def test_wheel_holds_every_module_and_data_file(wheel):
    names = {n for n in zipfile.ZipFile(wheel).namelist() if ".dist-info/" not in n}
    want = expected_wheel_files()
    assert {"umkit/plan/__init__.py", "umkit/diagnostics/portcheck/rules.py",
            "umkit/_notebooks/00_start_here.ipynb", "umkit/_notebooks/zh/00_start_here.ipynb",
            "umkit/_kernels/hip/first_touch.hip", "umkit/ledger.json", "umkit/i18n/zh.po"} <= want
    assert sorted(want - names) == [], "the wheel lacks these"
    assert sorted(names - want) == [], "the wheel holds files the source tree does not ship"


def test_wheel_version_is_the_package_version(wheel):
    from umkit.version import __version__
    assert wheel.name.startswith(f"umkit-{__version__}-")


@pytest.fixture(scope="session")
def installed(wheel, tmp_path_factory):
    """A fresh venv outside the checkout with the wheel (and nbval to run its workspace)."""
    home = tmp_path_factory.mktemp("user")
    venv = home / "venv"
    subprocess.run([PY, "-m", "venv", str(venv)], check=True, timeout=300)
    r = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                        "--disable-pip-version-check", str(wheel), "pytest", "nbval", "ipykernel"],
                       capture_output=True, text=True, timeout=900)
    if r.returncode != 0 and "Could not find a version" in r.stderr:
        pytest.skip("no package index to install the wheel's dependencies")
    assert r.returncode == 0, r.stderr[-3000:]
    return home, venv


def _run(installed, *args, ok=(0,), timeout=600):
    home, venv = installed
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UMKIT_", "PYTHONPATH", "VIRTUAL_ENV"))}
    env.update(UMKIT_BACKEND="sim", PYTHONHASHSEED="0", MPLBACKEND="Agg",
               PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    r = subprocess.run(list(args), cwd=home, env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode in ok, f"{args}: exit {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    return r


@pytest.mark.slow
def test_installed_copy_is_not_the_checkout(installed):
    r = _run(installed, "python", "-c", "import umkit, umkit.plan, umkit.diagnostics.portcheck; print(umkit.__file__)")
    assert str(ROOT) not in r.stdout and "site-packages" in r.stdout


@pytest.mark.slow
def test_installed_commands(installed):
    from umkit.version import __version__
    home, _ = installed
    assert _run(installed, "umkit", "--version").stdout.strip() == f"umkit {__version__}"
    assert "sim" in _run(installed, "umkit", "doctor").stdout
    (home / "saxpy.cu").write_text(
        "#include <cuda_runtime.h>\n__global__ void k(float* a){a[threadIdx.x]+=1;}\n"
        "int main(){float* a; cudaMallocManaged(&a, 1<<20);\n"
        "  cudaMemPrefetchAsync(a, 1<<20, 0, 0); k<<<1,32>>>(a); cudaDeviceSynchronize();\n"
        "  cudaFree(a); return 0;}\n")
    r = _run(installed, "umkit", "port-check", "saxpy.cu", ok=(0, 1))
    assert "saxpy.cu" in r.stdout + r.stderr and "cudaMemPrefetchAsync" in r.stdout + r.stderr
    assert "usage" in _run(installed, "umkit", "plan", "--help").stdout.lower()
    _run(installed, "python", "-c",
         "import umkit, umkit.plan as P\n"
         "umkit.use('sim', quiet=True)\n"
         "a = umkit.managed(1 << 18); a.host[:] = 1\n"
         "with P.recorder('tiny loop') as rec:\n"
         "    for _ in range(3):\n"
         "        umkit.increment(a); umkit.synchronize(); a.host[0] += 1; rec.step()\n"
         "rec.result().save('tiny.plan.json')\n")
    r = _run(installed, "umkit", "plan", "tiny.plan.json")
    assert "tiny loop" in r.stdout or "tiny" in r.stdout
    _run(installed, "umkit", "ecg", "--out", "ecg.png", "--json", "ecg.json", "--quiet")
    assert (home / "ecg.png").stat().st_size > 0 and (home / "ecg.json").stat().st_size > 0


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_installed_workspace_runs_under_nbval(installed, lang):
    """The English workspace runs whole. The Chinese one runs the same code with its shown
    strings translated, and the checkout's nbval compares every Chinese output; here each of its
    copies must be what the checkout's notebook gives a learner (the same transform), and the
    first and the last notebook run: the installed package's catalogues, the folder's language
    marker, the figure font and the workspace's data folder at work."""
    from umkit.teaching.workspace import cleared
    home, _ = installed
    dest = f"ws-{lang}"
    _run(installed, "umkit", "workspace", "--lang", lang, "--dest", dest)
    nbs = sorted((home / dest).glob("[0-9][0-9]*.ipynb"))
    assert len(nbs) >= 11 and (home / dest / "solutions").is_dir()
    src = ROOT / "notebooks" / ("zh" if lang == "zh" else "")
    assert [p.name for p in nbs] == sorted(p.name for p in src.glob("[0-9][0-9]*.ipynb"))
    for p in nbs:
        assert p.read_text(encoding="utf-8") == cleared(src / p.name, 0, lang == "zh"), p.name
    if lang == "zh":
        assert (home / dest / ".umkit-lang").read_text().strip() == "zh"
        nbs = [nbs[0], nbs[-1]]
    # the copies have no outputs: nbval runs every cell and fails on any error
    r = _run(installed, "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
             *[str(p.relative_to(home)) for p in nbs], timeout=1500)
    assert " passed" in r.stdout and " failed" not in r.stdout, r.stdout[-2000:]
    if lang == "zh":     # what the notebook printed through umkit is Chinese
        out = _run(installed, "python", "-c", "import umkit; umkit.use('sim', lang='zh'); "
                   "umkit.doctor()").stdout
        assert re.search(r"[\u4e00-\u9fff]", out), out[-2000:]


def test_binder_and_workshop_image_install_the_built_package():
    post = (ROOT / "binder" / "postBuild").read_text()
    assert re.search(r"pip install[^\n]*\s\.(\s|$)", post) and " -e " not in post
    docker = (ROOT / "deploy" / "k8s" / "Dockerfile").read_text()
    copied = set()
    for line in re.findall(r"^COPY\s+(.+)$", docker, re.M):
        copied.update(line.split()[:-1])
    needed = {"setup.py", "pyproject.toml", "README.md", "umkit", "kernels", "notebooks"}
    assert needed <= copied, f"the image's build lacks {sorted(needed - copied)}"
    assert re.search(r'pip install "/opt/umkit\[', docker) and "pip install -e" not in docker
    # the image checks its workspace from the installed copy, not the copied source folder
    assert re.search(r"umkit(\.cli)? workspace (?!.*--src)", docker)


def test_image_tags_follow_the_version():
    from umkit.version import __version__
    values = (ROOT / "deploy" / "k8s" / "values.yaml").read_text()
    tags = re.findall(r'tag: "([^"]+)"', values) + re.findall(r"umkit-learner[\w-]*:([\w.]+)", values)
    assert tags and set(tags) == {__version__}
