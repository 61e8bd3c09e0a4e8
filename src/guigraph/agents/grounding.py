"""Grounding: a remembered action template becomes an action on the screen the team sees now.

A template names its target (label, resource id, role) and keeps a point only as an example;
grounding finds that target on the current screen, so a trace recorded on a phone still works
on a tablet. Typed text is filled from the task's slot values or from focus memory.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from guigraph.agents.memory import FocusMemory
from guigraph.agents.roles import ElementView, Proposal, SemanticState
from guigraph.geometry import Point
from guigraph.types import Action, ActionType, ScrollDirection

if TYPE_CHECKING:
    from guigraph.graph.records import ActionTemplate

_SLOT = re.compile(r"\{([^{}]+)\}")
_TAPS = {ActionType.CLICK, ActionType.LONG_PRESS}


def fill_text(
    template_text: str,
    values: Mapping[str, str],
    memory: FocusMemory | None = None,
    source: str = "",
) -> str:
    """Replace ``{slot}`` markers: a value read off a screen comes from focus memory, a value
    of the instruction from the task's slot values; the recorded example is the last resort."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if source.startswith("screen:") and memory is not None:
            remembered = memory.recall(source)
            if remembered is not None:
                return remembered
        return values.get(name, match.group(0))

    return _SLOT.sub(replace, template_text)


def find_target(
    template: ActionTemplate, state: SemanticState, replacements: Mapping[str, str]
) -> ElementView | None:
    """The element a template's tap meant: same label, the label with the task's value, or id."""
    label = template.target_label.strip()
    if label:
        found = state.find(label)
        if found is not None:
            return found
        for old, new in replacements.items():
            if old and new and old.lower() in label.lower():
                wanted = new.lower()
                found = next((e for e in state.elements if wanted in e.label.lower()), None)
                if found is not None:
                    return found
    if template.target_id:
        same_id = [e for e in state.elements if e.element.resource_id == template.target_id]
        if len(same_id) == 1 or (same_id and not label):
            return same_id[0]
    return None


def ground(
    template: ActionTemplate,
    state: SemanticState,
    values: Mapping[str, str],
    replacements: Mapping[str, str],
    memory: FocusMemory | None = None,
) -> Proposal | None:
    """The proposal for ``template`` on this screen, or None when its target is not here."""
    kind = ActionType(template.type)
    if kind in _TAPS:
        target = find_target(template, state, replacements)
        if target is not None:
            action = Action(kind, point=target.center)
            return Proposal(action, target=target, reason=f"graph: {template.target_label}")
        if not state.elements and template.point is not None:  # screenshot-only world
            return Proposal(Action(kind, point=Point(*template.point)), reason="graph: point")
        return None
    if kind is ActionType.TYPE:
        text = fill_text(template.text or "", values, memory, template.text_source)
        return Proposal(Action.type_text(text), target=state.focused_field, reason="graph: type")
    if kind is ActionType.SCROLL:
        direction = ScrollDirection(template.direction or ScrollDirection.UP)
        return Proposal(Action.scroll(direction), reason="graph: scroll")
    if kind is ActionType.OPEN_APP:
        return Proposal(Action.open_app(template.app or ""), reason="graph: open app")
    if kind is ActionType.WAIT:
        return Proposal(Action(ActionType.WAIT, seconds=1.0), reason="graph: wait")
    return Proposal(Action(kind), reason=f"graph: {kind.value}")
