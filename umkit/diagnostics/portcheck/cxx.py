"""Just enough C++ for ``umkit port-check``: a tokenizer and a reader of calls, kernel
definitions, kernel launches and the few declarations the rules need.

The tokenizer drops comments and the contents of string and character literals (raw strings
included), joins lines continued with a backslash, keeps ``<<<`` / ``>>>`` launch brackets, and
reads digit separators (``1'000``).  Preprocessor directives are not code: ``#include`` and
``#pragma`` lines are dropped, ``#if 0`` blocks (and the ``#else`` of an ``#if 1``) are skipped --
and so is any condition whose value is known here: an integer constant expression over literals
and the object-like macros the file defines for certain before it (``#if 1-1``, ``#define OFF
0`` then ``#if OFF``, ``#if defined(X) && 0``), read with C's usual arithmetic conversions
(``(1 ? -1 : 0u) > 0`` is true); a macro a ``-D`` flag, a header or another condition may set
leaves every branch read (so does one set before an ``#include``: the header may redefine it,
and a name no one defines here may be unsigned) -- and the body of each ``#define`` is kept as a
separate token list, so that a call written inside a macro is still found (at the line of the
``#define``) and an object-like macro can be expanded one level when it stands for a flag or a
device id.  A runtime function called under another name is read as that function: an
object-like macro (``#define ALLOC cudaMallocManaged``) or a variable holding its address
(``auto f = cudaMallocManaged;``, within its block); where ``cudaMallocManaged``'s address goes
somewhere this reader cannot follow, the place is recorded (:attr:`Source.taken`).

The reader is deliberately approximate where C++ needs a compiler (overloads, types through
``auto``): it works on names, within one file.  :class:`Source` is the result.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

#: punctuators, longest first (``>>>`` is produced only while a ``<<<`` is open)
PUNCT = ("<<<", "...", "<<=", "->*", "::", "->", "<<", "<=", ">=", "==", "!=", "&&", "||",
         "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*")
STRING_PREFIXES = ("u8", "u", "U", "L")
RAW_PREFIXES = ("R", "u8R", "uR", "UR", "LR")
#: words before ``(`` that are not calls of a function of that name
NOT_CALLS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "alignof", "decltype",
             "static_assert", "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast",
             "__launch_bounds__", "__attribute__", "__declspec", "alignas", "noexcept",
             "typeid", "throw", "new", "delete", "defined", "operator"}
#: identifiers that may stand before a call without making it a declaration
BEFORE_CALL = {"return", "throw", "else", "do", "case", "co_return", "co_yield", "co_await",
               "not", "and", "or"}
#: what may stand between a function's ``)`` and its body
AFTER_PARAMS = {"const", "noexcept", "override", "final", "volatile", "mutable", "&", "&&",
                "__restrict__", "throw"}
MAX_BYTES = 2 << 20          # one source file; larger ones are refused (generated code)
MAX_TOTAL_BYTES = 32 << 20   # all the files of one run
MAX_DEPTH = 256              # brackets nested deeper than this: not hand-written code, refused
SCAN = 64                    # tokens a declaration or template-argument scan looks at


class TooDeep(ValueError):
    """Brackets nested more than :data:`MAX_DEPTH` deep (the caller names the file)."""
    def __init__(self, line: int):
        super().__init__(line)
        self.line = line


@dataclass(slots=True, unsafe_hash=True)
class Token:
    """One token; never changed once made (not ``frozen``: a frozen dataclass takes five times
    as long to build, and a 2 MiB file can hold two million tokens)."""
    kind: str                 # "id" | "num" | "str" | "op"
    text: str
    line: int
    pos: int                  # offset in the spliced text (adjacency checks)


class Arg:
    """One argument of a call: the code tokens ``seq[start:end]``, copied (and shown as text)
    only when a rule asks, so that nested calls cost no more than the file's length."""
    __slots__ = ("_seq", "_start", "_end", "_tokens", "_text")

    def __init__(self, seq, start: int, end: int):
        self._seq, self._start, self._end = seq, start, end
        self._tokens = self._text = None

    @property
    def tokens(self) -> tuple:
        if self._tokens is None:
            self._tokens = tuple(self._seq[self._start:self._end])
        return self._tokens

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = arg_text(self.tokens)
        return self._text

    @property
    def line(self) -> int:
        return self._seq[self._start].line if self._end > self._start else 0

    def ids(self) -> list[str]:
        return [t.text for t in self.tokens if t.kind == "id"]

    def __len__(self) -> int:
        return self._end - self._start

    def __eq__(self, other) -> bool:
        return isinstance(other, Arg) and self.tokens == other.tokens

    def __hash__(self) -> int:
        return hash(self.tokens)

    def __repr__(self) -> str:
        return f"Arg({self.text!r})"


@dataclass(frozen=True)
class Call:
    name: str
    line: int
    args: tuple               # of Arg
    index: int                # token index of the name in its stream
    qualifier: str = ""       # "std" for std::malloc, "" for plain or ::name
    template: str = ""        # explicit template arguments, as text
    in_macro: bool = False
    alias: str = ""           # the name written, when it stands for ``name`` (:class:`Aliased`)


@dataclass
class Function:
    name: str
    line: int
    params: list              # of Arg
    body: tuple               # (first, last) token index of the braces
    kernel: bool = False

    def param_names(self) -> list[str]:
        return [declared_name(p.tokens) for p in self.params]


@dataclass(frozen=True)
class Launch:
    kernel: str
    line: int
    args: tuple               # of Arg
    index: int


def declared_name(tokens) -> str:
    """The name a parameter or declarator declares: its last identifier before ``[``/``=``."""
    name = ""
    for t in tokens:
        if t.kind == "op" and t.text in ("[", "=", "{"):
            break
        if t.kind == "id":
            name = t.text
    return name


def arg_text(tokens) -> str:
    """Tokens back to compact source text (for flags and messages)."""
    out, prev, before = "", None, None
    for t in tokens:
        x = t.text
        unary = prev is not None and prev.text in ("&", "*", "-", "+") and (
            before is None or before.kind == "op" and before.text not in (")", "]"))
        if prev is None:
            out = x
        elif x in (",", ")", "]", ".", "->", "::", "[") or unary or \
                prev.text in ("(", "[", ".", "->", "::", "~", "!") or \
                (x == "(" and (prev.kind == "id" or prev.text in (")", "]", ">"))):
            out += x
        else:
            out += " " + x
        before, prev = prev, t
    return out


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def escape(text) -> str:
    """``text`` with every character that is not printable (newlines, terminal escapes, bidi
    and other format characters, line separators) written as a backslash escape, and the
    backslash itself doubled: a file name cannot add a line or control a terminal.  A byte of
    a name that is not UTF-8 is written ``\\xNN``, the byte itself."""
    text = str(text)
    if text.isprintable() and "\\" not in text:
        return text
    out = []
    for c in text:
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif c.isprintable():
            out.append(c)
        else:
            k = ord(c)
            if 0xDC80 <= k <= 0xDCFF:            # a byte of a name that is not UTF-8, as
                k -= 0xDC00                      # Python reads it (surrogateescape): the byte
            out.append(f"\\x{k:02x}" if k < 0x100 else f"\\u{k:04x}" if k < 0x10000
                       else f"\\U{k:08x}")
    return "".join(out)


