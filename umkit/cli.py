"""``umkit doctor | ecg | calibrate | workspace`` -- the command line."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import validate as V
from .backends import registry
from .errors import InvalidArgument, InvalidType, UmkitError
from .results import files


def _use(args):
    """Select the backend for a command: --backend, else UMKIT_BACKEND, else auto-detect.
    sim-only options (--profile, model-only timing) apply only when the choice is sim."""
    import umkit
    from .backends import registry as detect
    name, _ = detect.choose(getattr(args, "backend", None))
    if name != "sim":
        if getattr(args, "profile", None):
            print("umkit: --profile applies to the sim backend only", file=sys.stderr)
            return None
        return umkit.use(name, quiet=True)
    opts = {}
    if getattr(args, "profile", None) is not None:      # --profile '' is refused, not ignored
        opts["profile"] = args.profile
    if getattr(args, "model_only", False):
        opts["compute"] = False
    return umkit.use("sim", quiet=True, **opts)


def cmd_doctor(args) -> int:
    from .diagnostics.doctor import doctor
    return doctor(args.backend)


def cmd_ecg(args) -> int:
    from . import ecg
    from .ecg import picture as plots
    from . import validate as V
    from .errors import UmkitError
    MAX_MIB = 1 << 16
    try:             # every argument, and both output paths, before the run starts
        V.integer(args.steps, "--steps", lo=1, hi=ecg.MAX_STEPS,
                  hint=f"--steps between 1 and {ecg.MAX_STEPS}")
        V.integer(args.size, "--size", lo=1, hi=MAX_MIB, hint=f"--size in MiB, 1 to {MAX_MIB}")
        V.integer(args.every, "--every", lo=1, hi=ecg.MAX_STEPS,
                  hint=f"--every between 1 and {ecg.MAX_STEPS}, e.g. --every 10")
        if args.strategies is not None:
            names = [n.strip() for n in args.strategies.split(",")]
            if not any(names):
                raise V.InvalidArgument("--strategies is empty", argument="--strategies",
                                        hint=f"a comma-separated subset of "
                                             f"{','.join(ecg.ECG_STRATEGIES)}, or leave it out")
            strategies = V.names(names, "--strategies", ecg.ECG_STRATEGIES)
        else:
            strategies = ecg.ECG_STRATEGIES
        if args.json is not None:
            V.output_path(args.json, "--json", (".json",))
        if args.out is not None:
            V.output_path(args.out, "--out", (".png", ".svg", ".pdf"))
        targets = _ecg_targets(args)
    except UmkitError as err:
        say("umkit ecg", err)
        return 2
    args.model_only = True
    if _use(args) is None:
        return 2
    res = ecg.record(steps=args.steps, nbytes=args.size << 20, pattern=args.pattern,
                     every=args.every, progress=None if args.quiet else ecg.text_progress(),
                     strategies=strategies)
    print(ecg.table(res))
    mode = "number" if args.numbered else "refuse"
    items = []                  # the JSON and the picture: saved as one (one number for both)
    if args.json:
        items.append((Path(args.json) if args.numbered else targets["--json"],
                      json.dumps(res, indent=1, sort_keys=True), "--json"))
    if args.out:
        import io

        import matplotlib
        matplotlib.use("Agg")
        fig = plots.ecg(res)
        buf = io.BytesIO()
        fig.savefig(buf, dpi=110, bbox_inches="tight", format=Path(args.out).suffix[1:].lower())
        items.append((Path(args.out) if args.numbered else targets["--out"], buf.getvalue(),
                      "--out"))
    if items:
        for wrote in files.write_all(items, exists=mode, force=args.force, flag="--force"):
            print(f"wrote {V.clean(wrote, 400)}")
    return 0


def _ecg_targets(args) -> dict:
    """Where ``umkit ecg`` will write, checked before the run: an existing file is kept (exit 2
    naming ``--force``) unless ``--force``; with ``--numbered`` (``bash run.sh ecg``) the first
    number free for both files (``ecg-2.json`` and ``ecg-2.png``), so a picture and its JSON
    keep the same name."""
    named = {k: v for k, v in (("--json", args.json), ("--out", args.out)) if v}
    if args.force and args.numbered:
        raise V.InvalidArgument("--force and --numbered together", argument="--numbered",
                                hint="--force replaces the files, --numbered keeps them: pick one")
    if not args.numbered:
        for k, v in named.items():
            files.check_free(v, k, args.force, "--force")
        return {k: Path(v) for k, v in named.items()}
    for n in range(1, files.MAX_NUMBERED + 1):
        cand = {k: Path(v) if n == 1 else files.numbered(Path(v), n) for k, v in named.items()}
        if not any(os.path.lexists(p) for p in cand.values()):
            return cand
    raise V.InvalidArgument(f"{files.MAX_NUMBERED} numbered ECGs exist already",
                            argument="--numbered", hint="move the old files away")


def cmd_calibrate(args) -> int:
    from .measure import calibrate
    from . import validate as V
    from .errors import UmkitError
    try:             # every argument and path before a measurement starts
        V.integer(args.size, "--size", lo=1, hi=1 << 16, hint="--size in MiB, 1 to 65536")
        if args.out is not None:
            V.output_path(args.out, "--out", (".json",))
            files.check_free(args.out, "--out", args.force, "--force")
        if args.measured is not None:
            args.measured_doc = _read_json(args.measured, "--measured")
    except UmkitError as err:
        say("umkit calibrate", err)
        return 2
    return calibrate.main(args)


def _read_json(path: str, name: str, limit: int = 64 << 20):
    """A JSON file the user named: a regular file, at most ``limit`` bytes, UTF-8 JSON."""
    import os

    from . import validate as V
    from .validate import not_a_file
    p = V.path(path, name)
    why = not_a_file(p, name)
    if why:
        raise V.InvalidArgument(why, argument=name, hint="pass the JSON an earlier run wrote")
    if os.path.getsize(p) > limit:
        raise V.InvalidArgument(f"{name} {path!r} is larger than {limit >> 20} MiB",
                                argument=name, hint="pass the JSON an earlier run wrote")
    try:
        return json.loads(p.read_bytes().decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise V.InvalidArgument(f"{name} {path!r} is not JSON ({type(e).__name__})",
                                argument=name, hint="pass the JSON an earlier run wrote") from None
    except OSError as e:
        raise V.InvalidArgument(f"{name} {path!r} cannot be read ({e.strerror})",
                                argument=name, hint="pass the JSON an earlier run wrote") from None


def cmd_port_check(args) -> int:
    from .diagnostics import portcheck
    if args.max_findings is not None and args.max_findings < 0:
        print(f"umkit port-check: --max-findings {args.max_findings}: give 0 (every finding) or "
              "a positive number", file=sys.stderr)
        return 2
    return portcheck.main(args)


def cmd_plan(args) -> int:
    from .plan.command import cli
    return cli(args)


def cmd_workspace(args) -> int:
    from .errors import UmkitError
    from .teaching import workspace
    try:
        _workspace_args(args)
    except UmkitError as err:
        say("umkit workspace", err)
        return 2
    return workspace.main(args)


def _workspace_args(args) -> None:
    """``--src`` and ``--dest`` checked before anything is copied: both resolvable (a loop of
    links is refused, not a traceback), neither inside the other, and ``--src`` holding the
    course's notebooks (an empty folder or /proc is a mistake, not "0 new")."""
    where = {}
    for name, value in (("--src", args.src), ("--dest", args.dest)):
        if value is None:
            continue
        p = V.path(value, name)
        try:
            where[name] = p.resolve()
        except (OSError, RuntimeError) as e:   # RuntimeError: a loop of symbolic links
            raise V.InvalidArgument(f"{name} {V.short(str(value))} cannot be followed "
                                    f"({getattr(e, 'strerror', None) or 'a loop of links'})",
                                    argument=name, hint="name a plain folder") from None
    src, dest = where.get("--src"), where.get("--dest")
    if src is None:
        return
    if dest is not None and (src == dest or dest in src.parents):
        raise V.InvalidArgument(f"--src {V.short(args.src)} lies inside --dest "
                                f"{V.short(args.dest)}: the copies would mix with the sources",
                                argument="--src", hint="e.g. --src notebooks --dest workspace")
    editions = [src] + ([src / args.lang] if getattr(args, "lang", "en") != "en" else [])
    try:
        found = any(next(d.glob("*.ipynb"), None) is not None for d in editions if d.is_dir())
    except OSError:
        found = False
    if not found:
        raise V.InvalidArgument(f"--src {V.short(args.src)} holds no notebooks (*.ipynb)",
                                argument="--src",
                                hint="run from the repository root, or --src path/to/notebooks")


