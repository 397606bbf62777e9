"""The environment report: the article's §4.1 checklist, run for you.

Before the first line of unified-memory code the article checks the machine: ``rocm-smi`` (GPU
and driver), ``hipconfig --full`` (the HIP set-up), ``rocminfo`` (is there a GPU agent?  HSA
errors mean the kernel driver isn't loaded), and which ROCm a PyTorch ROCm build carries
beside the installed one.  :func:`doctor` does that, the NVIDIA equivalent (``nvidia-smi``), and says which
umkit backend will run and why -- including, on the sim backend, why no GPU backend could.

``report()`` returns the facts as a dict; ``doctor()`` prints them as plain text and returns an
exit code (0 fine, 1 when a backend you asked for can't run).  External tools run only when they
are on ``PATH``, each with a timeout, and only their first lines are kept.
"""
from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
import textwrap
from importlib import metadata

from .. import validate as V
from ..backends.contract import Backend
from ..backends import GPU_NAMES, NAMES
from . import tools
from ..errors import BackendUnavailable, InvalidArgument, InvalidType, UmkitError
from ..runtime.lang import tr

BACKENDS = NAMES
ENV_BACKEND = "UMKIT_BACKEND"
#: packages whose versions the report lists ("not installed" when missing)
PACKAGES = ("numpy", "cupy", "cuda-bindings", "hip-python", "matplotlib", "ipywidgets", "torch")
#: environment variables that change what the GPU runtimes do with memory
ENV_VARS = ("UMKIT_BACKEND", "UMKIT_ALLOW_OVERSUBSCRIPTION", "HSA_XNACK", "HIP_VISIBLE_DEVICES",
            "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "HSA_OVERRIDE_GFX_VERSION",
            "ROCM_PATH")
TOOL_TIMEOUT = 10.0   # seconds per external tool
MAX_LINES = 8         # lines kept from each tool
NOT_INSTALLED = "not installed"

_SWITCH = ("switch with UMKIT_BACKEND=cuda (or hip, sim) before starting Python, or "
           "umkit.use('cuda') in a notebook; umkit.doctor('cuda') says why a backend can't run")
_KMD_FIX = ("HSA errors mean the kernel driver (KMD: amdgpu / ROCk) isn't loaded or /dev/kfd "
            "isn't accessible: check `lsmod | grep amdgpu` and `ls -l /dev/kfd /dev/dri`, add "
            "your user to the render and video groups, and in a container pass "
            "--device=/dev/kfd --device=/dev/dri (article §4.1)")
_XNACK_FIX = ("export HSA_XNACK=1 before Python starts (ROCm reads it at the first HIP call), "
              "on a GPU whose target supports per-process xnack (CDNA2 and later: gfx90a, "
              "gfx942, ...; gfx908 stays xnack-). Without it the GPU can't take page faults: "
              "hipMallocManaged maps (and faults in) the whole range when it is allocated and "
              "pages move only when you prefetch, and a kernel that touches plain malloc'd "
              "memory faults fatally (ledger: amd.xnack0.alloc_maps, amd.malloc.xnack0_fault; "
              "§2.2, umkit.explain('slow'))")
#: on an APU (MI300A) system memory *is* the HBM: XNACK off costs no bandwidth there, it costs the
#: GPU's access to memory the driver was not told about (ledger: amd.apu.no_migration,
#: amd.malloc.xnack0_fault)
_XNACK_FIX_APU = ("export HSA_XNACK=1 before Python starts (ROCm reads it at the first HIP "
                  "call). On this APU the CPU and the GPU share one HBM, so managed memory is "
                  "not read over a link and nothing migrates either way; what XNACK off costs "
                  "is GPU access to plain malloc'd (or new'd) memory: a kernel touching it "
                  "faults fatally instead of mapping it in place, so only hipMalloc, "
                  "hipMallocManaged and hipHostMalloc/hipHostRegister'ed memory work "
                  "(ledger: amd.apu.no_migration, amd.malloc.xnack0_fault)")


def is_apu(name: str = "", caps: dict | None = None) -> bool:
    """Whether a device is an application APU (MI300A: CPU and GPU on one HBM): sim says so with
    its 'apu' mode, a real device by its name."""
    caps = caps or {}
    return caps.get("mode") == "apu" or caps.get("integrated") is True \
        or bool(re.search(r"MI300A\b", str(name or ""), re.I))


# -- small helpers ------------------------------------------------------------------------------
def _short(exc: BaseException) -> str:
    """An exception's message without umkit's appended hint line."""
    text = exc.message if isinstance(exc, UmkitError) else str(exc)
    return text.strip() or type(exc).__name__


def package_versions(names=PACKAGES) -> dict:
    """``{package: version or 'not installed'}`` via importlib.metadata.  ``cupy`` matches any
    CuPy wheel (cupy-cuda13x, cupy-rocm-7-0, ...) and reports which one."""
    out = {}
    dists = None
    for name in names:
        try:
            out[name] = metadata.version(name)
            continue
        except metadata.PackageNotFoundError:
            pass
        if name == "cupy":
            if dists is None:
                try:
                    dists = metadata.packages_distributions()
                except Exception:  # noqa: BLE001 - a broken metadata entry must not stop us
                    dists = {}
            found = [d for d in dists.get("cupy", []) if d.lower().startswith("cupy")]
            if found:
                d = sorted(set(found))[0]
                try:
                    out[name] = f"{metadata.version(d)} ({d})"
                    continue
                except metadata.PackageNotFoundError:
                    pass
        out[name] = NOT_INSTALLED
    return out


def _decoration(line: str) -> bool:
    return not line.strip() or set(line.strip()) <= set("=-+|*_ ")


def run_tool(argv, *, keep=None, timeout: float | None = None,
             max_lines: int | None = None) -> dict:
    """Run an external tool if it is on PATH; keep its first (or its ``keep``-selected) lines.

    Returns ``{cmd, found, rc, lines, more, error, hsa_error}``; never raises."""
    cmd = " ".join(argv)
    timeout = TOOL_TIMEOUT if timeout is None else timeout
    max_lines = MAX_LINES if max_lines is None else max_lines
    exe = shutil.which(argv[0])
    if not exe:
        return {"cmd": cmd, "found": False, "rc": None, "lines": [], "more": 0,
                "error": f"{argv[0]} not on PATH", "hsa_error": False}
    try:
        p = subprocess.run([exe, *argv[1:]], capture_output=True, text=True, errors="replace",
                           timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"cmd": cmd, "found": True, "rc": None, "lines": [], "more": 0,
                "error": f"timed out after {timeout:g} s", "hsa_error": False}
    except OSError as e:
        return {"cmd": cmd, "found": True, "rc": None, "lines": [], "more": 0,
                "error": f"could not run: {e}", "hsa_error": False}
    text = (p.stdout or "") + ("\n" + p.stderr if p.stderr else "")
    lines, seen = [], set()
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.strip().startswith("|"):          # table borders (nvidia-smi): keep the cells
            line = line.strip().strip("|").strip()
        if _decoration(line) or (keep is not None and not keep(line)):
            continue
        if keep is not None:           # selected lines: drop repeats (one per agent is enough)
            if line.strip() in seen:
                continue
            seen.add(line.strip())
        lines.append(line)
    low = text.lower()
    return {"cmd": cmd, "found": True, "rc": p.returncode, "lines": lines[:max_lines],
            "more": max(0, len(lines) - max_lines),
            "error": None if p.returncode == 0 else f"exit status {p.returncode}",
            "hsa_error": "hsa_status_error" in low or "hsa api call failure" in low
                         or "hsa_error" in low}


