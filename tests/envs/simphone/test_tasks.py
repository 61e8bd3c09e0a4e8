"""The task suite: registry shape, seeded instances, checkers, and expert replays of every
template."""

from __future__ import annotations

from collections import Counter

import pytest

from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.recorder import choose_templates, record_episode, replay, task_seed
from guigraph.envs.simphone.tasks import TEMPLATES, check_success, make_task
from guigraph.envs.simphone.world import World
from guigraph.types import CATEGORIES, ActionType

#: Each template runs on one of these (device, version, noise) setups, in turn.
SETUPS = [
    ("Pixel 7 Pro", 1, 0.0),
    ("Pixel Tablet", 2, 0.3),
    ("Small Phone", 2, 0.15),
    ("Pixel 8 Pro", 1, 0.3),
    ("Pixel Fold", 2, 0.0),
    ("Medium Phone", 1, 0.2),
]


def test_the_suite_covers_every_category() -> None:
    assert len(TEMPLATES) >= 30
    per_category = Counter(t.category for t in TEMPLATES.values())
    assert set(per_category) == set(CATEGORIES)
    assert min(per_category.values()) >= 3
    for tpl in TEMPLATES.values():
        if tpl.category == "Multi_Apps":
            assert 2 <= len(tpl.apps) <= 4, tpl.template_id
        assert len(tpl.phrasings) >= 2, f"{tpl.template_id} needs paraphrases"


def test_recombination_templates_name_real_templates() -> None:
    recombining = [t for t in TEMPLATES.values() if t.recombines]
    assert len(recombining) >= 3
    for tpl in recombining:
        assert all(part in TEMPLATES for part in tpl.recombines)
        assert tpl.template_id not in tpl.recombines


def test_a_seed_gives_the_same_task_and_seeds_vary_it() -> None:
    assert make_task("multi.price_message", 9) == make_task("multi.price_message", 9)
    tasks = {make_task("multi.price_message", seed).instruction for seed in range(8)}
    assert len(tasks) >= 4
    task = make_task("shop.buy", 2)
    assert task.template_id == "shop.buy" and task.category == "Web_Shopping"
    assert task.params["product"] in task.instruction


def test_unknown_template_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"unknown SimPhone template 'shop\.teleport'"):
        make_task("shop.teleport", 0)


@pytest.mark.parametrize("template_id", sorted(TEMPLATES))
def test_checker_is_false_before_the_task_is_done(template_id: str) -> None:
    for seed in (0, 1):
        task = make_task(template_id, seed)
        assert not check_success(task, World(seed)), f"{template_id} is done before starting"


@pytest.mark.parametrize("template_id", sorted(TEMPLATES))
def test_recorded_expert_actions_replay_to_success(template_id: str) -> None:
    index = sorted(TEMPLATES).index(template_id)
    device, version, noise = SETUPS[index % len(SETUPS)]
    recorded = record_episode(
        template_id, seed=3, index=index, device=device, version=version, noise=noise
    )
    assert recorded.succeeded
    actions = recorded.episode.actions
    assert actions[-1].type is ActionType.COMPLETE
    assert ActionType.COMPLETE not in {a.type for a in actions[:-1]}
    env = SimPhone(device, version=version, popup_rate=0.1 + noise)
    replay(env, recorded.task, task_seed(3, index), actions[:-1])
    assert env.task_succeeded()
    assert env.step(actions[-1]).done


def test_a_wrong_replay_fails_the_checker() -> None:
    """Replaying only part of the actions must not pass: the checker reads the state."""
    recorded = record_episode(
        "shop.buy", seed=3, index=0, device="Pixel 7 Pro", version=1, noise=0.0
    )
    env = SimPhone(popup_rate=0.1)
    replay(env, recorded.task, task_seed(3, 0), recorded.episode.actions[:-3])
    assert not env.task_succeeded()


def test_noise_adds_mistakes_that_are_undone() -> None:
    clean = record_episode("multi.weather_note_message", 5, 1, "Pixel 7 Pro", 1, 0.0)
    noisy = record_episode("multi.weather_note_message", 5, 1, "Pixel 7 Pro", 1, 0.6)
    assert noisy.succeeded and clean.succeeded
    assert len(noisy.episode.steps) > len(clean.episode.steps)
    kinds = Counter(a.type for a in noisy.episode.actions)
    assert kinds[ActionType.PRESS_BACK] + kinds[ActionType.SCROLL] > 0


def test_holdout_templates_are_never_chosen() -> None:
    held = ["multi.weather_message", "multi.price_message"]
    chosen = choose_templates(200, seed=1, holdout=held)
    assert not set(chosen) & set(held)
    assert set(chosen) == set(TEMPLATES) - set(held)
    with pytest.raises(ValueError, match="unknown templates"):
        choose_templates(5, seed=1, holdout=["nope"])


@pytest.mark.parametrize("template_id", sorted(TEMPLATES))
def test_checker_scores_a_world_whose_notes_and_events_were_deleted(template_id: str) -> None:
    """The agent may delete what the task is about; the case is then scored, not crashed."""
    task = make_task(template_id, 0)
    world = World(0)
    world.data.notes.clear()
    world.data.events.clear()
    assert check_success(task, world) in (True, False)


def test_sending_a_note_then_deleting_it_still_counts() -> None:
    task = make_task("multi.note_message", 0)
    world = World(0)
    body = next(n.body for n in world.data.notes if n.title == task.params["title"])
    world.data.chats.setdefault(task.params["contact"], []).append(f"Me: {body}")
    world.data.notes.clear()
    assert check_success(task, world)
