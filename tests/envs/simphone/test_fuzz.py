"""Random monkey testing: whatever an agent does, the phone answers and never crashes."""

from __future__ import annotations

import random

import pytest

from guigraph.envs.simphone.devices import DEVICES
from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.tasks import TEMPLATES, make_task
from guigraph.types import Action, ActionType, Observation

APPS = ("ShopMall", "notes", "Camera", "Gallery", "Tunes", "Calendar", "Messages", "Clock", "xyz")
TEXTS = ("lamp", "Paris", "12:30", "5", "hello", "Alice", "")


def _random_action(rng: random.Random, obs: Observation) -> Action:
    clickable = [e for e in obs.elements or () if e.clickable]
    roll = rng.random()
    if roll < 0.55 and clickable:
        center = rng.choice(clickable).bbox.center
        if rng.random() < 0.9:
            return Action.click(center.x, center.y)
        return Action.long_press(center.x, center.y)
    if roll < 0.65:
        return Action.type_text(rng.choice(TEXTS))
    if roll < 0.72:
        return Action.scroll(rng.choice(("up", "down", "left", "right")))
    if roll < 0.84:
        return Action(
            rng.choice((ActionType.PRESS_BACK, ActionType.PRESS_HOME, ActionType.PRESS_RECENT))
        )
    if roll < 0.90:
        return Action.open_app(rng.choice(APPS))
    if roll < 0.95:
        return Action.click(rng.uniform(-100, 1100), rng.uniform(-100, 1100))
    return Action(ActionType.WAIT, seconds=1.0)


@pytest.mark.parametrize("episode", range(12))
def test_random_actions_never_crash_the_phone(episode: int) -> None:
    rng = random.Random(episode)
    devices, templates = sorted(DEVICES), sorted(TEMPLATES)
    env = SimPhone(devices[episode % len(devices)], version=1 + episode % 2, popup_rate=0.3)
    obs = env.reset(make_task(templates[episode % len(templates)], episode), episode)
    for _ in range(50):
        action = _random_action(rng, obs)
        result = env.step(action)
        obs = result.observation
        assert obs.image().size == (obs.screen.width, obs.screen.height)
        if result.error is not None:
            # Only these are refused; everything else a phone just does.
            assert action.type in (
                ActionType.CLICK,
                ActionType.LONG_PRESS,
                ActionType.TYPE,
                ActionType.OPEN_APP,
            ), result.error
        for element in obs.elements or ():
            assert 0 <= element.bbox.x1 <= element.bbox.x2 <= 1000
            assert 0 <= element.bbox.y1 <= element.bbox.y2 <= 1000
