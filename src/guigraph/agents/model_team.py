"""Assembling a model-backed team for one episode: who acts, who verifies, what is shared.

``model_team(kb, view, hub, ModelTeamOptions(...))`` builds a fresh ``Team`` per episode (the
graph policy and the roles' briefing hold the episode's state). ``policy`` picks who acts:

- ``model``: the paper's team, every role an MLLM (observer's element list by rule);
- ``graph``: the model-free graph policy acts, the model only verifies (per ``verify``);
- ``hybrid``: graph-first acting, the model off the graph (see ``agents.hybrid``).

``verify`` is ``always`` (rule checks, then the model on every proposal), ``adaptive`` (the
model only for proposals the graph or a rule does not vouch for) or ``never`` (no verifier;
invalid replies are still sent back). Per-role model settings come from the hub's
``RoleModels``; role names: planner, progress, observer, decider, verifier, narrator, outcome.
``team`` mga builds MGA's team instead (``agents.mga``: roles planner, grounder, memory).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from guigraph.agents.hybrid import TRUSTED, HybridDecider, HybridNarrator, HybridPlanner
from guigraph.agents.loop import Team
from guigraph.agents.model_acting import (
    LayeredVerifier,
    ModelDecider,
    ModelOutcomeChecker,
    ModelVerifier,
    ReplyGuard,
)
from guigraph.agents.model_roles import (
    Briefing,
    ModelNarrator,
    ModelObserver,
    ModelPlanner,
    RoleClient,
    ScreenText,
)
from guigraph.agents.narrator import AtomicNarrator, RuleNarrator
from guigraph.agents.observer import RuleObserver
from guigraph.agents.outcome import RuleOutcomeChecker
from guigraph.agents.roles import Narrator, Observer, Verifier
from guigraph.agents.team import app_names_of, id_owners, kb_locator, known_apps
from guigraph.agents.verifier import RuleVerifier
from guigraph.choices import History, Memory, Policy, TeamDesign, Verify, choose
from guigraph.compiler.index import GraphView
from guigraph.compiler.policy import GraphDecider, GraphPlanner, GraphPolicy
from guigraph.compiler.script import is_home
from guigraph.errors import ConfigError
from guigraph.types import ActionType, Task

if TYPE_CHECKING:
    from guigraph.agents.grounding import GroundingCounts
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.llm.hub import ModelHub
    from guigraph.retrieval.context import Context

ROLES = ("planner", "progress", "observer", "decider", "verifier", "narrator", "outcome")
#: The roles of MGA's team (``agents.mga.MGA_ROLES``).
MGA_ROLES = ("planner", "grounder", "memory", "observer")


@dataclass(frozen=True)
class ModelTeamOptions:
    policy: Policy = Policy.MODEL
    verify: Verify = Verify.ALWAYS
    memory: Memory = Memory.GRAPH  # the graph policy's mode
    history: History = History.NARRATIVE
    use_graph: bool = True
    top_k: int = 4
    token_budget: int = 600
    screenshots: bool = True
    describe_screens: bool = False  # a model description of each screen for the decider
    action_space: Collection[ActionType] = field(default_factory=lambda: frozenset(ActionType))
    max_attempts: int = 4
    team: TeamDesign = TeamDesign.GUIGRAPH

    def __post_init__(self) -> None:
        # Names from a manifest or a bench script arrive as strings: each becomes its member.
        for name, kind in (
            ("policy", Policy), ("verify", Verify), ("memory", Memory), ("history", History),
            ("team", TeamDesign),
        ):  # fmt: skip
            object.__setattr__(self, name, choose(kind, getattr(self, name), name))
        if self.max_attempts < 1:
            raise ConfigError(f"max_attempts must be >= 1, got {self.max_attempts}")
        if self.policy is not Policy.MODEL and not self.use_graph:
            raise ConfigError(f"--policy {self.policy} needs the graph (use_graph)")
        if self.team is TeamDesign.MGA and self.policy is not Policy.MODEL:
            raise ConfigError(f"--team mga is a model team: use --policy model, not {self.policy}")

    @property
    def roles(self) -> tuple[str, ...]:
        """The hub roles this team calls."""
        return MGA_ROLES if self.team is TeamDesign.MGA else ROLES


def graph_context(
    kb: KnowledgeBase | None, view: GraphView | None, options: ModelTeamOptions, briefing: Briefing
) -> Callable[[Task], Context | None]:
    """The team's context step: graph RAG on the task (none without a KB), its text kept in
    the briefing every role's prompt reads."""
    from guigraph.retrieval.context import retrieve

    def context(task: Task) -> Context | None:
        # The loop asks for the context first: every role's prompt names the task from here on.
        briefing.task, briefing.episode, briefing.step = task, task.task_id, 0
        if kb is None or view is None:
            return None
        found = retrieve(
            kb, task.instruction, k=options.top_k, token_budget=options.token_budget,
            graph=view,
        )  # fmt: skip
        briefing.context_text = found.text or briefing.context_text
        return found

    return context


