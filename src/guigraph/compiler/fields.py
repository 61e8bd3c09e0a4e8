"""What a task asks for, and where the recorded screens show it.

"Tell Dana who sings Gold Hearts" never says "artist", yet the answer is the player's
artist field. A stitched segment that passes a screen showing the asked field can
carry its value to the next app; a segment used only to read it stops where it is shown (the
donor went on to buy the product whose price this task only asks for).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from guigraph.compiler.slots import Count, content_words, counts, words
from guigraph.envs import conventions
from guigraph.graph.records import TextSource
from guigraph.language import tables

if TYPE_CHECKING:
    from guigraph.compiler.script import ScriptStep
    from guigraph.graph.records import Edge, Node, Trace


def asked_fields(instruction: str, aliases: Mapping[str, str] | None = None) -> frozenset[str]:
    """The words a screen field answering this task would carry in its id: the task's own
    words ("the artist of", "the price") and those its question words stand for. A word
    naming an app ("by message") is about the app, not a field."""
    text = " ".join(words(instruction)).lower()
    app_words = {w for alias in (aliases or {}) for w in content_words(alias)}
    asked = {w for w in content_words(instruction) if not _names_an_app(w, app_words)}
    # A number counting parts ("the first 2 lines") names no field ("lyric_2").
    asked -= {n for count in counts(instruction) for n in count.numbers}
    # What a question asks for, as the words of the screen fields that answer it: "tell Dana
    # who sings Gold Hearts" asks for an "artist" field (the task language's table says so).
    for question, fields in tables.of(instruction).question_fields.items():
        if f" {question} " in f" {text} ":
            asked |= fields
    return frozenset(asked)


def offered_fields(
    steps: Sequence[ScriptStep],
    asked: Collection[str],
    nodes: Mapping[int, Node],
    learned: Mapping[str, frozenset[str]] | None = None,
    read_at: Mapping[str, frozenset[int]] | None = None,
) -> list[TextSource]:
    """Screen sources on the states a segment passes through whose field the task asks for:
    a segment that plays a song passes the artist shown on the player. A field is known by
    the words of its id or, where the world gives no ids, by the words ``learned`` for it,
    on the states recorded runs read it on (``read_at``): without ids, the player's artist
    line and the lyrics' first line can share one key, and only the latter was read."""
    if not asked:
        return []  # most tasks ask for no field: no state need be read
    offered: list[TextSource] = []
    states = {n for s in steps for n in (s.node, s.jumps_to) if n is not None}
    for node_id in sorted(states):
        node = nodes.get(node_id)
        if node is None:
            continue
        for source, named in _value_fields(node):
            if not named and read_at and node_id not in read_at.get(source.key, {node_id}):
                continue
            if source_words(source, learned) & set(asked) and source not in offered:
                offered.append(source)
    return offered


ValueFields = tuple[tuple[TextSource, bool], ...]
#: id(node) -> (the node, the conventions read by, its value fields): asked of the same states
#: for every segment of every plan.
_VALUE_FIELDS: dict[int, tuple[Node, conventions.Conventions, ValueFields]] = {}


def _value_fields(node: Node) -> ValueFields:
    """The screen sources of ``node`` that may show a value, each with whether its id names
    its field: not a control, a screen's header or a pop-up's text."""
    world = conventions.active()
    known = _VALUE_FIELDS.get(id(node))
    if known is not None and known[0] is node and known[1] is world:
        return known[2]
    found = []
    for element, key in zip(node.example_elements, node.element_keys, strict=False):
        if element.clickable:
            continue  # a control, not a value
        field_id = world.parse_id(element.resource_id)
        if field_id.name == "title" or world.is_transient(field_id.name):
            continue  # a screen's header; a pop-up's text is never the workflow's value
        found.append((TextSource.screen(key), bool(field_id.name)))
    if len(_VALUE_FIELDS) >= 65536:
        _VALUE_FIELDS.clear()  # keep the memory bounded
    fields = tuple(found)
    _VALUE_FIELDS[id(node)] = (node, world, fields)
    return fields


