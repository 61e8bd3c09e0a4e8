"""MGA's grounding step: a semantic action placed on the current screen as a typed ``Action``.

A described target ("button 'Save'", "the second field") is looked up among the screen's UI
elements: the words are compared with each element's texts (``rapidfuzz``, so "Save as" finds
"Save As…"), the role is a preference (a person's "button" may be a menu item), and
``ordinal`` picks among equally good ones in the screen's order. Placed again on every screen,
never from where the element was before (MGA §3.5). A screen without a UI tree goes to a
grounding model (its own role, ``grounder``, with its own model settings), which answers with
a point or says it found nothing. What cannot be placed is a *miss*: the planner is told why
and the miss is counted (:class:`GroundingCounts`, in the run's summary).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError
from rapidfuzz import fuzz

from guigraph.agents.model_roles import RoleClient
from guigraph.agents.prompting import coords_note, fill
from guigraph.agents.roles import ACTIONABLE_ROLES, ElementView, SemanticState
from guigraph.agents.semantic import POINTING, SemanticAction, Target, Verb
from guigraph.errors import ActionError
from guigraph.geometry import Point
from guigraph.types import Action, ActionType, key_chord

#: The words of a target must match an element's this well (0-100, ``fuzz.ratio``).
MATCH_THRESHOLD = 80.0
#: The action each verb becomes.
ACTION_OF: dict[Verb, ActionType] = {
    Verb.CLICK: ActionType.CLICK,
    Verb.DOUBLE_CLICK: ActionType.DOUBLE_CLICK,
    Verb.LONG_PRESS: ActionType.LONG_PRESS,
    Verb.TYPE: ActionType.TYPE,
    Verb.KEY: ActionType.KEY,
    Verb.SCROLL: ActionType.SCROLL,
    Verb.OPEN_APP: ActionType.OPEN_APP,
    Verb.BACK: ActionType.PRESS_BACK,
    Verb.HOME: ActionType.PRESS_HOME,
    Verb.RECENT: ActionType.PRESS_RECENT,
    Verb.WAIT: ActionType.WAIT,
    Verb.DONE: ActionType.COMPLETE,
    Verb.FAIL: ActionType.IMPOSSIBLE,
}
#: What people call each of the observer's roles (``agents.observer.element_role``).
_ROLE_WORDS: dict[str, frozenset[str]] = {
    "button": frozenset({
        "button", "push button", "menu item", "menu", "link", "icon", "tab", "page tab",
        "item", "list item", "key", "option", "card",
    }),
    "field": frozenset({
        "field", "text field", "entry", "input", "text box", "textbox", "text", "edit",
        "search box", "search field", "text area", "editor", "document", "document text",
        "display",
    }),
    "toggle": frozenset({
        "toggle", "check box", "checkbox", "switch", "radio", "radio button", "toggle button",
    }),
    "list": frozenset({"list", "scroll pane", "table", "tree"}),
    "text": frozenset({"text", "label", "static text", "heading", "title"}),
}  # fmt: skip
#: Seconds a wait waits when the planner names none.
DEFAULT_WAIT_S = 1.0


@dataclass
class GroundingCounts:
    """What the grounding step did over a run: targets placed from the UI tree, placed by the
    grounding model, and missed (with the last misses' reasons)."""

    tree: int = 0
    model: int = 0
    missed: int = 0
    misses: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, placement: Placement) -> None:
        with self._lock:
            if placement.miss:
                self.missed += 1
                self.misses = [*self.misses[-19:], placement.miss]
            elif placement.by == "tree":
                self.tree += 1
            elif placement.by == "model":
                self.model += 1

    def to_dict(self) -> dict[str, Any]:
        return {"tree": self.tree, "model": self.model, "missed": self.missed}

    def describe(self) -> str:
        return (
            f"{self.tree + self.model} targets placed ({self.tree} from the UI tree, "
            f"{self.model} by the grounding model), {self.missed} missed"
        )


@dataclass(frozen=True)
class Placement:
    """A semantic action on this screen: its action and element, or why it has none."""

    action: Action | None
    target: ElementView | None = None
    by: str = ""  # "tree", "model", or "" when nothing had to be placed
    miss: str = ""
    note: str = ""


def _norm(words: str) -> str:
    return " ".join(words.replace("_", " ").replace("…", "").split()).casefold().rstrip(":.")


def role_fits(view: ElementView, role: str) -> bool:
    """Whether a person's word for a kind of element names this one (its role as the
    observer gives it, or its class: a "check box" is a toggle whatever the observer says)."""
    wanted = _norm(role)
    if not wanted:
        return True
    own_class = _norm(view.element.class_name)
    if wanted in (view.role, own_class):
        return True
    return bool(_kinds(wanted) & ({view.role} | _kinds(own_class)))


def _kinds(word: str) -> set[str]:
    """The observer roles a word can mean."""
    return {kind for kind, words in _ROLE_WORDS.items() if word == kind or word in words}


def text_score(view: ElementView, words: str) -> float:
    """How well ``words`` name this element (0-100): its best text, description or label."""
    wanted = _norm(words)
    if not wanted:
        return 100.0
    names = {_norm(n) for n in (view.label, view.element.text, view.element.content_desc) if n}
    return max((fuzz.ratio(wanted, name) for name in names if name), default=0.0)


