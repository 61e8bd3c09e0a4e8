"""Value forms: a new value written as the field's recorded values write theirs.

A task may say "June 27 at 9:30" where the calendar's date field was always given "Jun 27" and
times were always typed "09:30"; the world checks the typed value, so "June 27" is a wrong date
there. The recorded values of a field show its form, and only they decide: nothing here knows
month names or clock formats. Only the task's language is read for what it writes in words:
its number words and the marks of a 12-hour time ("pm"), by kept libraries, and a
12-hour time goes on the 24-hour clock only where the recorded values show that clock
(``in_screen_forms``).

- A word of the new value that no recorded value of the field uses, and that begins with
  exactly one word the field's values do use (of at least ``MIN_STEM`` letters), is written as
  that word: "June" -> "Jun" where the field saw "Jun 13", "Jun 22".
- A group of digits shorter than the width every recorded value of its kind gives that group,
  where some recorded value shows the padding (a leading zero), is zero-padded: "9:30" ->
  "09:30" where "06:30" and "15:00" were typed. Values of a kind are the values of that shape
  anywhere in the knowledge base (an event's time and an alarm's are both times); a width that
  merely never varied ("Jun 13", "Jun 22") shows no padding, so "Jun 5" stays.

Both apply only to fields whose recorded values all hold digits and agree on one shape, only
when the rewritten value takes that shape, and never to a value the field has seen as it is.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Collection, Iterable

from guigraph.compiler.slots import value_shape
from guigraph.compiler.values import ValueIndex
from guigraph.language import tables
from guigraph.language.numbers import with_24_hour_clock, with_digits

#: A shorter common prefix is no evidence of an abbreviation ("Ma" of "May" and "March").
MIN_STEM = 3
#: A field with fewer recorded values cannot show that its values agree on a form.
MIN_VALUES = 3

_TOKEN = re.compile(r"[^\W\d_]+|\d+|[^\w]+|_")


def in_screen_forms(instruction: str, values: ValueIndex) -> str:
    """The task as the knowledge base writes it. Written all in lower case (speech to text),
    it gets back the capitals its words have in the recorded tasks (``Casing``). Its numbers
    as the screens write them: spelled-out numbers in
    digits ("thirty percent" is the "30%" to tap), and 12-hour times on the 24-hour clock
    where the recorded values are on it ("10:00 pm" is the "22:00" to type). Where they are
    not, a 12-hour time stays as the task says it. Kept libraries read the numbers and
    times, in the task's language (``language.numbers``)."""
    said = instruction
    instruction = values.casing.restore(instruction)
    code = tables.of(instruction).code
    text = with_digits(instruction, code)
    written = with_24_hour_clock(text, code) if values.on_24_hour_clock else text
    _remember_said(said, written)
    return written


#: Tasks written in screen forms -> the words they were said in (None: said two ways).
_SAID: OrderedDict[str, str | None] = OrderedDict()
_SAID_KEPT = 256


def _remember_said(said: str, written: str) -> None:
    if written == said:
        return
    if written in _SAID and _SAID[written] != said:
        _SAID[written] = None  # two tasks read the same way: neither is known from it
    else:
        _SAID[written] = said
    _SAID.move_to_end(written)
    while len(_SAID) > _SAID_KEPT:
        _SAID.popitem(last=False)


def as_said(written: str) -> str:
    """The task ``in_screen_forms`` made ``written`` of, in its own words ("six", not "6"):
    a sentence the task gives to type is typed as said, whatever its numbers. ``written``
    itself when it was never rewritten (or two tasks read the same way)."""
    return _SAID.get(written) or written


def conform(value: str, field_values: Collection[str], same_kind: Iterable[str] = ()) -> str:
    """``value`` as the field whose recorded values are ``field_values`` writes it.

    ``same_kind``: recorded values of other fields (any field of the knowledge base); those
    shaped like this field's values show how wide their digit groups are written.
    Returns ``value`` unchanged whenever the field gives no single, clear form.
    """
    if not value or value in field_values or len(field_values) < MIN_VALUES:
        return value
    if not all(any(c.isdigit() for c in v) for v in field_values):
        return value
    shapes = {value_shape(v) for v in field_values}
    if len(shapes) != 1:
        return value
    shape = shapes.pop()
    rewritten = _pad_digits(_abbreviate(value, field_values), field_values, same_kind, shape)
    return rewritten if value_shape(rewritten) == shape else value


def _abbreviate(value: str, field_values: Collection[str]) -> str:
    known = {t for v in field_values for t in _TOKEN.findall(v) if t.isalpha()}
    known_lower = {t.lower() for t in known}

    def short_form(token: str) -> str:
        if not token.isalpha() or token.lower() in known_lower:
            return token
        stems = {k for k in known if len(k) >= MIN_STEM and token.lower().startswith(k.lower())}
        return stems.pop() if len(stems) == 1 else token

    return "".join(short_form(t) for t in _TOKEN.findall(value))


def _digit_groups(text: str) -> list[str]:
    return re.findall(r"\d+", text)


def _pad_digits(
    value: str, field_values: Collection[str], same_kind: Iterable[str], shape: str
) -> str:
    kind = [v for v in (*field_values, *same_kind) if value_shape(v) == shape]
    groups = [_digit_groups(v) for v in kind]
    count = len(_digit_groups(value))
    if not groups or any(len(g) != count for g in groups):
        return value
    widths: list[int | None] = []
    for i in range(count):
        sizes = {len(g[i]) for g in groups}
        padded = any(len(g[i]) > 1 and g[i].startswith("0") for g in groups)
        widths.append(sizes.pop() if len(sizes) == 1 and padded else None)
    found = iter(range(count))

    def pad(match: re.Match[str]) -> str:
        width = widths[next(found)]
        return match.group(0).zfill(width) if width else match.group(0)

    return re.sub(r"\d+", pad, value)