def _major_minor(text: str | None) -> tuple[int, int] | None:
    m = re.search(r"(\d+)[.\-_](\d+)", text or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def _xnack_of(text: str) -> bool | None:
    return True if "xnack+" in text else False if "xnack-" in text else None


def _check(rep: dict, check: str, status: str, detail: str = "", fix: str = "",
           lines=()) -> None:
    rep["checklist"].append({"check": check, "status": status, "detail": detail, "fix": fix,
                             "lines": list(lines)})


# -- the report ---------------------------------------------------------------------------------
def report(backend=None, *, run_tools: bool = True) -> dict:
    """The environment as a dict: which backend runs and why, every backend's probe, devices
    (name, memory, capabilities), versions, packages, relevant environment variables, external
    tools' first lines, and the §4.1 checklist (``status`` ok | warn | fail | skip | info).

    ``backend``: a name ('cuda' | 'hip' | 'sim'), a Backend instance, or None (auto, honouring
    ``UMKIT_BACKEND``).  ``ok`` is False only when a requested backend can't run (or detection
    itself is broken); ``problem`` and ``fix`` then say why and what to do."""
    instance = None
    if isinstance(backend, Backend):
        instance, backend = backend, backend.name
        requested_from = "argument"
    elif backend is None:
        requested_from = ENV_BACKEND if (os.environ.get(ENV_BACKEND) or "").strip().lower() \
            not in ("", "auto") else None
    elif isinstance(backend, str):
        backend = V.string(backend, "backend", hint="e.g. umkit.doctor('cuda')")
        requested_from = "argument" if backend.strip().lower() not in ("", "auto") else None
    else:
        raise InvalidType(f"doctor(backend=...): got a {type(backend).__name__}, expected a "
                          f"backend name or None", hint="e.g. umkit.doctor(), "
                                                        "umkit.doctor('cuda')")
    requested = None
    if requested_from == "argument":          # shown in the report: cut, escaped
        requested = V.clean(backend.strip().lower(), 80)
    elif requested_from == ENV_BACKEND:
        requested = V.clean(os.environ[ENV_BACKEND].strip().lower(), 80)

    rep: dict = {
        "requested": requested, "requested_from": requested_from,
        "backend": None, "reason": "", "ok": True, "problem": None, "fix": [],
        "fallback": None, "probes": {}, "devices": [], "versions": {},
        "packages": package_versions(), "env": {k: os.environ.get(k) for k in ENV_VARS},
        "tools": {}, "checklist": [],
        "python": sys.version.split()[0], "platform": platform.platform(),
    }
    context = sys.modules.get("umkit.runtime.context")
    active = context.RUNTIME.peek() if context else None
    if active is not None:
        rep["active"] = {"name": active.name, "reason": active.reason}

    # 1. which backends can run, and which one umkit picks
    try:
        detect = tools.registry()
    except Exception as e:  # noqa: BLE001 - the report must come out whatever is broken
        rep.update(ok=False, problem=f"umkit.backends.registry could not be imported: {e}",
                   fix=["reinstall umkit (pip install -e .) and run umkit.doctor() again"])
        _checklists(rep, run_tools)
        return rep
    names = tuple(getattr(detect, "NAMES", BACKENDS))
    for n in names:
        try:
            usable, why = detect.probe(n)
        except Exception as e:  # noqa: BLE001
            usable, why = False, f"probe failed: {_short(e)}"
        rep["probes"][n] = {"usable": bool(usable), "reason": str(why)}
    rep["fallback"] = next((n for n in NAMES
                            if rep["probes"].get(n, {}).get("usable")), None)

    if instance is not None:
        rep["backend"], rep["reason"] = instance.name, "the backend instance passed to doctor()"
    else:
        try:
            rep["backend"], rep["reason"] = detect.choose(backend)
        except (BackendUnavailable, InvalidArgument) as e:
            rep["ok"] = False
            rep["problem"] = _short(e)
            if isinstance(e, InvalidArgument):
                rep["fix"].append(f"use one of {', '.join(names)} (or auto / unset)")
            elif requested in rep["probes"]:
                rep["fix"].append(_fix_for(requested, rep["probes"][requested]["reason"]))
            if requested_from == ENV_BACKEND:
                rep["fix"].append(f"unset {ENV_BACKEND} (or set it to a usable backend) to let "
                                  f"umkit choose")
            if rep["fallback"]:
                rep["fix"].append(f"the {rep['fallback']} backend runs here: "
                                  f"umkit.use({rep['fallback']!r})"
                                  + (" (the CPU model: same API, model time)"
                                     if rep["fallback"] == "sim" else ""))
        except Exception as e:  # noqa: BLE001
            rep.update(ok=False, problem=f"backend detection failed: {_short(e)}")

    # 2. the chosen backend's devices, capabilities and versions
    if rep["backend"]:
        try:
            # the session's own backend when it is the one chosen: its profile, not a default one
            same = active is not None and active.name == rep["backend"]
            inst = instance or (active.backend if same else detect.create(rep["backend"]))
        except Exception as e:  # noqa: BLE001
            inst = None
            rep["devices"].append({"index": None, "error": f"could not create the "
                                   f"{rep['backend']} backend: {_short(e)}"})
        if inst is not None:
            _collect_devices(rep, inst)
    _checklists(rep, run_tools)
    return rep


def _fix_for(name: str, reason: str) -> str:
    """What to do about a probe's reason, in one sentence."""
    low = reason.lower()
    if "libamdhip64" in low or "rocm not installed" in low:
        return ("install ROCm (it provides libamdhip64.so, the HIP runtime) and make sure "
                "/opt/rocm/lib is on the loader path")
    if "not installed" in low and name in GPU_NAMES:
        from ..backends import install_hint
        extra = "rocm" if name == "hip" else "cuda"
        return f"install the {extra} extra -- {install_hint(extra)} -- then restart Python"
    if "not installed" in low and "pip install" in low:
        return reason[reason.lower().index("pip install"):].rstrip(")") + ", then restart Python"
    if "driver missing" in low or "libcuda" in low:
        return ("install the NVIDIA driver (nvidia-smi must work); in a container, run it with "
                "--gpus all")
    if "too old" in low or "insufficient" in low:
        return "update the GPU driver, or install packages built for the driver you have"
    if "no " in low and ("visible" in low or "nodevice" in low):
        return ("check *_VISIBLE_DEVICES and that the GPU shows in nvidia-smi / rocminfo "
                "(umkit.explain('hipErrorNoDevice'))")
    if "cupy" in low:
        return ("install the CuPy wheel for this backend (cupy-cuda13x for cuda, cupy-rocm-7-0 "
                "for hip)")
    return "follow the checklist below"


def _collect_devices(rep: dict, inst) -> None:
    try:
        rep["versions"] = dict(inst.versions())
    except Exception as e:  # noqa: BLE001
        rep["versions"] = {"error": _short(e)}
    try:
        count = int(inst.device_count())
    except Exception as e:  # noqa: BLE001
        rep["devices"].append({"index": None, "error": f"device_count failed: {_short(e)}"})
        return
    for d in range(min(count, 16)):
        dev: dict = {"index": d}
        for key, fn in (("name", lambda: inst.device_name(d)),
                        ("mem_info", lambda: tuple(int(x) for x in inst.mem_info(d))),
                        ("capabilities", lambda: dict(inst.capabilities(d)))):
            try:
                dev[key] = fn()
            except Exception as e:  # noqa: BLE001
                dev[key + "_error"] = _short(e)
        rep["devices"].append(dev)


# -- the §4.1 checklist -----------------------------------------------------------------------
def _checklists(rep: dict, run_tools: bool) -> None:
    chosen, requested, probes = rep["backend"], rep["requested"], rep["probes"]
    on_path = {t: bool(shutil.which(t)) for t in ("rocm-smi", "hipconfig", "rocminfo",
                                                   "nvidia-smi")}
    amd = ("hip" in (chosen, requested) or probes.get("hip", {}).get("usable")
           or any(on_path[t] for t in ("rocm-smi", "hipconfig", "rocminfo"))
           or tools.exists("/dev/kfd"))
    nvidia = ("cuda" in (chosen, requested) or probes.get("cuda", {}).get("usable")
              or on_path["nvidia-smi"] or tools.exists("/dev/nvidiactl"))
    rep["platforms"] = {"amd": bool(amd), "nvidia": bool(nvidia)}

    if rep["ok"] and chosen:
        _check(rep, f"umkit backend: {chosen}", "ok")
    elif not rep["ok"]:
        _check(rep, f"requested backend: {requested or '?'}", "fail", rep["problem"] or "",
               "; ".join(rep["fix"]))
    if amd:
        # ROCm's tools without an AMD GPU (Debian's hipcc brings rocminfo, say): their checks
        # inform instead of warning, unless hip was asked for or a GPU is there to be found
        expected = ("hip" in (chosen, requested) or tools.exists("/dev/kfd")
                    or tools.amd_gpu_on_pci() is not False)
        _amd_checks(rep, run_tools, expected)
    if nvidia:
        _nvidia_checks(rep, run_tools)
    _device_checks(rep)
    _machine_section(rep, run_tools)       # APUs and UMA, HMM, VMs, containers, GB10
    if chosen == "sim" or (not rep["ok"] and rep["fallback"] == "sim"):
        why = [f"{n}: {tr('usable') if p['usable'] else tr(p['reason'])}"
               for n, p in probes.items() if n != "sim"]
        _check(rep, "why the sim backend" if chosen == "sim" else "the GPU backends", "info",
               ("umkit chose sim because " + rep["reason"] if chosen == "sim"
                and rep["requested"] == "sim" else ""),
               _SWITCH, lines=why)
    if not amd and not nvidia:
        _check(rep, "GPU drivers", "info", "no AMD (/dev/kfd, ROCm tools) or NVIDIA "
               "(/dev/nvidiactl, nvidia-smi) GPU found on this machine; the sim backend "
               "teaches everything with model time")


def _tool(rep: dict, argv, run_tools: bool, **kw) -> dict:
    if not run_tools:
        res = {"cmd": " ".join(argv), "found": bool(shutil.which(argv[0])), "rc": None,
               "lines": [], "more": 0, "error": "not run (run_tools=False)", "hsa_error": False}
    else:
        res = run_tool(argv, **kw)
    rep["tools"][argv[0]] = res
    return res


def _tool_check(rep: dict, title: str, res: dict, fix_missing: str, fix_failed: str) -> None:
    if not res["found"]:
        _check(rep, title, "skip", f"{res['cmd'].split()[0]} not on PATH", fix_missing)
    elif res["rc"] == 0:
        _check(rep, title, "ok", "", lines=res["lines"])
    elif res["rc"] is None and "run_tools" in (res["error"] or ""):
        _check(rep, title, "skip", res["error"])
    else:
        _check(rep, title, "fail" if res["hsa_error"] else "warn", res["error"] or "",
               _KMD_FIX if res["hsa_error"] else fix_failed, lines=res["lines"])


def _counters_check(rep: dict) -> None:
    """Can umkit.counters_on() count on this NVIDIA machine (CUPTI through cupti-python)?  Only
    whether the bindings and a libcupti are importable: starting CUPTI here would cost the run
    its counters' first session (and take CUPTI from a profiler that may hold it)."""
    from ..backends.counters import cupti
    title = "hardware counters: CUPTI unified-memory counters (umkit.counters_on())"
    ok, why = cupti.available()
    libs = cupti.find_libcupti()
    if ok:
        _check(rep, title, "ok", "cupti-python importable" + (
            f"; libcupti from the nvidia-cuda-cupti wheel ({len(libs)} copy)" if libs else
            "; libcupti from the system library path"))
    else:
        _check(rep, title, "info", f"off: {why}",
               f"{cupti.INSTALL_HINT}; the widgets and the ECG then show the driver's faults and "
               "bytes (without it they show timings only)")


def _amd_checks(rep: dict, run_tools: bool, expected: bool = True) -> None:
    """``expected``: an AMD GPU should be usable here; otherwise a failing ROCm tool or a
    missing /dev/kfd is reported as ``info`` (nothing to fix on a machine without the GPU)."""
    rocm_bin = "ROCm puts its tools in /opt/rocm/bin: add it to PATH"
    _tool_check(rep, "rocm-smi: GPU status and driver (§4.1)",
                _tool(rep, ["rocm-smi"], run_tools, max_lines=10), rocm_bin,
                "rocm-smi failed: is the amdgpu driver loaded? " + _KMD_FIX)
    _tool_check(rep, "hipconfig --full: the HIP configuration (§4.1)",
                _tool(rep, ["hipconfig", "--full"], run_tools,
                      keep=lambda ln: any(k in ln.lower() for k in (
                          "version", "platform", "rocm_path", "hip_path", "runtime",
                          "compiler"))),
                rocm_bin, "hipconfig failed: the HIP install is incomplete; reinstall ROCm's "
                          "hip-runtime package")
    res = _tool(rep, ["rocminfo"], run_tools, keep=lambda ln: "gfx" in ln.lower(), max_lines=6)
    gfx = [ln for ln in res["lines"] if re.search(r"\bgfx\d", ln)]
    title = "rocminfo: a GPU agent (gfx…) is listed (§4.1)"
    if res["found"] and res["rc"] == 0 and gfx and not res["hsa_error"]:
        _check(rep, title, "ok", "", lines=res["lines"])
    elif res["found"] and res["rc"] == 0 and not res["hsa_error"]:
        _check(rep, title, "warn", "rocminfo ran but lists no gfx GPU agent (CPU agents only)",
               "the GPU isn't visible to ROCm: check HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES "
               "and that this GPU is supported by your ROCm release", lines=res["lines"])
    elif not expected and res["found"] and not gfx:
        _check(rep, title, "info", "no AMD GPU on this machine (none on the PCI bus, no "
               "/dev/kfd): rocminfo lists no GPU agent, as expected", lines=res["lines"])
    else:
        _tool_check(rep, title, res, rocm_bin, _KMD_FIX)
    rep["rocm_version"] = tools.rocm_version()

    # /dev/kfd: the door to the KMD
    if tools.exists("/dev/kfd"):
        if os.access("/dev/kfd", os.R_OK | os.W_OK):
            _check(rep, "/dev/kfd (the ROCm kernel driver) is accessible", "ok")
        else:
            _check(rep, "/dev/kfd (the ROCm kernel driver) is accessible", "fail",
                   "/dev/kfd exists but this user can't open it",
                   "add your user to the render and video groups (sudo usermod -aG render,video "
                   "$USER) and log in again")
    elif not expected:
        _check(rep, "/dev/kfd (the ROCm kernel driver) is accessible", "info",
               "no /dev/kfd and no AMD GPU on the PCI bus: ROCm's tools are installed, but "
               "there is no AMD GPU here to drive (needed only to run on one)")
    else:
        _check(rep, "/dev/kfd (the ROCm kernel driver) is accessible", "warn",
               "/dev/kfd does not exist: the amdgpu KMD isn't loaded (or the container wasn't "
               "given the device)", _KMD_FIX)

    # PyTorch's ROCm wheels carry their own HIP runtime and ROCm libraries (pytorch/pytorch
    # .ci/manywheel/build_rocm.sh copies libamdhip64.so, libhsa-runtime64.so, ... into torch/lib and
    # sets RPATH), so torch does not use the installed ROCm. What must hold: the amdgpu kernel driver
    # supports the wheel's ROCm (AMD's user/kernel-space support matrix: +/- 2 releases), and code
    # in the same process built for the installed ROCm does not meet a second, different runtime.
    torch_v = rep["packages"].get("torch", NOT_INSTALLED)
    title = "PyTorch's ROCm build and the installed ROCm (§4.1)"
    if torch_v == NOT_INSTALLED:
        _check(rep, title, "skip", "PyTorch not installed")
    elif "rocm" not in torch_v:
        _check(rep, title, "warn" if "hip" in (rep["backend"], rep["requested"]) else "info",
               f"torch {torch_v} is not a ROCm build",
               "install the ROCm wheel of PyTorch for your ROCm release "
               "(pytorch.org, 'ROCm' compute platform)")
    else:
        want = _major_minor(torch_v.split("rocm", 1)[1])
        have = _major_minor(rep["rocm_version"])
        if have is None:
            _check(rep, title, "info", f"torch {torch_v}; installed ROCm version unknown "
                   "(no /opt/rocm/.info/version)")
        elif want == have:
            _check(rep, title, "ok", f"torch {torch_v}, ROCm {rep['rocm_version']}")
        else:
            _check(rep, title, "warn", f"torch {torch_v} carries its own HIP runtime for ROCm "
                   f"{want[0]}.{want[1]} and uses it, not the installed ROCm {rep['rocm_version']}",
                   "torch itself needs only an amdgpu kernel driver that supports ROCm "
                   f"{want[0]}.{want[1]} (AMD supports kernel driver and user space up to two "
                   "releases apart). What breaks is mixing: CuPy's ROCm build or code you compile "
                   "with hipcc uses the installed ROCm, so one process gets two HIP runtimes, each "
                   "with its own allocations and streams, or one library runs on the other's "
                   "runtime. Use one ROCm for all: the torch wheel built for your ROCm")

    # CuPy built for the same ROCm?
    cupy_v = rep["packages"].get("cupy", NOT_INSTALLED)
    m = re.search(r"cupy-rocm-(\d+)-(\d+)", cupy_v)
    have = _major_minor(rep["rocm_version"])
    if m and have and (int(m.group(1)), int(m.group(2))) != have:
        _check(rep, "CuPy is built for the installed ROCm", "warn",
               f"{cupy_v} but ROCm {rep['rocm_version']} is installed",
               f"install cupy-rocm-{have[0]}-{have[1]} if it exists, or the ROCm that CuPy "
               f"was built for")

    # XNACK from rocminfo's ISA names, unless a device already told us (see _device_checks)
    if not any(isinstance(d.get("capabilities", {}).get("xnack"), dict)
               for d in rep["devices"]):
        isa = next((ln for ln in res["lines"] if "xnack" in ln), "")
        if isa:
            m = re.search(r"[\w-]*gfx\w+(?::[\w+-]+)*", isa)
            _xnack_check(rep, os.environ.get("HSA_XNACK"), _xnack_of(isa),
                         m.group(0) if m else isa.strip())


def _xnack_check(rep: dict, env, target, arch: str = "", simulated: bool = False,
                 enabled=None, apu: bool = False) -> None:
    """XNACK as ROCm reports it: ``enabled`` is the device's pageable_memory_access (1 only when
    XNACK is on for every GPU; ledger: amd.attr.pageable_xnack); without a device, the ISA name
    rocminfo printed (xnack+ when the process ran with HSA_XNACK=1; ledger: amd.xnack.isa_name)."""
    if isinstance(target, str):
        target = _xnack_of(target)
    detail = ((f"pageable_memory_access={_yn(enabled)}, " if enabled is not None else "")
              + f"HSA_XNACK={env if env is not None else '(unset)'}, target "
              f"{'xnack+' if target else 'xnack-' if target is False else 'xnack unknown'}"
              + (f" ({arch})" if arch else "") + (" [simulated]" if simulated else ""))
    title = "XNACK: the GPU can fault managed pages in on demand (§2.2)"
    on = enabled if enabled is not None else target
    if on:
        _check(rep, title, "ok", detail)
    else:
        _check(rep, title, "warn", detail, _XNACK_FIX_APU if apu else _XNACK_FIX)


def _nvidia_checks(rep: dict, run_tools: bool) -> None:
    head = _tool(rep, ["nvidia-smi"], run_tools, keep=lambda ln: "Driver Version" in ln,
                 max_lines=2)
    res = _tool(rep, ["nvidia-smi", "--query-gpu=index,name,driver_version,memory.used,"
                                    "memory.total,compute_mode", "--format=csv,noheader"],
                run_tools)
    rep["tools"]["nvidia-smi"] = {**res, "header": head["lines"]}
    lines = head["lines"] + res["lines"]
    _tool_check(rep, "nvidia-smi: GPUs, driver and memory in use", {**res, "lines": lines},
                "nvidia-smi comes with the NVIDIA driver: install the driver (or pass --gpus all "
                "to the container)",
                "nvidia-smi failed: the driver isn't loaded or doesn't match its kernel module "
                "(reboot after a driver upgrade)")
    m = re.search(r"CUDA Version:\s*(\d+)\.(\d+)", " ".join(head["lines"]))
    bindings = rep["packages"].get("cuda-bindings", NOT_INSTALLED)
    bm = re.match(r"(\d+)", bindings)
    if m and bm:
        drv_major, need = int(m.group(1)), int(bm.group(1))
        title = "the driver supports cuda-bindings' CUDA version"
        if drv_major >= need:
            _check(rep, title, "ok", f"driver CUDA {m.group(1)}.{m.group(2)}, "
                                     f"cuda-bindings {bindings}")
        else:
            _check(rep, title, "fail" if "cuda" in (rep["backend"], rep["requested"]) else "warn",
                   f"driver supports CUDA {m.group(1)}.{m.group(2)} but cuda-bindings {bindings} "
                   f"needs CUDA {need}", "update the NVIDIA driver, or install cuda-bindings and "
                   f"CuPy for CUDA {drv_major} (cudaErrorInsufficientDriver, umkit.explain(35))")
    _counters_check(rep)
    busy = [ln for ln in res["lines"] if "exclusive" in ln.lower()]
    if busy:
        _check(rep, "compute mode", "info", "; ".join(busy),
               "an exclusive-process GPU serves one process at a time; a second one gets "
               "cudaErrorDevicesUnavailable (umkit.explain(46))")


def _yn(v) -> str:
    return "yes" if v is True else "no" if v is False else str(v)


def _device_checks(rep: dict) -> None:
    for dev in rep["devices"]:
        caps = dev.get("capabilities")
        if not isinstance(caps, dict):
            continue
        tag = f"device {dev['index']}"
        if caps.get("managed_memory") is False:
            _check(rep, f"{tag}: managed memory", "fail", "the device has no managed memory",
                   "hipMallocManaged / cudaMallocManaged won't work here: use device memory with "
                   "explicit copies, or the sim backend to learn")
        elif caps.get("managed_memory"):
            _check(rep, f"{tag}: managed memory", "ok")
        amd = isinstance(caps.get("xnack"), dict)
        if amd:
            # on ROCm concurrent managed access is the kernel driver's SVM (HMM) support,
            # whatever XNACK is (ledger: amd.attr.concurrent_managed, amd.no_hmm.host_fallback)
            title = f"{tag}: managed memory through the kernel driver (SVM/HMM)"
            if caps.get("concurrent_managed_access") is False:
                _check(rep, title, "warn", "no: hipMallocManaged gives pinned host memory that "
                       "the GPU reads over the link; nothing migrates",
                       "a kernel with amdgpu's HMM support (a recent ROCm) is needed for managed "
                       "memory to move (umkit.explain('slow'))")
            elif caps.get("concurrent_managed_access"):
                _check(rep, title, "ok", "yes (this says nothing about XNACK: see the XNACK "
                       "check)")
        elif caps.get("concurrent_managed_access") is False:
            _check(rep, f"{tag}: concurrent managed access (pages migrate on demand)", "warn",
                   "no: CPU and GPU must not touch managed memory at the same time, and pages "
                   "don't migrate on GPU faults",
                   "synchronize before every CPU access; expect managed memory to be slow "
                   "(umkit.explain('slow'))")
        elif caps.get("concurrent_managed_access"):
            _check(rep, f"{tag}: concurrent managed access (pages migrate on demand)", "ok")
        if "pageable_memory_access" in caps or "hmm" in caps:
            _check(rep, f"{tag}: GPU access to ordinary (malloc) memory: HMM/ATS", "info",
                   ", ".join(f"{k}={_yn(caps[k])}" for k in
                             ("pageable_memory_access", "hmm", "ats") if k in caps))
        if amd and "direct_managed_access_from_host" in caps:
            # 1 on a CPU-coherent node or an APU: the CPU reads GPU-resident pages in place
            # (ledger: amd.attr.direct_host, amd.vram.coherent, amd.vram.private)
            _check(rep, f"{tag}: CPU access to GPU-resident managed pages", "info",
                   "in place (a CPU-coherent link or an APU)"
                   if caps["direct_managed_access_from_host"] else
                   "by migration: a CPU touch moves the pages back over the CPU-GPU link")
        x = caps.get("xnack")
        if isinstance(x, dict):
            _xnack_check(rep, x.get("env"), x.get("target"), str(x.get("arch") or ""),
                         bool(x.get("simulated")), enabled=caps.get("pageable_memory_access"),
                         apu=is_apu(dev.get("name", ""), caps))


# -- printing -----------------------------------------------------------------------------------
def _gib(n: int) -> str:
    return f"{n / 2**30:.1f} GiB"


def _wrap(text: str, indent: str) -> list[str]:
    done = tr(text)                  # the learner's language: a translated line is not wrapped
    if done != text:                 # (textwrap would cut CJK text inside identifiers)
        return [indent + done]
    return textwrap.wrap(text, 96, initial_indent=indent, subsequent_indent=indent + "  ",
                         break_on_hyphens=False)


#: the most lines one line of a check (a probe's reason, a tool's output line) wraps into
LINE_WRAPS = 8


def wrap_line(text: str, indent: str = "         | ") -> list[str]:
    """One line under a check, wrapped rather than cut: a probe's reason (why the sim backend)
    can be longer than a terminal line and must be read to its end.  A pathological line (a
    tool printing kilobytes) stops after :data:`LINE_WRAPS` lines and ends in ' ...'."""
    parts = textwrap.wrap(text.strip(), 110, break_on_hyphens=False) or [""]
    if len(parts) > LINE_WRAPS:
        parts = parts[:LINE_WRAPS]
        parts[-1] += " ..."
    return [indent + parts[0]] + [indent + "  " + p for p in parts[1:]]


def _fmt_caps(caps: dict) -> str:
    parts = []
    for k, v in caps.items():
        if isinstance(v, dict):
            v = " ".join(f"{a}={_yn(b)}" for a, b in v.items())
            parts.append(f"{k}: [{v}]")
        else:
            parts.append(f"{k}={_yn(v)}")
    return ", ".join(parts)


def format_report(rep: dict) -> str:
    """The report as plain text (what :func:`doctor` prints)."""
    out = [tr("umkit doctor -- the environment check of the article's §4.1"), ""]
    if rep["ok"]:
        out.append(tr(f"Backend: {rep['backend']}"))
        out += _wrap(f"why: {rep['reason']}", "  ")
    else:
        req = rep["requested"] or "?"
        src = f" (from {rep['requested_from']})" if rep["requested_from"] else ""
        out.append(f"Backend: {req}{src} CANNOT RUN")
        out += _wrap(f"why: {rep['problem']}", "  ")
        for f in rep["fix"]:
            out += _wrap(f"what to do: {f}", "  ")
    if rep.get("active"):
        out.append("  " + tr(f"active in this session: {rep['active']['name']}"))
    if rep["probes"]:
        out += ["", tr("Backends probed:")]
        for n, p in rep["probes"].items():
            out += _wrap(f"{n:<5} {'usable ' if p['usable'] else 'no     '} {p['reason']}", "  ")
    for dev in rep["devices"]:
        if dev.get("index") is None:
            out += ["", *_wrap(f"Devices: {dev.get('error')}", "")]
            continue
        modelled = rep.get("backend") == "sim"
        name = dev.get('name', dev.get('name_error', '?'))
        if modelled and name.startswith("sim: "):
            name = name[len("sim: "):]
        out += ["", tr(f"Device {dev['index']}: {name}")]
        if modelled:
            out.append(tr("  (the MODELLED card: sim uses no GPU of this machine)"))
        if "mem_info" in dev:
            free, total = dev["mem_info"]
            out.append(tr(f"  memory: {_gib(free)} free of {_gib(total)}"
                          + (" (modelled)" if modelled else "")))
        elif "mem_info_error" in dev:
            out.append(f"  memory: {dev['mem_info_error']}")
        if "capabilities" in dev:
            out += _wrap("capabilities: " + _fmt_caps(dev["capabilities"]), "  ")
        elif "capabilities_error" in dev:
            out.append(f"  capabilities: {dev['capabilities_error']}")
    if rep["versions"]:
        out += ["", *_wrap("Versions: " + ", ".join(f"{k} {v}" for k, v in rep["versions"].items()
                                                   if not k.endswith("_raw")), "")]
    out += ["", *_wrap("Packages: " + ", ".join(f"{k} {tr(v) if v == NOT_INSTALLED else v}"
                                               for k, v in rep["packages"].items()), "")]
    env = [f"{k}={v}" for k, v in rep["env"].items() if v is not None]
    out += _wrap("Environment: " + (", ".join(env) if env else "none of " + ", ".join(ENV_VARS)
                                    + " is set"), "")
    out += ["", tr("Checklist:")]
    marks = {"ok": "[ok]  ", "warn": "[warn]", "fail": "[FAIL]", "skip": "[skip]",
             "info": "[info]"}
    for c in rep["checklist"]:
        out.append(f"  {marks.get(c['status'], c['status'])} {tr(c['check'])}")
        if c["detail"]:
            out += _wrap(c["detail"], "         ")
        for ln in c["lines"]:
            out += wrap_line(ln)
        if c["fix"]:
            out += _wrap("-> " + c["fix"], "         ")
    n_fail = sum(c["status"] == "fail" for c in rep["checklist"])
    n_warn = sum(c["status"] == "warn" for c in rep["checklist"])
    out.append("")
    if rep["ok"]:
        out.append(tr(f"Result: usable ({rep['backend']}); {n_fail} failed, {n_warn} warnings. "
                      "Errors later? umkit.explain(err)"))
    else:
        out.append(tr(f"Result: the requested backend can't run (exit code 1). "
                      f"{n_fail} failed, {n_warn} warnings."))
    return "\n".join(out)


def doctor(backend=None, file=None) -> int:
    """Print the environment report (see :func:`report`) and return an exit code: 0 when umkit
    can run, 1 when the backend asked for (argument or ``UMKIT_BACKEND``) can't."""
    if file is not None and not callable(getattr(file, "write", None)):
        from ..errors import InvalidType
        from ..validate import shown
        raise InvalidType(f"file={shown(file)} is not a text stream", argument="file",
                          hint="leave it out (stdout), or pass sys.stderr / an open text file")
    rep = report(backend)
    print(format_report(rep), file=file if file is not None else sys.stdout)
    return 0 if rep["ok"] else 1


def main(argv=None) -> int:
    """``umkit doctor [--backend cuda|hip|sim]``"""
    args = list(sys.argv[1:] if argv is None else argv)
    return doctor(args[0] if args else None)



# -- today's machines: rocminfo, KFD topology, the kernel's HMM, containers, VMs, UMA --------------
# Pure functions over text a user can paste (rocminfo, /sys/class/kfd/kfd/topology/nodes/*/
# properties, /boot/config-*), so the verdicts are tested against outputs users posted publicly
# (tests/diagnostics/data/machines/README.md); :func:`machine_facts` reads this machine.

#: KFD node capability bits (include/uapi/linux/kfd_sysfs.h; ledger: amd.kfd.svm_capability)
HSA_CAP_SVMAPI_SUPPORTED = 0x08000000
HSA_CAP_FLAGS_COHERENTHOSTACCESS = 0x10000000
#: Instinct (CDNA) targets whose XNACK a process turns on with HSA_XNACK=1 (gfx908 cannot;
#: ledger: amd.xnack.gfx908, amd.xnack.default_off)
XNACK_PER_PROCESS = ("gfx90a", "gfx940", "gfx941", "gfx942", "gfx950")
#: targets with XNACK always on: no xnack+/- feature to choose (ledger: amd.xnack.gfx1250_always)
XNACK_ALWAYS = ("gfx1250", "gfx1251")
#: gfx9 client APUs where ROCr forces XNACK off (ledger: amd.xnack.gfx9_client_apu_off)
GFX9_CLIENT_APUS = ("gfx902", "gfx909", "gfx90c")
#: consumer APUs (RDNA 2/3/3.5): UMA with a BIOS carve-out, no XNACK
CLIENT_APUS = GFX9_CLIENT_APUS + ("gfx1035", "gfx1036", "gfx1103", "gfx1150", "gfx1151",
                                  "gfx1152")
KERNEL_CONFIG_KEYS = ("CONFIG_HMM_MIRROR", "CONFIG_HSA_AMD_SVM", "CONFIG_DEVICE_PRIVATE",
                      "CONFIG_HSA_AMD")


def gfx_of_target_version(v) -> str | None:
    """KFD's ``gfx_target_version`` (major*10000 + minor*100 + stepping) as a gfx name:
    90010 -> gfx90a, 90402 -> gfx942, 110501 -> gfx1151."""
    try:
        v = int(v)
    except (TypeError, ValueError):
        return None
    if v <= 0:
        return None
    major, minor, step = v // 10000, (v // 100) % 100, v % 100
    return f"gfx{major}{minor:x}{step:x}"


def parse_kfd_properties(text: str) -> dict:
    """One KFD topology node's ``properties`` file: ``{name: int}``, plus ``gfx`` (from
    gfx_target_version), ``gpu`` (simd_count > 0), ``svm`` and ``coherent_host_access`` (the
    capability bits) where the file says them."""
    props: dict = {}
    for line in (text or "").splitlines():
        parts = line.split()
        if len(parts) == 2 and re.fullmatch(r"[a-z0-9_]+", parts[0]):
            try:
                props[parts[0]] = int(parts[1])
            except ValueError:
                continue
    if "gfx_target_version" in props:
        props["gfx"] = gfx_of_target_version(props["gfx_target_version"])
    if "simd_count" in props:
        props["gpu"] = props["simd_count"] > 0
    if "capability" in props:
        props["svm"] = bool(props["capability"] & HSA_CAP_SVMAPI_SUPPORTED)
        props["coherent_host_access"] = bool(props["capability"]
                                             & HSA_CAP_FLAGS_COHERENTHOSTACCESS)
    return props


def parse_rocminfo(text: str) -> dict:
    """rocminfo's output (whole, or an excerpt of one agent): ``{"xnack_enabled": True | False
    | None, "agents": [{name, marketing, device_type, gfx, isa, xnack, coherent_host_access,
    apu, coarse_kb}]}``.  ``xnack`` comes from the ISA name's ``xnack+``/``xnack-`` (None when
    the output has no ISA line for the agent)."""
    text = text or ""
    m = re.search(r"XNACK enabled:\s*(YES|NO)", text)
    out = {"xnack_enabled": None if not m else m.group(1) == "YES", "agents": []}
    blocks = re.split(r"\n\s*\*+\s*\n\s*Agent \d+\s*\n\s*\*+\s*\n", "\n" + text)
    if len(blocks) > 1:
        blocks = blocks[1:]
    for block in blocks:
        agent: dict = {"name": None, "marketing": None, "device_type": None, "gfx": None,
                       "isa": [], "xnack": None, "coherent_host_access": None, "apu": False,
                       "coarse_kb": None}
        segment = None
        for raw in block.splitlines():
            line = raw.strip()
            key, _, val = line.partition(":")
            val = val.strip()
            if key == "Name" and val.startswith("amdgcn-"):
                agent["isa"].append(val)
                x = _xnack_of(val)
                if x is not None:
                    agent["xnack"] = x
            elif key == "Name" and agent["name"] is None:
                agent["name"] = val
            elif key == "Marketing Name":
                agent["marketing"] = val
            elif key == "Device Type":
                agent["device_type"] = val
            elif key == "Coherent Host Access":
                agent["coherent_host_access"] = val.upper() == "TRUE"
            elif key == "Memory Properties":
                agent["apu"] = "APU" in val.split()
            elif key == "Segment":
                segment = val
            elif key == "Size" and segment and "COARSE GRAINED" in segment \
                    and agent["coarse_kb"] is None:
                sz = re.match(r"(\d+)", val)
                if sz:
                    agent["coarse_kb"] = int(sz.group(1))
        names = " ".join([agent["name"] or ""] + agent["isa"])
        g = re.search(r"\bgfx[0-9a-f]+", names)
        agent["gfx"] = g.group(0) if g else None
        if agent["device_type"] is None and agent["gfx"]:
            agent["device_type"] = "GPU"
        if agent["device_type"] == "GPU" or agent["gfx"]:
            out["agents"].append(agent)
    return out


def parse_kernel_config(text: str) -> dict:
    """``{CONFIG_X: 'y' | 'm' | None}`` for the keys the HMM check reads (None: not set)."""
    found = dict(re.findall(r"^(CONFIG_[A-Z0-9_]+)=(\S+)", text or "", re.M))
    return {k: found.get(k) for k in KERNEL_CONFIG_KEYS}


def _kind(agent: dict) -> str:
    gfx = agent.get("gfx") or ""
    text = f"{agent.get('marketing') or ''} {agent.get('name') or ''}"
    if gfx == "gfx942" and (agent.get("apu") or re.search(r"MI300A\b", text)):
        return "mi300a"
    if gfx in XNACK_ALWAYS:
        return "xnack_always"
    if gfx in XNACK_PER_PROCESS or gfx in ("gfx906", "gfx908"):
        return "instinct"
    if gfx in CLIENT_APUS or agent.get("apu"):
        return "client_apu"
    return "radeon"


def _verdict(out: list, key: str, check: str, status: str, detail: str = "",
             fix: str = "") -> None:
    out.append({"key": key, "check": check, "status": status, "detail": detail, "fix": fix})


def machine_checks(facts: dict) -> list[dict]:
    """The verdicts a careful engineer gives on a machine described by ``facts`` (any of:
    ``rocminfo`` text, ``kfd_nodes`` (list of properties texts), ``kernel_config`` text,
    ``sysfs`` {vram_total, gtt_total} in bytes, ``container`` / ``virtual`` (a word naming
    it, or None), ``env`` {HSA_XNACK: ...}, ``nvidia_smi`` (csv lines: name, memory.total)).
    Each verdict: ``{key, check, status (ok|info|warn|fail), detail, fix}``."""
    out: list = []
    env = facts.get("env") or {}
    xnack_env = env.get("HSA_XNACK")
    info = parse_rocminfo(facts["rocminfo"]) if facts.get("rocminfo") else {"agents": [],
                                                                           "xnack_enabled": None}
    nodes = [parse_kfd_properties(t) for t in facts.get("kfd_nodes") or ()]
    gpu_nodes = [n for n in nodes if n.get("gpu") or n.get("gfx")]
    agents = list(info["agents"])
    if not agents:
        agents = [{"gfx": n.get("gfx"), "name": n.get("gfx"), "marketing": None, "apu": False,
                   "xnack": None, "coherent_host_access": n.get("coherent_host_access"),
                   "coarse_kb": None, "isa": []} for n in gpu_nodes]
    virtual, container = facts.get("virtual"), facts.get("container")
    kinds = set()
    for i, a in enumerate(agents):
        kind = _kind(a)
        kinds.add(kind)
        gfx = a.get("gfx") or "?"
        who = f"GPU {i} ({gfx}" + (f", {a['marketing']}" if a.get("marketing") else "") + ")"
        on = a.get("xnack") if a.get("xnack") is not None else info["xnack_enabled"]
        title = f"{who}: XNACK (GPU page faults, pages migrate on demand)"
        no_effect = (" HSA_XNACK=1 is set but had no effect: the kernel's HMM (CONFIG_HMM_MIRROR, "
                     "amdgpu's SVM), an MI200 SR-IOV virtual function or another GPU without XNACK in the same "
                     "process turn it off (ledger: amd.xnack.all_gpus, amd.xnack.sriov_mi200)"
                     if xnack_env == "1" and on is False else "")
        if kind == "xnack_always":
            _verdict(out, "xnack", title, "ok", f"{gfx} has XNACK always on: it is not a "
                     "target feature to choose (no :xnack+/-) and HSA_XNACK does not turn it off "
                     "(ledger: amd.xnack.gfx1250_always)")
        elif kind == "mi300a":
            if on:
                _verdict(out, "xnack", title, "ok", "on (MI300A: one HBM for CPU and GPU; XNACK "
                         "on lets kernels use malloc'd memory in place)")
            else:
                _verdict(out, "xnack", title, "info",
                         ("off" if on is False else "not shown in this output")
                         + ": on MI300A managed memory does not migrate either way (one HBM); "
                         "XNACK off only stops kernels from touching plain malloc'd memory"
                         + no_effect, _XNACK_FIX_APU)
        elif kind == "instinct":
            if gfx in ("gfx906", "gfx908"):
                _verdict(out, "xnack", title, "warn", f"{gfx} can't turn XNACK on per process: "
                         "managed pages move only when prefetched (ledger: amd.xnack.gfx908)",
                         "prefetch managed memory before kernels use it (umkit.prefetch)")
            elif on:
                _verdict(out, "xnack", title, "ok", "on: managed (and, with HMM, malloc'd) "
                         "pages migrate to the GPU on its page faults")
            elif on is False:
                _verdict(out, "xnack", title, "warn", "off (the default on MI200/MI300)"
                         + no_effect, _XNACK_FIX)
            else:
                _verdict(out, "xnack", title, "info", f"{gfx} can turn XNACK on per process; "
                         "this output does not say whether it is on (rocminfo's ISA name ends "
                         "in xnack+ when it is)",
                         "check with `HSA_XNACK=1 rocminfo | grep xnack`; " + _XNACK_FIX)
        else:
            why = ("ROCm forces XNACK off on this gfx9 client APU (ledger: "
                   "amd.xnack.gfx9_client_apu_off)" if gfx in GFX9_CLIENT_APUS else
                   "ROCm supports XNACK on Instinct (MI) GPUs only (ledger: amd.xnack.mi_only)")
            _verdict(out, "xnack", title, "warn",
                     f"no XNACK: {why}. hipMallocManaged maps the whole range when it is "
                     "allocated and pages move only when you prefetch them; a kernel that "
                     "touches plain malloc'd memory faults, and an example written for "
                     "on-demand migration can hang or fail here (ledger: amd.xnack0.alloc_maps, "
                     "amd.malloc.xnack0_fault)" + no_effect,
                     "use hipMalloc + copies, or managed memory with explicit prefetches; "
                     "umkit.explain('managed example hangs')")
        if kind == "client_apu":
            _apu_memory(out, who, gfx, a, facts.get("sysfs") or {})
        if kind == "mi300a":
            _verdict(out, "mi300a", f"{who}: an application APU", "info",
                     "CPU and GPU share one HBM: managed memory is not migrated and is read at "
                     "HBM speed from both sides; a prefetch changes only mappings (ledger: "
                     "amd.apu.no_migration)")
    if not agents and facts.get("sysfs"):
        _apu_memory(out, "GPU", "?", {}, facts["sysfs"])
    if len(agents) > 1 and {"instinct", "mi300a"} & kinds and kinds & {"radeon", "client_apu"}:
        _verdict(out, "mixed_xnack", "GPUs with and without XNACK in one process", "warn",
                 "XNACK is on only when every GPU the process sees supports it (ledger: "
                 "amd.xnack.all_gpus)", "hide the GPUs without XNACK: HIP_VISIBLE_DEVICES / "
                 "ROCR_VISIBLE_DEVICES")
    amd_gpu = bool(agents)
    if amd_gpu:
        _hmm_check(out, facts.get("kernel_config"), gpu_nodes)
    if amd_gpu and virtual:
        mi200 = any(a.get("gfx") == "gfx90a" for a in agents)
        _verdict(out, "virtual", f"a virtualised node ({virtual})", "warn" if mi200 else "info",
                 ("a VM is not always SR-IOV: with PCIe passthrough the guest drives the whole GPU "
                  "and XNACK works as on bare metal; as an SR-IOV virtual function an MI200 "
                  "(gfx90a) gets no XNACK (amdgpu_sriov_xnack_support; AMD, in "
                  "amd/MxGPU-Virtualization#23), the MI300 series does: check `HSA_XNACK=1 "
                  "rocminfo | grep xnack` inside the guest" if mi200 else
                  "a VM is not always SR-IOV: with PCIe passthrough XNACK works as on bare metal, "
                  "and under SR-IOV only MI200 virtual functions refuse it: check `HSA_XNACK=1 "
                  "rocminfo | grep xnack` inside the guest")
                 + " (ledger: amd.xnack.sriov_mi200)",
                 "ask for a bare-metal node (or an MI300-series guest) when you need on-demand "
                 "migration")
    if (amd_gpu or facts.get("nvidia_smi")) and container:
        _verdict(out, "container", f"running in a container ({container})", "info",
                 "HSA_XNACK must be set in the container's own environment; the kernel, its "
                 "HMM and amdgpu's options are the host's (read the host's /boot/config-*); "
                 "/dev/kfd and /dev/dri must be passed in (ledger: amd.no_hmm.host_fallback)")
    for line in facts.get("nvidia_smi") or ():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) >= 2 and re.search(r"N/A|Not Supported", cells[1], re.I):
            _verdict(out, "unified_nvidia", f"NVIDIA {cells[0]}: no framebuffer memory "
                     "reported", "info",
                     "NVML reports no framebuffer memory on this GPU (nvidia-smi: N/A / Not "
                     "Supported): CPU and GPU share one memory, as on DGX Spark's GB10; the "
                     "memory left is the system's (/proc/meminfo MemAvailable), and managed "
                     "memory need not move (ledger: nv.gb10.nvml_no_fb)")
    return out