class TreeGrounder:
    """Places a target on the screen's UI elements."""

    def __init__(self, threshold: float = MATCH_THRESHOLD):
        self.threshold = threshold

    def find(self, target: Target, state: SemanticState) -> ElementView | str:
        """The element meant, or why none is."""
        scored = [(text_score(view, target.text), view) for view in state.elements]
        fitting = [(s, v) for s, v in scored if s >= self.threshold]
        by_role = [(s, v) for s, v in fitting if role_fits(v, target.role)]
        # The role is a preference: a person's "button" may be a menu item or a link.
        pool = by_role or fitting
        if not pool:
            return f"no {target.describe()} on this screen{_closest(scored)}"
        best = max(s for s, _ in pool)
        # Equally good matches: actionable ones first when the role says nothing.
        tied = [v for s, v in pool if s == best]
        if not target.role and any(v.role in ACTIONABLE_ROLES for v in tied):
            tied = [v for v in tied if v.role in ACTIONABLE_ROLES]
        nth = target.ordinal or 1
        if nth > len(tied):
            alike = target.model_copy(update={"ordinal": None}).describe()
            return f"only {len(tied)} {alike} on this screen, not a #{nth}"
        return tied[nth - 1]


def _closest(scored: list[tuple[float, ElementView]]) -> str:
    near = [v for s, v in sorted(scored, key=lambda sv: -sv[0]) if s > 0 and v.label][:3]
    return f" (closest: {', '.join(f'{v.role} {v.label[:40]!r}' for v in near)})" if near else ""


class GrounderReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    found: bool = True
    coordinate: list[float] | None = None
    why: str = ""


GROUNDER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "found": {"type": "boolean"},
        "coordinate": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
        "why": {"type": "string"},
    },
    "required": ["found"],
}


class ModelGrounder:
    """The grounding model: a described target -> a point on a screen without a UI tree."""

    def __init__(self, client: RoleClient):
        self.client = client

    def find(self, target: Target, state: SemanticState) -> Point | str:
        observation = state.observation
        sent = self.client.sent_size(observation)
        prompt = fill(
            "grounder", target=target.describe(), app=state.app or "home",
            coords_note=coords_note(self.client.coords, observation.screen, sent),
            screen=self.client.elements(state),
        )  # fmt: skip
        reply = self.client.ask_json(prompt, self.client.images(state), GROUNDER_SCHEMA)
        if not reply.ok:
            return f"the grounding model's reply is unusable ({reply.why()})"
        try:
            answer = GrounderReply.model_validate(reply.value)
        except ValidationError as exc:
            self.client.unparsed()
            return f"the grounding model's reply does not fit ({exc.errors()[0]['msg']})"
        if not answer.found or answer.coordinate is None or len(answer.coordinate) != 2:
            return f"the grounding model found no {target.describe()}" + (
                f": {answer.why}" if answer.why else ""
            )
        x, y = answer.coordinate
        return self.client.coords.to_point(x, y, observation.screen, sent)


class Grounder:
    """The grounding step: the UI tree where the screen has one, else the grounding model."""

    def __init__(self, model: ModelGrounder | None, counts: GroundingCounts | None = None):
        self.tree = TreeGrounder()
        self.model = model
        self.counts = counts if counts is not None else GroundingCounts()

    def place(self, semantic: SemanticAction, state: SemanticState) -> Placement:
        placement = self._place(semantic, state)
        self.counts.add(placement)
        return placement

    def _place(self, semantic: SemanticAction, state: SemanticState) -> Placement:
        kind = ACTION_OF[semantic.action]
        if semantic.action in POINTING:
            assert semantic.target is not None  # SemanticAction checks it
            return self._point(kind, semantic.target, state)
        if semantic.action is Verb.TYPE and semantic.target is not None and state.elements:
            return self._type_into(semantic, state)
        try:
            return Placement(_plain(kind, semantic))
        except ActionError as exc:
            return Placement(None, miss=f"{semantic.describe()} cannot be done: {exc}")

    def _point(self, kind: ActionType, target: Target, state: SemanticState) -> Placement:
        if state.elements:
            found = self.tree.find(target, state)
            if isinstance(found, str):
                return Placement(None, miss=found)
            return Placement(Action(kind, point=found.center), found, "tree")
        if self.model is None:
            return Placement(None, miss="this screen has no UI tree and no grounding model")
        point = self.model.find(target, state)
        if isinstance(point, str):
            return Placement(None, miss=point)
        return Placement(Action(kind, point=point), state.element_at(point), "model")

    def _type_into(self, semantic: SemanticAction, state: SemanticState) -> Placement:
        """Typing goes to the focused field: into another named field, that field is
        clicked first (this step), and the planner types on the next."""
        assert semantic.target is not None and semantic.text is not None
        found = self.tree.find(semantic.target, state)
        typing = Action.type_text(semantic.text)
        if isinstance(found, str):
            if state.focused_field is not None:
                return Placement(typing, note=f"{found}; typed into the focused field")
            return Placement(None, miss=found)
        if found.element.focused or found.role != "field":
            return Placement(typing, found, "tree")
        note = f"clicked {found.role} {found.label!r} to focus it; type again to fill it"
        return Placement(Action(ActionType.CLICK, point=found.center), found, "tree", note=note)


def _plain(kind: ActionType, semantic: SemanticAction) -> Action:
    """An action with nothing to place on the screen."""
    if kind is ActionType.TYPE:
        return Action.type_text(semantic.text or "")
    if kind is ActionType.KEY:
        return Action(kind, keys=key_chord(semantic.keys or ""))
    if kind is ActionType.SCROLL:
        assert semantic.direction is not None
        return Action.scroll(semantic.direction)
    if kind is ActionType.OPEN_APP:
        return Action.open_app(semantic.app or "")
    if kind is ActionType.WAIT:
        seconds = DEFAULT_WAIT_S if semantic.seconds is None else semantic.seconds
        return Action(kind, seconds=seconds)
    return Action(kind)
