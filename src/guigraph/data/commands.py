"""GUIOdyssey actions in their two textual forms, and conversion to and from ``Action``.

- *Raw* form: what an annotation file stores per step, ``action`` (CLICK, LONG_PRESS, SCROLL,
  TEXT, COMPLETE, INCOMPLETE) and ``info`` (points, a KEY_* name, the typed text, or "").
  guigraph extends it for what recorded runs of other worlds contain and GUIOdyssey never
  does: ``OPEN_APP`` (info: the app, package or URL opened), ``WAIT`` (info: seconds),
  ``DOUBLE_CLICK`` (info: points, as CLICK) and ``KEY`` (info: a chord, ``ctrl+s``). A reader
  of the dataset never meets them.
- *Command* form: the strings models are trained on and the evaluator compares, as the
  official ``decode_action`` writes them: ``CLICK: (x, y)``, ``SCROLL: UP``, ``TYPE: text``...

``parse_point`` is shared with the matcher, whose hot path needs it fast: it splits instead of
using a regex and never calls ``eval``.
"""

from __future__ import annotations

import math

from guigraph.errors import ActionError, DatasetError
from guigraph.geometry import Point
from guigraph.types import Action, ActionType, ScrollDirection, chord_text, key_chord

#: Command names of the keys, and the KEY_* names the raw form uses for them.
KEY_COMMANDS: dict[ActionType, str] = {
    ActionType.PRESS_BACK: "PRESS_BACK",
    ActionType.PRESS_HOME: "PRESS_HOME",
    ActionType.PRESS_RECENT: "PRESS_RECENT",
}
RAW_KEYS: dict[str, ActionType] = {
    "KEY_BACK": ActionType.PRESS_BACK,
    "KEY_HOME": ActionType.PRESS_HOME,
    "KEY_APPSELECT": ActionType.PRESS_RECENT,
}
_KEY_OF_TYPE = {kind: key for key, kind in RAW_KEYS.items()}

#: Every command name the official evaluator knows, with the action type it stands for.
COMMAND_TYPES: dict[str, ActionType] = {
    "CLICK": ActionType.CLICK,
    "LONG_PRESS": ActionType.LONG_PRESS,
    "SCROLL": ActionType.SCROLL,
    "TYPE": ActionType.TYPE,
    "COMPLETE": ActionType.COMPLETE,
    "IMPOSSIBLE": ActionType.IMPOSSIBLE,
    **{name: kind for kind, name in KEY_COMMANDS.items()},
}

#: Canonical start/end points for a scroll that was recorded without them (finger direction).
CANONICAL_SWIPES: dict[ScrollDirection, tuple[tuple[int, int], tuple[int, int]]] = {
    ScrollDirection.UP: ((500, 700), (500, 300)),
    ScrollDirection.DOWN: ((500, 300), (500, 700)),
    ScrollDirection.LEFT: ((700, 500), (300, 500)),
    ScrollDirection.RIGHT: ((300, 500), (700, 500)),
}

_BRACKETS = {"(": ")", "[": "]"}


def parse_numbers(text: str) -> list[float] | None:
    """The numbers of a point literal such as ``(12, 34)``, ``[12.5,34]`` or ``12, 34``.

    Returns None when the text is not a flat, comma-separated list of finite numbers in at most
    one pair of brackets. No regex and no ``eval``: this runs once per scored click.
    """
    body = text.strip()
    if body and body[0] in _BRACKETS:
        if body[-1] != _BRACKETS[body[0]]:
            return None
        body = body[1:-1]
    parts = body.split(",")
    if parts and not parts[-1].strip() and len(parts) > 1:
        parts.pop()  # a trailing comma, as in "(12, 34,)"
    numbers: list[float] = []
    for part in parts:
        try:
            value = float(part)
        except ValueError:
            return None
        if not math.isfinite(value):
            return None
        numbers.append(value)
    return numbers


def parse_point(text: str) -> tuple[float, float] | None:
    """A point literal with exactly two finite numbers, or None."""
    numbers = parse_numbers(text)
    if numbers is None or len(numbers) != 2:
        return None
    return numbers[0], numbers[1]


def _number_text(value: float) -> str:
    return str(round(value))


