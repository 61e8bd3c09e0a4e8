"""A task language's own small tables, and which language a text is in.

The model-free planner reads a few words of a task as words: which carry no meaning, how a
plural or a possessive ends, which stand for something said before, which join a task's parts.
Those belong to the language the task is written in, not to the platform it runs on: each
language is one :class:`Language` (``english.py``, ``spanish.py``), and a text's language is
the registered one whose function words it uses most (:func:`of`). Numbers, dates and times
are read by kept libraries (``numbers.py``), not by tables here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

#: A word: letters, digits and the marks that stay inside one ("09:30", "wikiverse.org",
#: "Oslo's", "20°C", "anna@example.org").
WORD = re.compile(r"[\w°$€£%.:'’@-]+")


@dataclass(frozen=True, slots=True)
class Language:
    """One task language. Empty fields switch the rules that read them off."""

    #: ISO 639-1 code, as the number and date libraries name languages ("en", "es").
    code: str
    #: Words that carry no meaning of their own ("the", "please", "what").
    stopwords: frozenset[str] = frozenset()
    #: Folded off words longer than four letters, not when doubled ("bookmarks", "glass").
    plural_suffix: str = ""
    #: Words that, after a number, are the screens' "%" ("70 percent").
    percent_words: tuple[str, ...] = ()
    #: Endings of a possessive ("Oslo's temperature" names Oslo).
    possessive_suffixes: tuple[str, ...] = ()
    #: Words that stand for something the task said before ("add it to the calendar").
    pronouns: frozenset[str] = frozenset()
    #: Words before a noun phrase that are no part of a thing's name ("the trip").
    articles: tuple[str, ...] = ()
    #: Prepositions opening a date, time or place detail of a thing ("a trip ... on Jul 24").
    detail_prepositions: tuple[str, ...] = ()
    #: Words that open a question.
    question_words: frozenset[str] = frozenset()
    #: Verbs whose object question wants its answer passed on ("Tell Dana who sings X").
    answer_verbs: frozenset[str] = frozenset()
    #: Words joining the parts of a task ("open the note and text it").
    clause_joiners: tuple[str, ...] = ()
    #: Words joining the items of an enumeration besides commas ("A, B and C", "A or B").
    list_joiners: tuple[str, ...] = ()
    #: Words that stand for an enumeration of no items ("Select nothing").
    empty_list_words: frozenset[str] = frozenset()
    #: Words that give a thing its name, which follows them ("a page named garden").
    naming_words: frozenset[str] = frozenset()
    #: Words that mark the thing they describe as one to make, not one to find ("a new page").
    new_words: frozenset[str] = frozenset()
    #: What a question asks for, as the words of the screen fields that answer it.
    question_fields: Mapping[str, frozenset[str]] = field(default_factory=dict)
    #: The FreeDict dictionary from English to this language ("eng-spa"; ``glossary``), and
    #: the Snowball stemmer that meets its entries' forms ("spanish"): a task in this
    #: language is glossed with the recordings' English words. Empty: none.
    dictionary: str = ""
    stemmer: str = ""

    def __hash__(self) -> int:  # the mapping field is not hashable; the code names it
        return hash(self.code)


#: No language: every rule that reads words switches off.
NONE = Language("")

_REGISTERED: dict[str, Language] = {}
_ACTIVE: ContextVar[Language | None] = ContextVar("guigraph_task_language", default=None)
#: (text, the task's language code) -> (the task's language, the text's) (``of``).
_LANGUAGE_OF: dict[tuple[str, str], tuple[Language, Language]] = {}
LANGUAGE_MEMO = 16384


def register(language: Language) -> Language:
    _REGISTERED[language.code] = language
    _LANGUAGE_OF.clear()
    return language


def registered() -> dict[str, Language]:
    _load_builtin()
    return dict(_REGISTERED)


def get(code: str) -> Language:
    """The language registered as ``code``; a clear error names the known ones."""
    from guigraph.errors import ConfigError

    _load_builtin()
    if code not in _REGISTERED:
        raise ConfigError(f"task language {code!r}: expected one of {sorted(_REGISTERED)}")
    return _REGISTERED[code]


def _load_builtin() -> None:
    if not _REGISTERED:
        from guigraph.language import english, spanish

        register(english.ENGLISH)
        register(spanish.SPANISH)


def default() -> Language:
    """The language of a text that shows none: the task's, else English."""
    active = _ACTIVE.get()
    if active is not None:
        return active  # asked a million times a plan: the task's, without loading the others
    _load_builtin()
    return _REGISTERED["en"]


@contextmanager
def using(language: Language) -> Iterator[Language]:
    """Make ``language`` the task's for a block (texts that show no language of their own
    are read in it)."""
    token = _ACTIVE.set(language)
    try:
        yield language
    finally:
        _ACTIVE.reset(token)


def of(text: str) -> Language:
    """The language ``text`` is written in: the registered one whose function words it says
    most; a text that says none (a name, "Play Blue Roads") or as many of two is read in
    the task's language (:func:`default`)."""
    fallback = default()
    # Remembered per text and fallback code, the fallback itself checked by identity (a test's
    # variant of a language has its code): planning asks about the same few texts a million
    # times, and hashing a language (a call of its own) was most of an answer.
    key = (text, fallback.code)
    known = _LANGUAGE_OF.get(key)
    if known is not None and known[0] is fallback:
        return known[1]
    if len(_LANGUAGE_OF) >= LANGUAGE_MEMO:
        _LANGUAGE_OF.clear()  # an evaluation of many tasks: keep the memory bounded
    language = _language_of(text, fallback)
    _LANGUAGE_OF[key] = (fallback, language)
    return language


def _language_of(text: str, fallback: Language) -> Language:
    _load_builtin()
    said = [w.lower() for w in WORD.findall(text)]
    votes = {
        code: sum(w in language.stopwords for w in said)
        for code, language in sorted(_REGISTERED.items())
    }
    best = max(votes.values(), default=0)
    winners = [code for code, n in votes.items() if n == best]
    # A text saying no function word, or as many of the task's language as of another, is
    # read in the task's language.
    keep = best == 0 or (len(winners) > 1 and fallback.code in winners)
    code = fallback.code if keep else winners[0]
    # The task's own language object where the codes agree (a variant of its tables, in a
    # test, stays in force).
    return fallback if code == fallback.code else _REGISTERED.get(code, fallback)
