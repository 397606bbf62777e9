"""``umkit port-check``: what changes when this CUDA unified-memory code runs on AMD.

``hipify`` renames calls; this reads CUDA C++ sources and reports every unified-memory construct
it finds, with ``file:line``, its HIP spelling (from the names table, :mod:`umkit.backends.names`),
what behaves differently on the chosen AMD target and a severity.  It reads the files whose names
end in one of :data:`SUFFIXES`: CUDA (``.cu``, ``.cuh``), HIP (``.hip``: code already hipified,
its HIP names read as their CUDA ones), C and C++ sources and headers (``.c``, ``.cc``, ``.cpp``,
``.cxx``, ``.h``, ``.hh``, ``.hpp``, ``.hxx``) and inline-template files (``.inl``); C is read
because the runtime API is a C API.  A file named on the command line with another ending is
refused; in a folder, other files are passed over, and so is a file that is not text (it holds a
NUL byte): nothing to check at all is an error (exit 2), not "0 findings".

``breaks``   an error return, a fatal fault or a silently wrong result on the target
``slower``   it works, on a slower path than the CUDA author expected
``differs``  it works and means something else there (placement, a no-op, another answer)
``same``     as on CUDA

Every finding cites the vendor-claim ledger (``umkit/ledger.json``) entries it follows; the
platform facts come from the simulator's profiles and policies (:mod:`.rules`).

It reads names, one file at a time, like a careful reviewer, not a compiler.  What kind of memory
a pointer holds is known by its name: where the function that uses it allocated it (the last
allocation before the use), else wherever the file allocates that name.  It follows a pointer
copied to another name (``q = p``, ``float* q = p;``), a reference bound to one, a function or a
lambda that passes its parameter to cudaMallocManaged (``alloc(&p)``) and a function pointer to it
(``cudaError_t (*f)(void**, size_t, unsigned) = cudaMallocManaged;``; the ``auto f = ...`` and
``auto f{...}`` forms compile only where the C declaration alone is visible), by name within the
file (within a function, the last allocation or copy of a name before its use decides); not a
pointer stored in a struct or a container, passed through two wrappers, or an inner block's name
that shadows an outer one: treat a clean report as a second opinion, not a proof.

    >>> import umkit
    >>> report = umkit.port_check("kernels/cuda", target="mi250x", xnack="off")
    >>> print(report.text())
    >>> report.exit_code            # 1 when anything breaks on the target

Command line: ``umkit port-check FILE_OR_DIR... [--target ...] [--xnack on|off]
[--format text|markdown|json]``: exit 0 when nothing breaks, 1 when anything breaks, 2 with a
one-line reason on standard error when there is nothing it can check (a path that does not
exist, is too long or nested too deep, a file it does not read, a folder without sources).
File names are shown escaped in every format (a newline or a terminal escape in a name cannot
start a line or reach the terminal: ``\\n``, ``\\x1b``; a byte that is not UTF-8: ``\\xff``).

A report shows at most :data:`MAX_PER_FILE` findings of one file and :data:`MAX_FINDINGS` in
all, those that break first; the summary counts every finding and says how many were left out
(``port_check(..., max_findings=None, max_per_file=None)`` shows them all), and the exit code
counts them too.
"""
from __future__ import annotations

import heapq
import json
import os
import re
import stat
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from ... import ledger
from ... import validate as V
from ...errors import InvalidArgument, InvalidType
from ...runtime.lang import tr
from .cxx import MAX_BYTES, MAX_TOTAL_BYTES, Source, escape
from .rules import CONSTRUCTS, SEVERITIES, TARGETS, Finding, findings as rule_findings, platform

#: the file endings port-check reads (see the module's text)
SUFFIXES = (".cu", ".cuh", ".hip", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx",
            ".inl")
FORMATS = ("text", "markdown", "json")
XNACK = ("on", "off")
DEFAULT_TARGET = "mi250x"
#: XNACK is off by default on MI200/MI300 (ledger: amd.xnack.default_off)
DEFAULT_XNACK = "off"
MAX_FILES = 10000
MAX_WALK_DEPTH = 64          # folders nested deeper than this under a path given: refused
SHOWN = 160                  # at most this many characters of a name in a message
#: the report shows at most this many findings of one file, and of all files (breaks first);
#: the others are counted, and the summary says how many were left out and how to see them
MAX_PER_FILE = 200
MAX_FINDINGS = 1000
SHOW_ALL = "umkit.port_check(..., max_findings=None, max_per_file=None) shows them all"
SHOW_ALL_CLI = "umkit port-check --max-findings 0 shows them all"


