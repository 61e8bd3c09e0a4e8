"""Slot filling: which words of a new instruction replace a value typed in a recorded trace.

A trace recorded for "weather in Paris" typed "Paris"; the new task says "weather in Rome". The
two instructions are aligned word by word (difflib); the words of the new instruction that
stand where the old value stood are the new value. When the phrasing differs too much for an
alignment, values the knowledge base has seen typed at the same place are looked for in the
new instruction, then quoted text.
"""

from __future__ import annotations

import enum
import functools
import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, fields
from difflib import SequenceMatcher

from guigraph.language import tables
from guigraph.language.parse import DASHED as _DASHED
from guigraph.language.parse import QUOTED as _QUOTED
from guigraph.language.parse import SEPARATOR as _SEPARATOR
from guigraph.language.parse import parse
from guigraph.language.tables import Language


def set_off_texts(instruction: str) -> list[str]:
    """The texts the instruction sets off in quotes ("Post 'Trying a new recipe' on Acme").
    Without quotes, what follows its one separating mark ("Publish a post on Acme: Trying
    a new recipe"), unless a pronoun there refers back: "The note Ideas can go: delete it"
    sets off what to do, not a text."""
    return list(parse(instruction).set_off)


def _language() -> Language:
    """The task's language (texts that show none of their own are read in it)."""
    return tables.default()


def stopwords() -> frozenset[str]:
    """The task language's words that carry no meaning (``Language.stopwords``)."""
    return _language().stopwords


def content_words(text: str) -> set[str]:
    """Lower-cased words that carry meaning, plurals and possessives folded ("bookmarks" ->
    "bookmark", "Oslo's" -> "oslo")."""
    return set(parse(text).content)


def content_word_counts(text: str) -> Counter[str]:
    """How many times the text says each of its ``content_words``."""
    return parse(text).content_counts


@dataclass(frozen=True)
class Count:
    """How many of a thing the task asks for: "the first 2 lines" is ``Count("line", 2)``.
    ``numbers`` are the words that counted, which name no field ("lyric_2")."""

    word: str
    count: int
    numbers: frozenset[str]


#: A count above this is a quantity to type ("45 minutes"), not parts of a value to read.
MAX_PARTS = 12


def counts(instruction: str) -> tuple[Count, ...]:
    """The things the task counts, as parts of one value: a number of two or more just before
    a plural ("the first 2 lines"), or a plural followed by the numbers from one up ("lines 1
    and 2"). Numbers are in digits (``language.numbers.with_digits``); plurals and the words
    joining a list are the task language's."""
    language = parse(instruction).language
    return _counts(instruction, language.clause_joiners, language)


@functools.lru_cache(maxsize=1024)
def _counts(instruction: str, joiners: tuple[str, ...], language: Language) -> tuple[Count, ...]:
    tokens = list(parse(instruction, language).lowered)
    suffix = language.plural_suffix

    def plural(word: str) -> bool:
        return bool(suffix) and _fold(word, suffix) != word

    found = []
    for i, token in enumerate(tokens):
        if token.isdigit():
            # The plural right after the number, or after one word describing it ("the 3
            # opening verses").
            after = tokens[i + 1 : i + 3]
            if len(after) == 2 and (after[0].isdigit() or after[0] in language.stopwords):
                after = after[:1]
            noun = next((w for w in after if plural(w)), None)
            if noun is not None and 2 <= int(token) <= MAX_PARTS:
                found.append(Count(_fold(noun, suffix), int(token), frozenset({token})))
        elif plural(token):
            listed = list(
                itertools.takewhile(lambda w: w.isdigit() or w in joiners, tokens[i + 1 :])
            )
            numbers = [int(w) for w in listed if w.isdigit()]
            if len(numbers) >= 2 and numbers == list(range(1, len(numbers) + 1)):
                found.append(
                    Count(_fold(token, suffix), len(numbers), frozenset(map(str, numbers)))
                )
    return tuple(found)


def clauses(instruction: str) -> list[str]:
    """The parts of a task in several steps, each with at least two words that carry meaning
    ("16:00" after a date's comma is not a part). The words joining parts are the task
    language's (``Language.clause_joiners``)."""
    return list(parse(instruction).clauses)


def clause_parts(instruction: str) -> list[str]:
    """Every part of a task in several steps, however short ("bookmark it" too)."""
    return list(parse(instruction).parts)


def normal_word(word: str) -> str:
    return _fold(word, _language().plural_suffix)


def _fold(word: str, suffix: str) -> str:
    """``word`` lower-cased, its plural ending folded off (not a doubled one: "glass")."""
    word = word.lower()
    if suffix and len(word) > 4 and word.endswith(suffix) and not word.endswith(suffix * 2):
        return word[: -len(suffix)]
    return word


def words(text: str) -> list[str]:
    return list(parse(text).words)  # a copy: callers may change their list


def _words(text: str, language: Language) -> tuple[str, ...]:
    return parse(text, language).words


def normalize_units(text: str) -> str:
    """One spelling per unit, as screens show it: "70 percent" is the "70%" to tap."""
    return parse(text).units


def _spans(tokens: list[str], value: list[str]) -> list[tuple[int, int]]:
    """Where ``value`` occurs in ``tokens``; an occurrence inside a longer name comes last:
    in "my note Call Alice to Alice" the contact is the second "Alice"."""
    if not value:
        return []  # a value without words ("♥♥♥") stands nowhere among them
    lowered = [t.lower() for t in tokens]
    target = [v.lower() for v in value]
    size = len(target)
    found = [
        (start, start + size)
        for start in range(len(lowered) - size + 1)
        if lowered[start : start + size] == target
    ]

    def in_longer_name(span: tuple[int, int]) -> bool:
        start, end = span
        before = start > 1 and tokens[start - 1][:1].isupper()
        after = end < len(tokens) and tokens[end][:1].isupper()
        return value[0][:1].isupper() and (before or after)

    return sorted(found, key=in_longer_name)


def align_value(example: str, old_instruction: str, new_instruction: str) -> str | None:
    """The words of ``new_instruction`` standing where ``example`` stood in the old one.

    The value's first and last word positions are carried through the word alignment; at
    least one unchanged word must touch the value (an anchor such as "weather in"), so two
    unrelated sentences do not yield a value.
    """
    return _align_value(example, old_instruction, new_instruction, _language())