def _apu_memory(out: list, who: str, gfx: str, agent: dict, sysfs: dict) -> None:
    # ledger: amd.apu.carveout_visible, amd.apu.gtt_fallback_64, amd.apu.gfx1150_managed
    carve = sysfs.get("vram_total")
    if carve is None and agent.get("coarse_kb"):
        carve = agent["coarse_kb"] * 1024
    gtt = sysfs.get("gtt_total")
    parts = []
    if carve is not None:
        parts.append(f"the BIOS carve-out (VRAM) here is {_gib(carve)}")
    if gtt is not None:
        parts.append(f"the GTT (system memory the GPU may map) is {_gib(gtt)}")
    small = carve is not None and (gtt is None or carve < gtt)
    detail = ("; ".join(parts) + ". " if parts else "") + (
        "What ROCm counts as an APU's device memory depends on the kernel: up to Linux 6.9 "
        "amdkfd reports the carve-out, so hipMalloc stops there; since Linux 6.10 (and 6.9.9) "
        "it reports a share of system memory (TTM's page limit) and places device allocations "
        "in GTT (ledger: amd.apu.carveout_visible, amd.apu.gtt_fallback_64)")
    if gfx == "gfx1150":
        detail += ("; on gfx1150 hipMallocManaged can return hipErrorNotSupported (ledger: "
                   "amd.apu.gfx1150_managed)")
    _verdict(out, "apu_memory", f"{who}: unified memory (UMA): carve-out and GTT",
             "warn" if small or gfx == "gfx1150" else "info", detail,
             "on Linux 6.9 or older raise the carve-out (UMA frame buffer) in the BIOS; on 6.10 "
             "or later the GTT limit (ttm.pages_limit on the kernel command line) bounds device "
             "memory; use hipMalloc rather than hipMallocManaged for large buffers; "
             "umkit.explain('only 15.5 GiB visible')")


