"""An application's accessibility nodes as the UI elements every world gives its team.

A node's role is its class (``push_button``), its name its text (a text field's text is what
it holds, its name then the description); boxes are clipped to the screen and normalized.
Scaffolding (a nameless panel or filler) is left out, as are nodes with no box on screen.
"""

from __future__ import annotations

from collections.abc import Iterable

from guigraph.envs.desktop.atspi import Node
from guigraph.geometry import NORM_MAX, BBox, ScreenSize
from guigraph.types import UIElement

#: Roles a click acts on.
CLICKABLE_ROLES = frozenset({
    "push button", "toggle button", "check box", "radio button", "menu", "menu item",
    "check menu item", "radio menu item", "page tab", "combo box", "link", "list item",
    "table cell", "tree item", "icon", "spin button", "slider", "toggle", "button",
})  # fmt: skip
#: Roles that only hold others: left out when they carry no name.
SCAFFOLDING_ROLES = frozenset({
    "filler", "panel", "scroll pane", "viewport", "layered pane", "split pane", "separator",
    "page tab list", "tool bar", "menu bar", "unknown", "redundant object", "section",
    "grouping", "invalid", "scroll bar",
})  # fmt: skip
#: Roles of widgets that show text: focused, one takes what is typed (a calculator's display
#: takes digits though AT-SPI does not call it editable).
TEXT_ROLES = frozenset({"text", "entry", "terminal", "document text"})
SCROLLABLE_ROLES = frozenset({"scroll pane", "list", "tree table", "table", "tree", "viewport"})


def class_of(role: str) -> str:
    return role.strip().lower().replace(" ", "_") or "view"


def to_elements(nodes: Iterable[Node], screen: ScreenSize, app: str) -> tuple[UIElement, ...]:
    out: list[UIElement] = []
    for node in nodes:
        box = _clipped(node.box, screen)
        if box is None:
            continue
        takes_typing = "editable" in node.states or (
            "focused" in node.states and node.role in TEXT_ROLES
        )
        holds_text = bool(node.text) or takes_typing
        label = node.name.strip()
        if not label and not holds_text and node.role in SCAFFOLDING_ROLES:
            continue
        text = node.text if holds_text else label
        description = node.description.strip() or (label if holds_text else "")
        out.append(
            UIElement(
                bbox=box,
                text=text,
                content_desc=description if description != text else "",
                class_name=class_of(node.role),
                clickable=node.role in CLICKABLE_ROLES,
                editable=takes_typing,
                scrollable=node.role in SCROLLABLE_ROLES,
                focused="focused" in node.states,
                checked="checked" in node.states or "pressed" in node.states,
                package=app,
                enabled="sensitive" in node.states or "enabled" in node.states,
            )
        )
    return tuple(out)


def _clipped(box: tuple[int, int, int, int], screen: ScreenSize) -> BBox | None:
    x, y, width, height = box
    x1, y1 = max(0, x), max(0, y)
    x2, y2 = min(screen.width, x + width), min(screen.height, y + height)
    if width <= 1 or height <= 1 or x2 <= x1 or y2 <= y1:
        return None
    sx, sy = NORM_MAX / screen.width, NORM_MAX / screen.height
    return BBox(x1 * sx, y1 * sy, x2 * sx, y2 * sy)
