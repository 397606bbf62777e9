"""gettext ``.po`` files: read them into :class:`Entry` objects and write them back.

The subset of the format umkit's catalogues use, as GNU gettext writes it: translator comments
(``# ``), extracted comments (``#.``), references (``#:``), flags (``#,``: ``fuzzy``,
``python-brace-format``, ...), the previous English of a fuzzy entry (``#| msgctxt``,
``#| msgid``), ``msgctxt``, ``msgid`` and ``msgstr``; obsolete entries (``#~``) are kept apart.
Plural forms are refused: umkit has none.  A string is C-quoted (``\\\\ \\" \\n \\t \\r``) and may
run over several quoted lines, which are joined.  :func:`dumps` writes what :func:`parse` reads
back exactly (a test checks the round trip on every shipped catalogue)."""
from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InvalidArgument, InvalidType


@dataclass
class Entry:
    """One message: ``msgid`` (the English), ``msgstr`` (its translation, "" when there is none
    yet), ``msgctxt`` (None, or the context that tells two equal msgids apart: a notebook cell's
    id), ``flags`` (``fuzzy`` marks a translation made for an older English, kept in
    ``previous``), ``comments`` (the translator's, one per line), ``extracted`` (the source's,
    for the translator), ``references`` and ``obsolete``."""
    msgid: str
    msgstr: str = ""
    msgctxt: str | None = None
    flags: list = field(default_factory=list)
    comments: list = field(default_factory=list)
    extracted: list = field(default_factory=list)
    references: list = field(default_factory=list)
    previous: str | None = None
    previous_ctxt: str | None = None
    obsolete: bool = False

    def __post_init__(self):
        for name in ("msgid", "msgstr"):
            if not isinstance(getattr(self, name), str):
                raise InvalidType(f"{name} must be str, got {type(getattr(self, name)).__name__}",
                                  argument=name)
        for name in ("msgctxt", "previous", "previous_ctxt"):
            v = getattr(self, name)
            if v is not None and not isinstance(v, str):
                raise InvalidType(f"{name} must be str or None, got {type(v).__name__}", argument=name)
        for name in ("flags", "comments", "extracted", "references"):
            v = getattr(self, name)
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise InvalidType(f"{name} must be a list of str", argument=name)
            if any(c in x for x in v for c in _LINE_BREAKS):
                raise InvalidArgument(f"{name} holds a line break: each item is one line",
                                      argument=name, hint="split it into several items")
        if any(not f or f != f.strip() or "," in f for f in self.flags):
            raise InvalidArgument(f"flags={self.flags!r}: each flag is one word, no commas",
                                  argument="flags", hint="e.g. ['fuzzy', 'python-brace-format']")
        if self.previous_ctxt is not None and self.previous is None:
            raise InvalidArgument("previous_ctxt without previous: a #| msgctxt needs its #| msgid",
                                  argument="previous_ctxt")
        for name in ("msgid", "msgstr", "msgctxt", "previous", "previous_ctxt", "flags", "comments",
                     "extracted", "references"):
            v = getattr(self, name)
            for x in (v if isinstance(v, list) else [v]):
                try:
                    if x is not None:
                        x.encode("utf-8")
                except UnicodeEncodeError:
                    raise InvalidArgument(f"{name} holds a lone surrogate (half of a character): "
                                          "not text UTF-8 can hold", argument=name,
                                          hint="fix the text it came from") from None
        if not isinstance(self.obsolete, bool):
            raise InvalidType(f"obsolete must be bool, got {type(self.obsolete).__name__}",
                              argument="obsolete")

    @property
    def fuzzy(self) -> bool:
        return "fuzzy" in self.flags

    @property
    def key(self) -> tuple:
        return (self.msgctxt, self.msgid)


class POError(InvalidArgument):
    """A ``.po`` text umkit cannot read: ``line`` is where (1-based), ``source`` what was read."""

    def __init__(self, message: str, *, source: str = "<po>", line: int = 0):
        self.source, self.line = source, line
        super().__init__(f"{source}:{line}: {message}", argument="text",
                         hint="a gettext .po catalogue: msgid/msgstr pairs of quoted strings "
                              "(msgfmt --check-format reads it too)")


_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "r": "\r"}
_ESCAPE_RX = re.compile(r'\\(.)')


def _unquote(token: str, source: str, line: int) -> str:
    if len(token) < 2 or not (token.startswith('"') and token.endswith('"')):
        raise POError(f"expected a quoted string, got {token[:40]!r}", source=source, line=line)
    body = token[1:-1]
    if (len(body) - len(body.rstrip("\\"))) % 2:
        raise POError("an unterminated string (its closing quote is escaped)", source=source, line=line)
    if re.search(r'(?<!\\)(?:\\\\)*"', body):
        raise POError("an unescaped quote inside a string", source=source, line=line)

    def one(m):
        c = m.group(1)
        if c not in _ESCAPES:
            raise POError(f"unknown escape \\{c}", source=source, line=line)
        return _ESCAPES[c]
    return _ESCAPE_RX.sub(one, body)