def source_words(
    source: TextSource, learned: Mapping[str, frozenset[str]] | None = None
) -> frozenset[str]:
    """The words naming a screen source's field: its id's, else those learned for it."""
    key = source.key
    named = conventions.active().parse_id(key).words
    return named or (learned or {}).get(key, frozenset())


@dataclass(frozen=True)
class FieldSayings:
    """How often the recorded instructions that typed a value read off each screen field say
    each word (``said``), how many such instructions each field has (``readers``), and how
    often all instructions say each word (``overall``): counted once, named at any share."""

    said: Mapping[str, Mapping[str, int]]
    readers: Mapping[str, int]
    overall: Mapping[str, int]

    def words(self, share: float = 0.5) -> dict[str, frozenset[str]]:
        """Field -> the words at least ``share`` of its instructions say, and that at least
        half of all the instructions saying them read the field (see ``learn_field_words``)."""
        return {
            key: frozenset(
                w
                for w, n in counts.items()
                if n >= share * self.readers[key] and 2 * n >= self.overall[w]
            )
            for key, counts in self.said.items()
        }


def field_sayings(
    traces: Sequence[Trace], edges: Mapping[int, Edge], every_field: bool = False
) -> FieldSayings:
    """The counts ``learn_field_words`` names fields from (``every_field``: fields with an id
    too, each run's own values left out)."""
    parse = conventions.active().parse_id
    said: dict[str, Counter[str]] = {}
    readers: Counter[str] = Counter()
    overall: Counter[str] = Counter()
    for trace in traces:
        instruction = content_words(trace.instruction)
        overall.update(instruction)
        used = {
            source.key
            for _, _, template in trace.recorded_actions(edges)
            for _, source in template.text_sources
            if source.from_screen
        }
        # Asked of every field, its run's own values are no name for it ("Glass Lights").
        own = {w for v in trace.values.values() for w in content_words(v)} if every_field else set()
        for key in used:
            if every_field or not parse(key).name:
                said.setdefault(key, Counter()).update(instruction - own)
                readers[key] += 1
    return FieldSayings(said, readers, overall)


def learn_field_words(
    traces: Sequence[Trace],
    edges: Mapping[int, Edge],
    every_field: bool = False,
    share: float = 0.5,
) -> dict[str, frozenset[str]]:
    """What the recorded instructions call each id-less screen field their runs typed a value
    from: "Check the Nova lamp price and note it" read the ``$…`` text of the product page,
    so that text is a "price" wherever no id says so. A word counts when at least half of the
    instructions that used the field say it (their own values differ; the field's name stays),
    and at least half of all the instructions that say it used the field: "note" in "note
    the price" is said by every task that writes a note, whatever it reads. ``every_field``:
    fields with an id too (what the tasks that read "lyric_0" call it: "first line").
    ``share``: of the instructions that used the field, how many must say a word; a name
    nearly every one says ("temperature") is the field's, where half takes in the words of
    the one workflow most runs did ("titled" a note).
    """
    return field_sayings(traces, edges, every_field).words(share)


def answers_more(
    field: TextSource,
    carried: Sequence[TextSource],
    asked: Collection[str],
    learned: Mapping[str, frozenset[str]] | None = None,
) -> bool:
    """Whether ``field`` answers more of the task than every field in ``carried``: the
    donor read the first lyric line, and the other lines shown beside it ("lyric 3") answer
    "the first line of the lyrics" no better; the event's date answers "the time of my
    event" no better than the event time the donor read."""
    answers = source_words(field, learned) & set(asked)
    return not any(answers <= source_words(c, learned) & set(asked) for c in carried)


def describes(
    source: TextSource,
    asked: Collection[str],
    learned: Mapping[str, frozenset[str]] | None = None,
    said: Mapping[str, frozenset[str]] | None = None,
) -> bool:
    """Whether the task asks for the value of ``source``, by the field's name or by what the
    recorded tasks reading it call it."""
    named = source_words(source, learned) | (said or {}).get(source.key, frozenset())
    return bool(named & set(asked))


