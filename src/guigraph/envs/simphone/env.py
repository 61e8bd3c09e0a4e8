"""SimPhone as an :class:`~guigraph.envs.base.Env`: actions in, observations out.

The agent sees the screenshot, the UI elements and the app's name. The screen identity, the
world and the task checker are reachable only through methods the recorder and the evaluation
loop use (``screen_identity``, ``task_succeeded``), never through observations or step info.
"""

from __future__ import annotations

from typing import Any

from guigraph.envs.base import Env, Evaluation, StepResult
from guigraph.envs.conventions import Conventions
from guigraph.envs.simphone import phone
from guigraph.envs.simphone.devices import DEFAULT_DEVICE, DeviceProfile, get_device
from guigraph.envs.simphone.skins import android_elements, apply_skin, skin_conventions
from guigraph.envs.simphone.widgets import APPS
from guigraph.envs.simphone.world import World
from guigraph.errors import EnvError
from guigraph.geometry import Point
from guigraph.types import Action, ActionType, Observation, Task

#: Apps that exist in two versions (``version=2`` switches all of them).
VERSIONED_APPS = ("shop", "notes", "messages", "settings", "music")


class SimPhone(Env):
    """The embedded simulated phone.

    ``version`` selects the layout version of the apps that have two; ``popup_rate`` is the
    chance that an app greets its first launch (and a web page its opening) with a pop-up;
    ``skin`` how observations report elements (``envs.simphone.skins``).
    """

    action_space = frozenset(ActionType)

    def __init__(
        self,
        device: str | DeviceProfile = DEFAULT_DEVICE,
        version: int = 1,
        popup_rate: float = 0.1,
        skin: str = "standard",
    ) -> None:
        self.device = device if isinstance(device, DeviceProfile) else get_device(device)
        if version not in (1, 2):
            raise ValueError(f"app version must be 1 or 2, got {version}")
        self.version = version
        self.popup_rate = popup_rate
        self.skin = skin
        self._conventions = skin_conventions(skin)
        self.task: Task | None = None
        self._world: World | None = None

    # The Env interface --------------------------------------------------------------------
    def reset(self, task: Task, seed: int) -> Observation:
        from guigraph.envs.simphone.tasks import setup_world

        versions = {app: self.version for app in VERSIONED_APPS}
        self._world = World(seed, versions, self.popup_rate)
        self.task = task
        setup_world(task, self._world)
        return self._observe()

    def step(self, action: Action) -> StepResult:
        world = self.world
        done = action.type in (ActionType.COMPLETE, ActionType.IMPOSSIBLE)
        note, error = "", None
        if not done:
            note, error = self._apply(world, action)
            world.tick += 1
        info: dict[str, Any] = {"note": note} if note else {}
        if world.last_message:
            info["toast"] = world.last_message
            world.last_message = ""
        return StepResult(self._observe(), done=done, info=info, error=error)

    def close(self) -> None:
        self._world = None

    @property
    def conventions(self) -> Conventions:
        return self._conventions

    def evaluate(self) -> Evaluation | None:
        """The template's checker; a free instruction (no template) has none."""
        if self.task is None or not self.task.template_id:
            return None
        succeeded = self.task_succeeded()
        return Evaluation(succeeded, 1.0 if succeeded else 0.0, "the template's state checker")

    def make_task(self, spec: str, seed: int) -> Task:
        """A template id gives its seeded task; other words a free instruction. Text shaped
        like a template id (``app.thing``) that is not one is an error, not a free task."""
        from guigraph.envs.simphone.tasks import TEMPLATES, make_task

        text = spec.strip()
        if text in TEMPLATES:
            return make_task(text, seed)
        if text and " " not in text and "." in text:
            raise ValueError(
                f"unknown SimPhone template {text!r}; see `guigraph sim tasks` for the "
                f"{len(TEMPLATES)} templates, or give an instruction in words"
            )
        return super().make_task(text, seed)

    # For the recorder and the evaluation loop, never for the agent --------------------------
    @property
    def world(self) -> World:
        if self._world is None:
            raise EnvError("SimPhone is not running: call reset(task, seed) first")
        return self._world

    def screen_identity(self) -> str:
        """The true workflow state on screen, e.g. ``shop.product`` or ``shop.popup_rate``."""
        return phone.current_view(self.world, self.device).identity

    def view(self) -> phone.PhoneView:
        return phone.current_view(self.world, self.device)

    def task_succeeded(self) -> bool:
        from guigraph.envs.simphone.tasks import check_success

        if self.task is None:
            return False
        return check_success(self.task, self.world)

    # Internals ----------------------------------------------------------------------------
    def _observe(self) -> Observation:
        world = self.world
        view = phone.current_view(world, self.device)
        png = phone.render(world, self.device, view)
        if self.skin == "android":  # as a phone reports it: packages and activities
            from guigraph.envs.simphone.uixml import activity_of, package_of

            return Observation(
                screen=self.device.screen,
                screenshot=png,
                elements=android_elements(view, self.device),
                app=package_of(view.app),
                activity=activity_of(view.app),
            )
        label = APPS[view.app][0] if view.app in APPS else "Home"
        return Observation(
            screen=self.device.screen,
            screenshot=png,
            elements=apply_skin(self.skin, phone.elements(view, self.device)),
            app=label,
            activity=None,
        )

    def _apply(self, world: World, action: Action) -> tuple[str, str | None]:
        kind = action.type
        if kind in (ActionType.CLICK, ActionType.LONG_PRESS):
            assert action.point is not None
            return self._touch(world, action.point, long=kind is ActionType.LONG_PRESS)
        if kind is ActionType.SCROLL:
            return self._scroll(world, action)
        if kind is ActionType.TYPE:
            return self._type(world, action.text or "")
        if kind is ActionType.PRESS_BACK:
            return self._back(world), None
        if kind is ActionType.PRESS_HOME:
            world.go_home()
            return "home", None
        if kind is ActionType.PRESS_RECENT:
            world.showing_recents = True
            return "recent apps", None
        if kind is ActionType.OPEN_APP:
            return self._open_app(world, action.app or "")
        return "waited", None  # WAIT: time passes (a loading screen finishes)

    def _touch(self, world: World, point: Point, long: bool) -> tuple[str, str | None]:
        if not point.in_bounds():
            return "", f"point ({point.x:g}, {point.y:g}) is outside the screen (0..1000)"
        view = phone.current_view(world, self.device)
        pixel = point.to_pixels(self.device.screen)
        placed = phone.hit(view, pixel.x, pixel.y)
        if placed is None or world.is_loading():
            return "nothing to touch there", None
        widget = placed.widget
        entry = world.entry
        name = widget.text or widget.key or "that"
        if long:
            if widget.long is None:
                return f"long press on {name} did nothing", None
            widget.long(world)
            return f"long-pressed {name}", None
        if widget.kind == "input" and entry is not None:
            entry.focus = widget.key
            return f"focused {widget.placeholder}", None
        if widget.key == "kb_enter" and entry is not None:
            return self._enter(world, view), None
        if widget.tap is None:
            return f"{name} is not clickable", None
        widget.tap(world)
        return f"tapped {name}", None

    def _enter(self, world: World, view: phone.PhoneView) -> str:
        entry = world.entry
        assert entry is not None
        field = next((p.widget for p in view.layout.placed if p.widget.key == entry.focus), None)
        entry.focus = None
        if field is not None and field.submit is not None:
            field.submit(world)
            return "submitted"
        return "keyboard closed"

    def _scroll(self, world: World, action: Action) -> tuple[str, str | None]:
        for name in ("point", "end"):
            point = getattr(action, name)
            if point is not None and not point.in_bounds():
                return "", f"swipe {name} is outside the screen (0..1000)"
        entry = world.entry
        view = phone.current_view(world, self.device)
        assert action.direction is not None
        if entry is None or view.popup is not None or action.direction.value in ("left", "right"):
            return "nothing scrolled", None
        if view.layout.max_scroll == 0:
            return "nothing to scroll", None
        before = entry.scroll
        entry.scroll = max(
            0, min(view.layout.max_scroll, entry.scroll + phone.scroll_step(view, action.direction))
        )
        return ("scrolled" if entry.scroll != before else "already at the end"), None

    def _type(self, world: World, text: str) -> tuple[str, str | None]:
        entry = world.entry
        view = phone.current_view(world, self.device)
        if entry is None or entry.focus is None or view.popup is not None:
            return "", "no text field is focused: tap a text field first"
        world.set_field(entry.focus, world.field(entry.focus) + text)
        return f"typed {text!r}", None

    def _back(self, world: World) -> str:
        if world.showing_recents:
            world.showing_recents = False
            return "closed recent apps"
        entry = world.entry
        if entry is None:
            return "already home"
        if entry.popup is not None:
            world.close_popup()
            return "dismissed dialog"
        if entry.focus is not None:
            entry.focus = None
            return "keyboard hidden"
        world.pop()
        return "back"

    def _open_app(self, world: World, name: str) -> tuple[str, str | None]:
        wanted = name.strip().lower()
        for key, (label, root, _) in APPS.items():
            if wanted in (key, label.lower()):
                world.launch(key, root)
                return f"opened {label}", None
        known = ", ".join(label for label, _, _ in APPS.values())
        return "", f"unknown app {name!r}; installed apps: {known}"