def _quote(text: str) -> str:
    return '"' + _escaped(text) + '"'


#: characters str.splitlines() breaks a line at besides "\n" and "\r": never in a one-line field
#: (a comment, a flag), so that no tool reads one line of ours as two
_LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_KEYWORD = re.compile(r'(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+(".*")\s*\Z')


def parse(text: str, source: str = "<po>") -> list[Entry]:
    """The entries of a ``.po`` text, in order (the header, msgid "", first when present).
    Lines end at "\\n" (a "\\r" before it is dropped); comments and flags belong to the entry
    after them, blank lines between or not, as GNU gettext reads them."""
    if not isinstance(text, str):
        raise InvalidType(f"text must be str, got {type(text).__name__}", argument="text")
    if not isinstance(source, str):
        raise InvalidType(f"source must be str (a name for messages), got {type(source).__name__}",
                          argument="source")
    entries: list[Entry] = []
    cur: dict = {}                 # the entry being read: its fields, strings as lists of pieces
    last: list = [None]            # the field the next bare quoted line continues

    def joined(key):
        v = cur.get(key)
        return None if v is None else "".join(v)

    def flush(at: int):
        if "msgid" not in cur:
            if "msgstr" in cur or "msgctxt" in cur:
                raise POError("an entry without msgid", source=source, line=at)
            return                 # comments and flags only: they wait for their entry
        if "msgstr" not in cur:
            raise POError("msgid without msgstr", source=source, line=at)
        entries.append(Entry(msgid=joined("msgid"), msgstr=joined("msgstr"), msgctxt=joined("msgctxt"),
                             flags=cur.get("flags", []), comments=cur.get("comments", []),
                             extracted=cur.get("extracted", []),
                             references=cur.get("references", []),
                             previous=joined("prev_msgid"), previous_ctxt=joined("prev_msgctxt"),
                             obsolete=cur.get("obsolete", False)))
        cur.clear()
        last[0] = None

    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for n, raw in enumerate(lines, 1):
        if raw.endswith("\r"):
            raw = raw[:-1]
        line = raw.strip()
        if n == 1 and line.startswith("\ufeff"):
            raise POError("the text starts with a byte-order mark (U+FEFF): save the file as "
                          "UTF-8 without one", source=source, line=n)
        obsolete = line.startswith("#~")
        if obsolete:
            line = line[2:].strip()
            if line.startswith("|"):             # #~| msgid "...": an obsolete entry's previous
                line = "#" + line
        if not line:
            if "msgid" in cur and "msgstr" in cur:
                flush(n)
            continue
        if line.startswith("#"):
            if "msgid" in cur and "msgstr" in cur:
                flush(n)                        # a comment starts the next entry
            elif "msgid" in cur or "msgctxt" in cur:
                raise POError("a comment inside an entry", source=source, line=n)
            kind, rest = line[:2], line[2:].strip() if len(line) > 2 else ""
            body = raw.lstrip()[2:]
            body = body[1:] if body[:1] == " " else body
            if kind == "#,":
                cur.setdefault("flags", []).extend(f.strip() for f in rest.split(",") if f.strip())
            elif kind == "#.":
                cur.setdefault("extracted", []).append(body)
            elif kind == "#:":
                cur.setdefault("references", []).append(body)
            elif kind == "#|":
                m = _KEYWORD.match(rest)
                if m and m.group(1) in ("msgid", "msgctxt"):
                    key = "prev_" + m.group(1)
                    if key in cur:
                        raise POError(f"#| {m.group(1)} twice in one entry", source=source, line=n)
                    cur[key] = [_unquote(m.group(2), source, n)]
                    last[0] = key
                elif rest.startswith('"') and last[0] in ("prev_msgid", "prev_msgctxt"):
                    cur[last[0]].append(_unquote(rest, source, n))
                else:
                    raise POError(f"a #| line umkit does not read: {rest[:40]!r}", source=source, line=n)
            else:
                body = raw.lstrip()[1:]
                cur.setdefault("comments", []).append(body[1:] if body[:1] == " " else body)
            continue
        if line.startswith('"'):
            if last[0] not in ("msgctxt", "msgid", "msgstr"):
                raise POError("a quoted line with nothing to continue", source=source, line=n)
            if cur.get("obsolete", False) != obsolete:
                raise POError("a string line and its entry disagree on #~ (obsolete)",
                              source=source, line=n)
            cur[last[0]].append(_unquote(line, source, n))
            continue
        m = _KEYWORD.match(line)
        if not m:
            raise POError(f"not a .po line: {line[:60]!r}", source=source, line=n)
        kw, value = m.group(1), _unquote(m.group(2), source, n)
        if kw == "msgid_plural" or kw.startswith("msgstr["):
            raise POError("plural forms are not used by umkit's catalogues", source=source, line=n)
        if kw in ("msgctxt", "msgid") and "msgid" in cur and "msgstr" in cur:
            flush(n)
        if kw in cur:
            raise POError(f"{kw} twice in one entry", source=source, line=n)
        if kw == "msgctxt" and "msgid" in cur:
            raise POError("msgctxt after msgid: the context comes first", source=source, line=n)
        if kw == "msgstr" and "msgid" not in cur:
            raise POError("msgstr before its msgid", source=source, line=n)
        if any(k in cur for k in ("msgctxt", "msgid")) and cur.get("obsolete", False) != obsolete:
            raise POError("the lines of one entry disagree on #~ (obsolete)", source=source, line=n)
        if obsolete:
            cur["obsolete"] = True
        cur[kw] = [value]
        last[0] = kw
    if "msgid" in cur or "msgctxt" in cur or "msgstr" in cur:
        flush(len(lines) + 1)
    live, dead = set(), set()
    for e in entries:
        seen = dead if e.obsolete else live
        if e.key in seen or (e.obsolete and e.key in live):
            raise POError(f"the msgid {e.msgid[:50]!r} twice (context {e.msgctxt!r})", source=source)
        seen.add(e.key)
    if live & dead:
        raise POError(f"an entry both live and obsolete: {sorted(live & dead)[0]!r}", source=source)
    return entries


