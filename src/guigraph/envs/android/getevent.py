"""A person's touches and keys, from ``getevent -lt`` lines, as GUI actions.

A touch screen reports raw positions in its own range (``getevent -lp`` gives each axis's
``max``; 0..32767 on the emulator, the panel's resolution on most phones), which are scaled to
the screen. A finger that stays within a small slop is a tap, or a long press when it stays
500 ms or more; one that travels is a swipe. Keys: ``KEY_BACK``, ``KEY_HOME``,
``KEY_APPSELECT`` are those buttons; letters, digits and punctuation (with shift) are typed
text, ``KEY_ENTER`` a newline and ``KEY_BACKSPACE`` takes the last typed character back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from guigraph.geometry import CoordSpace, Point, ScreenSize
from guigraph.types import Action, ActionType

LONG_PRESS_S = 0.5
#: A finger that moves less than this share of the screen's shorter side taps.
TAP_SLOP = 0.03

#: Characters typed with shift held on a US keyboard, and the key each is on.
SHIFTED_KEYS = {
    "!": "1", "@": "2", "#": "3", "$": "4", "%": "5", "^": "6", "&": "7", "*": "8", "(": "9",
    ")": "0", "_": "MINUS", "+": "EQUAL", "{": "LEFTBRACE", "}": "RIGHTBRACE", ":": "SEMICOLON",
    '"': "APOSTROPHE", "<": "COMMA", ">": "DOT", "?": "SLASH", "|": "BACKSLASH", "~": "GRAVE",
}  # fmt: skip
#: Characters typed without shift whose key is not named after them.
PLAIN_KEYS = {
    " ": "SPACE", "-": "MINUS", "=": "EQUAL", "[": "LEFTBRACE", "]": "RIGHTBRACE",
    ";": "SEMICOLON", "'": "APOSTROPHE", ",": "COMMA", ".": "DOT", "/": "SLASH",
    "\\": "BACKSLASH", "`": "GRAVE", "\n": "ENTER", "\t": "TAB",
}  # fmt: skip


def key_names(char: str) -> tuple[bool, str]:
    """(shift held, KEY_ name) of a character on a US keyboard."""
    if char.isalpha() and char.isascii():
        return char.isupper(), f"KEY_{char.upper()}"
    if char.isdigit() and char.isascii():
        return False, f"KEY_{char}"
    if char in PLAIN_KEYS:
        return False, f"KEY_{PLAIN_KEYS[char]}"
    if char in SHIFTED_KEYS:
        return True, f"KEY_{SHIFTED_KEYS[char]}"
    raise ValueError(f"no key types {char!r}")


_LINE = re.compile(r"\[\s*([\d.]+)\]\s+(\S+):\s+(\S+)\s+(\S+)\s+(\S+)")
_RANGE = re.compile(r"(ABS_MT_POSITION_[XY]|ABS_[XY]|003[56]|000[01])\s*:.*?max (\d+)")
_KEYS = {
    "KEY_BACK": ActionType.PRESS_BACK,
    "KEY_HOME": ActionType.PRESS_HOME,
    "KEY_HOMEPAGE": ActionType.PRESS_HOME,
    "KEY_APPSELECT": ActionType.PRESS_RECENT,
}
_AXES = {"0035": "ABS_MT_POSITION_X", "0036": "ABS_MT_POSITION_Y", "0000": "ABS_X", "0001": "ABS_Y"}
_CHARS: dict[tuple[bool, str], str] = {
    **{(False, f"KEY_{name}"): char for char, name in PLAIN_KEYS.items()},
    **{(True, f"KEY_{name}"): char for char, name in SHIFTED_KEYS.items()},
}


def touch_ranges(getevent_p: str) -> tuple[int, int]:
    """(max x, max y) of the touch screen from ``getevent -lp`` (or ``-p``)."""
    found: dict[str, int] = {}
    for axis, value in _RANGE.findall(getevent_p):
        name = _AXES.get(axis, axis)
        key = "x" if name.endswith("X") else "y"
        if name.startswith("ABS_MT") or key not in found:
            found[key] = int(value)
    if "x" not in found or "y" not in found:
        raise ValueError("`getevent -lp` shows no touch screen (no ABS_MT_POSITION_X/Y)")
    return found["x"], found["y"]


@dataclass
class GestureReader:
    """Feed it lines; it returns the actions they complete (typed text one char at a time)."""

    screen: ScreenSize
    ranges: tuple[int, int]
    _x: float = 0.0
    _y: float = 0.0
    _down: bool = False
    _start: float = 0.0
    _points: list[tuple[float, float]] = field(default_factory=list)
    _shift: bool = False

    def feed(self, line: str) -> list[Action]:
        match = _LINE.match(line.strip())
        if match is None:
            return []
        stamp, _, kind, code, value = match.groups()
        t = float(stamp)
        code = _AXES.get(code, code)
        if kind == "EV_ABS":
            return self._abs(code, value, t)
        if kind == "EV_KEY":
            return self._key(code, value, t)
        if kind == "EV_SYN" and code == "SYN_REPORT" and self._down:
            self._points.append((self._x, self._y))
        return []

    def _abs(self, code: str, value: str, t: float) -> list[Action]:
        if code in ("ABS_MT_POSITION_X", "ABS_X"):
            self._x = int(value, 16) / self.ranges[0] * self.screen.width
        elif code in ("ABS_MT_POSITION_Y", "ABS_Y"):
            self._y = int(value, 16) / self.ranges[1] * self.screen.height
        elif code == "ABS_MT_TRACKING_ID":
            if value.lower() == "ffffffff":
                return self._finger_up(t)
            self._finger_down(t)
        return []

    def _key(self, code: str, value: str, t: float) -> list[Action]:
        if code == "BTN_TOUCH":
            if value == "DOWN":
                self._finger_down(t)
                return []
            return self._finger_up(t)
        if code in ("KEY_LEFTSHIFT", "KEY_RIGHTSHIFT"):
            self._shift = value in ("DOWN", "REPEAT")
            return []
        if value != "DOWN":
            return []
        if code in _KEYS:
            return [Action(_KEYS[code])]
        if code == "KEY_BACKSPACE":
            return [Action.type_text("\b")]
        char = self._char(code)
        return [Action.type_text(char)] if char else []

    def _char(self, code: str) -> str:
        name = code.removeprefix("KEY_")
        if len(name) == 1 and name.isalpha():
            return name if self._shift else name.lower()
        if len(name) == 1 and name.isdigit() and not self._shift:
            return name
        return _CHARS.get((self._shift, code), "")

    def _finger_down(self, t: float) -> None:
        if not self._down:
            self._down, self._start, self._points = True, t, []

    def _finger_up(self, t: float) -> list[Action]:
        if not self._down:
            return []
        self._down = False
        points = self._points or [(self._x, self._y)]
        (x1, y1), (x2, y2) = points[0], points[-1]
        slop = TAP_SLOP * min(self.screen.width, self.screen.height)
        start, end = self._norm(x1, y1), self._norm(x2, y2)
        if abs(x2 - x1) <= slop and abs(y2 - y1) <= slop:
            kind = ActionType.LONG_PRESS if t - self._start >= LONG_PRESS_S else ActionType.CLICK
            return [Action(kind, point=start)]
        return [Action.swipe(start, end)]

    def _norm(self, x: float, y: float) -> Point:
        return Point(x, y, CoordSpace.PIXEL).to_norm(self.screen)
