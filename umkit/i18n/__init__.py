"""umkit's translations: the gettext ``.po`` catalogues it ships (:mod:`.catalogues`: one file per
language, ``umkit/i18n/<lang>.po``) and the reader and writer of that format (:mod:`.po`).  Which
language is printed, and how a finished English message finds its entry, is
:mod:`umkit.runtime.lang`."""
from ..doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "Entry": "po",
    "POError": "po",
    "parse": "po",
    "read_po": "po",
    "dumps": "po",
    "write_po": "po",
    "messages": "catalogues",
    "catalogue_file": "catalogues",
    "languages": "catalogues",
    "forget": "catalogues",
    "generation": "catalogues",
    "po": ".",
    "catalogues": ".",
})
