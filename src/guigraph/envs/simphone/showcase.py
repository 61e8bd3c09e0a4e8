"""Rendering a chosen screen for a person to look at (``guigraph sim show``, docs images)."""

from __future__ import annotations

from typing import Any

from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.expert import Expert
from guigraph.envs.simphone.tasks import make_task, plan_for
from guigraph.types import Action, ActionType

MAX_STEPS = 120


def screen_of_task(
    template_id: str,
    seed: int,
    step: int = -1,
    device: str = "Pixel 7 Pro",
    version: int = 1,
    screen: str = "",
) -> tuple[bytes, str, str]:
    """PNG, screen identity and instruction after ``step`` expert actions (-1: the last screen),
    or of the screen type ``screen`` in the task's world.

    Pop-ups are off so that the picture shows the task's own screens.
    """
    task = make_task(template_id, seed)
    env = SimPhone(device, version=version, popup_rate=0.0)
    observation = env.reset(task, seed)
    if screen:
        open_screen(env, screen)
        png = env.step(Action(ActionType.WAIT, seconds=1.0)).observation.png_bytes()
        return png, env.screen_identity(), task.instruction
    expert = Expert(env, plan_for(task, env.world), seed)
    taken = 0
    while step < 0 or taken < step:
        action = expert.next_action()
        if action.type is ActionType.COMPLETE or taken >= MAX_STEPS:
            break
        observation = env.step(action).observation
        taken += 1
    identity = env.screen_identity()
    env.close()
    return observation.png_bytes(), identity, task.instruction


#: Parameters that put each screen that needs some on a meaningful page.
SCREEN_PARAMS: dict[str, dict[str, Any]] = {
    "shop.results": {"query": "lamp"},
    "shop.product": {"pid": 0},
    "browser.results": {"query": "jazz"},
    "browser.article": {"aid": 0},
    "calendar.event": {"index": 0},
    "music.player": {"sid": 1},
    "music.lyrics": {"sid": 1},
    "music.playlist": {"name": "Favorites"},
    "video.results": {"query": "pasta"},
    "video.player": {"vid": 0},
    "gallery.photo": {"index": 0},
    "camera.review": {"name": "IMG_1"},
    "messages.chat": {"contact": "Alice"},
    "social.post": {"index": 0},
    "weather.city": {"city": "Paris"},
    "weather.forecast": {"city": "Paris"},
    "mail.view": {"index": 0},
}
#: The screen each pop-up appears over (rate-this-app dialogs appear over the app's first screen).
POPUP_BASE: dict[str, str] = {
    "notes.popup_delete": "notes.list",
    "calendar.popup_delete": "calendar.event",
    "music.popup_add_to_playlist": "music.player",
    "video.popup_share": "video.player",
    "gallery.popup_share": "gallery.photo",
    "camera.popup_permission": "camera.viewfinder",
    "browser.popup_cookies": "browser.article",
}


def open_screen(env: SimPhone, identity: str) -> None:
    """Put a reset SimPhone straight onto ``identity`` (a screen or a pop-up)."""
    from guigraph.envs.simphone.widgets import APPS, POPUPS, SCREENS

    world = env.world
    if identity not in SCREENS and identity not in POPUPS:
        known = ", ".join(sorted(SCREENS) + sorted(POPUPS))
        raise ValueError(f"unknown screen {identity!r}; known: {known}")
    if identity == "system.home":
        return
    if identity == "system.recents":
        world.launch("notes", APPS["notes"][1])
        world.showing_recents = True
        return
    app = identity.split(".", 1)[0]
    root = APPS[app][1]
    if identity in POPUPS:
        base = POPUP_BASE.get(identity, root)
        open_screen(env, base)
        world.show_popup(identity, index=0)
        return
    world.launch(app, root)
    world.close_popup()
    if identity != root:
        params = SCREEN_PARAMS.get(identity, {})
        if identity == "messages.chat":
            params = {"contact": world.catalog.contacts[0]}
        world.push(identity, **params)