@dataclass(frozen=True)
class FieldKnowledge:
    """What the graph knows of screen fields: the recorded states, the words ``learned`` for
    id-less fields, what recorded tasks reading a field call it and the states they read it on."""

    nodes: Mapping[int, Node]
    learned: Mapping[str, frozenset[str]] | None = None
    said: Mapping[str, frozenset[str]] | None = None
    read_at: Mapping[str, frozenset[int]] | None = None


def carry_asked_fields(
    steps: Sequence[ScriptStep],
    asked: Collection[str],
    app_of: Callable[[TextSource], str],
    known: FieldKnowledge,
) -> list[ScriptStep]:
    """Each value read off a screen and typed later comes from the field the task asks for,
    where the app it was read in shows one on the way: the donor posted a song's first lyric
    line, the task posts who sings it, and the player the donor passed shows the artist. The
    field the donor read stays when it answers any of the task, by its name or by what the
    recorded tasks reading it call it (``said``: "first line" for ``lyric_0``); the event
    time the donor carried answers "when", and the date beside it would answer no better."""
    result: list[ScriptStep] = []
    for index, step in enumerate(steps):
        if step.screen_slots:
            slots = []
            for slot, source in step.screen_slots:
                if describes(source, asked, known.learned, known.said):
                    slots.append((slot, source))
                    continue
                app = app_of(source)
                before = [s for s in steps[:index] if (s.app or "").lower() == app]
                shown = offered_fields(before, asked, known.nodes, known.learned, known.read_at)
                better = [f for f in shown if answers_more(f, [source], asked, known.learned)]
                slots.append((slot, better[-1] if better else source))
            step = replace(step, screen_slots=tuple(slots))
        result.append(step)
    return result


def read_parts(
    steps: Sequence[ScriptStep],
    parts: Sequence[Count],
    nodes: Mapping[int, Node],
    learned: Mapping[str, frozenset[str]] | None = None,
    said: Mapping[str, frozenset[str]] | None = None,
) -> list[ScriptStep]:
    """A value of several parts: where the task counts what names a field read off a screen
    ("the first 2 lines" of a song's lyrics, whose first line recorded runs read), a step
    typing that field types it and the fields shown below it in its column, as many as the
    task counts, joined by spaces (a line break is no keystroke every text box takes)."""
    if not parts:
        return list(steps)
    return [_with_parts(s, parts, nodes, learned, said or {}) for s in steps]


def _with_parts(
    step: ScriptStep,
    parts: Sequence[Count],
    nodes: Mapping[int, Node],
    learned: Mapping[str, frozenset[str]] | None,
    said: Mapping[str, frozenset[str]],
) -> ScriptStep:
    if not step.screen_slots:
        return step
    text = step.text if step.text is not None else step.template.text or ""
    slots = list(step.screen_slots)
    # Slots are named "text<n>" (``grounding.UNFILLED``): the added ones take the next numbers.
    numbers = [int(n) for n in re.findall(r"\d+", " ".join(slot for slot, _ in slots))]
    for slot, source in step.screen_slots:
        names = source_words(source, learned) | said.get(source.key, frozenset())
        count = max((c.count for c in parts if c.word in names), default=1)
        below = column_below(source.key, nodes, count - 1) if count > 1 else []
        if not below:
            continue
        added = []
        for key in below:
            numbers.append(max(numbers, default=0) + 1)
            added.append((f"text{numbers[-1]}", TextSource.screen(key)))
        slots += added
        joined = " ".join("{" + name + "}" for name in (slot, *(n for n, _ in added)))
        text = text.replace("{" + slot + "}", joined)
    return replace(step, text=text, screen_slots=tuple(slots))


#: How far apart (in the normalized 0-1000 space) two edges may be and still line up.
COLUMN_TOLERANCE = 1.0


