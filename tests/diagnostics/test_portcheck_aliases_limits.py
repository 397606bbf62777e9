"""port-check: a managed allocation reached through a macro or a function pointer, ``#if``
conditions that are constant expressions, a bounded report, and names that are not UTF-8 in
the JSON report (each test failed on the code before the change)."""
import argparse
import json
import os

import pytest
from repo_tools import lines_run

from umkit.diagnostics import portcheck
from umkit.diagnostics.portcheck import cxx
from umkit.errors import InvalidArgument, InvalidType

#: a real "breaks" with XNACK off: malloc'd memory handed to a kernel
BREAKS = "int main() { float* h = (float*)malloc(64); k<<<1, 1>>>(h); }\n"
IPC = "cudaIpcMemHandle_t h; cudaIpcGetMemHandle(&h, p);"


def check(tmp_path, code, name="t.cu", **kw):
    f = tmp_path / name
    f.write_text(code)
    return portcheck.port_check(str(f), target="mi250x", xnack="off", **kw)


def found(report):
    return [(f.line, f.construct, f.severity) for f in report.findings]


# -- an allocation reached through an alias -------------------------------------------------------
@pytest.mark.parametrize("define,name", [
    ("#define ALLOC cudaMallocManaged", "t.cu"),
    ("#define ALLOC ::cudaMallocManaged", "t.cu"),
    ("#define ALLOC (cudaMallocManaged)", "t.cu"),
    ("#define MY cudaMallocManaged\n#define ALLOC MY", "t.cu"),      # a chain
    ("#define ALLOC hipMallocManaged", "t.hip"),                      # hipified code
])
def test_an_object_like_macro_alias_is_followed(tmp_path, define, name):
    code = f"{define}\nint main() {{ float* p;\n  ALLOC(&p, 4);\n  {IPC} }}\n"
    r = check(tmp_path, code, name=name)
    n = define.count("\n")
    assert found(r) == [(3 + n, "managed_alloc", "slower"), (4 + n, "ipc_managed", "breaks")]
    assert r.findings[0].cuda == "ALLOC -> cudaMallocManaged"
    assert r.findings[0].detail["alias"] == "ALLOC" and r.exit_code == 1


def test_an_alias_inside_a_function_like_macro_is_followed(tmp_path):
    # the body of A2 is read where A2 is used, after ALLOC is defined
    code = ("#define A2(x, n) ALLOC(&x, n)\n#define ALLOC cudaMallocManaged\n"
            f"int main() {{ float* p;\n  A2(p, 4);\n  {IPC} }}\n")
    assert found(check(tmp_path, code)) == [(4, "managed_alloc", "slower"),
                                            (5, "ipc_managed", "breaks")]


def test_an_object_like_macro_that_is_not_an_alias_changes_nothing(tmp_path):
    code = ("#define ALLOC cudaMalloc\n#define SIZE 4\n"
            f"int main() {{ float* p;\n  ALLOC(&p, SIZE);\n  {IPC} }}\n")
    assert found(check(tmp_path, code)) == []


@pytest.mark.parametrize("decl", ["auto f = cudaMallocManaged;",
                                  "auto f = &cudaMallocManaged;",
                                  "cudaError_t (*f)(void**, size_t, unsigned) = cudaMallocManaged;",
                                  "decltype(&cudaMallocManaged) f = ::cudaMallocManaged;"])
def test_a_function_pointer_to_cuda_malloc_managed_is_followed(tmp_path, decl):
    code = f"int main() {{ float* p;\n  {decl}\n  f((void**)&p, 4, 1);\n  {IPC} }}\n"
    r = check(tmp_path, code)
    assert found(r) == [(3, "managed_alloc", "slower"), (4, "ipc_managed", "breaks")]
    assert r.findings[0].cuda == "f -> cudaMallocManaged" and r.exit_code == 1


def test_a_function_pointer_is_followed_only_in_its_own_block(tmp_path):
    code = ("void a() { auto f = cudaMallocManaged; }\n"
            f"void b() {{ float* p;\n  f(&p, 4);\n  {IPC} }}\n")
    assert found(check(tmp_path, code)) == []


