"""The launcher, recent apps, and the rate-this-app dialog every app can show."""

from __future__ import annotations

from guigraph.envs.simphone.widgets import (
    APPS,
    POPUPS,
    Handler,
    Popup,
    PopupFn,
    Screen,
    W,
    button,
    item,
    row,
    screen,
)
from guigraph.envs.simphone.world import Entry, World

#: Launcher order of the apps (four to a row).
LAUNCHER = (
    "browser",
    "shop",
    "music",
    "video",
    "messages",
    "social",
    "mail",
    "camera",
    "gallery",
    "notes",
    "calendar",
    "clock",
    "weather",
    "settings",
)


def open_app(name: str) -> Handler:
    def handler(world: World) -> None:
        world.launch(name, APPS[name][1])

    return handler


@screen("system.home")
def home(world: World, entry: Entry) -> Screen:
    icons = [
        W("icon", APPS[name][0], key=f"app_{name}", tap=open_app(name), color=APPS[name][2])
        for name in LAUNCHER
        if name in APPS
    ]
    rows = [row(*icons[i : i + 4]) for i in range(0, len(icons), 4)]
    if len(rows[-1].children) < 4:
        rows[-1].children += [W("text", "") for _ in range(4 - len(rows[-1].children))]
    return Screen("", body=[W("text", ""), *rows], appbar=False)


def _switch_to(name: str) -> Handler:
    def handler(world: World) -> None:
        world.launch(name, APPS[name][1])

    return handler


def _clear(world: World) -> None:
    world.recents.clear()
    world.stacks.clear()
    world.go_home()


@screen("system.recents")
def recents(world: World, entry: Entry) -> Screen:
    cards = [
        item(APPS[name][0], sub="Recent", key=f"recent_{name}", tap=_switch_to(name))
        for name in world.recents
    ]
    body = cards or [W("text", "No recent items")]
    return Screen(
        "Recent apps", body=body, bottom=[button("Clear all", "clear_all", _clear)], up=False
    )


def _rate_popup(app_name: str) -> PopupFn:
    def build(world: World, entry: Entry) -> Popup:
        def rate(w: World) -> None:
            w.data.rated.append(app_name)
            w.close_popup()

        return Popup(
            f"Enjoying {APPS[app_name][0]}?",
            "Tap Rate now to leave a review in the store. It only takes a moment.",
            buttons=[
                button("Not now", "dismiss", lambda w: w.close_popup()),
                button("Rate now", "rate_now", rate),
            ],
        )

    return build


def register_rate_popups() -> None:
    for name in APPS:
        POPUPS[f"{name}.popup_rate"] = _rate_popup(name)
