"""Checks for notebook 01 (UMD and KMD): which layer does what, and why batching matters."""
from __future__ import annotations

import math
from numbers import Integral, Real

from ...errors import UmkitError
from .grading import Exercise, Labels, Verdict, check, model_sealed, rng_option, tiered

#: the trace operations of the simulator, the layer(s) accepted for each, and why (the article's
#: §1.1, checked against the ROCm sources).  The rule is one for all: a call that ends in a
#: system call into the kernel driver (an ioctl on /dev/kfd), a page fault or a page-table edit
#: reaches the KMD; one that only writes into user-space memory stays in the UMD.
LAYERS = {
    "malloc_managed": (("kmd", "umd"),
                       "hipMallocManaged creates no physical page, but on ROCm it does reach the "
                       "kernel driver: with HMM support the runtime reserves address space and "
                       "registers it as an SVM range with KFD (ROCm/clr "
                       "rocclr/device/rocm/rocmemory.cpp Buffer::create -> Device::SvmAllocInit "
                       "-> hsa_amd_svm_attributes_set -> the AMDKFD_IOC_SVM ioctl, "
                       "kfd_svm.c svm_range_set_attr); without HMM it becomes pinned host memory "
                       "(Device::hostAlloc), also a kernel-driver call. The article's 'the UMD "
                       "records the range, the KMD maps pages later' describes the pages, not "
                       "the call"),
    "malloc_device": (("kmd",), "hipMalloc maps real VRAM: only the kernel driver owns VRAM and "
                                "the page tables"),
    "first_touch": (("kmd",), "the first CPU touch of a fresh page is a page fault (缺页): the OS "
                              "kernel zero-fills a physical page and maps it"),
    "increment_kernel": (("umd",), "a kernel launch is a packet written into a command queue in "
                                   "user memory and a doorbell write: no trap into the kernel"),
    "fault_batch": (("kmd",), "GPU page faults are serviced by the kernel driver: it migrates "
                              "pages and updates the GPU page table (amdkfd "
                              "svm_range_restore_pages)"),
    "prefetch": (("kmd",), "the migration behind hipMemPrefetchAsync moves physical pages and "
                           "edits page tables: kernel-driver work (the API call itself is queued "
                           "in the UMD)"),
    "advise": (("kmd",), "hipMemAdvise stores the policy with the range in the kernel driver "
                         "(ROCm/clr Device::SetSvmAttributes -> hsa_amd_svm_attributes_set -> "
                         "the KFD SVM ioctl), moving no page yet"),
}
_ALIASES = {"user": "umd", "user-mode": "umd", "usermode": "umd", "umd": "umd",
            "用户态": "umd", "用户态驱动": "umd", "kernel": "kmd", "kernel-mode": "kmd",
            "kernelmode": "kmd", "kmd": "kmd", "内核态": "kmd", "内核态驱动": "kmd"}
_RULE = ("the rule (§1.1): a call that ends in a system call into the kernel driver (an ioctl "
         "on /dev/kfd), a page fault or a page-table edit reaches the KMD; one that only writes "
         "into the process's own memory (a queue packet, a table entry) stays in the UMD. Run "
         "the trace cell and read each line's layer")


def _layers_passed(answers: dict) -> str:
    note = ""
    if _ALIASES.get(str(answers["malloc_managed"]).strip().lower()) == "umd":
        note = (" One nuance: you put hipMallocManaged in the UMD, as the article does (with XNACK "
                "on no page is created). On ROCm the call still ends in one KFD ioctl that registers the "
                "range -- 'kmd' is the stricter answer: " + LAYERS["malloc_managed"][1] + ".")
    return ("all seven right: launches and queue writes stay in user space (UMD); "
            "everything that touches physical pages, page tables or the driver's range "
            "policy reaches the KMD." + note)


LAYERS_EXERCISE = Exercise(
    why_terms=('kernel driver', 'ioctl', 'page table', 'page fault', 'system call', 'user space',
               'kmd', 'umd', '内核', '页表', '缺页', '系统调用', '用户态'),
    name="nb01.layers", argument="answers", kind="labels", concept=_RULE,
    wrong_type="{argument} should be a dict like {{'malloc_managed': 'umd', ...}}, got {type}",
    labels=Labels(
        right={op: ok for op, (ok, _) in LAYERS.items()},
        lines={op: f"{op} is {ok[0].upper()}: {why}" for op, (ok, why) in LAYERS.items()},
        label=lambda v: _ALIASES.get(str(v).strip().lower()),
        partial=True,
        unknown="unknown operations {unknown}: use the keys {items}",
        all_none="every answer is still None: write 'umd' or 'kmd' for each operation",
        bad_label="{item}: {value!r} is neither 'umd' nor 'kmd'",
        # the set is graded whole (the framework's sentence): naming or counting the wrong ones
        # lets a loop flip them one at a time
        incomplete="still None: {missing}. Answer every operation; the set is graded whole"),
    passed=_layers_passed)


