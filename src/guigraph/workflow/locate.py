"""Finding a step's target on the screen by its locators, and checking what a screen shows.

Each locator of a target is one way to find the element (its id, its text, its description,
the label beside it, its rank among elements of its role, the box it last had); they are
tried in the order the file writes them, and the first that names exactly one element wins.
When each names several, the element most of them name is taken. ``role`` narrows every
locator (to the elements of that role, when there are any).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from guigraph.agents.roles import ACTIONABLE_ROLES, ElementView, SemanticState
from guigraph.envs import conventions
from guigraph.workflow.schema import Expect, Fact, Target, fill

#: How far (0..1000 units, between centres) a caption may sit from the element it labels.
NEAR_DISTANCE = 160.0
#: Or how far from its edges (a cell left of a wide field: far from its centre, yet beside it).
CAPTION_GAP = 60.0
#: Locators that name an element by what it is, not where it happens to be.
STRONG_LOCATORS = ("id", "text", "description", "near")
#: Elements that identify a state, at most.
FACTS_PER_STATE = 3
#: How much a box must overlap the element's box for the ``box`` locator to name it.
MIN_BOX_OVERLAP = 0.5


@dataclass(frozen=True)
class Found:
    view: ElementView
    locator: str  # the locator that found it ("id", "text", ...; "votes" when several agreed)


def locate(target: Target, state: SemanticState, values: Mapping[str, str]) -> Found | None:
    """The element ``target`` names on this screen, or None.

    Where the target has a strong locator (id, text, description, caption) and none of them
    names anything here, its rank and box alone do not name it either: the element they
    point at is another one (the app changed), which is for healing to sort out."""
    named: list[tuple[str, list[ElementView]]] = []
    order = target.locator_order()
    strong = [name for name in order if name in STRONG_LOCATORS]
    if strong and not any(matches(name, target, state, values) for name in strong):
        return None
    for name in order:
        candidates = _narrowed(matches(name, target, state, values), target.role)
        if len(candidates) == 1:
            return Found(candidates[0], name)
        if candidates:
            named.append((name, candidates))
    if not named:
        return None
    votes: dict[int, int] = {}
    for _, candidates in named:
        for view in candidates:
            votes[view.index] = votes.get(view.index, 0) + 1
    best = max(votes.values())
    if len(named) > 1 and list(votes.values()).count(best) == 1:
        index = next(i for i, v in votes.items() if v == best)
        return Found(state.elements[index], "votes")
    return None  # ambiguous: several elements fit equally well


def matches(
    name: str, target: Target, state: SemanticState, values: Mapping[str, str]
) -> list[ElementView]:
    """The elements locator ``name`` of ``target`` names (in reading order)."""
    elements = list(state.elements)
    if name == "id" and target.id:
        wanted = fill(target.id, values)
        return [v for v in elements if v.element.resource_id == wanted]
    if name == "text" and target.text is not None:
        if target.role != "field":  # a field shows what was typed into it: not what to tap
            elements = [v for v in elements if v.role != "field"]
        return _with_text(elements, fill(target.text, values))
    if name == "description" and target.description:
        wanted = _norm(fill(target.description, values))
        return [v for v in elements if _norm(v.element.content_desc) == wanted]
    if name == "near" and target.near:
        return _near(elements, fill(target.near, values), target.role)
    if name == "position" and target.position is not None:
        kind = reading_order([v for v in elements if v.role == target.position.role])
        index = target.position.index
        return [kind[index]] if index < len(kind) else []
    if name == "box" and target.box is not None:
        overlaps = [(overlap(target.box, _box(v)), v) for v in elements if v.role != "list"]
        good = [pair for pair in overlaps if pair[0] >= MIN_BOX_OVERLAP]
        return [max(good, key=lambda pair: pair[0])[1]] if good else []
    return []


def _with_text(elements: Sequence[ElementView], text: str) -> list[ElementView]:
    wanted = _norm(text)
    if not wanted:
        return []
    exact = [v for v in elements if _norm(v.element.text or v.label) == wanted]
    if exact:
        return exact
    # A label that holds the value and more ("Nova lamp  $12"): only among controls.
    return [v for v in elements if v.role in ACTIONABLE_ROLES and wanted in _norm(v.label)]


def _near(elements: Sequence[ElementView], caption: str, role: str | None) -> list[ElementView]:
    """The controls whose caption (``caption_of``) is the text ``caption``."""
    wanted = _norm(caption)
    if not any(_norm(v.label) == wanted for v in elements):
        return []
    controls = [
        v for v in elements if v.role in ACTIONABLE_ROLES and (role is None or v.role == role)
    ]
    return [c for c in controls if _norm(caption_of(c, elements)) == wanted]


def caption_of(control: ElementView, elements: Sequence[ElementView]) -> str:
    """The text that names a control on its screen: the text element whose box is nearest the
    control's (forms put captions above, beside and below their fields), within
    ``CAPTION_GAP`` of its edges or ``NEAR_DISTANCE`` of its centre; above or before it wins
    a tie."""
    best: tuple[float, float, str] | None = None
    for other in elements:
        label = other.label.strip()
        if other.role != "text" or not label or other.index == control.index:
            continue
        gap = _gap(control, other)
        if gap > CAPTION_GAP and _distance(control, other) > NEAR_DISTANCE:
            continue
        after = float(other.center.y > control.center.y or other.center.x > control.center.x)
        if best is None or (gap, after) < best[:2]:
            best = (gap, after, label)
    return best[2] if best else ""


def _gap(a: ElementView, b: ElementView) -> float:
    """The distance between the edges of two boxes (0 when they touch or overlap)."""
    dx = max(0.0, a.bbox.x1 - b.bbox.x2, b.bbox.x1 - a.bbox.x2)
    dy = max(0.0, a.bbox.y1 - b.bbox.y2, b.bbox.y1 - a.bbox.y2)
    return math.hypot(dx, dy)


def _narrowed(candidates: list[ElementView], role: str | None) -> list[ElementView]:
    if role is None or len(candidates) <= 1:
        return candidates
    same = [v for v in candidates if v.role == role]
    return same or candidates


def reading_order(views: Sequence[ElementView]) -> list[ElementView]:
    return sorted(views, key=lambda v: (round(v.bbox.y1), round(v.bbox.x1)))


def position_of(view: ElementView, state: SemanticState) -> int:
    """``view``'s rank among the elements of its role, in reading order."""
    kind = reading_order([v for v in state.elements if v.role == view.role])
    return next(i for i, v in enumerate(kind) if v.index == view.index)


