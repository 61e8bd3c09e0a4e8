"""SimPhone's screen as Android's ``uiautomator dump`` writes it.

A real dump is a nested hierarchy of every view of the focused window: framework containers
(the decor ``FrameLayout``, ``android:id/content``), the app's layouts, lists and bars with
class names and no text, and the leaves that carry text. Ids are ``package:id/name`` with the
app's package (``com.simphone.shop:id/price``) or the framework's (``android:id/title`` on a
dialog's title). Dialogs are windows of their own, so a dump taken while one is showing holds
only the dialog, as on a phone.

Used by the ``android`` skin (the elements an Android phone would report) and by the fake ADB
device (``guigraph sim adb-server``), whose ``uiautomator dump`` returns this text.
"""

from __future__ import annotations

import re
from xml.sax.saxutils import quoteattr

from guigraph.envs.simphone.devices import DeviceProfile
from guigraph.envs.simphone.layout import Layout, Placed
from guigraph.envs.simphone.phone import CLASS_NAMES, PhoneView

#: The launcher's package: SimPhone's home screen and recent apps.
LAUNCHER_PACKAGE = "com.android.launcher3"
LAUNCHER_ACTIVITY = "com.android.launcher3.uioverrides.QuickstepLauncher"
#: Packages of SimPhone's apps are ``com.simphone.<app>``.
PACKAGE_PREFIX = "com.simphone."


#: Characters XML 1.0 cannot hold, even escaped (control characters but tab, newline, return).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_chars(value: str) -> str:
    """As uiautomator's dumper does (``stripInvalidXMLChars``): a character XML cannot hold
    becomes ``.`` so that a field holding a NUL still dumps."""
    return _NOT_XML.sub(".", value)


def package_of(app: str) -> str:
    """The package of a SimPhone app key (``shop`` -> ``com.simphone.shop``)."""
    return LAUNCHER_PACKAGE if app in ("", "system") else f"{PACKAGE_PREFIX}{app}"


def activity_of(app: str) -> str:
    """The activity ``dumpsys`` reports in front (one per app: screens are fragments)."""
    return LAUNCHER_ACTIVITY if app in ("", "system") else f"{package_of(app)}.MainActivity"


def app_of_package(package: str) -> str | None:
    """The SimPhone app key of a package, or None when it is none of SimPhone's."""
    if package == LAUNCHER_PACKAGE:
        return "system"
    if package.startswith(PACKAGE_PREFIX):
        return package.removeprefix(PACKAGE_PREFIX)
    return None


class _Node:
    """One ``<node>``: attributes as uiautomator names them, and its children."""

    def __init__(self, cls: str, box: tuple[int, int, int, int], **attrs: object) -> None:
        self.cls, self.box, self.attrs = cls, box, attrs
        self.children: list[_Node] = []

    def add(self, child: _Node) -> _Node:
        self.children.append(child)
        return child

    def write(self, out: list[str], package: str, index: int, depth: int) -> None:
        a = self.attrs
        x1, y1, x2, y2 = self.box
        fields = {
            "index": str(index),
            "text": str(a.get("text", "")),
            "resource-id": str(a.get("rid", "")),
            "class": self.cls,
            "package": package,
            "content-desc": str(a.get("desc", "")),
            "checkable": _b(a.get("checked") is not None),
            "checked": _b(bool(a.get("checked"))),
            "clickable": _b(bool(a.get("clickable"))),
            "enabled": "true",
            "focusable": _b(bool(a.get("clickable") or a.get("editable"))),
            "focused": _b(bool(a.get("focused"))),
            "scrollable": _b(bool(a.get("scrollable"))),
            "long-clickable": _b(bool(a.get("long"))),
            "password": "false",
            "selected": "false",
            "bounds": f"[{x1},{y1}][{x2},{y2}]",
        }
        attrs = " ".join(f"{k}={quoteattr(_xml_chars(v))}" for k, v in fields.items())
        pad = "  " * depth
        if not self.children:
            out.append(f"{pad}<node {attrs} />")
            return
        out.append(f"{pad}<node {attrs}>")
        for i, child in enumerate(self.children):
            child.write(out, package, i, depth + 1)
        out.append(f"{pad}</node>")


def _b(value: bool) -> str:
    return "true" if value else "false"