def _hmm_check(out: list, config_text, gpu_nodes: list) -> None:
    title = "the kernel's HMM / amdgpu SVM (managed memory that migrates)"
    svm = [n["svm"] for n in gpu_nodes if "svm" in n]
    if svm:
        if all(svm):
            _verdict(out, "hmm", title, "ok", "KFD reports the SVM API on every GPU node "
                     "(capability bit HSA_CAP_SVMAPI_SUPPORTED; ledger: amd.kfd.svm_capability)")
        else:
            _verdict(out, "hmm", title, "warn", "a GPU node lacks KFD's SVM API bit: "
                     "hipMallocManaged gives pinned host memory and nothing migrates (ledger: "
                     "amd.kfd.svm_capability, amd.no_hmm.host_fallback)",
                     "a kernel built with CONFIG_HSA_AMD_SVM (CONFIG_HMM_MIRROR, "
                     "CONFIG_DEVICE_PRIVATE) is needed")
        return
    if not config_text:
        _verdict(out, "hmm", title, "info", "the kernel's config could not be read (no "
                 "/boot/config-$(uname -r), no /proc/config.gz; in a container it is the "
                 "host's)", "check `grep -E 'HMM_MIRROR|HSA_AMD_SVM' /boot/config-$(uname -r)` "
                 "on the host, or the capability line of /sys/class/kfd/kfd/topology/nodes/*/"
                 "properties (ledger: amd.kfd.svm_capability)")
        return
    cfg = parse_kernel_config(config_text)
    have = {k: v in ("y", "m") for k, v in cfg.items()}
    if have["CONFIG_HMM_MIRROR"] and have["CONFIG_HSA_AMD_SVM"]:
        _verdict(out, "hmm", title, "ok", "CONFIG_HMM_MIRROR and CONFIG_HSA_AMD_SVM are set "
                 "(ledger: amd.kernel.hsa_amd_svm)")
    else:
        missing = [k for k in ("CONFIG_HMM_MIRROR", "CONFIG_HSA_AMD_SVM", "CONFIG_DEVICE_PRIVATE")
                   if not have[k]]
        _verdict(out, "hmm", title, "warn", f"the kernel lacks {', '.join(missing)}: "
                 "amdgpu's SVM is off, so HSA_XNACK=1 has no effect and hipMallocManaged gives "
                 "pinned host memory (ledger: amd.kernel.hsa_amd_svm, amd.no_hmm.host_fallback)",
                 "boot a kernel with CONFIG_HSA_AMD_SVM=y (it needs CONFIG_DEVICE_PRIVATE and "
                 "selects CONFIG_HMM_MIRROR): distribution kernels for ROCm have it")