# A task binds one recorded value at several places of the same run (a site each), and the
# taps of every run ask again whether their labels were the task's words.
@functools.lru_cache(maxsize=1024)
def _align_value(
    example: str, old_instruction: str, new_instruction: str, language: Language
) -> str | None:
    old, new, value = words(old_instruction), words(new_instruction), words(example)
    if not value:
        return None
    quote = _whole_quote(value, example, old_instruction, new_instruction)
    if quote is not None:
        return quote
    opcodes = _word_opcodes(old_instruction, new_instruction, language)
    for start, end in _spans(old, value):
        if is_sentence(example, old_instruction):
            # Its start is the first capitalized word after the last unchanged words before
            # it ("write [Water the office plants]", "reading [Lessons are on Tuesday ...]").
            anchor = max((j2 for tag, _, i2, _, j2 in opcodes if tag == "equal" and i2 <= start),
                         default=0)  # fmt: skip
            sentence = _sentence_near(new_instruction, new, anchor, len(value))
            if sentence:
                return sentence
        found = _align_span(opcodes, (start, end), old, new, example)
        if found:
            # A recorded value that was part of a quote (a search for a title's first word)
            # stays a part; one that was not becomes the whole quote it now lies inside.
            quote = (
                None
                if _quote_holding(example, old_instruction)
                else _quote_holding(found, new_instruction)
            )
            return quote or _with_end_punctuation(
                _as_written(found, new_instruction), new_instruction, example
            )
    after = _after_same_separator(example, old_instruction, new_instruction)
    return _with_end_punctuation(after, new_instruction, example) if after else None


def _whole_quote(
    value: Sequence[str], example: str, old_instruction: str, new_instruction: str
) -> str | None:
    """A quoted text is one value: where the recorded value was a quote of the recorded task
    (``quote_of``: the run typed "Sem" + "." for the quote "Sem."), the new value is all of
    the new task's quote at that place ("Eu donec maecenas pretium"), less the same end marks.
    Word alignment would keep the recorded value's length."""
    old_quotes, new_quotes = parse(old_instruction).quoted, parse(new_instruction).quoted
    at = quote_of(example, old_instruction, value)
    if at is None or len(old_quotes) != len(new_quotes):
        return None
    old_quote, new_value = old_quotes[at], new_quotes[at].strip()
    head, _, tail = old_quote.partition(example.strip())
    if head.strip() and new_value.startswith(head.strip()):
        new_value = new_value[len(head.strip()) :]
    if tail.strip() and new_value.endswith(tail.strip()):
        new_value = new_value[: -len(tail.strip())]
    return new_value.strip() or None


def _quote_holding(found: str, instruction: str) -> str | None:
    """The task's quote that the aligned words lie inside, whole: the quote marks where the
    value starts and ends, where the words' capitals (guessed, in a lower-cased task) or the
    alignment's proportions would cut it ("play '[guitar lesson in 5 minutes]'")."""
    return next((q.strip() for q in parse(instruction).quoted if _contains(q, found)), None)


def quote_of(example: str, instruction: str, value: Sequence[str] | None = None) -> int | None:
    """Which of ``instruction``'s quotes the recorded value ``example`` is, up to the marks at
    its ends (a quote "Sem." typed as "Sem" + "."), if one is. ``value``: its words."""
    value = words(example) if value is None else value
    for at, quote in enumerate(parse(instruction).quoted):
        if words(quote) == list(value) and example.strip() in quote:
            return at
    return None


def _after_same_separator(example: str, old_instruction: str, new_instruction: str) -> str:
    """What follows the same separating mark in both sentences, where the recorded value is
    all that followed it: "Message Farah: [On my way]" / "Message Hiro: [Call me back]". The
    words before the mark share a meaningful word. Word alignment has no anchor there (the
    name before the value changed too), and free text has no shape to find it by."""
    old_mark = _set_off_by(example, old_instruction)
    new_marks = list(_SEPARATOR.finditer(new_instruction))
    if old_mark is None or not new_marks:
        return ""
    new_mark = new_marks[-1]
    if old_mark.group(1) != new_mark.group(1):
        return ""
    before = {w.lower() for w in words(old_instruction[: old_mark.start()])} - stopwords()
    if before.isdisjoint(w.lower() for w in words(new_instruction[: new_mark.start()])):
        return ""
    found = words(new_instruction[new_mark.end() :])
    return _as_written(" ".join(found), new_instruction) if found else ""


def _set_off_by(example: str, instruction: str) -> re.Match[str] | None:
    """The separating mark after which ``example`` is all ``instruction`` says, if any."""
    marks = list(_SEPARATOR.finditer(instruction))
    if not marks or words(instruction[marks[-1].end() :]) != words(example):
        return None
    return marks[-1]


#: What ends a sentence: a full stop, "!" or "?" before a space or the end ("4.5" goes on).
_END_MARK = re.compile(r"[.!?](?=\s|$)")


def is_sentence(example: str, instruction: str) -> bool:
    """Whether ``example`` is a sentence of its own in ``instruction`` ("append [Order more
    coffee.] at the end of the page"): three words or more, the first capitalized, two
    others not (a title capitalizes its words), ended by its own full stop (or "!", "?")."""
    parts = words(example)
    if len(parts) < 3 or not parts[0][:1].isupper():
        return False
    if sum(not _name_like(w) for w in parts[1:]) < 2:
        return False
    return re.search(rf"(?<!\w){re.escape(example.strip())}[.!?](?=\s|$)", instruction) is not None


def _sentence_near(instruction: str, tokens: Sequence[str], index: int, size: int) -> str | None:
    """The sentence of ``instruction`` that starts with the first capitalized word from word
    ``index`` on (else the last before it), up to its own end mark: word alignment places a
    sentence's start, never its end ("append [Clean the fridge on Friday]. at the end": "the"
    and "Friday" are no anchors). A sentence starts neither the instruction nor inside a
    name, does not open with a name ("Lucia Romano as the user ..."), and is at most about
    twice as long as the recorded one (``size`` words)."""
    starts = [
        match for match in re.finditer(r"(?<![\w.@])[A-Z][\w'’-]*", instruction)
        if match.start() > 0 and not re.search(r"[A-Z][\w'’-]*\s+$", instruction[: match.start()])
    ]  # fmt: skip
    if not starts:
        return None
    at = _char_of_word(instruction, tokens, min(index, len(tokens) - 1)) if tokens else 0
    after = [m for m in starts if m.start() >= at]
    best = after[0] if after else starts[-1]
    end = _END_MARK.search(instruction, best.end())
    text = instruction[best.start() : end.start() if end else len(instruction)].strip()
    found = words(text)
    if not 2 <= len(found) <= 2 * size + 2 or _name_like(found[1]):
        return None
    return text


def _char_of_word(instruction: str, tokens: Sequence[str], index: int) -> int:
    """Where word ``index`` of ``tokens`` (``words(instruction)``) starts in the text."""
    position = 0
    for token in tokens[: index + 1]:
        found = instruction.lower().find(token.lower(), position)
        if found < 0:
            return position
        start, position = found, found + len(token)
    return start if tokens else 0


