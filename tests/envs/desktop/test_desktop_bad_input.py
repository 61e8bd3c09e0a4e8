"""What goes wrong on a desktop is one clear error, and nothing of the world outlives it: an
application that does not start or shows no window (at the start of an episode, or opened in
one), one that dies during a step, a modal dialog in the way, and the same through
``guigraph run`` (one line, no traceback, no display left)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from guigraph.envs.desktop import entries
from guigraph.envs.desktop.env import DesktopEnv
from guigraph.envs.desktop.processes import tagged_pids
from guigraph.errors import ConfigError, EnvError
from guigraph.types import Action, Task

from .conftest import shown

pytestmark = pytest.mark.slow

BROKEN = entries.DesktopEntry(
    "broken", "Broken", ("sh", "-c", "echo cannot open display libfoo >&2; exit 3")
)
SILENT = entries.DesktopEntry("silent", "Silent", ("sleep", "60"))


def _with(env: DesktopEnv, *extra: entries.DesktopEntry) -> None:
    env._entries = [*extra, *entries.installed()]


@pytest.mark.parametrize(
    ("app", "said"),
    [
        ("broken", "Broken exited with code 3 before showing a window: cannot open display libfoo"),
        ("silent", "Silent started but showed no window within 1 s"),
    ],
)
def test_an_episode_whose_application_fails_to_start_leaves_no_display(app: str, said: str) -> None:
    env = DesktopEnv(window_timeout=1)
    _with(env, BROKEN, SILENT)
    with pytest.raises(EnvError) as raised:
        env.reset(Task("free/0", "write", apps=(app,)), 0)
    assert str(raised.value) == said
    # Failing, the world closed itself: no Xvfb, openbox, D-Bus or application is left.
    assert tagged_pids(env.display.tag) == []
    assert env.display.name == "" and not env.display.running
    env.close()


def test_window_timeout_is_checked() -> None:
    with pytest.raises(ConfigError, match="window_timeout must be a number of seconds > 0"):
        DesktopEnv(window_timeout=0)


def test_an_application_that_dies_during_a_step_is_a_step_error(desktop: DesktopEnv) -> None:
    desktop.reset(Task("free/0", "write", apps=("mousepad",)), 0)
    assert desktop.session is not None
    (pid,) = [p for p, _ in _programs(desktop.session.tag) if _ == "mousepad"]
    os.kill(pid, signal.SIGKILL)
    died = desktop.step(Action.type_text("hello"))
    assert died.error == "Mousepad was killed by signal 9 during the step"
    assert desktop.step(Action.key_chord("ctrl+s")).error is None  # said once
    # Opened again, it works; quitting it (Ctrl+Q) is no error.
    assert desktop.step(Action.open_app("mousepad")).error is None
    assert desktop.step(Action.key_chord("ctrl+q")).error is None


def test_a_modal_dialog_blocks_its_own_application_only(desktop: DesktopEnv) -> None:
    desktop.reset(desktop.make_task("galculator/product-to-note", 2), 2)
    assert desktop.step(Action.open_app("Mousepad")).observation.app == "mousepad"
    dialog = shown(desktop, desktop.step(Action.key_chord("ctrl+l")).observation, "dialog/Go To")
    assert dialog.activity == "dialog/Go To"
    frame, calculator = _window_corner(desktop, "mousepad"), _window_corner(desktop, "galculator")
    blocked = desktop.step(Action.click(*frame))
    assert blocked.error == (
        "a modal dialog (Go To) blocks mousepad: act inside it or close it (escape) first"
    )
    # The calculator beside it takes the click: Mousepad's dialog does not block it.
    pressed = desktop.step(Action.click(*calculator))
    assert pressed.error is None and pressed.observation.app == "galculator"


def test_run_says_what_failed_in_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    apps = tmp_path / "share" / "applications"
    apps.mkdir(parents=True)
    (apps / "broken.desktop").write_text(
        "[Desktop Entry]\nType=Application\nName=Broken\n"
        "Exec=sh -c 'echo missing libgtk >&2; exit 3'\n"
    )
    guigraph = Path(sys.executable).with_name("guigraph")
    proc = subprocess.Popen(
        [str(guigraph), "run", "--env", "desktop", "--task", "write a note", "--no-graph",
         "--env-option", "app=Broken"],
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "share")},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode != 0, out
    assert "Broken exited with code 3 before showing a window: missing libgtk" in out
    assert "Traceback" not in out
    assert tagged_pids(f"{proc.pid}-0") == []


def _programs(tag: str) -> list[tuple[int, str]]:
    found = []
    for pid in tagged_pids(tag):
        try:
            found.append((pid, Path(f"/proc/{pid}/comm").read_text().strip()))
        except OSError:
            continue
    return found


def _window_corner(env: DesktopEnv, app_name: str) -> tuple[float, float]:
    """A point just inside the top-left corner of an application's main window."""
    assert env._bus is not None
    for app in env._apps():
        if app.name == app_name:
            frame = [w for w in env._bus.windows(app) if w[1] == "frame"]
            x, y, _, _ = env._bus.extents(app, [frame[0][0]])[0]
            return (x + 8) * 1000 / env.size.width, (y + 40) * 1000 / env.size.height
    raise AssertionError(f"no {app_name} window")
