"""The article's programs as real HIP C++, and how each vendor's compiler builds them.

``kernels/hip/*.hip`` (shipped inside umkit) are the article's programs written the way an AMD
engineer writes HIP: a ``HIP_CHECK`` macro around every call, ``hipMallocManaged``,
``hipMemAdvise``, ``hipMemPrefetchAsync``, streams and events.  Each prints ``CHECK`` lines and
a final ``RESULT <name> ok`` that :func:`check_output` verifies against values computed here, in
Python, independently of the program.

The same sources build with both vendors' compilers:

* AMD: ``hipcc --offload-arch=gfx90a`` (CPU CI compiles every one with Debian's HIP 5.2 hipcc);
* NVIDIA: ``nvcc -x cu`` with a ``hip/hip_runtime.h`` that umkit generates from its CUDA<->HIP
  names table (:func:`umkit.backends.names.cuda_header`: each hipX becomes cudaX; where CUDA 13
  wants a ``cudaMemLocation`` instead of HIP's int device, a small inline wrapper converts).
  The GPU CI step ``hip-examples`` builds, runs and checks them on an H200.
  No AMD GPU has run them: on AMD they are compiled, not run.

In a notebook (which imports only umkit)::

    import umkit
    umkit.examples.list()                        # ['first_touch', 'sync_scopes', ...]
    umkit.examples.info("epoch_prefetch")        # Example(name, section, title, summary)
    print(umkit.examples.source("epoch_prefetch"))            # the .hip text
    umkit.examples.build_command("epoch_prefetch", vendor="amd")
    # ['HIP_PLATFORM=amd hipcc --offload-arch=gfx90a -O2 -o build/hip-examples/epoch_prefetch
    #   kernels/hip/epoch_prefetch.hip']
    umkit.examples.build_command("epoch_prefetch", vendor="nvidia")
    # ['python -m umkit.examples header build/hip_on_cuda',
    #  'nvcc -std=c++17 -x cu -arch=sm_90 -O2 -I build/hip_on_cuda -o ... kernels/hip/epoch_prefetch.hip']
    print(umkit.examples.cuda_header())          # the generated header
    umkit.examples.originals()                   # those with a CUDA 13 original
    print(umkit.examples.cuda_original("epoch_prefetch"))     # kernels/cuda/epoch_prefetch.cu
    umkit.examples.build_command("epoch_prefetch", "nvidia", cuda_original=True)
    # ['nvcc -std=c++17 -arch=sm_90 -O2 -o build/hip-examples/epoch_prefetch_cuda
    #   kernels/cuda/epoch_prefetch.cu']
    umkit.examples.expected("epoch_prefetch")    # {'epoch0_sum': 77593400.0, ...}

From a shell::

    python -m umkit.examples list
    python -m umkit.examples header build/hip_on_cuda        # writes build/hip_on_cuda/hip/hip_runtime.h
    python -m umkit.examples build --vendor amd              # compile (-c) every .hip + kernels/*.cu for gfx90a
    python -m umkit.examples run --out results/hip-examples  # NVIDIA: generate, build, run, check

``run`` exits 0 only if every program built, ran (exit 0) and printed the expected values.  On
NVIDIA it also builds, runs and checks the CUDA 13 originals (``kernels/cuda/*.cu``), which must
print the same results as their HIP ports.  ``--json FILE`` also writes a summary, atomically; a
file already there is kept (the command stops before building), unless ``--force`` (replace it)
or ``--numbered`` (``res.json`` kept, the new one ``res-2.json``, ``res-3.json``, ...).
"""
from __future__ import annotations

import builtins
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional

from umkit.backends import names  # absolute: `python -m umkit.examples` runs this file
from umkit.errors import BackendUnavailable, InvalidArgument, InvalidType, UmkitError
from umkit.runtime.lang import tr