@tiered
def check_layers(answers) -> Verdict:
    """Exercise 01a: ``answers`` maps each operation of :data:`LAYERS` to 'umd' or 'kmd'."""
    return check(LAYERS_EXERCISE, answers)


TRIPS_CONCEPT = ("§3.2 and section 4 of the notebook: one trip into the kernel carries up to "
                 "batch_max faults, a partly filled batch still costs a whole trip, and no fault "
                 "costs no trip")
_TRIPS_ANSWER = ("def transitions(n_faults, batch_max):\n"
                "    return -(-n_faults // batch_max)   # ceiling division (math.ceil works too)")
#: (n_faults, batch_max): the awkward cases every attempt checks (the first is the notebook's)
TRIPS_CASES = ((16384, 256), (1, 256), (256, 256), (257, 256), (1000, 1), (10, 7), (0, 256),
               (1024, 256), (100, 7))


def trips_cases(rng=None) -> list[tuple[int, int]]:
    """One attempt's cases: :data:`TRIPS_CASES`, then four drawn afresh (a lookup table of the
    fixed cases does not pass).  ``rng``: a ``random.Random`` (default: a fresh attempt_rng)."""
    rng = rng_option(rng, "nb01.transitions")
    drawn = []
    for _ in range(4):
        b = rng.choice((1, 3, 7, 32, 100, 256, 1000))
        drawn.append((rng.randrange(0, 50 * b + 1), b))
    return list(TRIPS_CASES) + drawn


def _judge_trips(got, want: int, n: int, b: int, call: str) -> str | None:
    if isinstance(got, bool) or not isinstance(got, Real):
        return f"{call} returned {got!r}; return how many trips into the kernel the driver makes"
    if not math.isfinite(float(got)):
        return (f"{call} returned {got!r}: a count of trips into the kernel is a finite number "
                "(0 or more)")
    follow = (f"{call} returned {got!r}, which is not the driver's count. Follow every fault: "
              "which trip into the kernel services each one, and how many trips is that?")
    if not isinstance(got, Integral) and float(got) != int(got):
        return follow
    if int(got) == want:
        return None
    if n and int(got) == n // b:
        return follow
    elif n == 0:
        hint = "no faults, no trip into the kernel"
    elif int(got) == n:
        hint = "that is one trip per fault: the driver batches up to batch_max faults"
    elif int(got) == n * b:
        hint = "a batch *holds* up to batch_max faults: how many batches do the faults fill?"
    else:
        hint = "count the batches the driver sends"
    return f"{call} returned {got} trips: {hint}"      # not the expected count: it gives the rule


TRANSITIONS = Exercise(
    why_terms=('batch', 'trip', 'round', 'partly', 'partial', 'ceil', 'each fault', '批', '趟',
               '向上取整', '每次缺页', '不满'),
    name="nb01.transitions", argument="transitions", kind="function", concept=TRIPS_CONCEPT,
    answer=_TRIPS_ANSWER,
    none="{argument} is None: write def transitions(n_faults, batch_max): ...",
    wrong_type="{argument} should be a function, got {type}",
    cases=lambda **_: trips_cases(), call="transitions({0}, {1})", reference=lambda n, b: -(-n // b),
    judge=_judge_trips,
    raised=((UmkitError, "{call} called umkit and got {type} -- count the trips from n_faults and "
                         "batch_max, not with a simulator run"),
            (Exception, "{call} raised {type}: {exception}")),
    passed=(f"ceil(n_faults / batch_max): 16384 faults cost {math.ceil(16384 / 256)} "
            "trips into the kernel in batches of 256, but 16384 trips one by one"))


@tiered
def check_transitions(fn) -> Verdict:
    """Exercise 01b: ``fn(n_faults, batch_max)`` returns how many times the driver has to enter
    the kernel to service ``n_faults`` GPU faults in batches of at most ``batch_max``.  While
    ``fn`` runs, no simulator starts (:func:`~umkit.teaching.exercises.grading.model_sealed`)."""
    return check(TRANSITIONS, model_sealed(fn, _TRIPS_SEAL_WHY))


#: what the sealed simulator tells a count that tries to run one
_TRIPS_SEAL_WHY = "count the trips from n_faults and batch_max"