def test_an_address_it_cannot_follow_is_said_not_passed_over(tmp_path):
    # handed to another function: the calls through it are out of reach; the finding says so
    code = ("typedef cudaError_t (*Alloc)(void**, size_t, unsigned);\n"
            "void run(Alloc a, float** p);\n"
            f"int main() {{ float* p;\n  run(cudaMallocManaged, &p);\n  {IPC} }}\n")
    r = check(tmp_path, code)
    (f,) = r.findings
    assert (f.line, f.construct, f.cuda) == (4, "managed_alloc", "cudaMallocManaged (as a value)")
    assert "cannot follow" in f.message and "hipIpcGetMemHandle" in f.message
    assert "amd.ipc.managed" in f.ledger
    # a declaration, decltype and using name it without taking its address
    quiet = ("using ::cudaMallocManaged;\ncudaError_t cudaMallocManaged(void**, size_t);\n"
             "using F = decltype(cudaMallocManaged);\nsize_t s = sizeof(&cudaMallocManaged);\n")
    assert found(check(tmp_path, quiet)) == []


# -- #if conditions: integer constant expressions ---------------------------------------------------
@pytest.mark.parametrize("cond", [
    "#if 1-1", "#if 2-2", "#if !1", "#if 0*X", "#if defined(X) && 0", "#if X * 0",
    "#define OFF 0\n#if OFF", "#define OFF (2 - 2)\n#if OFF", "#define B 0\n#define A B\n#if A",
    "#if (1 << 3) != 8", "#if 1 ? 0 : 1", "#if X ? 0 : 0", "#if -1 < 0u", "#if 7 / 2 != 3",
    "#if 0x10 % 3 - 1", "#define ON\n#ifndef ON", "#define ON 1\n#if !defined ON",
    "#define OFF 0\n#undef OFF\n#if OFF",                     # undefined: 0
    "#ifndef G_H\n#define G_H\n#define OFF 0\n#endif\n#if OFF",  # an include guard
    "#if 0\n#else\n#define OFF 0\n#endif\n#if OFF",
])
def test_a_constant_expression_that_is_false_is_dead_code(tmp_path, cond):
    r = check(tmp_path, f"{cond}\n" + BREAKS + "#endif\n")
    assert found(r) == [] and r.exit_code == 0


@pytest.mark.parametrize("cond", [
    "#if X", "#if X - 1", "#if 1 / 0", "#if F(0)", "#if __has_include(<x.h>)",
    "#if OFF\n#define OFF 0",                                  # defined after it
    "#define F(x) 0\n#if F(1)",                                # a function-like macro
    "#ifndef OFF\n#define OFF 0\n#endif\n#if OFF",             # a default -DOFF=1 overrides
    "#ifdef W\n#define OFF 1\n#else\n#define OFF 0\n#endif\n#if OFF",   # set on one path
    "#define A B\n#define B A\n#if A",                         # no value
    "#if -1 > 0u",                                             # true: -1 is unsigned there
])
def test_a_condition_it_cannot_settle_or_that_is_true_keeps_the_code(tmp_path, cond):
    lines = cond.count("\n")
    r = check(tmp_path, f"{cond}\n" + BREAKS + "#endif\n")
    assert found(r) == [(2 + lines, "system_memory_kernel", "breaks")]


def test_the_else_after_an_unknown_if_and_a_false_elif_is_live(tmp_path):
    r = check(tmp_path, "#if FEATURE\nvoid g() {}\n#elif 1-1\nvoid h() {}\n#else\n" + BREAKS +
              "#endif\n")
    assert found(r) == [(6, "system_memory_kernel", "breaks")]
    r = check(tmp_path, "#if 2-2\nvoid g() {}\n#elif 3-3\nvoid h() {}\n#else\n" + BREAKS +
              "#endif\n")
    assert found(r) == [(6, "system_memory_kernel", "breaks")]


def work(code: str) -> int:
    """Lines of port-check's own code executed to read ``code`` (counted work, no timing)."""
    return lines_run(lambda: cxx.Source.parse(code, "w.cu"), os.path.dirname(cxx.__file__))


