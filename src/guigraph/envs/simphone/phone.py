"""The phone itself: what is on screen now, and what a touch or key does to the world.

``PhoneView`` is computed from the world on demand (screens are functions of state); gestures
go through :class:`Phone`, which returns a short note on what happened and an error string when
a phone would refuse (typing with no focused field, a tap outside the glass).
"""

from __future__ import annotations

from dataclasses import dataclass

from guigraph.envs.simphone import apps  # noqa: F401 - registers every screen
from guigraph.envs.simphone.devices import DeviceProfile
from guigraph.envs.simphone.ids import id_name
from guigraph.envs.simphone.layout import Layout, Placed, layout_popup, layout_screen
from guigraph.envs.simphone.render import Painter
from guigraph.envs.simphone.widgets import APPS, POPUPS, SCREENS, Screen, W
from guigraph.envs.simphone.world import HOME, Entry, World
from guigraph.geometry import BBox
from guigraph.types import ScrollDirection, UIElement

CLASS_NAMES = {
    "text": "android.widget.TextView",
    "label": "android.widget.TextView",
    "big": "android.widget.TextView",
    "item": "android.widget.LinearLayout",
    "button": "android.widget.Button",
    "input": "android.widget.EditText",
    "toggle": "android.widget.Switch",
    "tab": "android.widget.TabWidget",
    "icon": "android.widget.ImageButton",
    "image": "android.widget.ImageView",
    "chip": "android.widget.CompoundButton",
}


@dataclass
class PhoneView:
    identity: str
    app: str
    screen: Screen
    layout: Layout
    popup: Layout | None
    focus: str | None
    #: The app's version: version 2 of a versioned app reports renamed resource ids.
    version: int = 1

    def resource_name(self, key: str) -> str:
        """The name a widget ``key`` has in this app version's resource ids."""
        return id_name(self.app, key, self.version)

    def touchable(self) -> list[Placed]:
        """Widgets a touch can reach, topmost first (a dialog hides everything beneath)."""
        if self.popup is not None:
            return list(reversed(self.popup.leaves()))
        return list(reversed(self.layout.leaves()))

    def visible(self) -> list[Placed]:
        return self.popup.leaves() if self.popup is not None else self.layout.leaves()


def current_view(world: World, device: DeviceProfile) -> PhoneView:
    if world.showing_recents:
        name = "system.recents"
    elif world.app == HOME:
        name = "system.home"
    else:
        entry = world.entry
        assert entry is not None
        name = entry.screen
    entry = world.entry if name not in ("system.home", "system.recents") else None
    if entry is not None and world.is_loading():
        screen = Screen(SCREENS[name](world, entry).title, body=[W("text", "Loading...")])
    elif entry is not None:
        screen = SCREENS[name](world, entry)
    else:
        screen = SCREENS[name](world, Entry(name))
    focus = entry.focus if entry is not None else None
    layout = layout_screen(screen, device, entry.scroll if entry else 0, focus)
    if entry is not None:
        entry.scroll = layout.scroll
        if not layout.keyboard:
            entry.focus = None
    popup_layout = None
    identity = name
    if entry is not None and entry.popup is not None:
        popup_layout = layout_popup(POPUPS[entry.popup](world, entry), device)
        identity = entry.popup
    app = name.split(".", 1)[0]
    focus = entry.focus if entry else None
    return PhoneView(identity, app, screen, layout, popup_layout, focus, world.version(app))


def render(world: World, device: DeviceProfile, view: PhoneView) -> bytes:
    app = view.app
    accent = APPS[app][2] if app in APPS else (60, 64, 72)
    painter = Painter(device, accent, bool(world.data.settings.get("dark_mode")))
    if view.identity == "system.home":
        painter.image.paste((46, 70, 110), (0, 0, device.width, device.height))
    painter.paint(view.layout, view.focus)
    if view.popup is not None and view.popup.dialog_box is not None:
        painter.dim(view.popup.dialog_box)
        painter.paint(view.popup, None)
    painter.chrome("9:41")
    return painter.png()


def elements(view: PhoneView, device: DeviceProfile) -> tuple[UIElement, ...]:
    out = []
    sx, sy = 1000.0 / device.width, 1000.0 / device.height
    scroll_box = None
    if view.popup is None and view.layout.max_scroll > 0:
        scroll_box = view.layout.body_box
    for placed in view.visible():
        w = placed.widget
        if (w.kind == "label" and w.key == "keyboard") or not (w.text or w.clickable):
            continue
        x1, y1, x2, y2 = placed.box
        box = BBox(max(0.0, x1 * sx), max(0.0, y1 * sy), min(1000.0, x2 * sx), min(1000.0, y2 * sy))
        out.append(
            UIElement(
                bbox=box,
                text=w.text,
                content_desc=w.placeholder or w.sub,
                class_name=CLASS_NAMES.get(w.kind, "android.view.View"),
                resource_id=f"{view.app}:id/{view.resource_name(w.key)}" if w.key else "",
                clickable=w.clickable,
                editable=w.kind == "input",
                focused=w.kind == "input" and view.focus == w.key,
                checked=bool(w.checked),
            )
        )
    if scroll_box is not None:
        x1, y1, x2, y2 = scroll_box
        out.append(
            UIElement(
                BBox(
                    round(x1 * sx, 1),
                    round(y1 * sy, 1),
                    round(min(1000.0, x2 * sx), 1),
                    round(min(1000.0, y2 * sy), 1),
                ),
                class_name="androidx.recyclerview.widget.RecyclerView",
                resource_id=f"{view.app}:id/list",
                scrollable=True,
            )
        )
    return tuple(out)


def describe(view: PhoneView) -> str:
    """A one-line caption of the screen, as GUIOdyssey's ``description`` field gives."""
    texts = [p.widget.text for p in view.visible() if p.widget.text and p.widget.key != "keyboard"]
    shown = ", ".join(dict.fromkeys(t for t in texts if t not in ("<",)))
    label = APPS[view.app][0] if view.app in APPS else "Home"
    return f"{label} screen: {shown[:300]}"


def hit(view: PhoneView, x_px: float, y_px: float) -> Placed | None:
    for placed in view.touchable():
        x1, y1, x2, y2 = placed.box
        if x1 <= x_px <= x2 and y1 <= y_px <= y2 and placed.widget.kind != "row":
            return placed
    return None


def scroll_step(view: PhoneView, direction: ScrollDirection) -> int:
    """How many rows a swipe moves: a page less one row, so context stays on screen."""
    page = max(1, view.layout.shown_rows - 1)
    return page if direction is ScrollDirection.UP else -page