def _path(path, argument: str = "path") -> Path:
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise InvalidType(f"{argument} must be a file path (str or os.PathLike), got "
                          f"{type(path).__name__}", argument=argument)
    if "\0" in str(path):
        raise InvalidArgument(f"{argument} holds a NUL character: no file has that name",
                              argument=argument, hint="a file path")
    return Path(path)


def read_po(path) -> list[Entry]:
    """The entries of the ``.po`` file at ``path`` (UTF-8)."""
    p = _path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidArgument(f"cannot read {p.name} as a UTF-8 .po file: {type(e).__name__}",
                              argument="path", hint="the path of a gettext .po catalogue") from None
    return parse(text, source=p.name)


def _escaped(text: str) -> str:
    return (text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
            .replace("\t", "\\t").replace("\r", "\\r"))


def _field(keyword: str, text: str, prefix: str = "", width: int = 79) -> list[str]:
    """``keyword "text"``, over several lines the way msgmerge writes them: a text that holds a
    newline or does not fit on one line starts with ``""`` and is cut after each newline and, in
    a long line, after the last space that fits (time linear in the text)."""
    one = f'{prefix}{keyword} {_quote(text)}'
    if "\n" not in text[:-1] and len(one) <= width:
        return [one]
    out = [f'{prefix}{keyword} ""']
    room = width - len(prefix) - 4           # a chunk's escaped length, its quotes left out
    for piece in re.split(r"(?<=\n)", text):
        if not piece:
            continue
        body, pos = _escaped(piece), 0
        while len(body) - pos + 2 + len(prefix) > width:
            cut = body.rfind(" ", pos, pos + room)
            if cut < pos:
                break
            out.append(f'{prefix}"{body[pos:cut + 1]}"')
            pos = cut + 1
        out.append(f'{prefix}"{body[pos:]}"')
    return out


def dumps(entries) -> str:
    """``entries`` as ``.po`` text (one blank line between entries, a final newline)."""
    if not isinstance(entries, (list, tuple)):
        raise InvalidType(f"entries must be a list of Entry objects, got {type(entries).__name__}",
                          argument="entries")
    blocks = []
    for e in entries:
        if not isinstance(e, Entry):
            raise InvalidType(f"entries must hold Entry objects, got {type(e).__name__}",
                              argument="entries")
        lines = [f"# {c}" if c else "#" for c in e.comments]
        lines += [f"#. {c}" for c in e.extracted]
        lines += [f"#: {c}" for c in e.references]
        if e.flags:
            lines.append("#, " + ", ".join(e.flags))
        prev = "#~| " if e.obsolete else "#| "
        if e.previous_ctxt is not None:
            lines += _field("msgctxt", e.previous_ctxt, prev)
        if e.previous is not None:
            lines += _field("msgid", e.previous, prev)
        pre = "#~ " if e.obsolete else ""
        if e.msgctxt is not None:
            lines += _field("msgctxt", e.msgctxt, pre)
        lines += _field("msgid", e.msgid, pre)
        lines += _field("msgstr", e.msgstr, pre)
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def write_po(path, entries) -> None:
    """Write ``entries`` to ``path`` as a ``.po`` file (UTF-8)."""
    p = _path(path)
    data = dumps(entries).encode("utf-8")       # Entry refuses what UTF-8 cannot hold
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)                   # the old file stays whole until the new one is
        os.replace(tmp, p)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise InvalidArgument(f"cannot write {p.name}: {type(e).__name__}", argument="path",
                              hint="a writable file path") from None


def header(language: str, project: str = "umkit") -> Entry:
    """The header entry (msgid "") of a catalogue in ``language``."""
    return Entry(msgid="", msgstr=(f"Project-Id-Version: {project}\n"
                                   f"Language: {language}\n"
                                   "MIME-Version: 1.0\n"
                                   "Content-Type: text/plain; charset=UTF-8\n"
                                   "Content-Transfer-Encoding: 8bit\n"))
