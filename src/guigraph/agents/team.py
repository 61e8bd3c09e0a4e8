"""Assembling a team: which implementation plays each role, from the run's options.

``rule_team`` is the embedded default (no model): graph RAG for context, the graph policy as
planner and decider, and the rule observer, verifier, narrator and outcome check. The options
are the ablations of the paper and issue: ``memory`` graph|trace, ``history``
narrative|atomic, ``verify`` always|never, ``use_graph`` False for no retrieval at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from guigraph.agents.loop import Locator, Team
from guigraph.agents.memory import FocusMemory
from guigraph.agents.narrator import AtomicNarrator, RuleNarrator
from guigraph.agents.observer import RuleObserver
from guigraph.agents.outcome import RuleOutcomeChecker
from guigraph.agents.roles import Feedback, HistoryEntry, Plan, Proposal, SemanticState, SubGoal
from guigraph.agents.verifier import ApproveAll, RuleVerifier
from guigraph.compiler.index import GraphView
from guigraph.compiler.policy import GraphDecider, GraphPlanner, GraphPolicy
from guigraph.errors import ConfigError
from guigraph.types import Action, ActionType, Task

if TYPE_CHECKING:
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.retrieval.context import Context

MEMORIES = ("graph", "trace")
HISTORIES = ("narrative", "atomic")
VERIFY_MODES = ("always", "never")


@dataclass(frozen=True)
class TeamOptions:
    memory: str = "graph"
    history: str = "narrative"
    verify: str = "always"
    use_graph: bool = True
    top_k: int = 8
    token_budget: int = 1500

    def __post_init__(self) -> None:
        for name, value, allowed in (
            ("memory", self.memory, MEMORIES),
            ("history", self.history, HISTORIES),
            ("verify", self.verify, VERIFY_MODES),
        ):
            if value not in allowed:
                raise ConfigError(f"--{name} must be one of {', '.join(allowed)}, got {value!r}")


def kb_locator(kb: KnowledgeBase) -> Locator:
    """Where am I in the graph: the KB's own top-4 + dual-threshold check, as the build uses."""
    from guigraph.graph.matcher import DualThresholdVerifier, StateMatcher, describe
    from guigraph.graph.screen import ScreenView

    matcher = StateMatcher(kb.state_index, DualThresholdVerifier(kb.settings.match))

    def locate(state: SemanticState) -> tuple[str | None, float]:
        view = ScreenView(state.observation, "", kb.settings.use_ui)
        descriptor = describe([view], kb.encoder)[0]
        match = matcher.match(view, descriptor)
        return (str(match.node_id), match.score) if match else (None, 0.0)

    return locate


def rule_team(kb: KnowledgeBase | None, view: GraphView | None, options: TeamOptions) -> Team:
    """A fresh team for one episode (the policy holds the episode's cursor)."""
    from guigraph.retrieval.context import retrieve

    use_graph = options.use_graph and kb is not None and view is not None
    policy = GraphPolicy(view, mode=options.memory) if use_graph and view else None

    def context(task: Task) -> Context | None:
        if not use_graph or kb is None:
            return None
        return retrieve(
            kb, task.instruction, k=options.top_k, token_budget=options.token_budget,
            graph=view,
        )  # fmt: skip

    planner = GraphPlanner(policy) if policy else _NoPlan()
    return Team(
        planner=planner,
        subgoals=planner,
        observer=RuleObserver(),
        decider=GraphDecider(policy) if policy else _GiveUp(),
        verifier=RuleVerifier() if options.verify == "always" else ApproveAll(),
        narrator=RuleNarrator() if options.history == "narrative" else AtomicNarrator(),
        outcome=RuleOutcomeChecker(),
        context=context,
        locate=kb_locator(kb) if use_graph and kb is not None else None,
    )


class _NoPlan:
    """Without the graph the model-free team has nothing to plan from."""

    def plan(self, task: Task, context: object) -> Plan:
        return Plan((), rationale="no graph: nothing to plan from")

    def is_complete(
        self, task: Task, plan: Plan, history: Sequence[HistoryEntry], state: SemanticState
    ) -> bool:
        return False

    def next_subgoal(
        self, plan: Plan, history: Sequence[HistoryEntry], state: SemanticState, feedback: Feedback
    ) -> SubGoal:
        return SubGoal("carry out the task")


class _GiveUp:
    def decide(
        self,
        subgoal: SubGoal,
        state: SemanticState,
        history: Sequence[HistoryEntry],
        feedback: Feedback,
        memory: FocusMemory,
    ) -> Proposal:
        return Proposal(Action(ActionType.IMPOSSIBLE), reason="no graph and no model")
