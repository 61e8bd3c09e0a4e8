"""What a task asks for, and where the recorded screens show it.

"Tell Dana who sings Gold Hearts" never says "artist", yet the answer is the player's
``music:id/artist`` field. A stitched segment that passes a screen showing the asked field can
carry its value to the next app; a segment used only to read it stops where it is shown (the
donor went on to buy the product whose price this task only asks for).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING

from guigraph.envs import conventions
from guigraph.retrieval.slots import content_words, words

if TYPE_CHECKING:
    from guigraph.agents.script import ScriptStep
    from guigraph.graph.records import Node


def asked_fields(instruction: str, aliases: Mapping[str, str] | None = None) -> frozenset[str]:
    """The words a screen field answering this task would carry in its id: the task's own
    words ("the artist of", "the price") and those its question words stand for. A word
    naming an app ("by message") is about the app, not a field."""
    text = " ".join(words(instruction)).lower()
    app_words = {w for alias in (aliases or {}) for w in content_words(alias)}
    asked = {w for w in content_words(instruction) if not _names_an_app(w, app_words)}
    # What a question asks for, as the words of the screen fields that answer it: "tell Dana
    # who sings Gold Hearts" asks for an "artist" field (the world's vocabulary says so).
    for question, fields in conventions.active().question_fields.items():
        if f" {question} " in f" {text} ":
            asked |= fields
    return frozenset(asked)


def offered_fields(
    steps: Sequence[ScriptStep], asked: Collection[str], nodes: Mapping[int, Node]
) -> list[str]:
    """Screen sources on the states a segment passes through whose field the task asks for:
    a segment that plays a song passes the artist shown on the player."""
    world = conventions.active()
    offered: list[str] = []
    states = {n for s in steps for n in (s.node, s.jumps_to) if n is not None}
    for node_id in sorted(states):
        node = nodes.get(node_id)
        if node is None:
            continue
        for element, key in zip(node.example_elements, node.element_keys, strict=False):
            field_id = world.parse_id(str(element.get("resource_id") or ""))
            if not field_id.name or element.get("clickable") or field_id.name == "title":
                continue  # no field name to match, a control, or a screen's header
            if world.is_transient(field_id.name):
                continue  # a pop-up's text is never the workflow's value
            source = f"screen:{key}"
            if field_id.words & set(asked) and source not in offered:
                offered.append(source)
    return offered


def until_shown(
    steps: list[ScriptStep], sources: Sequence[str], nodes: Mapping[int, Node]
) -> list[ScriptStep]:
    """The steps up to the first state showing one of ``sources`` once the task's values are
    in (the weather screen shows some city's temperature before the search for this one)."""
    wanted = {s.removeprefix("screen:") for s in sources}
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
    return word in app_words or word + "s" in app_words or word.rstrip("s") in app_words
