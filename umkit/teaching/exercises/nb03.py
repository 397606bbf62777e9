"""Checks for notebook 03 (migration, prefetch, advice): advice first, then prefetch."""
from __future__ import annotations

import umkit

from . import Exercise, Verdict, check, passed, tiered

N = (8 << 20) // 4          # 8 MiB of float32: small, quick on every backend


CONCEPT = ("§3.2 and section 4 of the notebook: which advice lets a processor read the "
           "pages without taking them away from the other side -- a copy on each side "
           "(read_mostly), or the pages left where they are and read across the link "
           "(preferred_location + accessed_by)? And §4.4: the prefetch obeys only the advice "
           "that is already there")
ANSWER = ("def prepare(a):\n    a.advise('read_mostly')   # advice first ...\n"
          "    a.prefetch('gpu')         # ... then prefetch: the GPU gets its own copy\n"
          "(on a machine where the GPU may read host memory in place, "
          "a.advise('preferred_location', 'cpu'); a.advise('accessed_by', 'gpu') also "
          "passes: nothing moves, the GPU reads across the link)")


def _grade_prepare(fn) -> Verdict | str:
    a = umkit.managed(N)
    try:
        a.host[:] = 1.0
        umkit.synchronize()
        fn(a)
        umkit.synchronize()
        attrs = a.attributes()
        c0 = umkit.counters()
        total = 0.0
        for _ in range(2):                       # GPU reads, CPU reads, twice
            sink = umkit.touch(a, 4096)
            umkit.synchronize()
            sink.free()
            total += float(a.host[::1024].sum())
        c = umkit.workloads.counter_delta(c0, umkit.counters(), keep_zeros=True)
    finally:
        a.free()
    rm = attrs.get("read_mostly")
    last = attrs.get("last_prefetch_location")
    pref = attrs.get("preferred_location")
    on_gpu = last is not None and getattr(last, "kind", "") == "device"
    cpu_mapped = any(getattr(loc, "kind", "") == "host" for loc in attrs.get("accessed_by") or [])
    if not c:                                     # a real GPU: no counters, judge the attributes
        gpu_mapped = any(getattr(loc, "kind", "") == "device"
                         for loc in attrs.get("accessed_by") or [])
        cpu_home = pref is not None and getattr(pref, "kind", "") == "host"
        if umkit.backend_name() == "hip":
            # amdkfd's read-mostly is a flag, not a copy on each side (ledger:
            # amd.read_mostly.flag): what keeps the pages still is leaving them home on the
            # CPU with the GPU mapping them in place (ledger: amd.peer.accessed_by)
            if cpu_home and gpu_mapped:
                return passed("preferred location CPU + accessed_by GPU: the pages stay in host "
                              "memory and the GPU reads them in place -- on AMD the setup that "
                              "moves nothing (faults not counted on a real GPU; run on sim)")
            if rm and on_gpu:
                return ("on AMD read_mostly is a flag on the range, not a copy on each side: "
                        "each CPU read still migrates the pages back. Leave them home instead: "
                        "preferred_location 'cpu' + accessed_by 'gpu'")
        elif rm and on_gpu:
            return passed("read_mostly + prefetch to the GPU: each side keeps its own copy "
                          "(faults not counted on a real GPU; run on sim to see them)")
        if not on_gpu:
            return ("the range was never prefetched to the GPU (attributes: "
                    f"last_prefetch_location={last}): inhale before the GPU reads")
        return ("the pages are on the GPU, but no advice lets the CPU read them without "
                "pulling them back: each CPU read will migrate them again")
    gf, cf = c.get("gpu_faults", 0), c.get("cpu_faults", 0)
    moved = c.get("bytes_h2d", 0) + c.get("bytes_d2h", 0)
    if gf == 0 and cf == 0 and moved == 0:
        how = ("read_mostly, then prefetch: both sides keep a copy (duplicates) and read locally "
               "-- NVIDIA's read-mostly. On AMD, amdkfd's read-mostly is a flag on the range "
               "(KFD_IOCTL_SVM_FLAG_GPU_READ_MOSTLY, include/uapi/linux/kfd_ioctl.h: 'GPUs mostly "
               "read ... but writes fault'), not this duplication: try the profile's own answer in "
               "section 4"
               if rm else "no faults: the pages stay in host memory and the GPU reads all of "
                          "them over the link on every pass (accessed_by for the GPU: zero-copy) "
                          "-- it works, but each GPU read pays the link; read_mostly, then "
                          "prefetch gives each side a local copy instead")
        return passed(how)
    parts = []
    if gf:
        parts.append(f"the GPU faulted {gf} times" + (
            " -- nothing was on the GPU before it read" if not on_gpu
            else " (the pages the CPU pulled back had to fault in again: ping-pong)" if cf
            else ""))
    if cf:
        if rm and on_gpu:
            parts.append(f"the CPU faulted {cf} times although read_mostly is set: look at the "
                         "order of your two calls")
        elif not rm and cpu_mapped:
            parts.append(f"the CPU faulted {cf} times although accessed_by is set for the CPU: "
                         "on this card the CPU can't read GPU memory in place, so each CPU read "
                         "still pulled the pages back")
        else:
            parts.append(f"the CPU faulted {cf} times: each CPU read pulled the pages back")
    if moved and not parts:
        parts.append(f"{moved} B still moved between CPU and GPU")
    if pref is not None and not rm and not cpu_mapped:
        parts.append(f"(preferred_location={pref} alone still migrates on access)")
    return "; ".join(parts)


PREPARE = Exercise(
    name="nb03.prepare", argument="prepare", kind="function", concept=CONCEPT, answer=ANSWER,
    none="{argument} is None: write def prepare(a): ... (advice and/or prefetch)",
    wrong_type="{argument} should be a function of one array, got {type}",
    call="prepare(a)", grader=_grade_prepare)


@tiered
def check_prepare(fn) -> Verdict:
    """Exercise 03: ``fn(a)`` prepares a managed array that the CPU has just filled, so that
    afterwards the GPU reads all of it and then the CPU reads all of it -- again and again --
    with no page faults on either side and no page moving back and forth."""
    return check(PREPARE, fn)
