"""Knowledge bases recorded from a few templates only, for tests of what the planner makes of
tasks no recorded run shows, and the episodes those tests run on them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from guigraph.agents.loop import Budget, EpisodeResult, run_episode
from guigraph.agents.team import TeamOptions, rule_team
from guigraph.compiler.index import GraphView
from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.recorder import record
from guigraph.envs.simphone.tasks import TEMPLATES
from guigraph.graph.from_logs import build_from_logs
from guigraph.graph.kb import KnowledgeBase
from guigraph.types import Task

KBView = tuple[KnowledgeBase, GraphView]


def kb_of(root: Path, templates: Sequence[str], episodes: int, seed: int) -> KBView:
    """A KB from ``episodes`` recorded runs of ``templates`` alone (every other one held out)."""
    record(root / "logs", episodes, seed=seed, holdout=[t for t in TEMPLATES if t not in templates])
    build_from_logs(root / "logs", root / "kb")
    kb = KnowledgeBase.open(root / "kb")
    return kb, GraphView.load(kb)


def run_task(
    kb_view: KBView, task: Task, seed: int, memory: str = "graph"
) -> tuple[bool, EpisodeResult]:
    """One episode of the rule team on a fresh SimPhone: whether the world's checker passed it."""
    kb, view = kb_view
    env = SimPhone()
    try:
        team = rule_team(kb, view, TeamOptions(memory=memory))
        result = run_episode(env, team, task, seed=seed, budget=Budget(max_steps=40))
        verdict = env.evaluate()
    finally:
        env.close()
    return verdict is not None and verdict.success, result
