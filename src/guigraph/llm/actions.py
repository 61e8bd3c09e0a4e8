"""Model replies to typed ``Action`` values.

Accepted shapes, tried in this order:

1. Qwen ``<tool_call>`` blocks of the ``mobile_use`` tool (Qwen2.5-VL / Qwen3-VL cookbooks):
   ``{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [x, y]}}``.
2. A JSON action anywhere in the reply: ``{"action": "click", "coordinate": [x, y]}``, with
   the usual synonyms (``action_type``, ``point``, ``x``/``y``, ``app_name``, …), possibly
   nested as ``{"thought": …, "action": {…}}``.
3. UI-TARS calls: ``Action: click(start_box='(x,y)')``.
4. GUIOdyssey command strings (``CLICK: (x, y)``, ``SCROLL: UP``, ``TYPE: text``, …).

Coordinates are read in the model's space (``ModelCoords``) and mapped to the normalized screen
space of ``Action``. Directions are the finger's, as in GUIOdyssey. Nothing is evaluated.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from guigraph.errors import ActionError, ResponseParseError
from guigraph.geometry import Point, ScreenSize
from guigraph.llm.coords import ModelCoords
from guigraph.llm.parsing import extract_json, extract_tool_calls, strip_thinking
from guigraph.types import POINT_ACTIONS, Action, ActionType, ScrollDirection, key_chord

_TYPE_NAMES: dict[str, ActionType] = {
    **dict.fromkeys(("click", "tap", "left_click", "left_single"), ActionType.CLICK),
    **dict.fromkeys(
        ("double_click", "double_tap", "doubleclick", "left_double"), ActionType.DOUBLE_CLICK
    ),
    **dict.fromkeys(("hotkey", "key_chord", "keys", "shortcut"), ActionType.KEY),
    **dict.fromkeys(("long_press", "long_click", "longpress", "long_tap"), ActionType.LONG_PRESS),
    **dict.fromkeys(("scroll", "swipe", "drag"), ActionType.SCROLL),
    **dict.fromkeys(("type", "input", "input_text", "text", "type_text"), ActionType.TYPE),
    **dict.fromkeys(("press_back", "back", "navigate_back"), ActionType.PRESS_BACK),
    **dict.fromkeys(("press_home", "home", "navigate_home"), ActionType.PRESS_HOME),
    **dict.fromkeys(("press_recent", "recent", "app_switch", "overview"), ActionType.PRESS_RECENT),
    **dict.fromkeys(("complete", "finished", "finish", "done", "answer"), ActionType.COMPLETE),
    **dict.fromkeys(("impossible", "infeasible", "incomplete"), ActionType.IMPOSSIBLE),
    **dict.fromkeys(("open_app", "open", "launch", "launch_app"), ActionType.OPEN_APP),
    **dict.fromkeys(("wait", "sleep"), ActionType.WAIT),
}
_BUTTONS = {
    "back": ActionType.PRESS_BACK,
    "home": ActionType.PRESS_HOME,
    "menu": ActionType.PRESS_RECENT,
    "recent": ActionType.PRESS_RECENT,
    "app_switch": ActionType.PRESS_RECENT,
}
_UITARS = re.compile(r"Action:\s*([a-z_]+)\((.*)\)", re.DOTALL)
_UITARS_ARG = re.compile(r"(\w+)\s*=\s*(['\"])(.*?)\2", re.DOTALL)
_NUMBERS = re.compile(r"-?\d+(?:\.\d+)?")
_COMMAND = re.compile(
    r"^[\s`*]*(?:(?i:action)\s*:\s*)?[`*]*"
    r"((?:CLICK|LONG_PRESS|SCROLL|TYPE|PRESS_BACK|PRESS_HOME|PRESS_RECENT|COMPLETE|IMPOSSIBLE)\b.*)",
    re.MULTILINE,
)


class _Reader:
    """Builds actions from loose fields, mapping model coordinates to the screen."""

    def __init__(self, coords: ModelCoords, screen: ScreenSize, sent: ScreenSize | None):
        self.coords, self.screen, self.sent = coords, screen, sent

    def point(self, value: Any) -> Point:
        numbers = [float(n) for n in _NUMBERS.findall(str(value))]
        if isinstance(value, list | tuple) and len(value) == 2:
            numbers = [float(value[0]), float(value[1])]
        if len(numbers) == 4:  # a box: its centre
            numbers = [(numbers[0] + numbers[2]) / 2, (numbers[1] + numbers[3]) / 2]
        if len(numbers) != 2:
            raise ActionError(f"expected a point [x, y], got {value!r}")
        return self.coords.to_point(numbers[0], numbers[1], self.screen, self.sent)

    def from_fields(self, fields: Mapping[str, Any]) -> Action:
        inner = fields.get("action")
        if isinstance(inner, Mapping):  # {"thought": ..., "action": {...}}
            return self.from_fields(inner)
        if "arguments" in fields and isinstance(fields["arguments"], Mapping):
            return self.from_fields(fields["arguments"])
        name = str(inner or fields.get("action_type") or fields.get("type") or "").lower()
        name = name.strip().replace(" ", "_").replace("-", "_")
        kind = self._kind(name, fields)
        return self._build(kind, fields)

    def _kind(self, name: str, fields: Mapping[str, Any]) -> ActionType:
        if name in ("system_button", "key", "press_key", "press"):
            button = _first(fields, "button", "keys", "key", "text")
            if name != "system_button" and str(button or "").lower() not in _BUTTONS:
                return ActionType.KEY  # a keyboard key or chord: "enter", "ctrl+s"
            button = str(button or "")
            if button.lower() not in _BUTTONS:
                raise ActionError(f"unsupported button {button!r}; expected back, home or menu")
            return _BUTTONS[button.lower()]
        if name == "terminate":
            status = str(fields.get("status", "success")).lower()
            return ActionType.COMPLETE if status in ("success", "done") else ActionType.IMPOSSIBLE
        if name not in _TYPE_NAMES:
            raise ActionError(f"unknown action {name!r}")
        return _TYPE_NAMES[name]

    def _build(self, kind: ActionType, fields: Mapping[str, Any]) -> Action:
        start = _first(fields, "coordinate", "point", "start_box", "start", "position")
        if start is None and "x" in fields and "y" in fields:
            start = [fields["x"], fields["y"]]
        if kind in POINT_ACTIONS:
            if start is None:
                raise ActionError(f"{kind} needs a coordinate")
            return Action(kind, point=self.point(start))
        if kind is ActionType.SCROLL:
            end = _first(fields, "coordinate2", "end", "end_box", "end_point")
            if start is not None and end is not None:
                return Action.swipe(self.point(start), self.point(end))
            direction = str(_first(fields, "direction") or "").lower()
            if direction not in {d.value for d in ScrollDirection}:
                raise ActionError(f"scroll needs a direction up/down/left/right, got {direction!r}")
            return Action.scroll(direction)
        if kind is ActionType.TYPE:
            text = _first(fields, "text", "content", "value", "input")
            if text is None:
                raise ActionError("type needs a text")
            return Action.type_text(str(text))
        if kind is ActionType.OPEN_APP:
            return Action.open_app(str(_first(fields, "app_name", "app", "text", "name") or ""))
        if kind is ActionType.KEY:
            keys = _first(fields, "keys", "key", "button", "text")
            if keys is None:
                raise ActionError('key needs its keys, e.g. "ctrl+s"')
            return Action(kind, keys=key_chord(keys if isinstance(keys, list) else str(keys)))
        if kind is ActionType.WAIT:
            seconds = _first(fields, "time", "seconds", "duration")
            return Action(kind, seconds=float(seconds) if seconds is not None else None)
        return Action(kind)


def _first(fields: Mapping[str, Any], *names: str) -> Any:
    return next((fields[n] for n in names if fields.get(n) not in (None, "")), None)


def parse_action(
    text: str, coords: ModelCoords, screen: ScreenSize, sent: ScreenSize | None = None
) -> Action:
    """The action a reply proposes. ``sent`` is the size of the screenshot the model saw.

    Raises ``ResponseParseError`` (with the raw reply) when no known shape is found or the
    action found is malformed, so the agent loop can feed the reason back to the model.
    """
    reader = _Reader(coords, screen, sent)
    try:
        return _parse(text, reader)
    except ResponseParseError:
        raise
    except (ActionError, ValueError, TypeError) as exc:  # ActionError: a ValueError too
        raise ResponseParseError(f"the reply's action is malformed: {exc}", text) from exc


def _parse(text: str, reader: _Reader) -> Action:
    calls = extract_tool_calls(text)
    if calls:
        return reader.from_fields(calls[0]["arguments"])
    answer = strip_thinking(text)
    tars = _UITARS.search(answer)
    if tars:
        return _from_uitars(tars.group(1), tars.group(2), reader)
    json_error: ResponseParseError | None = None
    if "{" in answer:
        try:
            value = extract_json(answer)
        except ResponseParseError as exc:
            json_error = exc  # maybe braces in a command's text: try commands first
        else:
            if isinstance(value, list) and value and isinstance(value[0], Mapping):
                value = value[0]
            if isinstance(value, Mapping):
                return reader.from_fields(value)
    command = _COMMAND.search(answer)
    if command:
        return _from_command(command.group(1).strip().strip("`*").strip(), reader)
    if json_error is not None:
        raise json_error
    raise ResponseParseError(
        "no action found: expected a <tool_call>, a JSON action or a command like 'CLICK: (x, y)'",
        text,
    )


def _from_uitars(name: str, arguments: str, reader: _Reader) -> Action:
    fields: dict[str, Any] = {"action": name}
    for key, _, value in _UITARS_ARG.findall(arguments):
        fields[key] = value
    if name == "finished":
        fields["action"] = "complete"
    elif name == "hotkey":
        fields = {"action": "key", "key": fields.get("key", "")}
    return reader.from_fields(fields)


def _from_command(line: str, reader: _Reader) -> Action:
    """A GUIOdyssey command string; its numbers are in the model's space."""
    from guigraph.data.commands import command_to_action

    action = command_to_action(line)
    if action.point is None:
        return action
    point = reader.coords.to_point(action.point.x, action.point.y, reader.screen, reader.sent)
    return Action(action.type, point=point)
