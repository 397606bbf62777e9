"""The doctor's verdicts on machines users posted (tests/diagnostics/data/machines/README.md
says where each file came from).  Each test writes the verdict a careful engineer gives and why;
the doctor (umkit.diagnostics.doctor.machine_checks) must give the same."""
from pathlib import Path

import pytest

from umkit.diagnostics import doctor as D

DATA = Path(__file__).parent / "data" / "machines"


def _text(name):
    return (DATA / name).read_text()


def _by_key(verdicts, key):
    return [v for v in verdicts if v["key"] == key]


def test_mi250x_xnack_capable_but_this_output_does_not_say_whether_it_is_on():
    # gfx90a turns XNACK on per process (HSA_XNACK=1); the posted output has no ISA line and
    # no 'XNACK enabled' line, so an engineer can't tell: info, with the command to check.
    info = D.parse_rocminfo(_text("mi250x.rocminfo.txt"))
    assert [a["gfx"] for a in info["agents"]] == ["gfx90a"]
    [x] = _by_key(D.machine_checks({"rocminfo": _text("mi250x.rocminfo.txt")}), "xnack")
    assert x["status"] == "info" and "HSA_XNACK=1 rocminfo" in x["fix"]


def test_mi300x_is_a_discrete_instinct_not_an_apu():
    # MI300X and MI300A are both gfx942; without 'Memory Properties: APU' it is the discrete
    # card: the MI300A notes must not appear.
    v = D.machine_checks({"rocminfo": _text("mi300x.rocminfo.txt")})
    assert _by_key(v, "mi300a") == [] and _by_key(v, "apu_memory") == []
    assert _by_key(v, "xnack")[0]["status"] == "info"


def test_mi300a_is_an_application_apu_where_xnack_off_is_not_a_warning():
    # 'Memory Properties: APU', 'Coherent Host Access: TRUE': one HBM, nothing migrates; XNACK
    # off costs only GPU access to malloc'd memory, so it is info, not warn.
    info = D.parse_rocminfo(_text("mi300a.rocminfo.txt"))
    assert info["agents"][0]["apu"] and info["agents"][0]["coherent_host_access"]
    v = D.machine_checks({"rocminfo": _text("mi300a.rocminfo.txt")})
    assert _by_key(v, "mi300a")[0]["status"] == "info"
    assert _by_key(v, "xnack")[0]["status"] == "info"
    assert not any(x["status"] in ("warn", "fail") for x in v)


def test_mi300a_with_hsa_xnack_1_has_xnack_on():
    # ROCm 6.2.1 prints gfx942:sramecc+:xnack+ with HSA_XNACK=1: XNACK is on, nothing to fix.
    info = D.parse_rocminfo(_text("mi300a_hsa_xnack1.isa.txt"))
    assert info["agents"][0]["xnack"] is True
    [x] = _by_key(D.machine_checks({"rocminfo": _text("mi300a_hsa_xnack1.isa.txt"),
                                    "env": {"HSA_XNACK": "1"}}), "xnack")
    assert x["status"] == "ok"


def test_rx7900xtx_has_no_xnack_so_managed_examples_do_not_migrate_on_demand():
    # RDNA3 (gfx1100): ROCm has XNACK on Instinct only; a managed example that relies on GPU
    # faults moving pages hangs or faults here: warn, and point at explicit prefetches.
    v = D.machine_checks({"rocminfo": _text("rx7900xtx.rocminfo.txt")})
    [x] = _by_key(v, "xnack")
    assert x["status"] == "warn" and "Instinct" in x["detail"] and "prefetch" in x["fix"]
    assert _by_key(v, "apu_memory") == []              # a discrete card: no carve-out talk


def test_strix_halo_apu_sees_its_carve_out_not_its_memory():
    # gfx1151 with 'XNACK enabled: NO': no XNACK (warn); with the posted sysfs (4 GiB carve-out,
    # 96 GiB GTT) the carve-out is small beside the GTT: warn, with both numbers, and which
    # kernels count which as device memory (up to Linux 6.9 the carve-out, since 6.10 GTT).
    sysfs = dict(line.split() for line in _text("gfx1151_strix_halo.sysfs.txt").splitlines())
    facts = {"rocminfo": _text("gfx1151_strix_halo.rocminfo.txt"),
             "sysfs": {"vram_total": int(sysfs["mem_info_vram_total"]),
                       "gtt_total": int(sysfs["mem_info_gtt_total"])}}
    assert D.parse_rocminfo(facts["rocminfo"])["xnack_enabled"] is False
    v = D.machine_checks(facts)
    assert _by_key(v, "xnack")[0]["status"] == "warn"
    [m] = _by_key(v, "apu_memory")
    assert m["status"] == "warn" and "4.0 GiB" in m["detail"] and "96.0 GiB" in m["detail"]
    assert "up to Linux 6.9" in m["detail"] and "since Linux 6.10" in m["detail"]


