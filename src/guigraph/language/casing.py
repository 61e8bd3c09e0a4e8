"""Capitals a lower-cased task lost, given back from how the recorded tasks write its words.

Speech-to-text and phone keyboards write "i want to listen to blue roads"; the recorded tasks
write "Play the song Paper Roads". Much of what the planner tells apart (a name from plain
words, where a title starts) is written in capitals, so a task written all in lower case is
first given back the capitals its words carry in the knowledge base (truecasing, learned from
the recorded instructions and values, never from a list of words):

- a word takes a capital where the recorded texts write it capitalized more often than not,
  a sentence's first word left out ("Roads", "Acme");
- a word no recorded text uses that begins with such a word takes its capital ("june" where
  the recorded dates say "Jun"), but for its plural (the language's plural ending): a name
  has none ("my clocks", where the app is "Clock");
- a word where the nearest recorded wording (the most words in common, in order, a content
  word weighing as two function words), the rest of the two aligned, has a word of a
  name, word for word: "set an alarm for 07:30 called laundry" against "Set an alarm for
  06:30 called Meds" names the alarm "Laundry"; "find the price of the acme kettle" against
  "Find the price of the Zenith lamp" gives "Acme kettle". Each part of a task in several
  steps is compared on its own too, with the recorded tasks and their parts: in "... and
  text it to bob", "bob" stands where "Take a photo and send it to Maria" has "Maria". A
  quoted text's first word is a name's place too: "post lovely morning run" against "Post
  'Trying a new recipe'" opens the post at "Lovely";
- a word after one of the language's naming words ("called", "named") opens a name, and a
  word no recorded text uses is a name where it owns something ("hanoi's weather");
- a word that always stands at one place of a recorded value written with capitals gives
  that value's capitals to the words around it: "Roads" always ends two-word names, so
  "blue roads" is the name "Blue Roads"; "beginners" always ends "Bike Repair for
  beginners", so "cat compilation for beginners" is "Cat Compilation for beginners".

None of them capitalizes a function word, nor, but after a naming word, a word the recorded
texts write in lower case. A word's place outweighs how the recorded texts write it elsewhere:
where the nearest recorded wording's name goes on in plain words ("Zephyr kettle"), or a word
stands at a plain place of the one shape of named value it has, the task's word there is plain
("lumen camera bag", though the recordings also write a "Camera" elsewhere).

Every sentence, and every text set off in quotes or by a pair of dashes, then starts with a
capital, as written tasks do (a clause after ";" is no new sentence). A task with any
capital is left as it is: its writer chose them.

Capitals given back are a reading aid, not the writer's: where such a task's value is typed,
it takes the case its field's recorded values share (:func:`in_field_case`): "book a table"
stays lower case where reminders were always typed so, "trying a new recipe" is "Trying a new
recipe" where posts start with a capital and say nothing else in capitals.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from guigraph.language import tables
from guigraph.language.parse import DASHED, clause_break, fold, owner_of

#: Where a quoted text starts: its first word is capitalized whatever it is.
_QUOTE_OPENS = re.compile(r"(?:^|\s)[\"“'‘]")
#: Where a sentence starts.
_SENTENCE_STARTS = re.compile(r"(?:^|[.?!:]\s+)")
#: A word of letters, as casing reads it (no digits, no marks around it).
_LETTERS = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
#: A shorter start is no evidence that a word is another's long form ("Ma" of "May", "March").
MIN_STEM = 3
#: A field with fewer recorded values shows no case its values agree on.
MIN_CASE_VALUES = 2
#: A recorded part of fewer words is no wording to compare a task's part with ("Jazz").
MIN_CLAUSE_WORDS = 3
#: How many function words a content word weighs as, in telling the nearest recorded wording.
CONTENT_WEIGHT = 2
#: Restored tasks remembered (enough for every task one process plans at a time).
MAX_REMEMBERED = 256


#: A recorded wording's weight (``_weight``) and how many times it says each word.
_Weighed = tuple[int, Counter[str]]


def _weight(words: Sequence[str], stop: frozenset[str]) -> int:
    """Words' weight in telling the nearest wording: a content word weighs as
    ``CONTENT_WEIGHT`` function words (``stop``)."""
    return sum(1 if w in stop else CONTENT_WEIGHT for w in words)


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
    #: The function words the recorded wordings were weighed with, and their weights
    #: (``_weighed``).
    _weights: tuple[frozenset[str], dict[tuple[str, ...], _Weighed]] | None = field(
        default=None, compare=False
    )

    def learn_text(self, text: str) -> None:
        """Count the words of a recorded instruction, those opening a sentence left out."""
        self._last = self._weights = None
        set_off = _set_off_starts(text)
        starts = _sentence_starts(text) | set_off
        named = []
        for match in _LETTERS.finditer(text):
            word = match.group(0)
            self.seen.add(word.lower())
            # A set-off text's first word is where a task's own text opens: its place is a
            # name's, though its capital is no evidence for the word ("post [Lovely] ...").
            at = match.start()
            named.append(word[:1].isupper() and (at not in starts or at in set_off))
            if at not in starts:
                self._count(word)
        lowered = tuple(w.lower() for w in _LETTERS.findall(text))
        self.instructions[lowered] = tuple(named)
        # Each part of a task in several steps is a recorded wording too: a new task's part
        # ("... and text it to bob") is nearest a part of another ("send it to Maria").
        for start, end in _clause_spans(text):
            if end - start >= MIN_CLAUSE_WORDS:
                self.instructions.setdefault(lowered[start:end], tuple(named[start:end]))

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
        language = tables.of(text)
        # A naming word opens a name, and is no word of one ("a note [titled] weekend").
        stop = language.stopwords | language.naming_words
        matches = list(_LETTERS.finditer(text))
        words = [m.group(0) for m in matches]
        capital = [
            self.is_capitalized(w) or self._long_form(w, language) or self._new_owner(w, language)
            for w in words
        ]
        named = {
            j for j in range(1, len(words)) if self._named_after(words[j - 1], words[j], language)
        }
        plain: set[int] = set()
        for j in range(len(words)):
            up, down = self._named_around(j, words, matches, stop)
            named.update(up)
            plain.update(down)
        named_here, plain_here = self._named_as_recorded(text, words, stop)
        named |= named_here
        plain |= plain_here
        # What a word's place says outweighs how the recorded texts write the word elsewhere.
        capital = [i in named or (voted and i not in plain) for i, voted in enumerate(capital)]
        starts = _starts(text)
        out = list(text)
        for match, capitalized in zip(matches, capital, strict=True):
            if capitalized or match.start() in starts:
                out[match.start()] = out[match.start()].upper()
        return "".join(out)

    def _named_as_recorded(
        self, text: str, words: list[str], stop: frozenset[str]
    ) -> tuple[set[int], set[int]]:
        """The words standing where the nearest recorded wording has a word of a name, and
        those standing where a named value goes on in plain words (``_named_near``): the
        whole task's nearest, and each of its parts' (``_clause_spans``)."""
        spans = [(0, len(words)), *_clause_spans(text)]
        named: set[int] = set()
        plain: set[int] = set()
        for start, end in dict.fromkeys(spans):
            up, down = self._named_near(words[start:end], stop)
            named.update(start + i for i in up)
            plain.update(start + i for i in down)
        return named, plain

    def _named_near(self, words: list[str], stop: frozenset[str]) -> tuple[list[int], list[int]]:
        """The words standing where the nearest recorded wording (most words in common, in
        order) has a word of a name, word for word in each run the two say differently
        ("titled [trip] plan" / "titled [Reading] list"), none a function word or a word the
        recorded texts write in lower case. Where the task's run is longer, only a name as
        long as the recorded one at its start, of words no recorded text uses, then words of
        the task's own ("named [standup]" / "named [laundry at 15:30, please]")."""
        lowered = [w.lower() for w in words]
        best = self._nearest(lowered, stop)
        if best is None:
            return [], []
        matcher = SequenceMatcher(a=best, b=lowered, autojunk=False)
        named = self.instructions[best]
        found: list[int] = []
        plain: list[int] = []
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "replace":
                continue
            pairs = [(i1 + k, j1 + k) for k in range(min(i2 - i1, j2 - j1))]
            if any(named[i] for i, _ in pairs):
                # A name's value going on in plain words: the task's words there are plain
                # too, whatever else they name ("Zephyr kettle" / "lumen camera bag", a
                # "Camera" written elsewhere).
                plain.extend(j for i, j in pairs if not named[i] and best[i] not in stop)
            places = [j for i, j in pairs if named[i]]
            if j2 - j1 > i2 - i1:
                # A longer run: the name the recorded run starts with, at its start only, of
                # words never recorded ("named [Meds]" / "named [laundry] at 15:30, please").
                places = [j for i, j in itertools.takewhile(lambda p: named[p[0]], pairs)]
                if not places or any(lowered[j] in self.seen for j in places):
                    continue
            found.extend(j for j in places if self._may_be_named(lowered[j], stop))
        return found, plain

    def _nearest(self, lowered: list[str], stop: frozenset[str]) -> tuple[str, ...] | None:
        """The recorded wording nearest ``lowered``: the most words in common, in order, a
        content word weighing as two function words. Function words alone make no wording
        near ("what time it is in oslo" is nearest "Show the time in Quito ...", not "Save it
        in a note Shopping"), but they tell a part's shape ("text it to bob" / "send it to
        Farah")."""
        matcher = SequenceMatcher(autojunk=False)
        matcher.set_seq2(lowered)
        own, counts = _weight(lowered, stop), Counter(lowered)
        best, best_nearness = None, 0.0
        for recorded, (total, words) in self._weighed(stop).items():
            # The words both say, however ordered, bound the words in common in order: a
            # wording that cannot beat the best so far is not aligned (most are not).
            common = sum(
                _weight((w,), stop) * min(n, counts[w]) for w, n in words.items() if w in counts
            )
            if 2 * common / (own + total) <= best_nearness:
                continue
            matcher.set_seq1(recorded)
            shared = sum(
                _weight(recorded[i : i + size], stop)
                for i, _, size in matcher.get_matching_blocks()
            )
            nearness = 2 * shared / (own + total)
            if nearness > best_nearness:
                best, best_nearness = recorded, nearness
        return best

    def _weighed(self, stop: frozenset[str]) -> dict[tuple[str, ...], _Weighed]:
        """Each recorded wording's weight and words (for ``_nearest``), worked out once per
        set of function words, and again after more is learned."""
        if self._weights is None or self._weights[0] != stop:
            weighed = {
                recorded: (_weight(recorded, stop), Counter(recorded))
                for recorded in self.instructions
            }
            self._weights = (stop, weighed)
        return self._weights[1]

    def _may_be_named(self, word: str, stop: frozenset[str]) -> bool:
        """Neither a function word nor one the recorded texts write in lower case."""
        return word not in stop and self.lowered[word] <= self.capitalized[word]

    def _named_after(self, before: str, word: str, language: tables.Language) -> bool:
        """Whether ``word`` opens a name, after one of the language's naming words ("called
        [laundry]", "titled [shopping]" where "my shopping list" was recorded): any word but a
        function word."""
        return before.lower() in language.naming_words and word.lower() not in language.stopwords

    def _new_owner(self, word: str, language: tables.Language) -> bool:
        """A word no recorded text uses, with the language's possessive ending: an owner
        named by the task alone ("show me [hanoi's] weather")."""
        key, owner = word.lower(), owner_of(word, language)
        if owner is None or owner in language.stopwords:
            return False
        return owner not in self.seen and key not in self.seen

    def _long_form(self, word: str, language: tables.Language) -> bool:
        """A word no recorded text uses, beginning with one capitalized word they do use, of
        which it is not the plural: a name has none ("my clocks", the app "Clock")."""
        key, singular = word.lower(), fold(word, language)
        if key in self.seen or (owner_of(word, language) is None and singular in self.seen):
            return False
        stems = {
            k for k in self.capitalized
            if len(k) >= MIN_STEM and key.startswith(k) and self.is_capitalized(k)
        }  # fmt: skip
        return len(stems) == 1

    def _named_around(
        self, j: int, words: list[str], matches: list[re.Match[str]], stop: frozenset[str]
    ) -> tuple[list[int], list[int]]:
        """The words to capitalize where ``words[j]`` stands at its one place in recorded
        named values: the value's capitalized places, when the task's words there are one
        run, no function words, and none the recorded texts write in lower case; and its
        plain places ("zephyr camera bag" where "Zephyr" always opens "Zephyr lamp")."""
        shapes = self.shapes.get(words[j].lower())
        if not shapes or len(shapes) != 1 or words[j].lower() in stop:
            return [], []
        shape = next(iter(shapes))
        start, end = j - shape.place, j - shape.place + len(shape.capitals)
        if len(shape.capitals) < 2 or start < 0 or end > len(words):
            return [], []
        gaps = (text_between(matches[i], matches[i + 1]) for i in range(start, end - 1))
        if any(gap.strip() for gap in gaps):
            return [], []
        places = [start + k for k, c in enumerate(shape.capitals) if c == "A"]
        if any(
            w in stop or self.lowered[w] > self.capitalized[w]
            for w in (words[i].lower() for i in places)
        ):
            return [], []
        return places, [start + k for k, c in enumerate(shape.capitals) if c == "a"]


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


