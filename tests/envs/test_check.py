"""check_env on a tiny reference world, and on worlds that break each rule."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from guigraph.envs import Env, StepResult, check_env
from guigraph.envs.check import EnvCheckError
from guigraph.geometry import BBox, ScreenSize
from guigraph.types import Action, ActionType, Observation, Task, UIElement

TASK = Task("t", "press the button")
SCREEN = ScreenSize(60, 120)
TOP_BAR = BBox(0, 0, 1000, 100)
TOO_TALL = BBox(0, 0, 1000, 1001)


def _png(shade: int, size: tuple[int, int] = (60, 120)) -> bytes:
    buffer = io.BytesIO()
    Image.new("L", size, shade).save(buffer, format="PNG")
    return buffer.getvalue()


class CounterWorld(Env):
    """Each click brightens the screen; scrolls and keys do nothing; complete ends it."""

    action_space = frozenset(ActionType) - {ActionType.OPEN_APP}

    def __init__(self) -> None:
        self.count = 0
        self.rng = random.Random()

    def reset(self, task: Task, seed: int) -> Observation:
        self.rng = random.Random(seed)
        self.count = self.rng.randint(0, 5)
        return self._observe()

    def _observe(self, box: BBox = TOP_BAR) -> Observation:
        element = UIElement(box, text=f"count {self.count}", clickable=True)
        return Observation(SCREEN, screenshot=_png(10 * self.count), elements=(element,))

    def step(self, action: Action) -> StepResult:
        if action.type not in self.action_space:
            return StepResult(self._observe(), error=f"{action.type} is not supported")
        if action.type is ActionType.CLICK:
            self.count += 1
        return StepResult(self._observe(), done=action.type is ActionType.COMPLETE)


class RandomWorld(CounterWorld):
    def reset(self, task: Task, seed: int) -> Observation:
        self.rng = random.Random()  # ignores the seed
        self.count = self.rng.randint(0, 10**6)
        return self._observe()


class AcceptsEverything(CounterWorld):
    def step(self, action: Action) -> StepResult:
        return StepResult(self._observe())


class WrongSizeScreenshot(CounterWorld):
    def _observe(self, box: BBox = TOP_BAR) -> Observation:
        return Observation(SCREEN, screenshot=_png(0, (61, 120)))


class ElementOffScreen(CounterWorld):
    def _observe(self, box: BBox = TOO_TALL) -> Observation:
        return super()._observe(box)


class ReturnsObservation(CounterWorld):
    def step(self, action: Action) -> StepResult:
        return self._observe()  # type: ignore[return-value]


def test_reference_world_passes() -> None:
    check_env(CounterWorld, TASK, seed=3)


@pytest.mark.parametrize(
    ("world", "message"),
    [
        (RandomWorld, "rollouts with seed 3 differ"),
        (AcceptsEverything, "was not refused"),
        (WrongSizeScreenshot, "screenshot is"),
        (ElementOffScreen, "outside the screen"),
        (ReturnsObservation, "returned Observation"),
    ],
)
def test_broken_worlds_fail(world: type[Env], message: str) -> None:
    with pytest.raises(EnvCheckError, match=message):
        check_env(world, TASK, seed=3)


def test_env_is_a_context_manager() -> None:
    closed = []

    class Closing(CounterWorld):
        def close(self) -> None:
            closed.append(True)

    with Closing() as env:
        env.reset(TASK, 0)
    assert closed == [True]
