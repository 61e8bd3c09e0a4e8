"""A person's gestures on the fake device, as ``getevent -lt`` prints them.

A touch screen reports raw positions in its own range (0..32767 on the emulator's virtio
touch screen, not pixels), a finger down and up with ``BTN_TOUCH`` and ``ABS_MT_TRACKING_ID``,
and a ``SYN_REPORT`` after each packet; keys report ``KEY_*`` DOWN and UP. Typed text comes
as key presses of a hardware keyboard (``KEY_LEFTSHIFT`` for capitals).
"""

from __future__ import annotations

from guigraph.envs.android.getevent import key_names
from guigraph.geometry import CoordSpace, Point, ScreenSize
from guigraph.types import Action, ActionType

RAW_MAX = 32767
TOUCH_DEVICE = "/dev/input/event1"
KEY_DEVICE = "/dev/input/event0"


def describe_devices(labels: bool = True) -> str:
    """``getevent -lp``: a key device and a multi-touch screen of raw range 0..RAW_MAX."""
    x = "ABS_MT_POSITION_X    " if labels else "0035  "
    y = "ABS_MT_POSITION_Y    " if labels else "0036  "
    return (
        f'add device 1: {KEY_DEVICE}\n  name:     "gpio-keys"\n  events:\n'
        "    KEY (0001): KEY_HOME KEY_BACK KEY_ENTER\n"
        f'add device 2: {TOUCH_DEVICE}\n  name:     "virtio_input_multi_touch_1"\n'
        "  events:\n    KEY (0001): BTN_TOUCH\n"
        f"    ABS (0003): {x}: value 0, min 0, max {RAW_MAX}, fuzz 0, flat 0, resolution 0\n"
        f"                {y}: value 0, min 0, max {RAW_MAX}, fuzz 0, flat 0, resolution 0\n"
        "                ABS_MT_TRACKING_ID   : value 0, min 0, max 65535, fuzz 0, flat 0\n"
    )


def _numbers(value: object) -> tuple[float, ...]:
    """A gesture's coordinates (a tuple or list of pixels) as floats."""
    assert isinstance(value, tuple | list)
    return tuple(float(v) for v in value)


def _line(clock: float, device: str, kind: str, code: str, value: str) -> str:
    return f"[{clock:14.6f}] {device}: {kind:<12} {code:<20} {value}\n"


def _raw(value: float, size: int) -> str:
    return f"{round(value / size * RAW_MAX):08x}"


def _touch(
    points: list[tuple[float, float]], seconds: float, screen: ScreenSize, clock: float
) -> tuple[list[str], float]:
    """A finger down at the first point, moved through the others, up after ``seconds``."""
    lines: list[str] = []
    step = seconds / max(1, len(points) - 1)
    for i, (x, y) in enumerate(points):
        if i == 0:
            lines.append(_line(clock, TOUCH_DEVICE, "EV_ABS", "ABS_MT_TRACKING_ID", "00000001"))
        lines.append(
            _line(clock, TOUCH_DEVICE, "EV_ABS", "ABS_MT_POSITION_X", _raw(x, screen.width))
        )
        lines.append(
            _line(clock, TOUCH_DEVICE, "EV_ABS", "ABS_MT_POSITION_Y", _raw(y, screen.height))
        )
        if i == 0:
            lines.append(_line(clock, TOUCH_DEVICE, "EV_KEY", "BTN_TOUCH", "DOWN"))
        lines.append(_line(clock, TOUCH_DEVICE, "EV_SYN", "SYN_REPORT", "00000000"))
        clock += step if len(points) > 1 else seconds
    lines.append(_line(clock, TOUCH_DEVICE, "EV_ABS", "ABS_MT_TRACKING_ID", "ffffffff"))
    lines.append(_line(clock, TOUCH_DEVICE, "EV_KEY", "BTN_TOUCH", "UP"))
    lines.append(_line(clock, TOUCH_DEVICE, "EV_SYN", "SYN_REPORT", "00000000"))
    return lines, clock + 0.5


def _key(name: str, clock: float, shift: bool = False) -> tuple[list[str], float]:
    lines: list[str] = []
    if shift:
        lines.append(_line(clock, KEY_DEVICE, "EV_KEY", "KEY_LEFTSHIFT", "DOWN"))
    lines.append(_line(clock, KEY_DEVICE, "EV_KEY", name, "DOWN"))
    lines.append(_line(clock, KEY_DEVICE, "EV_SYN", "SYN_REPORT", "00000000"))
    clock += 0.05
    lines.append(_line(clock, KEY_DEVICE, "EV_KEY", name, "UP"))
    if shift:
        lines.append(_line(clock, KEY_DEVICE, "EV_KEY", "KEY_LEFTSHIFT", "UP"))
    lines.append(_line(clock, KEY_DEVICE, "EV_SYN", "SYN_REPORT", "00000000"))
    return lines, clock + 0.1


def gesture_events(
    gesture: dict[str, object], screen: ScreenSize, clock: float
) -> tuple[list[str], float]:
    """The event lines of one gesture, and the clock after it."""
    if "tap" in gesture:
        x, y = _numbers(gesture["tap"])
        return _touch([(x, y)], 0.08, screen, clock)
    if "long" in gesture:
        x, y = _numbers(gesture["long"])
        return _touch([(x, y)], 0.8, screen, clock)
    if "swipe" in gesture:
        x1, y1, x2, y2 = _numbers(gesture["swipe"])
        points = [(x1 + (x2 - x1) * t / 5, y1 + (y2 - y1) * t / 5) for t in range(6)]
        return _touch(points, 0.3, screen, clock)
    if "key" in gesture:
        return _key(f"KEY_{gesture['key']}", clock)
    lines: list[str] = []
    for char in str(gesture["text"]):
        shift, name = key_names(char)
        more, clock = _key(name, clock, shift)
        lines += more
    return lines, clock


def gesture_action(gesture: dict[str, object], screen: ScreenSize) -> list[Action]:
    """What the gesture does to SimPhone (typed text one action; ``\\n`` the enter key)."""

    def norm(x: float, y: float) -> Point:
        return Point(x, y, CoordSpace.PIXEL).to_norm(screen)

    if "tap" in gesture:
        return [Action(ActionType.CLICK, point=norm(*_numbers(gesture["tap"])))]
    if "long" in gesture:
        return [Action(ActionType.LONG_PRESS, point=norm(*_numbers(gesture["long"])))]
    if "swipe" in gesture:
        x1, y1, x2, y2 = _numbers(gesture["swipe"])
        return [Action.swipe(norm(x1, y1), norm(x2, y2))]
    if "key" in gesture:
        kind = {
            "BACK": ActionType.PRESS_BACK,
            "HOME": ActionType.PRESS_HOME,
            "APPSELECT": ActionType.PRESS_RECENT,
        }.get(str(gesture["key"]))
        if kind is not None:
            return [Action(kind)]
        return [Action.type_text("\n")] if gesture["key"] == "ENTER" else []
    text = str(gesture["text"])
    out: list[Action] = []
    for chunk in text.split("\n"):
        if chunk:
            out.append(Action.type_text(chunk))
        out.append(Action.type_text("\n"))
    return out[:-1]