def parser() -> argparse.ArgumentParser:
    """The command line's parser (subcommands doctor, ecg, calibrate, port-check, plan, measure,
    workspace)."""
    p = argparse.ArgumentParser(prog="umkit", description="GPU unified memory, taught and made usable")
    from .version import __version__
    p.add_argument("--version", action="version", version=f"umkit {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("doctor", help="environment report: backend, versions, capabilities")
    d.add_argument("--backend", choices=registry.NAMES)
    d.set_defaults(func=cmd_doctor)
    e = sub.add_parser("ecg", help="the memory ECG (显存心电图): step times per strategy")
    e.add_argument("--steps", type=int, default=50)
    e.add_argument("--size", type=int, default=64, help="MiB per job (default 64)")
    e.add_argument("--pattern", default="cpu_stats", choices=("gpu_only", "cpu_stats", "cpu_edits"))
    e.add_argument("--every", type=int, default=10, help="cpu_stats: every k steps")
    e.add_argument("--strategies", help="comma-separated subset")
    e.add_argument("--out", help="picture path (.png, .svg or .pdf)")
    e.add_argument("--json", help="JSON path")
    e.add_argument("--force", action="store_true",
                   help="replace files already at --out/--json (default: keep them, exit 2)")
    e.add_argument("--numbered", action="store_true",
                   help="keep files already at --out/--json and write ecg-2.png, ecg-2.json, ...")
    e.add_argument("--backend", choices=registry.NAMES)
    e.add_argument("--profile", help="sim hardware profile (default h200-pcie5)")
    e.add_argument("--quiet", action="store_true")
    e.set_defaults(func=cmd_ecg)
    c = sub.add_parser("calibrate", help="measure the real card and fit a sim profile")
    c.add_argument("--compare", action="store_true",
                   help="run the kit's workloads on the real backend and on sim; predicted/measured")
    c.add_argument("--backend", choices=registry.GPU_NAMES)
    c.add_argument("--profile", help="profile to compare against (default: the fitted one)")
    c.add_argument("--out", help="where to write the profile / comparison JSON")
    c.add_argument("--force", action="store_true",
                   help="replace a file already at --out (default: keep it, exit 2)")
    c.add_argument("--size", type=int, default=256, help="MiB per micro-benchmark")
    c.add_argument("--measured", help="with --compare: re-predict the raw measurements of an "
                   "earlier GPU run (its --out JSON) instead of measuring")
    c.add_argument("--host-speed", type=float, default=None,
                   help="with --compare: predict with this host speed (x the profile's host-side "
                        "times) instead of fitting it on the fit set")
    c.set_defaults(func=cmd_calibrate)
    pc = sub.add_parser("port-check", help="what changes when these CUDA unified-memory "
                                           "sources run on AMD (exit 1 when something breaks)")
    pc.add_argument("paths", nargs="+", metavar="FILE_OR_DIR",
                    help="CUDA or HIP sources (.cu .cuh .hip .c .cc .cpp .cxx .h .hh .hpp .hxx .inl) or folders holding them")
    pc.add_argument("--target", default="mi250x",
                    choices=("mi250x", "mi250x-coherent", "mi300x", "mi300a"))
    pc.add_argument("--xnack", default="off", choices=("on", "off"),
                    help="HSA_XNACK of the process (default off, as on MI200/MI300)")
    pc.add_argument("--format", default="text", choices=("text", "markdown", "json"))
    pc.add_argument("--max-findings", type=int, default=None, metavar="N",
                    help="show at most N findings of a file and in all, breaks first (0: all of "
                         "them; default 200 a file, 1000 in all); the summary counts every one")
    pc.set_defaults(func=cmd_port_check)
    pl = sub.add_parser("plan", help="the access-owner table (访问主人) of a recorded loop and "
                                     "what each choice would cost (umkit.plan's .save() file)")
    pl.add_argument("file", help="a recording PlanResult.save() wrote (.json)")
    pl.add_argument("--profiles", help="comma-separated sim profiles to predict on "
                                       "(default: the recording's, or h200-pcie5)")
    pl.add_argument("--steps", type=int, help="recorded steps to replay (default up to 30)")
    pl.add_argument("--json", help="also write the recommendation as JSON here")
    pl.add_argument("--force", action="store_true",
                    help="replace a file already at --json (default: keep it, exit 2)")
    pl.set_defaults(func=cmd_plan)
    from .measure import command as measure_command
    measure_command.add_parser(sub)
    w = sub.add_parser("workspace", help="copy the notebooks, outputs cleared, into a learner "
                                         "workspace (edited copies are kept)")
    w.add_argument("--src", default=None,
                   help="the notebooks (default: ./notebooks in the repository, else the copy "
                        "installed with umkit)")
    w.add_argument("--dest", default="workspace", help="the copies (default: workspace)")
    w.add_argument("--lang", default="en", choices=("en", "zh"),
                   help="the edition: en (default) or zh, the Chinese one (notebooks/zh/)")
    w.add_argument("--quiet", action="store_true", help="print only when an edited copy is kept")
    w.set_defaults(func=cmd_workspace)
    return p


def say(cmd: str, err) -> None:
    """Print a umkit error as the command's one message on stderr: its text and hint in the
    learner's language, every control character in them escaped (a path or value holding an
    escape code or a newline is shown, never obeyed)."""
    if isinstance(err, UmkitError):
        text = V.clean(err.localize(err.message), 4000)
        if err.hint:
            text += "\n  -> " + V.clean(err.localize(err.hint), 2000)
    else:
        text = V.clean(err, 4000)
    print(f"{cmd}: {text}", file=sys.stderr)


def _keep_interrupts() -> tuple:
    """Ctrl-C that lands inside a finalizer (a stream or event the garbage collector releases,
    a ``__del__``) is not lost: Python would print "Exception ignored in ..." with a traceback
    and go on running; instead the interrupt is raised again in the command's own code a
    moment later (a one-shot timer: raised inside the hook itself it would be lost again),
    where :func:`main` ends it with one line.  Returns what :func:`_put_back` restores."""
    import signal
    before = sys.unraisablehook
    state = {"inside": False, "alarm": None}

    def again(signum, frame):
        if state["inside"]:                   # still in the hook: a moment later
            signal.setitimer(signal.ITIMER_REAL, 0.002)
            return
        raise KeyboardInterrupt

    def hook(unraisable):
        if not (unraisable.exc_type is not None
                and issubclass(unraisable.exc_type, KeyboardInterrupt)):
            before(unraisable)
            return
        state["inside"] = True
        try:
            if hasattr(signal, "setitimer"):
                if state["alarm"] is None:
                    state["alarm"] = signal.signal(signal.SIGALRM, again)
                signal.setitimer(signal.ITIMER_REAL, 0.002)
            else:                             # no timers (Windows): at the next instruction
                import _thread
                _thread.interrupt_main()
        finally:
            state["inside"] = False
    sys.unraisablehook = hook
    return before, state


def _put_back(kept: tuple) -> None:
    """Undo :func:`_keep_interrupts` (for a caller that called :func:`main` from Python)."""
    import signal
    before, state = kept
    sys.unraisablehook = before
    if state["alarm"] is not None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, state["alarm"])


