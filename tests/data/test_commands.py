import pytest

from guigraph.data.commands import (
    action_to_command,
    action_to_raw,
    command_to_action,
    parse_numbers,
    parse_point,
    raw_to_action,
)
from guigraph.errors import ActionError, DatasetError
from guigraph.geometry import Point
from guigraph.types import Action, ActionType, ScrollDirection


@pytest.mark.parametrize(
    ("action", "command"),
    [
        (Action.click(287, 259), "CLICK: (287, 259)"),
        (Action.click(287.6, 259.4), "CLICK: (288, 259)"),
        (Action.long_press(10, 990), "LONG_PRESS: (10, 990)"),
        (Action.scroll("up"), "SCROLL: UP"),
        (Action.swipe(Point(800, 500), Point(100, 520)), "SCROLL: LEFT"),
        (Action.type_text("T2 Muay Thai"), "TYPE: T2 Muay Thai"),
        (Action.key(ActionType.PRESS_BACK), "PRESS_BACK"),
        (Action.key(ActionType.PRESS_HOME), "PRESS_HOME"),
        (Action.key(ActionType.PRESS_RECENT), "PRESS_RECENT"),
        (Action(ActionType.COMPLETE), "COMPLETE"),
        (Action(ActionType.IMPOSSIBLE), "IMPOSSIBLE"),
    ],
)
def test_action_to_command(action: Action, command: str) -> None:
    assert action_to_command(action) == command


@pytest.mark.parametrize("action", [Action.open_app("Uber"), Action(ActionType.WAIT, seconds=1)])
def test_actions_outside_the_odyssey_space_have_no_command(action: Action) -> None:
    """They have no command the evaluator knows, but recorded runs keep them (raw extension)."""
    with pytest.raises(ActionError):
        action_to_command(action)
    name, info = action_to_raw(action)
    assert name in ("OPEN_APP", "WAIT")
    assert raw_to_action(name, info) == action


@pytest.mark.parametrize(
    "command",
    [
        "CLICK: (287, 259)",
        "LONG_PRESS: (0, 1000)",
        "SCROLL: UP",
        "SCROLL: DOWN",
        "SCROLL: LEFT",
        "SCROLL: RIGHT",
        "TYPE: gym",
        "TYPE:  3D Printer Course for Beginners ",
        "TYPE: https://twitter.com/x/status/1?t=1&s=19",
        "TYPE: 2: Vegan chickpea curry",
        "TYPE: ",
        "PRESS_BACK",
        "PRESS_HOME",
        "PRESS_RECENT",
        "COMPLETE",
        "IMPOSSIBLE",
    ],
)
def test_command_round_trip(command: str) -> None:
    assert action_to_command(command_to_action(command)) == command


def test_command_parsing_keeps_text_after_a_second_colon() -> None:
    assert command_to_action("TYPE: 2: Vegan").text == "2: Vegan"
    assert command_to_action("TYPE:no space").text == "no space"


def test_command_parsing_is_lenient_on_case_and_spacing() -> None:
    assert command_to_action(" click:(12.5,34) ") == Action.click(12.5, 34)
    assert command_to_action("scroll: down").direction is ScrollDirection.DOWN
    assert command_to_action("CLICK: [1, 2]") == Action.click(1, 2)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "tap the button",
        "CLICK",
        "CLICK: (1, 2, 3)",
        "CLICK: (x, 2)",
        "CLICK: (1, 2]",
        "CLICK: (nan, 2)",
        "SCROLL: sideways",
        "SCROLL",
        "TYPE",
        "COMPLETE: maybe",
        "OPEN_APP: Uber",
    ],
)
def test_unparseable_commands_raise(text: str) -> None:
    with pytest.raises(ActionError):
        command_to_action(text)


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("(12, 34)", [12.0, 34.0]),
        ("[12.5,34]", [12.5, 34.0]),
        ("12, 34", [12.0, 34.0]),
        ("(12, 34,)", [12.0, 34.0]),
        ("(5)", [5.0]),
        ("()", None),
        ("(1, 2", None),
        ("(inf, 2)", None),
        ("('a', 'b')", None),
    ],
)
def test_parse_numbers(text: str, numbers: list[float] | None) -> None:
    assert parse_numbers(text) == numbers


