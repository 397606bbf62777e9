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


@pytest.mark.parametrize("profile, in_place", [("mi300a-apu", True), ("mi250x-coherent", True),
                                               ("mi300x", False), ("mi250x-xnack1", False),
                                               ("mi250x-xnack0", False), ("h200-pcie5", False)])
def test_direct_host_access_follows_what_the_profile_models(profile, in_place):
    """ledger: amd.attr.direct_host, amd.vram.coherent, amd.olcf.migrate_on_touch (mi250x-coherent
    models device-coherent VRAM; mi250x-xnack1/xnack0 follow OLCF's migrate-on-touch table);
    the H200 value is what the real card reported."""
    assert caps(profile)["direct_managed_access_from_host"] is in_place


def test_the_doctor_reads_xnack_from_pageable_access_on_xnack_off():
    """ledger: amd.attr.pageable_xnack: with XNACK off the SVM check is ok and XNACK warns."""
    from umkit.diagnostics import doctor
    with umkit.using("sim", profile="mi250x-xnack0") as b:
        rep = doctor.report(b, run_tools=False)
    st = {c["check"]: c["status"] for c in rep["checklist"]}
    assert st["device 0: managed memory through the kernel driver (SVM/HMM)"] == "ok"
    assert st["XNACK: the GPU can fault managed pages in on demand (§2.2)"] == "warn"
