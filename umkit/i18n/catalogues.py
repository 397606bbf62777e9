"""The catalogues umkit ships: one ``.po`` file per language beside this module
(``umkit/i18n/<lang>.po``), each mapping umkit's English messages (templates with ``{field}``s,
see :mod:`umkit.runtime.lang`) to that language.  A second language is one more file."""
from __future__ import annotations

import threading
from pathlib import Path

from ..errors import InvalidArgument
from .po import read_po

HERE = Path(__file__).resolve().parent
_lock = threading.Lock()
_loaded: dict = {}


def catalogue_file(lang: str) -> Path:
    """Where the catalogue of ``lang`` lives (whether or not there is one)."""
    if not isinstance(lang, str) or not lang.isidentifier() or len(lang) > 16:
        shown = repr(lang)[:40] if isinstance(lang, str) else type(lang).__name__
        raise InvalidArgument(f"lang={shown} is not a language name", argument="lang",
                              hint="a language code such as 'zh'")
    return HERE / f"{lang}.po"


def languages() -> list[str]:
    """The languages with a catalogue, besides English (the messages' own language)."""
    return sorted(p.stem for p in HERE.glob("*.po"))


def messages(lang: str) -> dict:
    """English template -> translation for ``lang``: every entry with a translation that is not
    marked fuzzy (a fuzzy one was made for older English, so the English is shown instead);
    empty for a language without a catalogue.  Read once per process."""
    path = catalogue_file(lang)
    with _lock:
        if lang not in _loaded:
            table = {}
            if path.exists():
                for e in read_po(path):
                    if e.msgid and e.msgstr and not e.fuzzy and not e.obsolete and e.msgctxt is None:
                        table[e.msgid] = e.msgstr
            _loaded[lang] = table
        return _loaded[lang]


def forget() -> None:
    """Drop the catalogues read so far: the next :func:`messages` reads the files again (after a
    translator edited one in a running session, or a test pointed :data:`HERE` elsewhere)."""
    with _lock:
        _loaded.clear()