def machine_facts(run_tools: bool = True) -> dict:
    """This machine, as :func:`machine_checks` reads it: rocminfo's full output (when it is on
    PATH and ``run_tools``), the KFD topology's node properties, the kernel's config, whether
    this runs in a container or a VM, HSA_XNACK, APU memory from amdgpu's sysfs, and
    nvidia-smi's name and memory.total.  Never raises."""
    import glob
    import gzip
    facts: dict = {"env": {"HSA_XNACK": os.environ.get("HSA_XNACK")}}

    def read(path, opener=open):
        try:
            with opener(path, "rt") as f:
                return f.read()
        except (OSError, EOFError, ValueError):
            return None
    if run_tools and shutil.which("rocminfo"):
        try:
            p = subprocess.run([shutil.which("rocminfo")], capture_output=True, text=True,
                               errors="replace", timeout=TOOL_TIMEOUT, stdin=subprocess.DEVNULL)
            facts["rocminfo"] = p.stdout if p.returncode == 0 else None
        except (OSError, subprocess.TimeoutExpired):
            facts["rocminfo"] = None
    facts["kfd_nodes"] = [t for t in (read(p) for p in sorted(glob.glob(
        "/sys/class/kfd/kfd/topology/nodes/*/properties"))) if t]
    facts["kernel_config"] = read(f"/boot/config-{platform.release()}") or \
        read("/proc/config.gz", gzip.open)
    if tools.exists("/.dockerenv"):
        facts["container"] = "docker"
    elif tools.exists("/run/.containerenv"):
        facts["container"] = "podman"
    else:
        cg = read("/proc/1/cgroup") or ""
        facts["container"] = next((w for w in ("kubepods", "docker", "lxc", "containerd")
                                   if w in cg), None)
    cpuinfo = read("/proc/cpuinfo") or ""
    vendor = (read("/sys/class/dmi/id/sys_vendor") or "").strip()
    facts["virtual"] = (vendor or "a hypervisor") if re.search(r"^flags\s*:.*\bhypervisor\b",
                                                              cpuinfo, re.M) else None
    for card in sorted(glob.glob("/sys/class/drm/card*/device/mem_info_gtt_total")):
        d = os.path.dirname(card)
        vram, gtt = read(os.path.join(d, "mem_info_vram_total")), read(card)
        try:
            facts["sysfs"] = {"vram_total": int(vram), "gtt_total": int(gtt)}
            break
        except (TypeError, ValueError):
            continue
    if run_tools and shutil.which("nvidia-smi"):
        res = run_tool(["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader"])
        facts["nvidia_smi"] = res["lines"] if res["rc"] == 0 else None
    return facts


def _machine_section(rep: dict, run_tools: bool) -> None:
    try:
        facts = machine_facts(run_tools)
        verdicts = machine_checks(facts)
    except Exception as e:  # noqa: BLE001 - the report must come out whatever is broken
        verdicts = [{"key": "error", "check": "today's machines (APU, HMM, VMs)", "status":
                     "info", "detail": f"could not be checked: {_short(e)}", "fix": ""}]
    rep["machine"] = verdicts
    for v in verdicts:
        if v["key"] == "container" and not rep["platforms"].get("amd") \
                and not rep["platforms"].get("nvidia"):
            continue
        _check(rep, v["check"], v["status"], v["detail"], v["fix"])


if __name__ == "__main__":
    sys.exit(main())
