"""Recorded actions → edge action templates: name the target element, lift typed text to slots.

A template says *what* was touched (label, role, id of the UI element under the point, when
the data has a UI tree) so that a trace stays useful on another device or layout, and keeps the
point only as an example. Typed text found in the instruction becomes a named slot, so a trace
recorded for "Paris" can be replayed for "Rome".
"""

from __future__ import annotations

from collections.abc import Sequence

from guigraph.graph.records import ActionTemplate, Slot
from guigraph.types import Action, ActionType, Step, UIElement

#: rapidfuzz partial_ratio from which typed text counts as coming from the instruction.
SLOT_MATCH_RATIO = 90.0


def target_element(elements: tuple[UIElement, ...] | None, action: Action) -> UIElement | None:
    """The smallest element under the point, clickable ones first (the button, not its row)."""
    if not elements or action.point is None:
        return None
    under = [e for e in elements if e.bbox.contains(action.point)]
    if not under:
        return None
    clickable = [e for e in under if e.clickable or e.editable]
    pool = clickable or under
    return min(pool, key=lambda e: (e.bbox.width * e.bbox.height, e.label))


def from_instruction(text: str, instruction: str) -> bool:
    from rapidfuzz import fuzz

    typed, said = text.strip().lower(), instruction.lower()
    if not typed:
        return False
    if typed in said:
        return True
    return len(typed) >= 3 and fuzz.partial_ratio(typed, said) >= SLOT_MATCH_RATIO


def screen_source(text: str, earlier: Sequence[Step]) -> str | None:
    """``screen:<resource id>`` of the latest earlier element that showed exactly ``text``.

    Typed text that was read off a screen (a temperature carried into a note) is a value of
    the world, not of the instruction: replaying the trace must read it again, from the
    element with the same id, in the new world.
    """
    wanted = text.strip().lower()
    for step in reversed(earlier):
        for element in step.observation.elements or ():
            if element.resource_id and element.text.strip().lower() == wanted:
                return f"screen:{element.resource_id}"
    return None


def action_template(
    step: Step,
    instruction: str,
    slots: list[Slot],
    use_ui: bool = True,
    earlier: Sequence[Step] = (),
) -> ActionTemplate:
    """The template of one step; appends to ``slots`` when its typed text becomes a slot.

    ``earlier`` are the episode's previous steps, where typed text may have been read.
    """
    action = step.action
    elements = step.observation.elements if use_ui else None
    element = target_element(elements, action)
    text = action.text
    text_source = ""
    if action.type is ActionType.TYPE and text:
        source = "instruction" if from_instruction(text, instruction) else None
        if source is None and use_ui:
            source = screen_source(text, earlier)
        if source is not None:
            slot = Slot(name=f"text{len(slots) + 1}", example=text, source=source)
            slots.append(slot)
            text = "{" + slot.name + "}"
            text_source = source
    return ActionTemplate(
        type=action.type.value,
        target_label=element.label if element else "",
        target_role=element.class_name.rsplit(".", 1)[-1] if element else "",
        target_id=element.resource_id if element else "",
        point=(action.point.x, action.point.y) if action.point else None,
        direction=action.direction.value if action.direction else None,
        text=text,
        app=action.app,
        hint=step.low_level_instruction,
        text_source=text_source,
    )
