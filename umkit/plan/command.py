"""``umkit plan FILE``: the command line of the access-owner plan (the table and the
recommendation of a saved recording)."""
from __future__ import annotations

from .result import load


def _same_file(a, b) -> bool:
    """Whether paths ``a`` and ``b`` name one existing file (links and ``..`` followed)."""
    import os
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def cli(args) -> int:
    """``umkit plan FILE``: the table and the recommendation of a saved recording.  Exit 2 when
    an argument or the file is not usable (nothing is replayed then), as the other commands."""
    import json
    import sys
    from .. import validate as V
    from ..validate import not_a_file
    from ..errors import InvalidArgument, UmkitError
    from ..results import files
    from ..sim import available_profiles
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
        if out is not None and _same_file(out, args.file):   # --force too: never the input
            raise InvalidArgument(f"--json {V.clean(args.json, 200)} is the recording being "
                                  "read: writing it would replace the recording",
                                  argument="--json", hint="name another file for --json")
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
