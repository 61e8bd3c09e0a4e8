"""Typed inputs and outputs of every role, and the Protocols the roles implement.

Roles exchange these frozen records, never free-form dicts; a model-backed role parses its reply
into the same records a rule-based one builds, so the loop cannot tell them apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from guigraph.focus import FocusMemory
from guigraph.geometry import BBox, Point
from guigraph.types import Action, Observation, Task, UIElement


@dataclass(frozen=True, slots=True)
class ElementView:
    """A UI element as the team refers to it: a stable index on this screen, a role and a label."""

    index: int
    label: str
    role: str  # "field", "button", "toggle", "list", "text"
    element: UIElement
    #: The element's name across runs of this screen (``types.element_keys``).
    key: str = ""

    @property
    def bbox(self) -> BBox:
        return self.element.bbox

    @property
    def center(self) -> Point:
        return self.element.bbox.center

    def describe(self) -> str:
        flags = [f for f in ("focused", "checked") if getattr(self.element, f)]
        suffix = f" ({', '.join(flags)})" if flags else ""
        return f"[{self.index}] {self.role} {self.label!r}{suffix}"


@dataclass(frozen=True, slots=True)
class SemanticState:
    """The observer's task-independent encoding of one screen (MGA: nothing useful dropped)."""

    observation: Observation
    app: str | None
    elements: tuple[ElementView, ...]
    texts: tuple[str, ...]
    fingerprint: str
    appeared: tuple[str, ...] = ()
    disappeared: tuple[str, ...] = ()
    node_id: str | None = None
    node_score: float = 0.0

    @property
    def focused_field(self) -> ElementView | None:
        return next((e for e in self.elements if e.role == "field" and e.element.focused), None)

    def element_at(self, point: Point) -> ElementView | None:
        """The smallest actionable element under ``point`` (the one a tap would reach)."""
        hits = [e for e in self.elements if e.role in ACTIONABLE_ROLES and e.bbox.contains(point)]
        return min(hits, key=lambda e: e.bbox.width * e.bbox.height, default=None)

    def find(self, label: str) -> ElementView | None:
        wanted = label.strip().lower()
        exact = [e for e in self.elements if e.label.strip().lower() == wanted]
        return exact[0] if exact else None


ACTIONABLE_ROLES = frozenset({"field", "button", "toggle", "list"})


@dataclass(frozen=True, slots=True)
class SubGoal:
    """What the team is trying to achieve now. ``app`` is the app the sub-goal happens in."""

    description: str
    app: str | None = None
    target_node: str | None = None
    final: bool = False
    segment: int | None = None  # the plan segment this sub-goal belongs to, for graph plans


@dataclass(frozen=True, slots=True)
class Plan:
    """The global planner's ordered sub-goals, with the context it was made from."""

    subgoals: tuple[SubGoal, ...]
    rationale: str = ""

    def apps(self) -> list[str]:
        """The apps the sub-goals visit, in order, lower-cased, a repeat counted once."""
        apps: list[str] = []
        for goal in self.subgoals:
            app = (goal.app or "").strip().lower()
            if app and (not apps or apps[-1] != app):
                apps.append(app)
        return apps


@dataclass(frozen=True, slots=True)
class Proposal:
    """A proposed action, grounded on the current screen when it targets an element."""

    action: Action
    target: ElementView | None = None
    reason: str = ""
    source: str = "rule"  # "graph", "rule", "trace", "model"
    expect_node: str | None = None  # the graph state this action should lead to, when known
    expect_app: str | None = None  # the app that state belongs to


@dataclass(frozen=True, slots=True)
class VerifierVerdict:
    approved: bool
    feedback: str = ""

    @classmethod
    def approve(cls) -> VerifierVerdict:
        return cls(True)

    @classmethod
    def reject(cls, feedback: str) -> VerifierVerdict:
        return cls(False, feedback)


class OutcomeStatus(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"
    NO_EFFECT = "no_effect"
    UNCERTAIN = "uncertain"


@dataclass(frozen=True, slots=True)
class Outcome:
    status: OutcomeStatus
    note: str = ""
    recovery: Action | None = None


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One executed step as the planners see it: the narrative plus the bare facts."""

    step: int
    subgoal: SubGoal
    action: Action
    narrative: str
    outcome: Outcome
    fingerprint_before: str
    fingerprint_after: str


@dataclass
class Feedback:
    """Why the last attempts failed; handed to the sub-goal planner and the decider."""

    messages: list[str] = field(default_factory=list)
    banned: list[Action] = field(default_factory=list)

    def add(self, message: str, action: Action | None = None) -> None:
        self.messages.append(message)
        if action is not None:
            self.banned.append(action)

    def __bool__(self) -> bool:
        return bool(self.messages)


class GlobalPlanner(Protocol):
    def plan(self, task: Task, context: object) -> Plan: ...

    def is_complete(
        self, task: Task, plan: Plan, history: Sequence[HistoryEntry], state: SemanticState
    ) -> bool: ...


class SubgoalPlanner(Protocol):
    def next_subgoal(
        self, plan: Plan, history: Sequence[HistoryEntry], state: SemanticState, feedback: Feedback
    ) -> SubGoal: ...


class Observer(Protocol):
    def observe(
        self, observation: Observation, previous: SemanticState | None
    ) -> SemanticState: ...


class Decider(Protocol):
    def decide(
        self,
        subgoal: SubGoal,
        state: SemanticState,
        history: Sequence[HistoryEntry],
        feedback: Feedback,
        memory: FocusMemory,
    ) -> Proposal: ...


class Verifier(Protocol):
    def verify(
        self, state: SemanticState, proposal: Proposal, subgoal: SubGoal
    ) -> VerifierVerdict: ...


class Narrator(Protocol):
    def narrate(
        self,
        before: SemanticState,
        action: Action,
        after: SemanticState,
        subgoal: SubGoal,
        outcome: Outcome,
    ) -> str: ...


class OutcomeChecker(Protocol):
    def check(
        self,
        before: SemanticState,
        proposal: Proposal,
        after: SemanticState,
        subgoal: SubGoal,
        error: str | None,
    ) -> Outcome: ...
