"""The web world in a real headless Chromium: the env contract, MiniWoB++ rewards, bad input."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from guigraph.envs import check_env, make
from guigraph.envs.web import miniwob
from guigraph.envs.web.env import WebEnv
from guigraph.envs.web.experts import SUITE, demonstrate
from guigraph.envs.web.miniwob import task_names
from guigraph.envs.web.suite import LEFT_OUT
from guigraph.types import Action, ActionType, Observation, UIElement

from .conftest import owned_pids


def _center(obs: Observation, **how: str) -> Action:
    element = _find(obs, **how)
    return Action.click(element.bbox.center.x, element.bbox.center.y)


def _find(obs: Observation, label: str = "", html_id: str = "") -> UIElement:
    for element in obs.elements or ():
        if (label and element.label == label) or (html_id and element.resource_id == html_id):
            return element
    raise AssertionError(f"no element {label or html_id!r} on the screen")


def test_check_env_passes_on_a_miniwob_task(web_env: WebEnv) -> None:
    task = web_env.make_task("miniwob/login-user", 3)
    check_env(lambda: WebEnv(timeout=5.0), task, seed=3)


def test_registry_makes_the_web_world() -> None:
    env = make("web", timeout=5.0)
    try:
        assert isinstance(env, WebEnv) and env.conventions.name == "web"
    finally:
        env.close()


def test_observation_has_elements_ids_values_and_the_site(web_env: WebEnv) -> None:
    task = web_env.make_task("miniwob/login-user", 1)
    assert task.instruction.startswith('Enter the username "')
    obs = web_env.reset(task, 1)
    assert obs.app == "login-user" and obs.activity and obs.activity.endswith("login-user.html")
    assert (obs.screen.width, obs.screen.height) == (160, 210)
    field = _find(obs, html_id="username")
    assert field.editable and field.class_name == "textbox" and not field.focused
    assert _find(obs, label="Login").clickable
    # the instruction box is the task, not the page's UI
    assert not any("Enter the username" in e.label for e in obs.elements or ())
    web_env.step(_center(obs, html_id="username"))
    result = web_env.step(Action.type_text("kanesha"))
    typed = _find(result.observation, html_id="username")
    assert typed.focused and typed.text == "kanesha" and result.error is None


def test_the_same_seed_gives_the_same_task_and_the_page_scores_it(web_env: WebEnv) -> None:
    first = web_env.make_task("miniwob/click-option", 7)
    again = web_env.make_task("miniwob/click-option", 7)
    assert first.instruction == again.instruction
    assert web_env.make_task("miniwob/click-option", 8).instruction != first.instruction
    _task, verdict = demonstrate(web_env, "click-option", 7)
    assert verdict is not None and verdict.success and verdict.reward and verdict.reward > 0


@pytest.mark.parametrize(
    ("name", "seed", "field"),
    [
        ("use-spinner", 3, "spinner"),  # 5: the up arrow
        ("use-spinner", 4, "spinner"),  # -3: the down arrow
        ("choose-date", 3, "datepicker"),  # 10/03: two months back from December
        ("choose-date-easy", 8, "datepicker"),
    ],
)
def test_widgets_that_refuse_typing_are_set_by_clicks(
    web_env: WebEnv, name: str, seed: int, field: str
) -> None:
    # Typing leaves the spinner (its keys are cancelled) and the read-only date field as
    # they were: the only honest way is the widget's arrows and days, as the expert does.
    task = web_env.make_task(f"miniwob/{name}", seed)
    obs = web_env.reset(task, seed)
    before = _find(obs, html_id=field).text
    web_env.step(_center(obs, html_id=field))
    result = web_env.step(Action.type_text("7"))
    assert _find(result.observation, html_id=field).text == before
    _task, verdict = demonstrate(web_env, name, seed)
    assert verdict is not None and verdict.success


def test_a_dialog_the_page_scrolled_sideways_out_of_view_is_shown_and_closed(
    web_env: WebEnv,
) -> None:
    # The dialog focused its close button while it was wide: the page scrolled sideways.
    obs = web_env.reset(web_env.make_task("miniwob/click-dialog", 1), 1)
    assert web_env.page.evaluate("window.scrollX") == 0
    assert any(e.label == "Close" and e.clickable for e in obs.elements or ())
    _task, verdict = demonstrate(web_env, "click-dialog", 2)
    assert verdict is not None and verdict.success


def test_a_wrong_answer_gets_the_pages_negative_reward(web_env: WebEnv) -> None:
    task = web_env.make_task("miniwob/enter-text", 2)
    obs = web_env.reset(task, 2)
    web_env.step(_center(obs, html_id="tt"))
    web_env.step(Action.type_text("surely wrong"))
    result = web_env.step(_center(obs, label="Submit"))
    assert result.done and result.info["reward"] < 0
    verdict = web_env.evaluate()
    assert verdict is not None and not verdict.success and verdict.reward == -1.0


def test_select_option_back_and_keys(web_env: WebEnv) -> None:
    task = web_env.make_task("miniwob/choose-list", 4)
    obs = web_env.reset(task, 4)
    wanted = task.instruction.split("Select ", 1)[1].split(" from the list")[0]
    combo = next(e for e in obs.elements or () if e.class_name == "combobox")
    web_env.step(Action.click(combo.bbox.center.x, combo.bbox.center.y))
    chosen = web_env.step(Action.type_text(wanted))
    assert chosen.error is None
    assert any(
        e.class_name == "combobox" and e.text == wanted for e in chosen.observation.elements or ()
    )
    missing = web_env.step(Action.type_text("no such option"))
    assert missing.error and "no option" in missing.error
    back = web_env.step(Action(ActionType.PRESS_BACK))
    assert back.error == "there is no page to go back to"
    # Refused without moving: the page was not loaded anew (a new problem, the choice lost).
    assert any(
        e.class_name == "combobox" and e.text == wanted for e in back.observation.elements or ()
    )
    assert web_env.page.evaluate("document.getElementById('query').textContent").strip() == (
        task.instruction
    )
    assert web_env.step(Action(ActionType.PRESS_HOME)).error  # not an action of the web


def test_type_without_focus_is_a_step_error(web_env: WebEnv) -> None:
    web_env.reset(web_env.make_task("miniwob/enter-text", 5), 5)
    result = web_env.step(Action.type_text("hello"))
    assert result.error and "focus" in result.error and not result.done


def test_an_element_gone_before_the_click_is_a_step_error(web_env: WebEnv) -> None:
    obs = web_env.reset(web_env.make_task("miniwob/login-user", 6), 6)
    web_env._page.evaluate("document.getElementById('subbtn').remove()")
    result = web_env.step(_center(obs, label="Login"))
    assert result.error and result.error.startswith("the element 'Login' is no longer there")
    assert not result.done


def test_navigating_away_from_the_task_is_a_step_error(web_env: WebEnv) -> None:
    web_env.reset(web_env.make_task("miniwob/login-user", 7), 7)
    # Another MiniWoB page: inside the task's folder (test_confinement: places outside it).
    result = web_env.step(Action.open_app(miniwob.task_url("enter-text")))
    assert result.error and "navigated away from the task" in result.error
    assert web_env.evaluate() is not None and not web_env.evaluate().success  # type: ignore[union-attr]


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A server on 127.0.0.1 that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/"
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        server.close()


def test_a_page_that_never_loads_is_a_step_error(silent_server: str) -> None:
    env = WebEnv(timeout=1.0, allow_origins=["127.0.0.1"])  # a blank start page has no origin
    try:
        env.reset(env.make_task("about:blank", 0), 0)
        result = env.step(Action.open_app(silent_server))
        assert result.error and result.error.startswith("the page did not load")
        assert "\n" not in result.error
    finally:
        env.close()


def test_a_crashed_browser_is_a_step_error_and_the_next_episode_restarts_it() -> None:
    import os
    import signal

    env = WebEnv(timeout=5.0)
    try:
        obs = env.reset(env.make_task("miniwob/enter-text", 1), 1)
        tag = env.browser.tag
        for pid in owned_pids(tag):
            os.kill(pid, signal.SIGKILL)
        result = env.step(_center(obs, html_id="tt"))
        assert result.error and ("crash" in result.error or "closed" in result.error)
        assert result.observation.has_screenshot
        again = env.reset(env.make_task("miniwob/enter-text", 2), 2)
        assert again.elements
    finally:
        env.close()
    assert owned_pids(env.browser.tag) == [] and owned_pids(tag) == []


def test_every_task_is_in_the_suite_or_left_out_with_a_reason() -> None:
    names = set(task_names())
    left_out = [name for group in LEFT_OUT.values() for name in group]
    assert len(SUITE) >= 12
    assert set(SUITE) <= names
    assert sorted(names - set(SUITE)) == sorted(left_out)


def test_a_date_or_time_typed_as_said_lands_in_its_segments(web_env: WebEnv) -> None:
    for name, said, value in (("enter-time", "8:04 PM", "20:04"), ("enter-date", "1/5/2020",
                                                                     "2020-01-05")):  # fmt: skip
        obs = web_env.reset(web_env.make_task(f"miniwob/{name}", 1), 1)
        field = next(e for e in obs.elements or () if e.resource_id == "tt")
        # Clicked in its middle (another segment than the first), typed with separators.
        web_env.step(Action.click(field.bbox.center.x, field.bbox.center.y))
        assert web_env.step(Action.type_text(said)).error is None
        assert web_env.page.evaluate("document.getElementById('tt').value") == value
