"""Real compilers build the HIP code.

* AMD: ``hipcc --offload-arch=gfx90a`` (plus gfx942 when the compiler knows it) compiles every
  ``kernels/hip/*.hip`` and umkit's own ``kernels/*.cu`` (hiprtc compiles those at run time on
  AMD; here ``hip/hip_runtime.h`` is included in front).  CPU CI gets Debian's HIP 5.2 hipcc from
  test.sh (``apt-get install hipcc`` when it runs as root).
* NVIDIA: nvcc builds and links every ``.hip`` with the ``hip/hip_runtime.h`` that umkit
  generates from its names table (running them needs the GPU: .ci/gpu step ``hip-examples``).

Each vendor's compiles run once per session, in parallel; the tests then check one output each.
They are skipped, with the reason, only where the compiler cannot be had.
"""
from __future__ import annotations

import importlib
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from umkit.teaching import examples
from umkit.backends import names

HIPCC = examples.find_compiler("amd")
NVCC = examples.find_compiler("nvidia")
needs_hipcc = pytest.mark.skipif(
    HIPCC is None, reason="hipcc not found: test.sh installs it (apt-get install hipcc) when run "
    "as root on Debian/Ubuntu; elsewhere install ROCm or the hipcc package")
needs_nvcc = pytest.mark.skipif(
    NVCC is None, reason="nvcc not found (CUDA toolkit): the NVIDIA build of the HIP examples "
    "is checked where nvcc is installed")

AMD_UNITS = examples.list() + [p.name for p in examples.kit_kernel_sources()]


def kernel_names(text: str) -> list[str]:
    return re.findall(r"__global__\s+void\s+(\w+)", text)


@pytest.fixture(scope="module")
def amd_build(tmp_path_factory):
    out = tmp_path_factory.mktemp("hip-amd")
    return {b.name: b for b in examples.build("amd", out)}


@pytest.fixture(scope="module")
def nvidia_build(tmp_path_factory):
    out = tmp_path_factory.mktemp("hip-nvidia")
    return {b.name: b for b in examples.build("nvidia", out)}


@pytest.mark.slow
@needs_hipcc
@pytest.mark.parametrize("unit", AMD_UNITS)
def test_hipcc_compiles_for_amd(amd_build, unit):
    b = amd_build[unit]
    assert b.ok, f"{shlex.join(b.argv)}\n{b.log}"
    assert "--offload-arch=gfx90a:xnack+" in b.argv and "--offload-arch=gfx90a:xnack-" in b.argv
    assert any(a in b.argv for a in ("--offload-arch=gfx942", "--offload-arch=gfx940"))
    data = b.output.read_bytes()
    # the object carries an AMD GPU code object per target (clang offload bundle entry) ...
    for arg in b.argv:
        if arg.startswith("--offload-arch="):
            assert f"amdgcn-amd-amdhsa--{arg.split('=', 1)[1]}".encode() in data, arg
    # ... with every kernel of the source in it
    src = examples.path(unit) if unit in examples.list() else examples.source_dir().parent / unit
    ks = kernel_names(src.read_text())
    assert ks
    for k in ks:
        assert k.encode() in data, k


@needs_hipcc
@pytest.mark.slow
def test_kit_kernels_compile_as_hip_only_with_the_runtime_header_in_front(amd_build):
    b = amd_build["umkit_kernels.cu"]
    assert b.argv[b.argv.index("-include") + 1] == "hip/hip_runtime.h"
    assert "-x" in b.argv and b.argv[b.argv.index("-x") + 1] == "hip"


@needs_hipcc
def test_the_amd_build_leaves_nothing_in_the_temp_dir(tmp_path, monkeypatch):
    import tempfile
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    built = examples.build("amd", tmp_path / "out", which=["first_touch"], kit_kernels=False)
    assert [b.ok for b in built] == [True], [b.log for b in built]
    assert list(scratch.iterdir()) == []


@needs_hipcc
def test_a_compile_error_fails_the_amd_build(tmp_path):
    bad = tmp_path / "bad.hip"
    bad.write_text("#include <hip/hip_runtime.h>\n"
                   "__global__ void k(float* a) { a[threadIdx.x] = not_declared; }\n")
    b = examples.compile_example("bad", bad, tmp_path / "bad.o", "amd", ["gfx90a"], tmp_path, True, HIPCC)
    assert not b.ok
    assert "not_declared" in b.log


@needs_hipcc
def test_amd_arches_probe_matches_the_compiler():
    arches = examples.amd_arches(HIPCC)
    assert arches[:2] == ["gfx90a:xnack+", "gfx90a:xnack-"]
    r = subprocess.run([HIPCC, "--offload-arch=gfx942", "--cuda-device-only", "-fsyntax-only",
                        "-x", "hip", "/dev/null"], env=examples.build_env("amd"),
                       capture_output=True, text=True)
    assert arches[2] == ("gfx942" if r.returncode == 0 else "gfx940")