def _as_written(found: str, instruction: str) -> str:
    """The aligned words as the instruction writes them, punctuation between them kept
    ("Nunc. Commodo, praesent" rather than "Nunc Commodo praesent")."""
    parts = found.split()
    if len(parts) < 2:
        return found
    pattern = r"[^\w\s]*\s*".join(re.escape(p) for p in parts)
    match = re.search(rf"(?<!\w){pattern}(?!\w)", normalize_units(instruction))
    return match.group(0) if match else found


@functools.lru_cache(maxsize=1024)
def _word_opcodes(
    old_instruction: str, new_instruction: str, language: Language
) -> tuple[Opcode, ...]:
    """The word alignment of two instructions: one per pair, however many values it carries
    (it was a fifth of the planning time, recomputed for each value)."""
    old, new = _words(old_instruction, language), _words(new_instruction, language)
    matcher = SequenceMatcher(
        a=[w.lower() for w in old], b=[w.lower() for w in new], autojunk=False
    )
    return tuple(matcher.get_opcodes())


def _align_span(
    opcodes: Sequence[Opcode], span: tuple[int, int], old: list[str], new: list[str], example: str
) -> str | None:
    start, end = span
    value = words(example)
    new_start, new_end = _map_span(opcodes, start, end, old, new)
    if new_end <= new_start:
        # The value opens a longer changed run ("Paris and save it ..." / "Denver by
        # message"), where the proportional end falls short: take as many words as it had.
        block_end = next(
            (j2 for tag, i1, i2, _, j2 in opcodes if tag == "replace" and i1 <= start < i2), 0
        )
        new_end = min(block_end, new_start + len(value))
    # The last words of both sentences anchor each other ("... at 07:00" / "..., 21:00"),
    # for a time, a date, a number, or a name after the same word ("... to Chen" /
    # "... message it to Dana"): not free text.
    same_before = (
        start > 0 and new_start > 0 and old[start - 1].lower() == new[new_start - 1].lower()
    )
    at_the_end = (
        end == len(old)
        and new_end == len(new)
        and value_shape(" ".join(new[new_start:new_end])) == value_shape(example)
        and (any(c.isdigit() for c in example) or (_is_name(value) and same_before))
    )
    if not (_anchored(opcodes, start, end, [w.lower() for w in old]) or at_the_end):
        return None
    return _as_value(new[new_start:new_end], value, example, start > 0)


def _as_value(found: list[str], value: list[str], example: str, after_start: bool) -> str | None:
    """The aligned words ``found`` cut to what stands for the recorded ``value`` (whose words
    are not the instruction's first when ``after_start``), or None where they cannot."""
    if len(found) == 1 and found[0].lower() in _language().pronouns:
        return found[0]  # "add [it] to my clocks": ``fill_slot`` finds what it stands for
    if all(_name_like(w) for w in value):
        # A name stands for a name: "Paris" -> "Rome", not "Rome under"; and it is the name
        # that must not run long, not the words after it ("named [Bus]" / "named [Laundry]
        # at 15:30, please"). Words before it in a block short enough to be the value's own
        # place are its description, not the name ("add [Night Stars]" / "add [the track
        # Glass Roads]").
        lead = len(list(itertools.takewhile(lambda w: not _name_like(w), found)))
        if lead and len(found) > len(value) + 2:
            return None
        found = list(itertools.takewhile(_name_like, found[lead:]))
    elif (
        found
        and _is_named_thing(value)
        and (_name_after_plain_word(found) or _plain_words_of_another_thing(found, value))
    ):
        # A named thing is a name then plain words ("Zephyr lamp"), never the other way
        # round: "add [the Zephyr lamp] to my cart" / "add [the track Glass Roads] to Workout";
        # nor plain words ending in another noun ("Purchase the Atlas [camera bag]" / "Open
        # the [camera and shoot a photo]"; "add the [nova lamp]" is one, written small).
        return None
    elif found and after_start and value[0][:1].isupper():
        # A title opening with a name opens with the new name: words it has in excess before
        # a name are its description ("Play '[Pasta Recipe in 5 minutes]' on Zenith" /
        # "Play [the video City Tour in 5 minutes]", "[the Zenith video Bike Repair ...]").
        found = found[_description_before_name(found, len(found) - len(value)) :]
    if found and value_shape(" ".join(found)) != value_shape(example):
        # A date or time is the span of its shape ("at [06:00 I] have" holds "06:00").
        shaped = _same_shape_spans(example, " ".join(found))
        found = shaped[0].split() if len(shaped) == 1 else found
    if not found or len(found) > len(value) + 2:
        return None
    return " ".join(found)


def _description_before_name(found: Sequence[str], excess: int) -> int:
    """How many of the first ``excess`` words of ``found`` end in a plain word before a
    capitalized one ("the video [City Tour ...]": 2), or 0."""
    ends = [
        i + 1
        for i in range(min(excess, len(found) - 1))
        if not found[i][:1].isupper() and found[i + 1][:1].isupper()
    ]
    return max(ends, default=0)


def _plain_words_of_another_thing(found: Sequence[str], value: Sequence[str]) -> bool:
    """``found`` has no name and does not end in ``value``'s head noun. A pronoun stands for
    a thing ("add [it] to the calendar"): ``fill_slot`` looks for what it stands for."""
    if _name_like(found[0]) or normal_word(found[-1]) == normal_word(value[-1]):
        return False
    return not (len(found) == 1 and found[0].lower() in _language().pronouns)


def _name_after_plain_word(parts: Sequence[str]) -> bool:
    return any(
        b[:1].isupper() and not (a[:1].isupper() or a[:1].isdigit())
        for a, b in itertools.pairwise(parts)
    )


def _name_like(word: str) -> bool:
    return word[:1].isupper() or word[:1].isdigit()


Opcode = tuple[str, int, int, int, int]


def is_name(text: str) -> bool:
    """Whether every word of ``text`` is capitalized ("Jonas", "Paper Roads")."""
    parts = words(text)
    return bool(parts) and _is_name(parts)


def _is_name(parts: Sequence[str]) -> bool:
    return all(w[:1].isupper() for w in parts)


def _with_end_punctuation(value: str, instruction: str, example: str) -> str:
    """ "Happy birthday!" keeps its "!" when it ends the instruction (or a quote in it): an
    imperative does not end in one, so it belongs to the message. A "?" ends a question
    ("weather like in Denver?"); it stays only if the recorded value had one too."""
    marks = "!?" if example.rstrip().endswith("?") else "!"
    end = normalize_units(instruction).rstrip()
    if end[-1:] in ('"', "”", "'"):
        end = end[:-1].rstrip()
    # The value may end in marks itself: the fewest of the last marks after it (a pattern
    # made of each value was a compile per value).
    for cut in range(len(end.rstrip(marks)), len(end)):
        if end[:cut].endswith(value):
            return value + end[cut:]
    return value


