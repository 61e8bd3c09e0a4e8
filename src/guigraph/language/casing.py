"""Capitals a lower-cased task lost, given back from how the recorded tasks write its words.

Speech-to-text and phone keyboards write "i want to listen to blue roads"; the recorded tasks
write "Play the song Paper Roads". Much of what the planner tells apart (a name from plain
words, where a title starts) is written in capitals, so a task written all in lower case is
first given back the capitals its words carry in the knowledge base (truecasing, learned from
the recorded instructions and values, never from a list of words):

- a word takes a capital where the recorded texts write it capitalized more often than not,
  a sentence's first word left out ("Roads", "Chirp");
- a word no recorded text uses that begins with such a word takes its capital ("june" where
  the recorded dates say "Jun");
- a word where the nearest recorded instruction has a name of as many words, the rest of
  the two aligned, is a name too: "set an alarm for 07:30 called laundry" against "Set an
  alarm for 06:30 called Meds" names the alarm "Laundry";
- a word that always stands at one place of a recorded value written with capitals gives
  that value's capitals to the words around it: "Roads" always ends two-word names, so
  "blue roads" is the name "Blue Roads"; "beginners" always ends "Bike Repair for
  beginners", so "cat compilation for beginners" is "Cat Compilation for beginners".

Every sentence, and every quoted text, then starts with a capital, as written tasks do (a
clause after ";" is no new sentence). A task with any capital is left as it is: its writer
chose them.

Capitals given back are a reading aid, not the writer's: where such a task's value is typed,
it takes the case its field's recorded values share (:func:`in_field_case`): "book a table"
stays lower case where reminders were always typed so, "trying a new recipe" is "Trying a new
recipe" where posts start with a capital and say nothing else in capitals.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from guigraph.language import tables

#: Where a sentence (or a quoted text) starts: its first word is capitalized whatever it is.
_STARTS = re.compile(r"(?:^|[.?!:]\s+|(?:^|\s)[\"“'‘])")
#: A word of letters, as casing reads it (no digits, no marks around it).
_LETTERS = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
#: A shorter start is no evidence that a word is another's long form ("Ma" of "May", "March").
MIN_STEM = 3
#: A field with fewer recorded values shows no case its values agree on.
MIN_CASE_VALUES = 2
#: Restored tasks remembered (enough for every task one process plans at a time).
MAX_REMEMBERED = 256


@dataclass(frozen=True, slots=True)
class _Shape:
    """Where a word stands in the recorded values with capitals that hold it."""

    place: int
    #: "A" for a capitalized word of the value, "a" for a plain one ("AAaa": "Bike Repair
    #: for beginners").
    capitals: str


@dataclass
class Casing:
    """How the recorded texts write each word: its capitals, and its place in named values."""

    capitalized: Counter[str] = field(default_factory=Counter)
    lowered: Counter[str] = field(default_factory=Counter)
    #: Every word some recorded text uses, in any case and place.
    seen: set[str] = field(default_factory=set)
    shapes: defaultdict[str, Counter[_Shape]] = field(default_factory=lambda: defaultdict(Counter))
    #: Each recorded instruction's words in lower case -> which of them are capitalized
    #: where no sentence starts (a name's words).
    instructions: dict[tuple[str, ...], tuple[bool, ...]] = field(default_factory=dict)
    #: The texts :meth:`restore` gave capitals to (bounded: one entry per task planned).
    _restored: dict[str, None] = field(default_factory=dict)
    #: The last text restored, the language it was read in, and its capitals given back: a
    #: task's context and its plan each restore it (``_restore_once``).
    _last: tuple[str, tables.Language, str] | None = field(default=None, compare=False)

    def learn_text(self, text: str) -> None:
        """Count the words of a recorded instruction, those opening a sentence left out."""
        self._last = None
        starts = _starts(text)
        named = []
        for match in _LETTERS.finditer(text):
            word = match.group(0)
            self.seen.add(word.lower())
            named.append(match.start() not in starts and word[:1].isupper())
            if match.start() not in starts:
                self._count(word)
        self.instructions[tuple(w.lower() for w in _LETTERS.findall(text))] = tuple(named)

    def learn_value(self, value: str) -> None:
        """Count the words of a recorded value with a capital ("Blue Roads", "Bike Repair for
        beginners"): a name's words as capitalized, and every word's place in it."""
        self._last = None
        words = _LETTERS.findall(value)
        self.seen.update(w.lower() for w in words)
        capitals = "".join("A" if w[:1].isupper() else "a" for w in words)
        if "A" not in capitals or any(c.isdigit() for c in value):
            return
        if "a" not in capitals:
            for word in words:
                self._count(word)
        for place, word in enumerate(words):
            self.shapes[word.lower()][_Shape(place, capitals)] += 1

    def _count(self, word: str) -> None:
        key = word.lower()
        if word[:1].isupper():
            self.capitalized[key] += 1
        else:
            self.lowered[key] += 1

    def is_capitalized(self, word: str) -> bool:
        key = word.lower()
        return self.capitalized[key] > self.lowered[key]

    def restore(self, text: str) -> str:
        """``text`` with its capitals given back, if it has none at all; else ``text``."""
        if text != text.lower() or not any(c.isalpha() for c in text):
            return text
        restored = self._restore_once(text)
        self._restored[restored] = None
        while len(self._restored) > MAX_REMEMBERED:
            del self._restored[next(iter(self._restored))]
        return restored

    def restored(self, text: str) -> bool:
        """Whether ``text`` is a task :meth:`restore` gave capitals (its writer gave none)."""
        return text in self._restored

    def _restore_once(self, text: str) -> str:
        """``_restore``, remembered for the last text (each restore searches every recorded
        instruction for the nearest)."""
        language = tables.of(text)
        last = self._last
        if last is not None and last[0] == text and last[1] is language:
            return last[2]
        restored = self._restore(text)
        self._last = (text, language, restored)
        return restored

    def _restore(self, text: str) -> str:
        stop = tables.of(text).stopwords
        matches = list(_LETTERS.finditer(text))
        words = [m.group(0) for m in matches]
        capital = [self.is_capitalized(w) or self._long_form(w) for w in words]
        for j in range(len(words)):
            for i in self._named_around(j, words, matches, stop):
                capital[i] = True
        for i in self._named_as_recorded(words, stop):
            capital[i] = True
        starts = _starts(text)
        out = list(text)
        for match, up in zip(matches, capital, strict=True):
            if up or match.start() in starts:
                out[match.start()] = out[match.start()].upper()
        return "".join(out)

    def _named_as_recorded(self, words: list[str], stop: frozenset[str]) -> list[int]:
        """The words standing where the nearest recorded instruction (most words in common,
        in order) has a name of as many words, none a function word or a word the recorded
        texts write in lower case."""
        lowered = [w.lower() for w in words]
        matcher = SequenceMatcher(autojunk=False)
        matcher.set_seq2(lowered)
        best, best_ratio = None, 0.0
        for recorded in self.instructions:
            matcher.set_seq1(recorded)
            if matcher.real_quick_ratio() > best_ratio and matcher.ratio() > best_ratio:
                best, best_ratio = recorded, matcher.ratio()
        if best is None:
            return []
        matcher.set_seq1(best)
        named = self.instructions[best]
        found: list[int] = []
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            said = lowered[j1:j2]
            if tag != "replace" or not all(named[i1:i2]):
                continue
            if i2 - i1 != j2 - j1:
                # A longer run opening with as many words no recorded text uses: the name,
                # then words of the task's own ("named [standup]" / "named [laundry at 15:30,
                # please]").
                said = said[: i2 - i1]
                if not all(w not in self.seen for w in said):
                    continue
            if any(w in stop or self.lowered[w] > self.capitalized[w] for w in said):
                continue
            found.extend(range(j1, j1 + len(said)))
        return found

    def _long_form(self, word: str) -> bool:
        """A word no recorded text uses, beginning with one capitalized word they do use."""
        key = word.lower()
        if key in self.seen:
            return False
        stems = {
            k for k in self.capitalized
            if len(k) >= MIN_STEM and key.startswith(k) and self.is_capitalized(k)
        }  # fmt: skip
        return len(stems) == 1

    def _named_around(
        self, j: int, words: list[str], matches: list[re.Match[str]], stop: frozenset[str]
    ) -> list[int]:
        """The words to capitalize where ``words[j]`` stands at its one place in recorded
        named values: the value's capitalized places, when the task's words there are one
        run, no function words, and none the recorded texts write in lower case."""
        shapes = self.shapes.get(words[j].lower())
        if not shapes or len(shapes) != 1 or words[j].lower() in stop:
            return []
        shape = next(iter(shapes))
        start, end = j - shape.place, j - shape.place + len(shape.capitals)
        if len(shape.capitals) < 2 or start < 0 or end > len(words):
            return []
        gaps = (text_between(matches[i], matches[i + 1]) for i in range(start, end - 1))
        if any(gap.strip() for gap in gaps):
            return []
        places = [start + k for k, c in enumerate(shape.capitals) if c == "A"]
        plain = [w.lower() for w in (words[i] for i in places)]
        if any(w in stop or self.lowered[w] > self.capitalized[w] for w in plain):
            return []
        return places


def in_field_case(value: str, field_values: Collection[str]) -> str:
    """``value``, from a task whose capitals were given back, in the case its field's recorded
    values share: a recorded value said again as recorded; a first letter upper or lower
    where every recorded value's is; the later words in lower case where no recorded value
    capitalizes one, each capitalized where every recorded value capitalizes them all. What
    the recorded values do not agree on stays as given back."""
    recorded = {v.lower(): v for v in field_values if v.strip()}
    if not recorded or value.lower() in recorded:
        return recorded.get(value.lower(), value)
    words = [w for w in (_LETTERS.findall(v) for v in recorded.values()) if w]
    matches = list(_LETTERS.finditer(value))
    if len(words) < MIN_CASE_VALUES or not matches:
        return value
    out = list(value)
    first = {w[0][:1].isupper() for w in words}
    if len(first) == 1:
        start = matches[0].start()
        out[start] = out[start].upper() if first.pop() else out[start].lower()
    later = {w[:1].isupper() for ws in words for w in ws[1:]}
    if len(later) == 1:
        upper = later.pop()
        for match in matches[1:]:
            word = match.group(0)
            cased = word[:1].upper() + word[1:] if upper else word.lower()
            out[match.start() : match.end()] = cased
    return "".join(out)


def _starts(text: str) -> set[int]:
    """Where a sentence or a quoted text starts in ``text``."""
    return {m.end() for m in _STARTS.finditer(text)}


def text_between(left: re.Match[str], right: re.Match[str]) -> str:
    """What stands between two matches of one text."""
    return left.string[left.end() : right.start()]