def column_below(key: str, nodes: Mapping[int, Node], count: int) -> list[str]:
    """The keys of the ``count`` fields right below field ``key`` on a recorded screen showing
    it, in its column: elements of its class, not controls, with its left and right edges
    (the next lines of a text shown one line per element). Empty when no screen shows as
    many."""
    for node_id in sorted(nodes):
        node = nodes[node_id]
        if key not in node.element_keys:
            continue
        elements = list(zip(node.example_elements, node.element_keys, strict=False))
        field = next(e for e, k in elements if k == key)
        column = sorted(
            (e.bbox.y1, k)
            for e, k in elements
            if k != key
            and not e.clickable
            and e.class_name == field.class_name
            and e.bbox.y1 >= field.bbox.y2 - COLUMN_TOLERANCE
            and abs(e.bbox.x1 - field.bbox.x1) <= COLUMN_TOLERANCE
            and abs(e.bbox.x2 - field.bbox.x2) <= COLUMN_TOLERANCE
        )
        if len(column) >= count:
            return [k for _, k in column[:count]]
    return []


def learn_read_states(
    traces: Sequence[Trace], edges: Mapping[int, Edge], nodes: Mapping[int, Node]
) -> dict[str, frozenset[int]]:
    """Id-less screen field -> the states recorded runs read it on: for each value typed
    from a screen, the last state before the typing that showed the field's key."""
    parse = conventions.active().parse_id
    found: dict[str, set[int]] = {}
    for trace in traces:
        seen: list[int] = []
        for node_id, _, template in trace.recorded_actions(edges):
            if not seen or seen[-1] != node_id:
                seen.append(node_id)
            for _, source in template.text_sources:
                if not source.from_screen or parse(source.key).name:
                    continue
                shown = [n for n in seen if n in nodes and source.key in nodes[n].element_keys]
                if shown:
                    found.setdefault(source.key, set()).add(shown[-1])
    return {key: frozenset(states) for key, states in found.items()}


def until_shown(
    steps: list[ScriptStep], sources: Sequence[TextSource], nodes: Mapping[int, Node]
) -> list[ScriptStep]:
    """The steps up to the first state showing one of ``sources`` once the task's values are
    in (the weather screen shows some city's temperature before the search for this one)."""
    wanted = {s.key for s in sources}
    uses_value = [
        i for i, s in enumerate(steps)
        if s.bound_values or (s.label and s.label != s.template.target_label)
    ]  # fmt: skip
    for index in range(uses_value[-1] if uses_value else 0, len(steps)):
        target = steps[index].jumps_to
        node = nodes.get(target) if target is not None else None
        if node is not None and set(node.element_keys) & wanted:
            return steps[: index + 1]
    return steps


def _names_an_app(word: str, app_words: set[str]) -> bool:
    suffix = tables.default().plural_suffix
    if word in app_words:
        return True
    return bool(suffix) and (word + suffix in app_words or word.rstrip(suffix) in app_words)


def read_field_apps(
    traces: Sequence[Trace],
    edges: Mapping[int, Edge],
    app_of: Callable[[TextSource], str],
    learned: Mapping[str, frozenset[str]] | None = None,
) -> dict[str, frozenset[str]]:
    """Word -> the apps (lower-cased) whose screens showed a field of that name that a
    recorded run read a value from ("temperature" -> weather, "price" -> shop). Text that
    names such a field of another app describes a value to read there, not a value to type:
    "the temperature in Hanoi" is no post text."""
    apps: dict[str, set[str]] = {}
    for trace in traces:
        templates = [template for _, _, template in trace.recorded_actions(edges)]
        for template in templates:
            for _, source in template.text_sources:
                if source.from_screen:
                    for word in source_words(source, learned):
                        if word.isalpha():  # "lyric_0": the 0 numbers the line, names nothing
                            apps.setdefault(word, set()).add(app_of(source))
    return {word: frozenset(found) for word, found in apps.items()}