def model_team(
    kb: KnowledgeBase | None,
    view: GraphView | None,
    hub: ModelHub,
    options: ModelTeamOptions,
    grounding: GroundingCounts | None = None,
) -> Team:
    """A fresh team for one episode (``grounding``: what MGA's grounding step did, added up)."""
    if options.team is TeamDesign.MGA:
        from guigraph.agents.mga import mga_team

        return mga_team(kb, view, hub, options, grounding)
    use_graph = options.use_graph and kb is not None and view is not None
    if options.policy is not Policy.MODEL and (kb is None or view is None):
        raise ConfigError(f"--policy {options.policy} needs a knowledge base")
    briefing = Briefing()
    screen_text = ScreenText()  # OCR of tree-less screens, shared by the roles (text-only)

    def client(role: str) -> RoleClient:
        return RoleClient(hub.client(role), role, briefing, options.screenshots, screen_text)

    context = graph_context(kb if use_graph else None, view, options, briefing)

    observer = ModelObserver(client("observer")) if options.describe_screens else None
    # The hybrid team follows recorded workflows, so its model plans among the KB's apps; the
    # model team alone may need an app nobody recorded, and names any.
    apps = _recorded_apps(view) if options.policy is Policy.HYBRID and view is not None else ()
    model_planner = ModelPlanner(client("planner"), client("progress"), apps)
    model_decider = ModelDecider(client("decider"), options.action_space, observer)
    trusted = TRUSTED if options.verify is Verify.ADAPTIVE else frozenset()
    verifier = _verifier(options.verify, ModelVerifier(client("verifier")), trusted)
    narrator: Narrator = ModelNarrator(client("narrator"))
    planner: ModelPlanner | HybridPlanner | GraphPlanner = model_planner
    decider: ModelDecider | HybridDecider | GraphDecider = model_decider
    outcome_trusted: frozenset[str] = frozenset()
    if options.policy is not Policy.MODEL:
        assert view is not None
        graph_planner = GraphPlanner(GraphPolicy(view, mode=options.memory))
        if options.policy is Policy.GRAPH:
            planner, decider = graph_planner, GraphDecider(graph_planner.policy)
            narrator, outcome_trusted = RuleNarrator(), TRUSTED
        else:
            hybrid = HybridPlanner(graph_planner, model_planner)
            planner, decider = hybrid, HybridDecider(hybrid, model_decider)
            narrator, outcome_trusted = HybridNarrator(ModelNarrator(client("narrator"))), TRUSTED
    if options.history is History.ATOMIC:
        narrator = AtomicNarrator()
    watcher: Observer = observer if observer is not None else RuleObserver()
    outcome = (
        ModelOutcomeChecker(client("outcome"), outcome_trusted)
        if options.policy is not Policy.GRAPH
        else RuleOutcomeChecker()
    )
    return Team(
        planner=planner, subgoals=planner, observer=watcher, decider=decider,
        verifier=verifier, narrator=narrator, outcome=outcome, context=context,
        locate=kb_locator(kb) if use_graph and kb is not None else None,
        max_attempts=options.max_attempts,
        apps=known_apps(view) if use_graph and view is not None else (),
        id_owners=id_owners(view) if use_graph and view is not None else {},
        **app_names_of(kb if use_graph else None),
    )  # fmt: skip


def _recorded_apps(view: GraphView) -> tuple[str, ...]:
    """The apps recorded runs worked in, most used first (the launcher is none)."""
    ranked = sorted(view.app_counts.items(), key=lambda item: (-item[1], item[0]))
    return tuple(app for app, _ in ranked if app and not is_home(app))


def _verifier(mode: Verify, model: ModelVerifier, trusted: frozenset[str]) -> Verifier:
    if mode is Verify.NEVER:
        return ReplyGuard()
    return ReplyGuard(LayeredVerifier(RuleVerifier(), model, trusted))