def _box(view: ElementView) -> tuple[float, float, float, float]:
    b = view.bbox
    return (b.x1, b.y1, b.x2, b.y2)


def overlap(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two boxes."""
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def _distance(a: ElementView, b: ElementView) -> float:
    return math.dist((a.center.x, a.center.y), (b.center.x, b.center.y))


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


# -- what a screen shows -----------------------------------------------------------------------
def shows(fact: Fact, state: SemanticState, values: Mapping[str, str]) -> bool:
    if fact.id is not None:
        wanted = fill(fact.id, values)
        return any(v.element.resource_id == wanted for v in state.elements)
    wanted = _norm(fill(fact.text or "", values))
    return any(_norm(text) == wanted for text in state.texts)


def shows_text(text: str, state: SemanticState) -> bool:
    """Whether the screen shows ``text`` (in an element's text or description)."""
    wanted = _norm(text)
    return bool(wanted) and any(wanted in _norm(t) for t in state.texts)


def expected_here(expect: Expect, state: SemanticState, values: Mapping[str, str]) -> bool:
    """Whether this screen is the state ``expect`` describes: the same app (when the world
    says which app is in front) and at least half of the facts that identify it."""
    if expect.app and state.app and _norm(expect.app) != _norm(state.app):
        return False
    if not expect.shows:
        return True
    held = sum(shows(fact, state, values) for fact in expect.shows)
    return 2 * held >= len(expect.shows)


def facts_of(state: SemanticState) -> tuple[Fact, ...]:
    """A few elements that identify a screen: ids that name no item of a list, else its plain
    texts (a title), in reading order."""
    ordered = reading_order(list(state.elements))
    facts: list[Fact] = []
    for view in ordered:
        rid = view.element.resource_id
        if rid and not item_family(rid) and not conventions.active().is_framework_id(rid):
            facts.append(Fact(id=rid))
        if len(facts) >= FACTS_PER_STATE:
            return tuple(facts)
    if facts:
        return tuple(facts)
    texts = [v.element.text for v in ordered if v.role == "text" and v.element.text.strip()]
    return tuple(Fact(text=t) for t in texts[:FACTS_PER_STATE])


def item_family(resource_id: str) -> str:
    """The list an item's id belongs to (``product_7``, ``chat_Alice`` -> ``product``,
    ``chat``): the part before a last word that is a number or a name; "" for other ids."""
    name = conventions.active().parse_id(resource_id).name
    head, sep, tail = name.rpartition("_")
    if not sep or not head or not (tail[:1].isdigit() or tail[:1].isupper()):
        return ""
    return head
