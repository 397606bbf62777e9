"""Solution: notebook 03 (migration, prefetch, advice) -- two arrays, two access patterns.

``a`` is read by both sides, round after round.  On the notebook's card (the MI250X with XNACK on,
whose CPU touch brings GPU-resident pages back) its pages must stay where the CPU reads them:
amdkfd's read_mostly is only a flag on the range, not a copy on each side (ledger:
amd.read_mostly.flag), so a prefetch to the GPU is undone by the CPU's first read.  Leaving the
range in host memory and letting the GPU map it in place moves nothing (ledger:
amd.peer.accessed_by).  On the H200, NVIDIA's read duplication also passes for ``a``:
``a.advise("read_mostly"); a.prefetch("gpu")`` -- advice first, then prefetch (§4.4).

``w`` is read only by the GPU, every round: the demo's winner for ``a`` would make the GPU read it
across the link every round.  Inhale it once, before the first round: a prefetch to the GPU."""
from umkit.exercises import nb03


def prepare(a, w):
    a.advise("preferred_location", "cpu")   # a: declare intent: the pages live in host memory ...
    a.advise("accessed_by", "gpu")          # ... and the GPU maps them where they are (zero copy)
    w.prefetch("gpu")                       # w: only the GPU reads it: move it to VRAM once


# every check asks for your reason when the answer works: one sentence of your own (why=...)
verdicts = [nb03.check_prepare(prepare, why="a is read by both sides, so the GPU maps it where it "
                               "is; w is only the GPU's, so it moves once")]

if __name__ == "__main__":
    for v in verdicts:
        print(v)