def test_gfx1150_warns_that_hipmallocmanaged_can_be_unsupported():
    v = D.machine_checks({"rocminfo": "  Name:   gfx1150\n  Device Type:  GPU\n"})
    [m] = _by_key(v, "apu_memory")
    assert m["status"] == "warn" and "hipErrorNotSupported" in m["detail"]


def test_mi210_under_sriov_xnack_stays_off_and_says_why():
    # HSA_XNACK=1 set, xnack- printed, a virtual machine: XNACK off (warn), 'set but had no
    # effect', and the SR-IOV verdict names the MI200 limitation.
    facts = {"rocminfo": _text("mi210_sriov_hsa_xnack1.isa.txt"), "env": {"HSA_XNACK": "1"},
             "virtual": "QEMU"}
    v = D.machine_checks(facts)
    [x] = _by_key(v, "xnack")
    assert x["status"] == "warn" and "had no effect" in x["detail"]
    [vm] = _by_key(v, "virtual")
    assert vm["status"] == "warn" and "SR-IOV" in vm["detail"]


def test_kfd_properties_of_an_mi350x_node_report_the_svm_api():
    p = D.parse_kfd_properties(_text("mi350x.kfd_node5.properties"))
    assert p["gpu"] and p["svm"] is True and p["coherent_host_access"] is False
    [h] = _by_key(D.machine_checks({"kfd_nodes": [_text("mi350x.kfd_node5.properties")]}),
                  "hmm")
    assert h["status"] == "ok"


@pytest.mark.parametrize("v,name", [(90010, "gfx90a"), (90402, "gfx942"), (110501, "gfx1151"),
                                    (120500, "gfx1250"), (0, None), ("x", None)])
def test_gfx_target_version_names(v, name):
    assert D.gfx_of_target_version(v) == name


def test_a_kernel_without_hmm_is_a_warning_and_with_it_ok():
    rocm = _text("mi250x.rocminfo.txt")
    bad = D.machine_checks({"rocminfo": rocm, "kernel_config": "CONFIG_HSA_AMD=y\n"
                            "# CONFIG_HSA_AMD_SVM is not set\n"})
    [h] = _by_key(bad, "hmm")
    assert h["status"] == "warn" and "CONFIG_HMM_MIRROR" in h["detail"]
    good = D.machine_checks({"rocminfo": rocm, "kernel_config": "CONFIG_HMM_MIRROR=y\n"
                             "CONFIG_HSA_AMD_SVM=y\nCONFIG_DEVICE_PRIVATE=y\n"})
    assert _by_key(good, "hmm")[0]["status"] == "ok"


def test_gfx1250_has_xnack_fixed_on():
    [x] = _by_key(D.machine_checks({"rocminfo": "  Name:  gfx1250\n  Device Type: GPU\n"}),
                  "xnack")
    assert x["status"] == "ok" and "always on" in x["detail"]


def test_mixed_gpus_warn_that_xnack_needs_all_of_them():
    text = _text("mi250x.rocminfo.txt") + "\n" + _text("rx7900xtx.rocminfo.txt")
    assert _by_key(D.machine_checks({"rocminfo": text}), "mixed_xnack")[0]["status"] == "warn"


def test_gb10_without_framebuffer_memory_is_a_unified_memory_note():
    v = D.machine_checks({"nvidia_smi": ["NVIDIA GB10, [N/A]"]})
    assert _by_key(v, "unified_nvidia")[0]["status"] == "info"
    assert _by_key(D.machine_checks({"nvidia_smi": ["NVIDIA H100 80GB HBM3, 81559 MiB"]}),
                   "unified_nvidia") == []


def test_no_gpu_no_machine_verdicts():
    assert D.machine_checks({"container": "docker", "virtual": "KVM"}) == []


def test_the_report_carries_the_machine_verdicts(monkeypatch):
    monkeypatch.setattr(D, "machine_facts", lambda run_tools=True: {
        "rocminfo": _text("rx7900xtx.rocminfo.txt")})
    rep = D.report("sim", run_tools=False)
    assert any(v["key"] == "xnack" for v in rep["machine"])
    assert any("XNACK" in c["check"] and c["status"] == "warn" for c in rep["checklist"])
    assert "Radeon RX 7900 XTX" in D.format_report(rep)
