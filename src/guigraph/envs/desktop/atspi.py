"""Applications' accessibility trees over AT-SPI, spoken on D-Bus (``jeepney``, pure Python).

The session bus names the accessibility bus (``org.a11y.Bus.GetAddress``); on it the registry
lists the applications, and every widget is an object answering ``org.a11y.atspi.Accessible``
(name, role, states, children, relations) and, where it has them, ``Component`` (its box on
the screen) and ``Text`` (what a text field holds); a nameless field is named by its label
(``envs.desktop.naming``). A tree is read one level at a time with every call of
the level sent before the first reply is read, so a screen of a few hundred widgets costs a
dozen round trips; subtrees that are not showing (a closed menu) are not entered.

Every reply is awaited at most ``timeout_s``: an application that stops answering is an
:class:`AtspiTimeout`, never a hang.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from guigraph.envs.desktop.naming import labelled_by, name_fields
from guigraph.errors import EnvError, require

ACCESSIBLE = "org.a11y.atspi.Accessible"
COMPONENT = "org.a11y.atspi.Component"
TEXT = "org.a11y.atspi.Text"
PROPERTIES = "org.freedesktop.DBus.Properties"
REGISTRY = ("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root")
#: Longest text read from one text widget (a document is read whole up to this).
MAX_TEXT = 20_000
#: Deepest level read (GTK trees are rarely deeper than 20).
MAX_DEPTH = 40

#: AT-SPI's state bits (``AtspiStateType``), in bit order; the ones guigraph reads are named.
STATE_NAMES: tuple[str, ...] = (
    "invalid", "active", "armed", "busy", "checked", "collapsed", "defunct", "editable",
    "enabled", "expandable", "expanded", "focusable", "focused", "has_tooltip", "horizontal",
    "iconified", "modal", "multi_line", "multiselectable", "opaque", "pressed", "resizable",
    "selectable", "selected", "sensitive", "showing", "single_line", "stale", "transient",
    "vertical", "visible", "manages_descendants", "indeterminate", "required", "truncated",
    "animated", "invalid_entry", "supports_autocompletion", "selectable_text", "is_default",
    "visited", "checkable", "has_popup", "read_only",
)  # fmt: skip


class AtspiTimeout(EnvError):
    """An application (or the accessibility bus) did not answer in time."""


@dataclass(frozen=True, slots=True)
class Node:
    """One showing widget: its role ("push button"), name, description, text (text widgets),
    states, box on the screen (x, y, width, height) and depth in its application's tree."""

    role: str
    name: str
    description: str
    text: str
    states: frozenset[str]
    box: tuple[int, int, int, int]
    depth: int


@dataclass(frozen=True, slots=True)
class Application:
    """An application on the accessibility bus: its D-Bus name, root object and name."""

    bus_name: str
    path: str
    name: str


def states_of(words: Sequence[int]) -> frozenset[str]:
    bits = sum(int(word) << (32 * i) for i, word in enumerate(words))
    return frozenset(name for i, name in enumerate(STATE_NAMES) if bits >> i & 1)


