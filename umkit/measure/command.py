"""``umkit measure run | fit | evaluate | report`` -- the measurement pipeline's command line.

* ``run NAME [ARGS]``: one measurement program of :mod:`umkit.measure.runs` (``--list`` names
  them, with the kind of data each writes: fit, validation, speed, check, investigation);
* ``fit MANIFEST``: a simulator profile from its manifest and the committed data
  (:mod:`umkit.measure.fitting`); ``--check`` says whether the profile file is what the fit
  makes, ``--write`` rewrites it, ``--out`` writes the fit elsewhere;
* ``evaluate RUN``: a recorded GPU run re-predicted by the simulator as it is now, fit set and
  validation set apart (no GPU: an evaluation of the model against recorded data);
* ``report RESULTS``: a GPU run's ``summary.json`` / ``summary.md``; ``--index`` rewrites
  ``benchmarks/results/INDEX.md``.
"""
from __future__ import annotations

import sys
from pathlib import Path

from ..errors import InvalidArgument


def add_parser(sub) -> None:
    """The ``measure`` subcommand and its four verbs, on the main parser's subparsers."""
    m = sub.add_parser("measure", help="the measurement pipeline: run a measurement, fit a "
                                       "profile, evaluate the model, report a GPU run")
    verbs = m.add_subparsers(dest="verb", required=True)
    r = verbs.add_parser("run", help="run one measurement program (--list names them)",
                         add_help=False)
    r.add_argument("name", nargs="?", help="the program (umkit measure run --list)")
    r.add_argument("--list", action="store_true", help="name every program and its kind")
    r.add_argument("-h", "--help", action="store_true", dest="show_help",
                   help="this help; NAME --help: the program's own")
    r.add_argument("args", nargs="...", help="the program's own arguments (NAME --help)")
    r.set_defaults(func=cmd_run)
    f = verbs.add_parser("fit", help="a sim profile from its manifest and the committed data")
    f.add_argument("manifest", help="a fit manifest, e.g. benchmarks/fits/h200-pcie5.json")
    g = f.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true",
                   help="exit 1 when the profile file differs from what the fit makes")
    g.add_argument("--write", action="store_true", help="rewrite the profile file the manifest names")
    g.add_argument("--out", help="write the fitted profile here instead")
    f.add_argument("--redesign", action="store_true",
                   help="compute the through-the-simulator stage's responses again with the "
                        "simulator of this checkout (about ten minutes on two cores) and the "
                        "advice stage's baseline with it")
    f.add_argument("--design-out", help="with --redesign: keep the new design in this file")
    f.add_argument("--force", action="store_true", help="replace a file already at --out")
    f.set_defaults(func=cmd_fit)
    e = verbs.add_parser("evaluate", help="re-predict a recorded GPU run with the model as it "
                                          "is now (fit and validation sets apart)")
    e.add_argument("run", help="a .ci/gpu results folder (benchmarks/results/...)")
    e.add_argument("--profile", help="a sim profile to predict with (default: the run's)")
    e.add_argument("--no-umperf", action="store_true", help="leave out the UnifiedMemoryPerf table")
    e.add_argument("--umperf-run", help="take umperf.json from this run instead")
    e.add_argument("--json", help="also write the evaluation here")
    e.add_argument("--force", action="store_true", help="replace a file already at --json")
    e.add_argument("--quiet", action="store_true", help="summaries only")
    e.set_defaults(func=cmd_evaluate)
    p = verbs.add_parser("report", help="summarise a GPU run; --index rewrites the results index")
    p.add_argument("results", nargs="?", help="the run's results folder")
    p.add_argument("--free-before", type=int, default=0, help="free GPU memory before the run (B)")
    p.add_argument("--free-after", type=int, default=0, help="free GPU memory after the run (B)")
    p.add_argument("--steps", default="", help="NAME=EXIT:SECONDS,... as .ci/gpu writes them")
    p.add_argument("--index", action="store_true",
                   help="rewrite benchmarks/results/INDEX.md and the targets table of "
                        "benchmarks/README.md (needs the checkout)")
    p.set_defaults(func=cmd_report)


def cmd_run(args) -> int:
    from . import runs
    if args.show_help:
        print("usage: umkit measure run [--list] NAME [ARGS ...]\n\nRun one measurement program; "
              "NAME --help shows its own arguments. The programs:")
        args.list, args.name, args.args = True, None, []
    if args.list or args.name is None:
        if args.list and (args.name or args.args):
            raise InvalidArgument("--list takes nothing after it", argument="--list",
                                  hint="umkit measure run --list")
        if not args.list and args.name is None:
            print("umkit measure run: name the program to run:", file=sys.stderr)
        for name, (module, kind, what) in runs.RUNS.items():
            print(f"{name:<14}{kind:<14}{what}", file=sys.stdout if args.list else sys.stderr)
        return 0 if args.list else 2
    return runs.run(args.name, list(args.args))