VENDORS = ("amd", "nvidia")
#: The MI200 target.  gfx90a = MI200 (MI210/MI250/MI250X); gfx942 (MI300X/MI300A)
#: is added by :func:`amd_arches` when the installed compiler knows it (Debian's HIP 5.2 / LLVM 15
#: does not: it stops at gfx940).
AMD_ARCH = "gfx90a"
NVIDIA_ARCH = "sm_90"                  # H100/H200
DEFAULT_OUT = "build/hip-examples"
DEFAULT_INCLUDE = "build/hip_on_cuda"
DEFAULT_SRC = "kernels/hip"


@dataclass(frozen=True)
class Example:
    name: str
    section: str       # the article's section
    title: str
    summary: str


_EXAMPLES = (
    Example("first_touch", "3.1", "Allocation and first touch",
            "hipMallocManaged, CPU writes (first touch timed against a second pass), a kernel on "
            "the same pointer via hipLaunchKernelGGL, hipDeviceSynchronize, CPU reads, hipFree."),
    Example("sync_scopes", "3.3", "Device vs stream vs event synchronization",
            "Two streams; hipEventSynchronize waits for one recorded point, hipStreamSynchronize "
            "for one stream, hipDeviceSynchronize for every stream of the current device."),
    Example("epoch_prefetch", "4.2", "The epoch loop with prefetch",
            "Three managed arrays; each epoch the CPU edits the batch, hipMemPrefetchAsync moves "
            "a and b to the GPU, add_kernel runs, the result is prefetched back to the CPU "
            "(hipCpuDeviceId) and summed."),
    Example("pingpong_split", "4.3", "The CPU/GPU ping-pong and its fix",
            "A sparse CPU statistic every 10 steps on managed parameters makes pages ping-pong; "
            "the fix keeps the hot parameters in hipMalloc memory and gathers the sample into a "
            "small managed buffer.  Both give the same statistics."),
    Example("advise_prefetch", "4.4", "Advise, then prefetch",
            "hipMemAdvise SetPreferredLocation and SetAccessedBy, then hipMemPrefetchAsync, a "
            "kernel, and hipMemRangeGetAttribute to read back what the driver recorded."),
)
_BY_NAME = {e.name: e for e in _EXAMPLES}


# -- finding the sources --------------------------------------------------------------------------
def source_dir() -> Path:
    """The folder holding the ``.hip`` files: ``<checkout>/kernels/hip`` when umkit runs from a
    source checkout, else the installed package data (``umkit._kernels/hip``)."""
    here = Path(__file__).resolve().parents[2] / "kernels" / "hip"
    if here.is_dir():
        return here
    try:
        from importlib.resources import files
        p = Path(str(files("umkit._kernels").joinpath("hip")))
        if p.is_dir():
            return p
    except (ModuleNotFoundError, ImportError, TypeError):
        pass
    raise FileNotFoundError("umkit's HIP examples (kernels/hip/*.hip) are not installed: "
                            "reinstall umkit")


def _check_name(name) -> Example:
    if not isinstance(name, str):
        raise InvalidType(f"name must be a str, one of {', '.join(_BY_NAME)}, not "
                          f"{type(name).__name__}", argument="name",
                          hint="see umkit.examples.list()")
    if name not in _BY_NAME:
        raise InvalidArgument(f"name must be one of {', '.join(_BY_NAME)} (umkit.examples.list()), "
                              f"not {name!r}", argument="name", hint="see umkit.examples.list()")
    return _BY_NAME[name]


def list() -> builtins.list[str]:  # noqa: A001  (umkit.examples.list() reads best)
    """The example names, in the article's order."""
    return [e.name for e in _EXAMPLES]


def info(name: str) -> Example:
    """Section, title and a one-line summary of one example (title and summary in the learner's
    language: ``lang.tr``)."""
    e = _check_name(name)
    return replace(e, title=tr(e.title), summary=tr(e.summary))


def path(name: str) -> Path:
    """The ``.hip`` file of one example."""
    _check_name(name)
    return source_dir() / f"{name}.hip"


def source(name: str) -> str:
    """The HIP C++ source text of one example (to show beside the Python cells)."""
    return path(name).read_text(encoding="utf-8")


def originals() -> builtins.list[str]:
    """The examples that also come as their CUDA 13 original (``kernels/cuda/<name>.cu``)."""
    d = source_dir().parent / "cuda"
    return [n for n in list() if (d / f"{n}.cu").is_file()]