# -- tokenizer --------------------------------------------------------------------------------
SPLICE = re.compile(r"\\\r?\n")
SPACE = re.compile(r"[ \t\f\v\r]+")
WORD = re.compile(r"[\w$]+")                  # after a letter, _ or $: letters, digits, _ and $
PUNCT_RE = re.compile("|".join(re.escape(p) for p in PUNCT))
RAW_OPEN = re.compile(r'"([^()\\\s]{0,16})\(')  # a raw string's opening: "delimiter(


def _splice(text: str):
    """The text with backslash-newlines removed, and a function from offset to line."""
    spliced, parts, last, removed = [], [], 0, 0
    for m in SPLICE.finditer(text):
        parts.append(text[last:m.start()])
        spliced.append(m.start() - removed)       # where the next line's text now starts
        removed += m.end() - m.start()
        last = m.end()
    parts.append(text[last:])
    clean = "".join(parts)
    newlines = [m.start() for m in re.finditer("\n", clean)]

    def line_of(pos: int) -> int:
        return 1 + bisect.bisect_left(newlines, pos) + bisect.bisect_right(spliced, pos)
    return clean, line_of


def tokenize(text: str):
    """(code tokens, directives): directives are lists of tokens, each starting with ``#``."""
    if text.startswith("\ufeff"):                 # a UTF-8 byte-order mark is not code
        text = text[1:]
    # CRLF (Windows) and a lone CR (classic Mac OS) both end a line
    src, line_of = _splice(text.replace("\r\n", "\n").replace("\r", "\n"))
    n = len(src)
    code, directives, current = [], [], None
    i, at_line_start, launches_open = 0, True, 0

    def emit(kind, tok, pos):
        (current if current is not None else code).append(Token(kind, tok, line_of(pos), pos))

    while i < n:
        c = src[i]
        if c == "\n":
            if current is not None:
                directives.append(current)
                current = None
            at_line_start = True
            i += 1
            continue
        if c in " \t\f\v\r":
            i = SPACE.match(src, i).end()
            continue
        if c == "/" and src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "/" and src.startswith("/*", i):
            j = src.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if c == "#" and at_line_start and current is None:
            current = [Token("op", "#", line_of(i), i)]
            at_line_start = False
            i += 1
            continue
        at_line_start = False
        if c.isalpha() or c == "_" or c == "$":
            j = WORD.match(src, i).end()
            word = src[i:j]
            if j < n and src[j] == '"' and word in RAW_PREFIXES:
                m = RAW_OPEN.match(src, j)         # at j: no copy of the rest of the file
                if m:
                    end = src.find(")" + m.group(1) + '"', m.end())
                    emit("str", '""', i)
                    i = n if end < 0 else end + len(m.group(1)) + 2
                    continue
            if j < n and src[j] in "\"'" and word in STRING_PREFIXES:
                i = _skip_quoted(src, j)
                emit("str", '""', j)
                continue
            emit("id", word, i)
            i = j
            continue
        if c.isdigit() or (c == "." and i + 1 < n and src[i + 1].isdigit()):
            j = i + 1
            while j < n:
                d = src[j]
                if d.isalnum() or d in "._":
                    j += 1
                elif d == "'" and j + 1 < n and src[j + 1].isalnum():
                    j += 1                        # a digit separator: 1'000'000
                elif d in "+-" and (src[j - 1] in "pP" or src[j - 1] in "eE" and
                                    not src[i:j].lower().startswith("0x")):
                    j += 1                        # an exponent: 1e-3, 0x1p+4
                else:
                    break
            emit("num", src[i:j].replace("'", ""), i)
            i = j
            continue
        if c in "\"'":
            end = _skip_quoted(src, i)
            emit("str", '""', i)
            i = end
            continue
        if src.startswith(">>>", i) and launches_open:
            launches_open -= 1
            emit("op", ">>>", i)
            i += 3
            continue
        m = PUNCT_RE.match(src, i)
        p = m.group() if m else c
        if p == "<<<":
            launches_open += 1
        emit("op", p, i)
        i += len(p)
    if current is not None:
        directives.append(current)
    return code, directives


def _skip_quoted(src: str, i: int) -> int:
    """The offset after the string or character literal that starts at ``src[i]``."""
    q, j, n = src[i], i + 1, len(src)
    while j < n:
        if src[j] == "\\" and j + 1 < n and src[j + 1] != "\n":
            j += 2
            continue
        if src[j] == q:
            return j + 1
        if src[j] == "\n":               # unterminated (an apostrophe in `#if 0` prose, in
            return j                     # `#warning don't`): it ends with its line, as in GCC
        j += 1
    return n


