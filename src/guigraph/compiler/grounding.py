"""Grounding: a script step becomes an action on the screen the team sees now.

A step names its target (label, resource id) and keeps a point only as an example; grounding
finds that target on the current screen, so a trace recorded on a phone still works on a
tablet. Text comes bound from the task, or is read from focus memory when it was a value seen
on an earlier screen.
"""

from __future__ import annotations

import re

from guigraph.compiler.script import ScriptStep, names_kind
from guigraph.compiler.slots import content_words
from guigraph.envs import conventions
from guigraph.focus import FocusMemory
from guigraph.geometry import CoordSpace, Point
from guigraph.roles import ACTIONABLE_ROLES, ElementView, Proposal, SemanticState
from guigraph.types import ID_LESS_KEY, POINT_ACTIONS, Action, ActionType, ScrollDirection

_TAPS = POINT_ACTIONS
UNFILLED = re.compile(r"\{text\d+\}")
_WORD = re.compile(r"\w+")


def step_text(step: ScriptStep, memory: FocusMemory | None) -> str:
    """The text a type step enters: bound from the task, with each value that was read off a
    screen filled from focus memory (its own element, else the value carried from the app
    before), else the recorded example."""
    text = step.text if step.text is not None else step.template.text or ""
    for slot, _ in step.screen_slots:
        value = _screen_value(step, slot, memory)
        text = text.replace("{" + slot + "}", value if value is not None else "")
    return text


def _screen_value(step: ScriptStep, slot: str, memory: FocusMemory | None) -> str | None:
    source = dict(step.screen_slots)[slot]
    for where in (source, step.fallback_source):
        value = memory.recall(where.encoded()) if memory and where else None
        if value is not None:
            return value
    return None


def unread_values(step: ScriptStep, memory: FocusMemory | None) -> bool:
    """Whether a value this step types from a screen was never seen (no price came up)."""
    return any(_screen_value(step, slot, memory) is None for slot, _ in step.screen_slots)


def find_target(step: ScriptStep, state: SemanticState) -> ElementView | None:
    """The element a step's tap meant: its (bound) label, else a unique same-id element."""
    if step.kind:
        return _of_kind(step.kind, state)
    if step.open_value:
        return _named_by_task(step, state)
    label = step.label.strip()
    if label:
        found = _best_named(step, state, label)
        if found is not None:
            # The recorded result ("The story of coffee", on lab-notes.io) may be there again
            # while the task wants another one showing the same value (on dailyfacts.net).
            other = _by_replaced_value(step, state, label)
            if other is not None and _task_match(step, other) > _task_match(step, found):
                return other
            return found
        if label != step.template.target_label:  # a task value: "Nova lamp" in "Nova lamp $12"
            wanted = label.lower()
            candidates = _not_the_typing_field(step, list(state.elements))
            found = next((e for e in candidates if wanted in e.label.lower()), None)
            if found is not None:
                return found
            return None  # the recorded element was another value: its id would mislead
    by_value = _by_replaced_value(step, state, label)
    if by_value is not None:
        return by_value
    target_id = step.template.target_id
    if target_id and _key_names_here(target_id, step, state):
        same_id = [e for e in state.elements if e.key == target_id]
        if len(same_id) == 1 or (same_id and not label):
            return same_id[0]
    return None


def _of_kind(kind: str, state: SemanticState) -> ElementView | None:
    """The first element of ``kind`` here that takes a tap (any of them is one of that kind;
    its label is of no account)."""
    of_kind = [
        v for v in state.elements if names_kind(kind, v.element.class_name.rsplit(".", 1)[-1])
    ]
    return next((v for v in of_kind if v.element.clickable), of_kind[0] if of_kind else None)


def _key_names_here(key: str, step: ScriptStep, state: SemanticState) -> bool:
    """Whether an element with ``key`` here is the step's target whatever its label says.

    A resource id names the element wherever it is. An id-less key (``types.element_keys``)
    only says "the first button with a word on it" of its screen: on another screen (the
    cookie pop-up's "Accept" is not here, the article's "<" is) or on one not recognized (a
    tablet's keyboard shows "Go" where the phone's form showed "Save") it is another element.
    Nor is a list's n-th row the one to tap when the task names what to tap ("Text Farah":
    the fourth chat is Dana's when Farah has none yet).
    """
    if not key.startswith(ID_LESS_KEY):
        return True
    if content_words(step.label) & step.task_words:
        return False
    return state.node_id is not None and state.node_id == str(step.node)


def _best_named(step: ScriptStep, state: SemanticState, label: str) -> ElementView | None:
    """Among elements named ``label``, the recorded one (same id), else an actionable one.

    A settings page titled "Wi-Fi" also has a "Wi-Fi" switch: the title is not what was tapped.
    """
    wanted = label.lower()
    named = _not_the_typing_field(
        step, [e for e in state.elements if e.label.strip().lower() == wanted]
    )
    if not named:
        # A value bound from the task's words lost its marks ("Tab 3" for "Tab #3"): the
        # element whose words are the same, in the same order.
        tokens = _WORD.findall(wanted)
        named = _not_the_typing_field(
            step, [e for e in state.elements if tokens and _WORD.findall(e.label.lower()) == tokens]
        )
    if not named:
        return None
    rid = step.template.target_id
    same_id = [e for e in named if rid and e.key == rid]
    actionable = [e for e in named if e.role in ACTIONABLE_ROLES]
    return _nearest_recorded(step, same_id or actionable or named)