def _original_path(name: str) -> Path:
    _check_name(name)
    if name not in originals():
        raise InvalidArgument(f"name: {name!r} has no CUDA original; those that do: "
                              f"{', '.join(originals())}")
    return source_dir().parent / "cuda" / f"{name}.cu"


def cuda_original(name: str) -> str:
    """The CUDA 13 original of one example (``kernels/cuda/<name>.cu``), to show beside the HIP
    port: the same program written with cudaX names and ``cudaMemLocation``."""
    return _original_path(name).read_text(encoding="utf-8")


def cuda_header() -> str:
    """The ``hip/hip_runtime.h`` for nvcc that umkit generates from its names table."""
    return names.cuda_header()


def kit_kernel_sources() -> builtins.list[Path]:
    """umkit's own kernels (``kernels/*.cu``; hiprtc compiles them at run time on AMD)."""
    return sorted(source_dir().parent.glob("*.cu"))


# -- build commands -------------------------------------------------------------------------------
def _check_vendor(vendor) -> str:
    if not isinstance(vendor, str) or vendor not in VENDORS:
        from umkit.validate import shown
        raise (InvalidArgument if isinstance(vendor, str) else InvalidType)(
            f"vendor must be 'amd' or 'nvidia', not {shown(vendor)}", argument="vendor",
            hint="vendor='amd' (hipcc) or vendor='nvidia' (nvcc)")
    return vendor


def _argv(src: str, out: str, vendor: str, arches, include_dir: str, compile_only: bool,
          force_include: Optional[str] = None, compiler: Optional[str] = None) -> builtins.list[str]:
    if vendor == "amd":
        argv = [compiler or "hipcc"] + [f"--offload-arch={a}" for a in arches] + ["-O2"]
        if force_include:
            argv += ["-include", force_include, "-x", "hip"]
    elif include_dir is None:             # a CUDA original: plain nvcc
        argv = [compiler or "nvcc", "-std=c++17"] + [f"-arch={a}" for a in arches] + ["-O2"]
    else:
        argv = [compiler or "nvcc", "-std=c++17", "-x", "cu"] + \
               [f"-arch={a}" for a in arches] + ["-O2", "-I", include_dir]
    return argv + (["-c"] if compile_only else []) + ["-o", out, src]


def build_command(name: str, vendor: str = "amd", *, arch: Optional[str] = None,
                  src_dir: str = DEFAULT_SRC, out_dir: str = DEFAULT_OUT,
                  include_dir: str = DEFAULT_INCLUDE, compile_only: bool = False,
                  cuda_original: bool = False) -> builtins.list[str]:
    """The exact shell command lines that build one example with ``vendor``'s compiler.

    ``vendor="amd"``: one ``hipcc`` line (``HIP_PLATFORM=amd`` in front, because a hipcc that
    also sees nvcc, as Debian's does, would otherwise pick NVIDIA).  ``vendor="nvidia"``: the
    line that generates the header, then the ``nvcc`` line.  ``compile_only`` builds an object
    file (``-c``) instead of a program.  These are the commands ``python -m umkit.examples
    build/run`` execute.  ``cuda_original=True`` (NVIDIA only): the plain nvcc line for the
    CUDA 13 original (:func:`cuda_original`), no header needed."""
    from umkit import validate as V
    _check_name(name)
    _check_vendor(vendor)
    V.optional_string(arch, "arch", hint="e.g. 'gfx90a' or 'sm_90'")
    for n, v in (("src_dir", src_dir), ("out_dir", out_dir), ("include_dir", include_dir)):
        V.text(v, n, hint="a folder path")
    V.flag(compile_only, "compile_only")
    if V.flag(cuda_original, "cuda_original"):
        if vendor != "nvidia":
            raise InvalidArgument("cuda_original=True builds the CUDA original: vendor must be "
                                  "'nvidia'")
        _original_path(name)                                  # raises if there is none
        cuda_dir = src_dir.rsplit("/", 1)[0] + "/cuda" if "/" in src_dir else "cuda"
        argv = _argv(f"{cuda_dir}/{name}.cu", f"{out_dir}/{name}_cuda" +
                     (".o" if compile_only else ""), "nvidia", [arch or NVIDIA_ARCH], None,
                     compile_only)
        return [shlex.join(argv)]
    a = arch or (AMD_ARCH if vendor == "amd" else NVIDIA_ARCH)
    src = f"{src_dir}/{name}.hip"
    out = f"{out_dir}/{name}" + (".o" if compile_only else "")
    argv = _argv(src, out, vendor, [a], include_dir, compile_only)
    if vendor == "amd":
        return ["HIP_PLATFORM=amd " + shlex.join(argv)]
    return [f"python -m umkit.examples header {include_dir}", shlex.join(argv)]


