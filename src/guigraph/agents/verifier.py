"""The rule-based verifier: Eq. 2's consistency predicate as explicit, testable checks.

Each check returns feedback when the proposal cannot be right in this state; the first failing
check rejects. The checks only reject what is certainly wrong (the paper found an over-eager
verifier costs accuracy: 14 % of its failures were correct actions rejected).
"""

from __future__ import annotations

from collections.abc import Callable

from guigraph.agents.roles import Proposal, SemanticState, SubGoal, VerifierVerdict
from guigraph.geometry import Point
from guigraph.types import POINT_ACTIONS, ActionType

Check = Callable[[SemanticState, Proposal, SubGoal], str | None]

_TAPS = POINT_ACTIONS
_LEAVING = {ActionType.PRESS_HOME, ActionType.PRESS_RECENT, ActionType.OPEN_APP}


def _point_on_screen(state: SemanticState, proposal: Proposal, subgoal: SubGoal) -> str | None:
    action = proposal.action
    if action.type in _TAPS and action.point is not None and not action.point.in_bounds():
        x, y = action.point.rounded()
        return f"Cannot tap ({x}, {y}): the point is outside the screen (0..1000)."
    return None


def _typing_needs_focus(state: SemanticState, proposal: Proposal, subgoal: SubGoal) -> str | None:
    if proposal.action.type is not ActionType.TYPE or not state.elements:
        return None
    if state.focused_field is None:
        return (
            "Cannot type: no text field is focused and no keyboard is shown; tap the field first."
        )
    return None


def _target_is_on_screen(state: SemanticState, proposal: Proposal, subgoal: SubGoal) -> str | None:
    if proposal.action.type not in _TAPS or not state.elements:
        return None
    target = proposal.target
    if target is not None and all(e.element != target.element for e in state.elements):
        return f"Cannot tap {target.label!r}: that element is not on the current screen."
    point = proposal.action.point
    if (
        point is not None
        and state.element_at(point) is None
        and not _tapped_in_a_recording(proposal, point)
    ):
        x, y = point.rounded()
        return f"Nothing to tap at ({x}, {y}): no button, field or list is there."
    return None


#: Proposers that replay what a person did in a demonstration.
_RECORDED = frozenset({"graph", "trace"})


def _tapped_in_a_recording(proposal: Proposal, point: Point) -> bool:
    """A replayed tap on the element a person tapped: the page may draw a control as plain
    text (a calendar's "Prev" arrow with a script behind it), and the demonstration is the
    evidence that tapping it does something."""
    target = proposal.target
    return proposal.source in _RECORDED and target is not None and target.bbox.contains(point)


def _stay_in_needed_app(state: SemanticState, proposal: Proposal, subgoal: SubGoal) -> str | None:
    action = proposal.action
    if action.type not in _LEAVING or subgoal.final or subgoal.app is None:
        return None
    if state.app != subgoal.app:
        return None
    if action.type is ActionType.OPEN_APP and action.app == subgoal.app:
        return None
    return f"The sub-goal '{subgoal.description}' needs {subgoal.app}; do not leave it yet."


def _scroll_needs_a_list(state: SemanticState, proposal: Proposal, subgoal: SubGoal) -> str | None:
    if proposal.action.type is not ActionType.SCROLL or not state.elements:
        return None
    if not any(view.element.scrollable for view in state.elements):
        return "Nothing on this screen scrolls."
    return None


def _finish_only_when_final(
    state: SemanticState, proposal: Proposal, subgoal: SubGoal
) -> str | None:
    if proposal.action.type is ActionType.COMPLETE and not subgoal.final:
        return f"Not done yet: the current sub-goal is '{subgoal.description}'."
    return None


DEFAULT_CHECKS: tuple[Check, ...] = (
    _point_on_screen,
    _typing_needs_focus,
    _target_is_on_screen,
    _stay_in_needed_app,
    _scroll_needs_a_list,
    _finish_only_when_final,
)


class RuleVerifier:
    def __init__(self, checks: tuple[Check, ...] = DEFAULT_CHECKS):
        self.checks = checks

    def verify(self, state: SemanticState, proposal: Proposal, subgoal: SubGoal) -> VerifierVerdict:
        for check in self.checks:
            feedback = check(state, proposal, subgoal)
            if feedback:
                return VerifierVerdict.reject(feedback)
        return VerifierVerdict.approve()


class ApproveAll:
    """``--verify never``: the ablation without a verifier."""

    def verify(self, state: SemanticState, proposal: Proposal, subgoal: SubGoal) -> VerifierVerdict:
        return VerifierVerdict.approve()
