"""Settling on a slow machine: a request the action started counts even when its report comes
late (``envs.web.settle``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from guigraph.envs.web.settle import START_MS, PageActivity


class _Request:
    resource_type = "fetch"


class _LateReportingPage:
    """A page whose click started a fetch that answers ``answer_s`` later, but whose report of
    the request is delivered only with the answer to the next call made to the page, as a
    browser's events queued behind a busy machine are."""

    def __init__(self, answer_s: float) -> None:
        self.handlers: dict[str, Callable[[Any], None]] = {}
        self.request = _Request()
        self.answer_at = time.monotonic() + answer_s
        self.reported = self.answered = False

    def on(self, event: str, handler: Callable[[Any], None]) -> None:
        self.handlers[event] = handler

    def wait_for_timeout(self, ms: float) -> None:
        time.sleep(ms / 1000)
        if self.reported and not self.answered and time.monotonic() >= self.answer_at:
            self.answered = True
            self.handlers["requestfinished"](self.request)

    def evaluate(self, _script: str) -> object:
        if not self.reported:
            self.reported = True
            self.handlers["request"](self.request)
        return ["complete", True]


def test_a_request_reported_late_holds_the_page_until_it_is_answered() -> None:
    page = _LateReportingPage(answer_s=5 * START_MS / 1000)
    activity = PageActivity(page)
    activity.settle(timeout_s=5.0, started_action=True, read_state=False)
    assert page.reported and page.answered


def test_a_page_with_nothing_started_settles_without_waiting_for_one() -> None:
    page = _LateReportingPage(answer_s=60.0)
    page.reported = page.answered = True  # nothing in flight
    activity = PageActivity(page)
    began = time.monotonic()
    activity.settle(timeout_s=5.0, started_action=False)
    assert time.monotonic() - began < 1.0
