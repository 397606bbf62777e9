"""umkit.doctor: the §4.1 environment report.

Most tests use a fake ``umkit.backends.registry`` and fake external tools (shell scripts put on
PATH), so they say the same thing on a laptop, a CUDA box and a ROCm box."""
from __future__ import annotations

import importlib
import io
import os
import stat
import sys
import types
from importlib import metadata
from pathlib import Path

import pytest

from umkit.errors import BackendUnavailable, InvalidArgument, InvalidType

# the module, not the function of the same name that umkit/__init__.py exports
doc = importlib.import_module("umkit.diagnostics.doctor")
tools = importlib.import_module("umkit.diagnostics.tools")

KEYS = {"requested", "requested_from", "backend", "reason", "ok", "problem", "fix", "fallback",
        "probes", "devices", "versions", "packages", "env", "tools", "checklist", "python",
        "platform", "platforms"}


class FakeBackend:
    def __init__(self, name="sim", caps=None, fail=()):
        self.name, self._caps, self._fail = name, caps, set(fail)

    def device_count(self):
        return 1

    def device_name(self, d):
        return f"fake {self.name} gpu"

    def mem_info(self, d):
        return (3 * 2**30, 8 * 2**30)

    def capabilities(self, d):
        if "capabilities" in self._fail:
            raise RuntimeError("capabilities exploded")
        return dict(self._caps or {"managed_memory": True, "concurrent_managed_access": True,
                                   "pageable_memory_access": False})

    def versions(self):
        return {"driver": "9.9", "runtime": "9.9"}


def fake_detect(usable=("sim",), reasons=None, backend_factory=None):
    """A stand-in for umkit.backends.registry with the API doctor relies on."""
    reasons = dict(reasons or {})
    m = types.ModuleType("umkit.backends.registry")
    m.NAMES = ("cuda", "hip", "sim")
    m.calls = []

    def probe(name):
        if name not in m.NAMES:
            raise InvalidArgument(f"backend must be one of cuda, hip, sim, not {name!r}")
        return name in usable, reasons.get(name, "ok" if name in usable else "missing")

    def choose(requested=None):
        m.calls.append(requested)
        source = "requested"
        if requested is None:
            requested, source = os.environ.get("UMKIT_BACKEND") or None, "UMKIT_BACKEND"
        if requested is not None and requested.strip().lower() not in ("", "auto"):
            want = requested.strip().lower()
            if want not in m.NAMES:
                raise InvalidArgument(f"{source}={requested!r} is not a backend; valid: "
                                      f"cuda, hip, sim (or auto)")
            ok, why = probe(want)
            if not ok:
                raise BackendUnavailable(f"backend {want!r} ({source}) cannot run here: {why}")
            return want, f"{source}: {why}"
        for n in ("cuda", "hip"):
            if n in usable:
                return n, reasons.get(n, "ok")
        return "sim", "no GPU backend usable: using the CPU model"

    m.probe, m.choose = probe, choose
    m.create = backend_factory or (lambda name: FakeBackend(name))
    return m


@pytest.fixture
def no_tools(monkeypatch):
    """No GPU tools or device files; nothing external may run."""
    monkeypatch.setenv("PATH", "/nonexistent-umkit-test")
    monkeypatch.setattr(tools, "exists", lambda p: False)
    monkeypatch.setattr(tools, "amd_gpu_on_pci", lambda: None)      # the bus can't be read
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    monkeypatch.delenv("HSA_XNACK", raising=False)


def use_detect(monkeypatch, module):
    monkeypatch.setitem(sys.modules, "umkit.backends.registry", module)
    return module


def fake_tool(tmp_path, name, script):
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def _doctor(*args, **kw):
    buf = io.StringIO()
    code = doc.doctor(*args, file=buf, **kw)
    return code, buf.getvalue()