# -- expected results, computed here independently of the programs -------------------------------
def expected(name: str) -> dict[str, float]:
    """The values an example must print (its CHECK keys), computed in Python.  The device checks
    of advise_prefetch assume device 0 is current (the default)."""
    import numpy as np
    _check_name(name)
    n = 1 << 20
    i = np.arange(n, dtype=np.int64)
    if name == "first_touch":
        return {"sum": float(2 * (i % 1024).sum())}
    if name == "sync_scopes":
        rounds = 40000
        return {"event_x": 2.0, "stream_y": 2.0 + rounds, "device_x": 3.0,
                "device_y": 3.0 + rounds, "mismatches": 0.0}
    if name == "epoch_prefetch":
        base = float((i % 100).sum() + (i % 50).sum())
        return {f"epoch{e}_sum": base + e * n for e in range(3)}
    if name == "pingpong_split":
        k = np.arange(n // 1024, dtype=np.int64)
        base = float(((k * 1024) % 7).sum())
        out = {}
        for step in (10, 20, 30, 40):
            v = base + 0.5 * step * len(k)
            out[f"step{step}_managed"] = v
            out[f"step{step}_split"] = v
        return out
    # advise_prefetch
    return {"preferred_location": 0.0, "last_prefetch_location": 0.0,
            "accessed_by_lists_reader": 1.0, "sum": float((2 * (i % 3) + 1).sum())}


_PAIR = re.compile(r"(\w+)=(-?[0-9][0-9.eE+-]*)")


@dataclass
class Checked:
    name: str
    ok: bool
    problems: builtins.list[str] = field(default_factory=builtins.list)
    values: dict[str, float] = field(default_factory=dict)


def check_output(name: str, stdout: str, returncode: int = 0) -> Checked:
    """Check what one example printed: exit status 0, every CHECK line ends in ``ok``, every
    expected key printed with the value :func:`expected` computes (a key printed on several
    lines must have that value on each), no ``mismatches`` other than 0, and exactly one
    ``RESULT <name> ok``."""
    from umkit import validate as V
    want = expected(name)
    V.string(stdout, "stdout", hint="the program's standard output, as text")
    returncode = V.integer(returncode, "returncode", hint="the exit status, e.g. 0")
    problems: builtins.list[str] = []
    seen: dict[str, builtins.list[float]] = {}
    if returncode != 0:
        problems.append(f"exit status {V.shown(returncode)}")
    checks = [ln.strip() for ln in stdout.splitlines() if ln.startswith("CHECK ")]
    if not checks:
        problems.append("no CHECK lines")
    for ln in checks:
        if not ln.endswith(" ok"):
            problems.append(f"failed: {ln}")
        for k, v in _PAIR.findall(ln):
            if k != "expected":
                seen.setdefault(k, []).append(float(v))
    for k, v in want.items():
        got = seen.get(k)
        if not got:
            problems.append(f"{k} not printed")
        elif any(g != v for g in got):
            problems.append(f"{k}={got} but expected {v}")
    if any(v != 0 for v in seen.get("mismatches", [])):
        problems.append(f"mismatches={seen['mismatches']}: some elements were wrong")
    results = [ln.strip() for ln in stdout.splitlines() if ln.startswith("RESULT ")]
    if results != [f"RESULT {name} ok"]:
        problems.append(f"RESULT lines {results}, expected ['RESULT {name} ok']")
    return Checked(name, not problems, problems, {k: v[0] for k, v in seen.items()})


# -- building and running -------------------------------------------------------------------------
def find_compiler(vendor: str) -> Optional[str]:
    """hipcc or nvcc: on PATH, else in $ROCM_PATH/bin or $CUDA_HOME/bin (then /opt/rocm,
    /usr/local/cuda; for nvcc also a pip-installed ``nvidia/*/bin/nvcc``); None when absent."""
    _check_vendor(vendor)
    exe, env, default = (("hipcc", "ROCM_PATH", "/opt/rocm") if vendor == "amd"
                         else ("nvcc", "CUDA_HOME", "/usr/local/cuda"))
    found = shutil.which(exe)
    if found:
        return found
    for root in (os.environ.get(env), os.environ.get("CUDA_PATH") if vendor == "nvidia" else None,
                 default):
        if root and (Path(root) / "bin" / exe).is_file():
            return str(Path(root) / "bin" / exe)
    if vendor == "nvidia":                 # pip's nvidia-cuda-nvcc wheels: site-packages/nvidia/*/bin
        for entry in sys.path:
            for cand in sorted(Path(entry or ".").glob("nvidia/*/bin/nvcc")):
                if cand.is_file():
                    return str(cand)
    return None


def build_env(vendor: str) -> dict:
    """The environment a compiler for ``vendor`` ('amd' or 'nvidia') runs in."""
    from umkit import validate as V
    V.choice(vendor, "vendor", VENDORS)
    env = dict(os.environ)
    if vendor == "amd":
        env["HIP_PLATFORM"] = "amd"
    return env


def amd_arches(hipcc: Optional[str] = None) -> builtins.list[str]:
    """The AMD targets built by default: gfx90a (MI200) in both XNACK modes -- a code object
    built for xnack+ loads only with XNACK on, xnack- only with it off -- and one MI300-class
    target: gfx942 (MI300X, MI300A) when this hipcc knows it, else gfx940, the MI300 target
    older compilers know, whose code object does *not* load on a gfx942 card (ledger:
    amd.codeobj.target).  A one-second probe asks the compiler."""
    hipcc = hipcc or find_compiler("amd")
    arches = [f"{AMD_ARCH}:xnack+", f"{AMD_ARCH}:xnack-"]
    if hipcc:
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            probe = Path(d) / "probe.hip"
            probe.write_text("\n")
            for mi300 in ("gfx942", "gfx940"):
                r = subprocess.run([hipcc, f"--offload-arch={mi300}", "--cuda-device-only",
                                    "-fsyntax-only", "-x", "hip", str(probe)],
                                   env=build_env("amd"), capture_output=True, text=True,
                                   timeout=120)
                if r.returncode == 0:
                    arches.append(mi300)
                    break
    return arches


@dataclass
class Built:
    name: str            # example name, or the .cu file's name
    argv: builtins.list[str]
    ok: bool
    output: Path
    log: str
    seconds: float


def compile_example(name, src, out, vendor, arches, include_dir, compile_only, compiler,
             force_include=None) -> Built:
    """Compile one example (``build`` and ``run`` call it for each)."""
    argv = _argv(str(src), str(out), vendor, arches,
                 None if include_dir is None else str(include_dir), compile_only,
                 force_include, compiler)
    t0 = time.monotonic()
    import tempfile
    try:
        # the compiler's own scratch files in a folder that goes away with the build (Debian's
        # hipcc 5.2 leaves an empty <source>-XXXXXX directory in $TMPDIR per compile)
        with tempfile.TemporaryDirectory(prefix="umkit-build-") as scratch:
            env = build_env(vendor)
            env["TMPDIR"] = scratch
            r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        ok, log = r.returncode == 0 and Path(out).is_file(), r.stdout + r.stderr
        if r.returncode == 0 and not ok:
            log += f"\n(the compiler exited 0 but wrote no {out})"
    except (OSError, subprocess.TimeoutExpired) as e:
        ok, log = False, f"{type(e).__name__}: {e}"
    return Built(name, argv, ok, Path(out), log, time.monotonic() - t0)


def build(vendor: str, out_dir=DEFAULT_OUT, *, which=None, arches=None, compile_only=None,
          include_dir=None, kit_kernels: Optional[bool] = None, jobs: Optional[int] = None,
          compiler: Optional[str] = None, originals_too: bool = True) -> builtins.list[Built]:
    """Compile examples (``which``: names, default all) with ``vendor``'s compiler, in parallel.

    ``vendor="amd"``: object files (``-c``) for :func:`amd_arches` unless told otherwise, plus
    umkit's own ``kernels/*.cu`` compiled as HIP with ``hip/hip_runtime.h`` included in front
    (``kit_kernels``, default on for AMD).  ``vendor="nvidia"``: writes the generated header to
    ``include_dir`` (default ``<out_dir>/include``) and links programs for sm_90, plus the CUDA
    originals (:func:`originals`, built as ``<name>_cuda``) unless ``originals_too=False``.
    Raises :class:`~umkit.errors.BackendUnavailable` when the compiler is missing."""
    _check_vendor(vendor)
    which = list() if which is None else builtins.list(which)
    for n in which:
        _check_name(n)
    compiler = compiler or find_compiler(vendor)
    if compiler is None:
        how = ("apt-get install hipcc (Debian/Ubuntu) or ROCm" if vendor == "amd"
               else "the CUDA toolkit (nvcc)")
        raise BackendUnavailable(f"{'hipcc' if vendor == 'amd' else 'nvcc'} not found: install {how}")
    out_dir = _make_dir(out_dir, "out_dir")
    if compile_only is None:
        compile_only = vendor == "amd"
    if arches is None:
        arches = amd_arches(compiler) if vendor == "amd" else [NVIDIA_ARCH]
    include_dir = Path(include_dir) if include_dir else out_dir / "include"
    if vendor == "nvidia":
        names.write_cuda_header(include_dir)
    if kit_kernels is None:
        kit_kernels = vendor == "amd"
    jobs_list = []
    for n in which:
        out = out_dir / (n + (".o" if compile_only else ""))
        jobs_list.append((n, path(n), out, None))
    if vendor == "nvidia" and originals_too:
        for n in which:
            if n in originals():
                out = out_dir / (n + "_cuda" + (".o" if compile_only else ""))
                jobs_list.append((n + "_cuda", _original_path(n), out, "original"))
    if kit_kernels:
        if vendor != "amd":
            raise InvalidArgument("kit_kernels compiles kernels/*.cu as HIP: only with vendor='amd' "
                                  "(NVRTC compiles them at run time on NVIDIA)")
        for cu in kit_kernel_sources():
            jobs_list.append((cu.name, cu, out_dir / (cu.stem + ".o"), "hip/hip_runtime.h"))
    n_jobs = jobs or max(1, min(len(jobs_list), os.cpu_count() or 1))
    pool = ThreadPoolExecutor(n_jobs)
    try:
        futures = [pool.submit(compile_example, n, src, out, vendor, arches,
                               None if fi == "original" else include_dir,
                               compile_only if fi in (None, "original") else True, compiler,
                               None if fi == "original" else fi)
                   for n, src, out, fi in jobs_list]
        return [f.result() for f in futures]
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)   # Ctrl-C: nothing more is started
        raise
    finally:
        pool.shutdown(wait=False)