def test_macros_that_expand_to_ever_more_cost_a_bounded_evaluation():
    # E40 expands to 2**40 empty macros: the evaluation stops at its budget (unknown: live)
    chain = "#define E0\n" + "".join(f"#define E{k} E{k - 1} E{k - 1}\n" for k in range(1, 41))
    one = chain + "#if E40 0\nint x;\n#endif\n"
    many = chain + "#if E40 0\nint x;\n#endif\n" * 50
    assert [t.text for t in cxx.Source.parse(one).tokens] == ["int", "x", ";"]
    assert work(many) - work(one) < 49 * 3 * 4 * cxx.COND_TOKENS * 4


def test_many_conditions_cost_work_linear_in_the_file():
    unit = "#define V{k} ({k} - {k})\n#if V{k} || defined(W) && 0\nint x{k};\n#endif\n"
    x = work("".join(unit.format(k=k) for k in range(300)))
    x2 = work("".join(unit.format(k=k) for k in range(600)))
    assert x2 < 2.2 * x, (x, x2)


# -- a bounded report -------------------------------------------------------------------------------
def many(n: int) -> str:
    """``n`` managed allocations, then an IPC export of one of them (the only breaks)."""
    return ("void f() { float* p;\n" + "  cudaMallocManaged(&p, 4);\n" * n + f"  {IPC}\n}}\n")


def test_the_report_shows_at_most_the_limit_breaks_first_and_says_what_it_left_out(tmp_path):
    r = check(tmp_path, many(5000))
    assert len(r.findings) == portcheck.MAX_PER_FILE == 200
    assert r.findings[-1].construct == "ipc_managed" and r.exit_code == 1   # breaks kept
    assert r.counts() == {"breaks": 1, "slower": 5000, "differs": 0, "same": 0}
    assert r.left_out == (("t.cu", 4801),)
    assert "5001 findings in 1 file" in r.summary()
    assert "4801 of them not shown (at most 200 a file and 1000 in all, breaks first)" in \
        r.summary() and "max_findings=None" in r.summary()
    assert len(r.text()) < 200_000 and len(r.markdown()) < 200_000 and len(r.json()) < 400_000
    doc = json.loads(r.json())
    assert doc["summary"]["slower"] == 5000 and len(doc["findings"]) == 200
    assert doc["left_out"]["count"] == 4801 and doc["left_out"]["by_severity"]["slower"] == 4801
    assert doc["left_out"]["by_file"] == [{"path": "t.cu", "count": 4801}]
    # the first 199 allocations in line order, then the breaks
    assert [f.line for f in r.findings] == list(range(2, 201)) + [5002]
    every = check(tmp_path, many(5000), max_findings=None, max_per_file=None)
    assert len(every.findings) == 5001 and not every.left_out and "not shown" not in \
        every.summary()


def test_limits_hold_per_file_and_in_all(tmp_path):
    for k in range(3):
        (tmp_path / f"f{k}.cu").write_text(many(4))
    r = portcheck.port_check(str(tmp_path), max_per_file=3, max_findings=5)
    assert len(r.findings) == 5 and r.not_shown == 10
    # breaks first: each file's export is shown, then the earliest allocations
    assert sum(f.construct == "ipc_managed" for f in r.findings) == 3
    assert [os.path.basename(f.path) for f in r.findings] == ["f0.cu", "f0.cu", "f0.cu",
                                                              "f1.cu", "f2.cu"]
    assert [(os.path.basename(p), n) for p, n in r.left_out] == [("f0.cu", 2), ("f1.cu", 4),
                                                                 ("f2.cu", 4)]


@pytest.mark.parametrize("value,error", [(0, InvalidArgument), (-1, InvalidArgument),
                                         ("10", InvalidType), (1.5, InvalidType),
                                         (True, InvalidType)])
def test_limits_are_checked(tmp_path, value, error):
    for arg in ("max_findings", "max_per_file"):
        with pytest.raises(error) as e:
            check(tmp_path, BREAKS, **{arg: value})
        assert e.value.argument == arg


def test_the_command_line_limit(tmp_path, capsys):
    f = tmp_path / "t.cu"
    f.write_text(many(300))
    args = dict(paths=[str(f)], target="mi250x", xnack="off", format="text")
    assert portcheck.main(argparse.Namespace(**args)) == 1
    out = capsys.readouterr().out
    assert out.count("[slower]") == 199 and "101 of them not shown" in out
    assert portcheck.main(argparse.Namespace(**args, max_findings=0)) == 1
    out = capsys.readouterr().out
    assert out.count("[slower]") == 300 and "not shown" not in out
    assert portcheck.main(argparse.Namespace(**args, max_findings=10)) == 1
    out = capsys.readouterr().out
    assert out.count("[slower]") == 9 and "--max-findings 0 shows them all" in out


