"""The language of what umkit prints for a learner: the exercises' checks (all three hint tiers),
the widgets' labels, ``umkit.explain`` and the doctor's report.  English is the default and the
key: a message is written in English where it is made, and :func:`tr` turns the finished English
text into the current language from a catalogue (``umkit/i18n/zh.po``, a gettext file).  A text with no entry
stays English, so a message that changed since it was translated is shown in English, never
wrongly.

A catalogue entry is an English template and its translation.  Templates have ``{name}`` fields
standing for the values a message is made with (``"case {case}: got {got}"``); a finished
message matches a template when the literal text around the fields is the same (each literal
taken where it first occurs: one pass, linear in the message), and the fields' values go into the
translated template as they are: a value is never translated (a learner's own exception text
``"prefetch"``, a prediction's name, a path stays what it was).  The one exception is a field
that stands for a part of the message umkit itself wrote in English (the ``{hint}`` after a
row's own text, the ``{why}`` of a slip): its name is in :data:`PART_FIELDS` or starts with
``part``, and its text is translated in turn before it goes in.
Fields whose name starts with ``code`` match one word of code (an argument's name), those
starting with ``list`` a bracketed Python list or tuple, and those starting with ``nums``
numbers separated by commas.
A message with no entry that is made of parts joined by ``"; "`` is translated part by part.

The language, first match wins:

1. :func:`set_language` (``umkit.use(..., lang="zh")`` calls it);
2. the environment variable ``UMKIT_LANG`` (``bash run.sh --lang zh`` sets it);
3. a file ``.umkit-lang`` holding the language's name in the current folder or one above it
   (the Chinese workspace and ``notebooks/zh/`` have one, so the Chinese notebooks run the same
   code cells as the English ones and print Chinese);
4. English.
"""
from __future__ import annotations

import os
import re
import threading
import types
from pathlib import Path

from .. import i18n
from ..errors import InvalidArgument, UmkitError

MARKER = ".umkit-lang"
ENV = "UMKIT_LANG"

_lock = threading.Lock()
_marker_cache: dict = {}                  # folder -> the language its marker names (or None)
_compiled: dict = {}                      # language -> (exact entries, templates for _match)
_compiled_at: list = [None]               # the catalogues' generation _compiled was built from
_FIELD = re.compile(r"\{(\w+)\}")
#: what a field matches, by the start of its name: ``code*`` one word of code (an argument's
#: name, an identifier), ``list*`` a Python list / tuple / dict shown with its brackets, ``nums*``
#: numbers and the commas between them ("2, 3"), so that a template cannot swallow the message
#: parts after it.  Any other field matches any text.
_FIELD_RX = {"code": r"\S+", "list": r"[\[\(\{].*[\]\)\}]", "nums": r"\d[\d., ]*"}
_TAGS = re.compile(r"(<[^>]*>)")
#: the fields whose text is umkit's own English (a sentence, a hint, a card's title), translated
#: in turn; every other field is a value and goes into the translation as it is
PART_FIELDS = frozenset({"hint", "why", "reason", "fix", "message", "about", "questions",
                         "question", "concept", "caption", "summary", "agg", "title", "short",
                         "how", "what", "who", "kaccess", "detail", "cause", "note", "ask",
                         "band", "parts", "counters", "now", "verdict"})


def is_part(field: str) -> bool:
    """Whether a template's ``{field}`` holds a part of umkit's own message (translated in turn)
    rather than a value (kept as it is)."""
    return field in PART_FIELDS or field.startswith("part")


def _norm(lang) -> str | None:
    if not isinstance(lang, str):
        return None
    low = lang.strip().lower().replace("_", "-").split(".", 1)[0]   # zh_CN.UTF-8 as LANG writes it
    if low in ("zh", "zh-cn", "zh-hans", "cn", "chinese", "中文"):
        return "zh"
    if low in ("en", "en-us", "en-gb", "english", "c", "posix"):
        return "en"
    if low.isidentifier() and low in _catalogued():
        return low                          # a language with a catalogue of its own (umkit/i18n/)
    return None


def _catalogued() -> list[str]:
    return i18n.languages()


def set_language(lang: str | None) -> str:
    """Choose the language for this process: ``"en"`` or ``"zh"`` (``"zh-CN"`` too); ``None``
    goes back to ``UMKIT_LANG``, the workspace's marker, or English.  Returns the language now
    in effect."""
    if lang is not None and _norm(lang) is None:
        from ..validate import shown
        raise InvalidArgument(f"lang={shown(lang)} is not a language umkit speaks", argument="lang",
                              hint=f"one of {('en', *_catalogued())} (or None for UMKIT_LANG / the workspace's)")
    _runtime().choose_language(_norm(lang) if lang is not None else None)
    return language()


