"""The type of a parameter, learned from the values recorded for it, and a value checked
against its type.

A parameter is a number when every value it was recorded with reads as one ("12", "3.5",
"twelve" through ``number-parser`` when installed), a time when every value is a clock time
("07:30", "7 pm"), a date when ``dateparser`` reads every value as a day and each names one
(digits or a month name), and one of a known set when the step taps an item of a list whose
items the recorded screen showed (the options). Anything else is text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from guigraph.workflow.schema import Parameter, ParamType

_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)?%?")
_TIME = re.compile(
    r"(?:[01]?\d|2[0-3])[:.][0-5]\d(?:\s*[ap]\.?m\.?)?|(?:1[0-2]|0?[1-9])\s*[ap]\.?m\.?", re.I
)
_DAY_DIGITS = re.compile(r"\d")


def is_number(value: str) -> bool:
    text = value.strip()
    if _NUMBER.fullmatch(text):
        return True
    try:
        from number_parser import parse_number
    except ImportError:
        return False
    return parse_number(text) is not None


def is_time(value: str) -> bool:
    return bool(_TIME.fullmatch(value.strip()))


def is_date(value: str) -> bool:
    """A day ``dateparser`` reads (strictly: a whole date, not a loose word)."""
    text = value.strip()
    if not text or is_number(text) or is_time(text):
        return False
    try:
        import dateparser
    except ImportError:  # an install without it still knows an ISO day
        return _iso_day(text)
    if not _DAY_DIGITS.search(text) and not _names_a_month(text):
        return False
    settings = {"STRICT_PARSING": True, "REQUIRE_PARTS": ["day", "month"]}
    return dateparser.parse(text, settings=settings) is not None


def _names_a_month(text: str) -> bool:
    import calendar

    words = {w.lower().strip(".,") for w in text.split()}
    months = {m.lower() for m in (*calendar.month_name, *calendar.month_abbr) if m}
    return bool(words & months)


def learn_type(examples: Sequence[str], options: Sequence[str] = ()) -> ParamType:
    """The type the recorded values share (``options``: the set a tapped list offered)."""
    values = [v for v in examples if v.strip()]
    if options and values and all(v in options for v in values):
        return ParamType.CHOICE
    if not values:
        return ParamType.TEXT
    for kind, test in ((ParamType.TIME, is_time), (ParamType.NUMBER, is_number)):
        if all(test(v) for v in values):
            return kind
    if all(is_date(v) for v in values):
        return ParamType.DATE
    return ParamType.TEXT


def type_problem(parameter: Parameter, value: str) -> str | None:
    """Why ``value`` does not fit ``parameter``'s type, or None when it does."""
    kind = parameter.type
    if kind is ParamType.CHOICE and value not in parameter.options:
        return f"one of {', '.join(map(repr, parameter.options))}"
    if kind is ParamType.NUMBER and not is_number(value):
        return "a number"
    if kind is ParamType.TIME and not is_time(value):
        return "a time (07:30, 7 pm)"
    if kind is ParamType.DATE and not is_date(value):
        return "a date (2026-12-04, 4 December)"
    return None


def _iso_day(text: str) -> bool:
    import datetime as dt

    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True