# -- directives -------------------------------------------------------------------------------
def _conditional(directives, code):
    """Drop the code tokens of dead conditional blocks (``#if 0``, the ``#else`` of an ``#if 1``);
    return the kept code tokens and the other directives outside dead blocks.  A condition is
    read when it is a constant (:func:`_constant`): an integer constant expression over
    literals and the object-like macros this file defines for certain before it (``#if 1-1``,
    ``#define OFF 0`` then ``#if OFF``, ``#if defined(X) && 0``).  One it cannot settle (a macro
    that ``-D``, a header or a condition may set) leaves every branch read."""
    stack, kept, ranges, since = [], [], [], None
    macros: dict = {}          # name -> ("object", body) | ("function",) | ("undef",) |
                               # ("unknown",): what this file makes of it for certain
    # the steps all conditions may take together (macros expanded): a few per token of the
    # directives, so that a long macro named by many short #if lines stays linear; past it,
    # a condition is not known (every branch read)
    budget = [COND_BUDGET * sum(len(d) for d in directives) + 4 * COND_TOKENS]

    def dead():
        return bool(stack) and (stack[-1][0] or stack[-1][1] in ("dead", "done"))

    def certain():             # every enclosing branch is known to be taken (or a guard)
        return not stack or stack[-1][3]

    def settle(frame):
        frame[3] = frame[2] and (frame[1] == "true" or frame[8])
    for d in sorted(directives, key=lambda d: d[0].pos):
        word = d[1].text if len(d) > 1 else ""
        before = dead()
        if stack and not before:
            top = stack[-1]
            if top[4] is not None and word == "define" and len(d) == 3 and \
                    d[2].text == top[4] and top[5]:
                top[8] = True                    # `#ifndef G` `#define G`: an include guard
                settle(top)
            top[5] = False
        lit = None
        if word in ("if", "elif"):
            lit = _constant(d[2:], macros, budget)
        elif word in ("ifdef", "ifndef", "elifdef", "elifndef") and len(d) > 2:
            known = _defined(d[2].text, macros)
            if known is not None:
                lit = "true" if known == word.endswith("ifdef") else "dead"
        if word in ("if", "ifdef", "ifndef"):
            guard = d[2].text if word == "ifndef" and len(d) == 3 else \
                _not_defined(d[2:]) if word == "if" else None
            # [outside dead, state, outside certain, certain, the name an include guard would
            # define, no directive inside yet, an earlier branch not known, an earlier branch
            # known taken, an include guard]
            frame = [before, lit or "live", certain(), False, guard, True, lit is None,
                     lit == "true", False]
            settle(frame)
            stack.append(frame)
        elif word in ("elif", "elifdef", "elifndef", "else") and stack:
            top = stack[-1]
            if top[1] in ("true", "done") or top[7]:
                state = "done"                   # an earlier branch is taken whenever this is
            else:
                branch = "true" if word == "else" else lit
                if branch == "dead":
                    state = "dead"
                elif branch == "true":
                    state, top[7] = ("live" if top[6] else "true"), True
                else:
                    state, top[6] = "live", True
            top[1], top[4], top[8] = state, None, False
            settle(top)
        elif word == "endif" and stack:
            stack.pop()
        elif not before:
            kept.append(d)
            if word in ("include", "include_next", "import"):
                # a header may #undef or redefine any macro: what this file set before it is
                # not known after it (each entry is cleared once: linear)
                macros.clear()
            elif word in ("define", "undef") and len(d) > 2 and d[2].kind == "id":
                name = d[2].text
                if not certain():                # set on one path only: -D or a header decides
                    macros[name] = ("unknown",)
                elif word == "undef":
                    macros[name] = ("undef",)
                elif len(d) > 3 and d[3].text == "(" and d[3].pos == d[2].pos + len(name):
                    macros[name] = ("function",)
                else:
                    macros[name] = ("object", d[3:])
        after = dead()
        if after and not before:
            since = d[0].pos
        elif before and not after:
            ranges.append((since, d[0].pos))
    if dead():
        ranges.append((since, float("inf")))
    if not ranges:
        return code, kept
    starts = [a for a, _ in ranges]

    def in_dead(pos):
        k = bisect.bisect_right(starts, pos) - 1
        return k >= 0 and ranges[k][0] <= pos < ranges[k][1]
    return [t for t in code if not in_dead(t.pos)], kept


def _not_defined(tokens) -> str | None:
    """``G`` for a condition ``!defined G`` or ``!defined(G)`` (an include guard's form)."""
    texts = [t.text for t in tokens]
    if texts[:2] == ["!", "defined"] and (len(texts) == 3 or len(texts) == 5 and
                                          texts[2] == "(" and texts[4] == ")"):
        return texts[-1] if len(texts) == 3 else texts[3]
    return None


def _defined(name: str, macros: dict) -> bool | None:
    """Whether ``name`` is a macro here for certain (True / False), or None: not known."""
    kind = macros.get(name, ("unknown",))[0]
    return None if kind == "unknown" else kind != "undef"


_INT_SUFFIX = re.compile(r"(?:[uU](?:ll|LL|[lLzZ])?|(?:ll|LL|[lLzZ])[uU]?)?$")


def _integer(text: str) -> int | None:
    """The value of a C++ integer literal (``0``, ``0L``, ``0x10u``, ``0b1``, ``010``), or None."""
    body = text[:_INT_SUFFIX.search(text).start()]
    low = body.lower()
    try:
        if low.startswith(("0x", "0b")):
            return int(low[2:], 16 if low[1] == "x" else 2)
        if len(low) > 1 and low.startswith("0"):
            return int(low[1:], 8)
        return int(low, 10) if low.isdigit() else None
    except ValueError:
        return None


#: at most this many tokens of an ``#if`` condition, its macros expanded, are evaluated
COND_TOKENS = 256
COND_DEPTH = 32               # parentheses and ``?:`` nested deeper: not evaluated
COND_BUDGET = 2               # steps of all conditions together, per token of the directives
_BITS = 1 << 64
#: binary operators of ``#if`` expressions, by precedence (higher binds tighter)
_BINARY = {"*": 10, "/": 10, "%": 10, "+": 9, "-": 9, "<<": 8, ">>": 8, "<": 7, ">": 7,
           "<=": 7, ">=": 7, "==": 6, "!=": 6, "&": 5, "^": 4, "|": 3, "&&": 2, "||": 1}
_WORD_OPS = {"and": "&&", "or": "||", "not": "!", "bitand": "&", "bitor": "|", "xor": "^",
             "compl": "~", "not_eq": "!=", "and_eq": None, "or_eq": None}


class _Unsure(Exception):
    """The condition cannot be evaluated here (a form this reader does not read)."""


def _cond_items(tokens, macros: dict, budget: list) -> list:
    """The condition as a flat list: ``(value, unsigned)`` for a number (``None`` value: not
    known), or an operator's text.  ``defined X`` is answered from ``macros``; the object-like
    macros defined here for certain are expanded (each not inside its own expansion); a name
    that is not one is not known (a ``-D`` flag or a header may define it).  Each step takes
    one from ``budget[0]``; none left: :class:`_Unsure`."""
    out: list = []
    work = [(list(tokens), 0, frozenset())]          # (tokens, next index, macros being expanded)
    steps = 0
    while work:
        toks, k, active = work[-1]
        steps += 1                                    # empty macros expand to nothing: count
        budget[0] -= 1                                # the steps, not only what they give
        if steps > 4 * COND_TOKENS or budget[0] < 0 or len(out) > COND_TOKENS or \
                len(work) > COND_DEPTH:
            raise _Unsure
        if k >= len(toks):
            work.pop()
            continue
        t = toks[k]
        x = t.text
        step = 1
        if x == "defined":
            if k + 1 < len(toks) and toks[k + 1].kind == "id":
                name, step = toks[k + 1].text, 2
            elif k + 3 < len(toks) and toks[k + 1].text == "(" and toks[k + 3].text == ")":
                name, step = toks[k + 2].text, 4
            else:
                raise _Unsure
            known = _defined(name, macros)
            out.append((None if known is None else int(known), False))
        elif t.kind == "num":
            v = _integer(x)
            if v is None or v >= _BITS:
                raise _Unsure                         # a floating literal, or too large
            out.append((v, v >= _BITS >> 1 or "u" in _INT_SUFFIX.search(x).group().lower()))
        elif t.kind == "id":
            op = _WORD_OPS.get(x, "")
            entry = macros.get(x)
            if x in ("true", "false"):
                out.append((int(x == "true"), False))
            elif op:
                out.append(op)
            elif op is None:
                raise _Unsure
            elif entry and entry[0] == "object" and x not in active:
                work[-1] = (toks, k + 1, active)
                work.append((entry[1], 0, active | {x}))
                continue
            elif entry and entry[0] == "undef":
                out.append((0, False))                # an identifier that is no macro: 0
            elif entry and entry[0] == "function" or k + 1 < len(toks) and \
                    toks[k + 1].text == "(":
                raise _Unsure                         # a function-like macro, __has_include
            else:
                out.append((None, None))              # neither its value nor its signedness
        elif t.kind == "op":
            out.append(x)
        else:
            raise _Unsure                             # a character or string literal
        work[-1] = (toks, k + step, active)
    return out