def chosen() -> str | None:
    """What :func:`set_language` chose for this process (None: the environment, the marker or
    English decide) -- so that a caller can put it back.  The choice lives in the runtime
    context (:class:`umkit.runtime.context.Runtime`), with the rest of umkit's process state."""
    return _runtime().chosen_language()


class _Unattached:
    """Where the choice is kept until the runtime context attaches itself (it does as it is
    made, on ``import umkit``): the same two methods as the context's."""

    def __init__(self):
        self._lang = None

    def choose_language(self, lang):
        self._lang = lang

    def chosen_language(self):
        return self._lang


_context: list = [_Unattached()]


def attach(context) -> None:
    """The runtime context keeps the language choice (:meth:`Runtime.choose_language`); it calls
    this once as it is made (this module cannot import it: the context imports this module)."""
    _context[0] = context


def _runtime():
    return _context[0]


def _from_marker() -> str | None:
    try:
        here = Path.cwd()
    except OSError:
        return None
    key = str(here)
    if key in _marker_cache:
        return _marker_cache[key]
    found = None
    for folder in (here, *here.parents):
        f = folder / MARKER
        try:
            if f.is_file():
                with open(f, "rb") as fh:       # a language's name: never more than 256 bytes
                    raw = fh.read(256)
                # a text editor may write a byte-order mark, or UTF-16 (Windows Notepad)
                enc = "utf-16" if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
                found = _norm(raw.decode(enc, errors="replace").strip()) or "en"
                break
        except OSError:
            break
    with _lock:
        if len(_marker_cache) > 64:          # a process that wanders through many folders
            _marker_cache.clear()
        _marker_cache[key] = found
    return found


def language() -> str:
    """The language umkit prints in now: ``"en"`` or ``"zh"``."""
    chosen = _runtime().chosen_language()
    if chosen is not None:
        return chosen
    env = _norm(os.environ.get(ENV, ""))
    if env is not None:
        return env
    return _from_marker() or "en"


def catalogue(lang: str):
    """The entries of ``lang``: English template -> translation, a read-only mapping (empty for
    English), from the gettext catalogue umkit ships for it (``umkit/i18n/<lang>.po``,
    :func:`umkit.i18n.messages`)."""
    lang = _norm(lang)
    if lang is None or lang == "en":
        return types.MappingProxyType({})
    return i18n.messages(lang)


def reload_catalogues() -> None:
    """Read the catalogues (``umkit/i18n/*.po``) again on next use, with the templates compiled
    from them: after a translator edited one in a running session."""
    i18n.forget()                               # _tables compiles afresh at the new generation


def _tables(lang: str):
    gen = i18n.generation()
    if _compiled_at[0] != gen:                  # umkit.i18n.forget() ran: compile afresh
        with _lock:
            _compiled.clear()
            _compiled_at[0] = gen
    if lang not in _compiled:
        exact, patterns = {}, []
        for en, zh in catalogue(lang).items():
            if not _FIELD.search(en):
                exact[en] = zh
                continue
            parts = _FIELD.split(en)          # literal, field, literal, field, ..., literal
            fields = [(name, re.compile(_FIELD_RX.get(name[:4], ".+") + r"\Z", re.S))
                      for name in parts[1::2]]
            patterns.append((parts[::2], fields, zh, sum(len(p) for p in parts[::2])))
        patterns.sort(key=lambda t: -t[3])      # the most specific template first
        with _lock:
            _compiled[lang] = (exact, patterns)
    return _compiled[lang]


def _match(literals, fields, text):
    """The fields' values when ``text`` is the template made of ``literals`` and ``fields``,
    else None.  Each literal is taken where it first occurs after the field before it (the last
    one at the end of the text): one pass, time linear in the text, whatever the text holds.  A
    field is at least one character; a field used twice must hold the same text twice."""
    first, last = literals[0], literals[-1]
    if not text.startswith(first) or len(text) < len(first) + len(last) + len(fields) \
            or not text.endswith(last):
        return None
    pos, end, values = len(first), len(text) - len(last), {}
    for i, (name, rx) in enumerate(fields):
        if i + 1 < len(fields):
            lit = literals[i + 1]
            at = text.find(lit, pos + 1, end) if lit else pos + 1
            if at < 0:
                return None
        else:
            at = end
        value = text[pos:at]
        if not value or not rx.match(value) or values.setdefault(name, value) != value:
            return None
        pos = at + len(literals[i + 1])
    return values


#: a list of numbers or article sections ("2, 3", "§5.1, §3.3"): Chinese lists them with 、
_NUMBER_LIST = re.compile(r"§?\d+(?:\.\d+)*(?:, §?\d+(?:\.\d+)*)+")