@dataclass
class Ran:
    name: str
    built: Built
    returncode: Optional[int]
    stdout: str
    stderr: str
    checked: Optional[Checked]
    seconds: float

    @property
    def ok(self) -> bool:
        return self.built.ok and self.checked is not None and self.checked.ok


def run(vendor: str = "nvidia", out_dir=DEFAULT_OUT, *, which=None, timeout: float = 120,
        arch: Optional[str] = None) -> builtins.list[Ran]:
    """Build each example as a program with ``vendor``'s compiler, run it on this machine's GPU
    and check its output (:func:`check_output`).  On NVIDIA the CUDA originals
    (``<name>_cuda``) are built, run and checked the same way."""
    which = list() if which is None else builtins.list(which)
    arches = [arch or (NVIDIA_ARCH if vendor == "nvidia" else AMD_ARCH)]
    builds = build(vendor, out_dir, which=which, arches=arches, compile_only=False,
                   kit_kernels=False)
    out = []
    for b in builds:
        if not b.ok:
            out.append(Ran(b.name, b, None, "", "", None, 0.0))
            continue
        t0 = time.monotonic()
        try:
            r = subprocess.run([str(b.output.resolve())], capture_output=True, text=True,
                               timeout=timeout)
            rc, so, se = r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired as e:
            so = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            rc, se = None, f"timed out after {timeout} s"
        chk = check_output(b.name.removesuffix("_cuda"), so, -1 if rc is None else rc)
        out.append(Ran(b.name, b, rc, so, se, chk, time.monotonic() - t0))
    return out