@pytest.mark.slow
@needs_nvcc
@pytest.mark.parametrize("name", examples.list())
def test_nvcc_builds_each_example_with_the_generated_header(nvidia_build, name):
    b = nvidia_build[name]
    assert b.ok, f"{shlex.join(b.argv)}\n{b.log}"
    assert b.argv[b.argv.index("-x") + 1] == "cu" and "-arch=sm_90" in b.argv
    include = b.argv[b.argv.index("-I") + 1]
    from pathlib import Path
    assert (Path(include) / "hip" / "hip_runtime.h").read_text() == names.cuda_header()
    data = b.output.read_bytes()
    assert b"sm_90" in data
    for k in kernel_names(examples.source(name)):
        assert k.encode() in data, k


@needs_nvcc
def test_generated_location_wrapper_converts_devices(tmp_path):
    """The int device -> cudaMemLocation conversion of the header, run on the host (no GPU)."""
    inc = tmp_path / "inc"
    names.write_cuda_header(inc)
    prog = tmp_path / "loc.hip"
    prog.write_text(r'''#include <hip/hip_runtime.h>
#include <cstdio>
int main() {
#if CUDART_VERSION >= 13000
    cudaMemLocation c = umkit_hip_location(hipCpuDeviceId), g = umkit_hip_location(3);
    std::printf("%d %d %d %d\n", c.type == cudaMemLocationTypeHost, g.type ==
                cudaMemLocationTypeDevice, g.id, (int)sizeof(hipStream_t) == (int)sizeof(void*));
#else
    std::printf("old\n");
#endif
    return 0;
}
''')
    exe = tmp_path / "loc"
    r = subprocess.run([NVCC, "-std=c++17", "-x", "cu", "-I", str(inc), "-o", str(exe), str(prog)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True).stdout.split()
    if out == ["old"]:
        pytest.skip("CUDA older than 13: the header passes the int device through")
    assert out == ["1", "1", "3", "1"]


@needs_nvcc
def test_a_hip_only_name_fails_the_nvidia_build(tmp_path):
    inc = tmp_path / "inc"
    names.write_cuda_header(inc)
    bad = tmp_path / "bad.hip"
    bad.write_text("#include <hip/hip_runtime.h>\nint main() { float* p; "
                   "return hipMemAdvise(p, 4, hipMemAdviseSetCoarseGrain, 0); }\n")
    b = examples.compile_example("bad", bad, tmp_path / "bad.o", "nvidia", ["sm_90"], inc, True, NVCC)
    assert not b.ok
    assert "hipMemAdviseSetCoarseGrain" in b.log


@pytest.mark.slow
@needs_nvcc
@pytest.mark.parametrize("name", examples.originals())
def test_nvcc_builds_the_cuda_originals(nvidia_build, name):
    b = nvidia_build[name + "_cuda"]
    assert b.ok, f"{shlex.join(b.argv)}\n{b.log}"
    assert "-I" not in b.argv and b.argv[-1].endswith(f"cuda/{name}.cu")
    assert b"sm_90" in b.output.read_bytes()


def _port_program(snippet: str) -> str:
    """Notebook 08's port exercise (a snippet) inside a whole HIP program, so it can be built."""
    return ("#include <cstdio>\n#include <hip/hip_runtime.h>\n"
            "__global__ void train_step(float* w, int n)\n"
            "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) w[i] += 1.0f; }\n"
            "static void save_checkpoint(const float* w, int n) { (void)w; (void)n; }\n"
            "int main() {\n"
            "    const int n = 1 << 20, threads = 256, blocks = n / threads;\n"
            "    const size_t bytes = n * sizeof(float);\n"
            "    hipStream_t stream;\n"
            "    if (hipStreamCreate(&stream) != hipSuccess) return 0;   // no GPU: built is enough\n"
            + "".join("    " + ln + "\n" for ln in snippet.splitlines())
            + "    return 0;\n}\n")


@needs_nvcc
@pytest.mark.parametrize("port", ["hip_source", "hip_source_v2"])
def test_nvcc_builds_notebook_08s_ports_with_the_generated_header(tmp_path, port):
    """Both ports of the CUDA 13 snippet -- the classic int-device calls and HIP 7's _v2 calls
    with hipMemLocation -- compile with nvcc through the names table's header (issue 9)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "notebooks" / "solutions"))
    try:
        sol = importlib.import_module("08_porting_cuda_to_hip")
    finally:
        sys.path.pop(0)
    inc = tmp_path / "inc"
    names.write_cuda_header(inc)
    src = tmp_path / f"{port}.hip"
    src.write_text(_port_program(getattr(sol, port)))
    r = subprocess.run([NVCC, "-std=c++17", "-x", "cu", "-I", str(inc), "-c", "-o",
                        str(tmp_path / f"{port}.o"), str(src)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    if port == "hip_source_v2":     # without the table's location rows it would not build
        bad = tmp_path / "nolocation.hip"
        bad.write_text(_port_program(getattr(sol, port)).replace("hipMemLocationTypeHost",
                                                                  "hipMemLocationTypeNowhere"))
        r = subprocess.run([NVCC, "-std=c++17", "-x", "cu", "-I", str(inc), "-c", "-o",
                            str(tmp_path / "bad.o"), str(bad)], capture_output=True, text=True)
        assert r.returncode != 0 and "hipMemLocationTypeNowhere" in r.stderr
