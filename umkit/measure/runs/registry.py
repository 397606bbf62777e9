"""The measurement programs' registry: each program by name, with the kind of data it writes, and
:func:`run`, which runs one (``umkit measure run NAME``)."""
from __future__ import annotations

import importlib

#: name -> (module, kind, what it measures)
RUNS = {
    "core": ("core", "speed", "pool cycle vs CuPy's pool, prefetch vs pinned copy, read_back vs "
                              "pinned copy, peer bandwidth with two GPUs"),
    "read_back": ("read_back", "validation", "where a managed array lies after umkit.read_back "
                                             "(notebook 06)"),
    "pool": ("pool", "speed", "umkit's managed pool under CuPy against CuPy's own pool"),
    "small": ("small", "fit", "size sweeps 4 KiB - 256 MiB of the model's fixed costs and rates"),
    "fit": ("fit", "fit", "fit-only probes for the mechanisms the model lacked"),
    "umperf": ("umperf", "validation", "NVIDIA cuda-samples UnifiedMemoryPerf, ported; --compare-sim"),
    "classes": ("classes", "investigation", "probes of three workload classes the model missed"),
    "class_decide": ("class_decide", "investigation", "a class probe's data against the leads "
                                                      "written before the run (CPU only)"),
    "recorder": ("recorder", "speed", "what the recorder and CUPTI's counters cost on a ~1 ms step"),
    "plan_validate": ("plan_validate", "validation", "umkit.plan's predicted order of a PyTorch "
                                                     "loop's memory variants against the card"),
}
KINDS = ("fit", "validation", "speed", "investigation")

def run(name: str, argv: list[str]) -> int:
    """Run the program ``name`` with its arguments; its exit status."""
    from ...errors import InvalidArgument, InvalidType
    if not isinstance(argv, (list, tuple)) or not all(isinstance(a, str) for a in argv):
        raise InvalidType("argv must be a list of the program's arguments (texts)",
                          argument="argv", hint="e.g. run('small', ['--out', 'small_bench.json'])")
    if not isinstance(name, str) or name not in RUNS:
        from ...validate import shown
        raise InvalidArgument(f"no measurement program {shown(name, 60)}", argument="name",
                              hint="umkit measure run --list names them: " + ", ".join(RUNS))
    module = importlib.import_module(f"{__package__}.{RUNS[name][0]}")
    rc = module.main(list(argv))
    return 0 if rc is None else int(rc)


# -- what the programs share: their arguments checked before a measurement, their files written whole
def positive(kind=int, most=None):
    """An argparse ``type`` for a count or a size that must be > 0 (``kind`` int or float), and
    at most ``most`` when given."""
    import math

    def parse(text: str):
        try:
            v = kind(text)
        except ValueError:
            raise ValueError(text) from None
        if not (v > 0 and math.isfinite(v)) or (most is not None and v > most):
            raise ValueError(text)
        return v
    parse.__name__ = f"positive {kind.__name__}"
    return parse


def output(value, flag: str, suffixes: tuple[str, ...] = (".json",)):
    """A file a program will write, checked before it measures (a folder that is there, a
    known extension, a regular file or nothing); None stays None."""
    if value is None:
        return None
    from ... import validate as V
    return V.output_path(value, flag, suffixes)


def write(path, text: str, flag: str) -> None:
    """Write a program's result file whole (a temporary file renamed into place)."""
    from ...results import files
    files.write(path, text, argument=flag, exists="replace")


def read_json(path, name: str):
    """A JSON file a program reads (:func:`umkit.results.read_json`: a regular file of at most
    64 MiB, never a FIFO or a device), as an InvalidArgument naming it otherwise."""
    from ...results import read_json as read
    return read(path, "", "pass the JSON file the program that makes it wrote", argument=name)
