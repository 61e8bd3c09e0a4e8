"""Slot filling: which words of a new instruction replace a value typed in a recorded trace.

A trace recorded for "weather in Paris" typed "Paris"; the new task says "weather in Rome". The
two instructions are aligned word by word (difflib); the words of the new instruction that
stand where the old value stood are the new value. When the phrasing differs too much for an
alignment, values the knowledge base has seen typed at the same place are looked for in the
new instruction, then quoted text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from difflib import SequenceMatcher

_WORD = re.compile(r"[\w°$€£%.:'’-]+")
_QUOTED = re.compile(r"[\"“']([^\"”']{1,80})[\"”']")
_EDGE_PUNCT = ".,:;!?'’"


def words(text: str) -> list[str]:
    return [w.strip(_EDGE_PUNCT) for w in _WORD.findall(text) if w.strip(_EDGE_PUNCT)]


def _span(tokens: list[str], value: list[str]) -> tuple[int, int] | None:
    lowered = [t.lower() for t in tokens]
    target = [v.lower() for v in value]
    for start in range(len(lowered) - len(target) + 1):
        if lowered[start : start + len(target)] == target:
            return start, start + len(target)
    return None


def align_value(example: str, old_instruction: str, new_instruction: str) -> str | None:
    """The words of ``new_instruction`` standing where ``example`` stood in the old one."""
    old, new, value = words(old_instruction), words(new_instruction), words(example)
    span = _span(old, value) if value else None
    if span is None:
        return None
    if _span(new, value) is not None and words(old_instruction) == words(new_instruction):
        return example
    matcher = SequenceMatcher(
        a=[w.lower() for w in old], b=[w.lower() for w in new], autojunk=False
    )
    start, end = span
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" and i1 <= start and end <= i2:
            return " ".join(new[j1 + start - i1 : j1 + end - i1])  # same value in both
        if tag == "replace" and i1 <= start and end <= i2:
            if i2 - i1 == j2 - j1:  # word for word: the value's own positions
                return " ".join(new[j1 + start - i1 : j1 + end - i1])
            if j2 - j1 <= len(value) + 1:  # a value of another length, a word of slack at most
                return " ".join(new[j1:j2])
            return None  # the phrasing changed around the value: no confident alignment
    return None


def fill_slot(
    example: str,
    old_instruction: str,
    new_instruction: str,
    known_values: Iterable[str] = (),
) -> str | None:
    """The value to type in place of ``example`` for the new task, or None if none is found."""
    aligned = align_value(example, old_instruction, new_instruction)
    if aligned:
        return aligned
    lowered = new_instruction.lower()
    seen = sorted({v for v in known_values if v}, key=len, reverse=True)
    for value in seen:
        if re.search(rf"(?<!\w){re.escape(value.lower())}(?!\w)", lowered):
            return value
    quoted = _QUOTED.findall(new_instruction)
    return quoted[0] if len(quoted) == 1 else None
