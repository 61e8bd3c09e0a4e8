"""A person's key and button events (``envs.desktop.xrecord``) as guigraph's actions.

- a left button pressed and released is a click at the press, held ``LONG_PRESS_S`` or more a
  long press; a second click within ``DOUBLE_CLICK_S`` at the same spot makes the first a
  double click;
- wheel buttons are a scroll, in the direction a finger would move (the wheel turned down
  shows what is further down: a finger moving ``up``); a run of wheel clicks is one scroll;
- a key that types a character, with no Ctrl, Alt or Super held, is typed text (one ``type``
  action per character here; the recorder joins them); Enter, Tab and Backspace are the
  characters ``\\n``, ``\\t`` and ``\\b`` (the recorder makes them keys when no text is being
  typed); any other key, or any key with Ctrl, Alt or Super, is a key chord.

Modifier keys alone and the middle and right buttons are not actions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from guigraph.envs.desktop.xrecord import (
    ALT_MASK,
    BUTTON_PRESS,
    BUTTON_RELEASE,
    CONTROL_MASK,
    KEY_PRESS,
    SHIFT_MASK,
    SUPER_MASK,
    InputEvent,
)
from guigraph.errors import ActionError
from guigraph.geometry import CoordSpace, Point, ScreenSize
from guigraph.types import Action, ActionType, ScrollDirection, key_chord

LONG_PRESS_S = 0.5
DOUBLE_CLICK_S = 0.4
#: Pixels a second click may land from the first and still make a double click.
DOUBLE_CLICK_SLOP = 6
#: Wheel clicks closer in time than this are one scroll.
SCROLL_RUN_S = 0.6
WHEEL = {4: ScrollDirection.DOWN, 5: ScrollDirection.UP, 6: ScrollDirection.RIGHT,
         7: ScrollDirection.LEFT}  # fmt: skip
MODIFIER_KEYS = frozenset({
    "Shift_L", "Shift_R", "Control_L", "Control_R", "Alt_L", "Alt_R", "Meta_L", "Meta_R",
    "Super_L", "Super_R", "ISO_Level3_Shift", "Caps_Lock", "Num_Lock",
})  # fmt: skip
TEXT_KEYS = {"Return": "\n", "KP_Enter": "\n", "Tab": "\t", "BackSpace": "\b"}


@dataclass(frozen=True, slots=True)
class Gesture:
    """An action and when the person started it (monotonic time of its first event)."""

    action: Action
    started: float
    #: True when this replaces the gesture before it (a click became a double click).
    replaces_last: bool = False


class GestureReader:
    """Feed it events in order; it returns the gestures they complete."""

    def __init__(self, screen: ScreenSize) -> None:
        self.screen = screen
        self._press: InputEvent | None = None
        self._last_click: InputEvent | None = None
        self._scroll: tuple[ScrollDirection, float] | None = None

    def feed(self, event: InputEvent) -> list[Gesture]:
        if event.kind == BUTTON_PRESS and event.detail in WHEEL:
            return self._wheel(event)
        if event.kind == BUTTON_PRESS and event.detail == 1:
            self._press = event
            return []
        if event.kind == BUTTON_RELEASE and event.detail == 1 and self._press is not None:
            return self._release(event)
        if event.kind == KEY_PRESS:
            return self._key(event)
        return []

    def _point(self, event: InputEvent) -> Point:
        return Point(event.x, event.y, CoordSpace.PIXEL).to_norm(self.screen)

    def _wheel(self, event: InputEvent) -> list[Gesture]:
        direction = WHEEL[event.detail]
        last = self._scroll
        self._scroll = (direction, event.arrived)
        if last is not None and last[0] is direction and event.arrived - last[1] < SCROLL_RUN_S:
            return []
        return [Gesture(Action.scroll(direction), event.arrived)]

    def _release(self, event: InputEvent) -> list[Gesture]:
        press, self._press = self._press, None
        assert press is not None
        point = self._point(press)
        if (event.server_ms - press.server_ms) / 1000 >= LONG_PRESS_S:
            self._last_click = None
            return [Gesture(Action.long_press(point.x, point.y), press.arrived)]
        last, self._last_click = self._last_click, press
        if (
            last is not None
            and (press.server_ms - last.server_ms) / 1000 <= DOUBLE_CLICK_S
            and math.dist((last.x, last.y), (press.x, press.y)) <= DOUBLE_CLICK_SLOP
        ):
            self._last_click = None
            action = Action.double_click(*self._point(last).to_list())
            return [Gesture(action, last.arrived, replaces_last=True)]
        return [Gesture(Action.click(point.x, point.y), press.arrived)]

    def _key(self, event: InputEvent) -> list[Gesture]:
        if event.key in MODIFIER_KEYS or not event.key:
            return []
        self._last_click = None
        held = [
            name
            for mask, name in ((CONTROL_MASK, "ctrl"), (ALT_MASK, "alt"), (SUPER_MASK, "super"))
            if event.state & mask
        ]
        if not held and event.key in TEXT_KEYS and not event.state & SHIFT_MASK:
            return [Gesture(Action.type_text(TEXT_KEYS[event.key]), event.arrived)]
        if not held and event.char:
            return [Gesture(Action.type_text(event.char), event.arrived)]
        if event.state & SHIFT_MASK and (held or not event.char):
            held.append("shift")
        try:
            keys = key_chord([*held, event.base_key or event.key])
        except ActionError:
            return []
        return [Gesture(Action(ActionType.KEY, keys=keys), event.arrived)]
