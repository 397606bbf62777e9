"""umkit port-check: one test per rule (each on the targets where its answer changes), the
messy CUDA file reported completely and exactly, the C++ reader on tricky formatting, the
findings' ledger citations, and the command line (options, exit status, bad input)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import umkit.ledger as L
from umkit import cli
from umkit.diagnostics import portcheck
from umkit.diagnostics.portcheck import cxx, rules
from umkit.errors import InvalidArgument, InvalidType

DATA = Path(__file__).parent / "data" / "portcheck"
MESSY = DATA / "messy.cu"
ROOT = Path(__file__).resolve().parents[2]


def check(tmp_path, code, target="mi250x", xnack="off", name="t.cu"):
    f = tmp_path / name
    f.write_text(code)
    return portcheck.port_check(str(f), target=target, xnack=xnack)


def found(report, construct=None):
    return [(f.construct, f.severity) for f in report.findings
            if construct is None or f.construct == construct]


# -- one test per rule ----------------------------------------------------------------------
ALLOC = "int main() { float* a; cudaMallocManaged(&a, 1 << 20); k<<<1, 1>>>(a); }\n"
PREFETCHED = ("int main() { float* a; cudaMallocManaged(&a, 1 << 20);\n"
              "  cudaMemPrefetchAsync(a, 1 << 20, 0, 0); k<<<1, 1>>>(a); }\n")


def test_managed_alloc_follows_xnack_and_the_prefetch(tmp_path):
    assert found(check(tmp_path, ALLOC, "mi250x", "on"), "managed_alloc") == [
        ("managed_alloc", "slower")]
    assert found(check(tmp_path, PREFETCHED, "mi250x", "on"), "managed_alloc") == [
        ("managed_alloc", "differs")]
    off = check(tmp_path, ALLOC, "mi250x", "off").findings[0]
    assert off.severity == "slower" and "amd.xnack0.alloc_maps" in off.ledger
    assert "zero_copy_bw" in off.message                # the profile's number, named
    # XNACK off, prefetched: a later CPU touch migrates the block back and stops the queues
    pre = check(tmp_path, PREFETCHED, "mi300x", "off").findings[0]
    assert pre.severity == "slower" and "amd.xnack0.quiesce" in pre.ledger
    assert "CPU read or write" in pre.message
    coherent = check(tmp_path, PREFETCHED, "mi250x-coherent", "off").findings[0]
    assert coherent.severity == "differs" and "amd.xnack0.quiesce" not in coherent.ledger
    apu = check(tmp_path, ALLOC, "mi300a", "on").findings[0]
    assert apu.severity == "differs" and apu.ledger == ("amd.apu.no_migration",)
    host = check(tmp_path, ALLOC.replace("1 << 20)", "1 << 20, cudaMemAttachHost)"))
    assert "amd.malloc_managed.attach_flags" in host.findings[0].ledger


def test_managed_var_is_a_managed_allocation(tmp_path):
    r = check(tmp_path, "__device__ __managed__ double total[4];\n", "mi300x", "on")
    (f,) = r.findings
    assert (f.construct, f.severity, f.detail["variable"]) == ("managed_var", "slower", "total")
    assert f.ledger[0] == "amd.managed_var.registration"


def test_prefetch_by_target_form_and_destination(tmp_path):
    code = ("void f(float* a, cudaStream_t s) {\n"
            "  cudaMemLocation cpu = {}; cpu.type = cudaMemLocationTypeHost;\n"
            "  cudaMemPrefetchAsync(a, 64, cpu, 0, s);\n"
            "  cudaMemPrefetchAsync(a, 64, 0, s); }\n")
    on = check(tmp_path, code, "mi300x", "on")
    assert [(f.detail["form"], f.detail["destination"], f.severity) for f in on.findings] == [
        ("location", "cpu", "same"), ("int", "gpu", "same")]
    assert "hipMemPrefetchAsync_v2" in on.findings[0].hip
    assert on.findings[1].hip == "hipMemPrefetchAsync"
    assert found(check(tmp_path, code, "mi300x", "off")) == [("prefetch", "slower")] * 2
    assert found(check(tmp_path, code, "mi300a", "on")) == [("prefetch", "differs")] * 2
    sysmem = "void f() { float* h = (float*)malloc(64); cudaMemPrefetchAsync(h, 64, 0, 0); }"
    assert found(check(tmp_path, sysmem, "mi250x", "off")) == [("prefetch", "breaks")]
    assert found(check(tmp_path, sysmem, "mi250x", "on")) == [("prefetch", "same")]


@pytest.mark.parametrize("advice,dest,target,xnack,severity", [
    ("cudaMemAdviseSetReadMostly", "0", "mi300x", "on", "slower"),
    ("cudaMemAdviseSetReadMostly", "0", "mi250x-coherent", "on", "differs"),
    ("cudaMemAdviseSetReadMostly", "0", "mi300a", "on", "same"),
    ("cudaMemAdviseSetPreferredLocation", "0", "mi300x", "on", "same"),
    ("cudaMemAdviseSetPreferredLocation", "0", "mi250x-coherent", "on", "differs"),
    ("cudaMemAdviseSetPreferredLocation", "0", "mi250x", "off", "differs"),
    ("cudaMemAdviseSetPreferredLocation", "cudaCpuDeviceId", "mi300x", "on", "same"),
    ("cudaMemAdviseSetAccessedBy", "cudaCpuDeviceId", "mi300x", "on", "slower"),
    ("cudaMemAdviseSetAccessedBy", "cudaCpuDeviceId", "mi300a", "on", "differs"),
    ("cudaMemAdviseSetAccessedBy", "0", "mi250x", "on", "differs"),
    ("cudaMemAdviseSetAccessedBy", "0", "mi250x", "off", "same"),
    ("cudaMemAdviseSetAccessedBy", "0", "mi300a", "off", "same"),
    ("cudaMemAdviseSetAccessedBy", "0", "mi300a", "on", "differs"),
    ("cudaMemAdviseUnsetReadMostly", "0", "mi250x", "on", "same"),
    ("advice", "0", "mi250x", "on", "differs"),
])
def test_advise_by_kind_and_target(tmp_path, advice, dest, target, xnack, severity):
    r = check(tmp_path, f"void f(float* a) {{ cudaMemAdvise(a, 64, {advice}, {dest}); }}",
              target, xnack)
    assert found(r, "advise") == [("advise", severity)]


def test_cpu_device_id_is_a_rename(tmp_path):
    r = check(tmp_path, "int d = cudaCpuDeviceId; // cudaCpuDeviceId in a comment\n")
    assert [(f.construct, f.hip, f.severity) for f in r.findings] == [
        ("cpu_device_id", "hipCpuDeviceId", "same")]


def test_stream_attach_is_a_no_op(tmp_path):
    r = check(tmp_path, "void f(cudaStream_t s, int* p) { cudaStreamAttachMemAsync(s, p); }")
    assert [(f.construct, f.hip, f.severity, f.ledger) for f in r.findings] == [
        ("stream_attach", "hipStreamAttachMemAsync", "differs", ("amd.stream_attach.noop",))]


def test_prefetch_in_multi_gpu_code_with_xnack_off_is_flagged(tmp_path):
    """Issue 42, I1: with XNACK off every GPU the process sees has access to a managed range, and
    svm_range_best_prefetch_location sends the range to system memory unless all of them share
    the target's xGMI hive: a GPU prefetch in multi-GPU code says so; one-GPU code does not."""
    one = "void f(float* a) { cudaMemPrefetchAsync(a, 64, 0, 0); }\n"
    for many in ("void f(float* a, int d) { cudaSetDevice(d);\n"
                 "  cudaMemPrefetchAsync(a, 64, d, 0); }\n",
                 "void f(float* a) { int n; cudaGetDeviceCount(&n);\n"
                 "  cudaMemPrefetchAsync(a, 64, 1, 0); }\n"):
        (f,) = check(tmp_path, many, "mi300x", "off").findings
        assert f.detail["multi_gpu"] is True and "xGMI hive" in f.message
        assert "LastPrefetchLocation" in f.message and "amd.prefetch.migrates" in f.ledger
        (g,) = check(tmp_path, many, "mi300x", "on").findings      # XNACK on: accessed-by only
        assert "accessed-by" in g.message and "LastPrefetchLocation" not in g.message
    (f,) = check(tmp_path, one, "mi300x", "off").findings
    assert f.detail["multi_gpu"] is False and "xGMI" not in f.message
    cpu = "void f(float* a, int d) { cudaSetDevice(d); cudaMemPrefetchAsync(a, 64, cudaCpuDeviceId, 0); }"
    (f,) = [f for f in check(tmp_path, cpu, "mi300x", "off").findings
            if f.construct == "prefetch"]
    assert f.detail["multi_gpu"] is False                          # to the CPU: not affected
    zero = "void f(float* a) { cudaSetDevice(0); cudaMemPrefetchAsync(a, 64, 0, 0); }"
    (f,) = [f for f in check(tmp_path, zero, "mi300x", "off").findings
            if f.construct == "prefetch"]
    assert f.detail["multi_gpu"] is False                          # device 0 only


