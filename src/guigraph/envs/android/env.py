"""An Android phone or emulator as an :class:`~guigraph.envs.base.Env`, over ADB.

Observation: ``screencap -p`` (PNG), ``uiautomator dump`` parsed into UI elements, and the app
in front (package and activity, from ``dumpsys window``). Actions are ``input`` commands in
screen pixels (``wm size``, override and rotation included), keys, ``monkey`` to open an app by
package (or a launcher label, tapped on the home screen), and ``sleep`` to wait. After each
action the screen is given time to settle: screenshots are taken until two in a row agree,
within ``settle_timeout_s``.

What the agent did wrong (an app that does not exist, a tap off the screen, text that cannot be
typed) and what the device could not give (a failed or broken dump) come back as the step's
``error``; a device that is gone, or a screenshot that does not match the screen, raises
:class:`~guigraph.errors.EnvError`.

Behind the fake ADB server (``guigraph sim adb-server``) the device is SimPhone: ``reset``
sets its task up and ``evaluate`` asks it for the checker's verdict, through two shell commands
only that device has. On a real phone ``reset`` goes to the home screen and nothing can check
a task.
"""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Collection, Mapping, Sequence

from guigraph.envs.android import uixml
from guigraph.envs.android.apps import AppDirectory
from guigraph.envs.android.device import AdbDevice
from guigraph.envs.android.text_input import (
    ADB_KEYBOARD_IME,
    adb_keyboard_command,
    control_character,
    input_text_commands,
    needs_adb_keyboard,
)
from guigraph.envs.base import Env, Evaluation, StepResult
from guigraph.errors import EnvError
from guigraph.geometry import NORM_MAX, Point, ScreenSize
from guigraph.types import Action, ActionType, Observation, ScrollDirection, Task, UIElement

DUMP_PATH = "/sdcard/guigraph_window_dump.xml"
KEYCODES = {ActionType.PRESS_BACK: 4, ActionType.PRESS_HOME: 3, ActionType.PRESS_RECENT: 187}
#: Finger paths of a scroll by direction (normalized; UP moves the finger up).
SWIPES = {
    ScrollDirection.UP: ((500.0, 750.0), (500.0, 250.0)),
    ScrollDirection.DOWN: ((500.0, 250.0), (500.0, 750.0)),
    ScrollDirection.LEFT: ((800.0, 500.0), (200.0, 500.0)),
    ScrollDirection.RIGHT: ((200.0, 500.0), (800.0, 500.0)),
}
LONG_PRESS_MS = 800
SWIPE_MS = 300
MAX_WAIT_S = 10.0


