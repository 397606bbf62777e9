"""The access-owner plan of *your* loop (the article's §5.3 and §7): the table of memory budget,
lifetime and access owner (访问主人) of every buffer, and what each choice would cost.

    with umkit.plan.recorder() as rec:          # or umkit.plan.recorder(ecg=your_ecg_recorder)
        for batch in loader:
            train_step(batch)
            rec.step()
    r = rec.result()
    print(r.table())                           # one row a buffer: budget, lifetime, owner, moved
    adv = r.recommend(profiles=["h200-pcie5", "mi300x"])
    print(adv.table())                         # per buffer: device / managed+prefetch / ...
    adv.plot()                                 # the predicted ECG of each plan
    r.save("my_loop.plan.json")                # `umkit plan my_loop.plan.json` reads it

:mod:`.model` is the vocabulary (a leaf); :mod:`.result` the recorded loop, its table and its
file; :mod:`.recording` records (sim: the engine's per-allocation accounting; cuda: CUPTI's
records by address); :mod:`.advice` holds the rules and the search; :mod:`.instrumentation`
takes the rest of each recorded step apart (the loop's own work, the recording's
instrumentation -- counters on in some steps, off in the others -- and the recorded plan's
memory cost beyond the replay) and says how sure the predicted sizes are; :mod:`.replay`
replays a recording on sim under a plan; :mod:`.picture` draws.
"""
from .model import CHOICES, MOVED, ROLES, Buffer
from .result import PlanResult, load, predict, recommend
from .recording import Recorder
from .advice import Recommendation


def recorder(name: str = "your loop", *, ecg=None, stream=None, counters: bool = True,
             instrument: str = "alternate", warmup: int = 2) -> Recorder:
    """A recorder for your own loop: ``with umkit.plan.recorder() as rec: ... rec.step()``,
    then ``rec.result()`` (a :class:`PlanResult`).  ``ecg``: an ``umkit.ecg.recorder()`` the
    loop already steps (then its ``step()`` marks the steps).  ``instrument``: "alternate"
    (after ``warmup`` steps every other step runs with the counters off, so that their cost is
    measured and left out of the predictions) or "always" (:mod:`umkit.plan.instrumentation`)."""
    return Recorder(name, ecg=ecg, stream=stream, counters=counters, instrument=instrument,
                    warmup=warmup)


def cli(args) -> int:
    """``umkit plan FILE``: the table and the recommendation of a saved recording.  Exit 2 when
    an argument or the file is not usable (nothing is replayed then), as the other commands."""
    import json
    import sys
    from .. import validate as V
    from ..validate import not_a_file
    from ..errors import InvalidArgument, UmkitError
    from ..results import files
    from ..sim.costs import available_profiles
    from .advice import profiles_of, steps_of
    try:             # every argument and the recording before a replay starts
        out = None if args.json is None else V.output_path(args.json, "--json", (".json",))
        force = bool(getattr(args, "force", False))
        if out is not None:        # an existing file is kept unless --force (checked up front)
            files.check_free(out, "--json", force, "--force")
        profiles = None
        if args.profiles is not None:
            profiles = [x.strip() for x in args.profiles.split(",") if x.strip()]
            known = available_profiles()
            bad = [x for x in profiles if x not in known] or ([] if profiles else [args.profiles])
            if bad:
                raise InvalidArgument(f"--profiles: {V.short(bad[0])} is not a sim profile",
                                      argument="--profiles", hint=f"a comma-separated list of {known}")
        why = not_a_file(V.path(args.file, "file"), "file")
        if why:                  # a folder or a FIFO is not "no such file" (nor waited on)
            raise InvalidArgument(why, argument="file",
                                  hint="pass the path PlanResult.save() wrote")
        r = load(args.file)
        profiles_of(r, profiles)          # the recording's own profile too (exit 2 if unknown)
        try:                              # a recording too large to replay: exit 2, up front
            steps_of(r, args.steps)
        except InvalidArgument as e:
            if e.argument != "steps":
                raise
            raise InvalidArgument(e.message.replace("steps=", "--steps ", 1),
                                  argument="--steps",
                                  hint=(e.hint or "").replace("steps=", "--steps ")) from None
    except UmkitError as err:
        print(f"umkit plan: {err}", file=sys.stderr)
        return 2
    print(r.table())
    adv = r.recommend(profiles, steps=args.steps)
    print()
    print(adv.table())
    if out is not None:
        wrote = files.write(out, json.dumps(adv.to_dict(), indent=1) + "\n",
                            argument="--json", force=force, flag="--force")
        print(f"wrote {V.clean(wrote, 400)}")
    return 0


__all__ = ["recorder", "load", "recommend", "predict", "PlanResult", "Buffer", "Recorder",
           "Recommendation", "CHOICES", "ROLES", "MOVED"]
