"""The rule-based narrator: one goal-aware sentence per step, the team's history.

The paper's ablation found this narrative history worth more than the verifier (+6.5 AMS), so it
says what changed with respect to the sub-goal, not only which button was pressed.
"""

from __future__ import annotations

from guigraph.agents.roles import Outcome, OutcomeStatus, SemanticState, SubGoal
from guigraph.types import POINT_ACTIONS, Action, ActionType, chord_text

_MAX_TEXTS = 3
_VERBS = {
    ActionType.CLICK: "tapped",
    ActionType.DOUBLE_CLICK: "double-clicked",
    ActionType.LONG_PRESS: "long-pressed",
}


def describe_action(action: Action, before: SemanticState) -> str:
    if action.type in POINT_ACTIONS and action.point is not None:
        target = before.element_at(action.point)
        verb = _VERBS[action.type]
        return f"{verb} {target.label!r}" if target else f"{verb} {action.point.rounded()}"
    if action.type is ActionType.TYPE:
        return f"typed {action.text!r}"
    if action.type is ActionType.SCROLL:
        return f"swiped {action.direction}"
    if action.type is ActionType.OPEN_APP:
        return f"opened {action.app}"
    if action.type is ActionType.KEY:
        return f"pressed {chord_text(action.keys or ())}"
    return action.type.value.replace("_", " ")


class RuleNarrator:
    def narrate(
        self,
        before: SemanticState,
        action: Action,
        after: SemanticState,
        subgoal: SubGoal,
        outcome: Outcome,
    ) -> str:
        did = describe_action(action, before)
        where = f"in {after.app}" if after.app else "on the screen"
        if after.app != before.app and after.app:
            where = f"now in {after.app} (was {before.app or 'home'})"
        news = ", ".join(repr(t) for t in after.appeared[:_MAX_TEXTS])
        seen = f"; new on screen: {news}" if news else ""
        verdict = {
            OutcomeStatus.SUCCESS: "progress",
            OutcomeStatus.FAILURE: "setback",
            OutcomeStatus.NO_EFFECT: "no effect",
            OutcomeStatus.UNCERTAIN: "changed",
        }[outcome.status]
        return f"For '{subgoal.description}': {did}, {where}{seen} ({verdict}: {outcome.note})."


class AtomicNarrator:
    """``--history atomic``: the non-informative history of the paper's ablation."""

    def narrate(
        self,
        before: SemanticState,
        action: Action,
        after: SemanticState,
        subgoal: SubGoal,
        outcome: Outcome,
    ) -> str:
        return describe_action(action, before)