def _wrap(v: int, unsigned: bool | None) -> tuple:
    """``v`` as a 64-bit ``#if`` number; ``unsigned`` None: its signedness is not known (the
    bits are; shown as signed)."""
    v %= _BITS
    return (v, True) if unsigned else (v - _BITS if v >= _BITS >> 1 else v, unsigned)


def _common(ux, uy) -> bool | None:
    """C's usual arithmetic conversions: unsigned when either operand is; None when that
    depends on an operand whose signedness is not known."""
    if ux or uy:
        return True
    return None if None in (ux, uy) else False


def _apply(op: str, a: tuple, b: tuple) -> tuple:
    """``a op b`` for two ``(value, unsigned)`` numbers; a value of None is not known, and the
    result is known only when the known side settles it (``0 && X``, ``0 * X``, ``1 || X``).
    ``unsigned`` None: the signedness is not known (an operand no one can read here may be
    unsigned); a result that depends on it is not known either."""
    (x, ux), (y, uy) = a, b
    if op == "&&":
        return (0 if 0 in (x, y) else None if None in (x, y) else 1, False)
    if op == "||":
        return (1 if x not in (0, None) or y not in (0, None) else
                None if None in (x, y) else 0, False)
    if x is None or y is None:
        if op in ("*", "&") and 0 in (x, y):
            return (0, _common(ux, uy))
        return (None, None)
    if op in ("<<", ">>"):
        if y < 0 or y >= 64:
            raise _Unsure                             # undefined behaviour
        if op == ">>" and ux is None and x < 0:
            return (None, None)                       # arithmetic or logical: not known
        return _wrap(x << y if op == "<<" else x >> y, ux)
    unsigned = _common(ux, uy)
    if unsigned is None and (x < 0 or y < 0) and op in ("<", ">", "<=", ">=", "/", "%"):
        return (None, None)                           # depends on the signedness
    if unsigned:
        x, y = x % _BITS, y % _BITS
    if op in ("<", ">", "<=", ">=", "==", "!="):
        return (int({"<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y, "==": x == y,
                     "!=": x != y}[op]), False)
    if op in ("/", "%"):
        if y == 0:
            raise _Unsure
        q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)   # C: toward zero
        return _wrap(q if op == "/" else x - q * y, unsigned)
    return _wrap({"*": x * y, "+": x + y, "-": x - y, "&": x & y, "^": x ^ y,
                  "|": x | y}[op], unsigned)


def _evaluate(items: list) -> int | None:
    """The value of the condition ``items`` (:func:`_cond_items`), None when not known.
    Precedence climbing, one pass; nesting deeper than :data:`COND_DEPTH` is not evaluated."""
    pos = 0

    def primary(depth):
        nonlocal pos
        if depth > COND_DEPTH or pos >= len(items):
            raise _Unsure
        x = items[pos]
        pos += 1
        if isinstance(x, tuple):
            return x
        if x == "(":
            v = expression(depth + 1)
            if pos >= len(items) or items[pos] != ")":
                raise _Unsure
            pos += 1
            return v
        if x in ("!", "~", "-", "+"):
            v, u = primary(depth + 1)
            if v is None:
                return None, False if x == "!" else u
            if x == "!":
                return int(v == 0), False
            return _wrap({"~": ~v, "-": -v, "+": v}[x], u)
        raise _Unsure

    def binary(depth, least):
        nonlocal pos
        left = primary(depth)
        while pos < len(items) and isinstance(items[pos], str) and \
                _BINARY.get(items[pos], 0) >= least:
            op = items[pos]
            pos += 1
            right = binary(depth + 1, _BINARY[op] + 1)
            left = _apply(op, left, right)
        return left

    def expression(depth):
        nonlocal pos
        cond = binary(depth, 1)
        if pos < len(items) and items[pos] == "?":
            pos += 1
            a = expression(depth + 1)
            if pos >= len(items) or items[pos] != ":":
                raise _Unsure
            pos += 1
            b = expression(depth + 1)
            # C's usual arithmetic conversions: with one operand unsigned, the result is
            # unsigned whichever is chosen (``(1 ? -1 : 0u) > 0`` is true)
            u = _common(a[1], b[1])
            a = a if a[0] is None else _wrap(a[0], u)
            b = b if b[0] is None else _wrap(b[0], u)
            if cond[0] is None:
                return a if a == b else (None, None)
            return a if cond[0] else b
        return cond

    v = expression(0)
    if pos != len(items):
        raise _Unsure
    return v[0]


def _constant(tokens, macros: dict | None = None, budget: list | None = None) -> str | None:
    """``"dead"`` or ``"true"`` for an ``#if`` condition whose value is known here, else None:
    an integer constant expression (every operator of C's, ``?:``, ``defined``, ``true`` /
    ``false``) over integer literals and the object-like macros in ``macros`` (what
    :func:`_conditional` knows for certain at that line).  An operand that is not known makes
    the value unknown unless the rest settles it (``0 && X``, ``0 * X``, ``1 || X``)."""
    if len(tokens) > COND_TOKENS:
        return None
    try:
        v = _evaluate(_cond_items(tokens, macros or {}, budget or [4 * COND_TOKENS]))
    except (_Unsure, RecursionError):
        return None
    return None if v is None else "true" if v else "dead"


@dataclass
class Macro:
    name: str
    line: int
    params: list | None       # None: object-like
    body: list                # tokens
    pos: int = 0              # where the ``#define`` is (a use expands the last one before it)
    variadic: bool = False    # ``(...)`` or ``(a, ...)``: ``__VA_ARGS__`` takes the rest


def _macros(directives) -> list[Macro]:
    out = []
    for d in directives:
        if len(d) < 3 or d[1].text != "define" or d[2].kind != "id":
            continue
        name, body = d[2], d[3:]
        params, variadic = None, False
        if body and body[0].text == "(" and body[0].pos == name.pos + len(name.text):
            close = next((k for k, t in enumerate(body) if t.text == ")"), len(body) - 1)
            params = [t.text for t in body[1:close] if t.kind == "id"]
            variadic = any(t.text == "..." for t in body[1:close])
            body = body[close + 1:]
        body = [t for t in body if t.text not in ("#", "##")]
        out.append(Macro(name.text, name.line, params, body, d[0].pos, variadic))
    return out


