"""port-check, issue 46: the defects its hostile review found, one test each (each failed on the
code before the fix): wrong findings on valid code, quadratic rules, exit codes that meant
nothing, and file names that injected lines and terminal escapes into the reports."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from repo_tools import lines_run

from umkit import cli
from umkit.diagnostics import portcheck
from umkit.diagnostics.portcheck import cxx, rules

ROOT = Path(__file__).resolve().parents[2]
#: a real "breaks" with XNACK off: malloc'd memory handed to a kernel
BREAKS = "int main() { float* h = (float*)malloc(64); k<<<1, 1>>>(h); }\n"


def check(tmp_path, code, target="mi250x", xnack="off", name="t.cu", newline=None):
    f = tmp_path / name
    f.write_text(code, newline=newline)
    return portcheck.port_check(str(f), target=target, xnack=xnack)


def found(report):
    return [(f.line, f.construct, f.severity) for f in report.findings]


# -- wrong findings on valid code -----------------------------------------------------------------
@pytest.mark.parametrize("prose", ["This doesn't work yet", 'He said "not yet', "it's 'x"])
def test_a_quote_in_if_0_prose_does_not_hide_the_endif(tmp_path, prose):
    r = check(tmp_path, f"#if 0\n{prose}\n#endif\n" + BREAKS)
    assert found(r) == [(4, "system_memory_kernel", "breaks")] and r.exit_code == 1


def test_warning_with_an_apostrophe_ends_with_its_line(tmp_path):
    r = check(tmp_path, "#warning don't use this on AMD\n" + BREAKS)
    assert found(r) == [(2, "system_memory_kernel", "breaks")]


def test_a_byte_order_mark_does_not_hide_the_first_directive(tmp_path):
    code = "\ufeff#if 0\n" + BREAKS + "#endif\nvoid g() {}\n"
    assert found(check(tmp_path, code)) == []                  # the code is dead
    r = check(tmp_path, "\ufeff#define WHERE cudaCpuDeviceId\n")
    assert found(r) == [(1, "cpu_device_id", "same")]


def test_cr_only_line_ends_are_line_ends(tmp_path):
    code = "// a comment\rvoid f() {\r  float* h = (float*)malloc(64);\r  k<<<1, 1>>>(h);\r}\r"
    assert found(check(tmp_path, code, newline="")) == [(4, "system_memory_kernel", "breaks")]
    crlf = code.replace("\r", "\r\n")
    assert found(check(tmp_path, crlf, newline="")) == [(4, "system_memory_kernel", "breaks")]


def test_a_parenthesised_call_name_is_a_call(tmp_path):
    r = check(tmp_path, "void f(cudaIpcMemHandle_t* h) { float* p;\n"
                        "  (cudaMallocManaged)(&p, 64);\n  (::cudaIpcGetMemHandle)(h, p); }\n")
    assert found(r) == [(2, "managed_alloc", "slower"), (3, "ipc_managed", "breaks")]
    assert r.findings[0].detail["pointer"] == "p"
    src = cxx.Source.parse("int (g)(int x); (std::malloc)(4);")
    assert [(c.name, c.qualifier) for c in src.calls if c.name in ("g", "malloc")] == [
        ("malloc", "std")]                                     # `int (g)(...)` declares g


@pytest.mark.parametrize("arg", ["v.size()", "dims[0]", "sizeof(h)", "*h", "n + 1",
                                 "v.size() * 2", "h != nullptr"])
def test_kernel_arguments_passed_by_value_are_not_memory(tmp_path, arg):
    code = ("#include <vector>\nvoid f(int n) { std::vector<float> v(n); int dims[3];\n"
            f"  float* h = (float*)malloc(64);\n  k<<<1, 1>>>({arg}); }}\n")
    assert found(check(tmp_path, code)) == []


@pytest.mark.parametrize("arg,name", [("v.data()", "v"), ("dims", "dims"), ("&dims[1]", "dims"),
                                      ("h + 4", "h"), ("(float*)h", "h"),
                                      ("static_cast<float*>(h)", "h"), ("v.data() + n", "v")])
def test_memory_handed_to_a_kernel_is_still_found(tmp_path, arg, name):
    code = ("#include <vector>\nvoid f(int n) { std::vector<float> v(n); int dims[3];\n"
            f"  float* h = (float*)malloc(64);\n  k<<<1, 1>>>({arg}); }}\n")
    (f,) = check(tmp_path, code).findings
    assert (f.construct, f.severity, f.detail["pointer"]) == ("system_memory_kernel", "breaks",
                                                              name)


def test_a_function_like_macro_allocates_the_buffer_it_is_given(tmp_path):
    code = ("#define ALLOC(ptr, n) cudaMallocManaged(&ptr, n)\n"
            "void f(cudaIpcMemHandle_t* h, int dev) { float* buf;\n"
            "  ALLOC(buf, 1 << 20);\n"
            "  cudaMemPrefetchAsync(buf, 1 << 20, dev, 0);\n"
            "  cudaIpcGetMemHandle(h, buf); }\n")
    r = check(tmp_path, code, "mi300x", "on")
    assert found(r) == [(3, "managed_alloc", "differs"), (4, "prefetch", "same"),
                        (5, "ipc_managed", "breaks")]
    alloc = r.findings[0]
    assert alloc.detail["pointer"] == "buf" and alloc.detail["prefetched"] is True
    assert "never prefetched" not in alloc.message and "`ptr`" not in alloc.message
    assert r.exit_code == 1
    # a call the macro's argument holds is counted once (it is in the code already)
    wrap = "#define CHECK(x) do { if ((x) != 0) abort(); } while (0)\n" \
           "void g() { float* a; CHECK(cudaMallocManaged(&a, 64)); }\n"
    assert found(check(tmp_path, wrap)) == [(2, "managed_alloc", "slower")]


def test_hip_files_are_read_with_their_hip_names(tmp_path):
    code = ("void f(hipIpcMemHandle_t* h) { float* m;\n"
            "  hipMallocManaged(&m, 64);\n"
            "  hipMemPrefetchAsync(m, 64, hipCpuDeviceId, 0);\n"
            "  hipIpcGetMemHandle(h, m);\n"
            "  float* s = (float*)malloc(64);\n"
            "  hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, s); }\n")
    r = check(tmp_path, code, name="port.hip")
    assert {(f.line, f.construct) for f in r.findings} >= {
        (2, "managed_alloc"), (3, "prefetch"), (4, "ipc_managed"), (6, "system_memory_kernel")}
    assert r.files == ("port.hip",)


# -- linear time ------------------------------------------------------------------------------------
def work(code: str) -> int:
    """Lines of port-check's own code executed to read and check ``code``: counted work, the
    same on every machine (no timing)."""
    plat = rules.platform("mi250x", False)
    return lines_run(lambda: rules.check_source(cxx.Source.parse(code, "w.cu"), plat, "w.cu"),
                     os.path.dirname(cxx.__file__))


@pytest.mark.parametrize("unit", [
    # many kernels with atomics, and __managed__ variables: every kernel read every call
    "__managed__ int m{k}; __global__ void k{k}(int* p) {{ atomicAdd(p, 1); "
    "atomicAdd(&m{k}, 1); }}\n",
    # one factory name returning many managed pointers: every pointer took every caller
    "float* get() {{ float* p{k}; cudaMallocManaged(&p{k}, 1); return p{k}; }}\n"
    "void u{k}() {{ float* x{k}; x{k} = get(); }}\n",
    # object-like macros and calls naming them
    "#define LOC{k} cudaCpuDeviceId\nvoid f{k}(float* a) {{ "
    "cudaMemPrefetchAsync(a, 64, LOC{k}, 0); }}\n",
    # a function-like macro used many times
    "#define ALLOC{k}(p, n) cudaMallocManaged(&p, n)\nvoid g{k}() {{ float* b; ALLOC{k}(b, 4); "
    "ALLOC{k}(b, 8); }}\n",
])
def test_twice_the_input_is_about_twice_the_work(unit):
    x = work("".join(unit.format(k=k) for k in range(300)))
    x2 = work("".join(unit.format(k=k) for k in range(600)))
    # counted work is exact, so the bound can be close to linear's 2.0 (sorting adds a log
    # factor); before the fix these were 2.94, 2.39 and 2.7 and growing with the size
    assert x2 < 2.2 * x, (x, x2)


def test_the_benchmark_writes_its_result_with_date_and_machine(tmp_path):
    out = tmp_path / "scale.json"
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "portcheck_scale.py"),
                    "--sizes", "4096,8192", "--out", str(out)], check=True, cwd=ROOT,
                   capture_output=True, env={"PATH": "/usr/bin:/bin", "UMKIT_BACKEND": "sim"})
    doc = json.loads(out.read_text())
    assert doc["date"] and doc["machine"]["platform"] and doc["machine"]["cpus"]
    assert {r["pattern"] for r in doc["results"]} >= {"kernels_with_atomics", "factories"}
    assert all(set(r["seconds"]) == {"4096", "8192"} for r in doc["results"])


# -- exit codes -------------------------------------------------------------------------------------
def run_cli(*argv, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "umkit.cli", "port-check", *argv],
                          capture_output=True, text=True, cwd=cwd,
                          env={"UMKIT_BACKEND": "sim", "PATH": "/usr/bin:/bin",
                               "PYTHONPATH": str(ROOT)})


def one_line_refusal(result, words):
    assert result.returncode == 2, (result.returncode, result.stdout[-300:])
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert words in result.stderr, result.stderr


def test_nothing_it_can_check_is_exit_2_with_one_line(tmp_path):
    (tmp_path / "x.py").write_text("print(1)\n")
    (tmp_path / "empty").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "a.py").write_text("x = 1\n")
    (tmp_path / "other" / "notes.txt").write_text("cudaMallocManaged\n")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "k.cu").write_bytes(b"\x7fELF\x02\x01\x01\0\0\0" + bytes(range(256)))
    ls = "/bin/ls" if Path("/bin/ls").is_file() else sys.executable
    one_line_refusal(run_cli(ls), "is not a source port-check reads")
    one_line_refusal(run_cli(str(tmp_path / "x.py")), "is not a source port-check reads")
    one_line_refusal(run_cli(str(tmp_path / "empty")), "holds no source")
    one_line_refusal(run_cli(str(tmp_path / "other")), "holds no source")
    one_line_refusal(run_cli(str(tmp_path / "bin" / "k.cu")), "not a source text")
    one_line_refusal(run_cli(str(tmp_path / "bin")), "nothing to check")


def test_a_binary_beside_sources_is_passed_over_and_said(tmp_path):
    (tmp_path / "a.cu").write_text(BREAKS)
    (tmp_path / "b.cu").write_bytes(b"\0\1\2")
    r = portcheck.port_check(str(tmp_path))
    assert len(r.files) == 1 and r.skipped[0][0].endswith("b.cu")
    assert "1 file passed over" in r.summary() and "b.cu: passed over" in r.text()


def test_every_documented_suffix_is_read(tmp_path):
    for suffix in portcheck.SUFFIXES:
        (tmp_path / f"k{suffix}").write_text(BREAKS)
    r = portcheck.port_check(str(tmp_path))
    assert len(r.files) == len(portcheck.SUFFIXES) >= 12
    assert {".c", ".hip", ".inl"} <= set(portcheck.SUFFIXES)
    for suffix in portcheck.SUFFIXES:
        assert suffix in portcheck.check.__doc__      # the checker's documentation


def test_an_over_long_path_and_a_deep_folder_are_one_line_errors(tmp_path):
    one_line_refusal(run_cli("x" * 5000 + ".cu"), "File name too long")
    here = tmp_path
    for _ in range(1100):
        here = here / "d"
        try:
            os.mkdir(here)
        except OSError:                    # the file system's own path limit: deep enough
            break
    (here / "k.cu").write_text(BREAKS)
    try:
        one_line_refusal(run_cli(str(tmp_path)), "nested more than")
    finally:               # undo the tree one level at a time: a recursive delete (pytest's own
        (here / "k.cu").unlink()        # cleanup of old temp folders, shutil.rmtree on Python
        while here != tmp_path:         # 3.11) overflows the stack on it
            os.rmdir(here)
            here = here.parent


# -- names escaped in every format -------------------------------------------------------------------
NASTY = "a\nb.cu:1: [breaks] injected\x1b[31mred\u202e.cu"


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_file_names_cannot_inject_lines_or_escapes(tmp_path, fmt):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / NASTY).write_text(BREAKS)
    r = portcheck.port_check(str(tmp_path / "src"))
    out = r.render(fmt)
    assert "\x1b" not in out and "\u202e" not in out
    if fmt == "json":
        assert json.loads(out)["files"] == ["src/" + NASTY]      # exact, escaped by JSON
        assert "\\u001b" in out
        return
    lines = out.splitlines()
    assert not any(line.startswith("b.cu:1: [breaks]") for line in lines)
    assert sum("[breaks]" in line for line in lines) == 1       # the finding's own line/row
    assert "\\x1b[31m" in out and "\\u202e" in out and "a\\nb.cu" in out
    if fmt == "markdown":
        rows = [line for line in lines if line.startswith("| `")]
        assert len(rows) == 1 and rows[0].count(" | ") == 5


def test_a_name_with_backticks_keeps_its_markdown_code_span(tmp_path):
    (tmp_path / "w`x``y.cu").write_text(BREAKS)
    md = portcheck.port_check(str(tmp_path / "w`x``y.cu")).markdown()
    assert "```w`x``y.cu:1```" in md


def test_error_messages_escape_names_too(tmp_path, capsys):
    bad = tmp_path / "no\x1b[2Jsuch\n.cu"
    assert cli.main(["port-check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and len(err.strip().splitlines()) == 1 and "\\x1b[2J" in err