def test_system_memory_kernel_names_only_the_initial_heap_and_stack_in_place(tmp_path):
    """Issue 42, I18: only the initial brk heap and the main stack (vma_is_initial_heap/stack)
    are mapped in place; mmap-backed malloc migrates."""
    code = "void f() { float* h = (float*)malloc(1 << 20); k<<<1, 1>>>(h); }\n"
    (f,) = check(tmp_path, code, "mi300x", "on").findings
    assert "initial brk heap" in f.message and "mmap" in f.message and "migrate" in f.message
    assert "heap and stack ranges are mapped in place" not in f.message


def test_range_attribute_read_mostly_and_apu_prefetch(tmp_path):
    code = ("void f(int* v, float* a) {\n"
            "  cudaMemRangeGetAttribute(v, 4, cudaMemRangeAttributeReadMostly, a, 64);\n"
            "  cudaMemRangeGetAttribute(v, 4, cudaMemRangeAttributeLastPrefetchLocation, a, 64);"
            "\n}\n")
    assert found(check(tmp_path, code, "mi300x", "on")) == [("range_attribute", "differs"),
                                                             ("range_attribute", "same")]
    assert found(check(tmp_path, code, "mi300a", "on")) == [("range_attribute", "differs"),
                                                             ("range_attribute", "differs")]


