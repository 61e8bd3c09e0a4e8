"""On a real phone or emulator: ``GUIGRAPH_SERIAL=<serial> pytest -m live <this file>`` (README).

They use the adb server already running (``adb start-server``; ``ANDROID_ADB_SERVER_PORT``
when it is not on 5037) and do nothing but look, wait, go back and go home.
"""

from __future__ import annotations

import os

import pytest

from guigraph.envs import make
from guigraph.envs.android.device import AdbDevice
from guigraph.types import Action, ActionType, Task

SERIAL = os.environ.get("GUIGRAPH_SERIAL", "")
pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(not SERIAL, reason="set GUIGRAPH_SERIAL to a device's serial"),
]
HARMLESS = [Action(ActionType.WAIT, seconds=0.5), Action(ActionType.PRESS_BACK),
            Action(ActionType.PRESS_HOME)]  # fmt: skip


def test_the_device_reports_model_version_and_screen() -> None:
    summary = AdbDevice(SERIAL).summary()
    assert summary.model and summary.android and summary.width > 0 and summary.height > 0


def test_observations_of_a_real_device() -> None:
    env = make("android", serial=SERIAL)
    obs = env.reset(Task("free/0", "look at the home screen"), 0)
    assert obs.image().size == (obs.screen.width, obs.screen.height)
    assert obs.app and obs.elements and any(e.package for e in obs.elements)
    assert env.evaluate() is None  # nothing checks a task on a real phone


def test_harmless_steps_on_a_real_device() -> None:
    # check_env's same-seed rollouts cannot agree on a phone (its clock ticks); the contract
    # of each observation is checked instead.
    env = make("android", serial=SERIAL)
    env.reset(Task("free/0", "look at the home screen"), 0)
    for action in HARMLESS:
        result = env.step(action)
        assert result.error is None, result.error
        image = result.observation.image()
        assert image.size == (result.observation.screen.width, result.observation.screen.height)
