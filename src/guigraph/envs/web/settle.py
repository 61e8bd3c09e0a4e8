"""When a page has settled: what an action started (a navigation, a redirect, XHR) is over.

A click that goes to the server (a login, a search, a save) returns before the browser has
even sent the request; observing then shows the old page, or fails half-way when the new
document replaces it ("Execution context was destroyed"). :class:`PageActivity` follows the
page's own requests: a settled page has no document request in flight (a POST answered by a
redirect is two), no XHR/fetch for a short quiet period, a document that finished loading and
no finite animation running. Requests that never end (long polling, event streams) stop
counting after ``XHR_CAP_S``; images and fonts never count (a page is usable before they load).
"""

from __future__ import annotations

import time
from typing import Any

#: Request kinds that change what the page shows when they answer.
_TRACKED = frozenset({"document", "xhr", "fetch"})
#: Pause after an action for what it starts (a navigation begins after the click returns).
START_MS = 40
#: Network silence that counts as settled.
QUIET_MS = 60
#: An XHR/fetch older than this is a long poll or a stream: it no longer holds the page.
XHR_CAP_S = 2.0
POLL_MS = 20
ANIMATION_MS = 1000

# True once no finite animation runs (CSS, or jQuery's, common on older pages): a click that
# expands a section has not finished when it returns. Polled every frame, for at most
# ANIMATION_MS (an endless animation does not hold the team up).
_STILL = """
  const css = document.getAnimations ? document.getAnimations().some(a =>
    a.playState === 'running' && isFinite(a.effect?.getComputedTiming().endTime)) : false;
  let jq = false;
  try { jq = window.jQuery && window.jQuery.fn && window.jQuery(':animated').length > 0; }
  catch (e) { /* a jQuery without effects knows no :animated */ }
"""
QUIET_JS = "() => {" + _STILL + "  return !(css || jq);\n}"
# The document's load state and whether it is still, in one round trip: a settled page is
# done after this one call.
STATE_JS = "() => {" + _STILL + "  return [document.readyState, !(css || jq)];\n}"


class NotSettled(Exception):
    """The page was still loading when the time ran out."""


class PageActivity:
    """Requests in flight on one page, from its own events."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self._flight: dict[Any, tuple[str, float]] = {}
        self.last_event = time.monotonic()
        page.on("request", self._started)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)
        page.on("load", self._loaded)

    def _started(self, request: Any) -> None:
        kind = request.resource_type
        if kind in _TRACKED:
            self._flight[request] = (kind, time.monotonic())
            self.last_event = time.monotonic()

    def _ended(self, request: Any) -> None:
        if self._flight.pop(request, None) is not None:
            self.last_event = time.monotonic()

    def _loaded(self, _page: Any) -> None:
        # A document that loaded answered every navigation that led to it.
        for request, (kind, _) in list(self._flight.items()):
            if kind == "document":
                del self._flight[request]
        self.last_event = time.monotonic()

    def busy(self) -> bool:
        now = time.monotonic()
        return any(
            kind == "document" or now - started < XHR_CAP_S
            for kind, started in self._flight.values()
        )

    def settle(
        self,
        timeout_s: float,
        started_action: bool,
        interrupted: Any = None,
        read_state: bool = True,
    ) -> None:
        """Wait until the page has settled; ``interrupted()`` true stops early (a dialog).
        ``read_state=False`` ends once the network is quiet: the caller reads the load state
        and stillness (``STATE_JS``) in the same round trip as its observation, and settles
        again if the page is not done."""
        page = self.page
        deadline = time.monotonic() + timeout_s
        if started_action:
            page.wait_for_timeout(START_MS)
            _round_trip(page)
        while True:
            if interrupted is not None and interrupted():
                return
            if time.monotonic() > deadline:
                raise NotSettled("the page did not finish loading in time")
            if self.busy() or (time.monotonic() - self.last_event) * 1000 < QUIET_MS:
                page.wait_for_timeout(POLL_MS)
                continue
            if not read_state:
                return
            try:
                ready, still = page.evaluate(STATE_JS)
            except Exception:  # the document is being replaced right now
                page.wait_for_timeout(POLL_MS)
                continue
            if ready != "complete":
                remaining = max(1.0, (deadline - time.monotonic()) * 1000)
                try:
                    page.wait_for_load_state("load", timeout=remaining)
                except Exception as exc:
                    raise NotSettled(f"the page did not finish loading ({_line(exc)})") from exc
                continue
            break
        if still:
            return
        try:  # still animating after a second: observe anyway
            page.wait_for_function(QUIET_JS, polling="raf", timeout=ANIMATION_MS)
        except Exception:
            return


def _round_trip(page: Any) -> None:
    """Ask the page for nothing and wait for the answer. The page reports a request it starts
    before it answers a later call, so once this returns the requests the action started are
    known: on a loaded machine their events can come later than ``START_MS``, and the page
    would be called settled with the request still to go."""
    try:
        page.evaluate("0")
    except Exception:  # the document is being replaced: its navigation is already tracked
        return


def _line(exc: BaseException) -> str:
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    return lines[0].strip() if lines else type(exc).__name__