# -- the real sim backend (no fakes) --------------------------------------------------------------
def test_report_on_sim_has_keys_and_exit_0(no_tools):
    rep = doc.report("sim")
    assert KEYS <= set(rep)
    assert rep["ok"] is True and rep["backend"] == "sim" and rep["problem"] is None
    assert rep["requested"] == "sim" and rep["requested_from"] == "argument"
    assert rep["probes"]["sim"]["usable"] is True
    assert set(rep["probes"]) == {"cuda", "hip", "sim"}
    dev = rep["devices"][0]
    free, total = dev["mem_info"]
    assert 0 < free <= total
    assert dev["capabilities"]["managed_memory"] is True
    assert rep["versions"]
    assert set(doc.PACKAGES) <= set(rep["packages"])
    statuses = {c["check"]: c["status"] for c in rep["checklist"]}
    assert statuses["umkit backend: sim"] == "ok"
    code, text = _doctor("sim")
    assert code == 0
    assert "Backend: sim" in text and "Result: usable (sim)" in text


def test_report_accepts_a_backend_instance(no_tools):
    from umkit.backends import registry as detect
    sim = detect.create("sim")
    rep = doc.report(sim)
    assert rep["backend"] == "sim" and rep["ok"] and rep["devices"][0]["name"]


def test_output_is_plain_text(no_tools):
    _, text = _doctor("sim")
    assert "\x1b" not in text and "\t" not in text and "<" not in text.split("Checklist")[0]
    assert max(len(line) for line in text.splitlines()) <= 120


# -- requested backends that can't run ----------------------------------------------------------
def test_requested_unusable_backend_exits_1_with_why_and_fix(monkeypatch, no_tools):
    use_detect(monkeypatch, fake_detect(
        reasons={"cuda": "CUDA driver missing (libcuda.so not found)"}))
    code, text = _doctor("cuda")
    assert code == 1
    assert "cuda (from argument) CANNOT RUN" in text
    assert "CUDA driver missing (libcuda.so not found)" in text       # why
    assert "install the NVIDIA driver" in text                         # what to do
    assert "umkit.use('sim')" in text                                  # what does run
    rep = doc.report("cuda")
    assert rep["ok"] is False and rep["fallback"] == "sim" and rep["devices"] == []
    assert any(c["status"] == "fail" for c in rep["checklist"])


def test_env_requested_unusable_backend_exits_1(monkeypatch, no_tools):
    use_detect(monkeypatch, fake_detect(reasons={
        "hip": "hip-python installed but could not load libamdhip64.so (ROCm not installed, or its lib folder not on the loader path)"}))
    monkeypatch.setenv("UMKIT_BACKEND", "hip")
    code, text = _doctor()
    assert code == 1
    assert "hip (from UMKIT_BACKEND) CANNOT RUN" in text
    assert "install ROCm" in text and "unset UMKIT_BACKEND" in text


def test_unknown_backend_name_exits_1_and_lists_names(monkeypatch, no_tools):
    use_detect(monkeypatch, fake_detect())
    code, text = _doctor("opencl")
    assert code == 1 and "use one of cuda, hip, sim" in text


def test_auto_choice_on_sim_explains_why_and_how_to_switch(monkeypatch, no_tools):
    use_detect(monkeypatch, fake_detect(reasons={
        "cuda": "CUDA driver missing (libcuda.so not found)",
        "hip": "hip-python not installed (pip install umkit[hip])"}))
    code, text = _doctor()
    assert code == 0
    rep = doc.report()
    assert rep["requested"] is None and rep["backend"] == "sim"
    why = next(c for c in rep["checklist"] if c["check"] == "why the sim backend")
    assert "cuda: CUDA driver missing (libcuda.so not found)" in why["lines"]
    assert "UMKIT_BACKEND=cuda" in why["fix"] and "umkit.use('cuda')" in why["fix"]
    assert "why the sim backend" in text and "umkit.use('cuda')" in text