#: HIP spellings read as the CUDA names the rules know (hipified code, ``.hip`` files): the names
#: table's HIP -> CUDA column, except where one HIP name has two CUDA forms
HIP_AS_CUDA = {"hipHostMalloc": "cudaHostAlloc",           # (ptr, size, flags): the flags form
               "hipMemPrefetchAsync_v2": "cudaMemPrefetchAsync_v2",
               "hipMemAdvise_v2": "cudaMemAdvise_v2"}
#: at most this many tokens of macro expansions per token of the file (keeps the reader linear)
EXPANSION_BUDGET = 4


def _hip_names() -> dict:
    from ...backends import names
    out = {h: r.cuda for h, r in names.BY_HIP.items() if r.cuda}
    out.update(HIP_AS_CUDA)
    return out


def _as_cuda(tokens, table) -> list:
    """``tokens`` with HIP identifiers renamed to their CUDA names (position and line kept)."""
    return [Token("id", table[t.text], t.line, t.pos) if t.kind == "id" and t.text in table
            else t for t in tokens]


def _expand(m: Macro, args, limit: float = float("inf")) -> tuple[list, list] | None:
    """The body of function-like macro ``m`` with its parameters replaced by ``args`` (Arg
    objects), and for each token whether it came from the body; None, with nothing built, if
    that would be more than ``limit`` tokens.  A parameter without an argument stands for
    nothing a rule could take for a variable's name."""
    index = {p: k for k, p in enumerate(m.params or ())}
    n_named = len(m.params or ())
    rest_len = 0                          # __VA_ARGS__: a comma before each argument that
    for a in args[n_named:]:              # follows a non-empty one
        rest_len += (rest_len > 0) + len(a)
    size = 0
    for t in m.body:                      # the length first: a parameter used many times
        k = index.get(t.text) if t.kind == "id" else None    # over a long argument is
        if t.kind == "id" and t.text == "__VA_ARGS__" and m.variadic:   # refused unbuilt
            size += rest_len
        elif k is not None and k < len(args):
            size += len(args[k])
        else:
            size += 1
    if size > limit:
        return None
    body, from_body = [], []
    for t in m.body:
        k = index.get(t.text) if t.kind == "id" else None
        if t.kind == "id" and t.text == "__VA_ARGS__" and m.variadic:
            rest = []
            for a in args[n_named:]:
                if rest:
                    rest.append(Token("op", ",", t.line, t.pos))
                rest.extend(a.tokens)
            body += rest
            from_body += [False] * len(rest)
        elif k is None:
            body.append(t)
            from_body.append(True)
        elif k < len(args):
            body += args[k].tokens
            from_body += [False] * len(args[k])
        else:
            body.append(Token("op", "?", t.line, t.pos))
            from_body.append(False)
    return body, from_body


# -- names that stand for a runtime function ---------------------------------------------------
@dataclass(slots=True, unsafe_hash=True)
class Aliased(Token):
    """A name used in place of another: ``ALLOC`` after ``#define ALLOC cudaMallocManaged``, or
    ``f`` after ``auto f = cudaMallocManaged;``.  ``text`` is the name it stands for, ``alias``
    the name written."""
    alias: str = ""


_ALIAS_NOISE = frozenset(("(", ")", "&", "::"))


#: C allocators an alias may stand for (besides the runtime's functions and the atomics)
C_ALLOCATORS = frozenset(("malloc", "calloc", "realloc", "aligned_alloc", "posix_memalign",
                          "valloc", "memalign", "pvalloc"))


def _runtime_functions() -> frozenset:
    """The names an alias is followed to: the names table's CUDA functions, the CUDA 13 forms
    HIP's ``_v2`` calls are read as, the C allocators and the atomics (``atomicAdd`` ...).
    A name that stands for anything else is left as written, so that ``#define
    cudaMallocManaged myManaged`` still reads as the managed allocation it wraps."""
    from ...backends import names
    return frozenset(r.cuda for r in names.rows() if r.cuda and r.kind == "function") | \
        frozenset(HIP_AS_CUDA.values()) | C_ALLOCATORS


def _followed_to(name: str, functions: frozenset) -> bool:
    return name in functions or name.startswith("atomic")


def _macro_aliases(macros, functions: frozenset) -> dict:
    """name -> [(position, the function it stands for or None)] for every object-like
    ``#define`` of a name that stands for one of ``functions`` (``#define ALLOC
    cudaMallocManaged``, ``(::cudaMallocManaged)``, ``&cudaMallocManaged``), chains followed
    (``#define A B`` ``#define B cudaFree``)."""
    defs: dict = {}
    for m in macros:
        if m.params is not None:
            continue
        ids = [t for t in m.body if t.text not in _ALIAS_NOISE]
        single = len(ids) == 1 and ids[0].kind == "id" and ids[0].text != m.name
        defs.setdefault(m.name, []).append((m.pos, ids[0].text if single else None))
    for name, ds in defs.items():
        out = []
        for pos, target in ds:
            seen = {name}
            while target in defs and target not in seen and len(seen) < 16:
                seen.add(target)
                target = defs[target][-1][1] or target
            out.append((pos, target if target and _followed_to(target, functions) else None))
        defs[name] = out
    return {n: ds for n, ds in defs.items() if any(t for _, t in ds)}


def _macro_alias_at(defs: dict, name: str, pos: int) -> str | None:
    ds = defs.get(name)
    if not ds:
        return None
    k = bisect.bisect_right(ds, pos, key=lambda d: d[0]) - 1
    return ds[k][1] if k >= 0 else None


def _at_call(tokens, i: int) -> bool:
    """Whether the name ``tokens[i]`` is called: ``name(`` or ``(name)(``."""
    n = len(tokens)
    if i + 1 >= n:
        return False
    nxt = tokens[i + 1].text
    return nxt == "(" or nxt == ")" and i and tokens[i - 1].text == "(" and \
        i + 2 < n and tokens[i + 2].text == "("


def _declarator(tokens, eq: int, match) -> str | None:
    """The name a declaration or assignment ending just before ``tokens[eq]`` (an ``=``)
    gives a value: ``f`` in ``auto f =``, ``g =``, ``cudaError_t (*f)(void**, size_t) =``."""
    j = eq - 1
    if j < 0:
        return None
    if tokens[j].kind == "id":
        return tokens[j].text if j == 0 or tokens[j - 1].text not in (".", "->") else None
    if tokens[j].text != ")":                     # a function pointer: (*f)(parameters)
        return None
    opener = next((k for k in range(j - 1, max(-1, j - SCAN), -1)
                   if tokens[k].text == "(" and match.get(k) == j), None)
    if opener is None or opener < 1 or tokens[opener - 1].text != ")":
        return None
    close = opener - 1
    inner = next((k for k in range(close - 1, max(-1, close - 8), -1)
                  if tokens[k].text == "(" and match.get(k) == close), None)
    if inner is None:
        return None
    body = tokens[inner + 1:close]
    if not body or body[0].text not in ("*", "&") or body[-1].kind != "id":
        return None
    return body[-1].text


