"""Small builders for semantic states, so agent tests read as screens rather than boilerplate."""

from __future__ import annotations

from guigraph.agents.observer import RuleObserver
from guigraph.agents.roles import SemanticState
from guigraph.geometry import BBox, ScreenSize
from guigraph.types import Observation, UIElement

SCREEN = ScreenSize(100, 200)


def button(label: str, box: tuple[int, int, int, int], **flags: bool) -> UIElement:
    return UIElement(BBox(*box), text=label, clickable=True, **flags)


def field(label: str, box: tuple[int, int, int, int], focused: bool = False) -> UIElement:
    return UIElement(BBox(*box), content_desc=label, editable=True, clickable=True, focused=focused)


def text(label: str, box: tuple[int, int, int, int]) -> UIElement:
    return UIElement(BBox(*box), text=label)


def listing(box: tuple[int, int, int, int]) -> UIElement:
    return UIElement(BBox(*box), class_name="RecyclerView", scrollable=True)


def toggle(label: str, box: tuple[int, int, int, int]) -> UIElement:
    return UIElement(BBox(*box), text=label, class_name="Switch", clickable=True)


def state(
    *elements: UIElement, app: str | None = "shop", previous: SemanticState | None = None
) -> SemanticState:
    observation = Observation(SCREEN, screenshot=b"\x89PNG fake", elements=elements, app=app)
    return RuleObserver().observe(observation, previous)


def screenshot_only(app: str | None = None, png: bytes = b"\x89PNG fake") -> SemanticState:
    return RuleObserver().observe(Observation(SCREEN, screenshot=png, app=app), None)
