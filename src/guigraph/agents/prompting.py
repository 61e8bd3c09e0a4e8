"""Prompt building for the model-backed roles: templates, screens, history, the action list.

Templates are package data (``guigraph/prompts/<role>.txt``) filled with ``string.Template``
(``$name``), so the JSON examples in them need no escaping. The action list a decider is shown
is generated here from ``ActionType`` and the environment's action space: one place defines
what an action looks like, and ``parse_action`` reads exactly these shapes back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from functools import cache
from importlib import resources
from string import Template

from guigraph.agents.memory import FocusMemory
from guigraph.agents.roles import Feedback, HistoryEntry, SemanticState
from guigraph.geometry import ScreenSize
from guigraph.llm.coords import ModelCoords
from guigraph.types import Action, ActionType

#: How each action is written in a reply, and what it does. Every ``ActionType`` has one entry
#: (a test checks), so a new action type cannot be forgotten in the prompt.
ACTION_SHAPES: dict[ActionType, tuple[dict[str, object], str]] = {
    ActionType.CLICK: ({"action": "click", "coordinate": ["x", "y"]}, "tap a point"),
    ActionType.DOUBLE_CLICK: (
        {"action": "double_click", "coordinate": ["x", "y"]},
        "double-click a point",
    ),
    ActionType.LONG_PRESS: (
        {"action": "long_press", "coordinate": ["x", "y"]},
        "press and hold a point",
    ),
    ActionType.SCROLL: (
        {"action": "scroll", "direction": "up|down|left|right"},
        "swipe; the direction the finger moves (up shows what is further down)",
    ),
    ActionType.TYPE: ({"action": "type", "text": "..."}, "type into the focused field"),
    ActionType.PRESS_BACK: ({"action": "press_back"}, "the back button"),
    ActionType.PRESS_HOME: ({"action": "press_home"}, "go to the home screen"),
    ActionType.PRESS_RECENT: ({"action": "press_recent"}, "show recent apps"),
    ActionType.OPEN_APP: ({"action": "open_app", "app_name": "..."}, "launch an app by name"),
    ActionType.WAIT: ({"action": "wait", "seconds": 1}, "wait for the screen to load"),
    ActionType.KEY: (
        {"action": "key", "keys": "ctrl+s"},
        "press a key or a chord (enter, escape, tab, ctrl+s, ctrl+shift+s)",
    ),
    ActionType.COMPLETE: ({"action": "complete"}, "the task is done"),
    ActionType.IMPOSSIBLE: ({"action": "impossible"}, "the task cannot be done"),
}

NOTHING = "(none)"
HISTORY_LIMIT = 8
LABEL_WIDTH = 60


@cache
def template(name: str) -> Template:
    """The prompt template ``guigraph/prompts/<name>.txt``."""
    path = resources.files("guigraph") / "prompts" / f"{name}.txt"
    try:
        return Template(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"no prompt template {name!r} at {path}") from None


def fill(name: str, **values: object) -> str:
    """The filled template; a placeholder without a value is an error, not a silent ``$x``."""
    return template(name).substitute({k: str(v) for k, v in values.items()})


def action_menu(space: Iterable[ActionType]) -> str:
    """One line per action the environment accepts, in ``ActionType`` order."""
    allowed = set(space)
    return "\n".join(
        f"- {json.dumps(shape)}: {meaning}"
        for kind, (shape, meaning) in ACTION_SHAPES.items()
        if kind in allowed
    )


def coords_note(coords: ModelCoords, screen: ScreenSize, sent: ScreenSize) -> str:
    width, height = coords.model_image_size(sent)
    return f"a {width:g} x {height:g} space over the screenshot, (0, 0) top left"


def render_elements(
    state: SemanticState, coords: ModelCoords, sent: ScreenSize | None = None
) -> str:
    """Every element with its index, role, label and centre in the model's coordinates."""
    if not state.elements:
        return "(no UI tree: read the screenshot)"
    screen = state.observation.screen
    lines = []
    for view in state.elements:
        x, y = coords.from_point(view.center, screen, sent)
        label = " ".join(view.label.split())[:LABEL_WIDTH]
        flags = [f for f in ("focused", "checked") if getattr(view.element, f)]
        flags += ["scrollable"] if view.element.scrollable else []
        suffix = f" ({', '.join(flags)})" if flags else ""
        lines.append(f"[{view.index}] {view.role} {label!r} at ({x:.0f}, {y:.0f}){suffix}")
    return "\n".join(lines)


def render_history(history: Sequence[HistoryEntry], limit: int = HISTORY_LIMIT) -> str:
    if not history:
        return NOTHING
    shown = history[-limit:]
    skipped = len(history) - len(shown)
    lines = [f"({skipped} earlier steps not shown)"] if skipped else []
    lines += [f"{entry.step + 1}. {entry.narrative}" for entry in shown]
    return "\n".join(lines)


def render_feedback(feedback: Feedback) -> str:
    if not feedback:
        return NOTHING
    lines = [f"- {message}" for message in feedback.messages]
    if feedback.banned:
        banned = ", ".join(json.dumps(action.to_dict()) for action in feedback.banned)
        lines.append(f"- do not propose again: {banned}")
    return "\n".join(lines)


def render_memory(memory: FocusMemory) -> str:
    lines = memory.describe()
    return "\n".join(f"- {line}" for line in lines[-12:]) if lines else NOTHING


def render_action(action: Action) -> str:
    return json.dumps(action.to_dict())


def screenshot(state: SemanticState) -> bytes | None:
    """The state's screenshot, when it has one (replays may have none)."""
    return state.observation.png_bytes() if state.observation.has_screenshot else None
