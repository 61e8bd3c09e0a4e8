"""The world registry: ``make(name, **options)`` builds any world by its name.

Worlds are named by an import path (``module:Class``) so that listing them imports nothing
heavy: a browser or ADB library loads only when its world is made. A world outside guigraph
registers itself with :func:`register`.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass
from typing import Any

from guigraph.envs.base import Env
from guigraph.errors import ConfigError


@dataclass(frozen=True, slots=True)
class WorldEntry:
    name: str
    target: str  # "package.module:Factory"
    summary: str

    def factory(self) -> Any:
        module, _, attr = self.target.partition(":")
        return getattr(importlib.import_module(module), attr)


_WORLDS: dict[str, WorldEntry] = {}


def register(name: str, target: str, summary: str = "") -> None:
    """Add a world; ``target`` is ``module:callable`` returning an :class:`Env`."""
    if ":" not in target:
        raise ConfigError(f"world {name!r}: target must be 'module:callable', got {target!r}")
    _WORLDS[name] = WorldEntry(name, target, summary)


def names() -> list[str]:
    return sorted(_WORLDS)


def entries() -> list[WorldEntry]:
    return [_WORLDS[name] for name in names()]


def make(name: str, **options: Any) -> Env:
    """A fresh world; unknown names and options are a :class:`ConfigError` that says what
    exists (with the closest name when it looks like a typo)."""
    entry = _WORLDS.get(name.strip().lower())
    if entry is None:
        close = difflib.get_close_matches(name.strip().lower(), names(), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ConfigError(f"unknown world {name!r}{hint} (available: {', '.join(names())})")
    factory = entry.factory()
    try:
        env = factory(**options)
    except TypeError as exc:
        raise ConfigError(f"world {entry.name!r}: {exc}") from exc
    if not isinstance(env, Env):
        raise ConfigError(f"world {entry.name!r} made a {type(env).__name__}, not an Env")
    return env


register(
    "simphone",
    "guigraph.envs.simphone.env:SimPhone",
    "the embedded simulated phone (options: device, version, skin, popup_rate)",
)
register(
    "android",
    "guigraph.envs.android.env:AndroidEnv",
    "a phone or emulator over ADB (options: serial, settle_timeout_s, settle_poll_s; the ADB "
    "server at ANDROID_ADB_SERVER_PORT)",
)
register(
    "web",
    "guigraph.envs.web.env:WebEnv",
    "web pages in the system Chromium, MiniWoB++ tasks as miniwob/<name> (options: executable, "
    "headless, timeout, viewport)",
)
register(
    "desktop",
    "guigraph.envs.desktop.env:DesktopEnv",
    "real desktop applications (mousepad, galculator, ...) on an Xvfb display of its own, "
    "tasks as mousepad/<name> or galculator/<name> (options: screen, timeout, app)",
)
