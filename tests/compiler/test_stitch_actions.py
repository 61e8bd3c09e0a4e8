"""A stitched plan does what the task asks and nothing beside it.

The logs hold temperature notes, photos taken and sent to a contact, articles emailed and
plain emails. "Send it to X by email" after reading a temperature is an email to X: the photo
share whose donor said "send it to X", and a text to X that would also type the value, put X a
second time for a task that names X once, and a plan must leave them out. (Before, a photo
went to X beside the email: the task checker passed it, the user would not.)
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from guigraph.agents.loop import Budget, run_episode
from guigraph.agents.team import TeamOptions, rule_team
from guigraph.compiler.index import GraphView
from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.generalize import Half, item_task, packaged
from guigraph.envs.simphone.recorder import record
from guigraph.envs.simphone.tasks import TEMPLATES
from guigraph.graph.from_logs import build_from_logs
from guigraph.graph.kb import KnowledgeBase

RECORDED = ("multi.weather_note", "multi.photo_share", "multi.article_mail", "social.mail")
SEEDS = (3201, 3202, 3203, 3204)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def kb_view(tmp_path_factory: pytest.TempPathFactory) -> tuple[KnowledgeBase, GraphView]:
    root = tmp_path_factory.mktemp("actions")
    record(root / "logs", 60, seed=5, holdout=[t for t in TEMPLATES if t not in RECORDED])
    build_from_logs(root / "logs", root / "kb")
    kb = KnowledgeBase.open(root / "kb")
    return kb, GraphView.load(kb)


def test_a_value_sent_once_is_sent_once_in_the_app_the_task_names(
    kb_view: tuple[KnowledgeBase, GraphView],
) -> None:
    pairing = next(i for i in packaged().half(Half.DEV) if i.item_id == "pair.temperature_mail#1")
    # Its wording with the recorded word for the value: "how warm" is a synonym no run shows.
    item = replace(
        pairing, wording="Check the temperature in {city} and send it to {contact} by email"
    )
    kb, view = kb_view
    solved, both = [], []
    for seed in SEEDS:
        env = SimPhone()
        team = rule_team(kb, view, TeamOptions())
        result = run_episode(
            env, team, item_task(item, seed), seed=seed, budget=Budget(max_steps=40)
        )
        verdict = env.evaluate()
        solved.append(verdict is not None and verdict.success)
        apps = {step.app for step in result.steps}
        both.append({"Gallery", "Mail"} <= apps)
        env.close()
    # Measured 3/4: with no recorded email that types a read value, one plan shares a photo.
    assert sum(solved) >= 3, solved
    assert not any(both), both  # never a photo share beside the email