def test_parse_point_needs_two_numbers() -> None:
    assert parse_point("(1, 2)") == (1.0, 2.0)
    assert parse_point("(1, 2, 3)") is None


@pytest.mark.parametrize(
    ("raw_action", "info", "command"),
    [
        ("CLICK", [[287, 259], [287, 259]], "CLICK: (287, 259)"),
        ("LONG_PRESS", [[10, 20], [10, 20]], "LONG_PRESS: (10, 20)"),
        ("CLICK", "KEY_HOME", "PRESS_HOME"),
        ("CLICK", "KEY_BACK", "PRESS_BACK"),
        ("CLICK", "KEY_APPSELECT", "PRESS_RECENT"),
        ("LONG_PRESS", "KEY_HOME", "PRESS_HOME"),
        ("LONG_PRESS", "KEY_APPSELECT", "PRESS_RECENT"),
        ("SCROLL", [[500, 800], [500, 200]], "SCROLL: UP"),
        ("SCROLL", [[500, 200], [500, 800]], "SCROLL: DOWN"),
        ("SCROLL", [[800, 500], [100, 450]], "SCROLL: LEFT"),
        ("SCROLL", [[100, 500], [800, 450]], "SCROLL: RIGHT"),
        ("SCROLL", [[500, 500], [700, 700]], "SCROLL: DOWN"),  # tie: vertical
        ("SCROLL", [[500, 500], [500, 100], [900, 100]], "SCROLL: UP"),  # first two points
        ("TEXT", "gym", "TYPE: gym"),
        ("COMPLETE", "", "COMPLETE"),
        ("INCOMPLETE", "", "IMPOSSIBLE"),
    ],
)
def test_raw_to_command_follows_decode_action(raw_action: str, info: object, command: str) -> None:
    assert action_to_command(raw_to_action(raw_action, info)) == command


@pytest.mark.parametrize(
    ("raw_action", "info"),
    [
        ("CLICK", [[287, 259], [287, 259]]),
        ("LONG_PRESS", [[10.5, 20], [10.5, 20]]),
        ("CLICK", "KEY_HOME"),
        ("CLICK", "KEY_BACK"),
        ("CLICK", "KEY_APPSELECT"),
        ("SCROLL", [[500, 800], [500, 200]]),
        ("TEXT", "a: b"),
        ("COMPLETE", ""),
        ("INCOMPLETE", ""),
    ],
)
def test_raw_round_trip(raw_action: str, info: object) -> None:
    assert action_to_raw(raw_to_action(raw_action, info)) == (raw_action, info)


@pytest.mark.parametrize("direction", list(ScrollDirection))
def test_scroll_without_points_gets_a_canonical_swipe_in_its_direction(
    direction: ScrollDirection,
) -> None:
    raw_action, info = action_to_raw(Action.scroll(direction))
    assert raw_action == "SCROLL"
    assert raw_to_action(raw_action, info).direction is direction


@pytest.mark.parametrize(
    ("raw_action", "info", "field", "expected"),
    [
        ("CLICK", "KEY_POWER", "info", "KEY_HOME"),
        ("CLICK", [[1, 2, 3]], "info", "[[x, y]"),
        ("CLICK", [], "info", "[[x, y]"),
        ("SCROLL", [[1, 2]], "info", "[[x1, y1], [x2, y2]]"),
        ("TEXT", 5, "info", "typed string"),
        ("SWIPE", "", "action", "CLICK, LONG_PRESS"),
    ],
)
def test_bad_raw_actions_name_place_field_and_expectation(
    raw_action: str, info: object, field: str, expected: str
) -> None:
    with pytest.raises(DatasetError) as caught:
        raw_to_action(raw_action, info, where="annotations/e.json steps[3]")
    assert caught.value.field == field
    message = str(caught.value)
    assert "annotations/e.json steps[3]" in message and expected in message