def test_a_long_reason_under_why_the_sim_backend_is_read_to_its_end(monkeypatch, no_tools):
    """The probes' reasons under 'why the sim backend' wrap; they were cut at 110 characters
    (issue 26, §1.3: "doctor's why lines are cut mid-text")."""
    long_why = ("hip-python is installed but the HIP runtime it loads (libamdhip64.so of HIP 5.2) "
                "does not match the ROCm 7 it was built for: hipErrorInvalidDevice on device 0; "
                "install ROCm 7's runtime LAST-WORDS")
    use_detect(monkeypatch, fake_detect(reasons={"cuda": "CUDA driver missing", "hip": long_why}))
    code, text = _doctor()
    assert code == 0
    part = text.split("why the sim backend", 1)[1].split("->", 1)[0]
    lines = [ln.strip().lstrip("|").strip() for ln in part.splitlines() if ln.strip()]
    assert " ".join(lines) == f"cuda: CUDA driver missing hip: {long_why}", lines
    assert all(len(ln) <= 121 for ln in part.splitlines())


def test_a_tool_line_of_kilobytes_stops_after_a_few_lines():
    out = doc.wrap_line("word " * 2000)
    assert len(out) == doc.LINE_WRAPS and out[-1].endswith(" ...")

def test_auto_env_value_is_not_a_request(monkeypatch, no_tools):
    use_detect(monkeypatch, fake_detect())
    monkeypatch.setenv("UMKIT_BACKEND", "auto")
    rep = doc.report()
    assert rep["ok"] and rep["requested"] is None and rep["backend"] == "sim"


def test_report_survives_broken_backend(monkeypatch, no_tools):
    use_detect(monkeypatch, fake_detect(
        usable=("cuda", "sim"),
        backend_factory=lambda n: FakeBackend(n, fail={"capabilities"})))
    rep = doc.report()
    assert rep["backend"] == "cuda" and rep["ok"]
    assert rep["devices"][0]["capabilities_error"] == "capabilities exploded"
    code, text = _doctor()
    assert code == 0 and "capabilities exploded" in text


def test_report_survives_missing_detect(monkeypatch, no_tools):
    def boom():
        raise ImportError("no detect")
    monkeypatch.setattr(tools, "registry", boom)
    rep = doc.report()
    assert rep["ok"] is False and "no detect" in rep["problem"]


def test_wrong_argument_type():
    with pytest.raises(InvalidType, match="doctor"):
        doc.report(3)


# -- capabilities -------------------------------------------------------------------------------
def test_no_svm_and_xnack_off_warn(monkeypatch, no_tools):
    """On ROCm concurrent managed access is the driver's SVM support (ledger:
    amd.attr.concurrent_managed); XNACK is read from pageable memory access."""
    caps = {"managed_memory": True, "concurrent_managed_access": False,
            "pageable_memory_access": False, "hmm": False,
            "xnack": {"env": None, "target": False, "arch": "gfx906:sramecc+:xnack-"}}
    use_detect(monkeypatch, fake_detect(usable=("hip", "sim"),
                                        backend_factory=lambda n: FakeBackend(n, caps)))
    rep = doc.report()
    st = {c["check"]: c for c in rep["checklist"]}
    svm = st["device 0: managed memory through the kernel driver (SVM/HMM)"]
    assert svm["status"] == "warn" and "pinned host memory" in svm["detail"]
    xn = st["XNACK: the GPU can fault managed pages in on demand (§2.2)"]
    assert xn["status"] == "warn" and "HSA_XNACK=1" in xn["fix"]
    assert "gfx906" in xn["detail"] and "HSA_XNACK=(unset)" in xn["detail"]
    assert "pageable_memory_access=no" in xn["detail"]


