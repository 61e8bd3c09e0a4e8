"""Key chords and double clicks: the desktop's actions, in every form an action takes."""

from __future__ import annotations

import pytest

from guigraph.data.commands import action_to_raw, action_to_text, raw_to_action
from guigraph.errors import ActionError, DatasetError
from guigraph.geometry import ScreenSize
from guigraph.graph.records import ActionTemplate
from guigraph.llm.actions import parse_action
from guigraph.llm.coords import ModelCoords
from guigraph.types import Action, ActionType, key_chord


@pytest.mark.parametrize(
    ("given", "chord"),
    [
        ("ctrl+s", ("ctrl", "s")),
        ("Control+Shift+S", ("ctrl", "shift", "s")),
        (["s", "ctrl"], ("ctrl", "s")),
        ("Return", ("enter",)),
        ("esc", ("escape",)),
        ("ctrl++", ("ctrl", "+")),
        ("+", ("+",)),
    ],
)
def test_a_chord_has_one_spelling(given: str | list[str], chord: tuple[str, ...]) -> None:
    assert key_chord(given) == chord


@pytest.mark.parametrize("bad", ["", "ctrl+", "ctrl+ctrl", "a+b", "page up"])
def test_a_malformed_chord_is_refused(bad: str) -> None:
    with pytest.raises(ActionError):
        key_chord(bad)


def test_key_and_double_click_round_trip_through_every_form() -> None:
    save = Action.key_chord("ctrl", "s")
    double = Action.double_click(250, 400)
    for action in (save, double):
        assert Action.from_dict(action.to_dict()) == action
        assert raw_to_action(*action_to_raw(action)) == action
    assert action_to_raw(save) == ("KEY", "ctrl+s")
    assert action_to_text(save) == "KEY: ctrl+s"
    assert action_to_text(double) == "DOUBLE_CLICK: (250, 400)"
    with pytest.raises(ActionError):
        Action(ActionType.KEY)
    with pytest.raises(ActionError):
        Action(ActionType.CLICK, keys=("s",))
    with pytest.raises(DatasetError, match="key chord"):
        raw_to_action("KEY", "", where="x.json steps[1]")


def test_a_model_reply_names_a_chord_or_a_double_click() -> None:
    coords, screen = ModelCoords.from_name("qwen3-vl"), ScreenSize(1280, 800)
    assert parse_action('{"action": "key", "keys": "ctrl+shift+s"}', coords, screen) == (
        Action.key_chord("ctrl+shift+s")
    )
    assert parse_action('{"action": "press_key", "key": "Enter"}', coords, screen).keys == (
        "enter",
    )
    assert parse_action('{"action": "key", "key": "back"}', coords, screen).type is (
        ActionType.PRESS_BACK
    )
    double = parse_action('{"action": "double_click", "coordinate": [500, 500]}', coords, screen)
    assert double.type is ActionType.DOUBLE_CLICK and double.point is not None


def test_a_key_template_keeps_its_chord() -> None:
    template = ActionTemplate(type=ActionType.KEY, keys=("ctrl", "s"))
    assert ActionTemplate.from_dict(template.to_dict()) == template
    assert (
        template.signature() != ActionTemplate(type=ActionType.KEY, keys=("ctrl", "o")).signature()
    )
