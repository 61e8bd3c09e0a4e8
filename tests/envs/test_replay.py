"""ReplayEnv: a recorded episode played back teacher-forced, read from the GUIOdyssey layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from guigraph.data.odyssey import OdysseyDataset
from guigraph.envs.check import check_env, observation_fingerprint
from guigraph.envs.replay import ReplayEnv
from guigraph.envs.simphone.recorder import record
from guigraph.errors import EnvError
from guigraph.types import Action, ActionType, Episode, ScrollDirection


@pytest.fixture(scope="module")
def episodes(tmp_path_factory: pytest.TempPathFactory) -> list[Episode]:
    out = tmp_path_factory.mktemp("replay_logs")
    summary = record(out, episodes=3, seed=2, noise=0.0)
    assert not summary.failures
    dataset = OdysseyDataset(out)  # the same reader a real GUIOdyssey download goes through
    return [dataset.load(i) for i in dataset.episode_ids()]


@pytest.fixture
def episode(episodes: list[Episode]) -> Episode:
    return max(episodes, key=lambda e: len(e.steps))


def test_replay_env_passes_check_env(episodes: list[Episode]) -> None:
    for episode in episodes:
        check_env(lambda e=episode: ReplayEnv(e), ReplayEnv.task_of(episode), seed=3)


def test_every_step_shows_the_recorded_next_screen_whatever_the_agent_did(
    episode: Episode,
) -> None:
    env = ReplayEnv(episode)
    first = env.reset(ReplayEnv.task_of(episode), seed=0)
    assert observation_fingerprint(first) == observation_fingerprint(episode.steps[0].observation)
    wrong = Action.scroll(ScrollDirection.DOWN)
    for index in range(len(episode.steps) - 1):
        result = env.step(wrong)
        expected = episode.steps[index + 1].observation
        assert observation_fingerprint(result.observation) == observation_fingerprint(expected)
        assert not result.done and result.error is None
        assert result.info["executed"] == episode.steps[index].action
    last = env.step(Action(ActionType.COMPLETE))
    assert last.done
    assert [p.step for p in env.predictions] == list(range(len(episode.steps)))
    assert [p.ground_truth for p in env.predictions] == list(episode.actions)
    assert env.predictions[0].action == wrong
    assert env.predictions[-1].action == Action(ActionType.COMPLETE)


def test_a_step_after_the_end_is_refused_and_predicts_nothing(episode: Episode) -> None:
    env = ReplayEnv(episode)
    env.reset(ReplayEnv.task_of(episode), seed=0)
    for _ in episode.steps:
        env.step(Action(ActionType.PRESS_BACK))
    after = env.step(Action(ActionType.PRESS_BACK))
    assert after.done and after.error is not None and "over" in after.error
    assert len(env.predictions) == len(episode.steps)


def test_an_action_outside_the_space_is_an_error_but_still_the_steps_prediction(
    episode: Episode,
) -> None:
    env = ReplayEnv(episode)
    env.reset(ReplayEnv.task_of(episode), seed=0)
    result = env.step(Action.open_app("clock"))
    assert result.error is not None and "open_app" in result.error
    assert env.predictions[0].action == Action.open_app("clock")
    second = episode.steps[1].observation
    assert observation_fingerprint(result.observation) == observation_fingerprint(second)


def test_reset_starts_over_and_checks_the_task(episode: Episode) -> None:
    env = ReplayEnv(episode)
    task = ReplayEnv.task_of(episode)
    env.reset(task, seed=0)
    env.step(Action.click(10, 10))
    env.reset(task, seed=1)
    assert env.predictions == []
    with pytest.raises(EnvError, match="was reset with task 'other'"):
        env.reset(type(task)("other", "do something else"), seed=0)


def test_step_before_reset_and_empty_episodes_are_errors(episode: Episode) -> None:
    with pytest.raises(EnvError, match="before reset"):
        ReplayEnv(episode).step(Action(ActionType.COMPLETE))
    empty = Episode("e0", "nothing", "General_Tool", episode.device, ())
    with pytest.raises(EnvError, match="e0 has no steps"):
        ReplayEnv(empty)


def test_task_of_carries_the_instruction_and_nothing_of_the_answer(episode: Episode) -> None:
    task = ReplayEnv.task_of(episode)
    assert (task.task_id, task.instruction, task.category) == (
        episode.episode_id,
        episode.instruction,
        episode.category,
    )
    assert not task.params and not task.template_id


def test_the_episode_is_read_from_files(episode: Episode) -> None:
    path = episode.steps[0].observation.screenshot_path
    assert path is not None and Path(path).is_file()
