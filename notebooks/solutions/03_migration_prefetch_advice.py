"""Solution: notebook 03 (migration, prefetch, advice) -- advice first, then prefetch (§4.4)."""
from umkit.exercises import nb03


def prepare(a):
    a.advise("read_mostly")   # declare intent: both sides read, nobody writes -> duplicate pages
    a.prefetch("gpu")         # act: inhale now; the CPU keeps its copy because of the advice


verdicts = [nb03.check_prepare(prepare)]

if __name__ == "__main__":
    for v in verdicts:
        print(v)
