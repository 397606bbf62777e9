"""port-check on pathological files: raw strings, long ``a<b<c`` chains and variadic macros
are read in time linear in the file (each test failed on the code before the fix), and
``#if`` conditions that are constants written another way (``(0)``, ``0L``) are dead code."""
import os
import time

import pytest
from repo_tools import lines_run

from umkit.diagnostics import portcheck
from umkit.diagnostics.portcheck import cxx, rules

#: a real "breaks" with XNACK off: malloc'd memory handed to a kernel
BREAKS = "int main() { float* h = (float*)malloc(64); k<<<1, 1>>>(h); }\n"


def check(tmp_path, code):
    f = tmp_path / "t.cu"
    f.write_text(code)
    return portcheck.port_check(str(f), target="mi250x", xnack="off")


def found(report):
    return [(f.line, f.construct, f.severity) for f in report.findings]


def read(code: str) -> None:
    rules.check_source(cxx.Source.parse(code, "w.cu"), rules.platform("mi250x", False), "w.cu")


def work(code: str) -> int:
    """Lines of port-check's own code executed to read and check ``code``: counted work, the
    same on every machine (no timing)."""
    return lines_run(lambda: read(code), os.path.dirname(cxx.__file__))


def cpu_seconds(code: str) -> float:
    """The least processor time of three reads (processor time: other work on the machine
    slows the wall clock, not this)."""
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        read(code)
        best = min(best, time.process_time() - t0)
    return best


# -- linear time --------------------------------------------------------------------------------
@pytest.mark.slow
def test_raw_strings_cost_time_linear_in_the_file():
    # each raw string's opening was matched against a copy of the rest of the file: the work
    # in C (no Python line to count), so this one is timed -- as a ratio, 4x the input
    unit = 'R"(x)";\n'
    small, big = unit * (32 << 10), unit * (128 << 10)
    ratio = cpu_seconds(big) / cpu_seconds(small)
    # linear is 4; before the fix this was 14-16 (quadratic)
    assert ratio < 8, ratio


def test_a_raw_string_is_still_one_string():
    code, _ = cxx.tokenize('a = R"d(x)" y )d"; b = u8R"(q)"; c;')
    assert [t.text for t in code] == ["a", "=", '""', ";", "b", "=", '""', ";", "c", ";"]


def test_a_long_chain_of_less_than_signs_costs_no_more_than_plus_signs():
    # every `name <` scanned up to 64 tokens ahead for a `>`: four times the work of the same
    # file with `+` (the same tokens otherwise); now the scan reads tables built in one pass
    chain = "int x = " + "a<" * 4000 + "a>;\n" + BREAKS
    plain = chain.replace("<", "+").replace(">;", "+1;")
    assert work(chain) < 1.5 * work(plain), (work(chain), work(plain))


def test_template_arguments_are_still_read():
    r = cxx.Source.parse("void f() { g<std::vector<int>, (1 > 2)>(p, q); "
                         "h<A<B<C>  >  >(r); k < a; m(x < y, z > w); }")
    calls = {c.name: c for c in r.calls}
    assert calls["g"].template.replace(" ", "") == "std::vector<int>,(1>2)"
    assert [a.text for a in calls["g"].args] == ["p", "q"]
    assert calls["h"].template.replace(" ", "") == "A<B<C>>"
    # `x < y, z > w` is two comparisons, not one template argument
    assert [a.text for a in calls["m"].args] == ["x < y", "z > w"]


@pytest.mark.parametrize("uses", [64, 256])
def test_a_variadic_macro_naming_its_arguments_many_times_is_not_expanded_that_many(uses):
    # the body was built whole (uses x the arguments) before the expansion budget was
    # checked: 2-5x the work of a body that names them once; now its length is known first
    def source(n):
        return ("#define V(...) f(" + ", ".join(["__VA_ARGS__"] * n) + ")\n"
                "void g() { V(cudaMallocManaged" + ", a" * 5000 + "); }\n")
    assert work(source(uses)) < 1.5 * work(source(1))


def test_a_variadic_macro_within_the_budget_is_still_expanded(tmp_path):
    code = ("#define ALLOC(...) cudaMallocManaged(__VA_ARGS__)\n"
            "void g() { float* p;\n  ALLOC(&p, 64, cudaMemAttachGlobal); }\n")
    assert (3, "managed_alloc", "slower") in found(check(tmp_path, code))


# -- constant #if conditions ----------------------------------------------------------------------
@pytest.mark.parametrize("cond", ["(0)", "0L", "0UL", "0x0", "((0))", "!1", "0 && FEATURE",
                                  "FEATURE && 0", "(0) || 0l", "false"])
def test_a_constant_false_condition_is_dead_code(tmp_path, cond):
    code = f"#if {cond}\n" + BREAKS + "#endif\n"
    r = check(tmp_path, code)
    assert found(r) == [] and r.exit_code == 0


@pytest.mark.parametrize("cond", ["FEATURE", "defined(FEATURE)", "FEATURE > 1", "(1)", "1L",
                                  "1 || FEATURE", "!0", "0x10"])
def test_other_conditions_keep_the_code_live(tmp_path, cond):
    r = check(tmp_path, f"#if {cond}\n" + BREAKS + "#endif\n")
    assert found(r) == [(2, "system_memory_kernel", "breaks")]


@pytest.mark.parametrize("cond", ["(1)", "1L", "!0"])
def test_the_else_of_a_constant_true_condition_is_dead(tmp_path, cond):
    r = check(tmp_path, f"#if {cond}\nvoid g() {{}}\n#else\n" + BREAKS + "#endif\n")
    assert found(r) == []


def test_an_elif_with_a_constant_false_condition_is_dead(tmp_path):
    r = check(tmp_path, "#if FEATURE\nvoid g() {}\n#elif (0)\n" + BREAKS + "#endif\n")
    assert found(r) == []
    r = check(tmp_path, "#if (0)\nvoid g() {}\n#elif 1L\n" + BREAKS + "#endif\n")
    assert found(r) == [(4, "system_memory_kernel", "breaks")]
