"""What the X server shows, read through python-xlib: the screen's pixels and its windows.

One connection per display name, opened on first use and kept (opening one costs more than
a screenshot); :func:`disconnect` closes it when the display ends.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from typing import Any

from guigraph.errors import EnvError, require

_CONNECTIONS: dict[str, Any] = {}


def connection(display: str) -> Any:
    if display not in _CONNECTIONS:
        xdisplay = require("Xlib.display", "desktop")
        try:
            _CONNECTIONS[display] = xdisplay.Display(display)
        except Exception as exc:  # Xlib raises its own DisplayConnectionError
            raise EnvError(f"cannot connect to the X display {display}: {exc}") from exc
    return _CONNECTIONS[display]


def disconnect(display: str) -> None:
    conn = _CONNECTIONS.pop(display, None)
    if conn is not None:
        with contextlib.suppress(Exception):
            conn.close()


def raw_pixels(display: str) -> tuple[int, int, bytes]:
    """The whole screen as (width, height, BGRX bytes)."""
    conn = connection(display)
    root = conn.screen().root
    geometry = root.get_geometry()
    image = root.get_image(0, 0, geometry.width, geometry.height, 2, 0xFFFFFFFF)  # ZPixmap
    return geometry.width, geometry.height, bytes(image.data)


def png_of(width: int, height: int, pixels: bytes) -> bytes:
    """PNG bytes of a raw BGRX screen (fast compression: screens are observed every step)."""
    from PIL import Image

    image = Image.frombytes("RGB", (width, height), pixels, "raw", "BGRX")
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def window_manager_running(display: str) -> bool:
    """Whether a window manager has announced itself (EWMH ``_NET_SUPPORTING_WM_CHECK``)."""
    try:
        conn = connection(display)
    except EnvError:
        return False
    atom = conn.intern_atom("_NET_SUPPORTING_WM_CHECK")
    prop = conn.screen().root.get_full_property(atom, 0)
    return prop is not None and bool(prop.value)


@dataclass(frozen=True, slots=True)
class ActiveWindow:
    """The window the window manager has focused: its X id, its application's class name,
    the process that owns it (``_NET_WM_PID``, 0 when unset) and its title."""

    xid: int
    wm_class: str
    pid: int
    title: str


def active_window(display: str) -> ActiveWindow | None:
    """The focused top-level window by EWMH's ``_NET_ACTIVE_WINDOW``; None when none is."""
    conn = connection(display)
    prop = conn.screen().root.get_full_property(conn.intern_atom("_NET_ACTIVE_WINDOW"), 0)
    if prop is None or not prop.value or not prop.value[0]:
        return None
    xid = int(prop.value[0])
    window = conn.create_resource_object("window", xid)
    try:
        wm_class = window.get_wm_class()
        pid = window.get_full_property(conn.intern_atom("_NET_WM_PID"), 0)
        title = window.get_full_property(
            conn.intern_atom("_NET_WM_NAME"), conn.intern_atom("UTF8_STRING")
        )
    except Exception:  # the window closed meanwhile
        return None
    return ActiveWindow(
        xid,
        wm_class[1] if wm_class else "",
        int(pid.value[0]) if pid is not None and len(pid.value) else 0,
        _text(title.value) if title is not None else "",
    )


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def window_at(display: str, x: int, y: int) -> ActiveWindow | None:
    """The top-level window a click at (x, y) reaches: the topmost of the window manager's
    clients there (EWMH ``_NET_CLIENT_LIST_STACKING``, bottom to top); None on the desktop."""
    conn = connection(display)
    root = conn.screen().root
    stacking = root.get_full_property(conn.intern_atom("_NET_CLIENT_LIST_STACKING"), 0)
    for xid in reversed(list(stacking.value) if stacking is not None else []):
        window = conn.create_resource_object("window", int(xid))
        try:
            if window.get_attributes().map_state == 0:  # IsUnmapped
                continue
            geometry = window.get_geometry()
            origin = window.translate_coords(root, 0, 0)
            pid = window.get_full_property(conn.intern_atom("_NET_WM_PID"), 0)
            title = window.get_full_property(
                conn.intern_atom("_NET_WM_NAME"), conn.intern_atom("UTF8_STRING")
            )
        except Exception:  # the window closed meanwhile
            continue
        left, top = -origin.x, -origin.y
        if left <= x < left + geometry.width and top <= y < top + geometry.height:
            return ActiveWindow(
                int(xid),
                "",
                int(pid.value[0]) if pid is not None and len(pid.value) else 0,
                _text(title.value) if title is not None else "",
            )
    return None
