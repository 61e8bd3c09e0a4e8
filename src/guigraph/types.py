"""Core data types passed between every part of guigraph.

All are frozen dataclasses validated on construction, with ``to_dict``/``from_dict`` for
persistence. Prompt rendering lives elsewhere (agents, prompts), never here.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guigraph.errors import ActionError
from guigraph.geometry import BBox, CoordSpace, Point, ScreenSize

if TYPE_CHECKING:
    from PIL import Image

#: GUIOdyssey's six task categories (paper names: Tool, Information, Shopping, Media, Social,
#: Multi-Apps), in the order the paper's tables use.
CATEGORIES: tuple[str, ...] = (
    "General_Tool",
    "Information_Management",
    "Web_Shopping",
    "Media_Entertainment",
    "Social_Sharing",
    "Multi_Apps",
)


class ActionType(StrEnum):
    CLICK = "click"
    DOUBLE_CLICK = "double_click"
    LONG_PRESS = "long_press"
    SCROLL = "scroll"
    TYPE = "type"
    PRESS_BACK = "press_back"
    PRESS_HOME = "press_home"
    PRESS_RECENT = "press_recent"
    COMPLETE = "complete"
    IMPOSSIBLE = "impossible"
    OPEN_APP = "open_app"
    WAIT = "wait"
    #: A key chord on a keyboard (the desktop's Ctrl+S, Escape, Enter): ``Action.keys``.
    KEY = "key"


#: The action space of GUIOdyssey (what its evaluator can score).
ODYSSEY_ACTIONS: frozenset[ActionType] = frozenset(ActionType) - {
    ActionType.OPEN_APP,
    ActionType.WAIT,
    ActionType.DOUBLE_CLICK,
    ActionType.KEY,
}

#: Actions at one point of the screen (a tap, a double click, a press held).
POINT_ACTIONS = frozenset({ActionType.CLICK, ActionType.DOUBLE_CLICK, ActionType.LONG_PRESS})
_POINT_ACTIONS = POINT_ACTIONS

#: The modifier keys of a chord, in the order a chord names them.
MODIFIER_KEYS: tuple[str, ...] = ("ctrl", "alt", "shift", "super")
#: Other spellings of key names, to the one a chord keeps (X keysyms, browsers, people).
_KEY_ALIASES = {
    "control": "ctrl", "control_l": "ctrl", "control_r": "ctrl", "ctl": "ctrl",
    "alt_l": "alt", "alt_r": "alt", "meta": "super", "win": "super", "cmd": "super",
    "shift_l": "shift", "shift_r": "shift", "super_l": "super", "super_r": "super",
    "return": "enter", "kp_enter": "enter", "esc": "escape", "del": "delete",
    "pageup": "page_up", "prior": "page_up", "pagedown": "page_down", "next": "page_down",
    "pgup": "page_up", "pgdn": "page_down", "bksp": "backspace", "ins": "insert",
    "arrowup": "up", "arrowdown": "down", "arrowleft": "left", "arrowright": "right",
}  # fmt: skip


def key_chord(keys: Sequence[str] | str) -> tuple[str, ...]:
    """A key chord in its one spelling: lower-case names, modifiers first in
    ``MODIFIER_KEYS`` order, then the key (``"Control+S"``, ``["s", "ctrl"]`` -> ``("ctrl",
    "s")``). A text is split at ``+`` (a lone ``+`` is the plus key). ActionError when it
    names no key, names one twice or holds only modifiers."""
    if isinstance(keys, str):
        text = keys.strip()
        parts = [text] if text == "+" else re.split(r"\s*\+\s*", text)
        if text.endswith("++"):
            parts = [*parts[:-2], "+"]
    else:
        parts = [str(k) for k in keys]
    names = [_KEY_ALIASES.get(p.strip().lower(), p.strip().lower()) for p in parts]
    if not names or any(not n or any(c.isspace() for c in n) for n in names):
        raise ActionError(f"a key chord names keys like 'ctrl+s' or 'escape', got {keys!r}")
    if len(set(names)) != len(names):
        raise ActionError(f"a key chord names each key once, got {keys!r}")
    mods = [m for m in MODIFIER_KEYS if m in names]
    rest = [n for n in names if n not in MODIFIER_KEYS]
    if len(rest) > 1:
        raise ActionError(f"a key chord has one key besides its modifiers, got {keys!r}")
    return (*mods, *rest)


def chord_text(keys: Sequence[str]) -> str:
    """``("ctrl", "s")`` -> ``"ctrl+s"``, the raw and command form of a chord."""
    return "+".join(keys)


class ScrollDirection(StrEnum):
    """The direction the *finger* moves, as in GUIOdyssey (UP reveals content further down)."""

    UP = "up"
    DOWN = "down"
    LEFT = "left"
    RIGHT = "right"


def swipe_direction(start: Point, end: Point) -> ScrollDirection:
    """GUIOdyssey's rule: the larger axis of ``end - start`` wins; ties count as vertical."""
    dx, dy = end.x - start.x, end.y - start.y
    if abs(dx) > abs(dy):
        return ScrollDirection.LEFT if dx < 0 else ScrollDirection.RIGHT
    return ScrollDirection.UP if dy < 0 else ScrollDirection.DOWN


