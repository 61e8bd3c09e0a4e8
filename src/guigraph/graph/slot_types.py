"""Slot types: what kind of value each slot of the graph takes, learned from its recorded values.

A slot (``SlotKey``: a typed text of an edge, or of a trace's tail) was given one value per
recorded run that took it: "06:30", "21:00" to an alarm's time; "Meds", "Laundry" to its label;
"Trying a new recipe" to a post. Those values show the slot's *type*: a *shape* (a clock time,
a date, a price, a number, a name, free text), how many words its values have, and the values
themselves (a vocabulary). The build learns the types from every trace and stores them in the
knowledge base (``KnowledgeBase.slot_types``); a value a slot filler proposes for a new task is
checked against its slot's type (``SlotType.accepts``), case aside, so a speech-to-text task's
"laundry" fills a name slot as "Laundry" would.

Shapes are read from the value's characters only (digits around a colon are a time, a currency
mark with digits a price), except dates, which ``dateparser`` reads in the task languages
guigraph has tables for (``language.tables``).
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from guigraph.errors import KnowledgeBaseError
from guigraph.graph.records import SlotKey
from guigraph.language import tables

if TYPE_CHECKING:
    from guigraph.graph.records import Trace

#: The KB setting the types are stored under, and the version of that record.
SETTING = "slot_types"
SCHEMA_VERSION = 1
#: Known values kept per slot (the most frequent): enough to recognise a value said again.
VOCABULARY = 40
#: A value may have this many words more than the longest recorded one ("Cat Compilation
#: for beginners" after "Bike Repair for beginners" is as long; a new title may be longer).
SLACK_WORDS = 2

_TIME = re.compile(r"^\d{1,2}[:.]\d{2}(?:\s*[ap]\.?\s?m\.?)?$", re.IGNORECASE)
_PRICE = re.compile(r"^(?:[$€£¥]\s?\d[\d.,]*|\d[\d.,]*\s?[$€£¥])$")
_NUMBER = re.compile(r"^[+-]?\d[\d.,]*\s?%?$")
_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*")


class Shape(StrEnum):
    """The form of a slot's values."""

    TIME = "time"
    DATE = "date"
    PRICE = "price"
    NUMBER = "number"
    NAME = "name"  # every word capitalized as recorded: "Paper Roads", "Dana"
    TEXT = "text"  # anything else: "buy a gift", "Lovely morning run"


#: Shapes whose values are written one way, checked character by character.
FORMED = frozenset({Shape.TIME, Shape.DATE, Shape.PRICE, Shape.NUMBER})


def shape_of(value: str) -> Shape:
    """The shape of one value."""
    text = value.strip()
    if _TIME.match(text):
        return Shape.TIME
    if _PRICE.match(text):
        return Shape.PRICE
    if _NUMBER.match(text):
        return Shape.NUMBER
    if any(c.isdigit() for c in text) and _is_date(text):
        return Shape.DATE
    words = _WORD.findall(text)
    if words and all(w[:1].isupper() or w[:1].isdigit() for w in words):
        return Shape.NAME
    return Shape.TEXT


def _is_date(text: str) -> bool:
    """A day of a month ("Jun 27", "27 de junio"), as ``dateparser`` reads dates in the
    languages guigraph has tables for."""
    return _is_date_in(text, _date_languages(tuple(tables.registered())))


@functools.lru_cache(maxsize=4096)
def _is_date_in(text: str, languages: tuple[str, ...]) -> bool:
    import dateparser.search

    settings = {"REQUIRE_PARTS": ["day", "month"], "PREFER_DATES_FROM": "future"}
    found = dateparser.search.search_dates(text, languages=list(languages), settings=settings)
    return bool(found) and len(found[0][0]) >= len(text) - 1


@functools.lru_cache(maxsize=8)
def _date_languages(codes: tuple[str, ...]) -> tuple[str, ...]:
    """Those of ``codes`` ``dateparser`` reads. Named, because guessing among its two hundred
    languages costs a tenth of a second a text."""
    from dateparser.data.languages_info import language_order

    return tuple(code for code in codes if code in set(language_order))


def word_count(value: str) -> int:
    return len(_WORD.findall(value))