def _listed(value: str, lang: str) -> str:
    """``value``, when it is a list of numbers or sections, with the list separator of ``lang``
    (Chinese: 、, never an ASCII comma); any other value as it is."""
    if lang == "zh" and isinstance(value, str) and _NUMBER_LIST.fullmatch(value):
        return value.replace(", ", "、")
    return value


def tr(text, lang: str | None = None, _depth: int = 0):
    """``text`` (a finished English message) in ``lang`` (default: :func:`language`); unchanged
    when the catalogue has no entry for it, or when it is not a string."""
    if not isinstance(text, str) or not text:
        return text
    lang = _norm(lang) if lang is not None else language()
    if lang in (None, "en"):
        return text
    exact, patterns = _tables(lang)
    hit = exact.get(text)
    if hit is not None:
        return hit
    stripped = text.strip()
    if stripped != text and stripped in exact:
        return text[:len(text) - len(text.lstrip())] + exact[stripped] + \
            text[len(text.rstrip()):]
    if _NUMBER_LIST.fullmatch(text):
        return _listed(text, lang)
    if _depth > 2:
        return text
    if " | " in text and "\n" not in text and "`" not in text:
        # an answer of several lines joined by " | ": each line's own entry wins over a general
        # template whose fields would swallow the joined lines
        lines = text.split(" | ")
        done = [_tr_piece(line, lang, _depth) for line in lines]
        if done != lines:
            return " | ".join(done)
    for literals, fields, zh, _ in patterns:
        found = _match(literals, fields, text)
        if found is not None:
            values = {k: tr(v, lang, _depth + 1) if is_part(k) else _listed(v, lang)
                      for k, v in found.items()}
            return _FIELD.sub(lambda f: values.get(f.group(1), f.group(0)), zh)
    if "; " in text:                     # a message made of parts: part by part
        parts = text.split("; ")
        done = [_tr_piece(p, lang, _depth) for p in parts]
        if done != parts:
            return "；".join(done)
    return text


def _tr_piece(piece: str, lang: str, depth: int) -> str:
    """One piece of a message cut at " | " or "; ": translated when it is a phrase (three words or
    more) -- the lines and parts umkit joins are -- and left as it is when it is a word or two,
    which is what a value containing the separator leaves (a path 'a | prefetch | b.json' must
    not become 'a | 预取 | b.json')."""
    if len(piece.split()) < 3:
        return piece
    return tr(piece, lang, depth + 1)


def tr_parts(text, sep: str = " · ", lang: str | None = None):
    """``text`` made of parts joined by ``sep`` (a status line: ``"running #1: step 14 / 40 ·
    median 0.0852 ms"``), translated part by part, so that no template's field swallows the
    parts after it; unchanged in English."""
    if not isinstance(text, str) or not text:
        return text
    return sep.join(tr(p, lang) for p in text.split(sep))


def text(template: str, lang: str | None = None, **fields) -> str:
    """``template.format(**fields)`` in the current language (the translated template filled
    with the same fields, when there is one)."""
    lang = _norm(lang) if lang is not None else language()
    if lang not in (None, "en"):
        zh = catalogue(lang).get(template)
        if zh is not None:
            return zh.format(**fields)
    return template.format(**fields)


class Localized(dict):
    """A dict of English texts that a notebook prints (an exercise's cases, a job's buffers),
    whose values read in the learner's language: ``d[k]``, ``d.get(k)``, ``d.values()``,
    ``d.items()`` and ``repr(d)`` give :func:`tr` of the English values, so the same code cell
    (``for k, v in nb09.CASES.items(): print(k, v)``) prints Chinese in the Chinese workspace.
    The keys, ``len``, ``in`` and ``==`` are the plain dict's; in English nothing changes."""

    def __getitem__(self, key):
        return tr(super().__getitem__(key))

    def get(self, key, default=None):
        return tr(super().get(key, default))

    def values(self):
        return [tr(v) for v in super().values()]

    def items(self):
        return [(k, tr(v)) for k, v in super().items()]

    def __repr__(self):
        return repr(dict(self.items()))


#: fonts with Chinese glyphs that matplotlib may find here, in order of preference
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN",
             "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "Droid Sans Fallback", "Microsoft YaHei",
             "SimHei", "PingFang SC", "Heiti SC", "AR PL UMing CN", "Noto Sans CJK JP")
#: file names of such fonts, for a font installed after matplotlib cached its font list
CJK_FONT_FILES = ("wqy", "notosanscjk", "notoserifcjk", "notosanssc", "sourcehansans",
                  "droidsansfallback", "simhei", "msyh", "pingfang", "uming")