def _label(english: str) -> str:
    """A label in the reader's language and the space after it; none after a full-width colon."""
    text = tr(english)
    return text if text.endswith("：") else text + " "


@dataclass(frozen=True)
class Report:
    """The findings for one target, and how to show them."""
    target: str
    xnack: str
    platform: str
    files: tuple
    findings: tuple           # the findings shown (all of them unless the limits cut)
    skipped: tuple = ()       # (file, why) for files under a folder that were not read
    found: dict = field(default_factory=dict)    # severity -> findings found, shown or not
    left_out: tuple = ()      # (file, findings of it not shown), for each file that has some
    limits: tuple = (None, None)                  # (max_per_file, max_findings)
    show_all: str = SHOW_ALL  # how to see the findings left out

    def counts(self) -> dict:
        """Findings by severity: every one found, shown or left out."""
        shown = {s: sum(f.severity == s for f in self.findings) for s in SEVERITIES}
        return {s: max(self.found.get(s, 0), shown[s]) for s in SEVERITIES}

    @property
    def not_shown(self) -> int:
        return sum(n for _, n in self.left_out)

    @property
    def exit_code(self) -> int:
        """1 when anything breaks on the target (for CI), shown or not, else 0."""
        return 1 if self.counts()["breaks"] else 0

    def by_severity(self, severity: str) -> list[Finding]:
        return [f for f in self.findings if f.severity == severity]

    def summary(self) -> str:
        c = self.counts()
        skipped = (f"; {len(self.skipped)} file{'' if len(self.skipped) == 1 else 's'} "
                   "passed over (not text)") if self.skipped else ""
        cut = ""
        if self.left_out:
            per, total, k = *self.limits, self.not_shown
            cut = (f"; {k} of them not shown (at most {per} a file and {total} in all, breaks "
                   "first); " if per and total else
                   f"; {k} of them not shown (at most {per} a file, breaks first); " if per else
                   f"; {k} of them not shown (at most {total} in all, breaks first); ") + \
                self.show_all
        return (f"{sum(c.values())} findings in {len(self.files)} file"
                f"{'' if len(self.files) == 1 else 's'} for {self.target} (XNACK {self.xnack}): "
                + ", ".join(f"{c[s]} {s}" for s in SEVERITIES) + skipped + cut)

    # text and markdown are for a reader, in the learner's language (``lang.tr``: the platform,
    # the severities, the messages and the frame); json stays English, for programs
    def text(self) -> str:
        e = escape
        lines = [f"umkit port-check: {e(tr(self.platform))}"]
        for f in self.findings:
            lines.append(f"{e(f.path)}:{f.line}: [{e(tr(f.severity))}] {e(f.cuda)} -> {e(tr(f.hip))}")
            lines.append(f"    {e(tr(f.message))}")
            lines.append(f"    {_label('ledger:')}{e(', '.join(f.ledger))}")
        for path, why in self.skipped:
            lines.append(f"{e(path)}: {tr('passed over ({why})').format(why=e(tr(why)))}")
        lines.append(f"{_label('summary:')}{tr(self.summary())}")
        lines.append(tr("sources: python -m umkit.ledger ID prints an entry; --format json "
                        "carries each source"))
        return "\n".join(lines)

    def markdown(self) -> str:
        head = [tr(w) for w in ("where", "severity", "on this target", "ledger")]
        lines = [f"**umkit port-check** — {_md_text(tr(self.platform))}", "",
                 f"| {head[0]} | CUDA | HIP | {head[1]} | {head[2]} | {head[3]} |",
                 "| --- | --- | --- | --- | --- | --- |"]
        for f in self.findings:
            cells = [_md_code(f"{f.path}:{f.line}"), _md_code(f.cuda), _md_text(tr(f.hip)),
                     f"**{_md_text(tr(f.severity))}**", _md_text(tr(f.message)),
                     ", ".join(_md_code(i) for i in f.ledger)]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        lines += ["", f"*{tr(self.summary())}*"]
        lines += [f"- {_md_code(path)} {tr('passed over ({why})').format(why=_md_text(tr(why)))}"
                  for path, why in self.skipped]
        return "\n".join(lines)

    def as_dict(self) -> dict:
        """The report as plain data (``summary``: every finding found, by severity;
        ``findings``: those shown; ``left_out``: how many were not, and the limits).  A name
        that is not UTF-8 is written as the text report writes it (each such byte ``\\xNN``):
        every string is valid Unicode, so strict JSON readers take it."""
        used = sorted({i for f in self.findings for i in f.ledger})
        es = ledger.entries()
        per, total = self.limits
        shown = {s: sum(f.severity == s for f in self.findings) for s in SEVERITIES}
        c = self.counts()
        return _plain({
            "target": self.target, "xnack": self.xnack, "platform": self.platform,
            "files": list(self.files), "summary": c,
            "skipped": [{"path": p, "why": w} for p, w in self.skipped],
            "exit_code": self.exit_code,
            "findings": [asdict(f) | {"ledger": list(f.ledger)} for f in self.findings],
            "left_out": {"count": self.not_shown, "max_per_file": per, "max_findings": total,
                         "by_severity": {s: c[s] - shown[s] for s in SEVERITIES},
                         "by_file": [{"path": p, "count": n} for p, n in self.left_out],
                         "show_all": self.show_all},
            "ledger": {i: {"statement": es[i].statement, "source": es[i].citation(),
                           "status": es[i].status} for i in used}})

    def json(self) -> str:
        # ensure_ascii: every control, format (bidi) or other non-ASCII character is a \\u escape
        return json.dumps(self.as_dict(), indent=1, sort_keys=True, ensure_ascii=True)

    def render(self, format: str = "text") -> str:
        _choice(format, "format", FORMATS)
        return {"text": self.text, "markdown": self.markdown, "json": self.json}[format]()

    def _repr_markdown_(self):
        return self.markdown()

    def __str__(self):
        return self.text()