@pytest.mark.slow
def test_a_file_of_many_findings_holds_only_those_shown(tmp_path):
    # the findings past the limit are counted, not held: the peak memory of the whole check
    # (tokens, calls and the findings kept) is well below that of keeping all 20,001
    import tracemalloc
    f = tmp_path / "m.cu"
    f.write_text(many(20000))
    peaks = []
    for kw in ({}, {"max_findings": None, "max_per_file": None}):
        tracemalloc.start()
        try:
            portcheck.port_check(str(f), **kw)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    assert peaks[0] < 0.85 * peaks[1], peaks


# -- names that are not UTF-8 ------------------------------------------------------------------------
def test_a_name_that_is_not_utf8_is_valid_json_naming_its_bytes(tmp_path):
    raw = os.fsencode(str(tmp_path)) + b"/g\xff\xfe.cu"
    try:
        with open(raw, "w") as fh:
            fh.write(BREAKS)
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    r = portcheck.port_check(str(tmp_path))
    text = r.json()
    text.encode("utf-8")                                   # strict: no lone surrogate
    doc = json.loads(text)
    shown = tmp_path.name + "/g\\xff\\xfe.cu"
    assert doc["files"] == [shown] == [f["path"] for f in doc["findings"]]
    assert doc["left_out"]["by_file"] == []
    assert "g\\xff\\xfe.cu:1: [breaks]" in r.text()


def test_a_name_with_a_lone_surrogate_is_refused_typed(tmp_path):
    with pytest.raises(InvalidArgument) as e:
        portcheck.port_check(str(tmp_path / "\ud800.cu"))
    assert e.value.argument == "paths" and "\\ud800" in str(e.value)


def test_a_long_macro_named_by_many_conditions_costs_about_what_a_short_one_does():
    # each `#if A` expanded A's 240 tokens anew: 200 KB of such lines took 2.4 s; all the
    # conditions of a file now share a budget of a few steps per token of its directives
    def source(body):
        return f"#define A ({body})\n" + "#if A\nint x;\n#endif\n" * 400
    long, short = work(source(" + ".join(["1"] * 120))), work(source("1"))
    assert long < 3 * short, (long, short)


def test_many_function_pointers_of_one_name_cost_work_linear_in_the_file():
    # each call of `f` looked at every `auto f = ...` of the file
    unit = ("void g{k}() {{ float* p{k}; auto f = cudaMallocManaged; f(&p{k}, 4); "
            "auto f2 = cudaFree; f2(p{k}); }}\n")
    x = work("".join(unit.format(k=k) for k in range(300)))
    x2 = work("".join(unit.format(k=k) for k in range(600)))
    assert x2 < 2.2 * x, (x, x2)
    src = cxx.Source.parse(unit.format(k=0) + unit.format(k=1))
    assert [(c.name, c.alias) for c in src.calls] == [("cudaMallocManaged", "f"),
                                                     ("cudaFree", "f2")] * 2


def test_a_runtime_name_redefined_to_a_wrapper_is_still_read_as_itself(tmp_path):
    # `#define cudaMallocManaged myManaged` (a project's wrapper): following it would lose
    # the managed allocation; only names that stand for a runtime function are followed
    code = ("#define cudaMallocManaged myManaged\n#define MALLOC malloc\n"
            f"int main() {{ float* p;\n  cudaMallocManaged(&p, 4);\n  {IPC}\n"
            "  float* h = (float*)MALLOC(64); k<<<1, 1>>>(h); }\n")
    assert found(check(tmp_path, code)) == [(4, "managed_alloc", "slower"),
                                            (5, "ipc_managed", "breaks"),
                                            (6, "system_memory_kernel", "breaks")]


