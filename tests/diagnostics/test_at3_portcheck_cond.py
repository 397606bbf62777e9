"""port-check reads an #if as C's preprocessor does, or leaves both branches live: the usual
arithmetic conversions of ``?:`` with an unsigned operand (``(1 ? -1 : 0u) > 0`` is true), an
operand whose signedness no one can know here (a -D flag may make ``X`` unsigned), and macros
after an #include (the header may #undef or redefine them).  Each expected value is what
``cpp`` gives (the unknown ones: what it gives for some -D, not for another)."""
import pytest

from umkit.diagnostics import portcheck

#: a real "breaks": managed memory handed to IPC
IPC = ("int main(){float*p; cudaMallocManaged(&p,4); cudaIpcMemHandle_t h; "
       "cudaIpcGetMemHandle(&h,p); return 0;}\n")


def breaks(tmp_path, code):
    f = tmp_path / "t.cu"
    f.write_text("#include <cuda_runtime.h>\n" + code)
    r = portcheck.port_check(str(f), target="mi250x", xnack="off")
    return sum(x.severity == "breaks" for x in r.findings)


@pytest.mark.parametrize("cond, live", [
    ("(1 ? -1 : 0u) > 0", True),      # -1 converted to unsigned: the largest value
    ("(0 ? 0u : -1) > 0", True),
    ("(1 ? -1 : 0) > 0", False),      # both signed
    ("(1 ? 2 : 3u) == 2", True),
    ("-1 > 0u", True),
    ("X * 0u - 1 > 0", True),         # unsigned whatever X is
    ("X * 0 - 1 > 0", None),          # false for a signed X, true for -DX=1u: both live
    ("X * 0", False),                 # 0 whatever X is
    ("(X ? -1 : 0u) > 0", None),
])
def test_if_conditions_follow_the_usual_arithmetic_conversions(tmp_path, cond, live):
    n = breaks(tmp_path, f"#if {cond}\n{IPC}#endif\n")
    assert n == (0 if live is False else 1), cond


def test_a_macro_set_before_an_include_is_not_known_after_it(tmp_path):
    (tmp_path / "site_overrides.h").write_text("#undef USE_IPC\n#define USE_IPC 1\n")
    code = '#define USE_IPC 0\n#include "site_overrides.h"\n#if USE_IPC\n' + IPC + "#endif\n"
    assert breaks(tmp_path, code) == 1
    undef = '#undef USE_IPC\n#include <site.h>\n#ifdef USE_IPC\n' + IPC + "#endif\n"
    assert breaks(tmp_path, undef) == 1
    # without an include between them, or set after it, the value is known: the block is dead
    assert breaks(tmp_path, "#define USE_IPC 0\n#if USE_IPC\n" + IPC + "#endif\n") == 0
    assert breaks(tmp_path, '#include "site_overrides.h"\n#define USE_IPC 0\n#if USE_IPC\n'
                  + IPC + "#endif\n") == 0


@pytest.mark.parametrize("code, n", [
    # AT4's PC1: two functions each with their own `p`, one managed, one device: no break
    ("cudaIpcMemHandle_t h;\nvoid f(){ float*p; cudaMallocManaged(&p,4); cudaFree(p); }\n"
     "void g(){ float*p; cudaMalloc(&p,4); cudaIpcGetMemHandle(&h,p); }\n", 0),
    # a name freed and allocated again as device memory before it is exported
    ("cudaIpcMemHandle_t h;\nvoid f(){ float*p; cudaMallocManaged(&p,4); cudaFree(p); "
     "cudaMalloc(&p,4); cudaIpcGetMemHandle(&h,p); }\n", 0),
    # the other way round: the function that exports it made it managed -- a real break
    ("cudaIpcMemHandle_t h;\nvoid g(){ float*q; cudaMalloc(&q,4); cudaFree(q); }\n"
     "void f(){ float*q; cudaMallocManaged(&q,4); cudaIpcGetMemHandle(&h,q); }\n", 1),
    # a function that allocates nothing itself keeps the file's answer for the name
    ("cudaIpcMemHandle_t h; float* s;\nvoid a(){ cudaMallocManaged(&s,4); }\n"
     "void b(){ cudaIpcGetMemHandle(&h,s); }\n", 1),
])
def test_a_pointer_is_managed_where_its_own_function_allocated_it(tmp_path, code, n):
    assert breaks(tmp_path, code) == n
