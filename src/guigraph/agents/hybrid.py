"""Graph-first acting (``--policy hybrid``): the workflow graph acts, the model steps in.

Where the screen is a known graph state and the graph policy has a step for it, the team acts
from the graph with no model call; the model plans once per episode, confirms the end, and
takes over off the graph, after a rejection or a failed outcome, and for values the graph
cannot vouch for. The paper's agents spent five or more calls per step; on templates the graph
has seen, this spends close to none.
"""

from __future__ import annotations

from collections.abc import Sequence

from guigraph.agents.graph_policy import GraphPlanner, GraphPolicy
from guigraph.agents.memory import FocusMemory
from guigraph.agents.model_acting import ModelDecider
from guigraph.agents.model_roles import Briefing, ModelNarrator, ModelPlanner
from guigraph.agents.narrator import RuleNarrator
from guigraph.agents.roles import (
    Feedback,
    HistoryEntry,
    Outcome,
    OutcomeStatus,
    Plan,
    Proposal,
    SemanticState,
    SubGoal,
)
from guigraph.types import Action, ActionType, Task

#: Sources whose proposals need no model check: the graph, and the policy's own safe rules.
TRUSTED = frozenset({"graph", "rule"})
#: What the graph policy's rules may do without the model: wait out a loading screen, dismiss
#: a pop-up, finish a completed script. Its blind back/home when lost is left to the model.
_RULE_ACTIONS = {ActionType.WAIT, ActionType.CLICK, ActionType.COMPLETE}
#: Graph proposals per step before the model decides (a rule rejection gets one retry).
GRAPH_TRIES = 2


class HybridPlanner:
    """The graph's plan when it agrees with the model's; the model's completion decision."""

    def __init__(self, graph: GraphPlanner, model: ModelPlanner):
        self.graph, self.model = graph, model
        self.on_graph = False

    @property
    def policy(self) -> GraphPolicy:
        return self.graph.policy

    def plan(self, task: Task, context: object) -> Plan:
        model_plan = self.model.plan(task, context)
        graph_plan = self.graph.plan(task, context)
        self.on_graph = bool(graph_plan.subgoals) and _same_apps(graph_plan, model_plan)
        why = "graph plan agrees with the model's" if self.on_graph else "model plan"
        rationale = f"{why}: {graph_plan.rationale if self.on_graph else model_plan.rationale}"
        chosen = graph_plan if self.on_graph else model_plan
        return Plan(chosen.subgoals, rationale=rationale)

    def is_complete(
        self, task: Task, plan: Plan, history: Sequence[HistoryEntry], state: SemanticState
    ) -> bool:
        self.model.briefing.step = len(history)
        if self.on_graph:
            # Move the policy's cursor past its last step now, not at its next decision, so
            # that this step's sub-goal (and the verifier's app check) is the current one.
            self.policy._advance(history)
            if not self.policy.done:
                return False
        done = self.model.is_complete(task, plan, history, state)
        if not done and self.on_graph:
            # The script ran out but the model sees unfinished work: hand over for good.
            self.on_graph = False
        return done

    def next_subgoal(
        self, plan: Plan, history: Sequence[HistoryEntry], state: SemanticState, feedback: Feedback
    ) -> SubGoal:
        if self.on_graph:
            return self.graph.next_subgoal(plan, history, state, feedback)
        return self.model.next_subgoal(plan, history, state, feedback)


def _same_apps(graph_plan: Plan, model_plan: Plan) -> bool:
    """The two plans visit the same apps in the same order (a model plan naming none agrees)."""
    model_apps = _app_sequence(model_plan)
    return not model_apps or _app_sequence(graph_plan) == model_apps


def _app_sequence(plan: Plan) -> list[str]:
    apps: list[str] = []
    for goal in plan.subgoals:
        app = (goal.app or "").strip().lower()
        if app and (not apps or apps[-1] != app):
            apps.append(app)
    return apps


class HybridDecider:
    def __init__(self, planner: HybridPlanner, model: ModelDecider):
        self.planner, self.model = planner, model
        self.graph_steps = 0
        self.model_steps = 0
        self._step, self._graph_tries = -1, 0

    def decide(
        self,
        subgoal: SubGoal,
        state: SemanticState,
        history: Sequence[HistoryEntry],
        feedback: Feedback,
        memory: FocusMemory,
    ) -> Proposal:
        if len(history) != self._step:
            self._step, self._graph_tries = len(history), 0
        if self.planner.on_graph and _went_wrong(history):
            # The graph's step failed or did nothing: its script misled the team here, and
            # mixing its stale cursor with the model's repairs would undo them.
            self.planner.on_graph = False
        if self.planner.on_graph and subgoal.final and not feedback:
            return Proposal(Action(ActionType.COMPLETE), reason="the model confirmed the end")
        if self.planner.on_graph and not subgoal.final and self._graph_tries < GRAPH_TRIES:
            # A rule rejection is the graph's to fix first: its sub-goal lags its cursor.
            self._graph_tries += 1
            proposal = self.planner.policy.decide(state, history, feedback, memory)
            if self._vouched(proposal, state, memory):
                self.graph_steps += 1
                return proposal
        self.model_steps += 1
        return self.model.decide(subgoal, state, history, feedback, memory)

    def _vouched(self, proposal: Proposal, state: SemanticState, memory: FocusMemory) -> bool:
        """A graph step on a localized screen, or one of the policy's safe rules; typed text
        only when the task or focus memory holds it (slot values are the graph's weak spot)."""
        action = proposal.action
        if proposal.source == "graph":
            if not self._resumable(state):
                return False
            if state.node_id is None and action.type is not ActionType.TYPE:
                return proposal.target is not None  # grounded on this very screen
            if action.type is ActionType.TYPE:
                return _known_text(action.text or "", self.model.briefing, memory)
            return True
        return proposal.source == "rule" and action.type in _RULE_ACTIONS

    def _resumable(self, state: SemanticState) -> bool:
        """Once the model has acted, the graph resumes only at a script step whose state the
        screen is on: its routes back to a stale cursor would undo the model's progress."""
        if self.model_steps == 0:
            return True
        policy = self.planner.policy
        if policy.pending is None or policy.pending[0] is None:
            return False
        node = policy.script[policy.pending[0]].node
        return state.node_id is not None and state.node_id == str(node)


def _went_wrong(history: Sequence[HistoryEntry]) -> bool:
    return bool(history) and history[-1].outcome.status in (
        OutcomeStatus.FAILURE,
        OutcomeStatus.NO_EFFECT,
    )


def _known_text(text: str, briefing: Briefing, memory: FocusMemory) -> bool:
    wanted = text.strip().lower()
    if not wanted:
        return False
    if wanted in briefing.instruction.lower():
        return True
    return any(wanted == v.value.strip().lower() for v in memory.values.values())


class HybridNarrator:
    """The rule sentence for steps the graph vouched for, the model's for the others."""

    def __init__(self, model: ModelNarrator):
        self.model, self.rule = model, RuleNarrator()

    def narrate(
        self,
        before: SemanticState,
        action: Action,
        after: SemanticState,
        subgoal: SubGoal,
        outcome: Outcome,
    ) -> str:
        narrator = self.rule if self.model.client.briefing.last_source in TRUSTED else self.model
        return narrator.narrate(before, action, after, subgoal, outcome)