def test_xnack_off_with_svm_is_not_blamed_on_concurrent_access(monkeypatch, no_tools):
    """An MI250X with HSA_XNACK=0 reports concurrent managed access 1 and pageable 0: the SVM
    check is ok, the XNACK check warns (the attribute that means XNACK is pageable access)."""
    caps = {"managed_memory": True, "concurrent_managed_access": True,
            "pageable_memory_access": False, "direct_managed_access_from_host": False,
            "xnack": {"env": "0", "target": False, "arch": "gfx90a:sramecc+:xnack-"}}
    use_detect(monkeypatch, fake_detect(usable=("hip", "sim"),
                                        backend_factory=lambda n: FakeBackend(n, caps)))
    st = {c["check"]: c for c in doc.report()["checklist"]}
    assert st["device 0: managed memory through the kernel driver (SVM/HMM)"]["status"] == "ok"
    assert st["XNACK: the GPU can fault managed pages in on demand (§2.2)"]["status"] == "warn"
    cpu = st["device 0: CPU access to GPU-resident managed pages"]
    assert "migration" in cpu["detail"]


def _xnack_fix(monkeypatch, caps):
    use_detect(monkeypatch, fake_detect(usable=("hip", "sim"),
                                        backend_factory=lambda n: FakeBackend(n, caps)))
    xn = next(c for c in doc.report()["checklist"] if c["check"].startswith("XNACK"))
    assert xn["status"] == "warn"
    return xn["fix"]


def test_xnack_off_advice_is_device_aware(monkeypatch, no_tools):
    """Issue 42, I13: on a discrete GPU XNACK off means pages move only on prefetch (and the
    range is mapped at allocation); on an MI300A, where system memory is the HBM, the advice must
    not say managed memory is read over a link: XNACK off costs GPU access to malloc'd memory."""
    off = {"managed_memory": True, "concurrent_managed_access": True,
           "pageable_memory_access": False}
    dgpu = _xnack_fix(monkeypatch, {**off, "xnack": {"env": "0", "target": False,
                                                     "arch": "gfx90a:sramecc+:xnack-"}})
    apu = _xnack_fix(monkeypatch, {**off, "integrated": True,
                                   "xnack": {"env": "0", "target": False,
                                             "arch": "gfx942:sramecc+:xnack-"}})
    assert "HSA_XNACK=1" in dgpu and "HSA_XNACK=1" in apu
    assert "over the link" not in dgpu.replace("not read over a link", "")
    assert "prefetch" in dgpu and "malloc" in dgpu
    assert "one HBM" in apu and "not read over a link" in apu and "malloc" in apu
    assert "prefetch" not in apu and apu != dgpu


def test_is_apu_from_name_mode_or_integrated():
    assert doc.is_apu("AMD Instinct MI300A", {})
    assert doc.is_apu("", {"mode": "apu"}) and doc.is_apu("", {"integrated": True})
    assert not doc.is_apu("AMD Instinct MI300X", {"mode": "xnack_on"})
    assert not doc.is_apu("AMD Instinct MI250X", {"integrated": False})


def test_xnack_on(monkeypatch, no_tools):
    monkeypatch.setenv("HSA_XNACK", "1")
    caps = {"managed_memory": True, "concurrent_managed_access": True,
            "xnack": {"env": "1", "target": True, "arch": "gfx90a:sramecc+:xnack+"}}
    use_detect(monkeypatch, fake_detect(usable=("hip", "sim"),
                                        backend_factory=lambda n: FakeBackend(n, caps)))
    rep = doc.report()
    xn = next(c for c in rep["checklist"] if c["check"].startswith("XNACK"))
    assert xn["status"] == "ok" and rep["env"]["HSA_XNACK"] == "1"


def test_no_managed_memory_fails(monkeypatch, no_tools):
    use_detect(monkeypatch, fake_detect(usable=("cuda", "sim"), backend_factory=lambda n:
                                        FakeBackend(n, {"managed_memory": False})))
    rep = doc.report()
    assert any(c["check"] == "device 0: managed memory" and c["status"] == "fail"
               for c in rep["checklist"])
    assert rep["ok"]          # a warning about the device, not an unusable requested backend