def test_device_attributes_follow_the_platform(tmp_path):
    code = ("void f(int* v, cudaDeviceProp* p) {\n"
            "  cudaDeviceGetAttribute(v, cudaDevAttrConcurrentManagedAccess, 0);\n"
            "  cudaDeviceGetAttribute(v, cudaDevAttrPageableMemoryAccess, 0);\n"
            "  if (p->directManagedMemAccessFromHost) {}\n}\n")
    assert found(check(tmp_path, code, "mi300x", "off")) == [
        ("device_attribute", "differs"), ("device_attribute", "differs"),
        ("device_attribute", "same")]
    assert found(check(tmp_path, code, "mi300x", "on")) == [("device_attribute", "same")] * 3
    r = check(tmp_path, code, "mi250x-coherent", "on")
    assert r.findings[2].severity == "differs" and r.findings[2].message.startswith("1 here")
    assert r.findings[2].hip == "hipDeviceProp_t.directManagedMemAccessFromHost"


def test_pinned_alloc_flags(tmp_path):
    code = ("void f(float** p) {\n"
            "  cudaMallocHost(p, 64);\n"
            "  cudaHostAlloc(p, 64, cudaHostAllocMapped);\n"
            "  cudaHostAlloc(p, 64, cudaHostAllocPortable);\n"
            "  cudaHostAlloc(p, 64, cudaHostAllocWriteCombined);\n"
            "  cudaHostAlloc(p, 64, flags);\n}\n")
    r = check(tmp_path, code)
    assert found(r) == [("pinned_alloc", "same"), ("pinned_alloc", "same"),
                        ("pinned_alloc", "differs"), ("pinned_alloc", "differs"),
                        ("pinned_alloc", "differs")]
    assert "amd.host_malloc.write_combined" in r.findings[3].ledger


def test_ipc_of_managed_memory_breaks(tmp_path):
    code = ("void f(cudaIpcMemHandle_t* h, float* d) { float* m; cudaMallocManaged(&m, 64);\n"
            "  cudaIpcGetMemHandle(h, m); cudaIpcGetMemHandle(h, d); }\n")
    r = check(tmp_path, code, "mi300x", "on")
    assert found(r, "ipc_managed") == [("ipc_managed", "breaks")]
    assert r.exit_code == 1


