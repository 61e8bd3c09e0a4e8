"""Assembling a team: which implementation plays each role, from the run's options.

``rule_team`` is the embedded default (no model): graph RAG for context, the graph policy as
planner and decider, and the rule observer, verifier, narrator and outcome check. The options
are the ablations of the paper and issue: ``memory`` graph|trace, ``history``
narrative|atomic, ``verify`` always|never, ``use_graph`` False for no retrieval at all.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from guigraph.agents.loop import Locator, Team
from guigraph.agents.memory import FocusMemory
from guigraph.agents.narrator import AtomicNarrator, RuleNarrator
from guigraph.agents.observer import RuleObserver
from guigraph.agents.outcome import RuleOutcomeChecker
from guigraph.agents.roles import Feedback, HistoryEntry, Plan, Proposal, SemanticState, SubGoal
from guigraph.agents.verifier import ApproveAll, RuleVerifier
from guigraph.choices import History, Memory, Verify, choose
from guigraph.compiler import fillers
from guigraph.compiler.fillers import SlotFiller
from guigraph.compiler.index import GraphView
from guigraph.compiler.policy import GraphDecider, GraphPlanner, GraphPolicy
from guigraph.types import Action, ActionType, Task

if TYPE_CHECKING:
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.retrieval.context import Context


@dataclass(frozen=True)
class TeamOptions:
    memory: Memory = Memory.GRAPH
    history: History = History.NARRATIVE
    verify: Verify = Verify.ALWAYS
    use_graph: bool = True
    top_k: int = 8
    token_budget: int = 1500

    def __post_init__(self) -> None:
        # Names read from a results file or a manifest arrive as strings: each becomes its
        # member, or a ConfigError naming the option. No model, so no adaptive verifier.
        object.__setattr__(self, "memory", choose(Memory, self.memory, "memory"))
        object.__setattr__(self, "history", choose(History, self.history, "history"))
        verify = choose(Verify, self.verify, "verify", (Verify.ALWAYS, Verify.NEVER))
        object.__setattr__(self, "verify", verify)


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


def rule_team(
    kb: KnowledgeBase | None, view: GraphView | None, options: TeamOptions,
    filler: SlotFiller | None = None,
) -> Team:  # fmt: skip
    """A fresh team for one episode (the policy holds the episode's cursor). ``filler``
    fills the recorded slots for the task (default: the typed rules)."""
    from guigraph.retrieval.context import retrieve_said

    use_graph = options.use_graph and kb is not None and view is not None
    policy = GraphPolicy(view, mode=options.memory, filler=filler) if use_graph and view else None

    def context(task: Task) -> Context | None:
        if not use_graph or kb is None or view is None:
            return None
        with fillers.using(filler):  # the task as make_plan reads it
            return retrieve_said(
                kb, task.instruction, k=options.top_k, token_budget=options.token_budget,
                graph=view,
            )  # fmt: skip

    planner = GraphPlanner(policy) if policy else _NoPlan()
    return Team(
        planner=planner,
        subgoals=planner,
        observer=RuleObserver(),
        decider=GraphDecider(policy) if policy else _GiveUp(),
        verifier=RuleVerifier() if options.verify is Verify.ALWAYS else ApproveAll(),
        narrator=RuleNarrator() if options.history is History.NARRATIVE else AtomicNarrator(),
        outcome=RuleOutcomeChecker(),
        context=context,
        locate=kb_locator(kb) if use_graph and kb is not None else None,
        apps=known_apps(view) if use_graph and view is not None else (),
        id_owners=id_owners(view) if use_graph and view is not None else {},
        **app_names_of(kb if use_graph else None),
    )


def app_names_of(kb: KnowledgeBase | None) -> dict[str, Any]:
    """The team's ``app_aliases`` and ``remember_app_names`` for ``kb`` (none without one)."""
    if kb is None:
        return {}
    aliases, remember = app_name_memory(kb)
    return {"app_aliases": aliases, "remember_app_names": remember}


def app_name_memory(
    kb: KnowledgeBase,
) -> tuple[Mapping[str, Sequence[str]], Callable[[Mapping[str, str]], object]]:
    """The other names ``kb`` learned for its apps, and how to keep new ones: a KB that is
    not writable (a read-only folder) keeps nothing, says so once, and the run goes on."""
    import sqlite3

    def remember(names: Mapping[str, str]) -> object:
        try:
            return kb.remember_app_names(names)
        except sqlite3.Error as exc:
            if not failed:
                logging.getLogger(__name__).warning(
                    "%s: the apps' other names were not kept (%s)", kb.path, exc
                )
            failed.append(exc)
            return False

    failed: list[sqlite3.Error] = []
    return kb.app_names(), remember


def id_owners(view: GraphView) -> dict[str, str]:
    """App -> the app part of its element ids on the graph's screens (``shop`` of
    ``shop:id/price``), where one part is that app's alone."""
    owners: dict[str, list[str]] = {}
    for owner, app in view.id_apps.items():
        if owner and ":" not in owner and "/" not in owner:
            owners.setdefault(app, []).append(owner)
    return {app: found[0] for app, found in owners.items() if len(found) == 1}


def known_apps(view: GraphView) -> tuple[str, ...]:
    """Every app the graph's states are in, as its logs name them (found once per view: a
    team is made for every episode, and a large graph has 100,000 states)."""
    return view.apps


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
