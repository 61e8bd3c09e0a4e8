"""``ReplayEnv``: a recorded episode played back teacher-forced, as GUIOdyssey's protocol does.

The official evaluation asks for one prediction per ground-truth step, every time on the
recorded screen: whatever the agent proposed, the next screen is the recorded next screen. So
``step(action)`` keeps the agent's action as the prediction for the current step, then plays
the *recorded* action and returns the recorded next observation. The agent's history is thus
the ground truth's screens by construction. After the last recorded step (the episode's
COMPLETE) the episode is done and the last screen stays on show: a recording has no screen
after its final action.

An action outside the action space (GUIOdyssey has no open_app or wait) is still the
prediction for its step and the recording still advances, but the result carries an error, as
the :class:`~guigraph.envs.base.Env` contract asks.
"""

from __future__ import annotations

from dataclasses import dataclass

from guigraph.envs.base import Env, StepResult
from guigraph.errors import EnvError
from guigraph.types import ODYSSEY_ACTIONS, Action, ActionType, Episode, Observation, Task


@dataclass(frozen=True, slots=True)
class Prediction:
    """What the agent proposed at one recorded step, next to what the recording did."""

    step: int
    action: Action
    ground_truth: Action


class ReplayEnv(Env):
    """One recorded :class:`~guigraph.types.Episode`, replayed with teacher forcing."""

    action_space: frozenset[ActionType] = ODYSSEY_ACTIONS

    def __init__(self, episode: Episode) -> None:
        if not episode.steps:
            raise EnvError(f"episode {episode.episode_id} has no steps to replay")
        self.episode = episode
        self.predictions: list[Prediction] = []
        self._cursor: int | None = None  # index of the recorded step now on screen

    @staticmethod
    def task_of(episode: Episode) -> Task:
        """The task an agent gets for a recorded episode (its instruction, nothing more)."""
        return Task(
            task_id=episode.episode_id,
            instruction=episode.instruction,
            category=episode.category,
            apps=episode.apps,
        )

    @property
    def done(self) -> bool:
        return self._cursor is not None and self._cursor >= len(self.episode.steps)

    def reset(self, task: Task, seed: int) -> Observation:
        """The recorded first screen; ``seed`` changes nothing (a recording is fixed)."""
        if task.task_id != self.episode.episode_id:
            raise EnvError(
                f"ReplayEnv holds episode {self.episode.episode_id}, "
                f"but was reset with task {task.task_id!r}"
            )
        self._cursor = 0
        self.predictions = []
        return self.episode.steps[0].observation

    def step(self, action: Action) -> StepResult:
        if self._cursor is None:
            raise EnvError("ReplayEnv.step called before reset")
        steps = self.episode.steps
        if self.done:
            return StepResult(
                steps[-1].observation,
                done=True,
                info={"step": len(steps)},
                error="the recording is over: no step left to predict",
            )
        index = self._cursor
        truth = steps[index].action
        self.predictions.append(Prediction(index, action, truth))
        self._cursor = index + 1
        last = self._cursor >= len(steps)
        shown = steps[-1].observation if last else steps[self._cursor].observation
        return StepResult(
            shown,
            done=last,
            # ``executed`` is what the world really did: the recorded action, not the agent's.
            info={"step": index, "executed": truth, "predicted": action},
            error=self._refusal(action),
        )

    def _refusal(self, action: Action) -> str | None:
        if action.type in self.action_space:
            return None
        return (
            f"{action.type} is outside the recording's action space "
            f"({', '.join(sorted(self.action_space))}); it counts as this step's prediction"
        )