@functools.lru_cache(maxsize=16384)  # the known values of a site are shaped again per task
def value_shape(text: str) -> str:
    """Character classes with runs collapsed: "07:00" and "21:00" are both "d:d"."""
    classes = (
        "d" if c.isdigit() else "A" if c.isupper() else "a" if c.isalpha() else c for c in text
    )
    return "".join(k for k, _ in itertools.groupby(classes))


def _anchored(opcodes: Sequence[Opcode], start: int, end: int, old: Sequence[str]) -> bool:
    """An unchanged run of words touches the value (or overlaps it), and that run, or an
    unchanged run at most two words before it, holds a meaningful word: "temperature in
    [Paris]" and "weather like in [Oslo]" / "weather in [Lima]", not "the [Paris]"."""
    equal = [(i1, i2) for tag, i1, i2, _, _ in opcodes if tag == "equal"]
    empty = stopwords()

    def meaningful(i1: int, i2: int) -> bool:
        return any(old[i] not in empty for i in range(i1, i2))

    for i1, i2 in equal:
        if not (i2 == start or i1 == end or (i1 < end and start < i2)):
            continue
        if meaningful(i1, i2) or any(meaningful(a, b) and i1 - 2 <= b <= i1 for a, b in equal):
            return True
    # Several values side by side changed as one run of as many words, between meaningful
    # unchanged words: "register [tomas (Tomas Berg, tomas.berg@...)] in the group" /
    # "register [omar (Omar Haddad, omar.haddad@...)] in the group" map word for word.
    for k, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag != "replace" or i2 - i1 != j2 - j1 or not (i1 <= start and end <= i2):
            continue
        if 0 < k < len(opcodes) - 1 and opcodes[k - 1][0] == opcodes[k + 1][0] == "equal":
            return meaningful(*opcodes[k - 1][1:3]) and meaningful(*opcodes[k + 1][1:3])
    return False


def _map_span(
    opcodes: Sequence[Opcode], start: int, end: int, old: Sequence[str], new: Sequence[str]
) -> tuple[int, int]:
    """Where the value ``old[start:end]`` falls in the new instruction. A boundary strictly
    inside a changed run is placed in proportion, except that the start of a value opening
    with a name, placed inside a name, moves to that name's start: "Watch the video [Bike
    Repair] for beginners" / "I want to watch [Cat Compilation] for beginners", where the
    proportional start falls on "Compilation". A sentence's first word is capitalized
    whatever it is, so no name."""
    new_start, new_end = _map_index(opcodes, start, False), _map_index(opcodes, end, True)
    opening = _changed_run(opcodes, start)
    same_tail = any(tag == "equal" and start < i1 < end <= i2 for tag, i1, i2, _, _ in opcodes)
    if opening is not None and same_tail and _after_unchanged(opcodes, opening):
        # A value whose last words are unchanged ("... for beginners") opens inside a run
        # that changed length, after unchanged words: it keeps its words counted back from
        # its tail, within the run, whatever the case ("watch [the video bike repair for
        # beginners]" / "i want to watch [cat compilation for beginners]"; the
        # proportional start is "compilation").
        new_start = max(opening[3], new_end - (end - start))
    if old[start][:1].isupper() and new_start < len(new) and new[new_start][:1].isupper():
        run_start = next(
            (j1 for tag, i1, i2, j1, _ in opcodes if tag == "replace" and i1 < start < i2), None
        )
        while (
            run_start is not None
            and new_start > max(run_start, 1)
            and new[new_start - 1][:1].isupper()
        ):
            new_start -= 1
    return new_start, new_end


def _changed_run(opcodes: Sequence[Opcode], index: int) -> Opcode | None:
    """The run that changed length with the word boundary ``index`` strictly inside it."""
    return next(
        (
            op for op in opcodes
            if op[0] == "replace" and op[1] < index < op[2] and op[2] - op[1] != op[4] - op[3]
        ),
        None,
    )  # fmt: skip


def _after_unchanged(opcodes: Sequence[Opcode], run: Opcode) -> bool:
    k = list(opcodes).index(run)
    return k > 0 and opcodes[k - 1][0] == "equal"


def _map_index(opcodes: Sequence[Opcode], index: int, is_end: bool) -> int:
    """Where a word boundary of the old instruction falls in the new one."""
    for tag, i1, i2, j1, j2 in opcodes:
        inside = i1 < index <= i2 if is_end else i1 <= index < i2
        if not inside:
            continue
        if tag == "equal" or (i2 - i1 == j2 - j1):
            return j1 + (index - i1)
        if tag == "delete":
            return j1
        if index in (i1, i2):
            return j1 if index == i1 else j2
        # Strictly inside a block that changed length: place the boundary proportionally.
        return j1 + round((index - i1) * (j2 - j1) / (i2 - i1))
    return opcodes[-1][4] if opcodes else 0


@dataclass(frozen=True)
class SlotRequest:
    """One slot of one recorded run, to be filled for a new task."""

    recorded: str  # the value the run gave the slot
    recorded_instruction: str
    instruction: str  # the new task
    known: frozenset[str] = frozenset()  # values recorded where the slot is
    titled: bool = False  # the slot is a title field
    #: Whether a value is known as another kind here (a city where a product goes).
    foreign: Callable[[str], bool] | None = None


def fill_slot(
    example: str,
    old_instruction: str,
    new_instruction: str,
    known_values: Iterable[str] = (),
    titled: bool = False,
    foreign: Callable[[str], bool] | None = None,
) -> str | None:
    """The value to type in place of ``example`` for the new task, or None if none is found
    (the first of ``slot_candidates``).

    ``titled``: the value goes into a title field, where a quoted phrase of the instruction is
    the title even if the recorded instruction did not quote its own. ``foreign``: whether a
    value is known as another kind (a city where a product goes); such an alignment is wrong.
    """
    request = SlotRequest(
        example, old_instruction, new_instruction, frozenset(known_values), titled, foreign
    )
    return next(slot_candidates(request), (None, 0))[0]


def slot_candidates(request: SlotRequest) -> Iterator[tuple[str, int]]:
    """Every way's value for the slot, with the way's rank (0: the first way), in the ways'
    order, each value once (case aside); a way that ends the search ends them. Each way is
    asked only when the values before it were taken: most slots need only the first."""
    seen = _longest_first(frozenset(request.known))  # the same set if it is one already
    asked = _Request(**{f.name: getattr(request, f.name) for f in fields(SlotRequest)}, seen=seen)
    given: set[str] = set()
    for rank, way in enumerate(_WAYS):
        value = way(asked)
        if value is _End.NO_VALUE:
            return
        if value is not None and value.lower() not in given:
            given.add(value.lower())
            yield value, rank


# A site's known values are the same set for every slot there and every task: ordered once.
@functools.lru_cache(maxsize=4096)
def _longest_first(known: frozenset[str]) -> tuple[str, ...]:
    return tuple(sorted({v for v in known if v}, key=lambda v: (-len(v), v)))