_fonts: dict = {}                          # "cjk" -> the font found (or None), once per process
_HAN = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


NO_FIGURE_FONT = ("no font that draws Chinese was found, so the figures' Chinese text shows as "
                  "empty boxes: install one (Debian/Ubuntu: apt-get install fonts-wqy-microhei; "
                  "or fonts-noto-cjk) and restart the kernel")


def figure_font() -> str | None:
    """The first of :data:`CJK_FONTS` that matplotlib knows here, or None (then figures keep
    their English: a Chinese label in a font without Chinese glyphs would be empty boxes)."""
    if "cjk" not in _fonts:
        try:
            from matplotlib import font_manager
            have = {f.name for f in font_manager.fontManager.ttflist}
            if not any(f in have for f in CJK_FONTS):   # installed after the cache was made?
                for path in font_manager.findSystemFonts():
                    base = os.path.basename(path).lower().replace("-", "").replace("_", "")
                    if base.startswith(CJK_FONT_FILES):
                        font_manager.fontManager.addfont(path)
                have = {f.name for f in font_manager.fontManager.ttflist}
        except Exception:  # noqa: BLE001 - no matplotlib, or a broken font cache: English
            have = set()
        with _lock:
            _fonts["cjk"] = next((f for f in CJK_FONTS if f in have), None)
    return _fonts["cjk"]


def for_figure(text, lang: str | None = None):
    """``text`` for a matplotlib figure: :func:`tr` of it when matplotlib has a font that
    draws Chinese here (:func:`figure_font`), else the English."""
    lang = _norm(lang) if lang is not None else language()
    if lang in (None, "en") or not isinstance(text, str) or figure_font() is None:
        return text
    return "\n".join(tr(line, lang) for line in text.split("\n"))


def figure_fonts(fig):
    """Give every text of ``fig`` that holds Chinese the font :func:`figure_font` found (Latin
    letters fall back to DejaVu Sans); returns ``fig``.  A no-op where nothing is Chinese."""
    if fig is None:
        return fig
    from matplotlib.text import Text
    han = [t for t in fig.findobj(Text) if _HAN.search(t.get_text() or "")]
    font = figure_font() if han else None
    for t in han if font is not None else ():
        t.set_fontfamily([font, "DejaVu Sans"])
    return fig


def use_figure_font(lang: str | None = None) -> str | None:
    """Let matplotlib draw the notebook's language: in Chinese, the font :func:`figure_font`
    found is added to ``rcParams["font.family"]`` as the fallback (Latin letters keep the fonts
    before it, a character they lack is drawn in that font).  Returns the font, or None where nothing
    changed (English, no matplotlib, or no font that draws Chinese here)."""
    lang = _norm(lang) if lang is not None else language()
    if lang in (None, "en"):
        return None
    font = figure_font()
    if font is None:
        import warnings
        warnings.warn(text(NO_FIGURE_FONT, lang), UserWarning, stacklevel=2)
        return None
    import matplotlib
    family = [f for f in matplotlib.rcParams["font.family"] if f != font]
    matplotlib.rcParams["font.family"] = family + [font]
    return font


def localize(widget, lang: str | None = None, _seen=None):
    """Translate a widget tree's fixed texts in place -- each ``description``, ``tooltip`` and
    ``placeholder``, and the ``value`` of text-only widgets (``HTML``, ``Label``) -- and return
    the widget.  Duck-typed (no ipywidgets import); the values of choices (a dropdown's options)
    are left alone, since code reads them.  A no-op in English."""
    lang = _norm(lang) if lang is not None else language()
    if lang in (None, "en") or widget is None:
        return widget
    seen = set() if _seen is None else _seen
    if id(widget) in seen:
        return widget
    seen.add(id(widget))
    for attr in ("description", "tooltip", "placeholder"):
        v = getattr(widget, attr, None)
        if isinstance(v, str) and v:
            done = tr(v, lang)
            if done != v:
                try:
                    setattr(widget, attr, done)
                except Exception:  # noqa: BLE001 - a read-only trait keeps its English
                    pass
    if type(widget).__name__ in ("HTML", "Label", "HTMLMath"):
        v = getattr(widget, "value", None)
        if isinstance(v, str) and v:
            done = tr(v, lang)
            if done == v and "<" in v:          # markup: the text between the tags, piece by piece
                done = "".join(part if part.startswith("<") or not part.strip() else
                               tr(part, lang) for part in _TAGS.split(v))
            if done != v:
                widget.value = done
    for child in getattr(widget, "children", ()) or ():
        localize(child, lang, seen)
    return widget


# a umkit error's str() -- what a traceback, print(err) and explain show -- in the learner's
# language; its message and hint fields stay English
UmkitError.localize = staticmethod(tr)
