"""Solution: notebook 04 (synchronization) -- wait for your stream, not for the device (§3.3)."""
import umkit
from umkit.exercises import nb04


def step(a, stream):
    umkit.increment(a, stream=stream)   # the kernel, on my stream
    stream.synchronize()                # hipStreamSynchronize: only my stream's work
    return float(a.host.sum())          # now the CPU may read


# an event works too:  done = umkit.Event().record(stream); done.synchronize()

# every check asks for your reason when the answer works: one sentence of your own (why=...)
verdicts = [nb04.check_step(step, why="I wait only for the stream my sum runs on, not for the "
                            "unrelated work queued elsewhere")]

if __name__ == "__main__":
    for v in verdicts:
        print(v)