# -- managed memory reached through a copy, a reference or a wrapper (AT4's PC2) ---------------------
@pytest.mark.parametrize("body", [
    "float* p; cudaMallocManaged(&p, 4);\n  float* q = p;\n  cudaIpcGetMemHandle(&h, q);",
    "float* p; float* q; cudaMallocManaged(&p, 4);\n  q = p;\n  cudaIpcGetMemHandle(&h, q);",
    "float* p; cudaMallocManaged(&p, 4);\n  float* q = p; float* r = q;\n  "
    "cudaIpcGetMemHandle(&h, r);",                                          # a chain
    "float* p; float*& r = p; cudaMallocManaged(&r, 4);\n  cudaIpcGetMemHandle(&h, p);",
])
def test_a_copy_or_a_reference_of_a_managed_pointer_is_followed(tmp_path, body):
    r = check(tmp_path, f"int main() {{ cudaIpcMemHandle_t h;\n  {body} }}\n")
    assert ("ipc_managed", "breaks") in [(c, s) for _, c, s in found(r)], found(r)
    assert r.exit_code == 1


def test_the_pointer_a_wrapper_allocates_is_managed(tmp_path):
    code = ("template<typename T> void alloc(T** q) { cudaMallocManaged(q, sizeof(T)); }\n"
            "int main() { float* p; cudaIpcMemHandle_t h;\n  alloc(&p);\n  "
            "cudaIpcGetMemHandle(&h, p); }\n")
    r = check(tmp_path, code)
    assert (4, "ipc_managed", "breaks") in found(r), found(r)


def test_a_copy_of_device_memory_stays_device_memory(tmp_path):
    code = ("int main() { float* p; float* d; cudaIpcMemHandle_t h;\n  cudaMallocManaged(&p, 4);\n"
            "  cudaMalloc(&d, 4);\n  float* q = d;\n  cudaIpcGetMemHandle(&h, q); }\n")
    r = check(tmp_path, code)
    assert "breaks" not in [s for _, _, s in found(r)] and r.exit_code == 0, found(r)


def test_a_lambda_that_allocates_its_parameter_is_a_wrapper(tmp_path):
    # AT3's lambda.cu (P3): the break was missed
    code = ("int main(){float*p; auto f = [](float**q){ return cudaMallocManaged(q,4); }; f(&p);\n"
            " cudaIpcMemHandle_t h; cudaIpcGetMemHandle(&h,p); return 0;}\n")
    assert (2, "ipc_managed", "breaks") in found(check(tmp_path, code))


def test_a_function_pointer_made_by_brace_init_is_followed(tmp_path):
    # AT3's braceinit.cu (P3): auto f{cudaMallocManaged};
    code = ("int main(){float*p; auto f{cudaMallocManaged}; f(&p,4,1);\n"
            " cudaIpcMemHandle_t h; cudaIpcGetMemHandle(&h,p); return 0;}\n")
    r = check(tmp_path, code)
    assert (1, "managed_alloc", "slower") in found(r) and (2, "ipc_managed", "breaks") in found(r)


def test_a_name_copied_from_device_memory_after_managed_is_device_memory(tmp_path):
    code = ("int main() { float* p; float* d; cudaIpcMemHandle_t h;\n  cudaMallocManaged(&p, 4);\n"
            "  cudaMalloc(&d, 4);\n  float* q = p;\n  q = d;\n  cudaIpcGetMemHandle(&h, q); }\n")
    r = check(tmp_path, code)
    assert "breaks" not in [s for _, _, s in found(r)] and r.exit_code == 0, found(r)
    code = code.replace("  q = d;\n", "  q = d;\n  q = p;\n")          # and managed again
    assert (7, "ipc_managed", "breaks") in found(check(tmp_path, code))


def test_many_copies_between_two_pointers_cost_work_linear_in_the_file():
    # AT8: each `p = q;` looked at every earlier copy of its name: 560 KB of them took 55 s
    from umkit.diagnostics.portcheck import rules

    def facts_work(n):
        code = ("void f() { float* p; float* q; cudaMallocManaged(&p, 64);\n"
                + "p = q; q = p;\n" * n + "}\n")
        src = cxx.Source.parse(code, "w.cu")
        return lines_run(lambda: rules.facts(src), os.path.dirname(rules.__file__))
    x, x2 = facts_work(400), facts_work(800)
    assert x2 < 2.2 * x, (x, x2)
