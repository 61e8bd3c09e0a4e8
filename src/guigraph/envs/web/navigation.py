"""Reading a page whose document a navigation replaces while it is read.

A page can navigate at any moment: a login's redirect that a loaded machine starts after the
step's observation was taken, a script's ``location.href``, a reload. A read Playwright sent
to the old document then fails ("Execution context was destroyed, most likely because of a
navigation"; "Frame was detached" for a frame the new document no longer has). A read changed
nothing, so the world waits for the new document and reads it instead, a few times at most.
An action (a click, a key, choosing an option) is never repeated this way: it may be what
started the navigation, and doing it twice would double it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, TypeVar

#: What Playwright's errors say (lower case) when the document or frame read was replaced.
_REPLACED = ("execution context was destroyed", "frame was detached")
#: Reads in all, the first included, before the navigation's error is the caller's.
READ_TRIES = 3

Read = TypeVar("Read")


def replaced_by_navigation(exc: BaseException) -> bool:
    """Whether Playwright raised ``exc`` because a navigation replaced what was being read
    (not a script's own error, a timeout or a closed page)."""
    try:
        from playwright.sync_api import Error as PlaywrightError
    except ImportError:  # without Playwright there is no page to read
        return False
    message = str(exc).lower()
    return isinstance(exc, PlaywrightError) and any(phrase in message for phrase in _REPLACED)


def read_through_navigation(
    page: Any, read: Callable[[], Read], timeout_ms: float, tries: int = READ_TRIES
) -> Read:
    """``read()`` of ``page``; when a navigation replaced the document under it, wait for the
    new document's DOM (``timeout_ms`` at most) and read again, ``tries`` times in all.
    ``read`` must only read (or prepare what the old document lost anyway): it may run twice."""
    for _ in range(tries - 1):
        try:
            return read()
        except Exception as exc:
            if not replaced_by_navigation(exc) or page.is_closed():
                raise
        _await_new_document(page, timeout_ms)
    return read()


def _await_new_document(page: Any, timeout_ms: float) -> None:
    # A document still loading when the time is up is read as it is: the next read says
    # whether that works, and its error (not the wait's) is the one that reaches the team.
    with contextlib.suppress(Exception):
        page.wait_for_load_state("domcontentloaded", timeout=timeout_ms)