class AccessibilityBus:
    """A connection to one session's accessibility bus."""

    def __init__(self, session_bus: str, timeout_s: float = 2.0) -> None:
        self.timeout_s = timeout_s
        self._jeepney = require("jeepney", "desktop")
        self._blocking = require("jeepney.io.blocking", "desktop")
        self._conn: Any = None
        self._pids: dict[str, int] = {}
        session = self._open(session_bus, "the D-Bus session bus")
        try:
            call = self._call("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress")
            reply = self._wait_all(session, [call], "the accessibility bus launcher")[0]
            self._conn = self._open(self._body(reply, "the accessibility bus")[0], "the a11y bus")
        finally:
            session.close()

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def applications(self) -> list[Application]:
        """The applications registered on the bus, with their names."""
        bus, path = REGISTRY
        reply = self._ask([self._call(bus, path, ACCESSIBLE, "GetChildren")], "the registry")[0]
        roots = [(str(b), str(p)) for b, p in self._body(reply, "the registry")[0]]
        names = self._ask(
            [self._call(b, p, PROPERTIES, "Get", "ss", (ACCESSIBLE, "Name")) for b, p in roots],
            "the applications",
        )
        return [
            Application(b, p, _value(reply, "")) for (b, p), reply in zip(roots, names, strict=True)
        ]

    def ping(self, apps: Sequence[Application]) -> None:
        """A round trip to each application (its root's child count), all at once."""
        asks = [
            self._call(a.bus_name, a.path, PROPERTIES, "Get", "ss", (ACCESSIBLE, "ChildCount"))
            for a in apps
        ]
        if asks:
            self._ask(asks, ", ".join(a.name for a in apps))

    def pid(self, app: Application) -> int:
        """The process behind ``app`` (its bus connection's), 0 when the bus cannot say."""
        if app.bus_name not in self._pids:
            ask = self._call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                "GetConnectionUnixProcessID", "s", (app.bus_name,),
            )  # fmt: skip
            reply = self._ask([ask], app.name)[0]
            self._pids[app.bus_name] = int(_first(reply, 0))
        return self._pids[app.bus_name]

    def extents(self, app: Application, paths: Sequence[str]) -> list[tuple[int, int, int, int]]:
        """The boxes on the screen (x, y, width, height) of widgets or windows of ``app``."""
        asks = [self._call(app.bus_name, p, COMPONENT, "GetExtents", "u", (0,)) for p in paths]
        boxes = []
        for reply in self._ask(asks, app.name) if asks else []:
            x, y, width, height = (int(v) for v in _first(reply, (0, 0, 0, 0)))
            boxes.append((x, y, width, height))
        return boxes

    def windows(self, app: Application) -> list[tuple[str, str, str, frozenset[str]]]:
        """An application's top-level windows: (path, role, name, states)."""
        reply = self._ask([self._call(app.bus_name, app.path, ACCESSIBLE, "GetChildren")], app.name)
        paths = [str(p) for _, p in self._body(reply[0], app.name)[0]]
        asks = []
        for path in paths:
            asks += [
                self._call(app.bus_name, path, ACCESSIBLE, "GetRoleName"),
                self._call(app.bus_name, path, PROPERTIES, "Get", "ss", (ACCESSIBLE, "Name")),
                self._call(app.bus_name, path, ACCESSIBLE, "GetState"),
            ]
        replies = self._ask(asks, app.name)
        out = []
        for i, path in enumerate(paths):
            role, name, state = replies[3 * i : 3 * i + 3]
            words = _first(state, [0, 0])
            out.append((path, str(_first(role, "")), str(_value(name, "")), states_of(words)))
        return out

    def tree(self, app: Application, roots: Iterable[str]) -> list[Node]:
        """The showing widgets under ``roots`` (window paths) in reading order of the tree
        (depth first, as a screen reader walks it)."""
        bus = app.bus_name
        found: dict[str, tuple[Node, list[str]]] = {}
        labels: dict[str, list[str]] = {}
        level = list(roots)
        depth = 0
        while level and depth <= MAX_DEPTH:
            asks = []
            for path in level:
                asks += [
                    self._call(bus, path, ACCESSIBLE, "GetState"),
                    self._call(bus, path, ACCESSIBLE, "GetChildren"),
                    self._call(bus, path, ACCESSIBLE, "GetRoleName"),
                    self._call(bus, path, PROPERTIES, "Get", "ss", (ACCESSIBLE, "Name")),
                    self._call(bus, path, PROPERTIES, "Get", "ss", (ACCESSIBLE, "Description")),
                    self._call(bus, path, COMPONENT, "GetExtents", "u", (0,)),
                    self._call(bus, path, ACCESSIBLE, "GetRelationSet"),
                ]
            replies = self._ask(asks, app.name)
            shown: list[tuple[str, frozenset[str], list[str], str, str, str, Any]] = []
            for i, path in enumerate(level):
                state, kids, role, name, desc, extents, relations = replies[7 * i : 7 * i + 7]
                states = states_of(_first(state, [0, 0]))
                if "showing" not in states or "defunct" in states:
                    continue
                labels[path] = labelled_by(_first(relations, []))
                children = [str(p) for _, p in _first(kids, [])]
                box = _first(extents, (0, 0, 0, 0))
                shown.append(
                    (path, states, children, str(_first(role, "")), str(_value(name, "")),
                     str(_value(desc, "")), tuple(int(v) for v in box))
                )  # fmt: skip
            texts = self._texts(bus, [s[0] for s in shown if _reads_text(s[1], s[3])], app.name)
            level = []
            for path, states, children, role, name, desc, box in shown:
                text = texts.get(path, "")
                found[path] = (Node(role, name, desc, text, states, box, depth), children)
                level += children
            depth += 1
        return _depth_first(name_fields(found, labels), list(roots))

    def _texts(self, bus: str, paths: list[str], app: str) -> dict[str, str]:
        asks = [self._call(bus, p, TEXT, "GetText", "ii", (0, MAX_TEXT)) for p in paths]
        replies = self._ask(asks, app) if asks else []
        return {p: str(_first(r, "")) for p, r in zip(paths, replies, strict=True)}

    # D-Bus ---------------------------------------------------------------------------------
    def _open(self, address: str, what: str) -> Any:
        try:
            return self._blocking.open_dbus_connection(bus=address)
        except Exception as exc:
            raise EnvError(f"cannot reach {what} ({address}): {exc}") from exc

    def _call(self, bus: str, path: str, iface: str, method: str, sig: str | None = None,
              body: tuple[Any, ...] = ()) -> Any:  # fmt: skip
        address = self._jeepney.DBusAddress(path, bus_name=bus, interface=iface)
        return self._jeepney.new_method_call(address, method, sig, body)

    def _ask(self, messages: list[Any], what: str) -> list[Any]:
        if self._conn is None:
            raise EnvError("the accessibility bus is closed")
        return self._wait_all(self._conn, messages, what)

    def _wait_all(self, conn: Any, messages: list[Any], what: str) -> list[Any]:
        """Send every message, then read until each has its reply (or the time is up)."""
        serials: dict[int, int] = {}
        for index, message in enumerate(messages):
            serial = next(conn.outgoing_serial)
            conn.send(message, serial=serial)
            serials[serial] = index
        replies: list[Any] = [None] * len(messages)
        deadline = time.monotonic() + self.timeout_s
        reply_field = self._jeepney.HeaderFields.reply_serial
        while serials:
            left = deadline - time.monotonic()
            try:
                if left <= 0:
                    raise TimeoutError
                message = conn.receive(timeout=left)
            except TimeoutError:
                raise AtspiTimeout(
                    f"{what} did not answer on the accessibility bus within {self.timeout_s:g} s"
                ) from None
            serial = message.header.fields.get(reply_field, -1)
            if serial in serials:
                replies[serials.pop(serial)] = message
        return replies

    def _body(self, reply: Any, what: str) -> Any:
        if reply.header.message_type != self._jeepney.MessageType.method_return:
            raise EnvError(f"{what} refused an accessibility call: {reply.body}")
        return reply.body


def _is_return(reply: Any) -> bool:
    return getattr(reply.header.message_type, "name", "") == "method_return"


def _first(reply: Any, default: Any) -> Any:
    """The first value of a method's reply, or ``default`` when the call failed (a widget
    without that interface, or gone meanwhile)."""
    return reply.body[0] if _is_return(reply) and reply.body else default


def _value(reply: Any, default: Any) -> Any:
    """A property's value (``Properties.Get`` answers a variant: (signature, value))."""
    value = _first(reply, None)
    return value[1] if isinstance(value, tuple) and len(value) == 2 else default


def _reads_text(states: frozenset[str], role: str) -> bool:
    """Whether a widget's text is read: editable fields and documents, never a password."""
    if role == "password text":
        return False
    return "editable" in states or role in {"text", "entry", "document text", "terminal"}


def _depth_first(found: dict[str, tuple[Node, list[str]]], roots: list[str]) -> list[Node]:
    out: list[Node] = []
    stack = list(reversed(roots))
    while stack:
        path = stack.pop()
        if path not in found:
            continue
        node, children = found[path]
        out.append(node)
        stack.extend(reversed(children))
    return out
