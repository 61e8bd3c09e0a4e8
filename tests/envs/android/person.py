"""A person at the fake device: SimPhone's expert does a task with gestures on the glass."""

from __future__ import annotations

import time
from collections.abc import Callable

from guigraph.envs.android.env import SWIPES
from guigraph.envs.simphone.adb_device import SimDevice
from guigraph.envs.simphone.expert import Expert
from guigraph.envs.simphone.tasks import make_task, plan_for
from guigraph.geometry import Point
from guigraph.types import Action, ActionType

KEYS = {
    ActionType.PRESS_BACK: "BACK",
    ActionType.PRESS_HOME: "HOME",
    ActionType.PRESS_RECENT: "APPSELECT",
}


def gesture_of(action: Action, device: SimDevice) -> dict[str, object] | None:
    """The gesture a person makes for ``action`` (pixels); None for waiting."""
    screen = device.profile.screen

    def px(point: Point) -> tuple[float, float]:
        p = point.to_pixels(screen)
        return (p.x, p.y)

    if action.type is ActionType.CLICK and action.point is not None:
        return {"tap": px(action.point)}
    if action.type is ActionType.LONG_PRESS and action.point is not None:
        return {"long": px(action.point)}
    if action.type is ActionType.SCROLL:
        if action.point is not None and action.end is not None:
            start, end = action.point, action.end
        else:
            assert action.direction is not None
            (x1, y1), (x2, y2) = SWIPES[action.direction]
            start, end = Point(x1, y1), Point(x2, y2)
        return {"swipe": (*px(start), *px(end))}
    if action.type is ActionType.TYPE:
        return {"text": action.text or ""}
    if action.type in KEYS:
        return {"key": KEYS[action.type]}
    return None


def set_up(device: SimDevice, template_id: str, seed: int) -> None:
    device.set_task(make_task(template_id, seed), seed)


def do_task(
    device: SimDevice, template_id: str, seed: int, settle: Callable[[], None] = lambda: None
) -> list[Action]:
    """Carry out the task set up on the device as the expert would; returns the actions
    performed (waits left out). ``settle`` runs after each gesture."""
    task = make_task(template_id, seed)
    expert = Expert(device.phone, plan_for(task, device.phone.world), seed, 0.0)
    done: list[Action] = []
    for _ in range(80):
        action = expert.next_action()
        if action.type is ActionType.COMPLETE:
            break
        gesture = gesture_of(action, device)
        if gesture is None:  # a loading screen: the person waits
            device.act(Action(ActionType.WAIT, seconds=1.0))
            time.sleep(0.05)
            settle()
            continue
        device.perform(gesture)
        done.append(action)
        settle()
    return done
