"""``uiautomator dump`` XML -> UI elements, and ``dumpsys`` text -> the app in front.

Every ``<node>`` of the hierarchy becomes one :class:`UIElement` in document order (containers
included, as the accessibility tree has them): its pixel ``bounds`` go to the normalized
0..1000 space of the screen, clipped to it; nodes of no area (off-screen views) are left out.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from guigraph.errors import EnvError
from guigraph.geometry import NORM_MAX, BBox, ScreenSize
from guigraph.types import UIElement

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
#: Classes a person can type into.
_EDITABLE = ("EditText", "AutoCompleteTextView", "SearchView$SearchAutoComplete")


def parse_hierarchy(xml: str | bytes, screen: ScreenSize) -> tuple[UIElement, ...]:
    """The elements of a dump; broken XML or a dump with no hierarchy is an :class:`EnvError`."""
    text = xml.decode("utf-8", "replace") if isinstance(xml, bytes) else xml
    start = text.find("<hierarchy")
    end = text.rfind("</hierarchy>")
    if start < 0:
        raise EnvError(f"uiautomator dump gave no UI hierarchy: {_head(text)}")
    if end < 0:
        raise EnvError("uiautomator dump is not valid XML (cut short: no </hierarchy>)")
    try:
        root = ET.fromstring(text[start : end + len("</hierarchy>")])
    except ET.ParseError as exc:
        raise EnvError(f"uiautomator dump is not valid XML ({exc})") from None
    return tuple(e for node in root.iter("node") if (e := _element(node, screen)) is not None)


def _head(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "(nothing)"
    return line[:120]


def _flag(node: ET.Element, name: str, default: bool = False) -> bool:
    value = node.get(name)
    return default if value is None else value == "true"


def _element(node: ET.Element, screen: ScreenSize) -> UIElement | None:
    match = _BOUNDS.fullmatch(node.get("bounds", "").strip())
    if match is None:
        return None
    x1, y1, x2, y2 = (int(v) for v in match.groups())
    sx, sy = NORM_MAX / screen.width, NORM_MAX / screen.height
    box = (_clip(x1 * sx), _clip(y1 * sy), _clip(x2 * sx), _clip(y2 * sy))
    if box[2] <= box[0] or box[3] <= box[1]:
        return None
    cls = node.get("class", "")
    return UIElement(
        bbox=BBox(*box),
        text=node.get("text", ""),
        content_desc=node.get("content-desc", ""),
        class_name=cls,
        resource_id=node.get("resource-id", ""),
        clickable=_flag(node, "clickable"),
        editable=cls.endswith(_EDITABLE),
        scrollable=_flag(node, "scrollable"),
        focused=_flag(node, "focused"),
        checked=_flag(node, "checked"),
        package=node.get("package", ""),
        enabled=_flag(node, "enabled", default=True),
    )


def _clip(value: float) -> float:
    return round(min(NORM_MAX, max(0.0, value)), 2)


# dumpsys -------------------------------------------------------------------------------------
_FOCUS = re.compile(r"mCurrentFocus=Window\{\S+ \S+ ([\w.]+)/([\w.$]+)\}")
_FOCUSED_APP = re.compile(r"mFocusedApp=.*?\{\S+ \S+ ([\w.]+)/([\w.$]+)")
_RESUMED = re.compile(
    r"(?:topResumedActivity|mResumedActivity|ResumedActivity)[:=].*?\{\S+ \S+ "
    r"([\w.]+)/([\w.$]+)"
)


def foreground(dumpsys_window: str, dumpsys_activity: str = "") -> tuple[str, str]:
    """(package, activity) in front, from ``dumpsys window`` (or ``dumpsys activity
    activities``); an activity given as ``.Main`` is made whole. ("", "") when none is."""
    for pattern, text in (
        (_FOCUS, dumpsys_window),
        (_FOCUSED_APP, dumpsys_window),
        (_RESUMED, dumpsys_activity),
    ):
        match = pattern.search(text)
        if match:
            package, activity = match.groups()
            return package, package + activity if activity.startswith(".") else activity
    return "", ""


_SIZE = re.compile(r"(Physical|Override) size:\s*(\d+)x(\d+)")


def wm_size(text: str) -> ScreenSize:
    """``wm size``: the override size when one is set, else the physical size."""
    sizes = {kind: (int(w), int(h)) for kind, w, h in _SIZE.findall(text)}
    size = sizes.get("Override") or sizes.get("Physical")
    if size is None:
        raise EnvError(f"`wm size` gave no screen size: {_head(text)}")
    return ScreenSize(*size)


_ROTATION = re.compile(
    r"(?:SurfaceOrientation|mCurrentRotation|mRotation|INTERNAL:.*?orientation)[:=]\s*"
    r"(?:ROTATION_)?(\d+)"
)


def rotation(text: str) -> int:
    """0..3 quarter turns from ``dumpsys input`` / ``dumpsys window``; 0 when not found."""
    match = _ROTATION.search(text)
    if not match:
        return 0
    value = int(match.group(1))
    return value // 90 if value >= 90 else value % 4