def hierarchy_xml(view: PhoneView, device: DeviceProfile, rotation: int = 0) -> str:
    """The uiautomator XML of what ``view`` shows on ``device``."""
    package = package_of(view.app)
    full = (0, 0, device.width, device.height)
    decor = _Node("android.widget.FrameLayout", full)
    if view.popup is not None and view.popup.dialog_box is not None:
        content = decor.add(
            _Node("android.widget.FrameLayout", view.popup.dialog_box, rid="android:id/content")
        )
        _dialog(content, view.popup, view)
    else:
        frame = decor.add(_Node("android.widget.LinearLayout", full))
        content = frame.add(_Node("android.widget.FrameLayout", full, rid="android:id/content"))
        _screen(content, view, device)
    out = [
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>",
        f'<hierarchy rotation="{rotation}">',
    ]
    decor.write(out, package, 0, 1)
    out.append("</hierarchy>")
    return "\n".join(out) + "\n"


def _rid(app: str, key: str) -> str:
    return f"{package_of(app)}:id/{key}" if key else ""


def _leaf(placed: Placed, view: PhoneView, focus: str | None) -> _Node:
    w = placed.widget
    return _Node(
        CLASS_NAMES.get(w.kind, "android.view.View"),
        placed.box,
        text=w.text,
        desc=w.placeholder or w.sub,
        rid=_rid(view.app, view.resource_name(w.key)),
        clickable=w.clickable,
        editable=w.kind == "input",
        focused=w.kind == "input" and focus == w.key,
        checked=w.checked,
        long=w.long is not None,
    )


def _span(placed: list[Placed]) -> tuple[int, int, int, int]:
    return (
        min(p.box[0] for p in placed),
        min(p.box[1] for p in placed),
        max(p.box[2] for p in placed),
        max(p.box[3] for p in placed),
    )


def _fill(parent: _Node, placed: list[Placed], view: PhoneView, focus: str | None) -> None:
    """Leaves in order; a row's children (placed right after it) go into a horizontal
    LinearLayout of the row's box."""
    owed, target = 0, parent
    for p in placed:
        if p.widget.kind == "row":
            target = parent.add(_Node("android.widget.LinearLayout", p.box))
            owed = len(p.widget.children)
            continue
        if owed == 0:
            target = parent
        owed = max(0, owed - 1)
        w = p.widget
        if (w.kind == "label" and w.key == "keyboard") or not (w.text or w.clickable):
            continue
        target.add(_leaf(p, view, focus))


def _screen(content: _Node, view: PhoneView, device: DeviceProfile) -> None:
    app, layout, focus = view.app, view.layout, view.focus
    full = (0, 0, device.width, device.height)
    root = content.add(_Node("android.widget.LinearLayout", full, rid=_rid(app, "root")))
    regions: dict[str, list[Placed]] = {}
    for placed in layout.placed:
        regions.setdefault(placed.region, []).append(placed)
    if regions.get("appbar"):
        bar = root.add(
            _Node("android.view.ViewGroup", _span(regions["appbar"]), rid=_rid(app, "toolbar"))
        )
        _fill(bar, regions["appbar"], view, focus)
    if regions.get("header"):
        head = root.add(
            _Node("android.widget.LinearLayout", _span(regions["header"]), rid=_rid(app, "header"))
        )
        _fill(head, regions["header"], view, focus)
    body_box = layout.body_box
    scrolls = layout.max_scroll > 0
    body = root.add(
        _Node(
            "androidx.recyclerview.widget.RecyclerView"
            if scrolls
            else "android.widget.LinearLayout",
            body_box,
            rid=_rid(app, "list" if scrolls else "body"),
            scrollable=scrolls,
        )
    )
    _fill(body, regions.get("body", []), view, focus)
    for region, cls, key in (
        ("bottom", "android.widget.LinearLayout", "bottom_bar"),
        ("fab", "android.widget.FrameLayout", "fab_frame"),
        ("keyboard", "android.widget.FrameLayout", "keyboard"),
    ):
        if regions.get(region):
            holder = root.add(_Node(cls, _span(regions[region]), rid=_rid(app, key)))
            _fill(holder, regions[region], view, focus)


#: The dialog's texts and the framework ids AlertDialog gives them.
_DIALOG_TEXT_IDS = {"dialog_title": "android:id/title", "dialog_message": "android:id/message"}


def _dialog(content: _Node, popup: Layout, view: PhoneView) -> None:
    """A dialog as AlertDialog lays it out: title and message under framework ids."""
    assert popup.dialog_box is not None
    panel = content.add(
        _Node("android.widget.LinearLayout", popup.dialog_box, rid=_rid(view.app, "parentPanel"))
    )
    rest: list[Placed] = []
    for placed in popup.placed:
        rid = _DIALOG_TEXT_IDS.get(placed.widget.key)
        if rid is None:
            rest.append(placed)
        else:
            text = placed.widget.text
            panel.add(_Node("android.widget.TextView", placed.box, text=text, rid=rid))
    _fill(panel, rest, view, None)
