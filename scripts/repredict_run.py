"""Re-predict a recorded GPU run on sim, offline, and write (or check) the predictions.

    python scripts/repredict_run.py RUN/calibrate_compare.json OUT.json      # write
    python scripts/repredict_run.py RUN/calibrate_compare.json OUT.json --check

The predictions are model time, so they are the same on every machine: a refactor of the
simulator must leave them bit-identical (``tests/sim/test_frozen_predictions.py``).
"""
import json
import sys

from umkit import runtime


def repredict(path):
    with open(path) as f:
        c = json.load(f)
    m = c["measured"]
    from umkit.measure import calibrate as cmp
    pred = cmp.predict(m["validation"], c["profile"], m.get("device_count", 1),
                       m.get("nbytes", c["nbytes"]), host_speed=c["host_speed"])
    return dict(source=path.replace("\\", "/").split("benchmarks/")[-1], profile=pred["profile"],
                host_speed=pred["host_speed"], fit=pred["fit"], validation=pred["validation"])


if __name__ == "__main__":
    runtime.use("sim", quiet=True)
    got = repredict(sys.argv[1])
    if "--check" in sys.argv:
        with open(sys.argv[2]) as f:
            want = json.load(f)
        bad = [k for s in ("fit", "validation") for k in want[s] if want[s][k] != got[s].get(k)]
        print("identical" if not bad else f"differ: {bad}")
        sys.exit(1 if bad else 0)
    with open(sys.argv[2], "w") as f:
        json.dump(got, f, indent=1, sort_keys=True)
        f.write("\n")
