"""Which field of a form takes which value: captions matched, as a whole, to what the task says
around each value.

A form's fields name nothing themselves; the caption beside each does ("Year", "Released
Date", "Director Name"), and pages reword and reorder them. A person fills such a form by
reading the task: "movies directed by Curry from year 1995" puts Curry in the field whose
caption is like "directed" and 1995 in the one like "year". Here each value's words are the
task's content words near it (nearer weighs more) and the caption it had when recorded; a
caption's likeness to them is the best fuzzy match of their words; and the fields are given
to the values together (the assignment with the greatest total likeness), so a caption no
value's words name ("Released Date") takes the value no other field takes.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence

#: Words of the task on either side of a value that describe it.
CONTEXT_WORDS = 3
#: Two words this alike (0..1) are the same word written another way ("directed", "director").
SAME_WORD = 0.75
#: Beyond this many values, fields are given one by one (best first), not by every assignment.
MAX_EXACT = 6

_TOKEN = re.compile(r"[^\W_]+")


def value_words(instruction: str, value: str, caption: str = "") -> dict[str, float]:
    """The words that describe ``value``: the instruction's content words within
    ``CONTEXT_WORDS`` content words of it, weighted 1/distance, and the words of its
    recorded caption."""
    from guigraph.compiler.slots import content_words

    meaningful = content_words(instruction)
    tokens = [t.lower() for t in _TOKEN.findall(instruction)]
    wanted = [t.lower() for t in _TOKEN.findall(value)]
    weights: dict[str, float] = {}
    for start in _occurrences(tokens, wanted):
        end = start + len(wanted)
        before = [t for t in reversed(tokens[:start]) if _content(t, meaningful)]
        after = [t for t in tokens[end:] if _content(t, meaningful)]
        for side in (before, after):
            for distance, token in enumerate(side[:CONTEXT_WORDS], 1):
                weights[token] = max(weights.get(token, 0.0), 1.0 / distance)
    for token in _TOKEN.findall(caption.lower()):
        weights[token] = 1.0
    return weights


def _occurrences(tokens: Sequence[str], wanted: Sequence[str]) -> list[int]:
    if not wanted:
        return []
    n = len(wanted)
    return [i for i in range(len(tokens) - n + 1) if list(tokens[i : i + n]) == list(wanted)]


def _content(token: str, meaningful: set[str]) -> bool:
    """A content word of the instruction (its plural folded there: "movies" is "movie")."""
    return token in meaningful or any(token.startswith(w) and len(w) >= 3 for w in meaningful)


def likeness(caption: str, words: Mapping[str, float]) -> float:
    """How well ``caption`` names a value described by ``words`` (0 when no word is alike)."""
    from rapidfuzz import fuzz

    best = 0.0
    for token in _TOKEN.findall(caption.lower()):
        for word, weight in words.items():
            ratio = fuzz.ratio(token, word) / 100
            if ratio >= SAME_WORD:
                best = max(best, ratio * weight)
    return best


def assign(captions: Sequence[str], values: Sequence[Mapping[str, float]]) -> list[int | None]:
    """For each value (its words), the index of the caption it goes with: the assignment of
    distinct captions with the greatest total likeness (None when there are fewer captions)."""
    scores = [[likeness(c, words) for c in captions] for words in values]
    if len(values) <= MAX_EXACT and len(captions) <= MAX_EXACT + 2:
        best: tuple[float, tuple[int, ...]] | None = None
        slots = range(len(captions))
        for chosen in itertools.permutations(slots, min(len(values), len(captions))):
            total = sum(scores[v][c] for v, c in enumerate(chosen))
            if best is None or total > best[0] + 1e-9:
                best = (total, chosen)
        picked = list(best[1]) if best else []
        return [picked[v] if v < len(picked) else None for v in range(len(values))]
    given: list[int | None] = [None] * len(values)
    pairs = sorted(
        ((scores[v][c], v, c) for v in range(len(values)) for c in range(len(captions))),
        reverse=True,
    )
    taken: set[int] = set()
    for _, v, c in pairs:
        if given[v] is None and c not in taken:
            given[v] = c
            taken.add(c)
    return given