def test_system_memory_handed_to_a_kernel(tmp_path):
    code = ("#include <vector>\nvoid f(int n) { std::vector<float> v(n);\n"
            "  float* h = new float[n]; float* r = (float*)malloc(64);\n"
            "  cudaHostRegister(r, 64, 0);\n"
            "  k<<<1, 1>>>(v.data()); k<<<1, 1>>>(h); k<<<1, 1>>>(r); }\n")
    assert found(check(tmp_path, code, "mi250x", "off")) == [
        ("system_memory_kernel", "breaks")] * 2            # r was registered: not reported
    assert found(check(tmp_path, code, "mi300a", "off")) == [
        ("system_memory_kernel", "breaks")] * 2
    assert found(check(tmp_path, code, "mi300a", "on")) == [
        ("system_memory_kernel", "differs")] * 2
    # without `using namespace std`, an unqualified vector is someone else's type
    other = "void f(int n) { vector<float> v(n); k<<<1, 1>>>(v.data()); }"
    assert found(check(tmp_path, other)) == []
    assert found(check(tmp_path, "using namespace std;\n" + other)) == [
        ("system_memory_kernel", "breaks")]


def test_atomics_on_managed_memory(tmp_path):
    code = ("__global__ void k(float* f, int* i, float* d) {\n"
            "  atomicAdd(f, 1.0f);\n  atomicAdd(i, 1);\n  atomicAdd(d, 1.0f); }\n"
            "void h(float* dev) { float* f; int* i; cudaMallocManaged(&f, 4);\n"
            "  cudaMallocManaged(&i, 4); k<<<1, 1>>>(f, i, dev); }\n")
    mi200 = [(f.line, f.severity) for f in check(tmp_path, code, "mi250x", "on").findings
             if f.construct == "managed_atomic"]
    assert mi200 == [(2, "slower"), (3, "same")]         # d is not managed: not reported
    mi300 = found(check(tmp_path, code, "mi300x", "on"), "managed_atomic")
    assert mi300 == [("managed_atomic", "differs"), ("managed_atomic", "same")]


def test_device_synchronize_as_the_only_fence(tmp_path):
    code = ("void f() { float* a; cudaMallocManaged(&a, 4); k<<<1, 1>>>(a);\n"
            "  cudaDeviceSynchronize(); }\n")
    assert found(check(tmp_path, code), "device_sync_fence") == [("device_sync_fence", "same")]
    finer = code.replace("cudaDeviceSynchronize();", "cudaDeviceSynchronize(); "
                         "cudaStreamSynchronize(0);")
    assert found(check(tmp_path, finer), "device_sync_fence") == []


def test_every_rule_has_a_test_above():
    src = Path(__file__).read_text()
    for construct in rules.CONSTRUCTS:
        assert f'"{construct}"' in src, construct


# -- the messy file ---------------------------------------------------------------------------
def at(snippet: str) -> int:
    """The line of the fixture holding ``snippet`` (it must be on exactly one line; a
    snippet that ends with a newline must end its line)."""
    lines = [i for i, line in enumerate(MESSY.read_text().splitlines(), 1)
             if (line.endswith(snippet[:-1]) if snippet.endswith("\n") else snippet in line)]
    assert len(lines) == 1, (snippet, lines)
    return lines[0]