class _End(enum.Enum):
    NO_VALUE = enum.auto()  # a way's answer that ends the search (None: try the next way)


@dataclass(frozen=True)
class _Request(SlotRequest):
    """What ``fill_slot`` is asked, and what its ways share, each worked out once if asked."""

    #: The known values, longest first, then alphabetical: deterministic.
    seen: tuple[str, ...] = ()

    @functools.cached_property
    def aligned(self) -> str | None:
        return align_value(self.recorded, self.recorded_instruction, self.instruction)

    @functools.cached_property
    def quoted(self) -> list[str]:
        """The texts the new instruction quotes, where the recorded value was itself quoted in
        the old one (else none: an unquoted value is no quoted text's slot)."""
        if quote_of(self.recorded, self.recorded_instruction) is None:
            return []
        return [q.strip() for q in _QUOTED.findall(self.instruction)]

    @functools.cached_property
    def named(self) -> list[str]:
        """Known values the instruction names, longest first (a longer name contains a shorter
        one), then alphabetical: deterministic. Only these can pin a value down."""
        named = list(_named_known(self.instruction, frozenset(self.known), _language()))
        if self.foreign is not None:
            named = [v for v in named if not self.foreign(v)]
        if self.quoted:
            # The run typed a text the task quoted: the new task's values are the texts it
            # quotes, not a word of its frame that the field once held ("... and press Submit").
            named = [v for v in named if any(_contains(q, v) for q in self.quoted)]
        return named

    @functools.cached_property
    def refused(self) -> Callable[[str], bool] | None:
        """``foreign``, and where the recorded value was quoted, also refusing a value none of
        the ``quoted`` texts holds."""
        foreign, quoted = self.foreign, self.quoted
        if not quoted:
            return foreign
        return lambda value: (
            bool(foreign and foreign(value)) or not any(_contains(q, value) for q in quoted)
        )


def _at_address(request: _Request) -> str | None:
    """The e-mail address the instruction says, when the recorded value is one: an address is
    the only one of its kind the task says."""
    if "@" not in request.recorded.strip("@"):
        return None
    said = dict.fromkeys(words(request.instruction))
    return _the_one([w for w in said if "@" in w.strip("@")], request.foreign)


def _pronoun_referent(request: _Request) -> str | None:
    example, foreign = request.recorded, request.foreign
    if not (request.aligned and request.aligned.lower() in _language().pronouns):
        return None
    # "Plan a trip to Cairo on Jul 24: add it to the calendar": "it" is the trip. Where
    # nothing is found it stands for, the ways after this one still may find the value.
    referent = _antecedent(
        request.instruction, capitalized=example[:1].isupper(), name=_is_name(words(example))
    )
    return None if referent is None or (foreign and foreign(referent)) else referent


def _from_alignment(request: _Request) -> str | _End | None:
    aligned, example, new_instruction = request.aligned, request.recorded, request.instruction
    if not aligned or aligned.lower() in _language().pronouns:
        return None
    if _frame_words_only(aligned, example, request.recorded_instruction):
        # "Search the wiki for marketing" / "Look up marketing in the wiki search": the
        # alignment took a word of the recorded wording itself, where the task says a value
        # the field has taken.
        return None
    aligned = _past_naming_word(aligned, example, new_instruction)
    # A known value inside a loose alignment pins it down: "Lumen watch" in "Lumen watch
    # price on Acme"; a new value of a known kind ends at its kind's head noun
    # ("Nova kettle price" -> "Nova kettle").
    named, foreign = request.named, request.foreign
    inside = next((_as_said(v, aligned) for v in named if _set_apart(aligned, v)), None)
    value = inside or _longer_known(aligned, named, new_instruction)
    value = value or _cut_at_head(aligned, request.seen)
    if foreign is None or not foreign(value) or value in request.quoted:
        # A quoted text standing where the recorded one stood is the text to type as
        # written, though another field knows it ("Enter "Vina" into the text field"
        # where "vina" was once a username).
        return value
    # "note the temperature under Shopping" aligned a note title with the recorded city:
    # the instruction's own city, if it names one, is the value.
    return named[0] if named else _End.NO_VALUE


def _known_named(request: _Request) -> str | None:
    return _as_said(request.named[0], request.instruction) if request.named else None


def _by_kind(request: _Request) -> str | None:
    example, new, seen = request.recorded, request.instruction, request.seen
    parts = words(example)
    found = None
    if _is_name(parts):
        # "I love Paper Roads; like it" does not align with "Like the song Paper Lights", but
        # "Paper Roads" is a name made of words the field's names use: a song by its kind.
        # "Make a new alarm - Laundry - going off at 15:30": a name set off by dashes is the
        # thing named, as a quoted one would be.
        set_off = _DASHED.findall(normalize_units(new))
        found = _the_one(_kindred_names(new, seen), request.refused) or _the_one(
            [name for name in set_off if _is_name(words(name))], request.refused
        )
    elif _is_named_thing(parts):
        # "Put the Pique headphones into my cart" does not align with "Add the Zephyr lamp to
        # my cart", but a name and the head noun of known things is a thing of that kind.
        found = _the_one(_kindred_things(new, seen), request.refused)
    elif example != example.lower() or any(map(str.isdigit, example)):
        return None  # plain words only: "Email Chen the headline of the [jazz] article"
    if found:
        return found
    return _the_one(_beside_anchors(example, request.recorded_instruction, new), request.refused)


def _same_shape(request: _Request) -> str | None:
    spans = _same_shape_spans(request.recorded, request.instruction)
    return _the_one(spans, request.refused) or None


def _from_quotes(request: _Request) -> str | None:
    example, old = request.recorded, request.recorded_instruction
    if not (request.titled or _QUOTED.search(old) or _set_off_by(example, old)):
        # The recorded value was neither quoted nor set off by a mark ("Message Farah: On my
        # way"): a quoted text is another slot's.
        return None
    quoted = _QUOTED.findall(request.instruction)
    return quoted[0] if len(quoted) == 1 else None


#: The ways to find a slot's new value, tried in turn: the first that answers gives it.
_WAYS: tuple[Callable[[_Request], str | _End | None], ...] = (
    _at_address, _pronoun_referent, _from_alignment, _known_named, _by_kind, _same_shape,
    _from_quotes,
)  # fmt: skip


#: How many words longer than the recorded value a value found beside an anchor may be.
ANCHOR_SLACK = 1


@dataclass(frozen=True)
class Anchor:
    """A meaningful word the recorded value stood beside, the value after it (``value_after``)
    or before it; ``next_to`` it, or anywhere after it for a name that may own it."""

    word: str
    value_after: bool
    next_to: bool = True


