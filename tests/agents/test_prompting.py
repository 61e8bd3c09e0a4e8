"""Prompt templates and the generated action list."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from guigraph.agents.prompting import ACTION_SHAPES, action_menu, fill, render_elements
from guigraph.geometry import ScreenSize
from guigraph.llm.actions import parse_action
from guigraph.llm.coords import ModelCoords
from guigraph.types import ODYSSEY_ACTIONS, ActionType

from .helpers import button, field, state

COORDS = ModelCoords.from_name("qwen3-vl")
TEMPLATES = sorted(
    p.name.removesuffix(".txt")
    for p in (resources.files("guigraph") / "prompts").iterdir()
    if p.name.endswith(".txt")
)


def test_every_action_type_has_a_shape_that_parse_action_reads_back() -> None:
    assert set(ACTION_SHAPES) == set(ActionType)
    for kind, (shape, _) in ACTION_SHAPES.items():
        concrete = json.dumps(shape).replace('["x", "y"]', "[500, 500]")
        concrete = concrete.replace("up|down|left|right", "up").replace('"..."', '"Notes"')
        action = parse_action(concrete, COORDS, ScreenSize(100, 200))
        assert action.type is kind


def test_action_menu_lists_only_the_environment_space() -> None:
    menu = action_menu(ODYSSEY_ACTIONS)
    assert '"open_app"' not in menu and '"wait"' not in menu
    assert len(menu.splitlines()) == len(ODYSSEY_ACTIONS)
    assert len(action_menu(ActionType).splitlines()) == len(ActionType)


@pytest.mark.parametrize("name", TEMPLATES)
def test_templates_fill_completely_and_name_their_role(name: str) -> None:
    text = (resources.files("guigraph") / "prompts" / f"{name}.txt").read_text()
    names = set(re.findall(r"\$([a-z_]+)", text))
    filled = fill(name, **dict.fromkeys(names, "X"))
    assert "$" not in filled and filled.startswith("Role: ")
    assert names, f"{name}.txt has no placeholders"
    with pytest.raises(KeyError):
        fill(name)  # a missing value is an error, not a silent "$x" in the prompt


def test_elements_are_rendered_with_centres_in_the_model_space() -> None:
    screen = state(button("Go", (100, 100, 300, 200)), field("Query", (0, 500, 1000, 600), True))
    lines = render_elements(screen, COORDS).splitlines()
    assert lines == ["[0] button 'Go' at (200, 150)", "[1] field 'Query' at (500, 550) (focused)"]