def follow_aliases(code, macros, match):
    """``code`` (and the bodies of ``macros``) with every called name that stands for a
    runtime function replaced by an :class:`Aliased` token of that function: object-like
    macros (after their ``#define``) and variables given a runtime function's address
    (``auto f = cudaMallocManaged;`` or ``auto f{cudaMallocManaged};``, within the block that
    declares them); and the places
    where a runtime function is taken as a value this reader does not follow (passed to a
    function, stored in a table or a member), as (token, name) pairs."""
    functions = _runtime_functions()
    defs = _macro_aliases(macros, functions)
    if defs:                                      # a body is read where it is used: the
        INF = float("inf")                        # last definition of a name it calls
        for m in macros:
            if m.params is not None and any(t.text in defs for t in m.body):
                m.body = [Aliased("id", target, t.line, t.pos, t.text)
                          if t.kind == "id" and _at_call(m.body, k) and
                          (target := _macro_alias_at(defs, t.text, INF)) else t
                          for k, t in enumerate(m.body)]
    n = len(code)
    variables = []                                # (position of the =, name, function)
    followed = set()                              # token indices of the values followed
    known = {}                                    # variable -> the function (in file order)
    for i in [k for k, t in enumerate(code) if t.text in ("=", "{")]:
        brace = code[i].text == "{"               # auto f{cudaMallocManaged};
        if code[i].kind != "op" or i + 2 >= n or brace and (i < 1 or code[i - 1].kind != "id"):
            continue
        j = i + 1
        while j < n and code[j].text in ("&", "::"):
            j += 1
        if j + 1 >= n or code[j].kind != "id" or \
                code[j + 1].text not in (("}",) if brace else (";", ",")):
            continue
        target = _macro_alias_at(defs, code[j].text, code[j].pos) or code[j].text
        target = target if _followed_to(target, functions) else known.get(target)
        name = _declarator(code, i, match) if target else None
        if name and name != target:
            variables.append((i, name, target))
            known[name] = target
            followed.add(j)
    scope = {}                                    # position of the = -> its block's end
    if variables:
        at, stack, k = [v[0] for v in variables], [], 0
        for i, t in enumerate(code):
            while k < len(at) and at[k] == i:
                scope[i] = match.get(stack[-1], n - 1) if stack else n - 1
                k += 1
            if t.text == "{" and t.kind == "op":
                stack.append(i)
            elif t.text == "}" and t.kind == "op" and stack:
                stack.pop()
    by_name: dict = {}
    for i, name, target in variables:
        by_name.setdefault(name, []).append((i, scope[i], target))
    out, taken = code, []
    if defs or by_name:
        out = list(code)
        for i, t in enumerate(code):
            if t.kind != "id" or (t.text not in defs and t.text not in by_name) or \
                    not _at_call(code, i):
                continue
            target = _macro_alias_at(defs, t.text, t.pos)
            ds = by_name.get(t.text) if target is None else None
            if ds:                                # the nearest declaration before the use
                k = bisect.bisect_left(ds, i, key=lambda d: d[0])   # whose block holds it
                target = next((f for a, b, f in reversed(ds[max(0, k - 8):k]) if i <= b),
                              None)
            if target:
                out[i] = Aliased("id", target, t.line, t.pos, t.text)
    watch = VALUE_WATCH | {a for a, ds in defs.items() if any(f in VALUE_WATCH for _, f in ds)}
    for i in [k for k, t in enumerate(out) if t.text in watch]:
        t = out[i]
        if t.kind != "id" or i in followed:
            continue
        name = t.text if t.text in VALUE_WATCH else _macro_alias_at(defs, t.text, t.pos)
        if name in VALUE_WATCH and not _at_call(out, i) and _a_value(out, i):
            taken.append((t, name))
    return out, taken


#: runtime functions whose address, taken where this reader cannot follow it, is reported
VALUE_WATCH = frozenset(("cudaMallocManaged",))


def _a_value(tokens, i: int) -> bool:
    """Whether the name ``tokens[i]`` (not called) is used as a value: not a template's name,
    a declaration, ``using``, ``decltype(...)``, ``sizeof(...)``."""
    n = len(tokens)
    if i + 1 < n and tokens[i + 1].text in ("<", "::"):
        return False
    k = i - 1
    while k >= 0 and tokens[k].text in ("::", "&"):
        k -= 1
    if k < 0:
        return True
    before = tokens[k]
    if before.text == "(" and k and tokens[k - 1].text in ("decltype", "sizeof", "typeid",
                                                           "noexcept", "alignof"):
        return False
    return before.text not in ("using", "friend") and not (
        before.kind == "id" and before.text not in BEFORE_CALL)


# -- the reader -------------------------------------------------------------------------------
class Brackets(dict):
    """Index of each opening bracket -> index of its closing partner, for one token list; it
    also holds that list's template-argument tables (built on the first question)."""
    __slots__ = ("tokens", "_angles")

    def __init__(self, tokens):
        super().__init__()
        self.tokens, self._angles = tokens, None

    def angles(self) -> tuple:
        """For each index ``j``, on the walk :func:`template_end` takes from ``j`` (a bracket
        group skipped whole): where it first meets a ``>`` or a token that ends template
        arguments (``len(tokens)`` if none), how many ``<`` it passes before that, and the
        last index of another token it passes (-1 if none).  One pass, right to left, so
        that each ``<`` costs a few steps instead of a scan of up to 64 tokens."""
        if self._angles is None:
            toks, n = self.tokens, len(self.tokens)
            stop, lts, last = [n] * (n + 1), [0] * (n + 1), [-1] * (n + 1)
            for j in range(n - 1, -1, -1):
                t = toks[j].text
                if t == ">" or t in _ANGLE_STOPS:
                    stop[j] = j
                elif t in _OPENERS:
                    k = min(self.get(j, j) + 1, n)
                    stop[j], lts[j], last[j] = stop[k], lts[k], last[k]
                elif t == "<":
                    stop[j], lts[j], last[j] = stop[j + 1], lts[j + 1] + 1, last[j + 1]
                else:
                    stop[j], lts[j] = stop[j + 1], lts[j + 1]
                    last[j] = last[j + 1] if last[j + 1] >= 0 else j
            self._angles = (stop, lts, last)
        return self._angles


#: what ends a template-argument scan (``{`` opens a group and is skipped, as ``(`` and ``[``)
_ANGLE_STOPS = frozenset((";", "}", ")", "]", "&&", "||", "<<<"))
_OPENERS = frozenset(("(", "[", "{"))


_PAIRS = {"(": ")", "[": "]", "{": "}", "<<<": ">>>"}
_CLOSING = {v: k for k, v in _PAIRS.items()}
_BRACKET_TEXTS = frozenset(_PAIRS) | frozenset(_CLOSING)