def _beside_anchors(example: str, old_instruction: str, new_instruction: str) -> list[str]:
    """Values of the recorded value's shape beside the words it stood beside, where another
    word order lost the alignment: "an alarm for 07:45 called [Meds]" / "an alarm called
    [Laundry] for 22:00" (any word giving a name: "a user mina named [Mina Okafor]" / "a user
    jonas called [Jonas Weber]"); "the [jazz] article on wikiverse.org" / "find the [coffee]
    article"; "the page [hiking] with the text" / "a page called [surfing] whose content is".
    Where glue stands on the anchor's side, the other side: "find the page [budget]" / "find
    the [support] page"; an owner its possessive joins to the anchor: "What is the weather
    like in [Denver]?" / "Show me [Rome]'s weather"."""
    language = _language()
    old, new, value = words(old_instruction), words(new_instruction), words(example)
    lowered = [w.lower() for w in _unpossessed(new, language)]
    found = []
    for anchor in _anchors(old, value, lowered, language):
        at, after = lowered.index(anchor.word), anchor.value_after
        span = _value_beside(new, at, after, value, language) if anchor.next_to else []
        beside = lowered[at + 1 : at + 2] if after else lowered[max(at - 1, 0) : at]
        if not span and not (anchor.next_to and beside and beside[0] not in language.stopwords):
            span = _value_beside(new, at, not after, value, language)
        if span:
            found.append(_as_written(" ".join(span), new_instruction))
    return list(dict.fromkeys(found))


def _anchors(
    old: list[str], value: list[str], new_lowered: list[str], language: Language
) -> list[Anchor]:
    """The words the recorded value stood beside that carry meaning and both instructions say
    once. A plain value's: the word before it, past words giving a name, and the word after
    it. A name follows the word introducing it: the words giving a name where one gave it
    its own, else the word before it; and any word before it, which it may own."""
    lowered = [w.lower() for w in _unpossessed(old, language)]
    naming, named = language.naming_words, bool(value) and value[0][:1].isupper()
    once = {w for w in lowered if lowered.count(w) == new_lowered.count(w) == 1}
    shared = once - language.stopwords

    found: list[Anchor] = []
    for start, end in _spans(old, value):
        at = start - 1
        while at >= 0 and lowered[at] in naming:
            at -= 1
        if at < start - 1:
            found += [Anchor(w, True) for w in sorted(naming)]
        if at >= 0 and lowered[at] in shared and not (named and at < start - 1):
            found.append(Anchor(lowered[at], True))
        if _is_name(value):
            found += [Anchor(w, True, next_to=False) for w in lowered[:start] if w in shared]
        if not named and end < len(lowered) and lowered[end] in shared:
            found.append(Anchor(lowered[end], False))
    return [a for a in dict.fromkeys(found) if new_lowered.count(a.word) == 1]


def _value_beside(
    tokens: list[str], at: int, after: bool, value: list[str], language: Language
) -> list[str]:
    """The words of ``value``'s shape right after ``tokens[at]`` (past words giving a name) or
    right before it. A name: its capitalized words (``_name_at_start``); before the anchor,
    only an owner, never the first word, whose capital is the sentence's ("Today's
    weather"). Plain words: up to the glue if within ``ANCHOR_SLACK`` words of the recorded
    value's length, else as many as it had ("a page [fishing] whose content is ...")."""
    naming, empty = language.naming_words, language.stopwords
    if after:
        at += 1
        while at < len(tokens) and tokens[at].lower() in naming:
            at += 1
    side = tokens[at:] if after else tokens[:at][::-1]
    if side and value[0][:1].isupper():
        name = _name_beside(side, after, value, language)
        return name if len(name) <= len(value) + ANCHOR_SLACK else []
    glue = empty | naming
    plain = [w == w.lower() and not any(map(str.isdigit, w)) and w not in glue for w in side]
    size = plain.index(False) if False in plain else len(side)
    run, at_glue = side[:size], size == len(side) or side[size].lower() in empty
    if len(run) < len(value):
        return []
    run = run if at_glue and len(run) <= len(value) + ANCHOR_SLACK else run[: len(value)]
    return run if after else run[::-1]


def _name_beside(side: list[str], after: bool, value: list[str], language: Language) -> list[str]:
    """The name ``side`` (the words after the anchor, or before it nearest first) opens with."""
    possessive = _possessive(language.possessive_suffixes)
    owner = possessive.sub("", side[0]) if possessive else side[0]
    if after:
        name = _name_at_start(side, plain=not _is_name(value))
    elif owner != side[0] and len(side) > 1:
        more = itertools.takewhile(
            lambda w: w[:1].isupper() and w.lower() not in language.stopwords, side[1:-1]
        )
        name = [*reversed(list(more)), owner]
    else:
        return []
    if possessive:
        name[-1] = possessive.sub("", name[-1]) or name[-1]
    return name if (name[0] if after else owner)[:1].isupper() else []


#: How many words may stand between a word marking a thing as new and its name ("a new
#: [wiki page named] poetry").
NEW_THING_REACH = 3


def introduced_as_new(value: str, instruction: str) -> bool:
    """Whether ``instruction`` names ``value`` as a thing to make, not one to find: a word
    marking it new comes shortly before it, with no word of the language's glue between ("add
    a new page theatre", "a new wiki page named poetry"; not "a new chat with Jonas")."""
    language = _language()
    if not language.new_words:
        return False
    tokens, parts = [w.lower() for w in words(instruction)], [w.lower() for w in words(value)]
    for i in range(len(tokens) - len(parts) + 1):
        if not parts or tokens[i : i + len(parts)] != parts:
            continue
        for back in range(i - 1, max(-1, i - NEW_THING_REACH - 2), -1):
            if tokens[back] in language.new_words:
                return True
            if tokens[back] in language.stopwords:
                break
    return False


def _frame_words_only(found: str, example: str, old_instruction: str) -> bool:
    """Whether every word of ``found`` is a word the recorded instruction says besides its
    value ``example`` (its wording, not a value)."""
    value = {w.lower() for w in words(example)}
    frame = {w.lower() for w in words(old_instruction)} - value
    parts = {w.lower() for w in words(found)}
    return bool(parts) and parts <= frame


def _past_naming_word(aligned: str, example: str, new_instruction: str) -> str:
    """An alignment that took the word giving a thing its name ("a page [named] poetry")
    takes the name after it: as many words as the recorded value had."""
    parts = words(aligned)
    naming = _language().naming_words
    if not parts or parts[0].lower() not in naming:
        return aligned
    tokens = words(new_instruction)
    size = len(words(example))
    for i in range(len(tokens) - len(parts) + 1):
        if tokens[i : i + len(parts)] == parts:
            after = tokens[i + 1 : i + 1 + size]
            if len(after) == size and not {w.lower() for w in after} & (stopwords() | naming):
                return _as_written(" ".join(after), new_instruction)
            break
    return aligned