def _md_code(text) -> str:
    """``text`` as a Markdown code span: escaped, fenced with more backticks than it holds."""
    text = escape(text)
    run = longest = 0
    for c in text:
        run = run + 1 if c == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


_SURROGATE = re.compile("[\ud800-\udfff]")


def _plain(obj):
    """``obj`` (dicts, lists, strings, numbers) with every string that holds a lone surrogate
    (a file name's bytes that are not UTF-8, as Python reads them) written as :func:`escape`
    writes it."""
    if isinstance(obj, str):
        return escape(obj) if _SURROGATE.search(obj) else obj
    if isinstance(obj, dict):
        return {_plain(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    return obj


def _md_text(text) -> str:
    """Prose of the report's own making (rule messages name identifiers only), escaped."""
    return escape(text)


def _shown(name) -> str:
    """A name for a one-line message: escaped, and cut to :data:`SHOWN` characters."""
    text = escape(os.fspath(name) if isinstance(name, os.PathLike) else name)
    return "'" + (text if len(text) <= SHOWN else text[:SHOWN] + "...") + "'"


def _choice(value, name, options):
    if not isinstance(value, str):
        raise InvalidType(f"{name}={V.short(value)} must be a string", argument=name,
                          hint=f"one of {', '.join(options)}")
    if value not in options:
        raise InvalidArgument(f"{name}={_shown(value)} is unknown", argument=name,
                              hint=f"one of {', '.join(options)}")
    return value


_WHAT = "CUDA or HIP sources (" + ", ".join(SUFFIXES) + ") or folders holding them"


def _bad(message: str, hint: str = _WHAT) -> InvalidArgument:
    return InvalidArgument(message, argument="paths", hint=hint if hint != _WHAT else
                           "give " + _WHAT)


def _files(paths) -> list[tuple[Path, str, bool]]:
    """(file, how to show it, named on its own) for every source under ``paths``, in a stable
    order."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if not isinstance(paths, (list, tuple)) or not paths:
        raise InvalidType(f"paths={V.short(paths)} must be a file or folder, or a list of them",
                          argument="paths", hint="e.g. 'kernels/cuda' or ['a.cu', 'src/']")
    out = []
    for raw in paths:
        if not isinstance(raw, (str, os.PathLike)) or not os.fspath(raw) or \
                not isinstance(os.fspath(raw), str) or "\0" in os.fspath(raw):
            raise InvalidType(f"paths holds {_shown(raw) if isinstance(raw, str) else V.short(raw)}: "
                              "not a path", argument="paths",
                              hint="pass file or folder names as strings")
        p = Path(raw)
        shown = Path(os.fspath(raw)) if not p.is_absolute() else Path(p.name)
        try:
            st = p.stat()                       # follows links, as reading does
        except FileNotFoundError:
            raise _bad(f"{_shown(raw)}: no such file or folder") from None
        except OSError as e:                    # too long, a link loop, not permitted ...
            raise _bad(f"{_shown(raw)} cannot be read ({e.strerror})") from None
        except ValueError:                      # a lone surrogate no file name can hold
            raise _bad(f"{_shown(raw)} cannot be read (not a name the file system can "
                       "hold)") from None
        if stat.S_ISDIR(st.st_mode):
            found = _walk(p, MAX_FILES + 1 - len(out))
            if not found:
                raise _bad(f"{_shown(raw)} holds no source port-check reads (it reads "
                           f"{', '.join(SUFFIXES)})", hint="point it at the folder of your "
                           "CUDA or HIP sources")
            out += [(q, str(shown / q.relative_to(p)), False) for q in found]
        elif stat.S_ISREG(st.st_mode):
            if p.suffix not in SUFFIXES:
                raise _bad(f"{_shown(raw)} is not a source port-check reads (it reads "
                           f"{', '.join(SUFFIXES)})", hint="name the CUDA or HIP sources, or "
                           "the folders holding them")
            out.append((p, str(shown), True))
        else:
            raise _bad(f"{_shown(raw)} is not a regular file or folder (a pipe, a device or "
                       "a socket)")
        if len(out) > MAX_FILES:
            raise _bad(f"more than {MAX_FILES} source files under the paths given",
                       hint="point port-check at a smaller folder")
    return out


def _walk(top: Path, limit: int) -> list[Path]:
    """The regular source files under ``top``, sorted; hidden names and links to folders are
    not followed, folders deeper than :data:`MAX_WALK_DEPTH` are refused, and the walk stops
    once it has found ``limit`` files.  Iterative (no recursion limit to reach)."""
    found, stack = [], [(top, 0)]

    def refuse(path, err: OSError):
        raise _bad(f"{_shown(err.filename or path)} cannot be read ({err.strerror})",
                   hint="check its permissions, or point port-check at a folder you can "
                        "read") from None
    while stack:
        here, depth = stack.pop()
        if depth > MAX_WALK_DEPTH:
            raise _bad(f"{_shown(top)} holds folders nested more than {MAX_WALK_DEPTH} deep",
                       hint="point port-check at the folder of your sources")
        try:
            with os.scandir(here) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            refuse(here, e)
        subdirs = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    subdirs.append(Path(entry.path))
                    continue
                if os.path.splitext(entry.name)[1] not in SUFFIXES:
                    continue
                q = Path(entry.path)
                regular = q.is_file()
            except OSError as e:
                refuse(entry.path, e)
            if regular:
                found.append(q)
                if len(found) >= limit:
                    return sorted(found)
        stack += [(d, depth + 1) for d in reversed(subdirs)]
    return sorted(found)


def _is_text(data: bytes) -> bool:
    """Whether ``data`` is a source text: no NUL byte, and (in its first 64 KiB) no more than
    one byte in a hundred that is not UTF-8."""
    if b"\0" in data:
        return False
    head = data[:65536]
    bad = len(head.decode("utf-8", errors="replace").encode("utf-8")) - len(head)
    return bad <= len(head) // 100 * 2        # U+FFFD is 3 bytes: 2 more per bad byte


def port_check(paths, *, target: str = DEFAULT_TARGET, xnack: str = DEFAULT_XNACK,
               max_findings: int | None = MAX_FINDINGS,
               max_per_file: int | None = MAX_PER_FILE) -> Report:
    """Read the CUDA sources under ``paths`` and report what behaves differently on ``target``
    (``mi250x``, ``mi250x-coherent``, ``mi300x`` or ``mi300a``) with XNACK ``"on"`` or
    ``"off"`` (the default on MI200/MI300).  Nothing to check (no source under the paths, only
    files that are not text) is an :class:`~umkit.errors.InvalidArgument`.

    The report shows at most ``max_per_file`` findings of one file and ``max_findings`` in
    all (None: no limit), breaks first, then slower, differs and same, each in line order;
    the others are counted (``Report.counts()``, the exit code) and the summary says how many
    were left out."""
    _choice(target, "target", tuple(TARGETS))
    _choice(xnack, "xnack", XNACK)
    max_findings = V.optional_integer(max_findings, "max_findings", lo=1,
                                      hint="a number of findings, or None for all of them")
    max_per_file = V.optional_integer(max_per_file, "max_per_file", lo=1,
                                      hint="a number of findings, or None for all of them")
    plat = platform(target, xnack == "on")
    everything = _Shown(max_findings)
    found = dict.fromkeys(SEVERITIES, 0)
    per_file = []                              # findings found in each file read
    shown_files, skipped, total = [], [], 0
    for path, shown, named in _files(paths):
        try:
            size = path.stat().st_size
            if size > MAX_BYTES:
                raise _bad(f"{_shown(shown)} is larger than {MAX_BYTES >> 20} MiB",
                           hint="port-check reads hand-written sources; leave generated "
                                "files out")
            with open(path, "rb") as fh:          # at most MAX_BYTES, whatever stat said
                data = fh.read(MAX_BYTES + 1)
            if len(data) > MAX_BYTES:
                raise _bad(f"{_shown(shown)} is larger than {MAX_BYTES >> 20} MiB",
                           hint="port-check reads hand-written sources; leave generated "
                                "files out")
            total += len(data)
            if total > MAX_TOTAL_BYTES:
                raise _bad(f"the sources under the paths given hold more than "
                           f"{MAX_TOTAL_BYTES >> 20} MiB", hint="check a few folders at a time")
        except OSError as e:
            raise _bad(f"{_shown(shown)} cannot be read ({e.strerror})",
                       hint="check the file's permissions") from None
        if not _is_text(data):
            if named:
                raise _bad(f"{_shown(shown)} is not a source text (it holds NUL bytes or is "
                           "not UTF-8): nothing to check", hint="give the CUDA source as UTF-8 "
                           "text (not a compiled file; save UTF-16 text as UTF-8)")
            skipped.append((shown, "not text: a NUL byte or not UTF-8"))
            continue
        text = data.decode("utf-8", errors="replace")
        here, n = _Shown(max_per_file), 0
        for f in rule_findings(Source.parse(text, shown), plat, shown):
            found[f.severity] += 1
            n += 1
            here.offer(f, len(shown_files))
        for key in here.keys():
            everything.offer_key(key)
        per_file.append(n)
        shown_files.append(shown)
    if not shown_files:
        raise _bad(f"nothing to check: the {len(skipped)} source-named file"
                   f"{'' if len(skipped) == 1 else 's'} under the paths given "
                   f"{'is' if len(skipped) == 1 else 'are'} not text (e.g. "
                   f"{_shown(skipped[0][0])})", hint="give the CUDA sources as UTF-8 text (not "
                   "compiled files; save UTF-16 text as UTF-8)")
    kept = sorted(everything.keys(), key=lambda k: (-k[1], -k[2], -k[3], -k[4]))
    kept_per_file = [0] * len(shown_files)
    for k in kept:
        kept_per_file[-k[1]] += 1
    left_out = tuple((shown_files[i], per_file[i] - kept_per_file[i])
                     for i in range(len(shown_files)) if per_file[i] > kept_per_file[i])
    return Report(target, xnack, plat.label(), tuple(shown_files), tuple(k[5] for k in kept),
                  tuple(skipped), found, left_out, (max_per_file, max_findings))


_RANK = {s: k for k, s in enumerate(SEVERITIES)}
_ORDER = {c: k for k, c in enumerate(CONSTRUCTS)}


class _Shown:
    """The first ``limit`` findings offered, by severity (breaks first), then file, line and
    rule: a heap of at most ``limit`` (None: all), so that a file of a million findings holds
    no more than ``limit`` of them at once."""

    def __init__(self, limit):
        self.limit, self.heap, self.seq = limit, [], 0

    def offer(self, f: Finding, file_index: int):
        self.seq += 1                          # keys negated: the heap's top is the last kept
        self.offer_key((-_RANK[f.severity], -file_index, -f.line, -_ORDER[f.construct],
                        -self.seq, f))

    def offer_key(self, key):
        if self.limit is None or len(self.heap) < self.limit:
            heapq.heappush(self.heap, key)
        elif key[:5] > self.heap[0][:5]:
            heapq.heapreplace(self.heap, key)

    def keys(self) -> list:
        return list(self.heap)


def main(args) -> int:
    """``umkit port-check``: print the report; 1 when anything breaks, 2 for bad input."""
    import sys
    from ...errors import UmkitError
    # --max-findings N (where the command line has it): at most N shown, of one file and in
    # all; 0: every finding; not given: MAX_PER_FILE and MAX_FINDINGS
    limit = getattr(args, "max_findings", None)
    limits = {} if limit is None else {"max_findings": limit or None,
                                       "max_per_file": limit or None}
    try:
        report = port_check(args.paths, target=args.target, xnack=args.xnack, **limits)
        if hasattr(args, "max_findings"):
            report = replace(report, show_all=SHOW_ALL_CLI)
    except UmkitError as err:                 # one line (names in it are escaped already)
        print("umkit port-check: " + str(err).replace("\n  -> ", " -- ").replace("\n", " "),
              file=sys.stderr)
        return 2
    print(report.render(args.format))
    return report.exit_code


__all__ = ["port_check", "Report", "Finding", "CONSTRUCTS", "SEVERITIES", "TARGETS", "main"]
