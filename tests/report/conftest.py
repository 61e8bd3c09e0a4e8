"""Fixtures for the report tests: a headless Chromium (closed after each module) and pages."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
]
VIEWPORT = {"width": 1400, "height": 1000}


def chromium_path() -> str | None:
    found = os.environ.get("GUIGRAPH_CHROMIUM") or shutil.which("chromium")
    if found:
        return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


@contextmanager
def launch_browser() -> Iterator[Any]:
    """Debian's chromium driven by Playwright (``make test`` installs it; never downloaded);
    closed, driver included, when the block ends."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="the web extra is not installed")
    executable = chromium_path()
    if executable is None:
        pytest.skip("chromium is not installed (make test installs Debian's chromium)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launch_browser() as launched:
        yield launched


class Problems(list):
    """Console errors, uncaught exceptions and dialogs (an ``alert`` means injected script)."""


@contextmanager
def open_page(browser: Any, path: Path) -> Iterator[tuple[Any, Problems]]:
    page = browser.new_page(viewport=VIEWPORT)
    problems = Problems()
    page.on(
        "console",
        lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
    )
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))

    def dialog(d: Any) -> None:
        problems.append(f"dialog: {d.message}")
        d.dismiss()

    page.on("dialog", dialog)
    try:
        page.goto(path.resolve().as_uri())
        page.wait_for_load_state("load")
        yield page, problems
    finally:
        page.close()


def shot(page: Any, out: Path, full_page: bool = False) -> Path:
    """A PNG of the page (kept in the test's tmp folder, to look at when a layout test fails)."""
    page.screenshot(path=str(out), full_page=full_page)
    assert out.stat().st_size > 5000  # something was drawn
    return out
