"""Solution: notebook 03 (migration, prefetch, advice) -- an array both sides read.

On the notebook's card (the MI250X with XNACK on, whose CPU touch brings GPU-resident pages back)
the pages must stay where the CPU reads them: amdkfd's read_mostly is only a flag on the range, not
a copy on each side (ledger: amd.read_mostly.flag), so a prefetch to the GPU is undone by the CPU's
first read.  Leaving the range in host memory and letting the GPU map it in place moves nothing
(ledger: amd.peer.accessed_by).  On the H200, NVIDIA's read duplication also passes:
``a.advise("read_mostly"); a.prefetch("gpu")`` -- advice first, then prefetch (§4.4)."""
from umkit.exercises import nb03


def prepare(a):
    a.advise("preferred_location", "cpu")   # declare intent: the pages live in host memory ...
    a.advise("accessed_by", "gpu")          # ... and the GPU maps them where they are (zero copy)


verdicts = [nb03.check_prepare(prepare)]

if __name__ == "__main__":
    for v in verdicts:
        print(v)