@dataclass(frozen=True, slots=True)
class Action:
    """One GUI action. Points are in the normalized 0..1000 space.

    Only the fields an action type uses may be set: a click has a point, a scroll a direction
    (and, when recorded, its start and end points), a type action its text, open_app an app.
    Points outside the screen are allowed here (a model may propose one); environments decide
    what such a tap does.
    """

    type: ActionType
    point: Point | None = None
    end: Point | None = None
    direction: ScrollDirection | None = None
    text: str | None = None
    app: str | None = None
    seconds: float | None = None
    keys: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "type", ActionType(self.type))
        if self.keys is not None:
            object.__setattr__(self, "keys", key_chord(self.keys))
        if self.direction is not None:
            object.__setattr__(self, "direction", ScrollDirection(self.direction))
        for name in ("point", "end"):
            value = getattr(self, name)
            if value is not None and value.space is not CoordSpace.NORM:
                raise ActionError(f"{self.type} {name} must be in the normalized space")
        used = _FIELDS_BY_TYPE[self.type]
        for name in ("point", "end", "direction", "text", "app", "seconds", "keys"):
            if name not in used and getattr(self, name) is not None:
                raise ActionError(f"{self.type} takes no {name}")
        if self.type in _POINT_ACTIONS and self.point is None:
            raise ActionError(f"{self.type} needs a point")
        if self.type is ActionType.SCROLL:
            self._check_scroll()
        if self.type is ActionType.TYPE and self.text is None:
            raise ActionError("type needs text")
        if self.type is ActionType.OPEN_APP and not (self.app and self.app.strip()):
            raise ActionError("open_app needs an app name")
        if self.type is ActionType.KEY and not self.keys:
            raise ActionError("key needs the keys of its chord")
        if self.seconds is not None and self.seconds < 0:
            raise ActionError(f"wait seconds must be >= 0, got {self.seconds}")

    def _check_scroll(self) -> None:
        if (self.point is None) != (self.end is None):
            raise ActionError("scroll needs both start and end points, or neither")
        if self.direction is None:
            if self.point is None or self.end is None:
                raise ActionError("scroll needs a direction or start and end points")
            object.__setattr__(self, "direction", swipe_direction(self.point, self.end))

    # Constructors that read well at call sites.
    @classmethod
    def click(cls, x: float, y: float) -> Action:
        return cls(ActionType.CLICK, point=Point(x, y))

    @classmethod
    def double_click(cls, x: float, y: float) -> Action:
        return cls(ActionType.DOUBLE_CLICK, point=Point(x, y))

    @classmethod
    def key_chord(cls, *keys: str) -> Action:
        """``Action.key_chord("ctrl", "s")`` or ``Action.key_chord("ctrl+s")``."""
        return cls(ActionType.KEY, keys=key_chord(keys[0] if len(keys) == 1 else keys))

    @classmethod
    def long_press(cls, x: float, y: float) -> Action:
        return cls(ActionType.LONG_PRESS, point=Point(x, y))

    @classmethod
    def scroll(cls, direction: ScrollDirection | str) -> Action:
        return cls(ActionType.SCROLL, direction=ScrollDirection(direction))

    @classmethod
    def swipe(cls, start: Point, end: Point) -> Action:
        return cls(ActionType.SCROLL, point=start, end=end)

    @classmethod
    def type_text(cls, text: str) -> Action:
        return cls(ActionType.TYPE, text=text)

    @classmethod
    def key(cls, kind: ActionType) -> Action:
        return cls(kind)

    @classmethod
    def open_app(cls, app: str) -> Action:
        return cls(ActionType.OPEN_APP, app=app)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type.value}
        if self.point is not None:
            out["point"] = self.point.to_list()
        if self.end is not None:
            out["end"] = self.end.to_list()
        if self.direction is not None:
            out["direction"] = self.direction.value
        for name in ("text", "app", "seconds"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.keys is not None:
            out["keys"] = list(self.keys)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Action:
        try:
            kind = ActionType(data["type"])
        except (KeyError, ValueError) as exc:
            raise ActionError(f"unknown or missing action type in {dict(data)!r}") from exc
        return cls(
            kind,
            point=_point_or_none(data.get("point")),
            end=_point_or_none(data.get("end")),
            direction=ScrollDirection(data["direction"]) if data.get("direction") else None,
            text=data.get("text"),
            app=data.get("app"),
            seconds=data.get("seconds"),
            keys=_keys_or_none(data.get("keys")),
        )


def _keys_or_none(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return key_chord(value)
    if not isinstance(value, list | tuple) or not all(isinstance(k, str) for k in value):
        raise ActionError(f"keys is a list of key names, got {value!r}")
    return key_chord(value)


_FIELDS_BY_TYPE: dict[ActionType, frozenset[str]] = {
    ActionType.CLICK: frozenset({"point"}),
    ActionType.DOUBLE_CLICK: frozenset({"point"}),
    ActionType.KEY: frozenset({"keys"}),
    ActionType.LONG_PRESS: frozenset({"point"}),
    ActionType.SCROLL: frozenset({"point", "end", "direction"}),
    ActionType.TYPE: frozenset({"text"}),
    ActionType.OPEN_APP: frozenset({"app"}),
    ActionType.WAIT: frozenset({"seconds"}),
    ActionType.PRESS_BACK: frozenset(),
    ActionType.PRESS_HOME: frozenset(),
    ActionType.PRESS_RECENT: frozenset(),
    ActionType.COMPLETE: frozenset(),
    ActionType.IMPOSSIBLE: frozenset(),
}


def _point_or_none(value: Any) -> Point | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ActionError(f"a point is [x, y], got {value!r}")
    return Point(float(value[0]), float(value[1]))


@dataclass(frozen=True, slots=True)
class UIElement:
    """One node of a screen's UI tree, as an accessibility tree or a DOM reports it."""

    bbox: BBox
    text: str = ""
    content_desc: str = ""
    class_name: str = ""
    resource_id: str = ""
    clickable: bool = False
    editable: bool = False
    scrollable: bool = False
    focused: bool = False
    checked: bool = False
    #: The app package the element belongs to, where the world says (Android's UI tree).
    package: str = ""
    #: False for a greyed-out control (Android's ``enabled``); most worlds never say.
    enabled: bool = True

    def __post_init__(self) -> None:
        if self.bbox.space is not CoordSpace.NORM:
            raise ValueError("UI element boxes are stored in the normalized space")

    @property
    def label(self) -> str:
        """The most human-readable name the element has."""
        return self.text or self.content_desc or self.resource_id.rsplit("/", 1)[-1]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"bbox": self.bbox.as_list()}
        for name in ("text", "content_desc", "class_name", "resource_id", "package"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        for name in ("clickable", "editable", "scrollable", "focused", "checked"):
            if getattr(self, name):
                out[name] = True
        if not self.enabled:  # written only when False, so older files read as enabled
            out["enabled"] = False
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> UIElement:
        return cls(
            bbox=BBox.from_list(data["bbox"]),
            text=str(data.get("text", "")),
            content_desc=str(data.get("content_desc", "")),
            class_name=str(data.get("class_name", "")),
            resource_id=str(data.get("resource_id", "")),
            clickable=bool(data.get("clickable", False)),
            editable=bool(data.get("editable", False)),
            scrollable=bool(data.get("scrollable", False)),
            focused=bool(data.get("focused", False)),
            checked=bool(data.get("checked", False)),
            package=str(data.get("package", "")),
            enabled=bool(data.get("enabled", True)),
        )


def text_shape(text: str) -> str:
    """What kind of text this is, not which: "number" texts keep their symbols ("5°C" and
    "12°C" are ``9°``, "$285.99" is ``9$.``), word texts are ``a``.

    A number's sign and its thousands separators belong to the value ("-3°C" is a
    temperature like "21°C", "$1,285.99" a price like "$285.99"): a key that changed with
    them would name another element on the next visit. A dash between words or digits
    ("5-day", "Jun 20-22") is the text's own.
    """
    if not any(c.isdigit() for c in text):
        return "a" if text.strip() else ""
    text = _VALUE_MARKS.sub("", text)
    return "9" + "".join(sorted({c for c in text if not (c.isalnum() or c.isspace())}))


#: A sign before a number, and a thousands separator inside one.
_VALUE_MARKS = re.compile(r"(?<!\w)[-+\u2212](?=\d)|(?<=\d),(?=\d{3}(?!\d))")


def element_keys(elements: Sequence[UIElement], app: str | None = None) -> list[str]:
    """A name for each element of one screen that holds across runs of that screen.

    The resource id when the world gives one. Many web pages and some apps give none, and an
    element's text is often the very value that changes between runs; so an id-less element is
    named by its screen's app, its class, the shape of its text and its rank among the
    screen's elements of that class and shape in reading order (``@weather/textview:9°#0``).
    Unlike a place on the screen, this holds on another device's layout.
    """
    return _keys([(e.resource_id, e.class_name, e.text) for e in elements], app)


#: How an id-less element's key starts; no resource id does (ids are parsed, keys not).
ID_LESS_KEY = "@"


def id_less_key_app(key: str) -> str | None:
    """The app (lower-cased) an id-less element's key names, or None for a resource id."""
    if not key.startswith(ID_LESS_KEY) or "/" not in key:
        return None
    return key[len(ID_LESS_KEY) :].split("/", 1)[0]


def _keys(elements: Sequence[tuple[str, str, str]], app: str | None) -> list[str]:
    ranks: dict[str, int] = {}
    keys: list[str] = []
    scope = (app or "").strip().lower()
    for resource_id, class_name, text in elements:
        if resource_id:
            keys.append(resource_id)
            continue
        role = class_name.rsplit(".", 1)[-1].lower() or "view"
        base = f"{ID_LESS_KEY}{scope}/{role}:{text_shape(text)}"
        keys.append(f"{base}#{ranks.get(base, 0)}")
        ranks[base] = ranks.get(base, 0) + 1
    return keys


@dataclass(frozen=True, slots=True)
class Observation:
    """What an agent sees of a screen: a screenshot, and the UI tree when the world has one.

    The screenshot is PNG bytes, or a path read on demand (so that reading a large dataset does
    not load every image).
    """

    screen: ScreenSize
    screenshot: bytes | None = None
    screenshot_path: Path | None = None
    elements: tuple[UIElement, ...] | None = None
    app: str | None = None
    activity: str | None = None

    def png_bytes(self) -> bytes:
        if self.screenshot is not None:
            return self.screenshot
        if self.screenshot_path is not None:
            return Path(self.screenshot_path).read_bytes()
        raise ValueError("this observation has no screenshot")

    @property
    def has_screenshot(self) -> bool:
        return self.screenshot is not None or self.screenshot_path is not None

    def image(self) -> Image.Image:
        from PIL import Image

        return Image.open(io.BytesIO(self.png_bytes()))

    def focused_element(self) -> UIElement | None:
        return next((e for e in self.elements or () if e.focused), None)


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    name: str
    width: int
    height: int
    product: str = ""
    release_version: str = ""
    sdk_version: str = ""

    @property
    def screen(self) -> ScreenSize:
        return ScreenSize(self.width, self.height)


@dataclass(frozen=True, slots=True)
class Task:
    """A task to carry out: the instruction an agent gets, and what the world needs to set it up."""

    task_id: str
    instruction: str
    category: str = ""
    apps: tuple[str, ...] = ()
    template_id: str = ""
    params: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "instruction": self.instruction,
            "category": self.category,
            "apps": list(self.apps),
            "template_id": self.template_id,
            "params": dict(self.params),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Task:
        return cls(
            task_id=str(data["task_id"]),
            instruction=str(data["instruction"]),
            category=str(data.get("category", "")),
            apps=tuple(data.get("apps", ())),
            template_id=str(data.get("template_id", "")),
            params={str(k): str(v) for k, v in dict(data.get("params", {})).items()},
        )


@dataclass(frozen=True, slots=True)
class Step:
    """One recorded step: the screen before the action, the action, and the annotations."""

    index: int
    observation: Observation
    action: Action
    sam2_bbox: BBox | None = None
    description: str = ""
    intention: str = ""
    context: str = ""
    low_level_instruction: str = ""
    ps: str = ""

    def __post_init__(self) -> None:
        if self.index < 0:
            raise ValueError(f"step index must be >= 0, got {self.index}")


@dataclass(frozen=True, slots=True)
class Episode:
    """A recorded execution of one task, step by step."""

    episode_id: str
    instruction: str
    category: str
    device: DeviceInfo
    steps: tuple[Step, ...]
    apps: tuple[str, ...] = ()
    meta_task: str = ""
    task: str = ""
    #: The world it was recorded in (its conventions' name: ``simphone``, ``web``,
    #: ``android``); "" when the logs do not say (GUIOdyssey's own).
    world: str = ""

    def __post_init__(self) -> None:
        for position, step in enumerate(self.steps):
            if step.index != position:
                raise ValueError(
                    f"episode {self.episode_id}: step at position {position} has index {step.index}"
                )

    @property
    def actions(self) -> tuple[Action, ...]:
        return tuple(step.action for step in self.steps)
