"""The widget vocabulary screens are built from, and the screen registry.

A screen is a function ``(world, entry) -> Screen``: a title, an app bar with actions, pinned
header rows, scrolling body rows, a bottom bar and an optional floating button. One layout
engine (``layout.py``) places them and one renderer (``render.py``) draws them, so an app
module only says *what* is on a screen, never where.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from guigraph.envs.simphone.world import Entry, World

Handler = Callable[["World"], None]

#: Widget kinds the renderer knows. Rows of kind "row" hold children laid out side by side.
KINDS = frozenset(
    {
        "text",
        "para",
        "item",
        "button",
        "input",
        "toggle",
        "tab",
        "icon",
        "image",
        "chip",
        "row",
        "big",
        "label",
    }
)


@dataclass
class W:
    """One widget. ``key`` becomes the element's resource id; ``tap`` what a click does."""

    kind: str
    text: str = ""
    key: str = ""
    tap: Handler | None = None
    long: Handler | None = None
    sub: str = ""
    checked: bool | None = None
    placeholder: str = ""
    submit: Handler | None = None
    children: list[W] = field(default_factory=list)
    color: tuple[int, int, int] | None = None
    #: True when the tap only opens another screen (back undoes it): the expert's noise uses it.
    nav: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown widget kind {self.kind!r}")

    @property
    def clickable(self) -> bool:
        # The keyboard's enter key has no handler of its own (the env submits the focused
        # field), but a person can tap it, so the accessibility tree must say so.
        return self.tap is not None or self.kind == "input" or self.key == "kb_enter"


@dataclass
class Screen:
    title: str
    body: list[W] = field(default_factory=list)
    header: list[W] = field(default_factory=list)
    actions: list[W] = field(default_factory=list)
    bottom: list[W] = field(default_factory=list)
    fab: W | None = None
    appbar: bool = True
    up: bool = True


@dataclass
class Popup:
    title: str
    text: str = ""
    items: list[W] = field(default_factory=list)
    buttons: list[W] = field(default_factory=list)


ScreenFn = Callable[["World", "Entry"], Screen]
PopupFn = Callable[["World", "Entry"], Popup]

SCREENS: dict[str, ScreenFn] = {}
POPUPS: dict[str, PopupFn] = {}
#: App name -> (label on the launcher, root screen, accent colour).
APPS: dict[str, tuple[str, str, tuple[int, int, int]]] = {}


def screen(name: str) -> Callable[[ScreenFn], ScreenFn]:
    def register(fn: ScreenFn) -> ScreenFn:
        if name in SCREENS:
            raise ValueError(f"screen {name!r} registered twice")
        SCREENS[name] = fn
        return fn

    return register


def popup(name: str) -> Callable[[PopupFn], PopupFn]:
    def register(fn: PopupFn) -> PopupFn:
        POPUPS[name] = fn
        return fn

    return register


def app(name: str, label: str, root: str, color: tuple[int, int, int]) -> None:
    APPS[name] = (label, root, color)


# Small constructors that keep app modules short ---------------------------------------------
def go(screen_name: str, *, loading: bool = False, **params: Any) -> Handler:
    """A handler that opens ``screen_name`` on top of the current one."""

    def handler(world: World) -> None:
        world.push(screen_name, loading=loading, **params)

    return handler


def item(text: str, sub: str = "", key: str = "", tap: Handler | None = None, **kw: object) -> W:
    return W("item", text, key=key, sub=sub, tap=tap, **kw)  # type: ignore[arg-type]


def nav_item(text: str, screen_name: str, sub: str = "", key: str = "", **params: Any) -> W:
    return W("item", text, key=key, sub=sub, tap=go(screen_name, **params), nav=True)


def button(text: str, key: str, tap: Handler | None) -> W:
    return W("button", text, key=key, tap=tap)


def text_input(key: str, placeholder: str, world: World, submit: Handler | None = None) -> W:
    return W("input", world.field(key), key=key, placeholder=placeholder, submit=submit)


def toggle(text: str, key: str, checked: bool, tap: Handler) -> W:
    return W("toggle", text, key=key, checked=checked, tap=tap)


def row(*children: W) -> W:
    return W("row", children=list(children))
