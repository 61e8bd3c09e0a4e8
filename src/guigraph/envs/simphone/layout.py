"""The layout engine: places a :class:`Screen` (or a pop-up) on a device, in pixels.

Phones stack fixed bars (status, app bar, bottom bar, navigation) around a scrolling body; the
body shows whole rows from ``entry.scroll`` on, and the rows it cannot show are reported so the
expert knows which way to scroll. A focused text field brings up the keyboard, which takes the
place of the bottom bar and shortens the body.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from guigraph.envs.simphone.devices import DeviceProfile
from guigraph.envs.simphone.widgets import Popup, Screen, W

if TYPE_CHECKING:
    from guigraph.envs.simphone.world import World

STATUS, APPBAR, NAVBAR, BOTTOM, MARGIN = 24, 52, 32, 54, 12
ROW_HEIGHT = {
    "text": 30,
    "label": 28,
    "item": 44,
    "button": 48,
    "input": 48,
    "toggle": 48,
    "tab": 44,
    "icon": 84,
    "image": 150,
    "chip": 38,
    "big": 70,
}
FONT = {
    "text": 15,
    "label": 13,
    "item": 16,
    "sub": 13,
    "button": 15,
    "input": 15,
    "title": 19,
    "big": 40,
    "status": 12,
    "tab": 14,
    "icon": 12,
    "chip": 13,
    "toggle": 15,
    "image": 14,
}


@dataclass
class Placed:
    widget: W
    box: tuple[int, int, int, int]
    region: str  # status, appbar, header, body, bottom, fab, keyboard, popup, dialog


@dataclass
class Layout:
    placed: list[Placed] = field(default_factory=list)
    body_box: tuple[int, int, int, int] = (0, 0, 0, 0)
    scroll: int = 0
    max_scroll: int = 0
    above: list[W] = field(default_factory=list)
    below: list[W] = field(default_factory=list)
    keyboard: bool = False
    shown_rows: int = 0
    dialog_box: tuple[int, int, int, int] | None = None

    def leaves(self) -> list[Placed]:
        return [p for p in self.placed if p.widget.kind != "row"]


def _height(widget: W) -> int:
    if widget.kind == "row":
        return max((_height(c) for c in widget.children), default=30)
    if widget.kind == "item" and widget.sub:
        return 58
    return ROW_HEIGHT.get(widget.kind, 30)


def _wrap(text: str, width_px: float, font_px: float) -> list[str]:
    per_line = max(8, int(width_px / (font_px * 0.55)))
    lines: list[str] = []
    current = ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > per_line:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}".strip()
    if current:
        lines.append(current)
    return lines or [""]


def expand_paragraphs(rows: list[W], width_px: float, dp: float) -> list[W]:
    """Turn each ``para`` into text lines that fit the width, so that scrolling reveals them."""
    out: list[W] = []
    for widget in rows:
        if widget.kind == "para":
            for line in _wrap(widget.text, width_px, FONT["text"] * dp):
                out.append(W("text", line, key=widget.key))
        else:
            out.append(widget)
    return out


def _place_row(widget: W, x1: int, y1: int, x2: int, dp: float, region: str) -> list[Placed]:
    h = round(_height(widget) * dp)
    placed = [Placed(widget, (x1, y1, x2, y1 + h), region)]
    if widget.kind == "row" and widget.children:
        gap = round(6 * dp)
        n = len(widget.children)
        cell = (x2 - x1 - gap * (n - 1)) / n
        for i, child in enumerate(widget.children):
            cx = round(x1 + i * (cell + gap))
            ch = round(_height(child) * dp)
            placed.append(Placed(child, (cx, y1, round(cx + cell), y1 + ch), region))
    return placed


def layout_screen(screen: Screen, device: DeviceProfile, scroll: int, focus: str | None) -> Layout:
    dp, width, height = device.dp, device.width, device.height
    out = Layout()
    margin = round(MARGIN * dp)
    top = round(STATUS * dp)
    if screen.appbar:
        bar = (0, top, width, top + round(APPBAR * dp))
        out.placed.append(Placed(W("label", screen.title, key="title"), bar, "appbar"))
        if screen.up:
            size = bar[3] - bar[1]
            out.placed.append(
                Placed(
                    W("button", "<", key="nav_up", tap=_navigate_up),
                    (0, bar[1], size, bar[3]),
                    "appbar",
                )
            )
        x = width
        for action in reversed(screen.actions):
            w_px = round(max(44, 11 * len(action.text) + 16) * dp)
            out.placed.append(Placed(action, (x - w_px, bar[1], x, bar[3]), "appbar"))
            x -= w_px
        top = bar[3]
    bottom = height - round(NAVBAR * dp)
    all_keys = {w.key for w in _walk(screen.header + screen.body)}
    out.keyboard = focus is not None and focus in all_keys
    if out.keyboard:
        bottom -= round(min(200.0, 0.4 * height / dp) * dp)
    elif screen.bottom:
        bottom_bar = row(*screen.bottom)
        h = round(BOTTOM * dp)
        out.placed.extend(_place_row(bottom_bar, 0, bottom - h, width, dp, "bottom"))
        bottom -= h
    y = top + round(4 * dp)
    for widget in screen.header:
        out.placed.extend(_place_row(widget, margin, y, width - margin, dp, "header"))
        y = out.placed[-1 - len(widget.children)].box[3] + round(4 * dp)
    out.body_box = (0, y, width, bottom)
    rows = expand_paragraphs(screen.body, width - 2 * margin, dp)
    heights = [round(_height(r) * dp) + round(2 * dp) for r in rows]
    room = bottom - y
    out.max_scroll = _max_scroll(heights, room)
    out.scroll = max(0, min(scroll, out.max_scroll))
    out.above = list(_walk(rows[: out.scroll]))
    cursor = y
    shown = out.scroll
    for widget, h in zip(rows[out.scroll :], heights[out.scroll :], strict=True):
        if cursor + h > bottom:
            break
        out.placed.extend(_place_row(widget, margin, cursor, width - margin, dp, "body"))
        cursor += h
        shown += 1
    out.below = list(_walk(rows[shown:]))
    out.shown_rows = shown - out.scroll
    if screen.fab is not None and not out.keyboard:
        size = round(56 * dp)
        box = (width - margin - size, bottom - margin - size, width - margin, bottom - margin)
        out.placed.append(Placed(screen.fab, box, "fab"))
    if out.keyboard:
        out.placed.extend(_keyboard(device, bottom))
    return out


def _navigate_up(world: World) -> None:
    world.pop()


def _max_scroll(heights: list[int], room: int) -> int:
    total = 0
    for start in range(len(heights) - 1, -1, -1):
        total += heights[start]
        if total > room:
            return start + 1
    return 0


def _walk(rows: list[W]) -> list[W]:
    out: list[W] = []
    for widget in rows:
        out.append(widget)
        out.extend(widget.children)
    return out


def row(*children: W) -> W:
    return W("row", children=list(children))


def _keyboard(device: DeviceProfile, top: int) -> list[Placed]:
    dp, width = device.dp, device.width
    bottom = device.height - round(NAVBAR * dp)
    placed = [Placed(W("label", "keyboard", key="keyboard"), (0, top, width, bottom), "keyboard")]
    enter_w = round(64 * dp)
    enter_h = round(44 * dp)
    box = (width - enter_w - 4, bottom - enter_h - 4, width - 4, bottom - 4)
    placed.append(Placed(W("button", "Go", key="kb_enter"), box, "keyboard"))
    return placed


def layout_popup(popup: Popup, device: DeviceProfile) -> Layout:
    """A dialog centred on the screen; only its own widgets can be touched."""
    dp, width, height = device.dp, device.width, device.height
    box_w = min(width - round(40 * dp), round(320 * dp))
    margin = round(16 * dp)
    inner = box_w - 2 * margin
    lines = _wrap(popup.text, inner, FONT["text"] * dp) if popup.text else []
    rows: list[W] = [W("label", popup.title, key="dialog_title")]
    rows += [W("text", line, key="dialog_message") for line in lines]
    rows += popup.items
    if popup.buttons:
        rows.append(row(*popup.buttons))
    total = sum(round(_height(r) * dp) + round(4 * dp) for r in rows) + 2 * margin
    x1 = (width - box_w) // 2
    y1 = max(round(STATUS * dp), (height - total) // 2)
    out = Layout(dialog_box=(x1, y1, x1 + box_w, y1 + total))
    y = y1 + margin
    for widget in rows:
        out.placed.extend(_place_row(widget, x1 + margin, y, x1 + box_w - margin, dp, "popup"))
        y += round(_height(widget) * dp) + round(4 * dp)
    return out
