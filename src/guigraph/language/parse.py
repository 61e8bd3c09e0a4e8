"""A task parsed once: the ``ParsedTask`` every later step reads.

Planning asks the same few instructions for their words, their content words, their clauses
and the texts they set off thousands of times per episode; each is worked out here once per
text (and language) and kept. Every token keeps its place in the text and its folded form
(lower case, the plural and possessive endings of the language folded off), so that what
later steps compare is case-insensitive by construction.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, field

from guigraph.language import tables
from guigraph.language.glossary import glosses
from guigraph.language.numbers import with_digits
from guigraph.language.tables import WORD, Language

_EDGE_PUNCT = ".,:;!?'’"
#: A quoted value: the quote opens after a space (not the apostrophe of "Bruno's").
QUOTED = re.compile(r"(?:^|(?<=\s))[\"“']([^\"”']{1,80})[\"”'](?=$|[\s.,!?;:])")
#: A mark that sets off what follows as the content ("Message Farah: On my way").
SEPARATOR = re.compile(r"(?<=\w)\s*([:—–])\s+")
#: A phrase set off by a pair of spaced dashes (hyphen, en or em dash): " - Laundry - ".
DASHED = re.compile(r"(?:^|(?<=\s))[-–—]\s+([^-–—]{1,80}?)\s+[-–—](?=\s|$)")


@dataclass(frozen=True, slots=True)
class Token:
    """One word of a text: as written, folded, and where it stands (``start``/``end`` in the
    text as parsed)."""

    text: str
    folded: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ParsedTask:
    """An instruction, parsed once in its language."""

    text: str
    language: Language
    tokens: tuple[Token, ...]
    #: Texts in quotes ("Post 'Trying a new recipe' on Acme").
    quoted: tuple[str, ...]
    #: The quoted texts, else what follows the one separating mark, unless a pronoun there
    #: refers back ("The note Ideas can go: delete it" sets off what to do, not a text).
    set_off: tuple[str, ...]
    #: Every part of a task in several steps, however short ("bookmark it" too).
    parts: tuple[str, ...]
    #: The text with one spelling per unit ("70 percent" -> "70%"; ``normalize_units``).
    units: str
    #: What the task's own words translate to in English, the recordings' language
    #: ("compra" -> "buy", "purchase", ...; ``glossary``), none a word it says itself.
    #: Empty for a language with no dictionary (English).
    glosses: tuple[str, ...] = ()
    # Read many times per plan, so made once with the record (``__post_init__``).
    words: tuple[str, ...] = field(init=False)
    lowered: tuple[str, ...] = field(init=False)
    #: The folded words that carry meaning, as the task says them.
    own_content: tuple[str, ...] = field(init=False)
    #: ``own_content`` (repeats kept), then the words of the recordings' language they
    #: translate to (``glosses``).
    content: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        words = tuple(t.text for t in self.tokens)
        stop = self.language.stopwords
        own = tuple(t.folded for t in self.tokens if t.folded not in stop)
        object.__setattr__(self, "words", words)
        object.__setattr__(self, "lowered", tuple(w.lower() for w in words))
        object.__setattr__(self, "own_content", own)
        object.__setattr__(self, "content", own + self.glosses)

    @property
    def content_counts(self) -> Counter[str]:
        return Counter(self.content)

    @property
    def clauses(self) -> tuple[str, ...]:
        """The parts with at least two words that carry meaning ("16:00" after a date's
        comma is no part)."""
        return tuple(p for p in self.parts if len(set(parse(p, self.language).content)) >= 2)

    @property
    def all_lower(self) -> bool:
        """Written without capitals at all (speech-to-text, a phone keyboard)."""
        return any(c.isalpha() for c in self.text) and self.text == self.text.lower()


#: (text, language code) -> the text parsed (``parse``).
_PARSED: dict[tuple[str, str], ParsedTask] = {}
PARSE_MEMO = 16384


#: (text, the task language's code) -> (the task's language, the text parsed in its own).
_AS_WRITTEN: dict[tuple[str, str], tuple[Language, ParsedTask]] = {}


def parse(text: str, language: Language | None = None) -> ParsedTask:
    """``text`` parsed in ``language`` (default: the language it is written in)."""
    if language is None:
        return _as_written(text)
    # Keyed by the language's code, the language itself checked by identity (a test's
    # variant of a language has its code): hashing a language is a call of its own, and
    # planning asks for the same few texts a million times.
    key = (text, language.code)
    known = _PARSED.get(key)
    if known is not None and known.language is language:
        return known
    if len(_PARSED) >= PARSE_MEMO:
        _PARSED.clear()  # an evaluation of many tasks: keep the memory bounded
    parsed = _PARSED[key] = _parse(text, language)
    return parsed


def _as_written(text: str) -> ParsedTask:
    """``text`` parsed in the language it is written in. Most calls are these, the same texts
    again and again while a task is planned: remembered under the task's language (the one a
    text that shows none is read in), checked by identity as ``tables.of`` does."""
    fallback = tables.default()
    key = (text, fallback.code)
    known = _AS_WRITTEN.get(key)
    if known is not None and known[0] is fallback:
        return known[1]
    if len(_AS_WRITTEN) >= PARSE_MEMO:
        _AS_WRITTEN.clear()
    parsed = parse(text, tables.of(text))
    _AS_WRITTEN[key] = (fallback, parsed)
    return parsed


def _parse(text: str, language: Language) -> ParsedTask:
    units = normalize_units(text, language)
    tokens = tuple(_tokens(units, language))
    quoted = tuple(QUOTED.findall(text))
    return ParsedTask(
        text, language, tokens, quoted, quoted or _after_mark(text, language),
        tuple(_parts(text, language.clause_joiners)), units, _glosses(tokens, language),
    )  # fmt: skip


def _glosses(tokens: tuple[Token, ...], language: Language) -> tuple[str, ...]:
    if not language.dictionary:
        return ()
    own = {t.folded for t in tokens if t.folded not in language.stopwords}
    found = {g for word in own for g in glosses(word, language.dictionary, language.stemmer)}
    return tuple(sorted(found - own))


def _tokens(text: str, language: Language) -> list[Token]:
    found = []
    for match in WORD.finditer(text):
        word = match.group(0)
        stripped = word.strip(_EDGE_PUNCT)
        if not stripped:
            continue
        start = match.start() + word.index(stripped)
        found.append(Token(stripped, fold(stripped, language), start, start + len(stripped)))
    return found


def fold(word: str, language: Language) -> str:
    """``word`` lower-cased, its possessive ending dropped and its plural ending folded off
    (not a doubled one: "glass"; only past four letters: "bus")."""
    word = owner_of(word, language) or word.lower()
    suffix = language.plural_suffix
    if suffix and len(word) > 4 and word.endswith(suffix) and not word.endswith(suffix * 2):
        return word[: -len(suffix)]
    return word


def owner_of(word: str, language: Language) -> str | None:
    """``word`` lower-cased without the language's possessive ending, if it has one ("oslo's"
    -> "oslo"); None for a word that owns nothing."""
    word = word.lower()
    for suffix in language.possessive_suffixes:
        if word.endswith(suffix) and len(word) > len(suffix):
            return word[: -len(suffix)]
    return None


def normalize_units(text: str, language: Language) -> str:
    """One spelling per unit, as screens show it: "70 percent" is the "70%" to tap."""
    return _percent_pattern(language.percent_words).sub(r"\1%", text)


@functools.lru_cache(maxsize=16)
def _percent_pattern(percent_words: tuple[str, ...]) -> re.Pattern[str]:
    spelled = "".join(rf"{re.escape(w)}\b|" for w in percent_words)
    return re.compile(rf"(\d)\s*(?:{spelled}%)", re.IGNORECASE)


def _after_mark(text: str, language: Language) -> tuple[str, ...]:
    marks = list(SEPARATOR.finditer(text))
    after = text[marks[0].end() :].strip(" .!") if len(marks) == 1 else ""
    said = {w.lower() for w in WORD.findall(after)}
    return (after,) if said and said.isdisjoint(language.pronouns) else ()


@functools.lru_cache(maxsize=16)
def clause_break(joiners: tuple[str, ...]) -> re.Pattern[str]:
    """ ":", ";" or "," between parts, or a joining word ("and", "and then")."""
    if not joiners:
        return re.compile(r"\s*[:;]\s+|,\s*")
    joined = "|".join(map(re.escape, joiners))
    return re.compile(
        rf"\s*[:;]\s+|,\s*(?:(?:{joined})\s+)?|\s+(?:(?:{joined})\s+)*(?:{joined})\s+"
    )


def _parts(text: str, joiners: tuple[str, ...]) -> list[str]:
    return [p for p in (p.strip(" .,") for p in clause_break(joiners).split(text)) if p]


def screen_digits(text: str, language: Language | None = None) -> str:
    """``text`` with its spelled-out numbers in digits, in its language."""
    return with_digits(text, (language or tables.of(text)).code)
