"""``umkit port-check``: what changes when this CUDA unified-memory code runs on AMD.

``hipify`` renames calls; this reads CUDA C++ sources (``.cu``, ``.cuh``, ``.cpp``, ``.h``) and
reports every unified-memory construct it finds, with ``file:line``, its HIP spelling (from the
names table, :mod:`umkit.backends.names`), what behaves differently on the chosen AMD target
and a severity:

``breaks``   an error return, a fatal fault or a silently wrong result on the target
``slower``   it works, on a slower path than the CUDA author expected
``differs``  it works and means something else there (placement, a no-op, another answer)
``same``     as on CUDA

Every finding cites the vendor-claim ledger (``umkit/ledger.json``) entries it follows; the
platform facts come from the simulator's profiles and policies (:mod:`.rules`).

    >>> import umkit
    >>> report = umkit.port_check("kernels/cuda", target="mi250x", xnack="off")
    >>> print(report.text())
    >>> report.exit_code            # 1 when anything breaks on the target

Command line: ``umkit port-check FILE_OR_DIR... [--target ...] [--xnack on|off]
[--format text|markdown|json]`` (exit 1 when anything breaks, 2 for bad input).
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from ... import ledger
from ...errors import InvalidArgument, InvalidType
from .cxx import MAX_BYTES, MAX_TOTAL_BYTES, Source
from .rules import CONSTRUCTS, SEVERITIES, TARGETS, Finding, check_source, platform

SUFFIXES = (".cu", ".cuh", ".cpp", ".h", ".hpp", ".cc", ".cxx")
FORMATS = ("text", "markdown", "json")
XNACK = ("on", "off")
DEFAULT_TARGET = "mi250x"
#: XNACK is off by default on MI200/MI300 (ledger: amd.xnack.default_off)
DEFAULT_XNACK = "off"
MAX_FILES = 10000


@dataclass(frozen=True)
class Report:
    """The findings for one target, and how to show them."""
    target: str
    xnack: str
    platform: str
    files: tuple
    findings: tuple

    def counts(self) -> dict:
        return {s: sum(f.severity == s for f in self.findings) for s in SEVERITIES}

    @property
    def exit_code(self) -> int:
        """1 when anything breaks on the target (for CI), else 0."""
        return 1 if any(f.severity == "breaks" for f in self.findings) else 0

    def by_severity(self, severity: str) -> list[Finding]:
        return [f for f in self.findings if f.severity == severity]

    def summary(self) -> str:
        c = self.counts()
        return (f"{len(self.findings)} findings in {len(self.files)} file"
                f"{'' if len(self.files) == 1 else 's'} for {self.target} (XNACK {self.xnack}): "
                + ", ".join(f"{c[s]} {s}" for s in SEVERITIES))

    def text(self) -> str:
        lines = [f"umkit port-check: {self.platform}"]
        for f in self.findings:
            lines.append(f"{f.path}:{f.line}: [{f.severity}] {f.cuda} -> {f.hip}")
            lines.append(f"    {f.message}")
            lines.append(f"    ledger: {', '.join(f.ledger)}")
        lines.append(f"summary: {self.summary()}")
        lines.append("sources: python -m umkit.ledger ID prints an entry; --format json "
                     "carries each source")
        return "\n".join(lines)

    def markdown(self) -> str:
        lines = [f"**umkit port-check** — {self.platform}", "",
                 "| where | CUDA | HIP | severity | on this target | ledger |",
                 "| --- | --- | --- | --- | --- | --- |"]
        for f in self.findings:
            cells = [f"`{f.path}:{f.line}`", f"`{f.cuda}`", f.hip, f"**{f.severity}**",
                     f.message, ", ".join(f"`{i}`" for i in f.ledger)]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        lines += ["", f"*{self.summary()}*"]
        return "\n".join(lines)

    def as_dict(self) -> dict:
        used = sorted({i for f in self.findings for i in f.ledger})
        es = ledger.entries()
        return {"target": self.target, "xnack": self.xnack, "platform": self.platform,
                "files": list(self.files), "summary": self.counts(),
                "exit_code": self.exit_code,
                "findings": [asdict(f) | {"ledger": list(f.ledger)} for f in self.findings],
                "ledger": {i: {"statement": es[i].statement, "source": es[i].citation(),
                               "status": es[i].status} for i in used}}

    def json(self) -> str:
        return json.dumps(self.as_dict(), indent=1, sort_keys=True)

    def render(self, format: str = "text") -> str:
        _choice(format, "format", FORMATS)
        return {"text": self.text, "markdown": self.markdown, "json": self.json}[format]()

    def _repr_markdown_(self):
        return self.markdown()

    def __str__(self):
        return self.text()


def _choice(value, name, options):
    if not isinstance(value, str):
        raise InvalidType(f"{name}={value!r} must be a string", argument=name,
                          hint=f"one of {', '.join(options)}")
    if value not in options:
        raise InvalidArgument(f"{name}={value!r} is unknown", argument=name,
                              hint=f"one of {', '.join(options)}")
    return value


def _files(paths) -> list[tuple[Path, str]]:
    """(file, how to show it) for every source under ``paths``, in a stable order."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if not isinstance(paths, (list, tuple)) or not paths:
        raise InvalidType(f"paths={paths!r} must be a file or folder, or a list of them",
                          argument="paths", hint="e.g. 'kernels/cuda' or ['a.cu', 'src/']")
    out = []
    for raw in paths:
        if not isinstance(raw, (str, os.PathLike)) or not os.fspath(raw):
            raise InvalidType(f"paths holds {raw!r}: not a path", argument="paths",
                              hint="pass file or folder names as strings")
        p = Path(raw)
        shown = Path(os.fspath(raw)) if not p.is_absolute() else Path(p.name)
        if p.is_dir():
            found = _walk(p, MAX_FILES + 1 - len(out))
            out += [(q, str(shown / q.relative_to(p))) for q in found]
        elif p.is_file():
            out.append((p, str(shown)))
        elif p.exists():
            raise InvalidArgument(f"{os.fspath(raw)!r} is not a regular file or folder (a pipe, "
                                  "a device or a socket)", argument="paths",
                                  hint="give CUDA sources (.cu, .cuh, .cpp, .h) or folders "
                                       "holding them")
        else:
            raise InvalidArgument(f"{os.fspath(raw)!r}: no such file or folder", argument="paths",
                                  hint="give CUDA sources (.cu, .cuh, .cpp, .h) or folders "
                                       "holding them")
        if len(out) > MAX_FILES:
            raise InvalidArgument(f"more than {MAX_FILES} source files under the paths given",
                                  argument="paths", hint="point port-check at a smaller folder")
    return out