def action_to_command(action: Action) -> str:
    """The official command string of an action (points rounded to integers)."""
    kind = action.type
    if kind in (ActionType.CLICK, ActionType.LONG_PRESS):
        assert action.point is not None  # Action validates this
        x, y = action.point.rounded()
        return f"{'CLICK' if kind is ActionType.CLICK else 'LONG_PRESS'}: ({x}, {y})"
    if kind is ActionType.SCROLL:
        assert action.direction is not None
        return f"SCROLL: {action.direction.value.upper()}"
    if kind is ActionType.TYPE:
        return f"TYPE: {action.text}"
    if kind in KEY_COMMANDS:
        return KEY_COMMANDS[kind]
    if kind is ActionType.COMPLETE:
        return "COMPLETE"
    if kind is ActionType.IMPOSSIBLE:
        return "IMPOSSIBLE"
    raise ActionError(f"{kind} has no GUIOdyssey command string")


#: guigraph's own actions, which GUIOdyssey has no command for, written as ``NAME: argument``.
EXTENSION_COMMANDS: dict[str, ActionType] = {
    "OPEN_APP": ActionType.OPEN_APP,
    "WAIT": ActionType.WAIT,
    "DOUBLE_CLICK": ActionType.DOUBLE_CLICK,
    "KEY": ActionType.KEY,
}


def action_to_text(action: Action) -> str:
    """The official command of an action; guigraph's own actions keep their name
    (``OPEN_APP: com.example.app``, ``WAIT``), which the official evaluator, like any action
    type it does not know, scores on the type alone."""
    try:
        return action_to_command(action)
    except ActionError:
        argument = action.app if action.app is not None else ""
        name = action.type.value.upper()
        if action.type is ActionType.KEY and action.keys:
            argument = chord_text(action.keys)
        if action.type is ActionType.DOUBLE_CLICK and action.point is not None:
            argument = "({}, {})".format(*action.point.rounded())
        return f"{name}: {argument}" if argument else name


def command_to_action(text: str) -> Action:
    """Parse an official command string into an ``Action``; ActionError if it is not one.

    The whole text after the first colon is the argument (a TYPE text keeps its colons, and
    exactly one space after ``TYPE:`` is dropped so that ``action_to_command`` round-trips).
    Command names and scroll directions are read case-insensitively.
    """
    name, colon, argument = text.lstrip().partition(":")
    kind = COMMAND_TYPES.get(name.strip().upper())
    if kind is None:
        raise ActionError(f"not a GUIOdyssey command: {text!r}")
    if kind is ActionType.TYPE:
        if not colon:
            raise ActionError(f"TYPE needs its text after a colon: {text!r}")
        return Action.type_text(argument[1:] if argument.startswith(" ") else argument)
    if kind in (ActionType.CLICK, ActionType.LONG_PRESS):
        point = parse_point(argument) if colon else None
        if point is None:
            raise ActionError(f"{name.strip()} needs a point '(x, y)': {text!r}")
        return Action(kind, point=Point(*point))
    if kind is ActionType.SCROLL:
        try:
            return Action.scroll(ScrollDirection(argument.strip().lower()))
        except ValueError:
            raise ActionError(f"SCROLL needs UP, DOWN, LEFT or RIGHT: {text!r}") from None
    if argument.strip():
        raise ActionError(f"{name.strip()} takes no argument: {text!r}")
    return Action(kind)


def _raw_point(value: object) -> Point | None:
    if (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    ):
        try:
            return Point(float(value[0]), float(value[1]))
        except ActionError:
            return None
    return None


def _raw_points(info: object) -> list[Point] | None:
    if not isinstance(info, list) or not info:
        return None
    points = [_raw_point(item) for item in info]
    return None if any(p is None for p in points) else points  # type: ignore[return-value]