@dataclass(frozen=True, slots=True)
class SlotType:
    """What a slot takes: its shape, its values' word counts, and its known values."""

    shape: Shape
    min_words: int
    max_words: int
    #: Recorded values, the most frequent first.
    vocabulary: tuple[str, ...] = ()
    #: How many recorded values it was learned from.
    count: int = 0

    def knows(self, value: str) -> bool:
        """A recorded value, case aside."""
        return value.strip().lower() in {v.lower() for v in self.vocabulary}

    def accepts(self, value: str) -> bool:
        """Whether ``value`` can be this slot's, case aside: a formed shape's values must take
        that shape; names and text must be words, as many as the recorded values have (a
        little more allowed)."""
        if not value.strip():
            return False
        if self.knows(value):
            return True
        if self.shape in FORMED:
            return shape_of(value) is self.shape
        if shape_of(value) in FORMED - {Shape.NUMBER}:
            return False  # a time or a date is no name, nor a sentence
        words = word_count(value)
        return 1 <= words <= self.max_words + SLACK_WORDS

    def describe(self) -> str:
        """The type in words, for a model's prompt: "a name of 2 words, like Paper Roads"."""
        size = (
            f"{self.min_words} word{'s' if self.min_words != 1 else ''}"
            if self.min_words == self.max_words
            else f"{self.min_words} to {self.max_words} words"
        )
        kind = (
            f"a {self.shape.value}" if self.shape in FORMED else f"a {self.shape.value} of {size}"
        )
        examples = ", ".join(repr(v) for v in self.vocabulary[:3])
        return f"{kind}, like {examples}" if examples else kind

    def to_dict(self) -> dict[str, Any]:
        return {
            "shape": self.shape.value, "words": [self.min_words, self.max_words],
            "vocabulary": list(self.vocabulary), "count": self.count,
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SlotType:
        low, high = data["words"]
        return cls(
            Shape(data["shape"]), int(low), int(high), tuple(map(str, data["vocabulary"])),
            int(data.get("count", 0)),
        )  # fmt: skip


def learn(values: Iterable[str]) -> SlotType | None:
    """The type of a slot given ``values``: the shape most of them have (text where none has
    most), their word counts, their most frequent values."""
    seen = Counter(v.strip() for v in values if v and v.strip())
    if not seen:
        return None
    shapes = Counter({shape: 0 for shape in Shape})
    for value, times in seen.items():
        shapes[shape_of(value)] += times
    shape, most = shapes.most_common(1)[0]
    total = sum(seen.values())
    if most * 2 <= total:
        shape = Shape.TEXT
    counts = [word_count(v) for v in seen]
    vocabulary = tuple(v for v, _ in seen.most_common(VOCABULARY))
    return SlotType(shape, min(counts), max(counts), vocabulary, total)


def learn_slot_types(traces: Iterable[Trace]) -> dict[SlotKey, SlotType]:
    """Every slot's type, from the values the traces gave it."""
    values: defaultdict[SlotKey, list[str]] = defaultdict(list)
    for trace in traces:
        for key, value in trace.values.items():
            values[key].append(value)
    learned = {key: learn(found) for key, found in values.items()}
    return {key: kind for key, kind in learned.items() if kind is not None}


def encode(types: Mapping[SlotKey, SlotType], traces: int) -> str:
    """The stored record: the types and how many traces they were learned from."""
    return json.dumps(
        {
            "schema_version": SCHEMA_VERSION, "traces": traces,
            "types": {key.encoded(): kind.to_dict() for key, kind in sorted(
                types.items(), key=lambda item: item[0].encoded())},
        },
        ensure_ascii=False,
    )  # fmt: skip


def decode(text: str, where: str) -> tuple[dict[SlotKey, SlotType], int]:
    """The types stored in ``text`` and how many traces they were learned from; a record of
    another version or shape is a ``KnowledgeBaseError`` naming ``where``."""
    try:
        data = json.loads(text)
        if data.get("schema_version") != SCHEMA_VERSION:
            raise KnowledgeBaseError(
                f"{where}: field 'slot_types.schema_version' expected {SCHEMA_VERSION}, "
                f"got {data.get('schema_version')!r}: rebuild the knowledge base"
            )
        types = {SlotKey.parse(k): SlotType.from_dict(v) for k, v in data["types"].items()}
        return types, int(data["traces"])
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise KnowledgeBaseError(
            f"{where}: field 'slot_types' is not a slot-type record ({exc})"
        ) from None