def _interrupt_in_chain(err: BaseException) -> bool:
    """Whether a KeyboardInterrupt is the cause (or the context) of ``err``, however deep."""
    seen = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, KeyboardInterrupt):
            return True
        seen.add(id(err))
        err = err.__cause__ or err.__context__
    return False


def main(argv=None) -> int:
    """Run one command; its exit status: 0 done, 1 the action failed (a write, a run), 2 bad
    usage or a bad argument (argparse's own errors, and umkit's InvalidArgument/InvalidType --
    an unknown profile, a file already there without --force).  A umkit error is one message;
    Ctrl-C ends any command with one line and exit 130 (128 + SIGINT, as a shell reports it),
    wherever it lands (a finalizer included: :func:`_keep_interrupts`).  Run as the command
    line (``argv`` None), a second Ctrl-C while it leaves is ignored."""
    cmd = "umkit"
    import signal
    kept = None
    interrupted = False
    try:
        # from the moment Ctrl-C raises KeyboardInterrupt, it lands inside this try
        handler = signal.getsignal(signal.SIGINT)
        if getattr(handler, "umkit_import_guard", False):
            signal.signal(signal.SIGINT, signal.default_int_handler)   # umkit's import is done
        kept = _keep_interrupts()
        try:
            args = parser().parse_args(argv)
            cmd = f"umkit {args.cmd}"
            return args.func(args)
        except (InvalidArgument, InvalidType) as err:
            say(cmd, err)
            return 2
        except UmkitError as err:
            say(cmd, err)
            return 1
        except Exception as err:
            # Ctrl-C inside an import can reach us wrapped (Python wraps what __set_name__
            # raises in a RuntimeError): an interrupt all the same
            if not _interrupt_in_chain(err):
                raise
            raise KeyboardInterrupt from None
    except KeyboardInterrupt:
        interrupted = True
        try:
            if argv is None:          # the command line: we are leaving, Ctrl-C changes nothing
                signal.signal(signal.SIGINT, signal.SIG_IGN)
            print(f"\n{cmd}: interrupted (Ctrl-C); files being written were left as they were",
                  file=sys.stderr)
        except KeyboardInterrupt:
            pass
        return 130
    finally:
        if kept is not None and (argv is not None or not interrupted):  # from Python: as it was
            _put_back(kept)


if __name__ == "__main__":
    sys.exit(main())
