"""Paging a calendar to the month of the date the task names.

"Select 05/15/2016 as the date and hit submit" was recorded as a tap on the field, taps on
the calendar's previous-month arrow (as many as that recording's month needed), a tap on the
day and one on Submit. Another date needs another number of pages: the recorded arrow is
tapped until the month the screen shows is the date's, and then the day (none at all when
the calendar opens on it). The screen names its month in words and its year in digits ("May"
"2016"), read by ``dateparser`` in the task's language.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from guigraph.compiler.counts import MIN_REPEATS
from guigraph.compiler.search import is_bound_value

if TYPE_CHECKING:
    from guigraph.compiler.script import ScriptStep

#: (year, month).
Month = tuple[int, int]
_DIGITS = re.compile(r"\d")
_LETTERS = re.compile(r"[^\W\d_]")
#: Words a month and its year are written in on a calendar's title ("December 2016").
_TITLE_WORDS = 3


@functools.lru_cache(maxsize=1024)
def task_month(instruction: str, code: str) -> Month | None:
    """The month and year of the one whole date the task names (None: none, or several)."""
    import dateparser.search

    settings = {"REQUIRE_PARTS": ["day", "month", "year"]}
    found = dateparser.search.search_dates(instruction, languages=[code], settings=settings)
    if not found or len(found) != 1:
        return None
    day = found[0][1]
    return day.year, day.month


def shown_month(texts: Sequence[str], code: str) -> Month | None:
    """The month a calendar on the screen shows: a text, or two texts side by side, naming a
    month in words and a year in digits and no day."""
    for i, text in enumerate(texts):
        for said in (text, f"{text} {texts[i + 1]}" if i + 1 < len(texts) else ""):
            month = _month_named(said.strip(), code)
            if month is not None:
                return month
    return None


@functools.lru_cache(maxsize=4096)
def _month_named(text: str, code: str) -> Month | None:
    if len(text.split()) > _TITLE_WORDS or not _DIGITS.search(text) or not _LETTERS.search(text):
        return None
    read = _parser(code).get_date_data(text)
    if read.date_obj is None or read.period != "month":
        return None
    return read.date_obj.year, read.date_obj.month


@functools.lru_cache(maxsize=16)
def _parser(code: str):
    from dateparser.date import DateDataParser

    return DateDataParser(languages=[code])


def paging_run(script: Sequence[ScriptStep], cursor: int, least: int = 1) -> tuple[int, int] | None:
    """The [start, end) run of one tap repeated (page turns) that ``cursor`` is in or has
    just finished, where ``script[end]`` taps a value bound from the task in the same state
    (the day), of at least ``least`` taps."""
    for pager in (cursor, cursor - 1):
        if not 0 <= pager < len(script) or not _turns_pages(script[pager]):
            continue
        end = pager
        while end < len(script) and _same_tap(script[end], script[pager]):
            end += 1
        if end < cursor or end >= len(script) or not _picks_value(script[end], script[pager]):
            continue
        start = pager
        while start > 0 and _same_tap(script[start - 1], script[pager]):
            start -= 1
        if end - start >= least:
            return start, end
    return None


def pages_to_value(script: Sequence[ScriptStep]) -> bool:
    """Whether the script turns pages before tapping a value anywhere: a run of two taps or
    more (a single tap before the day may have opened the calendar)."""
    return any(paging_run(script, i, MIN_REPEATS) is not None for i in range(len(script)))


def _turns_pages(step: ScriptStep) -> bool:
    return step.template.taps and step.jumps_to is None and not _is_value(step)


def _is_value(step: ScriptStep) -> bool:
    """A tap on a value the task says (the recorded day, when the new one is the same)."""
    return is_bound_value(step) or bool(step.bound_values)


def _same_tap(a: ScriptStep, b: ScriptStep) -> bool:
    """Taps on one element (a person's taps on an arrow land a pixel apart)."""
    same_target = replace(a.template, point=None) == replace(b.template, point=None)
    return same_target and a.node == b.node and _turns_pages(a)


def _picks_value(step: ScriptStep, pager: ScriptStep) -> bool:
    return step.node == pager.node and step.template.taps and _is_value(step)