def brackets(tokens) -> Brackets:
    """Index of each opening ``( [ {`` and ``<<<`` -> index of its closing partner (tolerant:
    an unclosed opener maps to the end)."""
    pairs, closing = _PAIRS, _CLOSING
    out, stack = Brackets(tokens), []
    for i, t in enumerate(tokens):
        x = t.text
        if x not in _BRACKET_TEXTS or t.kind != "op":
            continue
        if x in pairs:
            if len(stack) >= MAX_DEPTH:
                raise TooDeep(t.line)
            stack.append(i)
        else:
            want = closing[x]
            while stack and tokens[stack[-1]].text != want:
                out[stack.pop()] = i             # an unbalanced opener inside
            if stack:
                out[stack.pop()] = i
    for i in stack:
        out[i] = len(tokens) - 1
    return out


def template_end(tokens, i: int, match: dict) -> int | None:
    """If ``tokens[i]`` is ``<`` opening template arguments, the index of its ``>``: the walk
    from ``i`` that counts ``<`` and ``>``, skips bracket groups, and gives up at a token that
    cannot be inside template arguments or at any other token more than 64 past ``i``."""
    if isinstance(match, Brackets) and match.tokens is tokens and tokens[i].text == "<":
        stop, lts, last = match.angles()      # the same walk, from one ``>`` to the next
        depth, j, n, limit = 0, i, len(tokens), i + 64
        while True:
            if last[j] > limit:
                return None
            depth += lts[j]
            g = stop[j]
            if g >= n or tokens[g].text != ">":
                return None
            depth -= 1
            if depth == 0:
                return g
            j = g + 1
    depth, j, n = 0, i, len(tokens)
    while j < n:
        t = tokens[j].text
        if t == "<":
            depth += 1
        elif t == ">":
            depth -= 1
            if depth == 0:
                return j
        elif t in ("(", "[", "{"):
            j = match.get(j, j)
        elif t in (";", "{", "}", ")", "]", "&&", "||", "<<<") or j - i > 64:
            return None
        j += 1
    return None


_SPLIT_SKIPS = frozenset(("(", "[", "{", "<<<"))


def split_args(tokens, open_i: int, close_i: int, match: dict) -> tuple:
    """The comma-separated arguments between ``tokens[open_i]`` and ``tokens[close_i]``."""
    args, start, j = [], open_i + 1, open_i + 1
    while j < close_i:                    # each argument is the tokens between two commas
        t = tokens[j]
        text = t.text
        if text == ",":
            args.append(Arg(tokens, start, j))
            start = j = j + 1
            continue
        if text in _SPLIT_SKIPS and t.kind == "op":
            j = match.get(j, j) + 1
            continue
        if text == "<" and j > start and tokens[j - 1].kind == "id":
            end = template_end(tokens, j, match)
            if end is not None and end < close_i and tokens[end + 1].text in ("(", "::", "{",
                                                                               ",", ")", ">"):
                j = end + 1
                continue
        j += 1
    end = min(j, close_i)
    if end > start or args:
        args.append(Arg(tokens, start, end))
    return tuple(args)


@dataclass
class Source:
    """One file, read: its code tokens, macros, calls, functions and kernel launches."""
    path: str
    tokens: list
    macros: list
    match: dict = field(default_factory=dict)
    calls: list = field(default_factory=list)
    functions: list = field(default_factory=list)
    launches: list = field(default_factory=list)
    uses_std: bool = False    # ``using namespace std;`` or ``using std::...;`` seen
    taken: list = field(default_factory=list)   # (token, function): an address not followed
    _owner: tuple | None = field(default=None, repr=False)
    _ends: list | None = field(default=None, repr=False)
    _objects: dict | None = field(default=None, repr=False)

    @classmethod
    def parse(cls, text: str, path: str = "<text>") -> "Source":
        code, directives = tokenize(text)
        code, directives = _conditional(directives, code)
        hip = _hip_names()
        code = _as_cuda(code, hip)
        directives = [_as_cuda(d, hip) for d in directives]
        src = cls(path, code, _macros(directives))
        try:
            src.match = brackets(code)
            followed, src.taken = follow_aliases(code, src.macros, src.match)
            if followed is not code:                 # names replaced: the same brackets
                code = src.tokens = followed
                src.match = brackets(code)
            macro_brackets = [brackets(m.body) for m in src.macros]
        except TooDeep as e:
            from ...errors import InvalidArgument
            raise InvalidArgument(f"{escape(path)}:{e.line}: brackets nested more than {MAX_DEPTH} deep "
                                  "(or that many left open)", argument="paths",
                                  hint="port-check reads hand-written sources; leave generated "
                                       "or broken files out") from None
        src.uses_std = any(code[k].text == "using" and k + 1 < len(code) and
                           (code[k + 1].text == "namespace" and k + 2 < len(code) and
                            code[k + 2].text == "std" or code[k + 1].text == "std")
                           for k in range(len(code)))
        src.calls = _calls(code, src.match)
        src.functions = _functions(code, src.match)
        src.launches = _launches(code, src.match)
        src.calls += src._macro_calls(macro_brackets)
        src.calls.sort(key=lambda c: (c.index, c.line))
        for c in src.calls:                          # HIP's launch macro, as a launch
            if c.name == "hipLaunchKernelGGL" and len(c.args) >= 5 and c.args[0].ids():
                src.launches.append(Launch(c.args[0].ids()[-1], c.line, c.args[5:], c.index))
        return src

    def _macro_calls(self, macro_brackets) -> list:
        """The calls written inside macros.  A function-like macro is expanded (one level) at
        each use in the code, its parameters replaced by the use's arguments, so that
        ``ALLOC(buf, n)`` over ``#define ALLOC(p, n) cudaMallocManaged(&p, n)`` allocates
        ``buf`` at the line of the use; calls the use's arguments hold are found in the code
        already and are not counted twice.  A macro never used here (or past the expansion
        budget) is read at its ``#define``, with its parameters standing for nothing."""
        out, code, match = [], self.tokens, self.match
        with_calls = {}                              # name -> [(pos, macro, its calls)]
        for m, mm in zip(self.macros, macro_brackets):
            calls = _calls(m.body, mm)
            if calls and m.params is not None:
                with_calls.setdefault(m.name, []).append((m.pos, m))
            elif calls:
                out += [Call(c.name, m.line, c.args, -1, c.qualifier, c.template, True,
                             c.alias) for c in calls]
        if not with_calls:
            return out
        used, budget = set(), EXPANSION_BUDGET * len(code) + 4096
        read = {c.index: c.args for c in self.calls if not c.in_macro}   # same split, done
        for i, t in enumerate(code):
            defs = with_calls.get(t.text) if t.kind == "id" else None
            if not defs or i + 1 >= len(code) or code[i + 1].text != "(" or \
                    (i and code[i - 1].text in (".", "->", "::")):
                continue
            k = bisect.bisect_right(defs, t.pos, key=lambda d: d[0]) - 1
            if k < 0:
                continue                             # used before it is defined
            m = defs[k][1]
            args = read.get(i)                       # the code's own call there, if any
            if args is None:
                args = split_args(code, i + 1, match.get(i + 1, len(code) - 1), match)
            expanded = _expand(m, args, budget)
            if expanded is None:                     # past the budget
                break
            body, from_body = expanded
            budget -= len(body)
            used.add(id(m))
            try:
                bm = brackets(body)
            except TooDeep:
                continue
            out += [Call(c.name, t.line, c.args, i, c.qualifier, c.template, True, c.alias)
                    for c in _calls(body, bm, from_body)]
        for defs in with_calls.values():
            for _, m in defs:
                if id(m) not in used:
                    body, _ = _expand(m, ())
                    out += [Call(c.name, m.line, c.args, -1, c.qualifier, c.template, True,
                                 c.alias) for c in _calls(body, brackets(body))]
        return out

    def object_macro(self, name: str) -> list | None:
        """The body tokens of the object-like macro ``name`` (the last definition), or None."""
        if self._objects is None:                # one pass, not one per question
            self._objects = {m.name: m.body for m in self.macros if m.params is None}
        return self._objects.get(name)

    def function_at(self, index: int) -> Function | None:
        """The innermost function whose body holds code token ``index``."""
        if self._owner is None:             # bodies by start, each with its enclosing one
            order = sorted(range(len(self.functions)), key=lambda k: self.functions[k].body)
            bodies = [self.functions[k].body for k in order]
            parent, stack = [], []
            for a, b in bodies:
                while stack and bodies[stack[-1]][1] < a:
                    stack.pop()
                parent.append(stack[-1] if stack else -1)
                stack.append(len(parent) - 1)
            self._owner = (order, [a for a, _ in bodies], bodies, parent)
        order, starts, bodies, parent = self._owner
        k = bisect.bisect_right(starts, index) - 1
        while k >= 0 and bodies[k][1] < index:
            k = parent[k]
        return self.functions[order[k]] if k >= 0 else None

    def statement_end(self, i: int) -> int:
        """The index of the ``;`` (or closing brace) that ends the statement holding ``i``."""
        n = len(self.tokens)
        if i >= n:
            return n - 1
        if self._ends is None:              # where a walk from each token stops, right to left
            toks, ends = self.tokens, [n - 1] * (n + 1)
            for j in range(n - 1, -1, -1):
                t = toks[j].text
                if t in (";", "}", ")") or (t == "{" and j and
                                            toks[j - 1].text not in ("=", ",", "(")):
                    ends[j] = j
                elif t in ("(", "[", "{"):
                    ends[j] = ends[max(self.match.get(j, j), j) + 1]
                else:
                    ends[j] = ends[j + 1]
            self._ends = ends
        t = self.tokens[i].text
        if t in ("(", "[", "{"):
            return self._ends[max(self.match.get(i, i), i) + 1]
        if t in (";", "}", ")"):
            return i
        return self._ends[i]