# -- external tools (fake scripts on PATH) ---------------------------------------------------------
@pytest.fixture
def tool_dir(tmp_path, monkeypatch, no_tools):
    monkeypatch.setenv("PATH", str(tmp_path))
    return tmp_path


ROCMINFO_OK = """echo 'ROCk module is loaded'
echo '*******'
echo 'Agent 1'
echo '  Name:                    AMD EPYC 7763'
echo 'Agent 2'
echo '  Name:                    gfx90a'
echo '  Marketing Name:          AMD Instinct MI250X'
echo '      Name:                    amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-'
echo 'Agent 3'
echo '  Name:                    gfx90a'
"""


def test_amd_tools_ok_and_xnack_from_rocminfo(monkeypatch, tool_dir):
    # no session backend: one an earlier test left active (a simulated MI250X reports its own
    # XNACK, which the doctor then prefers to rocminfo's) is not this test's machine
    from umkit.runtime.context import RUNTIME
    monkeypatch.setattr(RUNTIME, "peek", lambda: None)
    fake_tool(tool_dir, "rocminfo", ROCMINFO_OK)
    fake_tool(tool_dir, "rocm-smi", "echo '==== ROCm System Management Interface ===='\n"
                                    "echo 'GPU  Temp  VRAM%'\necho '0    35c   1%'\n")
    use_detect(monkeypatch, fake_detect())
    rep = doc.report()
    st = {c["check"]: c for c in rep["checklist"]}
    agent = st["rocminfo: a GPU agent (gfx…) is listed (§4.1)"]
    assert agent["status"] == "ok"
    assert any("gfx90a" in ln for ln in agent["lines"])
    assert sum("Name:                    gfx90a" in ln for ln in agent["lines"]) == 1  # deduped
    assert st["rocm-smi: GPU status and driver (§4.1)"]["status"] == "ok"
    assert "GPU  Temp  VRAM%" in st["rocm-smi: GPU status and driver (§4.1)"]["lines"]
    assert st["hipconfig --full: the HIP configuration (§4.1)"]["status"] == "skip"
    xn = next(c for c in rep["checklist"] if c["check"].startswith("XNACK"))
    assert xn["status"] == "warn" and "xnack-" in xn["detail"]
    kfd = st["/dev/kfd (the ROCm kernel driver) is accessible"]
    assert kfd["status"] == "warn" and "KMD" in kfd["detail"]
    assert rep["platforms"]["amd"] is True


def test_rocminfo_hsa_error_means_kmd_not_loaded(monkeypatch, tool_dir):
    fake_tool(tool_dir, "rocminfo",
              "echo 'ROCk module is NOT loaded, possibly no GPU devices' >&2\n"
              "echo 'hsa api call failure at: rocminfo.cc:1306' >&2\n"
              "echo 'Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES' >&2\nexit 1\n")
    use_detect(monkeypatch, fake_detect())
    code, text = _doctor()
    rep = doc.report()
    agent = next(c for c in rep["checklist"] if c["check"].startswith("rocminfo"))
    assert agent["status"] == "fail"
    assert "kernel driver (KMD" in agent["fix"] and "render and video groups" in agent["fix"]
    assert code == 0          # nothing was requested: umkit still runs (on sim)
    assert "[FAIL] rocminfo" in text