def _walk(top: Path, limit: int) -> list[Path]:
    """The regular source files under ``top``, sorted; hidden names and links to folders are
    not followed, and the walk stops once it has found ``limit`` files."""
    found = []

    def refuse(err: OSError):
        raise InvalidArgument(f"{err.filename!r} cannot be read ({err.strerror})",
                              argument="paths", hint="check its permissions, or point "
                              "port-check at a folder you can read") from None
    for here, dirs, files in os.walk(top, onerror=refuse):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.startswith(".") or os.path.splitext(name)[1] not in SUFFIXES:
                continue
            q = Path(here, name)
            try:
                regular = q.is_file()
            except OSError as e:
                refuse(e)
            if regular:
                found.append(q)
                if len(found) >= limit:
                    return sorted(found)
    return sorted(found)


def port_check(paths, *, target: str = DEFAULT_TARGET, xnack: str = DEFAULT_XNACK) -> Report:
    """Read the CUDA sources under ``paths`` and report what behaves differently on ``target``
    (``mi250x``, ``mi250x-coherent``, ``mi300x`` or ``mi300a``) with XNACK ``"on"`` or
    ``"off"`` (the default on MI200/MI300)."""
    _choice(target, "target", tuple(TARGETS))
    _choice(xnack, "xnack", XNACK)
    plat = platform(target, xnack == "on")
    findings, shown_files, total = [], [], 0
    for path, shown in _files(paths):
        try:
            size = path.stat().st_size
            if size > MAX_BYTES:
                raise InvalidArgument(f"{shown} is larger than {MAX_BYTES >> 20} MiB",
                                      argument="paths", hint="port-check reads hand-written "
                                      "sources; leave generated files out")
            with open(path, "rb") as fh:          # at most MAX_BYTES, whatever stat said
                data = fh.read(MAX_BYTES + 1)
            if len(data) > MAX_BYTES:
                raise InvalidArgument(f"{shown} is larger than {MAX_BYTES >> 20} MiB",
                                      argument="paths", hint="port-check reads hand-written "
                                      "sources; leave generated files out")
            total += len(data)
            if total > MAX_TOTAL_BYTES:
                raise InvalidArgument(f"the sources under the paths given hold more than "
                                      f"{MAX_TOTAL_BYTES >> 20} MiB", argument="paths",
                                      hint="check a few folders at a time")
            text = data.decode("utf-8", errors="replace")
        except OSError as e:
            raise InvalidArgument(f"{shown} cannot be read ({e.strerror})", argument="paths",
                                  hint="check the file's permissions") from None
        shown_files.append(shown)
        findings += check_source(Source.parse(text, shown), plat, shown)
    return Report(target, xnack, plat.label(), tuple(shown_files), tuple(findings))


def main(args) -> int:
    """``umkit port-check``: print the report; 1 when anything breaks, 2 for bad input."""
    import sys
    from ...errors import UmkitError
    try:
        report = port_check(args.paths, target=args.target, xnack=args.xnack)
    except UmkitError as err:
        print(f"umkit port-check: {err}", file=sys.stderr)
        return 2
    print(report.render(args.format))
    return report.exit_code


__all__ = ["port_check", "Report", "Finding", "CONSTRUCTS", "SEVERITIES", "TARGETS", "main"]