def test_the_messy_file_is_reported_completely_and_exactly():
    r = portcheck.port_check(str(MESSY), target="mi250x", xnack="off")
    want = {
        # a function-like macro is expanded where it is used: the advice is on `out`, there
        (at("ADVISE_READ_MOSTLY(out, bytes)"), "advise", "slower"),
        (at("#define ADVISE_READ_MOSTLY"), "cpu_device_id", "same"),
        (at("__managed__ float g_total"), "managed_var", "slower"),
        (at("__managed__ int g_counter"), "managed_var", "slower"),
        (at("cudaMallocManaged(&p, n * sizeof(T))"), "managed_alloc", "slower"),
        (at("atomicAdd(sum,"), "managed_atomic", "slower"),
        (at("atomicAdd(&hits[i % 16], 1)"), "managed_atomic", "same"),
        (at("atomicAdd(&g_total, 1.0f)"), "managed_atomic", "slower"),
        (at("cudaDeviceGetAttribute(&concurrent,"), "device_attribute", "differs"),
        (at("cudaDevAttrPageableMemoryAccess"), "device_attribute", "differs"),
        (at("prop.directManagedMemAccessFromHost"), "device_attribute", "same"),
        (at("cudaMallocManaged((void**)&data,"), "managed_alloc", "slower"),
        (at("reinterpret_cast<void**>(&hits)"), "managed_alloc", "slower"),
        (at("cudaStreamAttachMemAsync"), "stream_attach", "differs"),
        (at("cudaMemAdviseSetReadMostly, gpu"), "advise", "slower"),
        (at("CUDA_CHECK(cudaMemAdvise(data, bytes,\n"), "advise", "differs"),
        (at("cudaMemAdviseSetAccessedBy, host"), "advise", "slower"),
        (at("cudaMemAdviseSetAccessedBy, dev"), "advise", "same"),
        (at("cudaMemPrefetchAsync(data, bytes, gpu, 0, stream)"), "prefetch", "slower"),
        (at("cudaMemPrefetchAsync(out, bytes, dev, stream)"), "prefetch", "slower"),
        (at("cudaMemPrefetchAsync(hits,"), "prefetch", "slower"),
        (at("                                    cudaCpuDeviceId,"), "cpu_device_id", "same"),
        (at("(heap, 256)"), "system_memory_kernel", "breaks"),
        (at("(staging.data(),"), "system_memory_kernel", "breaks"),
        (at("cudaMemPrefetchAsync(heap"), "prefetch", "breaks"),
        (at("cudaMemRangeGetAttribute(&preferred"), "range_attribute", "same"),
        (at("cudaMemRangeGetAttribute(&read_mostly"), "range_attribute", "differs"),
        (at("cudaMemRangeGetAttributes(values"), "range_attribute", "same"),
        (at("cudaMallocHost(&pinned"), "pinned_alloc", "same"),
        (at("cudaHostAlloc(&mapped"), "pinned_alloc", "same"),
        (at("cudaHostAlloc(&portable"), "pinned_alloc", "differs"),
        (at("cudaIpcGetMemHandle(&handle, data)"), "ipc_managed", "breaks"),
        (at("::cudaDeviceSynchronize()"), "device_sync_fence", "same"),
    }
    got = [(f.line, f.construct, f.severity) for f in r.findings]
    assert len(got) == len(set(got))
    assert set(got) == want
    assert {c for _, c, _ in want} == set(rules.CONSTRUCTS)    # every construct is in the file
    assert r.exit_code == 1


def test_every_finding_cites_existing_ledger_entries():
    for target in rules.TARGETS:
        for xnack in ("on", "off"):
            for f in portcheck.port_check([str(MESSY), str(ROOT / "kernels" / "cuda")],
                                          target=target, xnack=xnack).findings:
                assert f.ledger, f
                for i in f.ledger:
                    L.entry(i)
                assert f.hip and f.message


def test_platform_facts_are_the_simulators():
    import umkit
    for target, (_, on, off, _) in rules.TARGETS.items():
        for xnack, name in (("on", on), ("off", off)):
            p = rules.platform(target, xnack == "on")
            assert p.profile.name == name
            with umkit.using("sim", profile=name):
                caps = umkit.capabilities()
            # the CPU side follows the platform; the XNACK signal where the profile models it
            assert p.direct_host_access == caps["direct_managed_access_from_host"], name
            if (p.profile.mode != "zero_copy") == (xnack == "on"):
                assert p.xnack == caps["pageable_memory_access"], name


# -- the C++ reader ---------------------------------------------------------------------------
def test_the_reader_skips_comments_strings_and_dead_code():
    src = cxx.Source.parse(r'''
// cudaMallocManaged(&a, 1);
/* cudaMallocManaged(&b, 1); */
const char* s = "cudaMallocManaged(&c, 1)"; auto r = R"x(cudaMallocManaged(&d, 1))x";
char q = '\''; int n = 1'000'000;
#if 0
cudaMallocManaged(&e, 1);
#elif 1
cudaMallocManaged(&f, 1);
#else
cudaMallocManaged(&g, 1);
#endif
#ifdef SOMETHING
cudaMallocManaged(&h,
                  1);
#endif
''')
    calls = [(c.line, c.args[0].text) for c in src.calls if c.name == "cudaMallocManaged"]
    assert calls == [(9, "&f"), (14, "&h")]
    assert [t.text for t in src.tokens if t.kind == "num"][0] == "1000000"