def _name_at_start(parts: Sequence[str], plain: bool) -> list[str]:
    """The name ``parts`` open with: its capitalized words, and for a title like "Call mom"
    (``plain``) the plain words after them too, up to a word of the language's glue or a
    number ("called [Meds] for 05:00", "called [Doctor visit] at 05:00")."""
    empty = stopwords()

    def goes_on(word: str) -> bool:
        if word[:1].isupper():
            return True
        return plain and word.lower() not in empty and not any(c.isdigit() for c in word)

    return [parts[0], *itertools.takewhile(goes_on, parts[1:])]


def _the_one(candidates: Iterable[str], foreign: Callable[[str], bool] | None) -> str | None:
    """The only candidate not of another kind, if there is exactly one."""
    kept = [c for c in candidates if not (foreign and foreign(c))]
    return kept[0] if len(kept) == 1 else None


@functools.lru_cache(maxsize=8)
def _name_patterns(
    articles: tuple[str, ...], prepositions: tuple[str, ...]
) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    """The language's articles before a name, and a date, time or place detail after it (a
    preposition and a number: "on Jul 24"), as patterns; None where the language has none."""
    article = detail = None
    if articles:
        article = re.compile(rf"^(?:{'|'.join(map(re.escape, articles))})\s+", re.IGNORECASE)
    if prepositions:
        either = "|".join(map(re.escape, prepositions))
        detail = re.compile(rf"\s+(?:{either})\s+(?:\S+\s+)?\S*\d.*$", re.IGNORECASE)
    return article, detail


def _antecedent(instruction: str, capitalized: bool, name: bool = False) -> str | None:
    """What a pronoun stands for: the object of the task's first clause, without its article
    and the details that other slots hold ("Plan a trip to Cairo on Jul 24 at 07:00" ->
    "Trip to Cairo"). For a recorded ``name``, where the first clause is no thing but a
    question, the one name it holds ("... what time it is in [Oslo]; add it to my clocks")."""
    first = re.split(r"[:;,]|[.?!](?=\s)", instruction, maxsplit=1)[0].strip()
    thing = _object_of(first, capitalized)
    if thing is None and name:
        names = _names_inside(first)
        return names[0] if len(names) == 1 else None
    return thing


def _names_inside(sentence: str, plain: bool = False) -> list[str]:
    """The runs of capitalized words after the sentence's first word (whose capital is the
    sentence's), the language's glue ("I") left out. For a title like "Call mom" (``plain``)
    a run goes on over the plain words after it, up to a word of the glue or a number."""
    empty = stopwords()
    runs: list[list[str]] = []
    previous = False
    for word in words(sentence)[1:]:
        glue = word.lower() in empty
        named = _is_name([word]) and not glue
        goes_on = previous and (
            named or (plain and not glue and not any(c.isdigit() for c in word))
        )
        if goes_on:
            runs[-1].append(word)
        elif named:
            runs.append([word])
        previous = goes_on or named
    return [" ".join(run) for run in runs]


@functools.lru_cache(maxsize=4096)
def names_in_sentences(instruction: str, plain: bool = False) -> tuple[str, ...]:
    """The names the instruction says: ``_names_inside`` each of its sentences (split at a
    sentence's end, ":" or ";"), outside quoted text, a possessive cut off ("Could you wake
    me at 22:00? Call the alarm Laundry" -> "Laundry"; with ``plain``, "put Yoga class in my
    calendar" -> "Yoga class"). Cached: binding asks it for every trace it binds."""
    possessive = _possessive(_language().possessive_suffixes)
    found = [
        possessive.sub("", name) if possessive else name
        for sentence in re.split(r"[.?!:;](?=\s|$)", _QUOTED.sub(" . ", instruction))
        for name in _names_inside(sentence.strip(), plain)
    ]
    return tuple(dict.fromkeys(found))


def _object_of(first: str, capitalized: bool) -> str | None:
    """The object of the clause ``first``: its words after the verb, less article and details."""
    parts = first.split(maxsplit=1)
    if len(parts) < 2:
        return None
    language = _language()
    article, detail = _name_patterns(language.articles, language.detail_prepositions)
    phrase = parts[1]
    phrase = detail.sub("", phrase) if detail else phrase
    phrase = (article.sub("", phrase) if article else phrase).strip(" .")
    if not phrase or phrase.lower() in language.pronouns:
        return None
    # A thing, not a clause: "(I'd) like to see what time it is in Oslo" holds a question word
    # and the very pronoun it would stand for.
    said = {w.lower() for w in words(phrase)}
    if said & (language.pronouns | language.question_words):
        return None
    return phrase[:1].upper() + phrase[1:] if capitalized else phrase


def _longer_known(aligned: str, known: Iterable[str], instruction: str) -> str | None:
    """A known value that the instruction names and that begins with the aligned words: a
    name's alignment stops at its first lower-case word ("Trip" of the title "Trip plan")."""
    head = [w.lower() for w in words(aligned)]
    for value in known:
        parts = [w.lower() for w in words(value)]
        if len(parts) > len(head) and parts[: len(head)] == head and _contains(instruction, value):
            return value
    return None


def _cut_at_head(value: str, known: tuple[str, ...]) -> str:
    heads = _head_nouns(known, _language())
    parts = words(value)
    last = max((i for i, w in enumerate(parts) if w.lower() in heads), default=None)
    if last is None or last == 0:
        return value
    # Cut in the value as written: "94*2" stays "94*2", not the words "94 2".
    end = 0
    for part in parts[: last + 1]:
        found = value.find(part, end)
        if found < 0:
            return " ".join(parts[: last + 1])
        end = found + len(part)
    return value[:end]


def _unpossessed(tokens: list[str], language: Language) -> list[str]:
    """Each token without the language's possessive ending ("oslo's" -> "oslo")."""
    possessive = _possessive(language.possessive_suffixes)
    if possessive is None:
        return tokens
    return [possessive.sub("", t) or t for t in tokens]


@functools.lru_cache(maxsize=8)
def _possessive(suffixes: tuple[str, ...]) -> re.Pattern[str] | None:
    if not suffixes:
        return None
    return re.compile(rf"(?:{'|'.join(map(re.escape, suffixes))})$")


@functools.lru_cache(maxsize=65536)
def _phrase(text: str, language: Language) -> str:
    return " ".join(w.lower() for w in _words(text, language))


def _named_values(instruction: str, values: tuple[str, ...], longest: int = 8) -> list[str]:
    """The ``values`` the instruction names as whole words, in the order given: the
    instruction's word n-grams are made once, not one search per value."""
    language = _language()
    grams = _grams(instruction, language, longest)
    return [v for v, said in zip(values, _phrases(values, language), strict=True) if said in grams]


