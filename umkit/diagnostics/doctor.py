"""The environment report: the article's §4.1 checklist, run for you.

Before the first line of unified-memory code the article checks the machine: ``rocm-smi`` (GPU
and driver), ``hipconfig --full`` (the HIP set-up), ``rocminfo`` (is there a GPU agent?  HSA
errors mean the kernel driver isn't loaded), and that PyTorch's HIP runtime matches the
installed ROCm.  :func:`doctor` does that, the NVIDIA equivalent (``nvidia-smi``), and says which
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

from ..backends.contract import Backend
from ..backends.registry import GPU_NAMES, NAMES
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
        requested_from = "argument" if backend.strip().lower() not in ("", "auto") else None
    else:
        raise InvalidType(f"doctor(backend=...): got a {type(backend).__name__}, expected a "
                          f"backend name or None", hint="e.g. umkit.doctor(), "
                                                        "umkit.doctor('cuda')")
    requested = None
    if requested_from == "argument":
        requested = backend.strip().lower()
    elif requested_from == ENV_BACKEND:
        requested = os.environ[ENV_BACKEND].strip().lower()

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
        from ..backends.install import install_hint
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
    if chosen == "sim" or (not rep["ok"] and rep["fallback"] == "sim"):
        why = [f"{n}: {'usable' if p['usable'] else p['reason']}" for n, p in probes.items()
               if n != "sim"]
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

    # PyTorch's HIP runtime must match the installed ROCm
    torch_v = rep["packages"].get("torch", NOT_INSTALLED)
    title = "PyTorch's HIP runtime matches the installed ROCm (§4.1)"
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
            _check(rep, title, "warn", f"torch {torch_v} bundles HIP for ROCm "
                   f"{want[0]}.{want[1]} but ROCm {rep['rocm_version']} is installed",
                   "a mismatched HIP runtime makes the memory allocator misbehave in ways that "
                   "are hard to trace (§4.1): install the torch wheel built for your ROCm")

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
                   "by migration: a CPU touch moves the pages back (PCIe)")
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
    out += ["", *_wrap("Packages: " + ", ".join(f"{k} {v}" for k, v in rep["packages"].items()),
                       "")]
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
        raise InvalidType(f"file={file!r} is not a text stream", argument="file",
                          hint="leave it out (stdout), or pass sys.stderr / an open text file")
    rep = report(backend)
    print(format_report(rep), file=file if file is not None else sys.stdout)
    return 0 if rep["ok"] else 1


def main(argv=None) -> int:
    """``umkit doctor [--backend cuda|hip|sim]``"""
    args = list(sys.argv[1:] if argv is None else argv)
    return doctor(args[0] if args else None)


if __name__ == "__main__":
    sys.exit(main())