# -- command line ---------------------------------------------------------------------------------
def _report_builds(builds, log) -> bool:
    ok = True
    for b in builds:
        ok &= b.ok
        print(f"{'ok  ' if b.ok else 'FAIL'} build {b.name} ({b.seconds:.1f} s): {shlex.join(b.argv)}",
              file=log)
        if not b.ok or b.log.strip():
            print("    " + b.log.strip().replace("\n", "\n    "), file=log)
    return ok


def _make_dir(path, name: str) -> Path:
    """``path`` as a folder that exists (made if missing); a typed error naming ``name`` when it
    cannot be one (a regular file, a FIFO, a path under a file, no permission)."""
    p = Path(path)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as e:
        raise InvalidArgument(f"{name}={str(path)!r} is not a folder ({e.strerror})",
                              argument=name, hint="pass a folder path (it is made if missing)") from None
    except OSError as e:
        raise InvalidArgument(f"{name}={str(path)!r} cannot be made ({e.strerror})",
                              argument=name, hint="pick a folder you can write") from None
    return p


def _json_target(args) -> None:
    """``--json FILE`` checked before the build starts: a regular file path in a folder that
    exists, and (unless ``--force`` or ``--numbered``) nothing there yet -- a results file
    already there is kept, as the kit's other result writers keep theirs."""
    if not args.json:
        return
    from umkit import validate as V
    from umkit.results import files
    if args.force and args.numbered:
        raise InvalidArgument("--force and --numbered together", argument="--numbered",
                              hint="--force replaces the file, --numbered keeps it: pick one")
    V.output_path(args.json, "--json", (".json",))
    if not args.numbered:
        files.check_free(args.json, "--json", args.force, "--force")