def test_the_reader_finds_launches_templates_and_kernels():
    src = cxx.Source.parse("template <typename T>\n__global__ void __launch_bounds__(64) "
                           "k(T* a, int n) { }\nvoid h(float* x) {\n"
                           "  k<float><<<dim3(1, 1), 64, 0, s>>>(x, \\\n  3); }\n")
    (la,) = src.launches
    assert (la.kernel, la.line, [a.text for a in la.args]) == ("k", 4, ["x", "3"])
    kernels = [f for f in src.functions if f.kernel]
    assert [(f.name, f.param_names()) for f in kernels] == [("k", ["a", "n"])]


def test_a_declaration_is_not_a_call():
    src = cxx.Source.parse("cudaError_t cudaMallocManaged(void** p, size_t n);\n"
                           "obj.cudaMallocManaged(&p, 1); auto e = ::cudaMallocManaged(&p, 1);")
    assert [c.line for c in src.calls if c.name == "cudaMallocManaged"] == [2]


# -- the API and the command line ------------------------------------------------------------
def test_the_report_renders_text_markdown_and_json():
    r = portcheck.port_check(str(ROOT / "kernels" / "cuda"))
    assert r.files == ("cuda/advise_prefetch.cu", "cuda/epoch_prefetch.cu")   # no machine path
    assert r.text().splitlines()[-2].startswith("summary: ")
    assert r.markdown().count("\n| `cuda/") == len(r.findings)
    doc = json.loads(r.json())
    assert doc["summary"] == r.counts() and len(doc["findings"]) == len(r.findings)
    assert set(doc["ledger"]) == {i for f in r.findings for i in f.ledger}


@pytest.mark.parametrize("kwargs,error", [
    (dict(paths="no/such/file.cu"), InvalidArgument),
    (dict(paths=[]), InvalidType),
    (dict(paths=[3]), InvalidType),
    (dict(paths=str(MESSY), target="mi100"), InvalidArgument),
    (dict(paths=str(MESSY), xnack=True), InvalidType),
    (dict(paths=str(MESSY), xnack="1"), InvalidArgument),
])
def test_bad_arguments_are_typed_errors(kwargs, error):
    paths = kwargs.pop("paths")
    with pytest.raises(error) as e:
        portcheck.port_check(paths, **kwargs)
    assert e.value.hint


def run_cli(*argv):
    return subprocess.run([sys.executable, "-m", "umkit.cli", "port-check", *argv],
                          capture_output=True, text=True, cwd=ROOT,
                          env={"UMKIT_BACKEND": "sim", "PATH": "/usr/bin:/bin"})


def test_cli_exit_status_follows_breaks(capsys):
    assert cli.main(["port-check", str(MESSY), "--target", "mi300x", "--xnack", "on"]) == 1
    out = capsys.readouterr().out
    assert "[breaks] cudaIpcGetMemHandle" in out and "summary: " in out
    assert cli.main(["port-check", str(ROOT / "kernels" / "cuda"), "--xnack", "on"]) == 0


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_cli_formats(fmt, capsys):
    assert cli.main(["port-check", str(ROOT / "kernels" / "cuda"), "--format", fmt,
                     "--target", "mi250x-coherent"]) == 0
    out = capsys.readouterr().out
    if fmt == "json":
        assert json.loads(out)["target"] == "mi250x-coherent"
    else:
        assert ("| where |" in out) == (fmt == "markdown")


def test_cli_bad_input_is_a_message_not_a_traceback():
    missing = run_cli("no_such_dir/x.cu")
    assert missing.returncode == 2 and "no such file or folder" in missing.stderr
    assert "Traceback" not in missing.stderr
    unknown = run_cli("kernels/cuda", "--target", "mi100")
    assert unknown.returncode == 2 and "invalid choice: 'mi100'" in unknown.stderr
    assert "Traceback" not in unknown.stderr
    none = run_cli()
    assert none.returncode == 2 and "FILE_OR_DIR" in none.stderr


