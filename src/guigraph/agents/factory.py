"""One place that turns command-line choices into a team factory (``run`` and ``replay``).

``--policy graph`` is the model-free team; ``model`` and ``hybrid`` use the model team on an
OpenAI-compatible server, checked before any episode starts: the team turns failed calls into
feedback, not errors, so a wrong model name would otherwise fail every step quietly.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guigraph.choices import History, Memory, Policy, SlotFilling, TeamDesign, Verify, choose
from guigraph.errors import ConfigError, ModelCallError
from guigraph.types import ActionType

if TYPE_CHECKING:
    from guigraph.agents.grounding import GroundingCounts
    from guigraph.agents.loop import Team
    from guigraph.compiler.fillers import FillerCounts, ModelFiller
    from guigraph.graph.kb import KnowledgeBase
    from guigraph.llm.client import ChatClient
    from guigraph.llm.config import ModelConfig, RoleModels
    from guigraph.llm.hub import ModelHub

MakeTeam = Callable[[Any], "Team"]


def check_served(config: ModelConfig) -> None:
    """Refuse a dead server or a model name it does not serve, naming what it does serve."""
    from guigraph.llm.check import served_models

    try:
        served = served_models(config)
    except ModelCallError as exc:
        raise ConfigError(f"{exc}; check the server with: guigraph model check") from exc
    if config.model not in served:
        raise ConfigError(
            f"model {config.model!r} is not served at {config.base_url} "
            f"(served: {', '.join(served) or 'none'}); check with: guigraph model check"
        )


def team_factory(
    policy: Policy | str,
    kb: KnowledgeBase | None,
    resources: ExitStack,
    *,
    memory: Memory = Memory.GRAPH,
    verify: Verify = Verify.ALWAYS,
    history: History = History.NARRATIVE,
    use_graph: bool = True,
    model: str | None = None,
    base_url: str | None = None,
    action_space: Collection[ActionType] = frozenset(ActionType),
    models: RoleModels | None = None,
    usage_path: Path | None = None,
    slot_filler: SlotFilling | str = SlotFilling.RULE,
    filler_counts: FillerCounts | None = None,
    team: TeamDesign | str = TeamDesign.GUIGRAPH,
    grounding: GroundingCounts | None = None,
) -> tuple[MakeTeam, ModelHub | None]:
    """A function making a fresh team per episode, and the model hub if any (closed with
    ``resources``). The graph view is loaded once and shared; each episode gets its own
    policy cursor. ``models`` (per-role settings, e.g. from ``--model-config``) replaces
    ``model``/``base_url``; ``usage_path`` is rewritten after every model call.
    ``slot_filler`` model: the model-free team's slots are filled by the model (role
    ``slot_filler``), what it did added up in ``filler_counts``. ``team`` mga: MGA's model
    team (``agents.mga``), what its grounding step did added up in ``grounding``."""
    from guigraph.compiler.index import GraphView
    from guigraph.llm.config import ModelConfig, RoleModels

    policy = choose(Policy, policy, "policy")
    team = choose(TeamDesign, team, "team")
    if team is TeamDesign.MGA and policy is not Policy.MODEL:
        raise ConfigError(f"--team mga is a model team: use --policy model, not {policy}")
    slot_filler = choose(SlotFilling, slot_filler, "slot-filler")
    if slot_filler is SlotFilling.MODEL and policy is not Policy.GRAPH:
        raise ConfigError("--slot-filler model fills the graph policy's slots: use --policy graph")
    view = GraphView.load(kb) if kb is not None and use_graph else None
    graph_kb = kb if view is not None else None
    if models is None:
        models = RoleModels(default=ModelConfig(model=model or "", base_url=base_url or ""))
    if policy is Policy.GRAPH:
        from guigraph.agents.team import TeamOptions, rule_team

        options = TeamOptions(memory=memory, verify=verify, history=history, use_graph=use_graph)
        if slot_filler is SlotFilling.MODEL and graph_kb is not None:
            hub = _hub(models, ("slot_filler",), resources, usage_path)
            make_filler = model_fillers(graph_kb, hub.client("slot_filler"), filler_counts)
            return (lambda _: rule_team(graph_kb, view, options, make_filler())), hub
        return (lambda _: rule_team(graph_kb, view, options)), None
    from guigraph.agents.model_team import ModelTeamOptions, model_team

    model_options = ModelTeamOptions(
        policy=policy, verify=verify, memory=memory, history=history, use_graph=use_graph,
        action_space=frozenset(action_space), team=team,
    )  # fmt: skip
    hub = _hub(models, model_options.roles, resources, usage_path)
    return (lambda _: model_team(graph_kb, view, hub, model_options, grounding)), hub


def _hub(
    models: RoleModels, roles: Collection[str], resources: ExitStack, usage_path: Path | None
) -> ModelHub:
    """The models of ``roles``, their servers checked, closed with ``resources``."""
    from guigraph.llm.hub import ModelHub
    from guigraph.llm.model_file import check_roles, resolved

    check_roles(models, roles)
    models = resolved(models)
    servers = {(c.base_url, c.model): c for c in (models.default, *models.roles.values())}
    for config in servers.values():
        check_served(config)
    return resources.enter_context(ModelHub(models, usage_path=usage_path))


def model_fillers(
    kb: KnowledgeBase, client: ChatClient, counts: FillerCounts | None = None
) -> Callable[[], ModelFiller]:
    """A fresh model slot filler per episode, all on ``client`` and the KB's slot types,
    adding up what they do in ``counts``."""
    from guigraph.compiler.fillers import FillerCounts, ModelFiller

    types = kb.slot_types()
    shared = counts if counts is not None else FillerCounts()
    return lambda: ModelFiller(client, types, counts=shared)
