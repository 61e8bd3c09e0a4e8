"""A four-screen world for loop tests: home -> shop (search field, Go) -> results; an ad page.

Small on purpose: each test can say exactly which misbehaviour it injects (a pop-up, a dead
button, a tap that lands on the wrong page).
"""

from __future__ import annotations

import io

from PIL import Image

from guigraph.envs.base import Env, StepResult
from guigraph.geometry import BBox, ScreenSize
from guigraph.types import Action, ActionType, Observation, Task, UIElement

SCREEN = ScreenSize(50, 100)
SCREENS: dict[str, list[UIElement]] = {
    "home": [UIElement(BBox(100, 100, 300, 200), text="Shop", clickable=True)],
    "shop": [
        UIElement(BBox(50, 50, 950, 120), content_desc="Search", editable=True, clickable=True),
        UIElement(BBox(700, 150, 950, 220), text="Go", clickable=True),
        UIElement(BBox(50, 300, 950, 400), text="Sponsored", clickable=True),
        UIElement(BBox(50, 500, 950, 600), text="Dead button", clickable=True),
    ],
    "results": [UIElement(BBox(50, 50, 950, 150), text="Results")],
    "ad": [UIElement(BBox(50, 50, 950, 150), text="Buy now!")],
    "popup": [UIElement(BBox(200, 400, 800, 500), text="Not now", clickable=True)],
}


class ToyWorld(Env):
    action_space = frozenset(ActionType) - {ActionType.OPEN_APP}

    def __init__(self, popup_after_shop: bool = False):
        self.popup_after_shop = popup_after_shop

    def reset(self, task: Task, seed: int) -> Observation:
        self.stack = ["home"]
        self.query = ""
        self.focused = False
        self.popup_pending = self.popup_after_shop
        self.searched_for: str | None = None
        return self.observe()

    @property
    def screen(self) -> str:
        return self.stack[-1]

    def observe(self) -> Observation:
        elements = []
        for element in SCREENS[self.screen]:
            if element.editable:
                element = UIElement(
                    element.bbox, text=self.query, content_desc="Search", editable=True,
                    clickable=True, focused=self.focused,
                )  # fmt: skip
            elements.append(element)
        shade = sorted(SCREENS).index(self.screen) * 40 + len(self.query)
        buffer = io.BytesIO()
        Image.new("L", (SCREEN.width, SCREEN.height), shade).save(buffer, format="PNG")
        app = {"home": None, "ad": "browser"}.get(self.screen, "shop")
        return Observation(SCREEN, buffer.getvalue(), elements=tuple(elements), app=app)

    def step(self, action: Action) -> StepResult:
        if action.type not in self.action_space:
            return StepResult(self.observe(), error=f"{action.type} is not supported")
        if action.type is ActionType.TYPE:
            if not self.focused:
                return StepResult(self.observe(), error="no focused field")
            self.query += action.text or ""
        elif action.type is ActionType.PRESS_BACK and len(self.stack) > 1:
            self.stack.pop()
            self.focused = False
        elif action.type is ActionType.CLICK and action.point is not None:
            self._tap(action)
        done = action.type in (ActionType.COMPLETE, ActionType.IMPOSSIBLE)
        return StepResult(self.observe(), done=done)

    def _tap(self, action: Action) -> None:
        assert action.point is not None
        hit = next(
            (e for e in self.observe().elements or () if e.bbox.contains(action.point)), None
        )
        label = hit.label if hit else None
        if label == "Shop":
            self.stack.append("popup" if self.popup_pending else "shop")
            if self.popup_pending:
                self.stack[-1:] = ["shop", "popup"]
        elif label == "Not now":
            self.stack.pop()
            self.popup_pending = False
        elif label == "Search":
            self.focused = True
        elif label == "Go" and self.query:
            self.searched_for = self.query
            self.stack.append("results")
        elif label == "Sponsored":
            self.stack.append("ad")

    def succeeded(self) -> bool:
        return self.searched_for == "mouse"
