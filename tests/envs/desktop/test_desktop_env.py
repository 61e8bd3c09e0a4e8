"""The desktop world on real applications: observation, actions, tasks checked on disk, and
every failure a clear step error with no process left behind."""

from __future__ import annotations

import os
import signal

import pytest

from guigraph.envs import make
from guigraph.envs.base import Env, StepResult
from guigraph.envs.check import check_env
from guigraph.envs.desktop import entries, tasks
from guigraph.envs.desktop.env import DesktopEnv
from guigraph.envs.desktop.processes import tagged_pids
from guigraph.errors import EnvError
from guigraph.types import Action, ActionType, Observation, Task

from .conftest import find, shown

pytestmark = pytest.mark.slow

MOUSEPAD = Task("free/0", "write something", apps=("mousepad",))


class _Borrowed(Env):
    """The module's world lent to check_env (which closes what it is given)."""

    def __init__(self, env: DesktopEnv) -> None:
        self.env = env
        self.action_space = env.action_space

    def reset(self, task: Task, seed: int) -> Observation:
        return self.env.reset(task, seed)

    def step(self, action: Action) -> StepResult:
        return self.env.step(action)


def test_check_env_passes(desktop: DesktopEnv) -> None:
    check_env(lambda: _Borrowed(desktop), MOUSEPAD)


def test_observation_is_the_focused_apps_accessibility_tree(desktop: DesktopEnv) -> None:
    obs = desktop.reset(MOUSEPAD, 0)
    assert obs.app == "mousepad" and obs.activity == "frame"
    assert obs.image().size == (1280, 800)
    menu = find(obs, "File", "menu")
    assert menu.clickable and menu.package == "mousepad"
    editor = next(e for e in obs.elements or () if e.editable)
    assert editor.focused and editor.class_name == "text"
    typed = desktop.step(Action.type_text("first line\nsecond"))
    assert typed.error is None
    editor = next(e for e in typed.observation.elements or () if e.editable)
    assert editor.text == "first line\nsecond"


def test_a_fields_label_names_it_whatever_the_other_fields_hold(desktop: DesktopEnv) -> None:
    desktop.reset(desktop.make_task("mousepad/replace-word", 2), 2)
    dialog = desktop.step(Action.key_chord("ctrl+r")).observation
    assert shown(desktop, dialog, "dialog/Find and Replace").activity == "dialog/Find and Replace"
    typed = desktop.step(Action.type_text("abc")).observation
    fields = [(e.text, e.content_desc) for e in typed.elements or () if e.editable]
    assert fields == [("abc", "Search for:"), ("", "Replace with:")]
    replace_with = find(typed, "Replace with:", "text")
    assert desktop.step(Action.click(*replace_with.bbox.center.to_list())).error is None
    desktop.step(Action.type_text("xyz"))
    assert find(desktop.step(Action.key_chord("tab")).observation, "xyz", "text").content_desc == (
        "Replace with:"
    )


def test_a_task_saved_through_the_save_dialog_is_checked_on_disk(desktop: DesktopEnv) -> None:
    task = desktop.make_task("mousepad/save-note", 3)
    assert task.template_id == "mousepad/save-note" and task.params["text"] in task.instruction
    desktop.reset(task, 3)
    desktop.step(Action.type_text(task.params["text"]))
    assert desktop.evaluate() == tasks.Evaluation(
        False, 0.0, f"{task.params['name']} was not saved"
    )
    dialog = shown(desktop, desktop.step(Action.key_chord("ctrl+s")).observation, "dialog/Save As")
    assert dialog.activity == "dialog/Save As"
    outside = desktop.step(Action.click(20, 500))
    assert outside.error is not None and "modal" in outside.error and "Save As" in outside.error
    desktop.step(Action.type_text(task.params["name"]))
    assert desktop.step(Action.key_chord("enter")).error is None
    saved = desktop.step(Action(ActionType.WAIT, seconds=1.0))  # a loaded machine is slow
    assert saved.observation.activity == "frame"
    verdict = desktop.evaluate()
    assert verdict is not None and verdict.success, verdict
    assert (desktop.home / task.params["name"]).read_text() == task.params["text"]  # type: ignore[operator]


