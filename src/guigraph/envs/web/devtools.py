"""One DevTools (Chrome DevTools Protocol) session per page, for what Playwright's API does slowly
or tells too late.

A screenshot through Playwright runs scripts in every frame before and after the capture (hide
the caret, stop animations, wait for fonts) and asks for the page's layout first: on a 1280x800
page that is a third of an observation. ``Page.captureScreenshot`` straight from DevTools, with
Chromium's fast PNG encoder (``optimizeForSpeed``: a larger file, the same pixels), is one round
trip. The world settles the page before it captures (animations have ended, ``envs.web.settle``)
and answers a page's dialog the moment it opens (``envs.web.dialogs``); a capture waits while a
dialog is open, so every call is bounded by the world's timeout all the same.

A tab the page opens (a link with a target, ``window.open``) exists in Chromium before the
click that opened it returns, but Playwright announces it only once it has set the tab up, tens
of milliseconds later on a busy machine: the session follows Chromium's own target events, so
the world knows a tab is coming and waits for it rather than for a guessed time.
"""

from __future__ import annotations

import base64
import contextlib
from typing import Any

#: The capture: the viewport as PNG, encoded for speed rather than size.
CAPTURE = {"format": "png", "optimizeForSpeed": True}


class DevTools:
    """A DevTools session on the page last asked about, opened on first use and opened again
    for another page (a new tab, a new episode) or after it failed (a page that closed).
    ``timeout_ms``: how long one call may take."""

    def __init__(self, timeout_ms: float) -> None:
        self.timeout_ms = timeout_ms
        self._page: Any = None
        self._session: Any = None
        self._target = ""  # the page's own target id
        self._tabs: set[str] = set()  # tabs the page opened, still open, not yet taken

    def send(self, page: Any, method: str, params: dict[str, Any] | None = None) -> Any:
        try:
            if self._session is None or self._page is not page:
                self._open(page)
            return self._session.send(method, params or {}, timeout=self.timeout_ms)
        except Exception:
            self.forget()
            raise

    def screenshot(self, page: Any) -> bytes:
        """The page's viewport as PNG."""
        return base64.b64decode(self.send(page, "Page.captureScreenshot", CAPTURE)["data"])

    def tabs_opened(self, page: Any) -> int:
        """How many tabs ``page`` opened (and has not closed) since :meth:`take_tabs`."""
        return len(self._tabs) if page is self._page else 0

    def take_tabs(self) -> None:
        self._tabs.clear()

    def forget(self) -> None:
        session, self._session, self._page = self._session, None, None
        self._tabs.clear()
        if session is not None:
            with contextlib.suppress(Exception):  # a page that closed took its session along
                session.detach()

    def _open(self, page: Any) -> None:
        self.forget()
        session = page.context.new_cdp_session(page)
        self._session, self._page = session, page
        own = session.send("Target.getTargetInfo", timeout=self.timeout_ms)["targetInfo"]
        self._target = str(own["targetId"])
        session.on("Target.targetCreated", self._created)
        session.on("Target.targetDestroyed", self._destroyed)
        session.send("Target.setDiscoverTargets", {"discover": True}, timeout=self.timeout_ms)

    def _created(self, event: dict[str, Any]) -> None:
        info = event.get("targetInfo") or {}
        if info.get("type") == "page" and info.get("openerId") == self._target:
            self._tabs.add(str(info.get("targetId")))

    def _destroyed(self, event: dict[str, Any]) -> None:
        self._tabs.discard(str(event.get("targetId")))
