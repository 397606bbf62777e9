"""umkit.examples: the article's programs as HIP C++ (kernels/hip/*.hip), their expected output,
the output checker, the build commands, and the nvcc header generated from the names table.
No compiler needed here (tests/teaching/test_hip_build.py compiles them)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import umkit
from umkit.teaching import examples
from umkit.backends import names
from umkit.errors import InvalidArgument, InvalidType

ROOT = Path(__file__).resolve().parents[2]
HIP_IDENT = re.compile(r"\bhip[A-Z]\w*")


def good_output(name: str) -> str:
    """What a passing run prints: the CHECK lines built from expected(), then RESULT."""
    want = examples.expected(name)
    lines = ["INFO something=1.5"]
    for k, v in want.items():
        if k != "mismatches":
            lines.append(f"CHECK {k}={v:.1f} expected={v:.1f} mismatches=0 ok")
    lines.append(f"RESULT {name} ok")
    return "\n".join(lines) + "\n"


def test_list_is_every_hip_file_in_the_article_order():
    files = {p.stem for p in examples.source_dir().glob("*.hip")}
    assert set(examples.list()) == files
    assert [examples.info(n).section for n in examples.list()] == ["3.1", "3.3", "4.2", "4.3", "4.4"]
    assert umkit.examples.list() == examples.list()        # reachable from `import umkit`


@pytest.mark.parametrize("name", examples.list())
def test_sources_are_hip_as_an_amd_engineer_writes_it(name):
    src = examples.source(name)
    assert src == (ROOT / "kernels" / "hip" / f"{name}.hip").read_text()
    assert "#include <hip/hip_runtime.h>" in src
    assert "#define HIP_CHECK(expr)" in src
    assert "hipMallocManaged(" in src
    assert f'"RESULT {name} %s\\n"' in src
    assert f"section {examples.info(name).section}" in src.splitlines()[0]
    # no CUDA spelling anywhere in the code (comments may name CUDA calls to explain the port)
    code = re.sub(r"//.*", "", src)
    assert not re.search(r"\bcuda[A-Z]\w*", code)
    code = re.sub(r"#define HIP_CHECK\(expr\)(?:.*\\\n)*.*\n", "", code)  # the macro itself
    # every HIP call's result is checked, kernel launches through hipGetLastError
    for call in re.findall(r"^\s*(hip[A-Z]\w*)\(", code, flags=re.M):
        if call != "hipLaunchKernelGGL":                     # a launch, not a call
            pytest.fail(f"unchecked {call} in {name}.hip")
    assert code.count("HIP_CHECK(hipGetLastError())") >= 1


def test_the_sources_use_the_calls_the_article_teaches():
    everything = "".join(examples.source(n) for n in examples.list())
    for call in ("hipMemPrefetchAsync", "hipMemAdvise", "hipCpuDeviceId", "hipStreamSynchronize",
                 "hipEventSynchronize", "hipDeviceSynchronize", "hipStreamCreate", "hipEventRecord",
                 "hipMalloc(", "hipLaunchKernelGGL", "hipMemAdviseSetPreferredLocation",
                 "hipMemAdviseSetAccessedBy", "hipMemRangeGetAttribute"):
        assert call in everything, call
    # the CUDA 13 direct port is named where it applies
    assert "hipMemPrefetchAsync_v2" in examples.source("epoch_prefetch")
    assert "hipMemAdvise_v2" in examples.source("advise_prefetch")


@pytest.mark.parametrize("name", examples.list())
def test_every_expected_key_is_printed_by_the_source(name):
    src = examples.source(name)
    for key in examples.expected(name):
        assert key in src or re.sub(r"\d+", "%d", key) in src, key


def test_expected_values():
    n = 1 << 20
    assert examples.expected("first_touch")["sum"] == 2 * (n // 1024) * sum(range(1024))
    e = examples.expected("epoch_prefetch")
    assert e["epoch0_sum"] == sum(i % 100 + i % 50 for i in range(n))
    assert e["epoch2_sum"] - e["epoch1_sum"] == n == e["epoch1_sum"] - e["epoch0_sum"]
    p = examples.expected("pingpong_split")
    assert p["step10_managed"] == p["step10_split"] == \
        sum((k * 1024) % 7 for k in range(1024)) + 0.5 * 10 * 1024
    assert examples.expected("advise_prefetch")["sum"] == sum(2 * (i % 3) + 1 for i in range(n))


@pytest.mark.parametrize("name", examples.list())
def test_checker_accepts_the_right_output(name):
    c = examples.check_output(name, good_output(name), 0)
    assert c.ok, c.problems
    assert set(examples.expected(name)) <= set(c.values)


@pytest.mark.parametrize("name", examples.list())
def test_checker_rejects_wrong_output(name):
    good = good_output(name)
    key, val = next(iter(examples.expected(name).items()))
    wrong = good.replace(f"CHECK {key}={val:.1f}", f"CHECK {key}={val + 1:.1f}", 1)
    assert wrong != good
    assert not examples.check_output(name, wrong, 0).ok
    assert not examples.check_output(name, good, 1).ok                         # exit status
    assert not examples.check_output(name, good.replace(" ok\nRESULT", " FAIL\nRESULT"), 0).ok
    assert not examples.check_output(name, good.replace(f"RESULT {name} ok", ""), 0).ok
    assert not examples.check_output(name, good.replace("mismatches=0", "mismatches=3"), 0).ok
    dropped = "\n".join(ln for ln in good.splitlines() if not ln.startswith(f"CHECK {key}="))
    assert f"{key} not printed" in examples.check_output(name, dropped, 0).problems
    assert not examples.check_output(name, "", 0).ok


def test_build_commands():
    amd = examples.build_command("epoch_prefetch", vendor="amd")
    assert amd == ["HIP_PLATFORM=amd hipcc --offload-arch=gfx90a -O2 -o "
                   "build/hip-examples/epoch_prefetch kernels/hip/epoch_prefetch.hip"]
    nv = examples.build_command("epoch_prefetch", vendor="nvidia")
    assert nv[0] == "python -m umkit.examples header build/hip_on_cuda"
    assert nv[1] == ("nvcc -std=c++17 -x cu -arch=sm_90 -O2 -I build/hip_on_cuda -o "
                     "build/hip-examples/epoch_prefetch kernels/hip/epoch_prefetch.hip")
    c = examples.build_command("first_touch", "amd", arch="gfx90a:xnack+", compile_only=True)
    assert "--offload-arch=gfx90a:xnack+" in c[0] and " -c -o build/hip-examples/first_touch.o " in c[0]
    with pytest.raises(InvalidArgument, match="vendor must be 'amd' or 'nvidia'"):
        examples.build_command("first_touch", vendor="intel")
    with pytest.raises(InvalidArgument, match="name must be one of first_touch"):
        examples.source("epoch")
    with pytest.raises(InvalidType, match="name must be a str"):
        examples.source(3)


def test_hip_sources_ship_as_package_data():
    """setup.py maps kernels/ into the package and ships the .hip/.cu files (the built wheel is
    checked against the source tree in tests/packaging/test_wheel.py)."""
    import ast
    tree = ast.parse((ROOT / "setup.py").read_text())
    data = next(ast.literal_eval(n.value) for n in tree.body
                if isinstance(n, ast.Assign) and n.targets[0].id == "DATA_PACKAGES")
    call = next(n.value for n in tree.body if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call))
    pkg_data = ast.literal_eval(next(k.value for k in call.keywords if k.arg == "package_data"))
    assert data["umkit._kernels"] == "kernels" and data["umkit._kernels.hip"] == "kernels/hip"
    assert "*.hip" in pkg_data["umkit._kernels.hip"]      # kernels/hip, a data package
    assert "*.cu" in pkg_data["umkit._kernels.cuda"]      # kernels/cuda, likewise
    assert list((ROOT / "kernels" / "hip").glob("*.hip"))


# -- the nvcc header generated from the names table -----------------------------------------------
def test_every_hip_name_in_the_sources_is_in_the_header():
    covered = names.header_names()
    used = set()
    for n in examples.list():
        code = re.sub(r"//.*", "", examples.source(n))
        code = re.sub(r"#if defined\(__HIP_PLATFORM_AMD__\).*?#else", "", code, flags=re.S)
        used |= set(HIP_IDENT.findall(code))
    assert used, "no HIP names found"
    assert sorted(used - set(covered)) == []


def test_header_maps_each_table_row():
    h = names.cuda_header()
    for hip, cuda in names.header_names().items():
        if cuda == "wrapper":
            assert re.search(rf"#define {hip}(\(kernel, .*\.\.\.\)| umkit_{hip}\b)", h), hip
        elif names.row(hip).kind == "type":
            assert f"typedef {cuda} {hip};" in h
        else:
            assert f"#define {hip} {cuda}\n" in h
    assert names.header_names()["hipHostMalloc"] == "cudaHostAlloc"   # (ptr, size, flags)
    assert names.header_names()["hipErrorOutOfMemory"] == "cudaErrorMemoryAllocation"
    # CUDA 13 took the int device away: prefetch/advise go through a cudaMemLocation
    assert "cudaMemPrefetchAsync(ptr, count, umkit_hip_location(device), 0, stream)" in h
    assert "cudaMemAdvise(ptr, count, advice, umkit_hip_location(device))" in h
    assert "#if CUDART_VERSION >= 13000" in h
    # HIP-only names are listed, not mapped
    for r in names.TABLE:
        if r.cuda is None and r.hip and r.kind != "macro":
            assert r.hip in h.split("HIP-only, no CUDA counterpart")[1]
            assert f"#define {r.hip} " not in h
    assert h.count("#ifndef UMKIT_HIP_ON_CUDA_H") == 1 and h.rstrip().endswith("#endif  // UMKIT_HIP_ON_CUDA_H")


def test_header_file_and_cli(tmp_path, capsys):
    assert examples.main(["header", str(tmp_path / "inc")]) == 0
    f = tmp_path / "inc" / "hip" / "hip_runtime.h"
    assert f.read_text() == examples.cuda_header() == names.cuda_header()
    assert examples.main(["list"]) == 0
    assert "epoch_prefetch   §4.2" in capsys.readouterr().out
    assert examples.main(["command", "pingpong_split", "--vendor", "nvidia"]) == 0
    assert capsys.readouterr().out.splitlines() == \
        examples.build_command("pingpong_split", vendor="nvidia")
    assert examples.main(["source", "nope"]) == 2
    assert "name must be one of" in capsys.readouterr().err


# -- the CUDA 13 originals -------------------------------------------------------------------------
LOCATION_NAMES = {"cudaMemLocation", "cudaMemLocationTypeDevice", "cudaMemLocationTypeHost"}


def test_which_examples_have_cuda_originals():
    assert examples.originals() == ["epoch_prefetch", "advise_prefetch"]
    with pytest.raises(InvalidArgument, match="has no CUDA original"):
        examples.cuda_original("first_touch")
    with pytest.raises(InvalidArgument, match="vendor must be 'nvidia'"):
        examples.build_command("epoch_prefetch", "amd", cuda_original=True)


@pytest.mark.parametrize("name", examples.originals())
def test_cuda_original_is_the_same_program_in_cuda_13(name):
    cu = examples.cuda_original(name)
    code = re.sub(r"//.*", "", cu)
    assert not HIP_IDENT.search(code) and "#include <cuda_runtime.h>" in code
    assert "cudaMemLocationTypeDevice" in code
    assert re.search(r"cudaMemPrefetchAsync\(\w+, bytes, gpu, 0, stream\)", code)
    for key in examples.expected(name):
        assert key in cu or re.sub(r"\d+", "%d", key) in cu, key
    assert f'"RESULT {name} %s\\n"' in cu
    # renaming the original through the names table gives the port's names, except the
    # location-taking calls' arguments (the one place where the port is more than a rename)
    hip = examples.source(name)
    for c in set(re.findall(r"\bcuda[A-Z]\w*", code)) - LOCATION_NAMES:
        assert names.cuda_to_hip(c) in hip, c
    assert examples.build_command(name, "nvidia", cuda_original=True) == [
        f"nvcc -std=c++17 -arch=sm_90 -O2 -o build/hip-examples/{name}_cuda "
        f"kernels/cuda/{name}.cu"]


def test_sources_come_from_the_checkout_and_python_m_umkit_examples_runs(tmp_path):
    """From a checkout the .hip files are <repo>/kernels/hip (not the installed package data),
    and ``python -m umkit.examples`` runs through the short name with a real __file__."""
    import subprocess
    import sys
    assert examples.source_dir() == ROOT / "kernels" / "hip"
    r = subprocess.run([sys.executable, "-m", "umkit.examples", "source", "first_touch"],
                       capture_output=True, text=True, cwd=tmp_path,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    assert "hipMallocManaged" in r.stdout