def _clean(text) -> str:
    """A line for the terminal: control characters shown escaped, never obeyed."""
    from .. import validate as V
    return V.clean(str(text), 4000)


def _output(value, flag: str, force: bool) -> Path:
    """A JSON file a command will write, checked before any work (a folder that is there, a
    .json name, nothing in the way unless --force)."""
    from .. import validate as V
    from ..results import files
    p = V.output_path(value, flag, (".json",))
    files.check_free(p, flag, force, "--force")
    return p


def _not_an_input(path: Path, inputs: set, name: str) -> None:
    """A fit never writes over a file it reads (its manifest, a data file, the design)."""
    if Path(path).resolve() in inputs:
        raise InvalidArgument(f"{name} names {_clean(path)}, a file the fit reads", argument=name,
                              hint="write the profile to its own file")


def _a_profile_or_nothing(path: Path) -> None:
    """--write replaces a profile file, nothing else that is there."""
    from ..results import read_json
    if not path.exists():
        return
    try:
        doc = read_json(path, argument="writes")
    except InvalidArgument:
        doc = None
    if not (isinstance(doc, dict) and isinstance(doc.get("params"), dict)):
        raise InvalidArgument(f"writes names {_clean(path)}, which is there and is not a profile",
                              argument="writes", hint="name the profile's file in the manifest")


def cmd_fit(args) -> int:
    from ..results import files
    from .fitting import Manifest, differences, fit_profile, render
    man = Manifest(args.manifest)
    if args.design_out and not args.redesign:
        raise InvalidArgument("--design-out keeps a design that --redesign computes",
                              argument="--design-out", hint="add --redesign, or leave it out")
    target = man.target
    inputs = man.inputs()
    if args.write:
        from .. import validate as V
        V.output_path(target, "writes", (".json",))    # a folder that is there, a regular file
        _not_an_input(target, inputs, "writes")
        _a_profile_or_nothing(target)
    out = _output(args.out, "--out", args.force) if args.out is not None else None
    design_out = _output(args.design_out, "--design-out", args.force) \
        if args.design_out is not None else None
    for p, flag in ((out, "--out"), (design_out, "--design-out")):
        if p is not None:
            _not_an_input(p, inputs, flag)
    keep = {}
    doc = fit_profile(man, redesign=args.redesign, log=lambda line: print(_clean(line)), keep=keep)
    if design_out:
        import json
        files.write(design_out, json.dumps(keep["design"], indent=0) + "\n", argument="--design-out",
                    exists="replace")
        print(f"wrote {_clean(design_out)}")
    if out:
        files.write(out, render(doc), argument="--out", exists="replace")
        print(f"wrote {_clean(out)}")
        return 0
    if args.write:
        files.write(target, render(doc), argument="--write", exists="replace")
        print(f"wrote {_clean(man.doc['writes'])}")
        return 0
    diff = differences(doc, target)
    if not diff:
        print(f"{_clean(man.doc['writes'])} is what {_clean(Path(args.manifest).name)} fits: every "
              "parameter's value, unit and source")
        return 0
    print(f"{_clean(man.doc['writes'])} is not what the fit makes ({len(diff)} differences):")
    for line in diff:
        print("  " + _clean(line))
    return 1 if args.check else 0


def cmd_evaluate(args) -> int:
    from . import evaluate
    args.run = evaluate.folder(args.run, "run")
    if args.umperf_run is not None:
        args.umperf_run = evaluate.folder(args.umperf_run, "--umperf-run")
    if args.json is not None:
        args.json = _output(args.json, "--json", args.force)
        inputs = {(f / name).resolve() for f in (args.run, args.umperf_run) if f is not None
                  for name in ("calibrate_compare.json", "umperf.json")}
        if args.json.resolve() in inputs:
            raise InvalidArgument("--json names a file the evaluation reads", argument="--json",
                                  hint="write the evaluation beside the run, e.g. evaluation.json")
    return evaluate.main(args)


def cmd_report(args) -> int:
    from . import report
    if args.index:
        if args.results or args.steps or args.free_before or args.free_after:
            raise InvalidArgument("--index rewrites the results index and takes nothing else",
                                  argument="--index", hint="umkit measure report --index")
        print(report.index(), end="")
        return 0
    hint = "umkit measure report RESULTS_DIR --steps ..., or --index"
    if not args.results:
        raise InvalidArgument("report needs the results folder, or --index", argument="results",
                              hint=hint)
    from .. import validate as V
    for flag, v in (("--free-before", args.free_before), ("--free-after", args.free_after)):
        V.integer(v, flag, lo=0, hi=1 << 50, hint=f"{flag}: the GPU's free memory in bytes, as "
                  ".ci/gpu reads it (0 when it could not)")
    return report.summarise(args.results, args.free_before, args.free_after, report.steps(args.steps))

