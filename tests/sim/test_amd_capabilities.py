"""What the simulated AMD devices report, as ROCm reports it: one test per rule, naming its
ledger entry."""
import pytest

import umkit


def caps(profile):
    with umkit.using("sim", profile=profile):
        return umkit.capabilities()


@pytest.mark.parametrize("profile", ["mi250x-xnack1", "mi250x-xnack0", "mi250x-coherent", "mi300x",
                                     "mi300a-apu"])
def test_concurrent_managed_access_is_svm_support_whatever_xnack(profile):
    """ledger: amd.attr.concurrent_managed"""
    assert caps(profile)["concurrent_managed_access"] is True


@pytest.mark.parametrize("profile, xnack", [("mi250x-xnack1", True), ("mi250x-xnack0", False),
                                            ("mi250x-coherent", True), ("mi300x", True)])
def test_pageable_memory_access_is_xnack(profile, xnack):
    """ledger: amd.attr.pageable_xnack"""
    c = caps(profile)
    assert c["pageable_memory_access"] is xnack
    assert (c["xnack"]["env"] == "1") is xnack


def test_the_h200_reports_no_direct_host_access_like_the_real_card():
    """The AMD profiles' value is tested per platform in test_amd_platforms.py (ledger:
    amd.attr.direct_host); the H200 profile reports what the real card reported (0)."""
    assert caps("h200-pcie5")["direct_managed_access_from_host"] is False


def test_the_doctor_reads_xnack_from_pageable_access_on_xnack_off():
    """ledger: amd.attr.pageable_xnack: with XNACK off the SVM check is ok and XNACK warns."""
    from umkit.diagnostics import doctor
    with umkit.using("sim", profile="mi250x-xnack0") as b:
        rep = doctor.report(b, run_tools=False)
    st = {c["check"]: c["status"] for c in rep["checklist"]}
    assert st["device 0: managed memory through the kernel driver (SVM/HMM)"] == "ok"
    assert st["XNACK: the GPU can fault managed pages in on demand (§2.2)"] == "warn"