def _calls(tokens, match, names_at=None) -> list[Call]:
    """The calls in ``tokens``; with ``names_at`` (one bool per token), only those whose name
    is at a true position (a macro's expansion: names from its body, not from its arguments,
    whose calls the code's own reading has)."""
    out = []
    n = len(tokens)
    for i, t in enumerate(tokens):
        if t.kind != "id" or t.text in NOT_CALLS or (names_at is not None and not names_at[i]):
            continue
        j, template = i + 1, ""
        if j < n and tokens[j].text == "<":
            end = template_end(tokens, j, match)
            if end is None:
                continue
            template = arg_text(tokens[j + 1:end])
            j = end + 1
        qualifier, k = "", i - 1
        if j < n and tokens[j].text == ")" and tokens[j].kind == "op":
            # a parenthesised name, `(cudaMallocManaged)(&p, n)` or `(::f)(...)`: still a call
            # (the parentheses only stop a function-like macro of that name from expanding)
            o = k - (k >= 0 and tokens[k].text == "::") - \
                (k >= 2 and tokens[k].text == "::" and tokens[k - 1].kind == "id")
            if o < 0 or tokens[o].text != "(" or match.get(o) != j:
                continue
            if o < k:
                qualifier = tokens[k - 1].text if tokens[k - 1].kind == "id" else ""
            j, k = j + 1, o - 1
            if j >= n or tokens[j].text != "(":
                continue
        elif j >= n or tokens[j].text != "(":
            continue
        elif k >= 0 and tokens[k].text == "::":
            if k >= 1 and tokens[k - 1].kind == "id":
                qualifier = tokens[k - 1].text
                k -= 2
            else:
                k -= 1                              # ::name: the global one
        if k >= 0 and tokens[k].text in (".", "->", ".*", "->*"):
            continue                                # a member function
        if k >= 0 and tokens[k].kind == "id" and tokens[k].text not in BEFORE_CALL:
            continue                                # a declaration: `cudaError_t name(...)`
        close = match.get(j, n - 1)
        out.append(Call(t.text, t.line, split_args(tokens, j, close, match), i, qualifier,
                        template, alias=getattr(t, "alias", "")))
    return out


def _functions(tokens, match) -> list[Function]:
    out = []
    opener_of = {b: a for a, b in match.items() if tokens[a].text == "("}
    for k, t in enumerate(tokens):
        if t.text != "{" or t.kind != "op":
            continue
        j = k - 1
        while j >= 0 and (tokens[j].text in AFTER_PARAMS or tokens[j].kind == "num"):
            j -= 1
        if j >= 0 and tokens[j].text == ")" and tokens[j].kind == "op":
            opener = opener_of.get(j)
            if opener is None or opener < 1:
                continue
            name = tokens[opener - 1]
            if name.kind != "id" or name.text in NOT_CALLS:
                continue
            head = opener - 2
            kernel = False
            while head >= 0 and tokens[head].text not in (";", "}", "{"):
                if tokens[head].text == "__global__":
                    kernel = True
                head -= 1
            out.append(Function(name.text, name.line, list(split_args(tokens, opener, j, match)),
                                (k, match.get(k, len(tokens) - 1)), kernel))
    return out


def _launches(tokens, match) -> list[Launch]:
    out = []
    for i, t in enumerate(tokens):
        if t.text != "<<<" or t.kind != "op":
            continue
        j = i - 1
        if j >= 0 and tokens[j].text == ">":          # kernel<float><<<...>>>
            depth, stop = 0, max(-1, j - SCAN)
            while j > stop:
                if tokens[j].text == ">":
                    depth += 1
                elif tokens[j].text == "<":
                    depth -= 1
                    if depth == 0:
                        break
                j -= 1
            else:
                continue                              # no `<` near: not a template launch
            j -= 1
        if j < 0 or tokens[j].kind != "id":
            continue
        close = match.get(i, i)
        if close + 1 < len(tokens) and tokens[close + 1].text == "(":
            end = match.get(close + 1, len(tokens) - 1)
            out.append(Launch(tokens[j].text, tokens[j].line,
                              split_args(tokens, close + 1, end, match), i))
    return out
