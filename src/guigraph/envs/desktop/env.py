"""Real desktop applications on a display of the world's own, as an :class:`Env` (extra
``desktop``).

The world starts Xvfb and openbox itself (``envs.desktop.display``) on a free display number
and ends them, and every process started on them, on ``close()`` (or when anything fails on
the way). Each episode gets a fresh home folder under a temporary directory, a D-Bus session
and the task's applications started anew from their desktop entries.

Observation: the screenshot (PNG), the focused application's accessibility tree over AT-SPI
(role, name, text, states, box: ``envs.desktop.atspi``, ``envs.desktop.tree``), the focused
application's name as ``app`` and its window (``frame``, or ``dialog/<title>``) as
``activity``. Observed once the screen has stopped changing after the action.

Actions, in screen pixels through XTEST (``envs.desktop.xinput``): click, double click, long
press (the button held), type (``\\n`` is Enter, ``\\t`` Tab, ``\\b`` Backspace), key chords with
modifiers (``ctrl+s``), scroll (the finger's direction, as on a phone: ``up`` shows what is
further down), open an application by its desktop entry, wait, complete / impossible. There
is no back, home or recent-apps button.

What goes wrong while acting — an application that does not start, a window that never
appears, a click outside a modal dialog that blocks its application, an accessibility tree
that does not answer — is one clear ``StepResult.error``.
"""

from __future__ import annotations

import contextlib
import hashlib
import subprocess
import time
from pathlib import Path

from guigraph.envs.base import Env, Evaluation, StepResult
from guigraph.envs.conventions import Conventions
from guigraph.envs.desktop import entries, screen, tasks
from guigraph.envs.desktop.atspi import AccessibilityBus, Application, AtspiTimeout
from guigraph.envs.desktop.conventions import DESKTOP
from guigraph.envs.desktop.display import Display, Session
from guigraph.envs.desktop.tree import to_elements
from guigraph.envs.desktop.xinput import Keyboard
from guigraph.errors import ConfigError, EnvError
from guigraph.geometry import ScreenSize
from guigraph.types import Action, ActionType, Observation, Task, UIElement

DEFAULT_SCREEN = (1280, 800)
#: How long an application may take to show its first window.
WINDOW_TIMEOUT_S = 15.0
#: The screen counts as settled when two looks this far apart show the same pixels.
SETTLE_POLL_S = 0.05
#: An application may pause between two changes of one answer (a file dialog closes half a
#: second after Enter): the screen counts as settled once it stayed still this long.
SETTLE_STILL_S = 0.6
SETTLE_MAX_S = 4.0
#: Longest wait one wait action may ask for.
MAX_WAIT_S = 30.0
#: Roles of windows that are dialogs (their title names the screen).
DIALOG_ROLES = frozenset({"dialog", "alert", "file chooser", "color chooser", "font chooser"})


