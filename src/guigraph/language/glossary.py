"""A task's words in the recordings' language, from a kept bilingual dictionary.

The recorded tasks and the screens of most knowledge bases are English; a task written in
another language names what to do in its own words ("Compra el reloj": buy) and only its
names and numbers match a recording. Each word of such a task is glossed with the English
words a FreeDict dictionary (Debian's ``dict-freedict-eng-<code>``, read in place) translates
to it, matched through the language's Snowball stem so that the dictionary's infinitive
("comprar") meets the task's imperative ("compra"). The glosses are extra words for a plan to
explain; they never replace the task's own words or values. No dictionary installed: no glosses.
"""

from __future__ import annotations

import functools
import gzip
import re
from collections.abc import Mapping
from pathlib import Path

import snowballstemmer

#: Where Debian's dictd packages put their dictionaries.
DICTIONARIES = Path("/usr/share/dictd")
#: dictd's offsets and lengths are base-64 numbers in this alphabet, most significant first.
_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
#: A sense's number before its translations ("2. adquisición, compra").
_SENSE = re.compile(r"^\s*\d+\.\s*")


def glosses(
    word: str, dictionary: str, stemmer: str, folder: Path = DICTIONARIES
) -> frozenset[str]:
    """The English words ``dictionary`` (a FreeDict name, "eng-spa") translates to ``word``
    or to a word of the same ``stemmer`` stem (a Snowball algorithm, "spanish")."""
    if not dictionary or not stemmer:
        return frozenset()
    index = _reversed(dictionary, stemmer, folder)
    return index.get(_stem(stemmer, word.lower()), frozenset())


@functools.lru_cache(maxsize=8)
def _reversed(dictionary: str, stemmer: str, folder: Path) -> Mapping[str, frozenset[str]]:
    """Stem of a one-word translation -> the one-word English headwords it translates."""
    found: dict[str, set[str]] = {}
    for head, translations in _entries(folder / f"freedict-{dictionary}"):
        if not (head.isalpha() and head.islower()):
            continue  # names ("Africa") and phrases are no gloss of one word
        for translation in translations:
            if translation.isalpha():
                found.setdefault(_stem(stemmer, translation.lower()), set()).add(head)
    return {stem: frozenset(heads) for stem, heads in found.items()}


def _entries(base: Path) -> list[tuple[str, list[str]]]:
    """Each entry of a dictd dictionary (``base``.index beside ``base``.dict.dz): its
    headword and the translations of every sense; none where it is not installed."""
    index, data = base.with_suffix(".index"), base.with_suffix(".dict.dz")
    if not (index.is_file() and data.is_file()):
        return []
    text = gzip.decompress(data.read_bytes())
    entries = []
    for line in index.read_text(encoding="utf-8").splitlines():
        head, offset, length = [*line.split("\t"), "", ""][:3]
        if head.startswith("00") or not offset:
            continue  # the database's own information entries
        start = _number(offset)
        body = text[start : start + _number(length)].decode("utf-8").splitlines()[1:]
        translations = [t.strip() for sense in body for t in _SENSE.sub("", sense).split(",")]
        entries.append((head, [t for t in translations if t]))
    return entries


def _number(digits: str) -> int:
    value = 0
    for digit in digits:
        value = value * 64 + _DIGITS.index(digit)
    return value


@functools.lru_cache(maxsize=65536)
def _stem(stemmer: str, word: str) -> str:
    return _stemmer(stemmer).stemWord(word)


@functools.lru_cache(maxsize=8)
def _stemmer(name: str) -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer(name)