def _clause_spans(text: str) -> list[tuple[int, int]]:
    """Where each part of a task in several steps starts and ends, in ``_LETTERS`` words
    (the parts of ``language.parse``: split at the language's joining words and marks)."""
    breaks = list(clause_break(tables.of(text).clause_joiners).finditer(text))
    if not breaks:
        return []
    starts = [m.start() for m in _LETTERS.finditer(text)]
    # A part ends where a break starts, and the next begins where it ends (after "and then").
    opens, ends = [0, *(b.end() for b in breaks)], [*(b.start() for b in breaks), len(text)]
    spans = [
        (bisect.bisect_left(starts, a), bisect.bisect_left(starts, b))
        for a, b in zip(opens, ends, strict=True)
    ]
    return [(a, b) for a, b in spans if b > a]


def _starts(text: str) -> set[int]:
    """Where a sentence, a quoted text or one set off by a pair of dashes starts in ``text``."""
    return _sentence_starts(text) | _set_off_starts(text)


def _sentence_starts(text: str) -> set[int]:
    return {m.end() for m in _SENTENCE_STARTS.finditer(text)}


def _set_off_starts(text: str) -> set[int]:
    """Where a quoted text or one set off by a pair of dashes starts in ``text``."""
    quoted = {m.end() for m in _QUOTE_OPENS.finditer(text)}
    return quoted | {m.start(1) for m in DASHED.finditer(text)}


def text_between(left: re.Match[str], right: re.Match[str]) -> str:
    """What stands between two matches of one text."""
    return left.string[left.end() : right.start()]