def test_rocm_tools_without_an_amd_gpu_inform_instead_of_warning(monkeypatch, tool_dir):
    """Debian's hipcc brings rocminfo to a machine with no AMD GPU: its failure and the missing
    /dev/kfd are facts about the machine, not problems (unless hip was asked for)."""
    fake_tool(tool_dir, "rocminfo", "echo 'ROCk module is NOT loaded, possibly no GPU devices' >&2\n"
                                    "exit 1\n")
    use_detect(monkeypatch, fake_detect())
    monkeypatch.setattr(tools, "amd_gpu_on_pci", lambda: False)
    rep = doc.report()
    st = {c["check"]: c for c in rep["checklist"]}
    assert st["rocminfo: a GPU agent (gfx…) is listed (§4.1)"]["status"] == "info"
    assert st["/dev/kfd (the ROCm kernel driver) is accessible"]["status"] == "info"
    assert not [c for c in rep["checklist"] if c["status"] in ("warn", "fail")]
    monkeypatch.setenv("UMKIT_BACKEND", "hip")           # asked for: the same facts are problems
    rep = doc.report()
    st = {c["check"]: c for c in rep["checklist"]}
    assert st["/dev/kfd (the ROCm kernel driver) is accessible"]["status"] == "warn"


def test_amd_gpu_on_pci_reads_vendor_and_class(tmp_path):
    def dev(name, vendor, cls):
        d = tmp_path / name
        d.mkdir()
        (d / "vendor").write_text(vendor + "\n")
        (d / "class").write_text(cls + "\n")
    dev("0000:00:01.0", "0x8086", "0x060000")            # an Intel bridge
    dev("0000:01:00.0", "0x1002", "0x040300")            # AMD audio: not a GPU
    assert tools.amd_gpu_on_pci(str(tmp_path)) is False
    dev("0000:c1:00.0", "0x1002", "0x038000")            # an AMD display controller
    assert tools.amd_gpu_on_pci(str(tmp_path)) is True
    assert tools.amd_gpu_on_pci(str(tmp_path / "missing")) is None


def test_pytorch_rocm_mismatch_warns(monkeypatch, tool_dir):
    fake_tool(tool_dir, "rocminfo", ROCMINFO_OK)
    real = doc.package_versions
    monkeypatch.setattr(doc, "package_versions",
                        lambda names=doc.PACKAGES: {**real(names), "torch": "2.5.1+rocm6.2"})
    monkeypatch.setattr(tools, "rocm_version", lambda: "6.1.3")
    use_detect(monkeypatch, fake_detect())
    rep = doc.report()
    c = next(c for c in rep["checklist"] if c["check"].startswith("PyTorch's ROCm build"))
    assert c["status"] == "warn" and "6.2" in c["detail"] and "6.1.3" in c["detail"]
    # the wheel's own runtime is what torch uses; the kernel driver is what must support it
    assert "carries its own HIP runtime" in c["detail"] and "kernel driver" in c["fix"]
    monkeypatch.setattr(tools, "rocm_version", lambda: "6.2.4")
    c = next(c for c in doc.report()["checklist"] if c["check"].startswith("PyTorch's ROCm build"))
    assert c["status"] == "ok"


NVIDIA_SMI = """if [ "$1" = "" ]; then
  echo '+-----------------------------------------------------------------------------+'
  echo '| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |'
  echo '|-------------------------------+----------------------+----------------------+'
  i=0; while [ $i -lt 40 ]; do echo "| row $i |"; i=$((i+1)); done
else
  echo '0, NVIDIA H200, 535.104.05, 1 MiB, 143771 MiB, Exclusive_Process'
fi
"""


def test_nvidia_smi_and_driver_too_old_for_bindings(monkeypatch, tool_dir):
    fake_tool(tool_dir, "nvidia-smi", NVIDIA_SMI)
    real = doc.package_versions
    monkeypatch.setattr(doc, "package_versions",
                        lambda names=doc.PACKAGES: {**real(names), "cuda-bindings": "13.0.1"})
    use_detect(monkeypatch, fake_detect())
    rep = doc.report()
    st = {c["check"]: c for c in rep["checklist"]}
    smi = st["nvidia-smi: GPUs, driver and memory in use"]
    assert smi["status"] == "ok"
    assert any("CUDA Version: 12.2" in ln for ln in smi["lines"])
    assert any("NVIDIA H200" in ln for ln in smi["lines"])
    assert not any("row 3" in ln for ln in smi["lines"])           # only the first lines
    drv = st["the driver supports cuda-bindings' CUDA version"]
    assert drv["status"] == "warn" and "umkit.explain(35)" in drv["fix"]
    assert "Exclusive_Process" in st["compute mode"]["detail"]
    assert rep["platforms"]["nvidia"] is True and rep["platforms"]["amd"] is False
    counters = st["hardware counters: CUPTI unified-memory counters (umkit.counters_on())"]
    from umkit.backends.counters import cupti
    usable, why = cupti.available()
    assert counters["status"] == ("ok" if usable else "info")
    if not usable:      # says why, and how to turn them on, in its own field
        assert why in counters["detail"] and "cupti-python" in counters["fix"]


