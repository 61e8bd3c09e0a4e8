"""Numbers and times as screens write them, read by kept libraries in the task's language.

A task may spell a number ("a twenty-five-minute timer", "veinticinco minutos") where a
screen shows digits, or say a 12-hour time ("10:00 pm") where the screens keep a 24-hour
clock. ``text2num`` reads number words (English, Spanish, German, French, ...), ``dateparser``
reads times with their language's marks of the day's half; quoted text stays as written (a
message "one more thing" is not "1 more thing").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from datetime import datetime

#: A number joined to its unit by a hyphen ("25-minute", "70-percent"): the unit is a word.
_NUMBER_HYPHEN_UNIT = re.compile(r"(?<![\w-])(\d+)-(?=[^\W\d])")
#: Words joined by hyphens ("twenty-five-minute", "Wi-Fi"): read as spaced words when that
#: makes a number of them.
_HYPHENATED = re.compile(r"(?<![\w-])[^\W\d_]+(?:-[^\W\d_]+)+(?![\w-])")
#: Text in quotes is a value to type as written ("Text Bo 'one more thing'").
_QUOTED = re.compile(r"""(?<!\w)(['"‘“]).*?(?:['"’”])(?!\w)""")
#: An hour of the 12-hour clock, its minutes, and up to two short words that may mark the
#: half of the day ("10:00 pm", "7am", "12:30 p.m.", "10 p. m.").
_TWELVE_HOUR = re.compile(
    r"(?<![\w:])(1[0-2]|0?[1-9])(?::([0-5]\d))?\s*([^\W\d_]{1,2}\.?(?:\s?[^\W\d_]\.)?)(?!\w)"
)
#: A fixed "now" for reading times: a time that reads as a relative one ("5 min" ago) or
#: as a date falls outside its day and is refused.
_BASE = datetime(2000, 1, 1, 0, 0)


def _outside_quotes(text: str, rewrite: Callable[[str], str]) -> str:
    out: list[str] = []
    last = 0
    for start, end in [*(m.span() for m in _QUOTED.finditer(text)), (len(text), len(text))]:
        out.append(rewrite(text[last:start]))
        out.append(text[start:end])
        last = end
    return "".join(out)


@functools.lru_cache(maxsize=4096)
def with_digits(text: str, code: str) -> str:
    """``text`` with its spelled-out numbers in digits, in language ``code`` ("a
    twenty-five-minute timer" -> "a 25 minute timer"); quoted text is kept as written."""
    if not code:
        return text
    return _outside_quotes(text, lambda part: _digits(part, code))


def _digits(text: str, code: str) -> str:
    def unhyphen(match: re.Match[str]) -> str:
        spaced = match.group(0).replace("-", " ")
        read = _alpha2digit(spaced, code)
        return read if read != spaced else match.group(0)  # "Wi-Fi" stays

    try:
        text = _HYPHENATED.sub(unhyphen, text)
        # Ordinals stay words: "the first line" names a field ("first line" of the lyrics),
        # where "two lines" counts them. The library tells an ordinal by reading the word
        # alone. So do the language's articles ("un temporizador" is no number).
        kept = sorted(
            {w for w in _LETTERS.findall(text) if _is_ordinal(w, code) or _is_article(w, code)}
        )
        masks = {f"\ue000{n}\ue000": word for n, word in enumerate(kept)}
        for mask, word in masks.items():
            text = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", mask, text)
        text = _alpha2digit(text, code)
        for mask, word in masks.items():
            text = text.replace(mask, word)
    except ValueError:  # a language text2num does not read: the words stay words
        return text
    return _NUMBER_HYPHEN_UNIT.sub(r"\1 ", text)


_LETTERS = re.compile(r"[^\W\d_]+")
_ORDINAL = re.compile(r"\d+\D+")


@functools.lru_cache(maxsize=4096)
def _is_ordinal(word: str, code: str) -> bool:
    return _ORDINAL.fullmatch(_alpha2digit(word, code)) is not None


def _is_article(word: str, code: str) -> bool:
    from guigraph.language import tables

    language = tables.registered().get(code)
    return language is not None and word.lower() in language.articles


@functools.lru_cache(maxsize=4096)
def _alpha2digit(text: str, code: str) -> str:
    """Every number ``text2num`` reads, however small ("two lines" counts two)."""
    from text_to_num import alpha2digit

    return str(alpha2digit(text, code, threshold=0))


@functools.lru_cache(maxsize=4096)
def with_24_hour_clock(text: str, code: str) -> str:
    """``text`` with its 12-hour times on the 24-hour clock ("at 10:00 pm" -> "at 22:00",
    "at 7 am" -> "at 7:00"), as ``dateparser`` reads them in language ``code``; quoted text
    is kept. For screens that keep a 24-hour clock: the caller knows whether they do."""
    if not code:
        return text

    def clock(match: re.Match[str]) -> str:
        hour, minutes = int(match.group(1)), int(match.group(2) or 0)
        read = _time_of_day(match.group(0), code)
        if read is None or read[1] != minutes or read[0] % 12 != hour % 12:
            return match.group(0)
        return f"{read[0]}:{read[1]:02d}"

    return _outside_quotes(text, lambda part: _TWELVE_HOUR.sub(clock, part))


@functools.lru_cache(maxsize=4096)
def _time_of_day(said: str, code: str) -> tuple[int, int] | None:
    """(hour, minutes) of a time said with a mark of the day's half, or None when the words
    after the number are no such mark (a date, a duration, another word)."""
    import dateparser

    settings = {"RELATIVE_BASE": _BASE, "PREFER_DATES_FROM": "current_period"}
    try:
        read = dateparser.parse(said, languages=[code], settings=settings)
    except (ValueError, KeyError):
        return None
    if read is None or read.date() != _BASE.date():
        return None
    return read.hour, read.minute