# Asked for every slot of every run a task binds, of a few sites' values: once per task and
# site (the known set's hash is kept by the set; a tuple's is worked out each time).
@functools.lru_cache(maxsize=4096)
def _named_known(instruction: str, known: frozenset[str], language: Language) -> tuple[str, ...]:
    return tuple(_named_values(instruction, _longest_first(known)))


# What is read off a site's known values is the same for every task that fills a slot there:
# worked out once per set of values, in the task's language (``language``: the one their words
# are read in).
@functools.lru_cache(maxsize=4096)
def _phrases(values: tuple[str, ...], language: Language) -> tuple[str, ...]:
    return tuple(_phrase(v, language) for v in values)


@functools.lru_cache(maxsize=4096)
def _head_nouns(known: tuple[str, ...], language: Language) -> frozenset[str]:
    """The last words of the known values of several words ("kettle" of "Nova kettle")."""
    heads = (parts for parts in map(words, known) if len(parts) >= 2)
    return frozenset(parts[-1].lower() for parts in heads)


@functools.lru_cache(maxsize=4096)
def _name_vocabulary(known: tuple[str, ...], language: Language) -> frozenset[str]:
    """The words of the known values that are names, folded (``normal_word``)."""
    names = (parts for parts in map(words, known) if _is_name(parts))
    return frozenset(_fold(w, language.plural_suffix) for parts in names for w in parts)


@functools.lru_cache(maxsize=4096)
def _thing_nouns(known: tuple[str, ...], language: Language) -> frozenset[str]:
    """The lower-case words of the known values that are named things, folded."""
    things = (parts for parts in map(words, known) if _is_named_thing(parts))
    return frozenset(_fold(w, language.plural_suffix) for parts in things for w in parts[1:])


@functools.lru_cache(maxsize=1024)  # asked for each slot a task fills: made once per task
def _grams(instruction: str, language: Language, longest: int) -> frozenset[str]:
    # "Oslo's temperature" names Oslo.
    tokens = _unpossessed(_phrase(instruction, language).split(), language)
    return frozenset(
        " ".join(tokens[i : i + n])
        for n in range(1, longest + 1)
        for i in range(len(tokens) - n + 1)
    )


def _as_said(value: str, text: str) -> str:
    """A known value as ``text`` spells it: the task's "Vina" where the KB knew "vina" (the
    instruction is what the world checks against)."""
    pattern = rf"(?<!\w){re.escape(value)}(?!\w)"
    match = re.search(pattern, normalize_units(text), re.IGNORECASE)
    return match.group(0) if match else value


def _set_apart(text: str, value: str) -> bool:
    """Whether ``value`` is in ``text`` set apart by spaces (or the text's ends, or a
    punctuation mark ending a phrase): "2" is not a value inside "94*2" or "3.2"."""
    pattern = rf"(?<![^\s\"'(“‘]){re.escape(value.lower())}(?=$|[\s\"')”’]|[,;:!?.](?:\s|$))"
    return re.search(pattern, normalize_units(text).lower()) is not None


def _contains(text: str, value: str) -> bool:
    pattern = rf"(?<!\w){re.escape(value.lower())}(?!\w)"
    return re.search(pattern, normalize_units(text).lower()) is not None


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
#: Where a quoted text opens (after a space, not the apostrophe of "Bruno's").
_QUOTE_OPENS = re.compile(r"\s+(?=[\"“'‘]\w)")


def _kindred_names(instruction: str, known: tuple[str, ...]) -> list[str]:
    """Runs of capitalized words in ``instruction`` (a sentence's first word is capitalized
    anyway, so it is left out) at least half of whose words are words of the ``known``
    values: a name of their kind that the knowledge base never saw whole ("Paper Roads" among
    songs called "Paper Lights" and "Gold Roads"). Only the known values that are names
    count: a field's values pooled with a note's body hold products too ("Zephyr kettle"
    makes no city)."""
    vocabulary = _name_vocabulary(known, _language())
    if not vocabulary:
        return []
    possessive = _possessive(_language().possessive_suffixes)
    found: list[str] = []
    # A quoted text opens like a sentence, and no name runs into it: "Text Farah 'Running
    # late'" names Farah, not "Farah Running".
    opening = [part for s in _SENTENCE_END.split(instruction) for part in _QUOTE_OPENS.split(s)]
    for sentence in opening:
        run: list[str] = []
        for word in [*words(sentence)[1:], ""]:
            bare = possessive.sub("", word) if possessive and word[:1].isupper() else word
            if word[:1].isupper():
                run.append(bare)
                if bare == word:
                    continue  # a possessive ends the name: "Fire Roads's lyrics"
            familiar = sum(normal_word(w) in vocabulary for w in run)
            # Half is enough: "Glass Waves" among songs with "Waves" and no "Glass".
            if familiar and 2 * familiar >= len(run):
                found.append(_as_written(" ".join(run), sentence))
            run = []
    return list(dict.fromkeys(found))


def _is_named_thing(parts: Sequence[str]) -> bool:
    """A name then lower-case words: "Zephyr lamp", "Lumen camera bag"."""
    return (
        len(parts) >= 2
        and parts[0][:1].isupper()
        and not any(w[:1].isupper() or w[:1].isdigit() for w in parts[1:])
    )


def _kindred_things(instruction: str, known: tuple[str, ...]) -> list[str]:
    """Spans of ``instruction`` shaped like the ``known`` named things (a capitalized name,
    then lower-case words) whose lower-case words are all words the known things end in: a
    thing of their kind the knowledge base never saw whole ("Pique headphones" among "Zephyr
    headphones" and "Pique kettle"). A sentence's first word is left out, as for names."""
    nouns = _thing_nouns(known, _language())
    if not nouns:
        return []
    found: list[str] = []
    for sentence in _SENTENCE_END.split(instruction):
        tokens = words(sentence)
        for start in range(1, len(tokens)):
            if not tokens[start][:1].isupper():
                continue
            tail = list(
                itertools.takewhile(
                    lambda w: not w[:1].isupper() and normal_word(w) in nouns, tokens[start + 1 :]
                )
            )
            if tail:
                found.append(_as_written(" ".join([tokens[start], *tail]), sentence))
    return list(dict.fromkeys(found))


def _same_shape_spans(example: str, instruction: str) -> list[str]:
    """Spans of the instruction shaped like a date or time example ("Jun 22" -> "Jul 7").
    Text with a number in it is no such example: "See you at 7" is a message, and "Emeka the
    first 2" of "Text Emeka the first 2 lines of ..." has its shape."""
    if not any(c.isdigit() for c in example):
        return []
    if sum(not any(c.isdigit() for c in w) for w in words(example)) > 1:
        return []
    size, shape = len(words(example)), value_shape(example)
    tokens = words(instruction)
    spans = {" ".join(tokens[i : i + size]) for i in range(len(tokens) - size + 1)}
    return sorted(span for span in spans if value_shape(span) == shape)
