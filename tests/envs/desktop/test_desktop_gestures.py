"""A person's X input events become actions: clicks, double clicks, long presses, scrolls,
typed text and key chords (no display needed)."""

from __future__ import annotations

from guigraph.envs.desktop.gestures import GestureReader
from guigraph.envs.desktop.xrecord import (
    BUTTON_PRESS,
    BUTTON_RELEASE,
    CONTROL_MASK,
    KEY_PRESS,
    SHIFT_MASK,
    InputEvent,
)
from guigraph.geometry import ScreenSize
from guigraph.types import Action, ScrollDirection

SCREEN = ScreenSize(1000, 500)


def _button(kind: int, button: int, ms: int, x: int = 100, y: int = 50) -> InputEvent:
    return InputEvent(kind, button, x, y, 0, ms, ms / 1000)


def _key(key: str, char: str = "", state: int = 0, base: str = "", ms: int = 0) -> InputEvent:
    return InputEvent(KEY_PRESS, 0, 0, 0, state, ms, ms / 1000, key, base or key.lower(), char)


def _feed(events: list[InputEvent]) -> list[tuple[Action, bool]]:
    reader = GestureReader(SCREEN)
    return [(g.action, g.replaces_last) for e in events for g in reader.feed(e)]


def test_clicks_double_clicks_and_long_presses() -> None:
    out = _feed([
        _button(BUTTON_PRESS, 1, 0), _button(BUTTON_RELEASE, 1, 80),
        _button(BUTTON_PRESS, 1, 200), _button(BUTTON_RELEASE, 1, 260),
        _button(BUTTON_PRESS, 1, 2000, x=500), _button(BUTTON_RELEASE, 1, 2900, x=500),
        _button(BUTTON_PRESS, 1, 4000, x=500), _button(BUTTON_RELEASE, 1, 4050, x=500),
    ])  # fmt: skip
    assert out == [
        (Action.click(100, 100), False),
        (Action.double_click(100, 100), True),  # the click before becomes a double click
        (Action.long_press(500, 100), False),
        (Action.click(500, 100), False),
    ]


def test_a_run_of_wheel_clicks_is_one_scroll_in_the_fingers_direction() -> None:
    out = _feed([_button(BUTTON_PRESS, 5, ms) for ms in (0, 100, 200)] + [
        _button(BUTTON_PRESS, 4, 300), _button(BUTTON_PRESS, 5, 2000),
    ])  # fmt: skip
    assert [a.direction for a, _ in out] == [
        ScrollDirection.UP, ScrollDirection.DOWN, ScrollDirection.UP,
    ]  # fmt: skip


def test_keys_are_text_or_chords() -> None:
    out = _feed([
        _key("Shift_L"), _key("H", "H", SHIFT_MASK, "h"), _key("i", "i"),
        _key("Return"), _key("BackSpace"), _key("s", "s", CONTROL_MASK),
        _key("S", "S", CONTROL_MASK | SHIFT_MASK, "s"), _key("Escape"), _key("Next"),
        _key("Tab", state=SHIFT_MASK, base="Tab"),
    ])  # fmt: skip
    assert [a for a, _ in out] == [
        Action.type_text("H"), Action.type_text("i"), Action.type_text("\n"),
        Action.type_text("\b"), Action.key_chord("ctrl+s"), Action.key_chord("ctrl+shift+s"),
        Action.key_chord("escape"), Action.key_chord("page_down"), Action.key_chord("shift+tab"),
    ]  # fmt: skip
