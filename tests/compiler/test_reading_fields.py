"""A recorded workflow that reads one field of a screen, asked for another field it passes.

The logs hold lyrics posts (open a song, its lyrics, post the first line on Chirp) and likes,
never a run that reads the artist. "Post on Chirp who sings X" must follow the lyrics post
and carry the artist the player showed on the way, and the player's "Lyrics" button, which
the lyrics tasks talk about, must not be taken for a value the new task has to name.
"""

from __future__ import annotations

import pytest

from guigraph.agents.loop import Budget, run_episode
from guigraph.agents.team import TeamOptions, rule_team
from guigraph.compiler.index import GraphView
from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.generalize import Half, Kind, item_task, packaged
from guigraph.envs.simphone.recorder import record
from guigraph.envs.simphone.tasks import TEMPLATES
from guigraph.graph.from_logs import build_from_logs
from guigraph.graph.kb import KnowledgeBase

RECORDED = ("multi.lyrics_post", "media.like", "social.post")
SEEDS = (3101, 3102, 3103, 3104)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def kb_view(tmp_path_factory: pytest.TempPathFactory) -> tuple[KnowledgeBase, GraphView]:
    root = tmp_path_factory.mktemp("reading")
    record(root / "logs", 60, seed=4, holdout=[t for t in TEMPLATES if t not in RECORDED])
    build_from_logs(root / "logs", root / "kb")
    kb = KnowledgeBase.open(root / "kb")
    return kb, GraphView.load(kb)


def test_who_sings_is_read_off_the_player_a_lyrics_post_passes(
    kb_view: tuple[KnowledgeBase, GraphView],
) -> None:
    benchmark = packaged()
    item = next(
        i for i in benchmark.half(Half.DEV) if i.kind is Kind.PAIRING and "who sings" in i.wording
    )
    kb, view = kb_view
    solved = []
    for seed in SEEDS:
        env = SimPhone()
        team = rule_team(kb, view, TeamOptions())
        run_episode(env, team, item_task(item, seed), seed=seed, budget=Budget(max_steps=40))
        verdict = env.evaluate()
        solved.append(verdict is not None and verdict.success)
        env.close()
    assert sum(solved) >= 3, solved
