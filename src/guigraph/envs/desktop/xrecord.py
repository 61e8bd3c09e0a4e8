"""A person's input on an X display, as it happens: the RECORD extension (python-xlib).

:class:`InputListener` records the device events of every client (key and button presses and
releases: what a keyboard and a mouse send, XTEST's included) on a thread of its own and
queues them as :class:`InputEvent` records, each stamped with the monotonic time it arrived,
and with its key's name read from the display's keymap (``Return``, ``s``, ``S``).
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any

from guigraph.errors import EnvError, require

KEY_PRESS, KEY_RELEASE, BUTTON_PRESS, BUTTON_RELEASE = 2, 3, 4, 5
SHIFT_MASK, CONTROL_MASK, ALT_MASK, SUPER_MASK = 1, 4, 8, 64


@dataclass(frozen=True, slots=True)
class InputEvent:
    """One key or button event: ``kind`` is KEY_PRESS..BUTTON_RELEASE, ``detail`` the button,
    ``key`` the keysym's name as the modifiers make it (``a``/``A``), ``base_key`` the name
    without them (``a``), ``char`` the character it types ("" for none), ``state`` the
    modifier mask before it, ``x``/``y`` the pointer, ``server_ms`` the server's time and
    ``arrived`` the monotonic time it reached us."""

    kind: int
    detail: int
    x: int
    y: int
    state: int
    server_ms: int
    arrived: float
    key: str = ""
    base_key: str = ""
    char: str = ""


class InputListener:
    """Records the display's input events until :meth:`close`."""

    def __init__(self, display: str) -> None:
        self.display_name = display
        xdisplay = require("Xlib.display", "desktop")
        self._record_ext = require("Xlib.ext.record", "desktop")
        self._rq = require("Xlib.protocol.rq", "desktop")
        self._xk = require("Xlib.XK", "desktop")
        try:
            self._control = xdisplay.Display(display)
            self._record = xdisplay.Display(display)
        except Exception as exc:
            raise EnvError(f"cannot connect to the X display {display}: {exc}") from exc
        if not self._control.has_extension("RECORD"):
            self._control.close()
            self._record.close()
            raise EnvError(f"the X display {display} has no RECORD extension: cannot record")
        self.events: queue.Queue[InputEvent] = queue.Queue()
        self._names: dict[int, str] | None = None
        self._context = self._control.record_create_context(
            0,
            [self._record_ext.AllClients],
            [
                {
                    "core_requests": (0, 0), "core_replies": (0, 0),
                    "ext_requests": (0, 0, 0, 0), "ext_replies": (0, 0, 0, 0),
                    "delivered_events": (0, 0), "device_events": (KEY_PRESS, BUTTON_RELEASE),
                    "errors": (0, 0), "client_started": False, "client_died": False,
                }
            ],
        )  # fmt: skip
        self._control.sync()  # the context exists before the other connection enables it
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, name="x-record", daemon=True)
        self._thread.start()
        if not self._started.wait(5.0):
            self.close()
            raise EnvError(f"recording the input of {display} did not start")

    def _run(self) -> None:
        with contextlib.suppress(Exception):  # the display went away: recording ends
            self._record.record_enable_context(self._context, self._on_reply)

    def _on_reply(self, reply: Any) -> None:
        self._started.set()
        if reply.category != self._record_ext.FromServer or reply.client_swapped:
            return
        data = reply.data
        while len(data) >= 32:
            event, data = self._rq.EventField(None).parse_binary_value(
                data, self._record.display, None, None
            )
            if KEY_PRESS <= event.type <= BUTTON_RELEASE:
                self.events.put(self._event(event))

    def _event(self, event: Any) -> InputEvent:
        key = base = char = ""
        if event.type in (KEY_PRESS, KEY_RELEASE):
            shifted = 1 if event.state & SHIFT_MASK else 0
            sym = self._record.keycode_to_keysym(event.detail, shifted) or (
                self._record.keycode_to_keysym(event.detail, 0)
            )
            base_sym = self._record.keycode_to_keysym(event.detail, 0)
            key, base = self._name(sym), self._name(base_sym)
            char = _char_of(sym)
        return InputEvent(
            event.type, event.detail, event.root_x, event.root_y, event.state, event.time,
            time.monotonic(), key, base, char,
        )  # fmt: skip

    def _name(self, keysym: int) -> str:
        """A keysym's X name (``Return``, ``s``, ``S``, ``period``)."""
        if self._names is None:
            self._xk.load_keysym_group("latin1")
            self._xk.load_keysym_group("miscellany")
            self._names = {}
            for name, value in vars(self._xk).items():
                if name.startswith("XK_") and isinstance(value, int):
                    self._names.setdefault(value, name[3:])
        return self._names.get(keysym, "")

    def close(self) -> None:
        """Stop recording; harmless twice."""
        with contextlib.suppress(Exception):
            self._control.record_disable_context(self._context)
            self._control.flush()
        self._thread.join(timeout=2.0)
        with contextlib.suppress(Exception):
            self._control.record_free_context(self._context)
        for conn in (self._control, self._record):
            with contextlib.suppress(Exception):
                conn.close()


def _char_of(keysym: int) -> str:
    """The printable character a keysym types ("" for keys that type none)."""
    if 0x20 <= keysym <= 0x7E or 0xA0 <= keysym <= 0xFF:  # Latin-1: the code point
        return chr(keysym)
    if keysym & 0xFF000000 == 0x01000000:  # Unicode keysyms
        return chr(keysym & 0x00FFFFFF)
    return ""
