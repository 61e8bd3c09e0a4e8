"""A page that navigates on its own while the world reads it (``envs.web.navigation``).

DokuWiki's login redirect, started late on a loaded machine, replaced the document while the
world looked under a tap ("Page.evaluate: Execution context was destroyed") and the row
failed. Here the page leaves for ``/next`` with its main thread busy (a heavy script, a loaded
machine): what the world sends it meanwhile runs only after the new document has replaced the
old one, so every read of the step hits the navigation, each time. Reads are made again on the
new document; the tap itself is never repeated.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from guigraph.envs.web.env import WebEnv
from guigraph.envs.web.navigation import replaced_by_navigation
from guigraph.types import Action, Observation

from .conftest import closed_after
from .site import serve

#: How long the page's main thread stays busy once it has started to leave.
BUSY_MS = 1200
#: After the new document's response: time for its commit to reach the busy page, well before
#: the page is free again (so the world's next read is queued behind the commit).
COMMIT_S = 0.3

# One button at the same spot on every page; a page counts the clicks its button had.
_BUTTON = """<button style="position: absolute; left: 40px; top: 40px; width: 200px;
  height: 60px" onclick="{onclick}">{label}</button>
  <p id="clicks" style="position: absolute; top: 200px">0</p>"""
_COUNT = "document.getElementById('clicks').textContent++"
# Leaving with the main thread busy: what the world sends meanwhile waits for the new document.
_LEAVE = f"""<script>window.leave = () => {{
  location.href = '/next';
  const end = Date.now() + {BUSY_MS};
  while (Date.now() < end) {{}}
}};</script>"""
PAGES = {
    "/start": f"""<html><body>{_BUTTON.format(onclick=_COUNT, label="Search")}
      <input aria-label="Query" style="position: absolute; left: 40px; top: 300px">
      {_LEAVE}</body></html>""",
    "/leaving": f"<html><body>{_BUTTON.format(onclick='leave()', label='Search')}{_LEAVE}"
    "</body></html>",
    "/next": f"<html><body>{_BUTTON.format(onclick=_COUNT, label='Results')}</body></html>",
}

_DESTROYED = "Execution context was destroyed, most likely because of a navigation"

TASKS = """\
[tasks.arrive]
start_url = "{base}/start"
instructions = ["Arrive at the results"]

[[tasks.arrive.checks]]
url = "{base}/next"

[[tasks.arrive.checks]]
text = "Results"
"""


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serve(PAGES) as (url, _posted):
        yield url


@pytest.fixture(scope="module")
def world(base: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebEnv]:
    tasks = tmp_path_factory.mktemp("tasks") / "tasks.toml"
    tasks.write_text(TASKS.replace("{base}", base), encoding="utf-8")
    with closed_after(WebEnv(timeout=5.0, tasks=tasks)) as env:
        yield env


def _open(env: WebEnv, seed: int = 0) -> Observation:
    return env.reset(env.make_task("arrive", seed), seed)


def _leave_while_busy(env: WebEnv) -> None:
    """The page's own script leaves for ``/next`` and keeps its main thread busy; started
    from here so that the moment is known, and waited for until the new document's answer
    is in and its commit on its way to the page."""
    page = env.page
    with page.expect_response(lambda response: response.url.endswith("/next")):
        page.evaluate("() => setTimeout(leave, 0)")
    time.sleep(COMMIT_S)


def _labels(observation: Observation) -> list[str]:
    return [element.label for element in observation.elements or ()]


def _tap_button() -> Action:
    return Action.click(140 / 1280 * 1000, 70 / 800 * 1000)  # the button's centre, per mille


def test_a_tap_while_the_page_navigates_looks_again_and_lands_once_on_the_new_page(
    world: WebEnv,
) -> None:
    assert "Search" in _labels(_open(world))
    _leave_while_busy(world)
    result = world.step(_tap_button())  # looking under the tap hits the navigation
    assert result.error is None
    assert result.observation.activity == "/next"
    assert _labels(result.observation) == ["Results", "1"]  # one click, on the new page


def test_typing_while_the_page_navigates_reads_the_new_page_and_says_why_it_cannot(
    world: WebEnv,
) -> None:
    shown = _open(world)
    query = next(e for e in shown.elements or () if e.content_desc == "Query")
    world.step(Action.click(query.bbox.center.x, query.bbox.center.y))
    _leave_while_busy(world)
    result = world.step(Action.type_text("chess"))
    # The field is gone with its page: the world's own reason, over the page that replaced it.
    assert result.error == "no element has the focus: click a field before typing"
    assert result.observation.activity == "/next" and "Results" in _labels(result.observation)


def test_the_checks_read_the_page_a_navigation_brings(world: WebEnv) -> None:
    _open(world)
    _leave_while_busy(world)
    verdict = world.evaluate()  # reads the page's text while the new document replaces it
    assert verdict is not None and verdict.success, verdict


def test_a_tap_that_starts_the_navigation_is_not_made_again(world: WebEnv, base: str) -> None:
    _open(world)
    assert world.step(Action.open_app(f"{base}/leaving")).error is None
    result = world.step(_tap_button())  # the click navigates: observing hits it, not the tap
    assert result.error is None and result.observation.activity == "/next"
    assert _labels(result.observation) == ["Results", "0"]  # the new page was never clicked


@pytest.mark.parametrize(
    ("error", "replaced"),
    [
        (PlaywrightError("Page.evaluate: " + _DESTROYED), True),
        (PlaywrightError("Frame.evaluate: Frame was detached"), True),
        (PlaywrightError("Page.evaluate: TypeError: x is undefined"), False),  # the script's own
        (PlaywrightError("Target page, context or browser has been closed"), False),
        (PlaywrightTimeout("Page.wait_for_load_state: Timeout 5000ms exceeded."), False),
        (RuntimeError(_DESTROYED), False),  # the words, but not from Playwright
    ],
)
def test_a_replaced_document_is_known_by_playwrights_error_and_its_words_only(
    error: Exception, replaced: bool
) -> None:
    assert replaced_by_navigation(error) is replaced