def _write_json(args, items) -> None:
    """The summary, written atomically (a temporary file renamed into place: a full disk or a
    kill leaves the old file whole); an existing file is kept (an error naming --force), replaced
    with ``--force``, or kept beside the new ``NAME-2.json`` with ``--numbered``."""
    if not args.json:
        return
    import json
    import platform
    from umkit import validate as V
    from umkit.results import files
    data = json.dumps(dict(
        date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), vendor=args.vendor,
        host=platform.node(), all_ok=all(i.get("ok", i.get("built")) for i in items),
        examples=items), indent=1) + "\n"
    wrote = files.write(args.json, data, argument="--json",
                        exists="number" if args.numbered else "refuse", force=args.force,
                        flag="--force")
    print(f"wrote {V.clean(str(wrote), 400)}")


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m umkit.examples", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="the example names")
    p = sub.add_parser("source", help="print one example's .hip source")
    p.add_argument("name")
    p = sub.add_parser("command", help="print the build command lines for one example")
    p.add_argument("name")
    p.add_argument("--vendor", default="amd", choices=VENDORS)
    p = sub.add_parser("header", help="write DIR/hip/hip_runtime.h for nvcc ('-' prints it)")
    p.add_argument("dir")
    for cmd in ("build", "run"):
        p = sub.add_parser(cmd, help="compile every example" if cmd == "build"
                           else "build, run and check every example on this machine's GPU")
        p.add_argument("names", nargs="*", help="examples (default: all)")
        p.add_argument("--vendor", default="amd" if cmd == "build" else "nvidia", choices=VENDORS)
        p.add_argument("--out", default=DEFAULT_OUT, help=f"build/result folder ({DEFAULT_OUT})")
        p.add_argument("--json", metavar="FILE", help="also write a summary as JSON (an "
                       "existing file is kept: see --force, --numbered)")
        p.add_argument("--force", action="store_true", help="replace the --json file if there")
        p.add_argument("--numbered", action="store_true",
                       help="keep an existing --json file: write NAME-2.json, NAME-3.json, ...")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "list":
            for e in _EXAMPLES:
                print(f"{e.name:<16} §{e.section}  {e.title}")
            return 0
        if args.cmd == "source":
            sys.stdout.write(source(args.name))
            return 0
        if args.cmd == "command":
            print("\n".join(build_command(args.name, args.vendor)))
            return 0
        if args.cmd == "header":
            if args.dir == "-":
                sys.stdout.write(cuda_header())
            else:
                from umkit import validate as V
                print(V.clean(names.write_cuda_header(args.dir), 4096))   # a path is shown, never obeyed
            return 0
        which = args.names or None
        _json_target(args)         # before the build: a results file there is not lost
        if args.cmd == "build":
            builds = build(args.vendor, args.out, which=which)
            ok = _report_builds(builds, sys.stdout)
            print(f"{'ALL OK' if ok else 'FAILED'}: {sum(b.ok for b in builds)}/{len(builds)} "
                  f"compiled with {args.vendor}'s compiler")
            _write_json(args, [dict(name=b.name, built=b.ok, argv=b.argv,
                                                      seconds=round(b.seconds, 2)) for b in builds])
            return 0 if ok else 1
        ran = run(args.vendor, args.out, which=which)
        _report_builds([r.built for r in ran], sys.stdout)
        for r in ran:
            print(f"--- {r.name}: exit {r.returncode}, {r.seconds:.2f} s")
            if r.stdout:
                print("    " + r.stdout.strip().replace("\n", "\n    "))
            if r.stderr.strip():
                print("    stderr: " + r.stderr.strip().replace("\n", "\n    "))
            if r.checked is not None:
                print(f"    check: {'ok' if r.checked.ok else 'FAIL ' + '; '.join(r.checked.problems)}")
        _write_json(args, [dict(
            name=r.name, built=r.built.ok, argv=r.built.argv, returncode=r.returncode,
            ok=r.ok, problems=r.checked.problems if r.checked else ["not built"],
            values=r.checked.values if r.checked else {}, stdout=r.stdout,
            seconds=round(r.seconds, 3)) for r in ran])
        n_ok = sum(r.ok for r in ran)
        n_orig = sum(r.name.endswith("_cuda") for r in ran)
        print(f"{'ALL OK' if n_ok == len(ran) else 'FAILED'}: {n_ok}/{len(ran)} programs "
              f"({len(ran) - n_orig} HIP examples built with {args.vendor}'s compiler"
              + (f", {n_orig} CUDA original(s)" if n_orig else "")
              + ") built, ran and printed the expected results")
        return 0 if n_ok == len(ran) else 1
    except (InvalidArgument, InvalidType, FileNotFoundError) as e:   # bad name/vendor/folder,
        print(f"error: {e}", file=sys.stderr)                         # compiler missing
        return 2
    except UmkitError as e:        # the action failed (a file that could not be written): as umkit's CLI
        print(f"error: {e}", file=sys.stderr)
        return 1


def _command_line() -> None:
    """``python -m umkit.examples``: Ctrl-C ends it with one line and exit status 130, without
    waiting for the compilers already running (they finish or stop on their own; what they were
    writing is left as it was)."""
    import signal
    try:
        code = main()
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            print("\npython -m umkit.examples: interrupted (Ctrl-C); files being written were left "
                  "as they were", file=sys.stderr)
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(130)            # no waiting for the build threads at exit
    raise SystemExit(code)


if __name__ == "__main__":
    _command_line()