def test_run_tool_keeps_first_lines_and_times_out(tool_dir):
    fake_tool(tool_dir, "chatty", "i=0; while [ $i -lt 50 ]; do echo line $i; i=$((i+1)); done\n")
    res = doc.run_tool(["chatty"])
    assert res["rc"] == 0 and res["lines"] == [f"line {i}" for i in range(doc.MAX_LINES)]
    assert res["more"] == 50 - doc.MAX_LINES
    fake_tool(tool_dir, "sleepy", f'exec "{sys.executable}" -c "import time; time.sleep(5)"\n')
    res = doc.run_tool(["sleepy"], timeout=0.3)
    assert res["rc"] is None and "timed out" in res["error"]


def test_tools_not_on_path_are_not_run(monkeypatch, no_tools):
    def forbidden(*a, **k):
        raise AssertionError("subprocess.run called for a tool that is not on PATH")
    monkeypatch.setattr(doc.subprocess, "run", forbidden)
    res = doc.run_tool(["rocminfo"])
    assert res["found"] is False and "not on PATH" in res["error"]
    use_detect(monkeypatch, fake_detect(usable=("hip", "sim")))
    rep = doc.report()       # hip usable -> AMD checks run, but every tool is skipped
    agent = next(c for c in rep["checklist"] if c["check"].startswith("rocminfo"))
    assert agent["status"] == "skip" and "/opt/rocm/bin" in agent["fix"]


# -- packages -----------------------------------------------------------------------------------
def test_package_versions():
    got = doc.package_versions(("numpy", "surely-not-installed-umkit-xyz"))
    assert got["numpy"] == metadata.version("numpy")
    assert got["surely-not-installed-umkit-xyz"] == "not installed"


# -- against the real detect module ----------------------------------------------------------------
def test_real_detect_requested_gpu_backend(no_tools):
    """Whatever this machine has: exit 1 exactly when the requested backend's probe says no."""
    from umkit.backends import registry as detect
    for name in ("cuda", "hip"):
        usable, why = detect.probe(name)
        code, text = _doctor(name)
        assert code == (0 if usable else 1)
        if not usable:                  # the report wraps its lines: compare the words
            assert " ".join(why.split()) in " ".join(text.split()) and "what to do:" in text


# -- run as a module ------------------------------------------------------------------------------
def test_python_m_the_doctor_prints_no_runpy_warning(tmp_path):
    """``python -m umkit.diagnostics.doctor`` (and the ``umkit doctor`` entry, umkit.cli) run
    without runpy's "found in sys.modules ... prior to execution" RuntimeWarning, which
    ``python -m umkit.doctor`` printed on every run when the package imported the module first
    (issue 26, §5.4)."""
    import subprocess
    env = dict(os.environ, UMKIT_BACKEND="sim", PATH=str(tmp_path))     # no GPU tools to run
    for module in ("umkit.diagnostics.doctor", "umkit.cli"):
        args = [sys.executable, "-m", module] + (["doctor"] if module == "umkit.cli" else [])
        r = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env,
                           cwd=str(Path(__file__).resolve().parents[2]))
        assert r.returncode == 0, r.stderr
        assert "RuntimeWarning" not in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert "umkit doctor" in r.stdout