class DesktopEnv(Env):
    """A desktop world. ``screen``: the display's size in pixels; ``timeout``: seconds an
    application may take to answer an accessibility call; ``window_timeout``: seconds an
    application may take to show its first window; ``app``: the application a free
    instruction starts with (by its desktop entry's name)."""

    action_space = frozenset(ActionType) - {
        ActionType.PRESS_BACK,
        ActionType.PRESS_HOME,
        ActionType.PRESS_RECENT,
    }

    def __init__(
        self,
        screen: tuple[int, int] | list[int] = DEFAULT_SCREEN,
        timeout: float = 5.0,
        app: str | None = None,
        window_timeout: float = WINDOW_TIMEOUT_S,
    ) -> None:
        for name, value in (("timeout", timeout), ("window_timeout", window_timeout)):
            if not isinstance(value, int | float) or value <= 0:
                raise ConfigError(f"{name} must be a number of seconds > 0, got {value!r}")
        width, height = (int(v) for v in screen)
        self.display = Display(width, height)
        self.size = ScreenSize(width, height)
        self.timeout = timeout
        self.window_timeout = float(window_timeout)
        self.app = app
        self.task: Task | None = None
        self.session: Session | None = None
        self._bus: AccessibilityBus | None = None
        self._keyboard: Keyboard | None = None
        self._entries: list[entries.DesktopEntry] | None = None
        self._last: Observation | None = None
        #: Applications started this episode (name, process), to tell when one dies.
        self._launched: list[tuple[str, subprocess.Popen[bytes]]] = []

    # The Env interface --------------------------------------------------------------------
    @property
    def conventions(self) -> Conventions:
        return DESKTOP

    def make_task(self, spec: str, seed: int) -> Task:
        """A task of the desktop suite by its id (``guigraph run --env desktop --task
        mousepad/save-note``), or a free instruction in the ``app`` option's application."""
        task = tasks.make(spec, seed)
        if task is not None:
            return task
        free = super().make_task(spec, seed)
        apps = (self.app,) if self.app else ()
        return Task(free.task_id, free.instruction, apps=apps)

    def reset(self, task: Task, seed: int) -> Observation:
        self._end_session()
        self.task = task
        try:
            self.session = self.display.new_session()
            self._keyboard = Keyboard(self.display.name, self.session.env())
            opens = tasks.prepare(task, self.session.home)
            for app in task.apps or ((self.app,) if self.app else ()):
                error = self._open_app(app, opens.get(app, ()))
                if error:
                    raise EnvError(error)
            observation, error = self._observe()
        except BaseException:
            self.close()
            raise
        if error:
            self.close()
            raise EnvError(error)
        return observation

    def step(self, action: Action) -> StepResult:
        if action.type not in self.action_space:
            return self._result(error=f"{action.type.value} is not an action of the desktop")
        if action.type in (ActionType.COMPLETE, ActionType.IMPOSSIBLE):
            return self._result(done=True)
        if self.session is None or not self.display.running:
            return self._result(error="no desktop is running: reset the environment first")
        try:
            error = self._act(action)
        except EnvError as exc:
            error = str(exc)
        observation, observe_error = self._observe()
        return StepResult(observation, error=error or self._died() or observe_error)

    def _died(self) -> str | None:
        """The error for an application of the episode that crashed (or was killed) since the
        last step; one that quit normally (Ctrl+Q) is no error."""
        assert self.session is not None
        for name, process in list(self._launched):
            code = process.poll()
            if code is None:
                continue
            self._launched.remove((name, process))
            if code == 0:
                continue
            how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
            said = self.session.output_of(process.args[0] if isinstance(process.args, list) else "")
            return f"{name} {how} during the step" + (f": {said}" if said else "")
        return None

    def evaluate(self) -> Evaluation | None:
        if self.task is None or self.session is None:
            return None
        return tasks.check(self.task, self.session.home)

    def close(self) -> None:
        self._end_session()
        screen.disconnect(self.display.name)
        self.display.close()

    @property
    def home(self) -> Path | None:
        """The episode's home folder (what the applications wrote is there until close)."""
        return self.session.home if self.session is not None else None

    # Acting -------------------------------------------------------------------------------
    def _act(self, action: Action) -> str | None:
        keyboard = self._keyboard
        assert keyboard is not None
        kind = action.type
        if kind is ActionType.OPEN_APP:
            assert action.app is not None
            return self._open_app(action.app, ())
        if kind is ActionType.WAIT:
            time.sleep(min(MAX_WAIT_S, action.seconds if action.seconds is not None else 1.0))
            return None
        if kind is ActionType.TYPE:
            assert action.text is not None
            keyboard.type(action.text)
        elif kind is ActionType.KEY:
            assert action.keys is not None
            keyboard.key(action.keys)
        else:
            return self._act_at_point(action, keyboard)
        self._settle()
        return None

    def _act_at_point(self, action: Action, keyboard: Keyboard) -> str | None:
        point = action.point
        if point is None:  # a scroll with only a direction: the middle of the screen
            x, y = self.size.width // 2, self.size.height // 2
        else:
            if not point.in_bounds():
                return f"{action.type.value} at {point.to_list()} is outside the screen"
            x, y = point.to_pixels(self.size).rounded()
            x, y = min(x, self.size.width - 1), min(y, self.size.height - 1)
            blocked = self._blocking_dialog(x, y)
            if blocked:
                return blocked
        if action.type is ActionType.CLICK:
            keyboard.click(x, y)
        elif action.type is ActionType.DOUBLE_CLICK:
            keyboard.click(x, y, repeat=2)
        elif action.type is ActionType.LONG_PRESS:
            keyboard.long_press(x, y)
        else:
            assert action.direction is not None
            keyboard.scroll(x, y, action.direction)
        self._settle()
        return None

    def _blocking_dialog(self, x: int, y: int) -> str | None:
        """The error for a point that a modal dialog keeps from its application: on another
        window of the dialog's application, or on the bare desktop while that application has
        the focus. A point on the dialog or on another application is free."""
        if self._last is None or self._bus is None:
            return None
        bus = self._bus
        hit = screen.window_at(self.display.name, x, y)
        focused = self._last.app
        for app in self._apps():
            with contextlib.suppress(EnvError):
                if hit is None and app.name.lower() != focused:
                    continue
                if hit is not None and hit.pid and bus.pid(app) != hit.pid:
                    continue
                modal = [w for w in bus.windows(app) if {"modal", "showing"} <= w[3]]
                if not modal or (hit is not None and any(w[2] == hit.title for w in modal)):
                    continue
                boxes = bus.extents(app, [w[0] for w in modal])
                if any(_inside(box, x, y) for box in boxes):
                    continue
                _, role, name, _ = modal[0]
                return (
                    f"a modal {role} ({name or 'untitled'}) blocks {app.name}: act inside "
                    "it or close it (escape) first"
                )
        return None

    def _open_app(self, name: str, files: tuple[str, ...]) -> str | None:
        """Start ``name`` from its desktop entry (with ``files``) and wait for its window; an
        app already running is brought to the front instead."""
        session = self.session
        assert session is not None
        if self._entries is None:
            self._entries = entries.installed()
        try:
            entry = entries.find(name, self._entries)
        except EnvError as exc:
            return str(exc)
        if not files and self._raise_window(entry):
            self._settle()
            return None
        process = session.launch([*entry.command, *files])
        self._launched.append((entry.name, process))
        deadline = time.monotonic() + self.window_timeout
        while time.monotonic() < deadline:
            if self._has_window(entry):
                self._settle()
                return None
            code = process.poll()
            if code is not None and code != 0:
                said = session.output_of(entry.command[0])
                return f"{entry.name} exited with code {code} before showing a window: {said}"
            time.sleep(0.1)
        return f"{entry.name} started but showed no window within {self.window_timeout:g} s"

    def _has_window(self, entry: entries.DesktopEntry) -> bool:
        bus = self._accessibility()
        if bus is None:
            return False
        try:
            apps = self._apps()
        except AtspiTimeout:  # the registry is still starting (a loaded machine): not yet
            return False
        for app in apps:
            if app.name.lower() in entry.names:
                with contextlib.suppress(EnvError):
                    if any("showing" in w[3] for w in bus.windows(app)):
                        return True
        return False

    def _raise_window(self, entry: entries.DesktopEntry) -> bool:
        if not self._has_window(entry):
            return False
        keyboard = self._keyboard
        assert keyboard is not None
        program = entry.command[0].rsplit("/", 1)[-1]
        with contextlib.suppress(EnvError):
            keyboard.activate(program)
            return True
        return False

    def _settle(self, still_s: float = SETTLE_STILL_S) -> None:
        """Wait until the applications have answered what was sent to them, then until the
        screen stayed the same for ``still_s`` (at most SETTLE_MAX_S)."""
        self._await_answers()
        start = time.monotonic()
        last, since = b"", start
        while time.monotonic() - since < still_s and time.monotonic() - start < SETTLE_MAX_S:
            time.sleep(SETTLE_POLL_S)
            now = hashlib.blake2b(screen.raw_pixels(self.display.name)[2]).digest()
            if now != last:
                last, since = now, time.monotonic()

    def _await_answers(self) -> None:
        """Ask every application a question over the accessibility bus, twice, and wait for
        the answers: an application answers once its main loop has come round, by when it has
        handled the input sent before (a key that opens a dialog has opened it). On a loaded
        machine that can take longer than the screen stays still for."""
        bus = self._bus
        if bus is None:
            return
        with contextlib.suppress(EnvError):  # one that does not answer: the look will say
            apps = self._apps()
            for _ in range(2):
                bus.ping(apps)

    def reconnect(self) -> None:
        """Drop the X and accessibility connections (opened again on the next look): one that
        an interrupt (Ctrl-C, SIGTERM) cut in the middle of a request is out of step."""
        screen.disconnect(self.display.name)
        if self._bus is not None:
            self._bus.close()
            self._bus = None

    # Observing ----------------------------------------------------------------------------
    def _accessibility(self) -> AccessibilityBus | None:
        if self._bus is None and self.session is not None:
            with contextlib.suppress(EnvError):
                self._bus = AccessibilityBus(self.session.bus_address, self.timeout)
        return self._bus

    def _apps(self) -> list[Application]:
        bus = self._accessibility()
        if bus is None:
            return []
        return [a for a in bus.applications() if a.name]

    def _observe(self) -> tuple[Observation, str | None]:
        """The screen now, and the error that kept its tree from being read (if one did)."""
        width, height, pixels = screen.raw_pixels(self.display.name)
        png = screen.png_of(width, height, pixels)
        error = None
        try:
            app, activity, elements = self._focused_tree()
        except AtspiTimeout as exc:
            app, activity, elements, error = None, None, None, str(exc)
        observation = Observation(
            screen=self.size, screenshot=png, elements=elements, app=app, activity=activity
        )
        self._last = observation
        return observation, error

    def _focused_tree(self) -> tuple[str | None, str | None, tuple[UIElement, ...] | None]:
        bus = self._accessibility()
        if bus is None:
            return None, None, None
        found = self._focused_window(bus)
        if found is None:
            return None, None, ()
        app, (path, role, title, _) = found
        nodes = bus.tree(app, [path])
        activity = f"dialog/{title}" if role in DIALOG_ROLES else role.replace(" ", "_")
        name = app.name.lower()
        return name, activity, to_elements(nodes, self.size, name)

    def _focused_window(
        self, bus: AccessibilityBus
    ) -> tuple[Application, tuple[str, str, str, frozenset[str]]] | None:
        """The application and window the window manager has focused. The X server says
        which (``_NET_ACTIVE_WINDOW``, its process and title): an application's own "active"
        state lags a switch (Alt+Tab) on a loaded machine, and two may claim it meanwhile."""
        focused = screen.active_window(self.display.name)
        apps = self._apps()
        if focused is not None and focused.pid:
            owners = [a for a in apps if bus.pid(a) == focused.pid]
            apps = owners + [a for a in apps if a not in owners]
        title = focused.title if focused is not None else ""
        for app in apps:
            owner = focused is not None and focused.pid > 0 and bus.pid(app) == focused.pid
            showing = [w for w in bus.windows(app) if "showing" in w[3]]
            # A modal dialog the focused application shows takes its input even before the
            # window manager has focused it (mapped, not yet focused, on a loaded machine).
            modal = [w for w in showing if owner and "modal" in w[3]]
            titled = [w for w in showing if owner and w[2] == title]
            active = [w for w in showing if "active" in w[3]]
            choices = modal or titled or active or (showing if owner else [])
            if choices:
                return app, choices[0]
        return None

    def _result(self, done: bool = False, error: str | None = None) -> StepResult:
        observation = self._last
        if observation is None:
            observation = Observation(screen=self.size, screenshot=_blank_png(self.size))
        return StepResult(observation, done=done, error=error)

    def _end_session(self) -> None:
        if self._bus is not None:
            self._bus.close()
            self._bus = None
        if self.session is not None:
            self.session.close()
            self.session.remove()
            self.session = None
        self._keyboard = None
        self._last = None
        self._launched = []


def _inside(box: tuple[int, int, int, int], x: int, y: int) -> bool:
    bx, by, width, height = box
    return bx <= x < bx + width and by <= y < by + height


def _blank_png(size: ScreenSize) -> bytes:
    return screen.png_of(size.width, size.height, bytes(4 * size.width * size.height))
