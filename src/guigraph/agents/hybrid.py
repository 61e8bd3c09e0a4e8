"""Graph-first acting (``--policy hybrid``): the workflow graph acts, the model steps in.

Where the screen is a known graph state and the graph policy has a step for it, the team acts
from the graph with no model call; the model plans once per episode, confirms the end, types
the values (slot filling is the graph's weak spot), and takes over off the graph or after a
failed step. The paper's agents spent five or more calls per step; on templates the graph has
seen this spends under two (BENCHMARKS.md). Rules: docs/model_team.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from guigraph.agents.memory import FocusMemory
from guigraph.agents.model_acting import ModelDecider
from guigraph.agents.model_roles import ModelNarrator, ModelPlanner
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
from guigraph.compiler.policy import GraphPlanner, GraphPolicy
from guigraph.types import Action, ActionType, Task

#: Sources whose proposals need no model check: the graph, and the policy's own safe rules.
TRUSTED = frozenset({"graph", "rule"})
#: What the graph policy's rules may do without the model: wait out a loading screen, dismiss
#: a pop-up, finish a completed script. Its blind back/home when lost is left to the model.
_RULE_ACTIONS = {ActionType.WAIT, ActionType.CLICK, ActionType.COMPLETE}
_TASK_DIALOG_LABELS = {"cancel", "close"}
_LEAVING = {ActionType.PRESS_HOME, ActionType.PRESS_RECENT, ActionType.OPEN_APP}
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
        if not _same_apps(graph_plan, model_plan):
            # The graph's best guess goes elsewhere: another recorded way through the apps the
            # model names keeps the task on the graph.
            graph_plan = self.policy.follow_apps(model_plan.apps()) or graph_plan
        graph_plan = _trimmed(self.policy, graph_plan, model_plan)
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
            self.policy.advance(history)
            if not self.policy.done and self.model.briefing.last_source in ("", *TRUSTED):
                return False  # the graph's own step: its script says whether it is done
        done = self.model.is_complete(task, plan, history, state)
        if not done and self.on_graph and self.policy.done:
            # The script ran out but the model sees unfinished work: hand over for good.
            self.on_graph = False
        return done

    def next_subgoal(
        self, plan: Plan, history: Sequence[HistoryEntry], state: SemanticState, feedback: Feedback
    ) -> SubGoal:
        if self.on_graph and self.model.briefing.last_source in ("", *TRUSTED):
            return self.graph.next_subgoal(plan, history, state, feedback)
        # After a model step the policy's cursor may lag the screen, and so would its sub-goal
        # (and the verifier's app check); the model's progress reply is already at hand.
        return self.model.next_subgoal(plan, history, state, feedback)


def _trimmed(policy: GraphPolicy, graph_plan: Plan, model_plan: Plan) -> Plan:
    """Cut a graph plan that goes on to apps past the model's (a stitch's overreach): the
    script stops where the model's last app is done, before leaving it for the next one."""
    model_apps, graph_apps = model_plan.apps(), graph_plan.apps()
    if not model_apps or len(graph_apps) <= len(model_apps):
        return graph_plan
    if graph_apps[: len(model_apps)] != model_apps:
        return graph_plan
    seen: list[str] = []
    script = policy.script
    for index, step in enumerate(script):
        app = (step.app or "").strip().lower()
        if step.home or not app or (seen and seen[-1] == app):
            continue
        if len(seen) == len(model_apps):
            end = index
            while end and (script[end - 1].home or script[end - 1].template.type in _LEAVING):
                end -= 1
            policy.end_before(end)
            break
        seen.append(app)
    goals = [g for g in graph_plan.subgoals if (g.app or "").strip().lower() in model_apps]
    return Plan(tuple(goals), rationale=f"{graph_plan.rationale}, cut after {model_apps[-1]}")


def _same_apps(graph_plan: Plan, model_plan: Plan) -> bool:
    """The two plans visit the same apps in the same order (a model plan naming none agrees)."""
    model_apps = model_plan.apps()
    return not model_apps or graph_plan.apps() == model_apps


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
            if proposal.source == "graph" and proposal.action.type is ActionType.TYPE:
                # Slot values are the graph's weak spot: the model types (a model step).
                self.model_steps += 1
                typed = self.model.decide(subgoal, state, history, feedback, memory)
                return self._check_value(proposal, typed)
            if self._vouched(proposal, state):
                self.graph_steps += 1
                return proposal
        self.model_steps += 1
        return self.model.decide(subgoal, state, history, feedback, memory)

    def _check_value(self, proposal: Proposal, typed: Proposal) -> Proposal:
        """The graph's typing step against the model's (``typed``): slot values are the
        graph's weak spot ("Call" for "Call mom", an empty price). When the model types what
        the graph would, or types nothing, the step stays a graph step."""
        if typed.action == proposal.action:
            return proposal
        if typed.action.type is not ActionType.TYPE:
            # The model was asked for a value and gave none (a small model declares the task
            # impossible at a field the graph has reached): the graph's step stands.
            return proposal
        # The graph's step with the model's value: the script moves on once it is typed.
        self.planner.policy.take_value(typed.action)
        return typed

    def _vouched(self, proposal: Proposal, state: SemanticState) -> bool:
        """A graph step on a localized screen (or grounded on an element of this very screen)
        where the graph may resume, or one of the policy's safe rules."""
        if proposal.source == "graph":
            if not self._resumable(state):
                return False
            return state.node_id is not None or proposal.target is not None
        if proposal.source != "rule" or proposal.action.type not in _RULE_ACTIONS:
            return False
        if proposal.action.type is ActionType.CLICK:
            # A pop-up's "Cancel" may be the task's own dialog (a playlist or share picker).
            label = proposal.target.label.strip().lower() if proposal.target else ""
            return bool(label) and label not in _TASK_DIALOG_LABELS
        return True

    def _resumable(self, state: SemanticState) -> bool:
        """Once the model has acted, the graph resumes only at a script step whose state the
        screen is on: its routes back to a stale cursor would undo the model's progress."""
        if self.model_steps == 0:
            return True
        node = self.planner.policy.pending_state()
        return node is not None and state.node_id is not None and state.node_id == str(node)


def _went_wrong(history: Sequence[HistoryEntry]) -> bool:
    """The last step failed or did nothing (looking past the recovery step a failure adds)."""
    trouble = (OutcomeStatus.FAILURE, OutcomeStatus.NO_EFFECT)
    return any(entry.outcome.status in trouble for entry in history[-2:])


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
