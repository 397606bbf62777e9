"""The catalogues umkit ships: one ``.po`` file per language beside this module
(``umkit/i18n/<lang>.po``), each mapping umkit's English messages (templates with ``{field}``s,
see :mod:`umkit.runtime.lang`) to that language.  A second language is one more file."""
from __future__ import annotations

import threading
import types
import warnings
from pathlib import Path

from ..errors import InvalidArgument
from .po import read_po

HERE = Path(__file__).resolve().parent
_lock = threading.Lock()
_loaded: dict = {}
_listed: list = [None]         # languages(), listed once per generation
_generation = [0]              # counts forget(): a reader that compiled a table knows it is old


def catalogue_file(lang: str) -> Path:
    """Where the catalogue of ``lang`` lives (whether or not there is one)."""
    if not isinstance(lang, str) or not _name_ok(lang):
        shown = repr(lang)[:40] if isinstance(lang, str) else type(lang).__name__
        raise InvalidArgument(f"lang={shown} is not a language name", argument="lang",
                              hint="a language code such as 'zh'")
    return HERE / f"{lang}.po"


def _name_ok(lang: str) -> bool:
    return lang.isidentifier() and lang == lang.lower() and len(lang) <= 16


def languages() -> list[str]:
    """The languages with a catalogue, besides English (the messages' own language): the files
    ``<lang>.po`` whose name is a language code umkit accepts (lower case, a Python identifier).
    Listed once, until :func:`forget`."""
    with _lock:
        if _listed[0] is None:
            _listed[0] = sorted(p.stem for p in HERE.glob("*.po") if _name_ok(p.stem) and p.stem != "en")
        return list(_listed[0])


def messages(lang: str) -> dict:
    """English template -> translation for ``lang`` (a read-only mapping): every entry with a translation
    that is not marked fuzzy (a fuzzy one was made for older English, so the English is shown
    instead); empty for a language without a catalogue.  Read once per process.  A catalogue
    that cannot be read is not a learner's problem: one warning names the file and the line,
    and umkit prints English."""
    path = catalogue_file(lang)
    with _lock:
        if lang not in _loaded:
            table = {}
            if path.exists():
                try:
                    entries = read_po(path)
                except InvalidArgument as e:          # POError too: a broken or unreadable file
                    warnings.warn(f"umkit: the {lang!r} catalogue cannot be read, so umkit prints "
                                  f"English: {e.message}", RuntimeWarning, stacklevel=2)
                    entries = []
                for e in entries:
                    if (e.msgid and e.msgstr.strip() and not e.fuzzy and not e.obsolete
                            and e.msgctxt is None):
                        table[e.msgid] = e.msgstr
            _loaded[lang] = types.MappingProxyType(table)
        return _loaded[lang]


def generation() -> int:
    """How many times :func:`forget` has run: a cache built from :func:`messages` is current
    while this number is the one it was built at."""
    return _generation[0]


def forget() -> None:
    """Drop the catalogues read so far: the next :func:`messages` reads the files again (after a
    translator edited one in a running session, or a test pointed :data:`HERE` elsewhere)."""
    with _lock:
        _loaded.clear()
        _listed[0] = None
        _generation[0] += 1
