"""Recorded actions → edge action templates: name the target element, lift typed text to slots.

A template says *what* was touched (label, role, id of the UI element under the point, when
the data has a UI tree) so that a trace stays useful on another device or layout, and keeps the
point only as an example. Typed text found in the instruction becomes a named slot, so a trace
recorded for "Paris" can be replayed for "Rome".
"""

from __future__ import annotations

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


def action_template(
    step: Step, instruction: str, slots: list[Slot], use_ui: bool = True
) -> ActionTemplate:
    """The template of one step; appends to ``slots`` when its typed text becomes a slot."""
    action = step.action
    elements = step.observation.elements if use_ui else None
    element = target_element(elements, action)
    text = action.text
    if action.type is ActionType.TYPE and text and from_instruction(text, instruction):
        slot = Slot(name=f"text{len(slots) + 1}", example=text)
        slots.append(slot)
        text = "{" + slot.name + "}"
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
    )