def _nearest_recorded(step: ScriptStep, candidates: list[ElementView]) -> ElementView:
    """Of elements that look alike (a spinner's two arrows, one name and one id), the one
    where the recording tapped; the first when the recording kept no point on this scale."""
    point = step.template.point
    normalized = [e for e in candidates if e.bbox.space is CoordSpace.NORM]
    if point is None or len(candidates) < 2 or len(normalized) < len(candidates):
        return candidates[0]
    x, y = point
    return min(candidates, key=lambda e: (e.center.x - x) ** 2 + (e.center.y - y) ** 2)


def _by_replaced_value(step: ScriptStep, state: SemanticState, label: str) -> ElementView | None:
    """A recorded label that contained the task's old value ("Chess, a guide" for "chess"):
    the element showing the most of the new values instead."""
    wanted = [new.lower() for old, new in step.replacements if old.lower() in label.lower()]
    if not wanted:
        return None
    best, best_score = None, -1
    for view in _not_the_typing_field(step, list(state.elements)):
        shown = f"{view.label} {view.element.content_desc}"
        if view.role not in ACTIONABLE_ROLES or not all(w in shown.lower() for w in wanted):
            continue
        # Among results that show the value, the one that matches the task best
        # ("the wikiverse.org article about jazz", not the first jazz article).
        score = _task_match(step, view)
        if best is None or score > best_score:
            best, best_score = view, score
    return best


def _named_by_task(step: ScriptStep, state: SemanticState) -> ElementView | None:
    """The one actionable element here that the task names (the contact "Emeka" in a share
    sheet), preferring the recorded target's kind of id; None when none or several are."""
    named = [
        v for v in _not_the_typing_field(step, list(state.elements))
        if v.role in ACTIONABLE_ROLES and content_words(v.label)
        and content_words(v.label) <= step.task_words
    ]  # fmt: skip
    family = _id_family(step.template.target_id)
    kin = [v for v in named if family and _id_family(v.key) == family]
    chosen = kin or named
    return chosen[0] if len(chosen) == 1 else None


def _id_family(key: str) -> str:
    """An item's id without what names the item (``chat_Chen``, ``contact_3`` -> ``chat``,
    ``contact``), so that items of one list are kin; keys of id-less elements stand alone."""
    name = conventions.active().parse_id(key).name
    if "_" not in name:
        return key
    return key[: len(key) - len(name)] + name.rsplit("_", 1)[0]


def _task_match(step: ScriptStep, view: ElementView) -> int:
    """How many of the task's words an element shows (its label and description)."""
    return len(content_words(f"{view.label} {view.element.content_desc}") & step.task_words)


def _not_the_typing_field(step: ScriptStep, views: list[ElementView]) -> list[ElementView]:
    """A text field shows what was typed into it: "Quito" in the search box is not the
    suggestion "Quito" below it. Fields count only when the recorded target was a field."""
    if conventions.active().is_field_class(step.template.target_role):
        return views
    return [v for v in views if v.role != "field"]


def ground(
    step: ScriptStep, state: SemanticState, memory: FocusMemory | None = None
) -> Proposal | None:
    """The proposal for ``step`` on this screen, or None when its target is not here."""
    template = step.template
    kind = ActionType(template.type)
    if kind in _TAPS:
        target = find_target(step, state)
        if target is not None:
            return Proposal(
                Action(kind, point=target.center), target=target, reason=f"tap {target.label!r}"
            )
        if not state.elements and template.point is not None:  # a screenshot-only world
            return Proposal(Action(kind, point=Point(*template.point)), reason="recorded point")
        return None
    if kind is ActionType.TYPE:
        text = step_text(step, memory)
        if UNFILLED.search(text):
            return None  # a value this plan cannot supply: never type a "{slot}" marker
        if unread_values(step, memory):
            return None  # the value to read was never on screen: typing without it is wrong
        return Proposal(Action.type_text(text), target=state.focused_field, reason="type")
    if kind is ActionType.SCROLL:
        return Proposal(Action.scroll(ScrollDirection(template.direction or "up")), reason="scroll")
    if kind is ActionType.OPEN_APP:
        return Proposal(Action.open_app(template.app or ""), reason="open app")
    if kind is ActionType.WAIT:
        return Proposal(Action(ActionType.WAIT, seconds=1.0), reason="wait")
    if kind is ActionType.KEY and template.keys:
        return Proposal(Action(kind, keys=template.keys), reason="+".join(template.keys))
    return Proposal(Action(kind), reason=kind.value)
