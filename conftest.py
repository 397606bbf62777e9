"""For every pytest run in this repository -- tests/ and nbval over notebooks/ alike.

The exercises' attempts budget (8 wrong tries, then a reason, then waits) is a learner's guard,
and a learner's kernel opens each set exercise with a set drawn afresh; the project's tests call
the checks many times in one process, and nbval compares the notebooks' committed outputs, which
show the notebook's own sets: both run with the budget off (the budget's own tests turn it on in
a fresh process).  Set here, before any kernel starts, so that it reaches nbval's kernels too.

A learner's record of the exercises (tries, waits, reasons, shown answers) is kept in a file in
their home so that a kernel restart keeps it; the project's tests keep it in the process
(``UMKIT_EXERCISE_RECORD=off``) so that no test writes the developer's home or finds another
test's tries (the record's own tests give each process a file of their own)."""
import os

os.environ.setdefault("UMKIT_EXERCISE_ATTEMPTS", "0")
os.environ.setdefault("UMKIT_EXERCISE_RECORD", "off")