def raw_to_action(action: str, info: object, *, where: str = "") -> Action:
    """An annotation's raw ``action``/``info`` pair as an ``Action``.

    Raises DatasetError naming ``where`` (e.g. "annotations/x.json steps[3]") and the field.
    """
    place = where or None
    if action in ("CLICK", "LONG_PRESS", "DOUBLE_CLICK"):
        kind = _POINT_RAW[action]
        if isinstance(info, str):
            if info in RAW_KEYS:
                return Action(RAW_KEYS[info])
            raise DatasetError(
                place, "info", f"{action} info KEY_HOME/KEY_BACK/KEY_APPSELECT", info
            )
        points = _raw_points(info)
        if points is None:
            raise DatasetError(place, "info", f"{action} info [[x, y], ...] of numbers", info)
        return Action(kind, point=points[0])
    if action == "SCROLL":
        points = _raw_points(info)
        if points is None or len(points) < 2:
            raise DatasetError(place, "info", "SCROLL info [[x1, y1], [x2, y2]]", info)
        # Like the official decode_action, the first two points are start and end.
        return Action.swipe(points[0], points[1])
    if action in ("TEXT", "TYPE"):  # the docs say TYPE, the data says TEXT
        if not isinstance(info, str):
            raise DatasetError(place, "info", f"{action} info the typed string", info)
        return Action.type_text(info)
    if action == "COMPLETE":
        return Action(ActionType.COMPLETE)
    if action == "INCOMPLETE":
        return Action(ActionType.IMPOSSIBLE)
    if action == "OPEN_APP":
        if not isinstance(info, str) or not info.strip():
            raise DatasetError(place, "info", "OPEN_APP info the app, package or URL", info)
        return Action.open_app(info)
    if action == "WAIT":
        if not isinstance(info, int | float) or isinstance(info, bool) or info < 0:
            raise DatasetError(place, "info", "WAIT info seconds (a number >= 0)", info)
        return Action(ActionType.WAIT, seconds=float(info))
    if action == "KEY":
        try:
            return Action(ActionType.KEY, keys=key_chord(info if isinstance(info, str) else ""))
        except ActionError:
            raise DatasetError(
                place, "info", "KEY info a key chord such as 'ctrl+s'", info
            ) from None
    raise DatasetError(
        place, "action",
        "one of CLICK, LONG_PRESS, SCROLL, TEXT, COMPLETE, INCOMPLETE "
        "(OPEN_APP, WAIT, DOUBLE_CLICK, KEY)", action,
    )  # fmt: skip


_POINT_RAW = {
    "CLICK": ActionType.CLICK,
    "LONG_PRESS": ActionType.LONG_PRESS,
    "DOUBLE_CLICK": ActionType.DOUBLE_CLICK,
}
_RAW_OF_POINT = {kind: name for name, kind in _POINT_RAW.items()}


def _raw_number(value: float) -> int | float:
    """Integers as the dataset stores them; fractional values are kept, not rounded away."""
    return int(value) if float(value).is_integer() else value


def action_to_raw(action: Action) -> tuple[str, object]:
    """The raw ``(action, info)`` pair of an annotation file; inverse of ``raw_to_action``."""
    kind = action.type
    if kind in _RAW_OF_POINT:
        assert action.point is not None
        point = [_raw_number(action.point.x), _raw_number(action.point.y)]
        return _RAW_OF_POINT[kind], [point, list(point)]
    if kind in _KEY_OF_TYPE:
        return "CLICK", _KEY_OF_TYPE[kind]
    if kind is ActionType.SCROLL:
        if action.point is not None and action.end is not None:
            start = [_raw_number(action.point.x), _raw_number(action.point.y)]
            end = [_raw_number(action.end.x), _raw_number(action.end.y)]
            return "SCROLL", [start, end]
        assert action.direction is not None
        begin, finish = CANONICAL_SWIPES[action.direction]
        return "SCROLL", [list(begin), list(finish)]
    if kind is ActionType.TYPE:
        return "TEXT", action.text
    if kind is ActionType.COMPLETE:
        return "COMPLETE", ""
    if kind is ActionType.IMPOSSIBLE:
        return "INCOMPLETE", ""
    if kind is ActionType.OPEN_APP:
        return "OPEN_APP", action.app
    if kind is ActionType.WAIT:
        return "WAIT", _raw_number(action.seconds or 0.0)
    if kind is ActionType.KEY:
        return "KEY", chord_text(action.keys or ())
    raise ActionError(f"{kind} has no GUIOdyssey raw form")
