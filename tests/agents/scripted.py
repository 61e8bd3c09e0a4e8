"""Test roles: a planner with fixed sub-goals and a decider that follows a label script."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from guigraph.agents.loop import Team
from guigraph.agents.memory import FocusMemory
from guigraph.agents.narrator import RuleNarrator
from guigraph.agents.observer import RuleObserver
from guigraph.agents.outcome import RuleOutcomeChecker
from guigraph.agents.roles import (
    Feedback,
    HistoryEntry,
    Plan,
    Proposal,
    SemanticState,
    SubGoal,
)
from guigraph.agents.verifier import RuleVerifier
from guigraph.types import Action, ActionType, Task

SHOP = SubGoal("search the shop for mouse", app="shop")


class OneGoalPlanner:
    """Done once the results screen shows; until then the single sub-goal is SHOP."""

    def plan(self, task: Task, context: object) -> Plan:
        return Plan((SHOP,))

    def is_complete(
        self, task: Task, plan: Plan, history: Sequence[HistoryEntry], state: SemanticState
    ) -> bool:
        return "Results" in state.texts

    def next_subgoal(
        self, plan: Plan, history: Sequence[HistoryEntry], state: SemanticState, feedback: Feedback
    ) -> SubGoal:
        return plan.subgoals[0]


@dataclass
class ScriptDecider:
    """Proposes ``script`` entries in order: a label to tap, ``type:TEXT``, or an Action.

    It skips entries the feedback banned, and records the feedback it was given.
    """

    script: list[str | Action]
    position: int = 0
    seen_feedback: list[str] = field(default_factory=list)

    def decide(
        self,
        subgoal: SubGoal,
        state: SemanticState,
        history: Sequence[HistoryEntry],
        feedback: Feedback,
        memory: FocusMemory,
    ) -> Proposal:
        self.seen_feedback.extend(feedback.messages)
        if subgoal.final:
            return Proposal(Action(ActionType.COMPLETE))
        while self.position < len(self.script):
            entry = self.script[self.position]
            self.position += 1
            proposal = self._to_proposal(entry, state)
            if proposal.action not in feedback.banned:
                return proposal
        return Proposal(Action(ActionType.IMPOSSIBLE), reason="script exhausted")

    @staticmethod
    def _to_proposal(entry: str | Action, state: SemanticState) -> Proposal:
        if isinstance(entry, Action):
            return Proposal(entry)
        if entry.startswith("type:"):
            return Proposal(Action.type_text(entry[5:]))
        target = state.find(entry)
        if target is None:
            return Proposal(Action.click(999, 999), reason=f"{entry} not found")
        return Proposal(Action.click(target.center.x, target.center.y), target=target)


def make_team(decider: ScriptDecider, **kwargs: object) -> Team:
    planner = OneGoalPlanner()
    return Team(
        planner=planner, subgoals=planner, observer=RuleObserver(), decider=decider,
        verifier=RuleVerifier(), narrator=RuleNarrator(), outcome=RuleOutcomeChecker(),
        **kwargs,  # type: ignore[arg-type]
    )  # fmt: skip
