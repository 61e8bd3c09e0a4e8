"""One desktop world (Xvfb + openbox) for the desktop tests of a module, and a check that no
process of it is left. The tests need Debian's xvfb, openbox, xdotool, dbus-daemon,
at-spi2-core and the applications (the Makefile's SYSTEM_PACKAGES): they never skip in CI."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from guigraph.envs.desktop.env import DesktopEnv
from guigraph.envs.desktop.processes import tagged_pids
from guigraph.types import Action, ActionType, Observation, UIElement


@pytest.fixture(scope="module")
def desktop() -> Iterator[DesktopEnv]:
    env = DesktopEnv()
    try:
        yield env
    finally:
        tag = env.display.tag
        env.close()
        assert tagged_pids(tag) == [], "a process of the desktop world outlived it"


def find(observation: Observation, text: str, role: str | None = None) -> UIElement:
    """The first element showing ``text`` (and of ``role``), or a failure naming what shows."""
    for element in observation.elements or ():
        if element.label == text and (role is None or element.class_name == role):
            return element
    shown = sorted({e.label for e in observation.elements or () if e.label})
    raise AssertionError(f"no {role or 'element'} {text!r} on screen; it shows {shown}")


def shown(env: DesktopEnv, observation: Observation, activity: str) -> Observation:
    """``observation``, or, when a loaded machine drew ``activity`` only after the world
    looked, the screen a wait later (the test suite runs beside other work)."""
    for _ in range(3):
        if observation.activity == activity:
            break
        observation = env.step(Action(ActionType.WAIT, seconds=1.0)).observation
    return observation