class AndroidEnv(Env):
    """A device by ``serial`` (the only one attached when not given)."""

    action_space = frozenset(ActionType)

    def __init__(
        self,
        serial: str | None = None,
        settle_timeout_s: float = 3.0,
        settle_poll_s: float | None = None,
    ) -> None:
        self.device = AdbDevice(serial)
        self.serial = self.device.serial
        #: The SimPhone device of the fake server (it can set up and check tasks).
        self.simulated = self.device.prop("ro.guigraph.simphone") == "1"
        self.settle_timeout_s = settle_timeout_s
        # SimPhone has no animations: two screenshots agree at once, no pause is needed.
        if settle_poll_s is None:
            settle_poll_s = 0.0 if self.simulated else 0.25
        self.settle_poll_s = settle_poll_s
        self.task: Task | None = None
        self._screen: ScreenSize | None = None
        self._apps: AppDirectory | None = None
        self._task_packages: set[str] = set()

    # The Env interface --------------------------------------------------------------------
    def reset(self, task: Task, seed: int) -> Observation:
        self.task = task
        # Before the task is set up: finding a label's package may open its app.
        self._task_packages = {self.apps.package_for(app) or app for app in task.apps}
        if self.simulated:
            quoted = shlex.quote(json.dumps(task.to_dict(), ensure_ascii=True))
            answer = self.device.shell(f"guigraph-reset {int(seed)} {quoted}").strip()
            if answer != "ok":
                raise EnvError(f"device {self.serial}: could not set the task up: {answer}")
        else:
            self.device.shell(f"input keyevent {KEYCODES[ActionType.PRESS_HOME]}")
        self._screen = self.device.screen()
        observation, _ = self._observe(self._settled_png())
        return observation

    def attach(self, task: Task | None = None) -> Observation:
        """Observe the device as it is, setting nothing up (recording a person's run)."""
        self.task = task
        self._screen = self.device.screen()
        return self.observe()[0]

    def observe(self) -> tuple[Observation, str | None]:
        """The settled screen now, and why it has no UI tree when it has none."""
        return self._observe(self._settled_png())

    def step(self, action: Action) -> StepResult:
        if self._screen is None:
            raise EnvError("the Android world is not running: call reset(task, seed) first")
        done = action.type in (ActionType.COMPLETE, ActionType.IMPOSSIBLE)
        error = None if done else self._act(action)
        observation, dump_error = self._observe(self._settled_png())
        return StepResult(observation, done=done, error=error or dump_error)

    def evaluate(self) -> Evaluation | None:
        """The SimPhone checker's verdict through the fake device; None on a real phone."""
        if not self.simulated or self.task is None or not self.task.template_id:
            return None
        answer = self.device.shell("guigraph-check").strip()
        if answer not in ("success", "failure"):
            return None
        won = answer == "success"
        return Evaluation(won, 1.0 if won else 0.0, "SimPhone's checker, asked over ADB")

    def make_task(self, spec: str, seed: int) -> Task:
        """On the SimPhone device a template id is its seeded task; else any words."""
        if self.simulated:
            from guigraph.envs.simphone.env import SimPhone

            return SimPhone().make_task(spec, seed)
        return super().make_task(spec, seed)

    def close(self) -> None:
        self._screen = None  # every command has its own connection: nothing stays open

    def app_names(
        self, known: Collection[str], aliases: Mapping[str, Sequence[str]] | None = None
    ) -> Mapping[str, str]:
        """This device's name of each app ``known`` names otherwise (``envs.android.apps``):
        ``{package: label}`` for a knowledge base that names apps by label. A package the
        knowledge base learned for a label (``aliases``) is taken when this device has it:
        no launcher icon is tapped for it."""
        apps = [name for name in known if name and not self.conventions.is_home(name)]
        return self.apps.names_for(apps, aliases or {})

    @property
    def apps(self) -> AppDirectory:
        if self._apps is None:
            listing = self.device.shell("pm list packages")
            packages = tuple(
                line.removeprefix("package:").strip()
                for line in listing.splitlines()
                if line.startswith("package:")
            )
            self._apps = AppDirectory(packages, self._home_screen, self._tap_and_read)
        return self._apps

    @property
    def screen(self) -> ScreenSize:
        if self._screen is None:
            self._screen = self.device.screen()
        return self._screen

    # Observing -----------------------------------------------------------------------------
    def _screenshot(self) -> bytes:
        png = self.device.shell_bytes("screencap -p", binary=True)
        if not png.startswith(b"\x89PNG"):
            raise EnvError(f"device {self.serial}: screencap gave no PNG ({png[:40]!r})")
        return png

    def _settled_png(self) -> bytes:
        """Screenshots until two in a row agree (the UI is idle), within the time bound."""
        deadline = time.monotonic() + self.settle_timeout_s
        last = self._screenshot()
        while time.monotonic() < deadline:
            if self.settle_poll_s:
                time.sleep(self.settle_poll_s)
            current = self._screenshot()
            if current == last:
                break
            last = current
        return last

    def _observe(self, png: bytes) -> tuple[Observation, str | None]:
        size = _png_size(png)
        if size != (self.screen.width, self.screen.height):
            self._screen = self.device.screen()  # it may have turned
            if size != (self.screen.width, self.screen.height):
                raise EnvError(
                    f"device {self.serial}: the screenshot is {size[0]}x{size[1]} but the "
                    f"screen is {self.screen.width}x{self.screen.height} (wm size)"
                )
        elements, error = self._elements()
        package, activity = self.device.foreground()
        observation = Observation(
            screen=self.screen,
            screenshot=png,
            elements=elements,
            app=package or None,
            activity=activity or None,
        )
        return observation, error

    def _elements(self) -> tuple[tuple[UIElement, ...] | None, str | None]:
        """The UI tree, or None and why (one retry: a dump fails while the UI animates)."""
        error = ""
        for _ in range(2):
            said = self.device.shell(f"uiautomator dump {DUMP_PATH}")
            if "dumped to" not in said:
                error = f"uiautomator dump failed: {said.strip()[:160] or 'no output'}"
                continue
            try:
                return uixml.parse_hierarchy(
                    self.device.shell(f"cat {DUMP_PATH}"), self.screen
                ), None
            except EnvError as exc:
                error = str(exc)
        return None, f"{error}; the screen has no UI tree this step"

    # Acting --------------------------------------------------------------------------------
    def _pixels(self, point: Point) -> tuple[str, str]:
        px = point.to_pixels(self.screen)
        return f"{px.x:.2f}", f"{px.y:.2f}"

    def _act(self, action: Action) -> str | None:
        kind = action.type
        if kind in (ActionType.CLICK, ActionType.LONG_PRESS):
            assert action.point is not None
            if not action.point.in_bounds():
                return f"point ({action.point.x:g}, {action.point.y:g}) is outside the screen"
            x, y = self._pixels(action.point)
            if kind is ActionType.CLICK:
                return self._run(f"input tap {x} {y}")
            return self._run(f"input swipe {x} {y} {x} {y} {LONG_PRESS_MS}")
        if kind is ActionType.SCROLL:
            return self._swipe(action)
        if kind is ActionType.TYPE:
            return self._type(action.text or "")
        if kind in KEYCODES:
            return self._run(f"input keyevent {KEYCODES[kind]}")
        if kind is ActionType.OPEN_APP:
            return self._open_app(action.app or "")
        seconds = min(MAX_WAIT_S, action.seconds if action.seconds is not None else 1.0)
        return self._run(f"sleep {seconds:g}")

    def _run(self, command: str) -> str | None:
        """Run one command; its complaint (``input`` prints ``Error: ...``) is the step's error."""
        said = self.device.shell(command).strip()
        if said.startswith(("Error", "error", "Exception")) or "Exception" in said:
            return f"`{' '.join(command.split()[:2])}`: {said[:200]}"
        return None

    def _swipe(self, action: Action) -> str | None:
        if action.point is not None and action.end is not None:
            start, end = action.point, action.end
            for name, point in (("start", start), ("end", end)):
                if not point.in_bounds():
                    return f"swipe {name} is outside the screen (0..{NORM_MAX:g})"
        else:
            assert action.direction is not None
            (x1, y1), (x2, y2) = SWIPES[action.direction]
            start, end = Point(x1, y1), Point(x2, y2)
        (ax, ay), (bx, by) = self._pixels(start), self._pixels(end)
        return self._run(f"input swipe {ax} {ay} {bx} {by} {SWIPE_MS}")

    def _type(self, text: str) -> str | None:
        if not text:
            return None
        control = control_character(text)
        if control is not None:
            code = f"U+{ord(control):04X}"
            return f"cannot type {text!r}: {code} is a control character no keyboard types"
        if needs_adb_keyboard(text):
            return self._type_unicode(text)
        for command in input_text_commands(text):
            error = self._run(command)
            if error:
                return error
        return None

    def _type_unicode(self, text: str) -> str | None:
        if ADB_KEYBOARD_IME not in self.device.shell("ime list -s"):
            return (
                f"cannot type {text!r}: `input text` types ASCII only; install and enable "
                "ADBKeyboard (com.android.adbkeyboard) to type other characters"
            )
        current = self.device.shell("settings get secure default_input_method").strip()
        if current != ADB_KEYBOARD_IME:
            self.device.shell(f"ime set {ADB_KEYBOARD_IME}")
        try:
            return self._run(adb_keyboard_command(text))
        finally:
            if current and current != ADB_KEYBOARD_IME and current != "null":
                self.device.shell(f"ime set {shlex.quote(current)}")

    def _open_app(self, name: str) -> str | None:
        package = self.apps.package_for(name)
        if package is None and self.apps.launcher_icon(name) is None:
            return self._no_app(name.strip())
        refusal = self._outside_task(name, package)
        if refusal:
            return refusal
        if package is None:
            return self._tap_launcher_label(name.strip())
        said = self.device.shell(
            f"monkey -p {shlex.quote(package)} -c android.intent.category.LAUNCHER 1"
        )
        if "No activities found" in said or "aborted" in said:
            return f"app {package} has no launcher activity to open"
        return None

    def _outside_task(self, name: str, package: str | None) -> str | None:
        """Why opening ``name`` would leave the task (None when the task names no apps, or
        this is one of them): a run stays inside the apps its task names."""
        apps = self.task.apps if self.task is not None else ()
        if not apps or self.conventions.is_home(name):
            return None
        if (package or name.strip()) in self._task_packages or name.strip() in apps:
            return None
        return f"refused to open {name.strip()!r}: not an app of this task ({', '.join(apps)})"

    def _home_screen(self) -> tuple[UIElement, ...]:
        self.device.shell(f"input keyevent {KEYCODES[ActionType.PRESS_HOME]}")
        launcher, _ = self.device.foreground()
        if launcher:
            self.apps.launcher_packages |= {launcher}
        elements, _ = self._elements()
        return elements or ()

    def _tap_and_read(self, icon: UIElement) -> str:
        """The package an icon of the home screen opens (the home screen comes back after)."""
        x, y = self._pixels(icon.bbox.center)
        self.device.shell(f"input tap {x} {y}")
        deadline = time.monotonic() + self.settle_timeout_s
        package = ""
        while True:
            package, _ = self.device.foreground()
            if package not in self.apps.launcher_packages or time.monotonic() > deadline:
                break
            time.sleep(max(self.settle_poll_s, 0.05))
        self.device.shell(f"input keyevent {KEYCODES[ActionType.PRESS_HOME]}")
        return package

    def _tap_launcher_label(self, label: str) -> str | None:
        """Open an app by the label of its icon on the home screen."""
        icon = self.apps.launcher_icon(label)
        if icon is not None:
            x, y = self._pixels(icon.bbox.center)
            return self._run(f"input tap {x} {y}")
        return self._no_app(label)

    def _no_app(self, label: str) -> str:
        return (
            f"no app {label!r} on device {self.serial}: it is neither an installed package "
            "nor the label of an icon on the home screen"
        )


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height from the PNG header (no image decoding)."""
    if len(png) < 24 or png[12:16] != b"IHDR":
        raise EnvError("the screenshot is not a readable PNG")
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