def test_calculator_result_pasted_into_a_document(desktop: DesktopEnv) -> None:
    task = desktop.make_task("galculator/product-to-note", 1)
    obs = desktop.reset(task, 1)
    assert obs.app == "galculator"
    seven = find(obs, "7", "toggle_button")
    desktop.step(Action.type_text(f"{task.params['a']}*"))
    shown = desktop.step(Action.click(*seven.bbox.center.to_list())).observation
    assert find(shown, f"{task.params['a']}*7".split("*")[-1], "text")  # the display shows 7
    desktop.reset(task, 1)
    for action in (
        Action.type_text(f"{task.params['a']}*{task.params['b']}"),
        Action.key_chord("enter"),
        Action.key_chord("ctrl+c"),
        Action.open_app("Mousepad"),
        Action.key_chord("ctrl+v"),
        Action.key_chord("ctrl+s"),
        Action.type_text(task.params["name"]),
        Action.key_chord("enter"),
    ):
        result = desktop.step(action)
        assert result.error is None, (action, result.error)
    assert result.observation.app == "mousepad"
    verdict = desktop.evaluate()
    assert verdict is not None and verdict.success, verdict


def test_failures_are_step_errors_and_leave_no_process(desktop: DesktopEnv, tmp_path) -> None:
    desktop.reset(MOUSEPAD, 0)
    unknown = desktop.step(Action.open_app("photoshop"))
    assert (
        unknown.error is not None
        and "no desktop application is called 'photoshop'" in unknown.error
    )
    assert "Mousepad" in unknown.error  # what there is
    desktop._entries = [
        entries.DesktopEntry("broken", "Broken", ("sh", "-c", "echo missing library >&2; exit 3")),
        entries.DesktopEntry("silent", "Silent", ("sleep", "60")),
        *(desktop._entries or []),
    ]
    broken = desktop.step(Action.open_app("broken"))
    assert broken.error == "Broken exited with code 3 before showing a window: missing library"
    desktop.window_timeout = 1.0
    silent = desktop.step(Action.open_app("silent"))
    assert silent.error == "Silent started but showed no window within 1 s"
    assert desktop.session is not None
    sleeping = tagged_pids(desktop.session.tag)
    assert sleeping  # the silent app runs until the episode ends ...
    desktop.window_timeout = 15.0
    desktop.reset(MOUSEPAD, 1)
    assert not set(sleeping) & set(tagged_pids(desktop.display.tag))  # ... and no longer


def test_an_application_that_stops_answering_is_a_step_error(desktop: DesktopEnv) -> None:
    desktop.reset(MOUSEPAD, 0)
    assert desktop._bus is not None and desktop.session is not None
    desktop._bus.timeout_s = 0.5
    frozen = [p for p in tagged_pids(desktop.session.tag) if _program(p) == "mousepad"]
    assert frozen
    for pid in frozen:
        os.kill(pid, signal.SIGSTOP)
    try:
        result = desktop.step(Action(ActionType.WAIT, seconds=0.0))
    finally:
        for pid in frozen:
            os.kill(pid, signal.SIGCONT)
    assert result.error is not None and "did not answer" in result.error
    assert result.observation.has_screenshot and result.observation.elements is None


def test_actions_outside_the_desktop_are_refused(desktop: DesktopEnv) -> None:
    desktop.reset(MOUSEPAD, 0)
    back = desktop.step(Action(ActionType.PRESS_BACK))
    assert back.error == "press_back is not an action of the desktop"
    off = desktop.step(Action.click(1200, 500))
    assert off.error is not None and "outside the screen" in off.error


def test_the_registry_makes_it_and_close_ends_everything() -> None:
    env = make("desktop", screen=[800, 600])
    assert isinstance(env, DesktopEnv)
    obs = env.reset(Task("free/0", "compute", apps=("galculator",)), 0)
    assert obs.image().size == (800, 600) and obs.app == "galculator"
    name, tag = env.display.name, env.display.tag
    assert tagged_pids(tag)
    env.close()
    env.close()
    assert tagged_pids(tag) == []
    assert not os.path.exists(f"/tmp/.X11-unix/X{name[1:]}")
    with pytest.raises(EnvError, match="no desktop application is called 'nothing'"):
        DesktopEnv().reset(Task("free/0", "x", apps=("nothing",)), 0)


def _program(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def test_a_killed_run_leaves_no_display_behind(tmp_path) -> None:
    import subprocess
    import sys
    import time

    script = (
        "from guigraph.envs.desktop.env import DesktopEnv\n"
        "from guigraph.types import Task\n"
        "env = DesktopEnv()\n"
        "env.reset(Task('free/0', 'x', apps=('mousepad',)), 0)\n"
        "print(env.display.tag, flush=True)\n"
        "import time; time.sleep(120)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        tag = proc.stdout.readline().strip()
        assert tag and tagged_pids(tag)
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 10
    while tagged_pids(tag) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert tagged_pids(tag) == []
