"""The system Chromium under Playwright's sync API: launched once per environment, closed for sure.

guigraph never downloads a browser: it drives the Chromium already on the machine
(``/usr/bin/chromium``, or ``GUIGRAPH_CHROMIUM`` / the ``executable`` option). Every launch
carries a ``--guigraph-owner=<tag>`` switch (Chromium ignores unknown switches), so a test or a
user can find exactly this run's browser processes; an ``atexit`` hook closes any browser still
open when Python exits, and Playwright's driver takes Chromium down with it if Python dies.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import shlex
import shutil
import threading
import weakref
from pathlib import Path
from typing import Any

from guigraph.errors import ConfigError, EnvError, require

DEFAULT_CHROMIUM = "/usr/bin/chromium"

#: Headless, no GPU, none of Chromium's own background traffic (updates, sync, first run).
LAUNCH_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
)

#: More switches for Chromium (a proxy, a remote debugging port), as a shell would split them.
EXTRA_ARGS_VAR = "GUIGRAPH_CHROMIUM_ARGS"

_counter = itertools.count()
_OPEN: weakref.WeakSet[Browser] = weakref.WeakSet()


def chromium_path(executable: str | None = None) -> str:
    """The Chromium to drive: the option, else ``GUIGRAPH_CHROMIUM``, else the system one."""
    chosen = executable or os.environ.get("GUIGRAPH_CHROMIUM") or DEFAULT_CHROMIUM
    found = shutil.which(chosen) if not Path(chosen).is_file() else chosen
    if not found:
        raise ConfigError(
            f"no Chromium at {chosen!r}: install Debian's chromium (apt-get install chromium) or "
            "point GUIGRAPH_CHROMIUM at a Chromium binary (guigraph never downloads one)"
        )
    return str(found)


def owner_tag() -> str:
    """A tag unique to this process and launch, carried on Chromium's command line."""
    return f"{os.getpid()}-{next(_counter)}"


class _Driver:
    """Playwright's driver, one per thread (the sync API works only in the thread that
    started it: rows of a workflow run side by side in threads), shared by the environments
    of that thread, each launching (and closing) a Chromium of its own through it."""

    _local = threading.local()

    @classmethod
    def acquire(cls) -> Any:
        local = cls._local
        if getattr(local, "playwright", None) is None:
            sync_api = require("playwright.sync_api", "web")
            local.playwright, local.users = sync_api.sync_playwright().start(), 0
        local.users += 1
        return local.playwright

    @classmethod
    def release(cls) -> None:
        local = cls._local
        local.users = max(0, getattr(local, "users", 0) - 1)
        playwright = getattr(local, "playwright", None)
        if local.users == 0 and playwright is not None:
            local.playwright = None
            with contextlib.suppress(Exception):  # a dead driver is what we wanted anyway
                playwright.stop()


class Browser:
    """One Chromium process, launched through the shared Playwright driver."""

    def __init__(self, executable: str | None = None, headless: bool = True) -> None:
        self.executable = chromium_path(executable)
        self.headless = headless
        self.tag = owner_tag()
        self._browser: Any = None
        self._holds_driver = False

    @property
    def running(self) -> bool:
        return self._browser is not None and self._browser.is_connected()

    def start(self) -> Any:
        """The Playwright ``Browser``, launched on first use (and again after a crash)."""
        if self.running:
            return self._browser
        self.close()
        args = [a for a in LAUNCH_ARGS if self.headless or a != "--headless"]
        args += shlex.split(os.environ.get(EXTRA_ARGS_VAR, ""))
        args.append(f"--guigraph-owner={self.tag}")
        try:
            playwright = _Driver.acquire()
            self._holds_driver = True
            self._browser = playwright.chromium.launch(
                executable_path=self.executable, headless=self.headless, args=args
            )
        except Exception as exc:  # Playwright raises its own Error; one clear line for users
            self.close()
            message = f"could not start Chromium ({self.executable}): {_first_line(exc)}"
            raise EnvError(message) from exc
        _OPEN.add(self)
        return self._browser

    def new_context(self, width: int, height: int) -> Any:
        return self.start().new_context(
            viewport={"width": width, "height": height},
            device_scale_factor=1,
            java_script_enabled=True,
            service_workers="block",
        )

    def close(self) -> None:
        """Close Chromium (and the driver, when no other browser uses it); harmless when
        already closed or crashed."""
        browser, self._browser = self._browser, None
        _OPEN.discard(self)
        if browser is not None:
            with contextlib.suppress(Exception):  # a dead browser is what we wanted anyway
                browser.close()
        if self._holds_driver:
            self._holds_driver = False
            _Driver.release()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


@atexit.register
def _close_all() -> None:
    for browser in list(_OPEN):
        browser.close()