def test_port_check_is_a_lazy_name_of_the_root():
    code = ("import sys, umkit\nbefore = 'umkit.diagnostics.portcheck' in sys.modules\n"
            "r = umkit.port_check('kernels/cuda')\n"
            "print(before, 'umkit.diagnostics.portcheck' in sys.modules, type(r).__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env={"UMKIT_BACKEND": "sim", "PATH": "/usr/bin:/bin"}, check=True).stdout
    assert out.split() == ["False", "True", "Report"]


# -- hostile input: typed errors, bounded time ---------------------------------------------------
def test_a_pipe_is_refused_as_not_a_regular_file(tmp_path):
    import os
    fifo = tmp_path / "k.cu"
    os.mkfifo(fifo)
    with pytest.raises(InvalidArgument, match="not a regular file"):
        portcheck.port_check(str(fifo))


def test_an_unreadable_entry_under_a_folder_is_a_typed_error(tmp_path, monkeypatch):
    (tmp_path / "ok.cu").write_text(ALLOC)
    (tmp_path / "locked.cu").write_text(ALLOC)
    real = Path.is_file

    def is_file(self):
        if self.name == "locked.cu":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)
    monkeypatch.setattr(Path, "is_file", is_file)
    with pytest.raises(InvalidArgument, match="locked.cu.*cannot be read"):
        portcheck.port_check(str(tmp_path))


def test_a_file_is_read_no_further_than_the_limit_whatever_stat_says(tmp_path, monkeypatch):
    status = Path("/proc/self/status")
    if not status.exists() or status.stat().st_size != 0:
        pytest.skip("needs Linux /proc (files whose size stat gives as 0)")
    (tmp_path / "proc.cu").symlink_to(status)
    monkeypatch.setattr(portcheck.check, "MAX_BYTES", 64)
    with pytest.raises(InvalidArgument, match="larger than"):
        portcheck.port_check(str(tmp_path / "proc.cu"))


def test_all_the_files_of_a_run_are_bounded_together(tmp_path, monkeypatch):
    for k in range(3):
        (tmp_path / f"k{k}.cu").write_text(ALLOC)
    monkeypatch.setattr(portcheck.check, "MAX_TOTAL_BYTES", 2 * len(ALLOC))
    with pytest.raises(InvalidArgument, match="hold more than"):
        portcheck.port_check(str(tmp_path))


def test_brackets_nested_beyond_any_hand_written_code_are_refused(tmp_path):
    with pytest.raises(InvalidArgument, match=r"t\.cu:1: brackets nested more than"):
        check(tmp_path, "int main() { f" + "f(" * 5000 + "); }\n")
    with pytest.raises(InvalidArgument, match="brackets nested"):   # left open, too
        check(tmp_path, "{\n" * 5000)
    deep = "f(" * (cxx.MAX_DEPTH - 2) + ")" * (cxx.MAX_DEPTH - 2)  # deep but balanced: read
    assert check(tmp_path, f"int main() {{ {deep}; }}\n").findings == ()


@pytest.mark.parametrize("unit", ["x = y ", "cudaMemLocation a, ", "__managed__ ",
                                  "std::vector<", "void f(){ float a[1]; }\n",
                                  "int* f(){ cudaMallocManaged(&p, 1); return p; } q = f();\n",
                                  "f(" * 200 + ")" * 200 + ";\n"])
def test_pathological_sources_are_read_in_linear_time(tmp_path, unit):
    import time
    small, big = (unit * (n // len(unit)) for n in (25_000, 200_000))
    t0 = time.perf_counter()
    check(tmp_path, small)
    t1 = time.perf_counter()
    check(tmp_path, big)
    t2 = time.perf_counter()
    # 8x the text: linear is ~8x the time, quadratic ~64x (minutes before the fix)
    assert t2 - t1 < max(30 * (t1 - t0), 3.0), (t1 - t0, t2 - t1)


def test_lazy_arguments_read_as_before():
    src = cxx.Source.parse("cudaMemAdvise(ptr + off, f(a, b), cudaMemAdviseSetReadMostly, "
                           "std::vector<int, A>{1, 2}.size());")
    (c,) = [c for c in src.calls if c.name == "cudaMemAdvise"]
    assert [a.text for a in c.args] == ["ptr + off", "f(a, b)", "cudaMemAdviseSetReadMostly",
                                        "std::vector < int, A > { 1, 2 }.size()"]
    assert c.args[1].ids() == ["f", "a", "b"] and c.args[0].line == 1
