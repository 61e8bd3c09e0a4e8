"""The outcome check after each action (MGA's verified memory, Mobile-Agent-v2's reflection).

It compares the states before and after an executed action and says whether the action did
what it was for; a failure carries the recovery the loop should run before trying again.
"""

from __future__ import annotations

from guigraph.agents.roles import Outcome, OutcomeStatus, Proposal, SemanticState, SubGoal
from guigraph.types import POINT_ACTIONS, Action, ActionType

_NAVIGATING = POINT_ACTIONS | {ActionType.KEY}
_EXPECTED_NO_CHANGE = {ActionType.WAIT, ActionType.COMPLETE, ActionType.IMPOSSIBLE}


class RuleOutcomeChecker:
    def check(
        self,
        before: SemanticState,
        proposal: Proposal,
        after: SemanticState,
        subgoal: SubGoal,
        error: str | None,
    ) -> Outcome:
        action = proposal.action
        if error:
            return Outcome(OutcomeStatus.FAILURE, f"the action was refused: {error}")
        if before.fingerprint == after.fingerprint and action.type not in _EXPECTED_NO_CHANGE:
            return Outcome(OutcomeStatus.NO_EFFECT, "the screen did not change")
        if proposal.expect_node and after.node_id == proposal.expect_node:
            return Outcome(OutcomeStatus.SUCCESS, f"reached {after.node_id} as expected")
        expected_app = proposal.expect_app
        if (
            action.type in _NAVIGATING
            and expected_app
            and after.app
            and after.app != expected_app
            and after.app != before.app
        ):
            # A graph state seen under two node ids is common; a tap that lands in the wrong
            # app is not, and is the one mistake worth undoing at once.
            return Outcome(
                OutcomeStatus.FAILURE,
                f"expected to be in {expected_app} but reached {after.app}",
                recovery=Action(ActionType.PRESS_BACK),
            )
        if (
            action.type in _NAVIGATING
            and subgoal.app is not None
            and before.app == subgoal.app
            and after.app not in (subgoal.app, None)
            and not proposal.expect_app  # the graph said where this goes: checked above
        ):
            return Outcome(
                OutcomeStatus.FAILURE,
                f"the tap left {subgoal.app} for {after.app}",
                recovery=Action(ActionType.PRESS_BACK),
            )
        return Outcome(OutcomeStatus.UNCERTAIN, "the screen changed; nothing to check it against")
