"""The scripted expert: carries out a task's plan on a live SimPhone, like a careful annotator.

A plan is a list of *steps*, each a generator that yields actions and looks at the phone again
after every one (so it scrolls until a row is visible, types only into a focused field, and so
on). Between steps the driver handles what a person handles without thinking: it waits for
loading screens and dismisses rate-this-app and cookie pop-ups. The expert reads the phone's
internals to find widgets — it is the annotator, not the agent.

With ``noise > 0`` it also makes the mistakes real logs have: a wrong tap followed by back, a
scroll too far. Points are rounded to integers, as GUIOdyssey stores them, so a recorded
episode replays exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.layout import Placed
from guigraph.envs.simphone.phone import PhoneView
from guigraph.envs.simphone.world import HOME, World
from guigraph.errors import GuigraphError
from guigraph.geometry import CoordSpace, Point
from guigraph.types import Action, ActionType, ScrollDirection

Step = Callable[["Expert"], Iterator[Action]]

#: Pop-ups that interrupt any workflow, and the button a person taps to get rid of them.
INTERRUPTIONS = {"popup_rate": "dismiss", "popup_cookies": "dismiss"}
MAX_SCROLLS = 12
PIXEL = CoordSpace.PIXEL


class ExpertError(GuigraphError):
    """A plan asked for something the phone does not show: a bug in the plan or the app."""


class Expert:
    def __init__(self, env: SimPhone, plan: list[Step], seed: int, noise: float = 0.0) -> None:
        self.env = env
        self.rng = random.Random(seed * 31 + 7)
        self.noise = noise
        self._steps = iter(plan)
        self._current: Iterator[Action] | None = None
        self._queued: list[Action] = []
        self._recover_to: tuple[str, int, str] | None = None
        self.last_target: Placed | None = None
        self.done = False

    # What steps use -----------------------------------------------------------------------
    @property
    def world(self) -> World:
        return self.env.world

    def view(self) -> PhoneView:
        return self.env.view()

    def find(self, key: str) -> Placed | None:
        view = self.view()
        return next((p for p in view.visible() if p.widget.key == key), None)

    def click(self, placed: Placed, long: bool = False) -> Action:
        """A touch inside the middle of the widget (people do not hit dead centre)."""
        x1, y1, x2, y2 = placed.box
        fx, fy = self.rng.uniform(0.3, 0.7), self.rng.uniform(0.35, 0.65)
        screen = self.env.device.screen
        point = Point(x1 + (x2 - x1) * fx, y1 + (y2 - y1) * fy, PIXEL).to_norm(screen)
        x, y = point.rounded()
        self.last_target = placed
        return Action.long_press(x, y) if long else Action.click(x, y)

    def swipe(self, direction: ScrollDirection) -> Action:
        x1, y1, x2, y2 = self.view().layout.body_box
        screen = self.env.device.screen
        top = Point((x1 + x2) / 2, y1 + (y2 - y1) * 0.25, PIXEL).to_norm(screen)
        bottom = Point((x1 + x2) / 2, y1 + (y2 - y1) * 0.75, PIXEL).to_norm(screen)
        start, end = (bottom, top) if direction is ScrollDirection.UP else (top, bottom)
        return Action.swipe(Point(*start.rounded()), Point(*end.rounded()))

    # The driver -----------------------------------------------------------------------------
    def next_action(self) -> Action:
        """The next action to take; COMPLETE once the plan is carried out."""
        self.last_target = None
        if self._queued:
            return self._queued.pop(0)
        if self.world.is_loading():
            return Action(ActionType.WAIT, seconds=1.0)
        interruption = self._interruption()
        if interruption is not None:
            return interruption
        if self._recover_to is not None:
            recovered = self._recover()
            if recovered is not None:
                return recovered
        mistake = self._maybe_mistake()
        if mistake is not None:
            return mistake
        while True:
            if self._current is None:
                step = next(self._steps, None)
                if step is None:
                    self.done = True
                    return Action(ActionType.COMPLETE)
                self._current = step(self)
            action = next(self._current, None)
            if action is not None:
                return action
            self._current = None

    def _interruption(self) -> Action | None:
        view = self.view()
        if view.popup is None:
            return None
        kind = view.identity.split(".", 1)[1]
        if kind not in INTERRUPTIONS:
            return None
        placed = next(p for p in view.visible() if p.widget.key == INTERRUPTIONS[kind])
        return self.click(placed)

    def _state(self) -> tuple[str, int, str]:
        world = self.world
        depth = len(world.stacks.get(world.app, [])) if world.app != HOME else 0
        return world.app, depth, self.view().identity

    def _maybe_mistake(self) -> Action | None:
        if self.noise <= 0 or self.rng.random() >= self.noise:
            return None
        view = self.view()
        entry = self.world.entry
        if entry is None or view.popup is not None or view.layout.keyboard:
            return None
        if self.rng.random() < 0.5 and view.layout.max_scroll > 0:
            down = entry.scroll >= view.layout.max_scroll
            return self.swipe(ScrollDirection.DOWN if down else ScrollDirection.UP)
        wrong = [p for p in view.visible() if p.widget.nav]
        if not wrong:
            return None
        self._recover_to = self._state()
        return self.click(self.rng.choice(wrong))

    def _recover(self) -> Action | None:
        """After a wrong tap: back until the phone is where the plan left it."""
        if self._state() == self._recover_to:
            self._recover_to = None
            return None
        return Action(ActionType.PRESS_BACK)


# Primitive steps --------------------------------------------------------------------------
def tap(key: str, long: bool = False) -> Step:
    """Tap the widget ``key``, scrolling the list until it is visible."""

    def run(ex: Expert) -> Iterator[Action]:
        for _ in range(MAX_SCROLLS):
            placed = ex.find(key)
            if placed is not None:
                yield ex.click(placed, long=long)
                return
            layout = ex.view().layout
            if any(w.key == key for w in layout.below):
                yield ex.swipe(ScrollDirection.UP)
            elif any(w.key == key for w in layout.above):
                yield ex.swipe(ScrollDirection.DOWN)
            else:
                raise ExpertError(f"no widget {key!r} on {ex.view().identity}")
        raise ExpertError(f"could not scroll to {key!r} on {ex.view().identity}")

    return run


def fill(key: str, text: str) -> Step:
    """Focus the text field ``key`` (if it is not) and type ``text``."""

    def run(ex: Expert) -> Iterator[Action]:
        entry = ex.world.entry
        if entry is None or entry.focus != key or not ex.view().layout.keyboard:
            yield from tap(key)(ex)
        yield Action.type_text(text)

    return run


def enter() -> Step:
    return tap("kb_enter")


def press(kind: ActionType) -> Step:
    def run(ex: Expert) -> Iterator[Action]:
        yield Action(kind)

    return run


def open_app(app: str) -> Step:
    """From wherever the phone is: home and the app's icon (or recent apps, when it is running),
    then back to the app's first screen."""

    def run(ex: Expert) -> Iterator[Action]:
        if app in ex.world.stacks and app != ex.world.app and ex.rng.random() < 0.5:
            # A running app: people often switch through recent apps instead.
            yield Action(ActionType.PRESS_RECENT)
            yield from tap(f"recent_{app}")(ex)
        else:
            if ex.world.app != HOME or ex.world.showing_recents:
                yield Action(ActionType.PRESS_HOME)
            yield from tap(f"app_{app}")(ex)
        while len(ex.world.stacks[app]) > 1:
            yield Action(ActionType.PRESS_BACK)

    return run


def when(condition: Callable[[Expert], bool], *steps: Step) -> Step:
    """Run ``steps`` only if ``condition`` holds when the plan gets here."""

    def run(ex: Expert) -> Iterator[Action]:
        if condition(ex):
            for step in steps:
                yield from step(ex)

    return run


def on_screen(identity: str) -> Callable[[Expert], bool]:
    return lambda ex: ex.view().identity == identity


def not_on_screen(identity: str) -> Callable[[Expert], bool]:
    return lambda ex: ex.view().identity != identity
